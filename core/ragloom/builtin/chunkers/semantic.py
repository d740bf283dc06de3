"""The ``semantic`` chunker: cut where consecutive sentences stop being alike.

    embedder: {type: hash}
    chunker:
      type: semantic
      breakpoint: percentile
      percentile: 95

As LlamaIndex's ``SemanticSplitterNodeParser``: the document is split into
sentences (the ``sentence`` chunker's rules); each sentence is embedded with
the pipeline's embedder together with ``buffer_size`` sentences on each side;
the cosine similarity of each sentence's vector and the next's is computed,
and the text is cut between two sentences where

- ``breakpoint: percentile``: their distance (1 - similarity) is above the
  ``percentile``-th percentile of the document's distances (linear
  interpolation, as ``numpy.percentile``), so about ``100 - percentile``
  percent of the gaps are cut in every document;
- ``breakpoint: threshold``: their similarity is below ``threshold``.

Then a group smaller than ``min_size`` joins the next one (the last joins the
one before), and a group larger than ``max_size`` is split by the
``recursive`` splitter (``size: max_size``, no overlap). Sizes are in
``unit``. ``text[start:end]`` is the chunk text, but for a chunk that starts
at a row of a Markdown table: the table's header row and rule lead it,
counted in ``max_size`` (``repeat_table_header``; see ``_tables``).

Needs an ``embedder:`` in the config (``ragloom config check`` says so). Each
sentence is embedded at index time, besides the chunks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from ...components import Chunker, ComponentConfig, Context, Embedder
from ...errors import ComponentError
from ...types import Chunk, Document
from ._chunking import Unit, document_sections, embedder_of, length_function, make_chunk
from ._recursive import split_range
from ._tables import Piece, with_table_headers
from .sentence import sentence_spans

__all__ = ["SemanticChunker", "breakpoints"]


class SemanticChunker(Chunker):
    """Splits where the similarity of consecutive sentences drops; see the module docs."""

    needs: ClassVar[frozenset[str]] = frozenset({"embedder"})

    class Config(ComponentConfig):
        """Options of the ``semantic`` chunker.

        ``breakpoint`` is ``percentile`` or ``threshold``; ``percentile`` (0
        to 100) and ``threshold`` (a cosine similarity) set where to cut;
        ``buffer_size`` sentences on each side are embedded with each
        sentence; ``min_size`` and ``max_size`` bound the chunks, in ``unit``;
        ``repeat_table_header`` puts a Markdown table's header row and rule
        before each chunk that starts at one of its rows.
        """

        breakpoint: Literal["percentile", "threshold"] = "percentile"
        percentile: float = Field(default=95.0, ge=0, le=100)
        threshold: float = Field(default=0.5, ge=-1, le=1)
        buffer_size: int = Field(default=1, ge=0)
        min_size: int = Field(default=100, ge=0)
        max_size: int = Field(default=2000, gt=0)
        unit: Unit = "characters"
        repeat_table_header: bool = True

        @model_validator(mode="after")
        def _min_below_max(self) -> SemanticChunker.Config:
            if self.min_size >= self.max_size:
                raise ValueError(
                    f"min_size ({self.min_size}) must be smaller than max_size "
                    f"({self.max_size}); lower min_size or raise max_size"
                )
            return self

    config: Config

    def open(self, context: Context | None = None) -> None:
        super().open(context)
        self._embedder()

    def _embedder(self) -> Embedder:
        embedder = embedder_of(self)
        if not isinstance(embedder, Embedder):
            raise ComponentError(
                "the semantic chunker needs the pipeline's embedder: configure `embedder:` "
                "(e.g. `embedder: {type: hash}`), or open it with "
                'Context(services={"embedder": ...})'
            )
        return embedder

    def split(self, document: Document) -> list[Chunk]:
        c = self.config
        text = document.text
        embedder = self._embedder()
        length = length_function(c.unit, embedder)
        sentences = sentence_spans(text)
        if not sentences:
            return []
        cuts = set()
        if len(sentences) > 1:
            windows = [
                " ".join(
                    text[a:b]
                    for a, b in sentences[max(0, i - c.buffer_size) : i + c.buffer_size + 1]
                )
                for i in range(len(sentences))
            ]
            vectors = embedder.embed_documents(windows)
            cuts = set(breakpoints(vectors, c.breakpoint, c.percentile, c.threshold))
        groups: list[list[tuple[int, int]]] = [[]]
        for i, span in enumerate(sentences):
            groups[-1].append(span)
            if i in cuts:
                groups.append([])
        spans = _bounded(text, [(g[0][0], g[-1][1]) for g in groups], c, length)
        pieces: list[Piece] = [(start, end, text[start:end]) for start, end in spans]
        if c.repeat_table_header:

            def resplit(start: int, end: int, room: int) -> list[Piece]:
                return split_range(text, start, end, room, length_function=length)

            pieces = with_table_headers(text, pieces, c.max_size, length, resplit)
        section = document_sections(document)
        return [
            make_chunk(document, piece, index, start, end, section=section(start))
            for index, (start, end, piece) in enumerate(pieces)
        ]


def breakpoints(vectors: Any, breakpoint: str, percentile: float, threshold: float) -> list[int]:
    """The indexes ``i`` after which to cut: where the cosine similarity of
    ``vectors[i]`` and ``vectors[i + 1]`` is below ``threshold``
    (``breakpoint="threshold"``), or where their distance is above the
    ``percentile``-th percentile of all consecutive distances."""
    import numpy as np

    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1)
    norms[norms == 0] = 1.0
    unit = matrix / norms[:, None]
    similarities = np.einsum("ij,ij->i", unit[:-1], unit[1:])
    if breakpoint == "threshold":
        return [int(i) for i in np.flatnonzero(similarities < threshold)]
    distances = 1.0 - similarities
    if distances.size == 0:
        return []
    cut = float(np.percentile(distances, percentile))
    return [int(i) for i in np.flatnonzero(distances > cut)]


def _bounded(
    text: str,
    spans: list[tuple[int, int]],
    config: SemanticChunker.Config,
    length: Callable[[str], int],
) -> list[tuple[int, int]]:
    """Groups below ``min_size`` merged into a neighbour; groups above
    ``max_size`` split by the recursive splitter."""

    def measure(start: int, end: int) -> int:
        return end - start if length is len else length(text[start:end])

    merged: list[tuple[int, int]] = []
    pending = -1  # start of a small group waiting for the next one
    for start, end in spans:
        if pending >= 0:
            start, pending = pending, -1
        if measure(start, end) < config.min_size:
            pending = start
            continue
        merged.append((start, end))
    if pending >= 0:
        if merged:
            merged[-1] = (merged[-1][0], spans[-1][1])
        else:
            merged.append((pending, spans[-1][1]))
    out: list[tuple[int, int]] = []
    for start, end in merged:
        if measure(start, end) <= config.max_size:
            out.append((start, end))
            continue
        pieces = split_range(text, start, end, config.max_size, length_function=length)
        out.extend((a, b) for a, b, _ in pieces)
    return out
