"""The ``fixed`` chunker: windows of ``size`` characters, words or tokens, ``overlap`` shared.

    chunker:
      type: fixed
      size: 800
      overlap: 100
      unit: characters

Characters: each window starts ``overlap`` characters before the previous one
ended. A window that would end inside a word ends instead at the last
whitespace in its second half, when there is one; a word longer than half a
window is cut. Chunks are the windows trimmed of surrounding whitespace (so
neighbours may share a little less than ``overlap``); a window of only
whitespace, or whose text the previous chunk already holds, gives none.

Words and tokens: windows of whole words (runs of non-whitespace) holding at
most ``size`` words or tokens, each starting at the word from which at most
``overlap`` remain to the previous window's end. In ``tokens``, each word
counts its own tokens (with the embedder's tokenizer, or the approximation of
``_chunking.approx_tokens``); a word of more than ``size`` tokens is cut
between its approximate tokens.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from itertools import accumulate

from ...components import Chunker
from ...types import Chunk, Document
from ._chunking import (
    SizedConfig,
    approx_token_spans,
    document_sections,
    embedder_of,
    length_function,
    make_chunk,
)

__all__ = ["FixedChunker", "fixed_spans", "unit_spans"]

# The last whitespace before the end of the searched range.
_LAST_SPACE = re.compile(r"\s\S*\Z")
_WORD = re.compile(r"\S+")


class FixedChunker(Chunker):
    """Splits a document into windows of ``size`` units sharing ``overlap``.

    ``start``/``end`` are offsets into the document text and
    ``text[start:end]`` is the chunk text.
    """

    class Config(SizedConfig):
        """Options of the ``fixed`` chunker.

        ``size`` is the most ``unit`` s in a chunk; ``overlap`` how many a
        window shares with the one before it, smaller than ``size``; ``unit``
        is ``characters``, ``words`` or ``tokens``.
        """

    config: Config

    def split(self, document: Document) -> list[Chunk]:
        text = document.text
        c = self.config
        if c.unit == "characters":
            spans = fixed_spans(text, c.size, c.overlap)
        else:
            spans = unit_spans(text, c.size, c.overlap, length_function(c.unit, embedder_of(self)))
        section = document_sections(document)
        return [
            make_chunk(document, text[start:end], index, start, end, section=section(start))
            for index, (start, end) in enumerate(spans)
        ]


def fixed_spans(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets of the fixed-size chunks of ``text``.

    :param text: the text to split.
    :param size: the most characters in a window; must be positive.
    :param overlap: characters a window shares with the previous one; ``0 <= overlap < size``.
    :returns: offsets of the trimmed, non-empty windows, in order.
    :raises ValueError: if ``size`` or ``overlap`` is out of range.
    """
    if size <= 0:
        raise ValueError(f"size must be > 0, got {size}")
    if not 0 <= overlap < size:
        raise ValueError(f"overlap must be >= 0 and smaller than size ({size}), got {overlap}")
    spans: list[tuple[int, int]] = []
    length = len(text)
    pos = 0
    while pos < length:
        end = pos + size
        if end >= length:
            end = length
        elif not text[end].isspace() and not text[end - 1].isspace():
            # The cut falls inside a word. Move it back to the last whitespace
            # in the window's second half, but never so far that the next
            # window would not start after this one.
            floor = max(pos + size // 2, pos + overlap + 1)
            found = _LAST_SPACE.search(text, floor, end)
            if found:
                end = found.start()
        window = text[pos:end]
        trimmed = window.strip()
        if trimmed:
            # Everything before the first kept character is whitespace.
            start = pos + window.find(trimmed[0])
            stop = start + len(trimmed)
            # A window whose text the previous chunk already holds gives none.
            if not spans or stop > spans[-1][1]:
                spans.append((start, stop))
        if end >= length:
            break
        pos = end - overlap
    return spans


def unit_spans(
    text: str, size: int, overlap: int, length: Callable[[str], int]
) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets of windows of whole words measured by ``length``.

    :param text: the text to split.
    :param size: the most units in a window (a single unit more only where one
        approximate token alone measures more).
    :param overlap: the most units a window shares with the previous one.
    :param length: measures one word (``count_words``, a token counter).
    :returns: offsets of the windows, in order; each starts and ends with a word.
    :raises ValueError: if ``size`` or ``overlap`` is out of range.
    """
    if size <= 0:
        raise ValueError(f"size must be > 0, got {size}")
    if not 0 <= overlap < size:
        raise ValueError(f"overlap must be >= 0 and smaller than size ({size}), got {overlap}")
    items: list[tuple[int, int]] = []
    weights: list[int] = []
    cache: dict[str, int] = {}
    for match in _WORD.finditer(text):
        word = match.group()
        weight = cache.get(word)
        if weight is None:
            weight = cache[word] = length(word)
        if weight <= size:
            items.append(match.span())
            weights.append(weight)
            continue
        # A word too long for a window: cut between its approximate tokens.
        for start, end in approx_token_spans(text, *match.span()):
            items.append((start, end))
            weights.append(length(text[start:end]))
    cumulative = list(accumulate(weights, initial=0))
    count = len(items)
    spans: list[tuple[int, int]] = []
    first = 0
    while first < count:
        # The most words from `first` that fit, at least one.
        stop = max(bisect_right(cumulative, cumulative[first] + size, first + 1) - 1, first + 1)
        spans.append((items[first][0], items[stop - 1][1]))
        if stop >= count:
            break
        # The next window keeps at most `overlap` and has room for word `stop`.
        need = max(cumulative[stop] - overlap, cumulative[stop + 1] - size)
        first = max(bisect_left(cumulative, need, first + 1, stop), first + 1)
    return spans
