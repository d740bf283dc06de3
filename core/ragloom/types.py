"""The values that flow through a pipeline: Document, Chunk, Hit, Citation, Answer.

All are frozen dataclasses. Metadata is a plain mapping of JSON-compatible
values (str, int, float, bool, None, lists of those); stores persist it and
filters read it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = [
    "Answer",
    "Chunk",
    "Citation",
    "Document",
    "Explanation",
    "Hit",
    "HitExplanation",
    "Hits",
    "MAX_K",
    "StageTiming",
    "content_hash",
]

MAX_K = 10_000
"""The most hits one query may ask for (the pipeline's bound, and the command line's)."""


def content_hash(text: str) -> str:
    """The hex SHA-256 of ``text`` encoded as UTF-8; ids and caches key on it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Document:
    """A loaded source: its stable id, full text and metadata.

    Loaders give the same id to the same source on every run (for files, the
    path relative to the loader's root). ``metadata`` holds at least
    ``source`` and, for files, ``path``, ``mtime`` and ``content_hash``.
    """

    id: str
    text: str
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def source(self) -> str:
        return str(self.metadata.get("source", self.id))

    @property
    def hash(self) -> str:
        return str(self.metadata.get("content_hash") or content_hash(self.text))


@dataclass(frozen=True, slots=True, weakref_slot=True)  # no __dict__: less memory a chunk
class Chunk:
    """A piece of a document: the unit that is embedded, stored and cited.

    ``start``/``end`` are character offsets into the document text;
    ``label`` is citable (``docs/pricing.md#enterprise-plan``).
    ``metadata`` carries the document's metadata plus chunk fields.
    """

    id: str
    document_id: str
    text: str
    index: int
    start: int
    end: int
    label: str
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def source(self) -> str:
        return str(self.metadata.get("source", self.document_id))

    @property
    def own_text(self) -> str:
        """The chunk's text without the table header row and rule a chunker
        put before the rows it starts at (``table_header`` names the row):
        what a snippet shows, so the rows that matched are not cut off by a
        header each piece of the table repeats; else its text."""
        header = self.metadata.get("table_header")
        extra = len(self.text) - (self.end - self.start)
        if extra > 0 and isinstance(header, str) and self.text.startswith(header):
            return self.text[extra:]
        return self.text


@dataclass(frozen=True, init=False)
class Hit:
    """A chunk found for a query, with its score.

    ``score`` is the score of the last stage that ranked it (store, fusion or
    reranker); ``scores`` keeps each stage's score by name (``"memory"``,
    ``"bm25"``, ``"fusion"``, ``"rerank"``) so a result can be explained.
    """

    chunk: Chunk
    score: float
    store: str | None = None
    scores: Mapping[str, float] = field(default_factory=dict)
    vector: Any = field(default=None, compare=False, repr=False)

    def __init__(
        self,
        chunk: Chunk,
        score: float,
        store: str | None = None,
        scores: Mapping[str, float] | None = None,
        vector: Any = None,
    ) -> None:
        # the generated frozen __init__ sets each field through object.__setattr__:
        # 3 µs a hit, and every query builds a hundred of them (stores, fusion)
        fields = self.__dict__
        fields["chunk"] = chunk
        fields["score"] = score
        fields["store"] = store
        fields["scores"] = {} if scores is None else scores
        fields["vector"] = vector

    def with_score(self, stage: str, score: float) -> Hit:
        """A copy scored by ``stage``: ``score`` becomes current, the old ones are kept."""
        return replace(self, score=float(score), scores={**self.scores, stage: float(score)})


@dataclass(frozen=True)
class StageTiming:
    """One stage of a run (``ragloom ask --trace``): what ran and how long it took."""

    stage: str
    name: str
    seconds: float
    count: int | None = None


@dataclass(frozen=True)
class HitExplanation:
    """How one hit got where it is: its rank (1-based) and score in each store
    that returned it, its rank and score after fusion, and after reranking."""

    chunk_id: str
    stores: Mapping[str, tuple[int, float]]
    """Store name -> (rank, score) in that store's list (the best over the queries)."""
    fused_rank: int
    fused_score: float
    reranked_rank: int | None = None
    rerank_score: float | None = None

    @property
    def movement(self) -> int | None:
        """Places the reranker moved the hit up (negative: down)."""
        return None if self.reranked_rank is None else self.fused_rank - self.reranked_rank


@dataclass(frozen=True)
class Explanation:
    """What a retrieval did (``retrieve(..., explain=True)``, ``search --explain``):
    the queries searched (after the query transformers), the caller's filter,
    the config's ``retrieval.filter``, the access filter of the principals,
    one ``HitExplanation`` per hit returned, in order, and each store's own
    filter (``stores[].filter``) by store name, for the stores that have one.
    ``feedback``, when ``retrieval.feedback`` moved the query vector: its
    ``docs`` and ``weight`` and the chunk ids of the first fused hits it moved
    towards (``from``); the store ranks are then those of the second search."""

    queries: tuple[str, ...]
    filter: Mapping[str, Any] | None
    retrieval_filter: Mapping[str, Any] | None
    access_filter: Mapping[str, Any] | None
    hits: tuple[HitExplanation, ...]
    store_filters: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    feedback: Mapping[str, Any] | None = None


class Hits(list[Hit]):
    """What ``Pipeline.retrieve`` returns: the hits, best first (a plain list in
    every other respect), and the committed corpus version they were all drawn
    from (``corpus_version``, with the ``index_id`` of the ledger, and the
    number of ``documents`` that version holds, before any filter); the stages'
    timings (``trace``), and with ``explain=True`` an ``Explanation``;
    ``degraded`` says why, when a failed stage was skipped."""

    def __init__(
        self,
        hits: Any = (),
        *,
        corpus_version: int = 0,
        index_id: str = "",
        explanation: Explanation | None = None,
        trace: tuple[StageTiming, ...] = (),
        documents: int = 0,
        degraded: str = "",
    ) -> None:
        super().__init__(hits)
        self.corpus_version = corpus_version
        self.index_id = index_id
        self.documents = documents
        self.explanation = explanation
        self.trace = trace
        self.degraded = degraded
        """Empty, or why the hits are not what the config asks (``the reranker
        failed (RerankerError); fused order``, under ``retrieval.on_rerank_error: fuse``)."""


@dataclass(frozen=True)
class Citation:
    """A numbered reference from an answer to a chunk that was given to the generator."""

    number: int
    chunk_id: str
    label: str
    source: str
    quote: str = ""


@dataclass(frozen=True)
class Answer:
    """What ``Pipeline.ask`` returns.

    ``grounded`` is False when the sources held nothing relevant and the text
    says so. ``degraded`` is True when the generator failed and the answer
    fell back to the best passages.
    """

    question: str
    text: str
    citations: tuple[Citation, ...] = ()
    hits: tuple[Hit, ...] = ()
    grounded: bool = True
    degraded: bool = False
    metadata: Mapping[str, Any] = field(default_factory=dict)
