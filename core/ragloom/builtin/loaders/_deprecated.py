"""Whether a document says of itself that it no longer holds.

Documentation and policy folders keep pages that were replaced: a
deprecated page, the 2024 policy beside the 2026 one. Retrieval finds them
as readily as the current ones, and an answer quoted from one is
confidently out of date. A page that says so at its top, where a reader
would see it, is marked ``deprecated: true`` in its metadata (unless its
front matter says otherwise), which retrieval (``retrieval.deprecated``)
and the answerers act on:

- front matter: ``deprecated: true`` (kept as it is), ``status:
  deprecated`` (or superseded, obsolete, archived, retired, withdrawn),
  ``superseded_by: ...``;
- within the opening of its text (the first lines after its title): a line
  of its own that says so (``Status: superseded``, a ``**Deprecated**``
  admonition title, ``.. deprecated::``), or a sentence of the page about
  itself ("This policy has been replaced by ...", "This page is no longer
  maintained").

A page that speaks of deprecations ("This page lists the deprecated
settings") says nothing of itself, and is not marked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["deprecated"]

_STATES = r"deprecated|superseded|obsolete|outdated|archived|retired|withdrawn|discontinued"

_STATUS_LINE = re.compile(
    rf"^[\s>*_`]*(?:\.\.\s+)?(?:(?:status|state)\s*[:=]\s*[*_`]*\s*)?(?:{_STATES})"
    r"(?:\s*::(?:\s+[\w.]+)?)?[\s*_`:.!]*$",
    re.IGNORECASE,
)
"""A line that says the state alone: ``Status: superseded``, ``**Deprecated**``,
``> **Obsolete**``, ``.. deprecated::``."""

_STATUS_LEAD = re.compile(
    rf"^[\s>*_`]*(?:status\s*[:=]\s*)?[*_`]*(?:{_STATES})(?:[*_`]*\s*[:—–-]|:[*_`]+)\s+\S",
    re.IGNORECASE,
)
"""A line led by the state: ``**Deprecated:** use the v2 API``, ``Status: Superseded - see ...``."""

_ITSELF = re.compile(
    r"\b(?:this|the present)\s+(?:page|document|doc|documentation|guide|article|policy|"
    r"procedure|process|handbook|manual|section|version|information|content|version of)"
    r"\b(?:\s+\([^)]{0,40}\))?"
    r"\s+(?:is|was|has\s+been|have\s+been|are)\s+(?:now\s+)?"
    rf"(?:{_STATES}|replaced\b|no\s+longer\s+(?:maintained|valid|current|accurate|supported|"
    r"updated|in\s+(?:force|effect|use)|applies|applicable))",
    re.IGNORECASE,
)
"""A sentence of the page about itself: "This policy has been superseded ...",
"This page is no longer maintained"."""

_OPENING_CHARS = 600
"""How far into the text (past its title) the page must say it."""

_FRONT_STATES = frozenset(_STATES.split("|"))


def deprecated(text: str, fields: Mapping[str, Any]) -> bool | None:
    """True when the document says it no longer holds (module docs); the
    front matter's own ``deprecated`` when it has one; else None."""
    own = fields.get("deprecated")
    if isinstance(own, bool):
        return own
    status = fields.get("status")
    if isinstance(status, str) and status.strip().lower() in _FRONT_STATES:
        return True
    if fields.get("superseded_by"):
        return True
    opening = text.lstrip()[:_OPENING_CHARS]
    lines = opening.split("\n")
    for number, line in enumerate(lines):
        if line.lstrip().startswith("#") or (
            number + 1 < len(lines) and _UNDERLINE.match(lines[number + 1])
        ):
            continue  # a heading: "### Deprecated" is a changelog's, of its items
        if _STATUS_LINE.match(line) or _STATUS_LEAD.match(line):
            return True
    if _ITSELF.search(opening):
        return True
    return None


_UNDERLINE = re.compile(r"^\s*(?:=+|-+)\s*$")
"""A setext heading's underline."""
