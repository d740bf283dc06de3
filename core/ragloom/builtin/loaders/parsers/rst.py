"""reStructuredText: section titles as Markdown headings.

A reStructuredText section title is a line underlined (and optionally
overlined) with one punctuation character repeated at least as long as the
title; its level is the order in which each style (character, with or
without overline) first appears in the document, as docutils decides it.
Each title is rewritten as one ATX line (``## Changes in 1.3.0``), so that
the chunkers cut by section and label chunks with the section path, as they
do for Markdown; everything else in the text is left as it is. The title of
the document is its first section title.
"""

from __future__ import annotations

from typing import Any

from .._files import Parsed

__all__ = ["normalise_rst_titles", "parse_rst"]

_ADORNMENTS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
"""The characters docutils accepts for section adornments (7-bit punctuation)."""


def parse_rst(text: str, **_: Any) -> Parsed:
    """Section titles rewritten as ATX headings; the first one is the title."""
    body, titles = normalise_rst_titles(text)
    return body, {"title": titles[0]} if titles else {}


def normalise_rst_titles(text: str) -> tuple[str, list[str]]:
    """``text`` with each section title rewritten as ``#``-prefixed line
    (its level capped at 6), and the titles in order. A title is a single
    non-blank line after a blank line (or the start, or an overline), with an
    underline of one adornment character at least as long as it; with an
    overline, the overline must match the underline. A line of adornment
    characters between blank lines (a transition), an indented line (a block
    quote, a literal block) and a table border stay as they are."""
    lines = text.split("\n")
    out: list[str] = []
    titles: list[str] = []
    styles: list[tuple[str, bool]] = []  # in order of first appearance: the levels
    i = 0
    while i < len(lines):
        found = _title_at(lines, i)
        if found is None:
            out.append(lines[i])
            i += 1
            continue
        title, style, used = found
        if style not in styles:
            styles.append(style)
        level = min(styles.index(style) + 1, 6)
        out.append(f"{'#' * level} {title}")
        titles.append(title)
        i += used
    return "\n".join(out), titles


def _title_at(lines: list[str], i: int) -> tuple[str, tuple[str, bool], int] | None:
    """``(title, (character, overlined), lines used)`` when a section title
    starts at line ``i``, else None."""
    if i > 0 and lines[i - 1].strip():
        return None  # inside a paragraph
    over = _adornment(lines[i])
    if over is not None and i + 2 < len(lines):
        title = lines[i + 1].strip()
        under = _adornment(lines[i + 2])
        if (
            title
            and under == over
            and lines[i + 2].rstrip() == lines[i].rstrip()
            and len(lines[i].rstrip()) >= len(title)
            and _adornment(lines[i + 1]) is None
        ):
            return title, (over, True), 3
        return None
    if i + 1 >= len(lines):
        return None
    line = lines[i].rstrip()
    if not line or line[0] in " \t" or _adornment(line) is not None:
        return None
    under = _adornment(lines[i + 1], shortest=3)
    if under is None or len(lines[i + 1].rstrip()) < len(line):
        return None
    return line.strip(), (under, False), 2


def _adornment(line: str, shortest: int = 4) -> str | None:
    """The character of an adornment line (one punctuation character repeated,
    at least ``shortest`` times, from the first column), else None."""
    line = line.rstrip()
    if len(line) < shortest or line[0] not in _ADORNMENTS or line.count(line[0]) != len(line):
        return None
    return line[0]
