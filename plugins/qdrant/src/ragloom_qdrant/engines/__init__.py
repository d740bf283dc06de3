"""The engines the ``qdrant`` store runs on, behind one narrow interface.

``EdgeEngine`` (``edge.py``) is Qdrant's own engine in the process
(qdrant-edge-py); ``ClientEngine`` (``client.py``) is qdrant-client, talking
to a server or Qdrant Cloud (``url``) or running its pure-Python local mode
(``path``). The store speaks to either through the methods of ``Engine``,
with filters as the neutral trees of ``ragloom_qdrant.filters``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from ..filters import Bool

__all__ = [
    "CollectionInfo",
    "CollectionSpec",
    "Engine",
    "Found",
    "PointData",
    "Search",
    "SearchParams",
    "Sparse",
]

Distance = Literal["cosine", "dot", "euclid", "manhattan"]


@dataclass(frozen=True)
class CollectionSpec:
    """What a new collection is made with."""

    dimension: int
    distance: Distance
    vector_name: str
    sparse_name: str | None
    manifest: dict[str, Any]
    """ragloom's record of how the points were written (payload format, sparse
    settings), kept with the collection and checked on every open."""
    on_disk: bool = False
    quantization: Literal["int8"] | None = None
    hnsw_m: int | None = None
    hnsw_ef_construct: int | None = None


@dataclass(frozen=True)
class CollectionInfo:
    """What an existing collection holds."""

    vectors: dict[str, tuple[int, Distance]]
    """Dense vector name -> (dimension, distance)."""
    sparse: frozenset[str]
    manifest: dict[str, Any] | None
    payload_indexes: frozenset[str] = frozenset()


Sparse = tuple[list[int], list[float]]
"""A sparse vector: indices and values."""


@dataclass(frozen=True)
class PointData:
    """A point to write: ``vectors`` maps vector names to a dense vector (a list
    of floats) or a sparse one (``(indices, values)``)."""

    id: str
    vectors: dict[str, list[float] | Sparse]
    payload: dict[str, Any]


@dataclass(frozen=True)
class Search:
    """One nearest-neighbour search: a dense ``vector`` or ``sparse`` one, in
    the vector named ``using``."""

    using: str
    limit: int
    filter: Bool | None = None
    vector: list[float] | None = None
    sparse: Sparse | None = None


@dataclass(frozen=True)
class Found:
    """A point found: ``id`` is whatever the engine gives, shown with ``str()`` (a
    ``UUID``, a string, or an object that reads it from the engine when shown)."""

    id: Any
    score: float
    payload: dict[str, Any] | None
    vector: list[float] | None = field(default=None, repr=False)


@dataclass(frozen=True)
class SearchParams:
    """Query-time options of dense searches."""

    ef: int | None = None
    exact: bool = False
    rescore: bool = False


class Engine(Protocol):
    """The operations the store needs from a Qdrant collection. Writes wait
    until they are applied: a read right after sees them."""

    where: str
    """Where the collection lives, for messages."""

    def ready(self) -> bool:
        """Whether the collection exists (cheap: no request once it was seen)."""

    def info(self) -> CollectionInfo | None:
        """The collection, or None when there is none (yet)."""

    def create(self, spec: CollectionSpec) -> None: ...

    def drop(self) -> None:
        """Delete the collection and all its data (``Context.fresh``)."""

    def create_indexes(self, indexes: Sequence[tuple[str, str]]) -> None:
        """Payload indexes: ``(key, kind)``, kind ``keyword``, ``float``,
        ``integer`` or ``datetime``. Creating one that exists is harmless."""

    def upsert(self, points: Sequence[PointData]) -> None: ...

    def existing(self, ids: Sequence[str]) -> list[str]:
        """Those of ``ids`` that are stored."""

    def delete(self, ids: Sequence[str]) -> None: ...

    def count(self, filter: Bool | None) -> int:
        """Exact count of the points matching ``filter``."""

    def scroll(
        self, filter: Bool | None, keys: Sequence[str]
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every point matching ``filter``: ``(id, payload restricted to keys)``."""

    def search(
        self, searches: Sequence[Search], *, with_vector: str | None, params: SearchParams
    ) -> list[list[Found]]:
        """Each search's best points, best first (one round trip where possible)."""

    def fuse(
        self,
        searches: Sequence[Search],
        *,
        method: Literal["rrf", "dbsf"],
        rrf_k: int,
        limit: int,
        with_vector: str | None,
        params: SearchParams,
    ) -> list[Found]:
        """The searches fused by the engine (Qdrant's Query API with prefetches)."""

    def flush(self) -> None:
        """Make every write durable (and let the engine optimise its segments)."""

    def close(self) -> None: ...
