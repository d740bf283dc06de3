"""Whether a document says of itself that it no longer holds.

Documentation and policy folders keep pages that were replaced: a
deprecated page, the 2024 policy beside the 2026 one. Retrieval finds them
as readily as the current ones, and an answer quoted from one is
confidently out of date. A prose document (Markdown, reStructuredText,
HTML, text, office files, PDF) that says so where a reader would see it is
marked ``deprecated: true`` in its metadata, which retrieval
(``retrieval.deprecated``) and the answerers act on:

- its front matter: ``deprecated: true`` (``false``, ``no``, ``0`` are no;
  any other value, such as a date or a note, is yes), ``status:
  deprecated`` (or superseded, obsolete, ..., also ``Superseded by ADR
  7``), ``superseded_by: ...``; front matter that says ``deprecated`` wins
  over the text;
- a status line in its opening (the first 600 characters, not indented):
  ``Status: superseded``, ``**Status:** Deprecated``, or a ``Status``
  heading whose next line starts with the state (an ADR's ``## Status`` /
  ``Superseded by ADR 0007``);
- the first block after its title: the state as a line of its own (in
  bold, quoted, an admonition's title, ``.. deprecated::``) followed by
  nothing or by a sentence about the page or a pointer elsewhere ("This
  page describes 1.x", "Use the v2 guide"); a line led by the state that
  points elsewhere (``**Deprecated:** use the v2 guide``); or a sentence of
  the page about itself ("This policy has been replaced by ...", "This page
  is no longer maintained", "This page describes the deprecated v1 API",
  not a migration guide's "... and how to replace them");
- its title, where it says the page's state after its subject, in brackets
  or after a dash: ``# v1 API (deprecated)``, ``# Travel policy 2023 —
  superseded`` (deprecated, superseded, obsolete, outdated: "retired" and
  "archived" are said of a benefit or a project).

A mark about one item of a current page says nothing of the page: a
changelog's ``**Deprecated**`` section, ``Deprecated: the --old flag``, a
``.. deprecated::`` under one function, an admonition about one setting,
"This policy is no longer applicable to contractors". Nor are code and
data files (an OpenAPI operation's ``deprecated: true``) read for it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["PROSE_FORMATS", "STATES", "deprecated"]

STATES = (
    "deprecated",
    "superseded",
    "obsolete",
    "outdated",
    "archived",
    "retired",
    "withdrawn",
)
"""What a document says of itself when it no longer holds. Not
"discontinued": that is said of a product or a service, and the page that
says it is still the truth about it ("Status: discontinued" over what
replaced it, and its warranty)."""

PROSE_FORMATS = frozenset(
    {"markdown", "rst", "html", "text", "docx", "pdf", "pptx", "epub", "odt", "rtf"}
)
"""The formats read for the mark (not code, data or mail)."""

_STATE = "|".join(STATES)
_READ_CHARS = 20_000
"""How much of a text is looked at: its title and first two blocks lie within."""
_OPENING_CHARS = 600
"""How far into the text a status line may stand."""

_STATUS_LINE = re.compile(
    rf"^[>*_`\s]{{0,4}}status[*_`]*\s*[:=]\s*[*_`]*\s*(?:{_STATE})\b", re.IGNORECASE
)
"""``Status: superseded``, ``**Status:** Deprecated``, ``Status: Superseded by ADR 7``."""

_STATUS_HEADING = re.compile(r"^#{1,6}\s*status\s*#*\s*$", re.IGNORECASE)
_STARTS_WITH_STATE = re.compile(rf"^[*_`>\s]*(?:{_STATE})\b", re.IGNORECASE)

_STATE_ALONE = re.compile(
    rf"^(?:>\s*)?(?:\.\.\s+(?:{_STATE})::(?:\s+[\w.]+)?|[*_`]+(?:{_STATE})[*_`:.!]*|"
    rf":::\w*\s+(?:{_STATE})|(?:{_STATE})::?)\s*$",
    re.IGNORECASE,
)
"""The state as a line of its own: ``**Deprecated**`` (an admonition's title),
``> **Obsolete**``, ``.. deprecated:: 2.0``, Docusaurus's ``:::caution Deprecated``."""

_STATE_LEAD = re.compile(
    rf"^(?:>\s*)?[*_`]*(?:{_STATE})(?:[*_`]*\s*[:—–-]|:[*_`]+)\s+(?P<rest>.+)",
    re.IGNORECASE,
)
"""A line led by the state: ``**Deprecated:** use the v2 guide``."""

_ABOUT_PAGE = re.compile(
    r"\b(?:this|the present)\s+(?:page|document|doc|documentation|guide|article|policy|"
    r"procedure|process|handbook|manual|section|version|information|content|tutorial|"
    r"specification|spec|standard|adr|decision|rfc|note|release)\b",
    re.IGNORECASE,
)
_POINTER = re.compile(
    r"^[\W_]*(?:please\s+)?(?:use|see|read|refer\s+to|go\s+to|visit|follow|consult|"
    r"(?:it\s+(?:is|was|has\s+been)\s+)?(?:replaced|superseded)\s+by|moved\s+to|"
    r"(?:now\s+)?(?:maintained|documented|described)\s+(?:at|in))\b",
    re.IGNORECASE,
)
"""What sends the reader elsewhere: "Use the v2 guide", "See ...", "Replaced by ..."."""

_ITSELF = re.compile(
    r"\b(?:this|the present)\s+(?:page|document|doc|documentation|guide|article|policy|"
    r"procedure|process|handbook|manual|section|version|information|content|tutorial)"
    r"\b(?:\s+\([^)]{0,40}\))?"
    r"\s+(?:is|was|has\s+been|have\s+been|are)\s+(?:now\s+)?"
    rf"(?:(?:{_STATE})\b|replaced\b|no\s+longer\s+(?:maintained|valid|current|accurate|"
    r"supported|updated|in\s+(?:force|effect|use))\b"
    r"(?!\s+(?:to|for|after|from|as\s+of|once|when|until|beyond|in|on)\b))",
    re.IGNORECASE,
)
"""A sentence of the page about itself: "This policy has been superseded ...",
"This page is no longer maintained" (not "... no longer valid for contractors")."""
_DESCRIBES_OLD = re.compile(
    r"\b(?:this|the present)\s+(?:page|document|doc|documentation|guide|article|section)\s+"
    rf"(?:describes|documents|covers|is\s+about)\s+(?:the\s+)?(?:{_STATE}|legacy)\b"
    # (not a migration guide: "... the deprecated fields and how to replace them")
    r"(?![^.]*\b(?:how\s+to|replac\w*|migrat\w*|move\s+(?:off|to|from)|upgrad\w*)\b)",
    re.IGNORECASE,
)
"""A page that says it is about the old thing: "This page describes the
deprecated v1 API"."""

_UNDERLINE = re.compile(r"^\s*(?:=+|-+|~+|\^+)\s*$")
"""A setext (or reStructuredText) heading's underline."""

_BADGE = re.compile(r"(?:\[?!\[[^\]]*\]\([^)]*\)\]?(?:\([^)]*\))?\s*)+")
"""A line of README badges (``[![build](...)](...)``): no text of the page."""
_PLAIN_TITLE = re.compile(r"[^\W_][^.!?:;]{0,78}[^.!?:;,\s]")
"""A first line that is a title without markup (a text file's, a PDF's): short,
no sentence's end."""

_NO = frozenset({"false", "no", "0", "off", "", "none", "never", "n/a", "na", "null", "~", "-"})
"""Front matter values that say a page is not deprecated."""


def deprecated(text: str, fields: Mapping[str, Any], kind: str = "markdown") -> bool | None:
    """True when the document says it no longer holds (module docs), False
    when its front matter says it holds, else None. ``kind``: the file's
    format; only prose formats are read for a mark in the text."""
    own = fields.get("deprecated")
    if isinstance(own, bool):
        return own
    if own is not None and not isinstance(own, (list, dict)):
        return str(own).strip().lower() not in _NO
    status = fields.get("status")
    if isinstance(status, str) and _STARTS_WITH_STATE.match(status.strip()):
        return True
    replaced_by = fields.get("superseded_by")
    if replaced_by and str(replaced_by).strip().lower() not in _NO:
        return True
    if kind not in PROSE_FORMATS:
        return None
    # the opening only: the first blocks past the title (not a whole book's lines)
    lines = text.lstrip()[:_READ_CHARS].split("\n")
    if _status_in_opening(lines):
        return True
    if _titled_so(lines):
        return True
    block, after = _first_blocks(lines)
    if _marks_itself(block, after):
        return True
    return None


_DOCUMENT_STATES = "deprecated|superseded|obsolete|outdated"
"""What a title says of a page itself ("retired" and "archived" say as much of
a benefit or a project: "# Health benefits (retired)" is a current page)."""
_TITLE_STATE = re.compile(
    rf"(?:[(\[]\s*(?:{_DOCUMENT_STATES})\s*[)\]]|\s[-–—]\s*(?:{_DOCUMENT_STATES}))[*_`]*\s*$",
    re.IGNORECASE,
)
"""A title that says the page's state after its subject: ``# v1 API
(deprecated)``, ``# Expense policy 2023 — superseded`` (not ``# Deprecated
features``, a current page about deprecated things)."""


def _titled_so(lines: list[str]) -> bool:
    """Whether the text's title (its first line, a ``#`` heading or a plain
    line) says the page's state after its subject."""
    first = next((line.strip() for line in lines if line.strip()), "")
    return bool(first) and _TITLE_STATE.search(first.lstrip("#").strip()) is not None


def _status_in_opening(lines: list[str]) -> bool:
    """A status line, or a ``Status`` heading with the state under it, in the
    opening of the text."""
    seen = 0
    for number, line in enumerate(lines):
        seen += len(line) + 1
        if seen > _OPENING_CHARS:
            return False
        if line[:1] in {" ", "\t"}:
            continue  # indented: of something above it
        if _STATUS_LINE.match(line):
            return True
        if _STATUS_HEADING.match(line):
            following = next((rest for rest in lines[number + 1 :] if rest.strip()), "")
            return _STARTS_WITH_STATE.match(following) is not None
    return False


def _first_blocks(lines: list[str]) -> tuple[str, str]:
    """The first block of text after the title (a ``#`` heading or an
    underlined one), and the block after it; empty where a heading comes
    first (a changelog's ``## 2.0.0``: its marks are of a release)."""
    blocks: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    blocks = [b for b in blocks if b and not all(_BADGE.fullmatch(line.strip()) for line in b)]
    if blocks and (
        blocks[0][0].lstrip().startswith("#")
        or (len(blocks[0]) > 1 and _UNDERLINE.match(blocks[0][1]))
        or (len(blocks[0]) == 1 and _PLAIN_TITLE.fullmatch(blocks[0][0].strip()))
    ):
        title = blocks.pop(0)  # the title, and what its block holds past it
        rest = title[2:] if len(title) > 1 and _UNDERLINE.match(title[1]) else title[1:]
        if rest:
            blocks.insert(0, rest)
    if not blocks or _is_heading(blocks[0]):
        return "", ""
    first = "\n".join(blocks[0])
    after = "" if len(blocks) < 2 or _is_heading(blocks[1]) else "\n".join(blocks[1])
    return first, after


def _is_heading(block: list[str]) -> bool:
    return block[0].lstrip().startswith("#") or (
        len(block) > 1 and bool(_UNDERLINE.match(block[1]))
    )


def _marks_itself(block: str, after: str) -> bool:
    """Whether the first block after the title says the page no longer holds."""
    if not block or block[:1] in {" ", "\t"}:
        return False
    head, _, body = block.partition("\n")
    if _STATE_ALONE.match(head.strip()):
        # what follows says what is deprecated: the page, or one of its items
        said = (body.strip() or after.strip()).lstrip("> ")
        return not said or bool(_ABOUT_PAGE.search(said[:200]) or _POINTER.match(said))
    lead = _STATE_LEAD.match(head.strip())
    if lead is not None:
        rest = lead.group("rest")
        return bool(_ABOUT_PAGE.search(rest[:200]) or _POINTER.match(rest))
    return _ITSELF.search(block) is not None or _DESCRIBES_OLD.search(block) is not None
