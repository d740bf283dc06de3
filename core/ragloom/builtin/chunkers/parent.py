"""The ``parent`` chunker: small chunks to retrieve, each carrying its parent section.

    chunker:
      type: parent
      parents: markdown
      parent_size: 2000
      child_size: 400
      child_overlap: 50

Small chunks match a question precisely; the section around them is what
answers it (LangChain's ``ParentDocumentRetriever``, LlamaIndex's
auto-merging retrieval). The document is cut into parents, by the
``markdown`` chunker (``parents: markdown``: sections, longer ones split to
``parent_size``, no overlap; a text without headings is one section split
the same way) or by the ``recursive`` chunker (``parents: recursive``,
``size: parent_size``, no overlap). Each parent is split by the recursive
splitter into children of ``child_size`` sharing ``child_overlap``; the
children are the chunks, embedded and stored.

Each child's metadata holds ``parent_id`` (``<document id>::parent-<n>``),
``parent_start`` and ``parent_end`` (offsets into the document) and
``parent_text``: a generator or prompt template can put
``chunk.metadata["parent_text"]`` in the prompt instead of the chunk text,
once per ``parent_id``. The parent text is stored with every child, so the
index holds each parent about ``parent_size / (child_size - child_overlap)``
times. A child's section and label are its parent's.
``text[start:end]`` is the chunk text, but where a long Markdown table is
cut between rows: a parent or child that starts at one of its rows is led
by the table's header row and rule, counted in its size
(``repeat_table_header``; see ``_tables``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ...components import Chunker, ComponentConfig
from ...types import Chunk, Document
from ._chunking import Unit, document_sections, embedder_of, length_function, make_chunk
from ._recursive import split_range
from ._tables import Piece, with_table_headers
from .markdown import MarkdownChunker

__all__ = ["ParentChunker"]


class ParentChunker(Chunker):
    """Child chunks for retrieval, each with its parent's text; see the module docs."""

    class Config(ComponentConfig):
        """Options of the ``parent`` chunker.

        ``parents`` is how parents are cut (``markdown`` or ``recursive``);
        ``parent_size`` their largest size; ``child_size`` and
        ``child_overlap`` those of the children; all in ``unit``;
        ``repeat_table_header`` puts a Markdown table's header row and rule
        before each parent and child that starts at one of its rows.
        """

        parents: Literal["markdown", "recursive"] = "markdown"
        parent_size: int = Field(default=2000, gt=0)
        child_size: int = Field(default=400, gt=0)
        child_overlap: int = Field(default=50, ge=0)
        unit: Unit = "characters"
        repeat_table_header: bool = True

        @model_validator(mode="after")
        def _sizes(self) -> ParentChunker.Config:
            if self.child_overlap >= self.child_size:
                raise ValueError(
                    f"child_overlap ({self.child_overlap}) must be smaller than child_size "
                    f"({self.child_size}); lower child_overlap or raise child_size"
                )
            if self.child_size > self.parent_size:
                raise ValueError(
                    f"child_size ({self.child_size}) must not be larger than parent_size "
                    f"({self.parent_size})"
                )
            return self

    config: Config

    def parent_spans(
        self, document: Document
    ) -> list[tuple[int, int, str, tuple[str, str] | None]]:
        """The parents as ``(start, end, text, section)``."""
        c = self.config
        text = document.text
        if c.parents == "markdown":
            sections = MarkdownChunker(
                size=c.parent_size,
                overlap=0,
                unit=c.unit,
                repeat_table_header=c.repeat_table_header,
            )
            sections.open(self.context)
            return [
                (start, end, piece, (heading.path, heading.anchor) if heading else None)
                for start, end, piece, heading in sections.passages(document)
            ]
        length = length_function(c.unit, embedder_of(self))
        pieces = split_range(text, 0, len(text), c.parent_size, length_function=length)
        if c.repeat_table_header:

            def resplit(start: int, end: int, room: int) -> list[Piece]:
                return split_range(text, start, end, room, length_function=length)

            pieces = with_table_headers(text, pieces, c.parent_size, length, resplit)
        find = document_sections(document)
        return [(start, end, piece, find(start)) for start, end, piece in pieces]

    def split(self, document: Document) -> list[Chunk]:
        c = self.config
        length = length_function(c.unit, embedder_of(self))
        chunks: list[Chunk] = []
        text = document.text

        def split(start: int, end: int, size: int, overlap: int) -> list[Piece]:
            return split_range(text, start, end, size, overlap=overlap, length_function=length)

        def resplit(start: int, end: int, room: int) -> list[Piece]:
            return split(start, end, room, c.child_overlap * room // c.child_size)

        for number, (parent_start, parent_end, parent, section) in enumerate(
            self.parent_spans(document)
        ):
            # cut from the document, where the parent's offsets are (a
            # parent's text may start with a table header its offsets skip)
            children = split(parent_start, parent_end, c.child_size, c.child_overlap)
            if c.repeat_table_header:
                children = with_table_headers(text, children, c.child_size, length, resplit)
            extra = {
                "parent_id": f"{document.id}::parent-{number}",
                "parent_start": parent_start,
                "parent_end": parent_end,
                "parent_text": parent,
            }
            for start, end, child in children:
                chunks.append(
                    make_chunk(
                        document,
                        child,
                        len(chunks),
                        start,
                        end,
                        section=section,
                        extra=extra,
                    )
                )
        return chunks
