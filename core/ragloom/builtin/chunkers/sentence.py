"""The ``sentence`` chunker: whole sentences packed into chunks of at most ``size``.

    chunker:
      type: sentence
      size: 800
      overlap_sentences: 1
      unit: characters

The sentence splitter is ragloom's own rules, in :func:`sentence_spans`, not a
library: it needs no model and no download, runs in plain Python at about
the speed of a regular expression, and gives exact character offsets, which
pysbd (slow, and its ``char_span`` offsets are unreliable on repeated text),
blingfire (a native binary) and NLTK's punkt (a model download) do not all
give. The rules:

- Structure first: a blank line, a Markdown heading, a list item, a table row
  and a fenced code block each end what came before; a heading, a table row
  and a whole code block are units of their own. Horizontal rules are
  dropped. Single line breaks inside a paragraph are just spaces.
- Inside a paragraph, a sentence ends after ``.``, ``!``, ``?`` or ``…``
  (with any closing quotes or brackets) followed by whitespace and a
  character that is not a lower-case letter, and always after ``。``, ``！``
  or ``？``.
- But not after an abbreviation (``Dr.``, ``e.g.``, ``etc.`` does end one),
  an initial (``J. R. R. Tolkien``, ``U.S.``) or, before a number, a
  numbering abbreviation (``Fig. 3``, ``No. 5``, ``pp. 10``). Decimals
  (``3.14``) and URLs have no space after the period and never split.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import accumulate

from pydantic import Field

from ...components import Chunker, ComponentConfig
from ...types import Chunk, Document
from ._chunking import Unit, document_sections, embedder_of, length_function, make_chunk
from ._recursive import split_range
from ._tables import Piece, with_table_headers

__all__ = ["SentenceChunker", "pack_units", "sentence_spans"]

_ABBREVIATION_TEXT = """
    mr mrs ms mx dr prof sr jr st mt ft rev hon gen gov sen rep col lt capt sgt cmdr
    e.g i.e cf vs viz al approx ca inc ltd co corp llc bros dept est univ assn
    a.m p.m ph.d m.d b.a m.a b.sc m.sc
    """
_ABBREVIATIONS = frozenset(_ABBREVIATION_TEXT.split())
"""Words that end with a period without ending the sentence (compared in lower case)."""

_NUMBER_ABBREVIATION_TEXT = """
    no nos vol vols p pp ch chap sec sect fig figs eq eqs art ref refs tab ex op
    jan feb mar apr jun jul aug sep sept oct nov dec
    """
_NUMBER_ABBREVIATIONS = frozenset(_NUMBER_ABBREVIATION_TEXT.split())
"""Abbreviations that do not end a sentence when a number follows (``Fig. 3``)."""

# A line that ends what came before: a heading, a list item, a table row, a
# fence, a blank line or a rule. Groups say which.
_BLOCK_START = re.compile(
    r"(?P<blank>[ \t\f\v\r]*$)"
    r"|(?P<fence> {0,3}(?:`{3,}|~{3,}))"
    r"|(?P<heading> {0,3}#{1,6}(?:[ \t]|$))"
    r"|(?P<rule> {0,3}([-*_])(?:[ \t]*\5){2,}[ \t]*$)"
    r"|(?P<row>[ \t]*\|)"
    r"|(?P<item>[ \t]*(?:[-*+\u2022\u2023\u25e6]|\d{1,9}[.)])[ \t]+)"
)
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*$")
_END = re.compile(
    r"[.!?\u2026]+[\"'\u201d\u2019\u00bb)\]*_]*(?=\s)|[\u3002\uff01\uff1f]+[\"'\u201d\u2019\u300d\u300f)\uff09]*"
)
_WORD_BEFORE = re.compile(r"[^\s(\[\"'\u201c\u2018\u00ab]*\Z")
_INITIALS = re.compile(r"(?:[^\W\d_]\.)*[^\W\d_]")
_SPACE = re.compile(r"\s+")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets of the sentences of ``text``, in order.

    Each span starts and ends on a non-whitespace character; see the module
    docs for the rules.
    """
    spans: list[tuple[int, int]] = []
    for start, end, whole in _blocks(text):
        if whole:
            spans.append((start, end))
        else:
            _split_paragraph(text, start, end, spans)
    return spans


def _blocks(text: str) -> list[tuple[int, int, bool]]:
    """Paragraphs (``False``) and units kept whole (``True``) as trimmed spans."""
    blocks: list[tuple[int, int, bool]] = []
    paragraph = -1  # start of the paragraph being read, or -1
    position = 0
    lines = text.splitlines(keepends=True)
    fence = ""
    fence_start = 0
    for line in lines:
        line_start = position
        position += len(line)
        if fence:
            closing = _FENCE.match(line.rstrip("\r\n"))
            if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence):
                fence = ""
                _add(text, blocks, fence_start, position, True)
            continue
        match = _BLOCK_START.match(line.rstrip("\r\n"))
        if match is None:
            if paragraph < 0:
                paragraph = line_start
            continue
        if paragraph >= 0:
            _add(text, blocks, paragraph, line_start, False)
            paragraph = -1
        kind = match.lastgroup
        if kind == "fence":
            fence = match.group("fence").strip()
            fence_start = line_start
        elif kind in ("heading", "row"):
            _add(text, blocks, line_start, position, True)
        elif kind == "item":
            paragraph = line_start
    if fence:  # an unclosed fence runs to the end
        _add(text, blocks, fence_start, position, True)
    elif paragraph >= 0:
        _add(text, blocks, paragraph, position, False)
    return blocks


def _add(text: str, blocks: list[tuple[int, int, bool]], start: int, end: int, whole: bool) -> None:
    chunk = text[start:end]
    stripped = chunk.strip()
    if stripped:
        begin = start + len(chunk) - len(chunk.lstrip())
        blocks.append((begin, begin + len(stripped), whole))


def _split_paragraph(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    """Sentences of the trimmed paragraph ``text[start:end]``, appended to ``spans``."""
    begin = start
    for match in _END.finditer(text, start, end):
        stop = match.end()
        if stop >= end:
            break
        punct = match.group()
        if punct[0] not in "\u3002\uff01\uff1f":
            space = _SPACE.match(text, stop, end)
            after = text[space.end()] if space and space.end() < end else ""
            if not after or after.islower():
                continue
            if punct[0] == "." and punct.rstrip("\"'\u201d\u2019\u00bb)]*_") == ".":
                word = _WORD_BEFORE.search(text, max(begin, match.start() - 40), match.start())
                token = word.group().lower() if word else ""
                if token in _ABBREVIATIONS or _INITIALS.fullmatch(token):
                    continue
                if after.isdigit() and token in _NUMBER_ABBREVIATIONS:
                    continue
        spans.append((begin, stop))
        following = _SPACE.match(text, stop, end)
        begin = following.end() if following else stop
    if begin < end:
        spans.append((begin, end))


class SentenceChunker(Chunker):
    """Packs whole sentences into chunks of at most ``size``, consecutive chunks
    sharing ``overlap_sentences`` sentences.

    A sentence longer than ``size`` on its own is cut with the recursive
    splitter on lines, then words, then characters, and its pieces are packed
    like sentences. ``text[start:end]`` is the chunk text, but for a chunk
    that starts at a row of a Markdown table: the table's header row and rule
    lead it (``repeat_table_header``; see ``_tables``).
    """

    class Config(ComponentConfig):
        """Options of the ``sentence`` chunker.

        ``size`` is the most ``unit`` s in a chunk; ``overlap_sentences`` how
        many sentences a chunk repeats from the end of the one before (fewer
        when they would not leave room for a new one); ``unit`` is
        ``characters``, ``words`` or ``tokens``; ``repeat_table_header`` puts
        a Markdown table's header row and rule before each chunk that starts
        at one of its rows.
        """

        size: int = Field(default=800, gt=0)
        overlap_sentences: int = Field(default=1, ge=0)
        unit: Unit = "characters"
        repeat_table_header: bool = True

    config: Config

    def split(self, document: Document) -> list[Chunk]:
        c = self.config
        text = document.text
        length = length_function(c.unit, embedder_of(self))
        units = fit_units(text, sentence_spans(text), c.size, length)
        pieces: list[Piece] = [
            (start, end, text[start:end])
            for start, end in pack_units(text, units, c.size, c.overlap_sentences, length)
        ]
        if c.repeat_table_header:

            def resplit(start: int, end: int, room: int) -> list[Piece]:
                inside = [(a, b) for a, b in units if start <= a and b <= end]
                parts = fit_units(text, inside, room, length)
                packed = pack_units(text, parts, room, c.overlap_sentences, length)
                return [(a, b, text[a:b]) for a, b in packed]

            pieces = with_table_headers(text, pieces, c.size, length, resplit)
        section = document_sections(document)
        return [
            make_chunk(document, piece, index, start, end, section=section(start))
            for index, (start, end, piece) in enumerate(pieces)
        ]


_FALLBACK_SEPARATORS = ("\n", " ", "")


def fit_units(
    text: str, spans: list[tuple[int, int]], size: int, length: Callable[[str], int]
) -> list[tuple[int, int]]:
    """``spans`` with each span longer than ``size`` cut by the recursive
    splitter on lines, words, then characters (no overlap)."""
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if (end - start if length is len else length(text[start:end])) <= size:
            out.append((start, end))
            continue
        pieces = split_range(
            text, start, end, size, separators=_FALLBACK_SEPARATORS, length_function=length
        )
        out.extend((a, b) for a, b, _ in pieces)
    return out


def pack_units(
    text: str,
    units: list[tuple[int, int]],
    size: int,
    overlap: int,
    length: Callable[[str], int],
) -> list[tuple[int, int]]:
    """Consecutive ``units`` (ordered spans of ``text``) packed greedily into
    spans of at most ``size``, each repeating up to ``overlap`` units of the
    one before when they leave room for a new one.

    In characters a span is measured whole (the spaces between units count);
    in other units, as the sum of its units.
    """
    count = len(units)
    if length is len:

        def fits(first: int, stop: int) -> bool:
            return units[stop - 1][1] - units[first][0] <= size

    else:
        cumulative = list(accumulate((length(text[a:b]) for a, b in units), initial=0))

        def fits(first: int, stop: int) -> bool:
            return cumulative[stop] - cumulative[first] <= size

    spans: list[tuple[int, int]] = []
    first = 0
    while first < count:
        stop = first + 1
        while stop < count and fits(first, stop + 1):
            stop += 1
        spans.append((units[first][0], units[stop - 1][1]))
        if stop >= count:
            break
        following = max(stop - overlap, first + 1)
        while following < stop and not fits(following, stop + 1):
            following += 1
        first = following
    return spans
