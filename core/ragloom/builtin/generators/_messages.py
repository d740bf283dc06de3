"""What ``extractive`` says when it cannot answer, answers from a deprecated
page, or read a slip of typing in the question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ...types import Answer, Hit
from ._spelling import Reading
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
READ_AS = "(Read {readings}.)"
"""Said after an answer to a question with slips of typing: how they were read."""


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


def with_readings(answer: Answer, found: Sequence[Reading]) -> Answer:
    """The answer, saying how it read the question's slips of typing ("(Read
    “anual” as “annual” and “Torronto” as “Toronto”.)", and in
    ``metadata["read_as"]``): a name one letter from one the passages say may
    be another name ("Tarbet", "Tarbert"), which the asker can tell."""
    if not found or not answer.grounded:
        return answer
    said = [f"\u201c{r.typed}\u201d as \u201c{r.read}\u201d" for r in found]
    listed = said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"
    return replace(
        answer,
        text=f"{answer.text} {READ_AS.format(readings=listed)}",
        metadata={**answer.metadata, "read_as": {r.typed: r.read for r in found}},
    )
