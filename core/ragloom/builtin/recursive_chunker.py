"""The ``recursive`` chunker: split on paragraphs, then lines, sentences, words, characters.

Produces exactly the chunk texts of LangChain's ``RecursiveCharacterTextSplitter``
(``length_function=len``, ``is_separator_regex=False``) for the same options, so
an index built with either holds the same chunks, and adds character offsets.
LangChain is not needed at runtime.

    chunker:
      type: recursive
      size: 800
      overlap: 100

How it works: the first separator that occurs in the text splits it into
pieces (keeping the separator at the start or end of each piece, or dropping
it); consecutive pieces shorter than ``size`` are merged into chunks of at most
``size`` characters that share up to ``overlap`` characters; a piece of
``size`` characters or more is split again with the separators after the one
used. Pieces are tracked by their offsets in the text, so each chunk's offsets
are known rather than searched for, and merging finds where a chunk ends by
binary search over those offsets rather than piece by piece; chunks are built
by joining the pieces, not by slicing the whole text.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import accumulate, compress
from typing import Literal

from pydantic import Field, model_validator

from ..components import Chunker, ComponentConfig
from ..types import Chunk, Document
from ._chunking import make_chunk, section_finder

__all__ = ["DEFAULT_SEPARATORS", "RecursiveChunker", "split_spans", "split_text"]

DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ". ", " ", "")
"""Paragraphs, lines, sentences, words, characters: tried in this order."""

KeepSeparator = Literal["start", "end", False]

_Separators = tuple[tuple[str, re.Pattern[str] | None], ...]


class RecursiveChunker(Chunker):
    """Splits on the coarsest separator that fits, recursing into pieces that are too long.

    Chunk texts are those of LangChain's ``RecursiveCharacterTextSplitter``.
    ``start``/``end`` are offsets into the document text. With the default
    ``keep_separator`` (``"start"``) or ``"end"``, ``text[start:end]`` is the
    chunk text. With ``keep_separator: false``, pieces are rejoined with a
    single separator, so where the text held a run of separators (two spaces,
    three newlines) the chunk text is not a slice of the document; its offsets
    then span the passage it came from.
    """

    class Config(ComponentConfig):
        """Options of the ``recursive`` chunker.

        ``size`` is the most characters in a chunk (a piece with no separator
        left to split on may be longer); ``overlap`` is the most characters
        consecutive chunks share; ``separators`` are tried in order, ``""``
        meaning single characters; ``keep_separator`` keeps each separator at
        the ``start`` or ``end`` of the piece it borders, or drops it
        (``false``); ``strip_whitespace`` trims each chunk.
        """

        size: int = Field(default=800, gt=0)
        overlap: int = Field(default=100, ge=0)
        separators: list[str] = Field(
            default_factory=lambda: list(DEFAULT_SEPARATORS), min_length=1
        )
        keep_separator: KeepSeparator = "start"
        strip_whitespace: bool = True

        @model_validator(mode="after")
        def _overlap_below_size(self) -> RecursiveChunker.Config:
            if self.overlap >= self.size:
                raise ValueError(
                    f"overlap ({self.overlap}) must be smaller than size ({self.size}); "
                    "lower overlap or raise size"
                )
            return self

    config: Config

    def split(self, document: Document) -> list[Chunk]:
        c = self.config
        texts, starts, ends = split_spans(
            document.text,
            size=c.size,
            overlap=c.overlap,
            separators=c.separators,
            keep_separator=c.keep_separator,
            strip_whitespace=c.strip_whitespace,
        )
        section = section_finder(document.text)
        return [
            make_chunk(document, text, index, start, end, section=section(start))
            for index, (text, start, end) in enumerate(zip(texts, starts, ends, strict=True))
        ]


def split_text(
    text: str,
    size: int = 800,
    overlap: int = 100,
    separators: Sequence[str] = DEFAULT_SEPARATORS,
    keep_separator: KeepSeparator = "start",
    strip_whitespace: bool = True,
) -> list[str]:
    """The chunk texts of ``text``, as ``RecursiveCharacterTextSplitter.split_text`` gives them.

    :param text: the text to split.
    :param size: the most characters in a chunk (``chunk_size``).
    :param overlap: the most characters consecutive chunks share (``chunk_overlap``).
    :param separators: literal separators tried in order; ``""`` splits into characters.
    :param keep_separator: ``"start"``, ``"end"`` or ``False``, as in LangChain.
    :param strip_whitespace: trim each chunk; chunks left empty are dropped.
    :returns: the chunks, in order.
    :raises ValueError: if ``size`` is not positive, ``overlap`` is negative or
        larger than ``size``, or ``separators`` is empty.
    """
    texts: list[str] = []
    _Splitter(size, overlap, keep_separator, strip_whitespace, texts).run(text, separators)
    return texts


def split_spans(
    text: str,
    size: int = 800,
    overlap: int = 100,
    separators: Sequence[str] = DEFAULT_SEPARATORS,
    keep_separator: KeepSeparator = "start",
    strip_whitespace: bool = True,
) -> tuple[list[str], list[int], list[int]]:
    """Like :func:`split_text`, with each chunk's start and end offsets into ``text``.

    :returns: three lists of equal length: chunk texts, starts and ends.
    :raises ValueError: as :func:`split_text`.
    """
    texts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    splitter = _Splitter(size, overlap, keep_separator, strip_whitespace, texts, starts, ends)
    splitter.run(text, separators)
    return texts, starts, ends


class _Splitter:
    """One split: the options, and the chunks found so far.

    Inside, a text being split is known with its ``offset`` in the document;
    positions are relative to that text.
    """

    __slots__ = ("ends", "keep", "overlap", "size", "starts", "strip", "texts")

    def __init__(
        self,
        size: int,
        overlap: int,
        keep_separator: KeepSeparator,
        strip: bool,
        texts: list[str],
        starts: list[int] | None = None,
        ends: list[int] | None = None,
    ) -> None:
        """Chunk texts go to ``texts``; their offsets, if wanted, to ``starts`` and ``ends``."""
        if size <= 0:
            raise ValueError(f"size must be > 0, got {size}")
        if overlap < 0:
            raise ValueError(f"overlap must be >= 0, got {overlap}")
        if overlap > size:
            raise ValueError(f"overlap ({overlap}) must not be larger than size ({size})")
        self.size = size
        self.overlap = overlap
        # LangChain reads any true value but "end" as "start".
        self.keep = "end" if keep_separator == "end" else ("start" if keep_separator else "")
        self.strip = strip
        self.texts = texts
        self.starts = starts
        self.ends = ends

    def run(self, text: str, separators: Sequence[str]) -> None:
        if not separators:
            raise ValueError(f"separators must not be empty; the default is {DEFAULT_SEPARATORS!r}")
        if text:
            # A compiled pattern finds a multi-character separator faster than str.find.
            self.split(
                text,
                0,
                tuple((s, re.compile(re.escape(s)) if len(s) > 1 else None) for s in separators),
            )

    def split(self, text: str, offset: int, separators: _Separators) -> None:
        """Split ``text`` (not empty) with the first of ``separators`` found in it."""
        separator, pattern = separators[-1]
        rest: _Separators = ()
        for i, (candidate, candidate_pattern) in enumerate(separators):
            if not candidate:
                separator = candidate
                break
            if candidate in text if candidate_pattern is None else candidate_pattern.search(text):
                separator, pattern = candidate, candidate_pattern
                rest = separators[i + 1 :]
                break

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
        if start_side:
            bounds = list(accumulate(map(sep_len.__add__, map(len, pieces)), initial=-sep_len))
            bounds[0] = 0
            if not bounds[1]:
                del bounds[0]
        else:
            bounds = list(accumulate(map(sep_len.__add__, map(len, pieces)), initial=0))
            bounds[-1] = length
            if bounds[-2] == length:
                del bounds[-1]
        count = len(bounds) - 1
        # Pieces of `size` or more with their separator; the first ("start")
        # or last ("end") piece has none.
        big = list(compress(range(len(pieces)), map((size - sep_len).__le__, map(len, pieces))))
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
