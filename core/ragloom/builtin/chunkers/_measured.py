"""LangChain's ``RecursiveCharacterTextSplitter`` with any length function, and offsets.

The engine of the ``recursive`` chunker for ``unit: words`` and ``unit:
tokens``: ``_split_text`` and ``_merge_splits`` followed step by step, each
piece carried with its offset into the text. Characters take the faster
path in ``_recursive``.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["MeasuredSplitter"]


class MeasuredSplitter:
    """LangChain's ``_split_text`` and ``_merge_splits`` with any length
    function, step by step, each piece carried with its offset."""

    __slots__ = ("ends", "keep", "length", "overlap", "size", "starts", "strip", "texts")

    def __init__(
        self,
        size: int,
        overlap: int,
        keep: str,
        strip: bool,
        length: Callable[[str], int],
        texts: list[str],
        starts: list[int] | None = None,
        ends: list[int] | None = None,
    ) -> None:
        self.size = size
        self.overlap = overlap
        self.keep = keep
        self.strip = strip
        self.length = length
        self.texts = texts
        self.starts = starts
        self.ends = ends

    def split(self, text: str, offset: int, separators: tuple[str, ...]) -> None:
        """Split ``text`` (at ``offset`` in the document) with the first of
        ``separators`` found in it, recursing into pieces of ``size`` or more."""
        separator = separators[-1]
        rest: tuple[str, ...] = ()
        for i, candidate in enumerate(separators):
            if not candidate:
                separator = candidate
                break
            if candidate in text:
                separator = candidate
                rest = separators[i + 1 :]
                break
        length, size = self.length, self.size
        good: list[tuple[str, int]] = []
        for piece, start in self.pieces(text, separator):
            if length(piece) < size:
                good.append((piece, start))
                continue
            if good:
                self.merge(text, good, separator, offset)
                good = []
            if rest:
                self.split(piece, offset + start, rest)
            else:
                self.emit(piece, offset + start, offset + start + len(piece))
        if good:
            self.merge(text, good, separator, offset)

    def pieces(self, text: str, separator: str) -> list[tuple[str, int]]:
        """``text`` split on ``separator``, each non-empty piece with its start."""
        if not separator:
            return [(ch, i) for i, ch in enumerate(text)]
        parts = text.split(separator)
        sep_len = len(separator)
        out: list[tuple[str, int]] = []
        position = 0
        last = len(parts) - 1
        for i, part in enumerate(parts):
            if self.keep == "start" and i:
                out.append((separator + part, position - sep_len))
            elif self.keep == "end" and i < last:
                out.append((part + separator, position))
            elif part:
                out.append((part, position))
            position += len(part) + sep_len
        return out

    def merge(self, text: str, good: list[tuple[str, int]], separator: str, offset: int) -> None:
        """LangChain's ``_merge_splits``: pieces (each shorter than ``size``)
        joined into chunks of at most ``size`` sharing up to ``overlap``."""
        joiner = "" if self.keep else separator
        length, size, overlap = self.length, self.size, self.overlap
        sep_len = length(joiner)
        lengths = [length(piece) for piece, _ in good]
        first = 0  # the current chunk is good[first:k]
        total = 0
        for k, len_ in enumerate(lengths):
            if total + len_ + (sep_len if k > first else 0) > size and k > first:
                self.emit_joined(text, good, first, k, joiner, offset)
                while total > overlap or (
                    total + len_ + (sep_len if k > first else 0) > size and total > 0
                ):
                    total -= lengths[first] + (sep_len if k - first > 1 else 0)
                    first += 1
            total += len_ + (sep_len if k > first else 0)
        self.emit_joined(text, good, first, len(good), joiner, offset)

    def emit_joined(
        self,
        text: str,
        good: list[tuple[str, int]],
        first: int,
        stop: int,
        joiner: str,
        offset: int,
    ) -> None:
        """Emit pieces ``first..stop-1`` joined, trimmed if ``strip``, unless empty."""
        chunk = joiner.join([piece for piece, _ in good[first:stop]])
        trimmed = chunk.strip() if self.strip else chunk
        if not trimmed:
            return
        begin = good[first][1]
        end = good[stop - 1][1] + len(good[stop - 1][0])
        if trimmed is not chunk:
            if joiner:
                # Separators were dropped and put back one each: the passage
                # and the chunk share their first and last non-space characters.
                source = text[begin:end]
                end = begin + source.rfind(trimmed[-1]) + 1
                begin += source.find(trimmed[0])
            else:
                begin += len(chunk) - len(chunk.lstrip())
                end = begin + len(trimmed)
        self.emit(trimmed, offset + begin, offset + end)

    def emit(self, text: str, start: int, end: int) -> None:
        self.texts.append(text)
        if self.starts is not None and self.ends is not None:
            self.starts.append(start)
            self.ends.append(end)
