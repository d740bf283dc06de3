"""What ``extractive`` says when it cannot answer, or answers from a deprecated
page.
"""

from __future__ import annotations

from ...types import Answer, Hit
from ._text import reads_as_english

NOT_FOUND = "I could not find information about this in the indexed documents."
FROM_DEPRECATED = "(From a page marked deprecated; no current page says it.)"
UNANSWERED_PART = "I could not find an answer to \u201c{part}\u201d in the indexed documents."
"""Said for the part of a two-part question that the passages do not answer."""
NOT_ENGLISH = (
    "(The extractive answerer reads questions in English only; for other languages, "
    "configure a generator backed by an LLM.)"
)
"""Said after :data:`NOT_FOUND` when the question does not read as English."""
_METADATA = {"generator": "extractive"}


def _not_found(question: str, hits: tuple[Hit, ...]) -> Answer:
    if reads_as_english(question):
        return Answer(question, NOT_FOUND, hits=hits, grounded=False, metadata=dict(_METADATA))
    # "Wie viele Urlaubstage habe ich?": refused for its language, not for the documents
    return Answer(
        question,
        f"{NOT_FOUND} {NOT_ENGLISH}",
        hits=hits,
        grounded=False,
        metadata={**_METADATA, "not_english": True},
    )
