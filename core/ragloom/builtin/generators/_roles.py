"""Who holds a role: the role a "Who is the boatyard manager?" question
asks, and whether a unit names it (itself, with its headings, by what its
holder does, or by an acronym written out), of the body it is asked of.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...types import Chunk
from ._kind_words import expands
from ._text import GENERIC_STEMS, content_terms, stem
from ._units import _Unit

__all__ = ["asked_role", "holds_role"]


_WHO_IS = re.compile(
    r"^\s*who(?:['’]s|\s+is|\s+was|\s+are|\s+were)\s+(?:the|your|our|their|its)\s+"
    r"([a-z][\w'’-]*(?:\s+[a-z][\w'’-]*){0,3}?)"
    r"(?:\s+(?:of|at|in|for|on)\b([^?]*)|\s+here)?\s*[?.!]*\s*$",
    re.IGNORECASE,
)


def asked_role(question: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """The words of the role a "who is the ...?" question asks the holder of,
    in order, and of what it is the role of: "Who is the boatyard manager?"
    (``boatyard``, ``manager``), "Who is the manager of the boatyard?"
    (``manager``; ``boatyard``). Nothing for another question, or for one
    of two parts ("Who is the CEO and where ...")."""
    found = _WHO_IS.match(question)
    if not found or re.search(r"\b(?:and|or)\b", found.group(1), re.IGNORECASE):
        return (), frozenset()
    role = tuple(t for t in content_terms(found.group(1)) if t not in _NO_ROLE)
    return role, frozenset(content_terms(found.group(2) or "")) - _NO_ROLE


_NO_ROLE = frozenset(
    stem(word)
    for word in (
        "person", "people", "contact", "someone", "right", "best", "main", "current",
        "present", "today", "tonight", "now",
    )
)  # fmt: skip
"""Words of "who is the right person / the current ...?" that name no role."""


def holds_role(
    role: tuple[str, ...], of: frozenset[str], own: frozenset[str], heading: frozenset[str]
) -> bool:
    """Whether a unit says who holds ``role`` (of ``of``): its own words
    ``own`` (with its table's column names) say the role's noun, as a noun or
    by what its holder does ("Lighting design is by ...", "The project is led
    by ..."), and the rest of the role and what it is of are said by them or
    by its headings (``heading``: "- Manager: Tom Hale" under "## Boatyard");
    or its headings say the role and what it is of whole ("### Head of
    music")."""
    if not role:
        return False

    def says(word: str, at: int, words: frozenset[str]) -> bool:
        joined = (
            role[at - 1] + word if at else "",
            word + role[at + 1] if at + 1 < len(role) else "",
        )
        return word in words or any(j and j in words for j in joined)

    words = own | heading
    noun = len(role) - 1
    if not all(says(word, at, words) for at, word in enumerate(role[:-1])) or not of <= words:
        return False
    if says(role[noun], noun, own) or _does(role[noun]) & own:
        return True
    return set(role) | of <= heading


def _does(noun: str) -> frozenset[str]:
    """What the holder of a role ``noun`` is said to do ("manager": managed;
    "designer": design; "leader": leads, led)."""
    if len(noun) <= 5 or not noun.endswith(("er", "or")):
        return _DOES.get(noun, frozenset())
    return frozenset({stem(noun[:-2]), stem(noun[:-1])}) | _DOES.get(noun, frozenset())


_DOES = {
    "leader": frozenset({"led"}),
    "lead": frozenset({"led"}),
    "founder": frozenset({"founded"}),
    "cofounder": frozenset({"cofounded"}),
}
"""Irregular forms of what a role's holder does."""


def _page_terms(chunk: Chunk) -> frozenset[str]:
    """The words of a chunk's page title and path ("docs/tarnside-buses/team.html")."""
    meta = chunk.metadata
    named = " ".join(str(meta.get(field, "")) for field in ("title", "source"))
    return frozenset(content_terms(re.sub(r"[/_.\\-]+", " ", named)))


def _said(unit: _Unit) -> str:
    """A unit's text with its table's column names."""
    return " | ".join((unit.text, *unit.columns))


def _of_another(role: tuple[str, ...], of: frozenset[str], unit: _Unit) -> bool:
    """Whether ``unit`` says its role is of a named body the question does not
    name ("The managing director of Harbour Group is Ken Ross" to "... of
    Isle Link Ferries?"): the page's own name is then not its."""
    pattern = rf"(?i:\b{re.escape(role[-1])}\w*\s+of\s+(?:the\s+)?)((?:[A-Z][\w'&-]*\s*)+)"
    for found in re.finditer(pattern, unit.text):
        named = set(content_terms(found.group(1))) - GENERIC_STEMS
        if named and not named <= of:
            return True
    return False


def _written_out_elsewhere(
    asked: Sequence[str], texts: Sequence[str], chosen: Sequence[_Unit]
) -> bool:
    """Whether an acronym the question asks is known to the passages only
    written out ("User Settings" for "US"), and no chosen unit writes it out."""
    if not asked:
        return False  # (most questions: the hits' words are not read again)
    joined = "\n".join(texts)
    words = set(content_terms(joined))
    for acronym in asked:
        if re.search(rf"(?<![\w-]){acronym}(?![\w-])", joined) or acronym.lower() in words:
            continue
        if expands(acronym, joined) and not any(expands(acronym, _said(unit)) for unit in chosen):
            return True
    return False
