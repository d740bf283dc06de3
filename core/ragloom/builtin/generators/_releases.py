"""Release notes and changelogs: which release a section is, and whether it
says a change happened.
"""

from __future__ import annotations

import re
from datetime import date

from ...types import Chunk
from ._text import content_terms, stem
from ._versions import has_date, has_version, is_release_label

_CHANGE_TYPES = frozenset(
    {
        "added", "changed", "deprecated", "removed", "fixed", "security", "features",
        "new features", "bug fixes", "fixes", "improvements", "enhancements", "performance",
        "documentation", "breaking changes", "dependencies", "internal", "other", "misc",
    }
)  # fmt: skip
"""A changelog's change-type headings (Keep a Changelog's ``### Added``...):
under a release, they do not end it."""


_NOT_OUT = re.compile(r"\b(?:unreleased|roadmap|upcoming|planned|next release)\b", re.I)
_ANY_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
"""A year, in a date too (``2031-01-15``): a heading's, to tell a release to come."""


def _change_type(heading: str) -> str:
    """The change type a heading names ("### Fixed:" -> "fixed"), or ""."""
    name = heading.lower().strip().rstrip(":").strip()
    return name if name in _CHANGE_TYPES else ""


def _release_terms(release: str, released: str) -> frozenset[str]:
    """The words of a release's heading (and of the line that says when it
    came out), with what a dated one says besides: that it was released
    (not "version": "Which command shows the version?" is no question of
    every changelog item)."""
    terms = frozenset(content_terms(f"{release} {released}"))
    return terms | _RELEASE_WORDS if has_date(f"{release} {released}") else terms


_RELEASE_WORDS = frozenset(stem(word) for word in ("release", "released"))


def _dated_release(heading: str, chunk: Chunk) -> bool:
    """Whether a release heading says its version and the day it came out
    (``2.3.1 - 2026-06-02``, ``[1.2.0] - 2026-02-02``, ``3.1.0 (2026-02-02)``),
    of a release that is out (not one planned)."""
    if not (has_version(heading) and has_date(heading)):
        return False
    return _is_out(heading, f"{heading} {chunk.metadata.get('title', '')} {chunk.source}")


def _is_out(heading: str, where: str) -> bool:
    """Whether the release of ``heading`` is out: ``where`` (its heading,
    section, title, source) does not say it is not (unreleased, a roadmap),
    and its heading names no year to come."""
    if _NOT_OUT.search(where):
        return False
    return not any(int(y) > date.today().year for y in _ANY_YEAR.findall(heading))


def _says_released(line: str, release: str) -> bool:
    """Whether ``line``, just under the release heading ``release``, says when
    that release came out (``Released 2026-05-11``, ``2026-05-11``) or that it
    has not (``Unreleased``), and the heading does not say it already."""
    if _NOT_OUT.fullmatch(line.strip(" .:-")):
        return True
    return (
        is_release_label(line)
        and has_date(line)
        and not has_version(line)
        and has_version(release)
        and not has_date(release)
    )


def _release_of(section: str) -> str:
    """The release a chunk's ``section`` path ends in, past change-type
    headings ("Changelog > [1.2.0] - 2026-02-02 > Added" -> "[1.2.0] -
    2026-02-02"), or ""."""
    for part in reversed(section.split(" > ")):
        part = part.strip()
        if is_release_label(part):
            return part
        if not _change_type(part):
            return ""
    return ""
