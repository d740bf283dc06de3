"""Whether a question leans on the conversation before it ("and the Pro plan?",
"how much is it?").
"""

from __future__ import annotations

import re

from ._text import content_terms

FOLLOW_UP = (
    "This question leans on the conversation before it, which this answerer does not "
    "read: ask it in full, naming what it is about. (For chat, configure the `condense` "
    "query transformer with an LLM generator.)"
)
"""The answer to a follow-up question in a chat (``history`` given)."""

_PERSONAL = frozenset({"it", "its", "they", "them", "their", "theirs", "he", "she", "him", "her"})
_OBJECT_LAST = (["it"], ["them"], ["him"], ["her"])
"""A question's last word as a pronoun that is its verb's object."""
_ELLIPTIC = re.compile(r"\s*(?:and|also|what about|how about|and what about|same for)\b", re.I)
"""How a follow-up that asks nothing of its own opens: "And the Osaka office?"."""
_DUMMY_IT = re.compile(
    r"\b(?:is|was|will|would) it (?:\w+ )?(?:possible|ok|okay|true|necessary|allowed|"
    r"required|mandatory|safe|free|worth|better|best|easy|hard|legal|normal|common|"
    r"too late|too early)\b|\bit (?:takes?|took|costs?) |\bdoes it (?:take|cost|matter)\b"
    r"|\bhow (?:long|much|many \w+) (?:does|will|would|did) it (?:take|cost)\b",
    re.I,
)
"""An "it" that stands for nothing before it: "is it possible to...", "how long
does it take to..."."""
_ASKS = re.compile(
    r"\b(?:how|what|when|where|who|whom|whose|which|why|is|are|was|were|can|could|do|"
    r"does|did|will|would|should|may|must|has|have)\b",
    re.I,
)
"""A word that makes what follows an ellipsis's opener a question of its own."""


def leans_on_history(question: str) -> bool:
    """Whether a question in a chat cannot be read alone: it opens as an
    ellipsis ("And the Osaka office?", "What about Lisbon?") or points back
    with a personal pronoun ("When did it open?", "How much do they cost?"),
    not the "it" of "is it possible to..." or "how long does it take to...".
    A question that names what it asks about is read as it is."""
    opener = _ELLIPTIC.match(question)
    if opener is not None and not _ASKS.search(question, opener.end()):
        return True  # "And the Osaka office?": what is asked is the last question's
    words = re.findall(r"[A-Za-z']+", question.lower())
    first = next((i for i, w in enumerate(words) if w in _PERSONAL), None)
    if first is None:
        return False
    before = content_terms(" ".join(words[:first]))
    if before and not (len(before) == 1 and words[first:] in _OBJECT_LAST):
        # "Can employees carry over their vacation days?": the question names
        # what its pronoun stands for before it; a verb alone does not ("Who
        # led it?", "Where can I buy them?": the pronoun, last, is its object)
        return False
    pointing = {w for w in words if w in _PERSONAL}
    return not (pointing <= {"it"} and _DUMMY_IT.search(question))
