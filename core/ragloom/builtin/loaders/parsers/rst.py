"""reStructuredText: section titles as Markdown headings.

A reStructuredText section title is a line underlined (and optionally
overlined) with one punctuation character repeated; its level is the order
in which each style (character, with or without overline) first appears in
the document, as docutils decides it. Each title is rewritten as one ATX
line (``## Changes in 1.3.0``), its inline markup reduced to its text, so
that the chunkers cut by section and label chunks with the section path, as
they do for Markdown. Lines that a Markdown reader would take for a heading
or a code fence and that are none in reStructuredText (``# comment`` in a
code block, a ``~~~~`` transition) are indented out of its reach; everything
else in the text is left as it is. A document whose first title's style is
used by no other title has that title as its own, as docutils promotes it.
"""

from __future__ import annotations

import re
from typing import Any

from .._files import Parsed

__all__ = ["normalise_rst_titles", "parse_rst"]

_ADORNMENTS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
"""The characters docutils accepts for section adornments (7-bit punctuation)."""

_LIST_ITEM = re.compile(r"^(?:[-*+\u2022\u2023\u2043]\s|(?:\d+|[a-zA-Z#])[.)]\s|\(\d+\)\s)")
"""A bullet or enumerated list item: never a title (``- item`` over ``----``)."""

_MARKDOWN_BLOCK = re.compile(r"^ {0,3}(?:#{1,6}(?:[ \t]|$)|`{3,}|~{3,})")
"""What a Markdown reader (the chunkers' section finder) would take for an
ATX heading or a code fence."""

_INLINE = (
    (re.compile(r"`([^`<]*?)\s*<[^>`]*>`__?"), r"\1"),  # `text <url>`_
    (re.compile(r":[\w:+.-]+:`([^`]*)`"), r"\1"),  # :role:`text`
    (re.compile(r"``([^`]+)``"), r"\1"),  # ``literal``
    (re.compile(r"`([^`]+)`_{0,2}"), r"\1"),  # `interpreted` or `reference`_
    (re.compile(r"\*\*([^*]+)\*\*"), r"\1"),  # **strong**
    (re.compile(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])"), r"\1"),  # *emphasis*
    (re.compile(r"(?<=\w)__?(?=\s|$)"), ""),  # reference_
)


def parse_rst(text: str, **_: Any) -> Parsed:
    """Section titles rewritten as ATX headings; the document's own title."""
    body, titles = normalise_rst_titles(text)
    if titles and sum(level == titles[0][1] for _, level in titles) == 1:
        return body, {"title": titles[0][0]}
    return body, {}


def normalise_rst_titles(text: str) -> tuple[str, list[tuple[str, int]]]:
    """``text`` with each section title rewritten as a ``#``-prefixed line
    (its level capped at 6), and the titles with their levels, in order.

    A title is a single non-blank line after a blank line (or the start, or
    an overline), underlined with one adornment character, at least as long
    as the title or four characters long (docutils keeps a short underline
    with a warning); an overline must equal its underline. A list item, an
    indented line (a block quote, a literal block), a line of adornment
    characters between blank lines (a transition) and a table border stay
    as they are."""
    lines = text.split("\n")
    out: list[str] = []
    titles: list[tuple[str, int]] = []
    styles: list[tuple[str, bool]] = []  # in order of first appearance: the levels
    i = 0
    while i < len(lines):
        found = _title_at(lines, i)
        if found is None:
            line = lines[i]
            out.append(f"    {line}" if _MARKDOWN_BLOCK.match(line) else line)
            i += 1
            continue
        title, style, used = found
        if style not in styles:
            styles.append(style)
        level = styles.index(style) + 1
        out.append(f"{'#' * min(level, 6)} {title}")
        titles.append((title, level))
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
        overline = lines[i].rstrip()
        if (
            title
            and lines[i + 2].rstrip() == overline
            and _long_enough(overline, title)
            and _adornment(lines[i + 1]) is None
        ):
            return _plain(title), (over, True), 3
        return None
    if i + 1 >= len(lines):
        return None
    line = lines[i].rstrip()
    if not line or line[0] in " \t" or _adornment(line) is not None or _LIST_ITEM.match(line):
        return None
    under = _adornment(lines[i + 1])
    if under is None or not _long_enough(lines[i + 1].rstrip(), line):
        return None
    return _plain(line.strip()), (under, False), 2


def _long_enough(adornment: str, title: str) -> bool:
    return len(adornment) >= min(len(title), 4)


def _adornment(line: str) -> str | None:
    """The character of an adornment line (one punctuation character
    repeated, from the first column), else None."""
    line = line.rstrip()
    if not line or line[0] not in _ADORNMENTS or line.count(line[0]) != len(line):
        return None
    return line[0]


def _plain(title: str) -> str:
    """A title's text without its inline markup (``Using ``load``
    with `Flask <url>`_`` -> ``Using load with Flask``)."""
    for pattern, replacement in _INLINE:
        title = pattern.sub(replacement, title)
    return title.strip() or title
