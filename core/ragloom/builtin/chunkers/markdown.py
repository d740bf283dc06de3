"""The ``markdown`` chunker: one chunk per section, long sections subdivided.

    chunker:
      type: markdown
      size: 800
      overlap: 100

A section runs from an ATX heading (``## Install``) to the next heading of
any level; the text before the first heading is a section without a heading.
Headings inside fenced code blocks and front matter don't count (see
``_chunking.markdown_headings``). Each chunk carries its section's path in
``metadata["section"]`` (``"Guide > Install > Linux"``) and is labelled with
its heading's anchor (``guide.md#linux``): GitHub's slug, with ``-1``,
``-2``... for repeated headings, so anchors are unique and match GitHub's,
or the heading's explicit id (``## Linux {#install-linux}``).

- A section that fits in ``size`` is one chunk, starting with its heading
  line. A longer one has its text under the heading split by the
  ``recursive`` splitter (``size``, ``overlap``, default separators), and the
  heading line leads the first piece (the pieces are made smaller by the
  heading's length if the first would not fit with it); every piece keeps
  the section's path and anchor.
- A heading directly followed by a deeper one (``## Install`` then
  ``### Linux``) has no text of its own: its line is kept at the start of the
  child's first chunk, which carries the child's section.
- ``merge_small: true`` packs consecutive small sections into one chunk while
  it stays within ``size``; the chunk carries the first section's path and
  anchor.
- In source code (``source_code``: a document whose extension or file name
  is a programming language's) a ``#`` line is a comment: no heading is
  read there.
- ``prepend_section_path: true`` puts the section path and a blank line
  before each chunk's text, for embedding. The chunk text is then no longer
  ``text[start:end]`` (offsets still span the passage), and the path is not
  counted in ``size``.
- A long Markdown table is cut between rows, and each piece after the first
  is led by the table's header row and rule (``repeat_table_header``, on by
  default; see ``_tables``): its offsets cover its own rows, the header is
  counted in ``size``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...components import Chunker
from ...types import Chunk, Document
from ._chunking import (
    Heading,
    SizedConfig,
    embedder_of,
    length_function,
    make_chunk,
    markdown_headings,
    source_code,
)
from ._recursive import split_range
from ._tables import Piece, with_table_headers

__all__ = ["MarkdownChunker", "Section", "sections_of"]


@dataclass(frozen=True)
class Section:
    """A trimmed span of a document and the heading it falls under (None
    before the first heading)."""

    start: int
    end: int
    heading: Heading | None


class MarkdownChunker(Chunker):
    """Splits a Markdown document by heading; see the module docs."""

    class Config(SizedConfig):
        """Options of the ``markdown`` chunker.

        ``size`` is the most ``unit`` s in a chunk: longer sections are split
        by the recursive splitter, with ``overlap``; ``merge_small`` packs
        consecutive small sections together up to ``size``;
        ``prepend_section_path`` puts the section path before each chunk's
        text; ``repeat_table_header`` puts a Markdown table's header row and
        rule before each chunk that starts at one of its rows.
        """

        merge_small: bool = False
        prepend_section_path: bool = False
        repeat_table_header: bool = True

    config: Config

    def headings(self, text: str) -> list[Heading]:
        """The headings that start sections: the ATX headings outside code."""
        return markdown_headings(text)

    def split(self, document: Document) -> list[Chunk]:
        chunks: list[Chunk] = []
        prepend = self.config.prepend_section_path
        for start, end, piece, heading in self.passages(document):
            where = (heading.path, heading.anchor) if heading else None
            if prepend and heading is not None:
                piece = f"{heading.path}\n\n{piece}"
            chunks.append(make_chunk(document, piece, len(chunks), start, end, section=where))
        return chunks

    def passages(self, document: Document) -> list[tuple[int, int, str, Heading | None]]:
        """The chunks to be, as ``(start, end, text, heading)``, without the
        section path prepended."""
        c = self.config
        text = document.text
        length = length_function(c.unit, embedder_of(self))
        # a `#` line of source code is a comment, not a heading
        sections = sections_of(text, [] if source_code(document) else self.headings(text))
        if c.merge_small:
            sections = _merge_small(text, sections, c.size, length)

        def resplit(start: int, end: int, room: int) -> list[Piece]:
            return _split(text, start, end, room, c.overlap * room // c.size, length)

        out: list[tuple[int, int, str, Heading | None]] = []
        for section in sections:
            pieces = _pieces(text, section, c.size, c.overlap, length)
            if c.repeat_table_header:
                pieces = with_table_headers(text, pieces, c.size, length, resplit)
            out.extend((start, end, piece, section.heading) for start, end, piece in pieces)
        return out


def sections_of(text: str, headings: list[Heading]) -> list[Section]:
    """The non-empty sections of ``text`` under ``headings``, trimmed; a
    heading with no text before a deeper heading joins that heading's section."""
    bounds = [h.start for h in headings] + [len(text)]
    raw: list[tuple[int, int, Heading | None]] = []
    if headings and headings[0].start > 0:
        raw.append((0, headings[0].start, None))
    elif not headings:
        raw.append((0, len(text), None))
    raw.extend((h.start, bounds[i + 1], h) for i, h in enumerate(headings))
    sections: list[Section] = []
    pending = -1  # start of heading lines waiting for their first child
    for i, (start, end, heading) in enumerate(raw):
        passage = text[start:end]
        stripped = passage.strip()
        if not stripped:
            continue
        begin = start + len(passage) - len(passage.lstrip())
        stop = begin + len(stripped)
        following = raw[i + 1][2] if i + 1 < len(raw) else None
        if (
            heading is not None
            and following is not None
            and following.level > heading.level
            and not text[heading.end : end].strip()
        ):
            if pending < 0:
                pending = begin
            continue
        if pending >= 0:
            begin, pending = pending, -1
        sections.append(Section(begin, stop, heading))
    return sections


def _merge_small(
    text: str, sections: list[Section], size: int, length: Callable[[str], int]
) -> list[Section]:
    """Consecutive sections packed while the span fits in ``size``; a merged
    span keeps its first section's heading."""
    merged: list[Section] = []
    for section in sections:
        if merged:
            last = merged[-1]
            span = (
                section.end - last.start
                if length is len
                else length(text[last.start : section.end])
            )
            if span <= size:
                merged[-1] = Section(last.start, section.end, last.heading)
                continue
        merged.append(section)
    return merged


def _pieces(
    text: str, section: Section, size: int, overlap: int, length: Callable[[str], int]
) -> list[tuple[int, int, str]]:
    """The chunks of one section: itself when it fits, else recursive pieces
    of its body, the first led by the heading line(s)."""

    def measure(piece: str) -> int:
        return len(piece) if length is len else length(piece)

    passage = text[section.start : section.end]
    if measure(passage) <= size:
        return [(section.start, section.end, passage)]
    heading = section.heading
    body = section.end
    if heading is not None and heading.end < section.end:
        rest = text[heading.end : section.end]
        body = heading.end + len(rest) - len(rest.lstrip())
    lead = measure(text[section.start : body])
    pieces: list[tuple[int, int, str]] = []
    if body < section.end and size - lead > overlap:
        pieces = _split(text, body, section.end, size, overlap, length)
        if lead + measure(pieces[0][2]) > size:
            pieces = _split(text, body, section.end, size - lead, overlap, length)
        start, end, _ = pieces[0]
        pieces[0] = (section.start, end, text[section.start : end])
        return pieces
    return _split(text, section.start, section.end, size, overlap, length)


def _split(
    text: str, start: int, end: int, size: int, overlap: int, length: Callable[[str], int]
) -> list[tuple[int, int, str]]:
    return split_range(text, start, end, size, overlap=overlap, length_function=length)
