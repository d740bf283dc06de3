"""The engine of the ``recursive`` chunker: LangChain's ``RecursiveCharacterTextSplitter``
with character offsets.

Two implementations of one algorithm. :class:`CharSplitter`, here, measures
in characters (``length_function=len``) and works on offsets: pieces are
tracked by where they start, so a chunk's offsets are known rather than
searched for, and merging finds where a chunk ends by binary search over
those offsets rather than piece by piece. ``_measured.MeasuredSplitter``
takes any length function (words, tokens) and follows LangChain's code step
by step, carrying each piece's offset along.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate, compress
from typing import Literal

from ._measured import MeasuredSplitter

__all__ = ["DEFAULT_SEPARATORS", "CharSplitter", "KeepSeparator", "run", "split_range"]

DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ". ", " ", "")
"""Paragraphs, lines, sentences, words, characters: tried in this order."""

KeepSeparator = Literal["start", "end", False]

_Separators = tuple[tuple[str, re.Pattern[str] | None], ...]

_MANY = 256
"""Above this many pieces, their offsets are added up with numpy."""


def _bounds_and_big(
    pieces: list[str], sep_len: int, threshold: int, initial: int
) -> tuple[list[int], list[int]]:
    """``accumulate(len(p) + sep_len for p in pieces, initial=initial)`` and
    the indexes of the pieces at least ``threshold`` long, for many pieces."""
    import numpy as np

    lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
    bounds = np.empty(len(pieces) + 1, dtype=np.int64)
    bounds[0] = initial
    np.cumsum(lengths + sep_len, out=bounds[1:])
    bounds[1:] += initial
    return bounds.tolist(), np.flatnonzero(lengths >= threshold).tolist()


def run(
    text: str,
    size: int,
    overlap: int,
    separators: Sequence[str],
    keep_separator: KeepSeparator | bool,
    strip_whitespace: bool,
    length_function: Callable[[str], int],
    texts: list[str],
    starts: list[int] | None = None,
    ends: list[int] | None = None,
) -> None:
    """Split ``text``; chunk texts go to ``texts``, their offsets, if wanted,
    to ``starts`` and ``ends``.

    :raises ValueError: if ``size`` is not positive, ``overlap`` is negative or
        larger than ``size``, or ``separators`` is empty.
    """
    if size <= 0:
        raise ValueError(f"size must be > 0, got {size}")
    if overlap < 0:
        raise ValueError(f"overlap must be >= 0, got {overlap}")
    if overlap > size:
        raise ValueError(f"overlap ({overlap}) must not be larger than size ({size})")
    if not separators:
        raise ValueError(f"separators must not be empty; the default is {DEFAULT_SEPARATORS!r}")
    # LangChain reads any true value but "end" as "start".
    keep = "end" if keep_separator == "end" else ("start" if keep_separator else "")
    if length_function is len:
        CharSplitter(size, overlap, keep, strip_whitespace, texts, starts, ends).run(
            text, separators
        )
    elif text:
        MeasuredSplitter(
            size, overlap, keep, strip_whitespace, length_function, texts, starts, ends
        ).split(text, 0, tuple(separators))


def split_range(
    text: str,
    start: int,
    end: int,
    size: int,
    *,
    overlap: int = 0,
    separators: Sequence[str] = DEFAULT_SEPARATORS,
    length_function: Callable[[str], int] = len,
) -> list[tuple[int, int, str]]:
    """``text[start:end]`` split recursively (separators kept at the start of a
    piece, whitespace stripped), as ``(start, end, piece)`` with offsets into
    ``text``: what every structure-aware chunker does with a section too long
    to be one chunk."""
    texts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    run(
        text[start:end],
        size,
        overlap,
        separators,
        "start",
        True,
        length_function,
        texts,
        starts,
        ends,
    )
    return [(start + a, start + b, piece) for piece, a, b in zip(texts, starts, ends, strict=True)]


class CharSplitter:
    """One split: the options, and the chunks found so far.

    Inside, a text being split is known with its ``offset`` in the document;
    positions are relative to that text.
    """

    __slots__ = ("ends", "keep", "overlap", "size", "starts", "strip", "texts")

    def __init__(
        self,
        size: int,
        overlap: int,
        keep: str,
        strip: bool,
        texts: list[str],
        starts: list[int] | None = None,
        ends: list[int] | None = None,
    ) -> None:
        """``keep`` is ``"start"``, ``"end"`` or ``""`` (separators dropped).
        Chunk texts go to ``texts``; their offsets, if wanted, to ``starts`` and ``ends``."""
        self.size = size
        self.overlap = overlap
        self.keep = keep
        self.strip = strip
        self.texts = texts
        self.starts = starts
        self.ends = ends

    def run(self, text: str, separators: Sequence[str]) -> None:
        if text:
            # A compiled pattern finds a multi-character separator faster than str.find.
            self.split(
                text,
                0,
                tuple((s, re.compile(re.escape(s)) if len(s) > 1 else None) for s in separators),
            )

    def split(self, text: str, offset: int, separators: _Separators) -> None:
        """Split ``text`` (not empty) with the first of ``separators`` found in it."""
        size = self.size
        while True:
            separator, pattern = separators[-1]
            rest: _Separators = ()
            for i, (candidate, candidate_pattern) in enumerate(separators):
                if not candidate:
                    separator = candidate
                    break
                if (
                    candidate in text
                    if candidate_pattern is None
                    else candidate_pattern.search(text)
                ):
                    separator, pattern = candidate, candidate_pattern
                    rest = separators[i + 1 :]
                    break
            if not (
                rest
                and text[0].isspace()
                and separator[0].isspace()
                and self.keep == "start"
                and self.strip
            ):
                break
            # A shortcut, common in prose: a paragraph that kept its "\n\n"
            # holds "\n" only there. When the separator occurs only in the
            # leading whitespace, every piece but the last is whitespace and
            # gives no chunk once stripped; if the last is too long to merge,
            # LangChain goes on with it alone, and so do we.
            lead = len(text) - len(text.lstrip())
            sep_len = len(separator)
            last = text.find(separator)
            if last >= lead:
                break
            following = text.find(separator, last + sep_len)
            while 0 <= following < lead:
                last = following
                following = text.find(separator, last + sep_len)
            if following >= 0 or last >= size or len(text) - last < size:
                break
            text = text[last:]
            offset += last
            separators = rest

        size = self.size
        length = len(text)
        if not separator:
            # Single characters; LangChain merges them with "" whatever keep_separator says.
            if size > 1:
                self.merge_kept(text, offset, range(length + 1), 0, length)
            else:
                self.texts.extend(text)
                if self.starts is not None and self.ends is not None:
                    self.starts.extend(range(offset, offset + length))
                    self.ends.extend(range(offset + 1, offset + length + 1))
            return

        pieces = text.split(separator) if pattern is None else pattern.split(text)
        sep_len = len(separator)
        if not self.keep:
            self.split_dropped(text, offset, pieces, separator, rest)
            return
        # Each piece keeps its separator, so pieces are adjacent: the k-th one
        # merged is text[bounds[k]:bounds[k + 1]]. Empty pieces (only the first
        # with "start", the last with "end") are dropped, as LangChain does.
        start_side = self.keep == "start"
        last = len(pieces) - 1
        # bounds[k] is where piece k (with its separator) starts: the end of
        # the text is fixed below, and an empty first ("start") or last
        # ("end") piece dropped, as LangChain does. Big pieces are those of
        # `size` or more with their separator; the first ("start") or last
        # ("end") piece has none.
        initial = -sep_len if start_side else 0
        threshold = size - sep_len
        if len(pieces) > _MANY:
            bounds, big = _bounds_and_big(pieces, sep_len, threshold, initial)
        else:
            lengths = list(map(len, pieces))
            bounds = list(accumulate(map(sep_len.__add__, lengths), initial=initial))
            big = (
                list(compress(range(len(pieces)), map(threshold.__le__, lengths)))
                if max(lengths) >= threshold
                else []
            )
        if start_side:
            bounds[0] = 0
            if not bounds[1]:
                del bounds[0]
        else:
            bounds[-1] = length
            if bounds[-2] == length:
                del bounds[-1]
        count = len(bounds) - 1
        if not big:
            self.merge_kept(text, offset, bounds, 0, count, pieces, separator)
            return
        if big and start_side and not big[0] and len(pieces[0]) < size:
            del big[0]
        if big and not start_side and big[-1] == last and len(pieces[last]) < size:
            del big[-1]
        if not big:
            self.merge_kept(text, offset, bounds, 0, count, pieces, separator)
            return
        shift = len(pieces) - count if start_side else 0  # piece index - merged index
        strip = self.strip
        first = 0
        for index in big:
            k = index - shift
            # (A lone whitespace piece, often a separator before a long
            # paragraph, would be stripped to nothing.)
            if first < k and not (
                strip and first + 1 == k and text[bounds[first] : bounds[k]].isspace()
            ):
                self.merge_kept(text, offset, bounds, first, k, pieces, separator)
            start = bounds[k]
            if rest:
                # Rebuilt from its piece rather than sliced (see merge_kept).
                piece = pieces[index]
                if start_side and index:
                    piece = separator + piece
                elif not start_side and index < last:
                    piece += separator
                self.split(piece, offset + start, rest)
            else:
                self.emit_raw(text, offset, start, bounds[k + 1])
            first = k + 1
        if first < count:
            self.merge_kept(text, offset, bounds, first, count, pieces, separator)

    def split_dropped(
        self, text: str, offset: int, pieces: list[str], separator: str, rest: _Separators
    ) -> None:
        """Go on splitting ``text`` on ``separator`` into ``pieces``, separators dropped."""
        sep_len = len(separator)
        piece_starts = list(
            compress(accumulate(map(sep_len.__add__, map(len, pieces)), initial=0), pieces)
        )
        pieces = list(filter(None, pieces))
        if not pieces:
            return
        lengths = list(map(len, pieces))
        # cumulative[k]: length of pieces[:k] joined, plus one separator.
        cumulative = list(accumulate(map(sep_len.__add__, lengths), initial=0))
        count = len(pieces)
        size = self.size
        if max(lengths) < size:
            self.merge_joined(text, offset, pieces, piece_starts, cumulative, separator, 0, count)
            return
        first = 0
        for k in compress(range(count), map(size.__le__, lengths)):
            if first < k:
                self.merge_joined(
                    text, offset, pieces, piece_starts, cumulative, separator, first, k
                )
            start = piece_starts[k]
            if rest:
                self.split(pieces[k], offset + start, rest)
            else:
                self.emit_raw(text, offset, start, start + lengths[k])
            first = k + 1
        if first < count:
            self.merge_joined(
                text, offset, pieces, piece_starts, cumulative, separator, first, count
            )

    def emit_raw(self, text: str, offset: int, start: int, end: int) -> None:
        """A piece too long to merge and with no separator left: kept whole and unstripped."""
        self.texts.append(text[start:end])
        if self.starts is not None and self.ends is not None:
            self.starts.append(offset + start)
            self.ends.append(offset + end)

    def merge_kept(
        self,
        text: str,
        offset: int,
        bounds: Sequence[int],
        first: int,
        stop: int,
        pieces: list[str] | None = None,
        separator: str = "",
    ) -> None:
        """Merge adjacent pieces ``first..stop-1``, each shorter than ``size``;
        piece k is ``text[bounds[k]:bounds[k + 1]]``.

        This is LangChain's ``_merge_splits`` with an empty separator: add
        pieces while the chunk fits in ``size``; at the first piece that does
        not fit, emit the chunk, then drop pieces from its front while more
        than ``overlap`` characters remain or the piece still does not fit.
        Offsets grow with the piece index, so both steps look one or two
        pieces ahead and then binary-search (many small pieces: words,
        characters).

        Given ``pieces`` (``text`` split on ``separator``, which each merged
        piece carries on its ``keep`` side) a chunk is built by joining them
        rather than slicing ``text``: a slice of a text holding any character
        beyond Latin-1 is scanned and narrowed; the pieces already are.
        """
        size, overlap, strip = self.size, self.overlap, self.strip
        texts, starts, ends = self.texts, self.starts, self.ends
        lead = 0  # separator characters left off the front of a joined chunk
        if pieces is not None:
            start_side = self.keep == "start"
            sep_len = len(separator)
            # Merged piece k is pieces[k + shift] plus its separator: at its
            # start ("start": all but the first piece) or end ("end": all but
            # the last).
            shift = len(pieces) + 1 - len(bounds) if start_side else 0
            last = len(pieces) - 1
            drop_edges = strip and separator.isspace()
        start = bounds[first]
        k = first + 1  # the first piece not yet known to fit
        while True:
            limit = start + size
            if k < stop and bounds[k + 1] <= limit:
                k += 1
                if k < stop and bounds[k + 1] <= limit:
                    k = bisect_right(bounds, limit, k + 2, stop + 1) - 1
            end = bounds[k]
            if pieces is None:
                chunk = text[start:end]
            else:
                chunk = separator.join(pieces[first + shift : k + shift])
                if start_side:
                    if first + shift:
                        if drop_edges:
                            lead = sep_len
                        else:
                            chunk = separator + chunk
                            lead = 0
                    else:
                        lead = 0
                elif k <= last and not drop_edges:
                    chunk += separator
            if not strip:
                texts.append(chunk)
                if starts is not None and ends is not None:
                    starts.append(offset + start)
                    ends.append(offset + end)
            else:
                trimmed = chunk.strip()
                if trimmed:
                    texts.append(trimmed)
                    if starts is not None and ends is not None:
                        begin = offset + start + lead
                        if trimmed is not chunk:
                            # All before the first kept character is whitespace.
                            begin += chunk.find(trimmed[0])
                        starts.append(begin)
                        ends.append(begin + len(trimmed))
            if k >= stop:
                return
            # Drop pieces from the front: keep at most `overlap` characters
            # and room for piece k.
            need = end - overlap
            if bounds[k + 1] - size > need:
                need = bounds[k + 1] - size
            if start < need:
                first += 1
                if bounds[first] < need:
                    first = bisect_left(bounds, need, first + 1, k)
                start = bounds[first]
            k += 1

    def merge_joined(
        self,
        text: str,
        offset: int,
        pieces: list[str],
        piece_starts: list[int],
        cumulative: list[int],
        separator: str,
        first: int,
        stop: int,
    ) -> None:
        """LangChain's ``_merge_splits`` with ``separator`` put back between pieces.

        Pieces ``first..k-1`` joined are ``cumulative[k] - cumulative[first] -
        len(separator)`` characters long; otherwise as :meth:`merge_kept`.
        The offsets span the source passage: its first and last
        non-whitespace characters are those of the joined text, since the two
        differ only by extra copies of the separator between pieces.
        """
        size, overlap, strip = self.size, self.overlap, self.strip
        texts, starts, ends = self.texts, self.starts, self.ends
        sep_len = len(separator)
        start = cumulative[first]
        k = first + 1  # the first piece not yet known to fit
        while True:
            limit = start + sep_len + size
            if k < stop and cumulative[k + 1] <= limit:
                k += 1
                if k < stop and cumulative[k + 1] <= limit:
                    k = bisect_right(cumulative, limit, k + 2, stop + 1) - 1
            chunk = separator.join(pieces[first:k])
            trimmed = chunk.strip() if strip else chunk
            if trimmed:
                texts.append(trimmed)
                if starts is not None and ends is not None:
                    begin = piece_starts[first]
                    end = piece_starts[k - 1] + len(pieces[k - 1])
                    if trimmed is not chunk:
                        source = text[begin:end]
                        end = begin + source.rfind(trimmed[-1]) + 1
                        begin += source.find(trimmed[0])
                    starts.append(offset + begin)
                    ends.append(offset + end)
            if k >= stop:
                return
            need = cumulative[k] - sep_len - overlap
            if cumulative[k + 1] - sep_len - size > need:
                need = cumulative[k + 1] - sep_len - size
            if start < need:
                first += 1
                if cumulative[first] < need:
                    first = bisect_left(cumulative, need, first + 1, k)
                start = cumulative[first]
            k += 1
