"""The ``recursive`` chunker: split on paragraphs, then lines, sentences, words, characters.

Produces exactly the chunk texts of LangChain's ``RecursiveCharacterTextSplitter``
(``is_separator_regex=False``) for the same options, so an index built with
either holds the same chunks, and adds character offsets. LangChain is not
needed at runtime. ``unit: words`` and ``unit: tokens`` measure sizes as
LangChain does when given a ``length_function``: each piece is measured and
the lengths added up.

    chunker:
      type: recursive
      size: 800
      overlap: 100
      unit: characters

How it works: the first separator that occurs in the text splits it into
pieces (keeping the separator at the start or end of each piece, or dropping
it); consecutive pieces shorter than ``size`` are merged into chunks of at most
``size`` that share up to ``overlap``; a piece of ``size`` or more is split
again with the separators after the one used. The engine is in
``_recursive``.

One departure, on by default: a chunk that starts at a row of a Markdown
table is led by the table's header row and rule (``repeat_table_header``;
see ``_tables``), and a chunk that would not fit with them is split again
at the room left. ``repeat_table_header: false`` gives LangChain's chunks
exactly, tables included; :func:`split_text` and :func:`split_spans` always do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import Field

from ...components import Chunker
from ...types import Chunk, Document
from ._chunking import SizedConfig, document_sections, embedder_of, length_function, make_chunk
from ._recursive import DEFAULT_SEPARATORS, KeepSeparator, run
from ._tables import Piece, with_table_headers

__all__ = ["DEFAULT_SEPARATORS", "RecursiveChunker", "split_spans", "split_text"]


class RecursiveChunker(Chunker):
    """Splits on the coarsest separator that fits, recursing into pieces that are too long.

    Chunk texts are those of LangChain's ``RecursiveCharacterTextSplitter``,
    but where a Markdown table is cut between rows (``repeat_table_header``,
    see ``_tables``). ``start``/``end`` are offsets into the document text.
    With the default ``keep_separator`` (``"start"``) or ``"end"``,
    ``text[start:end]`` is the chunk text. With ``keep_separator: false``,
    pieces are rejoined with a single separator, so where the text held a run
    of separators (two spaces, three newlines) the chunk text is not a slice
    of the document; its offsets then span the passage it came from. A chunk
    that starts at a table's row is led by the table's header row and rule,
    which its offsets do not cover.
    """

    class Config(SizedConfig):
        """Options of the ``recursive`` chunker.

        ``size`` is the most ``unit`` s in a chunk (a piece with no separator
        left to split on may be longer); ``overlap`` is the most consecutive
        chunks share; ``unit`` is ``characters``, ``words`` or ``tokens``;
        ``separators`` are tried in order, ``""`` meaning single characters;
        ``keep_separator`` keeps each separator at the ``start`` or ``end`` of
        the piece it borders, or drops it (``false``); ``strip_whitespace``
        trims each chunk; ``repeat_table_header`` puts a Markdown table's
        header row and rule before each chunk that starts at one of its rows
        (``false``: LangChain's chunk texts throughout).
        """

        separators: list[str] = Field(
            default_factory=lambda: list(DEFAULT_SEPARATORS), min_length=1
        )
        keep_separator: KeepSeparator = "start"
        strip_whitespace: bool = True
        repeat_table_header: bool = True

    config: Config

    def split(self, document: Document) -> list[Chunk]:
        c = self.config
        text = document.text
        length = length_function(c.unit, embedder_of(self))

        def spans(start: int, end: int, size: int, overlap: int) -> list[Piece]:
            texts, starts, ends = split_spans(
                text[start:end],
                size=size,
                overlap=overlap,
                separators=c.separators,
                keep_separator=c.keep_separator,
                strip_whitespace=c.strip_whitespace,
                length_function=length,
            )
            return [(start + a, start + b, t) for t, a, b in zip(texts, starts, ends, strict=True)]

        pieces = spans(0, len(text), c.size, c.overlap)
        if c.repeat_table_header:
            pieces = with_table_headers(
                text,
                pieces,
                c.size,
                length,
                lambda start, end, room: spans(start, end, room, c.overlap * room // c.size),
            )
        section = document_sections(document)
        return [
            make_chunk(document, piece, index, start, end, section=section(start))
            for index, (start, end, piece) in enumerate(pieces)
        ]


def split_text(
    text: str,
    size: int = 800,
    overlap: int = 100,
    separators: Sequence[str] = DEFAULT_SEPARATORS,
    keep_separator: KeepSeparator = "start",
    strip_whitespace: bool = True,
    length_function: Callable[[str], int] = len,
) -> list[str]:
    """The chunk texts of ``text``, as ``RecursiveCharacterTextSplitter.split_text`` gives them.

    :param text: the text to split.
    :param size: the most characters (or ``length_function`` units) in a chunk (``chunk_size``).
    :param overlap: the most consecutive chunks share (``chunk_overlap``).
    :param separators: literal separators tried in order; ``""`` splits into characters.
    :param keep_separator: ``"start"``, ``"end"`` or ``False``, as in LangChain.
    :param strip_whitespace: trim each chunk; chunks left empty are dropped.
    :param length_function: how a piece is measured, as in LangChain; ``len``
        (characters) takes a faster path giving the same chunks.
    :returns: the chunks, in order.
    :raises ValueError: if ``size`` is not positive, ``overlap`` is negative or
        larger than ``size``, or ``separators`` is empty.
    """
    texts: list[str] = []
    run(text, size, overlap, separators, keep_separator, strip_whitespace, length_function, texts)
    return texts


def split_spans(
    text: str,
    size: int = 800,
    overlap: int = 100,
    separators: Sequence[str] = DEFAULT_SEPARATORS,
    keep_separator: KeepSeparator = "start",
    strip_whitespace: bool = True,
    length_function: Callable[[str], int] = len,
) -> tuple[list[str], list[int], list[int]]:
    """Like :func:`split_text`, with each chunk's start and end offsets into ``text``.

    :returns: three lists of equal length: chunk texts, starts and ends.
    :raises ValueError: as :func:`split_text`.
    """
    texts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    run(
        text,
        size,
        overlap,
        separators,
        keep_separator,
        strip_whitespace,
        length_function,
        texts,
        starts,
        ends,
    )
    return texts, starts, ends
