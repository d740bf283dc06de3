"""The ``fixed`` chunker: windows of ``size`` characters, ``overlap`` shared.

    chunker:
      type: fixed
      size: 800
      overlap: 100

Each window starts ``overlap`` characters before the previous one ended. A
window that would end inside a word ends instead at the last whitespace in its
second half, when there is one; a word longer than half a window is cut.
Chunks are the windows trimmed of surrounding whitespace (so neighbours may
share a little less than ``overlap``); a window of only whitespace, or whose
text the previous chunk already holds, gives none.
"""

from __future__ import annotations

import re

from pydantic import Field, model_validator

from ..components import Chunker, ComponentConfig
from ..types import Chunk, Document
from ._chunking import make_chunk, section_finder

__all__ = ["FixedChunker", "fixed_spans"]

# The last whitespace before the end of the searched range.
_LAST_SPACE = re.compile(r"\s\S*\Z")


class FixedChunker(Chunker):
    """Splits a document into windows of ``size`` characters sharing ``overlap``.

    ``start``/``end`` are offsets into the document text and
    ``text[start:end]`` is the chunk text.
    """

    class Config(ComponentConfig):
        """Options of the ``fixed`` chunker.

        ``size`` is the most characters in a chunk; ``overlap`` how many
        characters a window shares with the one before it, smaller than ``size``.
        """

        size: int = Field(default=800, gt=0)
        overlap: int = Field(default=100, ge=0)

        @model_validator(mode="after")
        def _overlap_below_size(self) -> FixedChunker.Config:
            if self.overlap >= self.size:
                raise ValueError(
                    f"overlap ({self.overlap}) must be smaller than size ({self.size}); "
                    "lower overlap or raise size"
                )
            return self

    config: Config

    def split(self, document: Document) -> list[Chunk]:
        text = document.text
        section = section_finder(text)
        return [
            make_chunk(document, text[start:end], index, start, end, section=section(start))
            for index, (start, end) in enumerate(
                fixed_spans(text, self.config.size, self.config.overlap)
            )
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
