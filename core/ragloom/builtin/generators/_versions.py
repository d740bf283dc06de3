"""Versions, releases and dates: whether a question asks which version or when,
and whether a line names a release.
"""

from __future__ import annotations

import re

__all__ = [
    "NAMED_VERSION",
    "YEAR",
    "asks_version",
    "asks_when",
    "has_date",
    "has_version",
    "is_release_label",
    "versions_in",
]

YEAR = re.compile(r"(?<![\w.,/])(?<!\d-)(?:19|20)\d\d(?!\w|[-.,/]\d)")
"""A year written in full ("2023"; not the "2023" of "2023-05-01" or "1.2023.4")."""


_ASKS_VERSION = re.compile(
    r"\b(?:which|what) (?:version|release)s?\b|\bsince (?:which|what) (?:version|release)\b",
    re.IGNORECASE,
)
_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*(?![\w.]*\d)")


_MONTHS = (
    "january|february|march|april|june|july|august|september|october|november|december|"
    "jan|feb|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
"""Month names and abbreviations, but "may" and "mar" (a modal, a word)."""
_DATE = re.compile(
    rf"\b(?:1[89]|20)\d\d\b|\b\d{{1,2}}:\d\d\b|\b(?:{_MONTHS}|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    re.IGNORECASE,
)


def asks_version(question: str) -> bool:
    """Whether the question asks which version or release something came in
    (not which one it will come in)."""
    return _ASKS_VERSION.search(question) is not None and not re.search(
        r"\b(?:will|going to|planned|next)\b", question, re.IGNORECASE
    )


def asks_when(question: str) -> bool:
    """Whether the question asks when something happened (a date), not how
    long, nor when it will ("when will SSO be available")."""
    return re.match(r"\s*(?:and\s+)?when (?:was|were|did|has|have)\b", question, re.I) is not None


def has_date(text: str) -> bool:
    """Whether a text holds a date or a clock time (a year, a month, a day of
    the week, ``9:30``)."""
    return _DATE.search(text) is not None


def has_version(text: str) -> bool:
    """Whether a text holds a version number (``3.1.0``, ``v2.4``)."""
    return _VERSION.search(text) is not None


def versions_in(text: str) -> set[str]:
    """The version numbers a text holds, without a ``v`` (``{"2.0.0"}``)."""
    return {v.removeprefix("v") for v in _VERSION.findall(text)}


NAMED_VERSION = re.compile(r"\b(?!(?i:version|release)\b)[A-Z][\w-]*\s+v?\d+(?:\.\d+)+")
"""A version of something named (``Python 3.8``, ``NumPy 1.22``), not of the
release a changelog line belongs to."""


_LABEL_WORDS = re.compile(
    rf"\b(?:v|version|release|released|on|of|the|unreleased|\d+(?:st|nd|rd|th)?|may|mar|"
    rf"{_MONTHS})\b",
    re.IGNORECASE,
)


def is_release_label(heading: str) -> bool:
    """Whether a heading only names a release or a date (``3.1.0
    (2026-02-02)``, ``[2.4.1] - 2026-02-02``, ``Version 3.1``, ``14 May
    2026``), not a topic that holds a number (``2.4 Authentication``,
    ``Windows 11``, ``2024 pricing``)."""
    if not (has_version(heading) or has_date(heading) or re.search(r"\d{4}-\d\d", heading)):
        return False
    rest = _LABEL_WORDS.sub(" ", _VERSION.sub(" ", heading))
    return not re.search(r"[^\W\d_]", rest)
