"""qdrant-client: a Qdrant server or Qdrant Cloud (``url``), or local mode (``path``).

Server mode is what several processes share (a server's pipeline and a
scheduled ``ragloom index``): every write is applied (``wait=True``) when it
returns, so reads see it at once and ``flush()`` has nothing left to do.

Local mode (``engine: local``) is qdrant-client's pure-Python stand-in for
a server, persisted to SQLite under ``path``: the same client calls, the
same results (exact search), so a config can be checked against what a
server will do; it evaluates filters in Python and keeps no payload indexes.

ragloom's manifest is the collection's ``metadata["ragloom"]``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from ragloom.errors import StoreError

from ..filters import Bool, DateRange, Match, MatchAny, Nested, Node, Range
from ..payload import CHUNK_FIELDS
from . import CollectionInfo, CollectionSpec, Found, PointData, Search, SearchParams
from ._handles import Handle, acquire, release

__all__ = ["ClientEngine"]

MANIFEST_KEY = "ragloom"
_LOCAL_LOCK = ".ragloom-local.lock"
_SCROLL_PAGE = 1024


def _models() -> Any:
    from qdrant_client import models

    return models


class ClientEngine:
    """One collection through a ``QdrantClient``."""

    def __init__(
        self,
        collection: str,
        *,
        url: str | None = None,
        api_key: str | None = None,
        prefer_grpc: bool = False,
        grpc_port: int = 6334,
        timeout: int | None = None,
        path: Path | None = None,
        fresh: bool = False,
    ) -> None:
        self.collection = collection
        self._server = url is not None
        self._handle: Handle | None = None
        self._client: Any = None
        self._seen = False  # the collection was seen to exist
        self._natives: dict[Bool, Any] = {}
        if url is not None:
            from qdrant_client import QdrantClient

            self.where = f"collection {collection!r} at {url}"
            try:
                self._client = QdrantClient(
                    url=url,
                    api_key=api_key,
                    prefer_grpc=prefer_grpc,
                    grpc_port=grpc_port,
                    timeout=timeout,
                )
            except Exception as exc:
                raise StoreError(f"cannot connect to Qdrant at {url}: {exc}") from exc
        else:
            assert path is not None
            self.where = f"collection {collection!r} in Qdrant local mode at {path}"
            self._handle = acquire(path, _LOCAL_LOCK, "the Qdrant local-mode folder")
            try:
                with self._handle.lock:
                    if self._handle.value is None:
                        self._handle.value = _open_local(path, fresh)
                    self._client = self._handle.value
            except BaseException:
                self.close()
                raise
        try:
            if fresh:
                self.drop()
        except BaseException:
            self.close()
            raise

    # -- lifecycle -----------------------------------------------------------------
    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """``fn(...)``, its errors as ``StoreError`` naming the collection."""
        try:
            return fn(*args, **kwargs)
        except StoreError:
            raise
        except Exception as exc:
            raise StoreError(f"Qdrant {what} failed on {self.where}: {exc}") from exc

    def ready(self) -> bool:
        # local mode: a dict lookup, and another store of this process may drop
        # the collection (a rebuild); a server: asked until the collection is seen
        if not self._seen or self._handle is not None:
            self._seen = bool(
                self._call("collection_exists", self._client.collection_exists, self.collection)
            )
        return self._seen

    def info(self) -> CollectionInfo | None:
        client = self._client
        self._seen = False
        if not self.ready():
            return None
        described = self._call("get_collection", client.get_collection, self.collection)
        params = described.config.params
        dense = params.vectors
        vectors: dict[str, tuple[int, Any]] = {}
        if dense is not None and not isinstance(dense, dict):
            dense = {"": dense}
        for name, v in (dense or {}).items():
            vectors[name] = (int(v.size), str(v.distance.value).lower())
        sparse = frozenset((params.sparse_vectors or {}).keys())
        metadata = getattr(described.config, "metadata", None) or {}
        manifest = metadata.get(MANIFEST_KEY) if isinstance(metadata, dict) else None
        indexes = frozenset((described.payload_schema or {}).keys())
        return CollectionInfo(vectors, sparse, manifest, indexes)

    def create(self, spec: CollectionSpec) -> None:
        m = _models()
        quantization = None
        if spec.quantization == "int8":
            quantization = m.ScalarQuantization(
                scalar=m.ScalarQuantizationConfig(
                    type=m.ScalarType.INT8, quantile=0.99, always_ram=True
                )
            )
        hnsw = None
        if spec.hnsw_m is not None or spec.hnsw_ef_construct is not None:
            hnsw = m.HnswConfigDiff(m=spec.hnsw_m, ef_construct=spec.hnsw_ef_construct)
        vectors = {
            spec.vector_name: m.VectorParams(
                size=spec.dimension,
                distance=_DISTANCES[spec.distance],
                on_disk=spec.on_disk or None,
                hnsw_config=hnsw,
                quantization_config=quantization,
            )
        }
        sparse = None
        if spec.sparse_name:
            sparse = {spec.sparse_name: m.SparseVectorParams(modifier=m.Modifier.IDF)}
        with self._lock():
            if self.info() is not None:
                return  # another store of this process made it meanwhile
            self._call(
                "create_collection",
                self._client.create_collection,
                self.collection,
                vectors_config=vectors,
                sparse_vectors_config=sparse,
                metadata={MANIFEST_KEY: spec.manifest},
            )

    def drop(self) -> None:
        with self._lock():
            client = self._client
            if self._call("collection_exists", client.collection_exists, self.collection):
                self._call("delete_collection", client.delete_collection, self.collection)
            self._seen = False

    def flush(self) -> None:
        """Nothing to do: writes wait until applied (server: in its write-ahead
        log; local mode: in SQLite)."""

    def close(self) -> None:
        client, self._client = self._client, None
        handle, self._handle = self._handle, None
        if handle is not None:
            release(handle, lambda c: c.close())
        elif client is not None:
            client.close()

    def _lock(self) -> Any:
        import contextlib

        return self._handle.lock if self._handle is not None else contextlib.nullcontext()

    # -- writes ----------------------------------------------------------------------
    def create_indexes(self, indexes: Sequence[tuple[str, str]]) -> None:
        if not self._server:
            return  # local mode has no payload indexes: it scans in Python
        m = _models()
        kinds = {
            "keyword": m.PayloadSchemaType.KEYWORD,
            "float": m.PayloadSchemaType.FLOAT,
            "integer": m.PayloadSchemaType.INTEGER,
            "datetime": m.PayloadSchemaType.DATETIME,
        }
        for key, kind in indexes:
            self._call(
                "create_payload_index",
                self._client.create_payload_index,
                self.collection,
                field_name=key,
                field_schema=kinds[kind],
                wait=True,
            )

    def upsert(self, points: Sequence[PointData]) -> None:
        m = _models()
        native = [
            m.PointStruct(
                id=p.id,
                vector={
                    name: m.SparseVector(indices=v[0], values=v[1]) if isinstance(v, tuple) else v
                    for name, v in p.vectors.items()
                },
                payload=p.payload,
            )
            for p in points
        ]
        with self._lock():
            self._call("upsert", self._client.upsert, self.collection, native, wait=True)

    def existing(self, ids: Sequence[str]) -> list[str]:
        if not ids:
            return []
        found = self._call(
            "retrieve",
            self._client.retrieve,
            self.collection,
            list(ids),
            with_payload=False,
            with_vectors=False,
        )
        return [str(r.id) for r in found]

    def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        m = _models()
        with self._lock():
            self._call(
                "delete",
                self._client.delete,
                self.collection,
                points_selector=m.PointIdsList(points=list(ids)),
                wait=True,
            )

    # -- reads ---------------------------------------------------------------------
    def count(self, filter: Bool | None) -> int:
        result = self._call(
            "count",
            self._client.count,
            self.collection,
            count_filter=self.native(filter),
            exact=True,
        )
        return int(result.count)

    def scroll(
        self, filter: Bool | None, keys: Sequence[str]
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        native = self.native(filter)
        offset = None
        while True:
            records, offset = self._call(
                "scroll",
                self._client.scroll,
                self.collection,
                scroll_filter=native,
                limit=_SCROLL_PAGE,
                offset=offset,
                with_payload=list(keys),
                with_vectors=False,
            )
            for record in records:
                yield str(record.id), record.payload or {}
            if offset is None:
                return

    def _query(self, search: Search) -> Any:
        m = _models()
        if search.sparse is not None:
            return m.SparseVector(indices=search.sparse[0], values=search.sparse[1])
        return search.vector

    def _params(self, search: Search, params: SearchParams) -> Any:
        m = _models()
        if search.sparse is not None or params == SearchParams() or not self._server:
            return None  # local mode searches exactly, and says so for every option
        quantization = m.QuantizationSearchParams(rescore=True) if params.rescore else None
        return m.SearchParams(hnsw_ef=params.ef, exact=params.exact, quantization=quantization)

    def search(
        self, searches: Sequence[Search], *, with_vector: str | None, params: SearchParams
    ) -> list[list[Found]]:
        m = _models()
        requests = [
            m.QueryRequest(
                query=self._query(s),
                using=s.using,
                filter=self.native(s.filter),
                limit=s.limit,
                params=self._params(s, params),
                with_payload=list(CHUNK_FIELDS),
                with_vector=[with_vector] if with_vector else False,
            )
            for s in searches
        ]
        responses = self._call("query", self._client.query_batch_points, self.collection, requests)
        return [[_found(p, with_vector) for p in r.points] for r in responses]

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
        m = _models()
        prefetch = [
            m.Prefetch(
                query=self._query(s),
                using=s.using,
                filter=self.native(s.filter),
                limit=s.limit,
                params=self._params(s, params),
            )
            for s in searches
        ]
        if method == "rrf":  # Qdrant ranks from 0: k + 1 gives ragloom's 1 / (k + rank)
            query: Any = m.RrfQuery(rrf=m.Rrf(k=rrf_k + 1))
        else:
            query = m.FusionQuery(fusion=m.Fusion.DBSF)
        response = self._call(
            "query",
            self._client.query_points,
            self.collection,
            prefetch=prefetch,
            query=query,
            limit=limit,
            with_payload=list(CHUNK_FIELDS),
            with_vectors=[with_vector] if with_vector else False,
        )
        return [_found(p, with_vector) for p in response.points]

    # -- filters -------------------------------------------------------------------
    def native(self, node: Bool | None) -> Any:
        """``node`` as a ``qdrant_client.models.Filter`` (None for no filter); kept for the next
        query with the same filter (the same access filter comes back for
        every query of a user)."""
        if node is None:
            return None
        natives = self._natives
        found = natives.get(node)
        if found is None:
            found = _filter(node)
            if len(natives) >= 256:
                natives.clear()
            natives[node] = found
        return found


def _open_local(path: Path, fresh: bool) -> Any:
    """qdrant-client's local mode on ``path``. Unreadable files are a
    ``StoreError``; with ``fresh`` they are removed first, unread."""
    from qdrant_client import QdrantClient

    def make() -> Any:
        # writes may come from another thread than the one that opened the
        # store (the pipeline never runs two at once)
        return QdrantClient(path=str(path), force_disable_check_same_thread=True)

    try:
        return make()
    except Exception as exc:
        if "already accessed by another instance" in str(exc):
            raise StoreError(
                f"Qdrant local mode at {path} is open in another program; an embedded Qdrant "
                "belongs to one process at a time (use a server, `url:`)"
            ) from None
        if not fresh:
            raise StoreError(
                f"Qdrant local mode at {path} is unreadable ({type(exc).__name__}: {exc}); "
                "run `ragloom index --rebuild` to recreate it"
            ) from exc
    for entry in path.iterdir():  # fresh over damaged files: start again, keep our lock
        if entry.name == _LOCAL_LOCK:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            os.unlink(entry)
    return make()


def _found(point: Any, with_vector: str | None) -> Found:
    vector = None
    if with_vector and point.vector is not None:
        vector = point.vector.get(with_vector) if isinstance(point.vector, dict) else point.vector
    return Found(str(point.id), float(point.score), point.payload or {}, vector)


def _distances() -> dict[str, Any]:
    m = _models()
    return {
        "cosine": m.Distance.COSINE,
        "dot": m.Distance.DOT,
        "euclid": m.Distance.EUCLID,
        "manhattan": m.Distance.MANHATTAN,
    }


class _Distances(dict):  # type: ignore[type-arg]
    """``_DISTANCES[name]``: filled on first use, so importing this module stays cheap."""

    def __missing__(self, key: str) -> Any:
        self.update(_distances())
        return dict.__getitem__(self, key)


_DISTANCES = _Distances()


def _filter(node: Bool) -> Any:
    m = _models()
    return m.Filter(
        must=[_condition(n) for n in node.must] or None,
        should=[_condition(n) for n in node.should] or None,
        must_not=[_condition(n) for n in node.must_not] or None,
    )


def _condition(node: Node) -> Any:
    m = _models()
    if isinstance(node, Bool):
        return _filter(node)
    if isinstance(node, Match):
        return m.FieldCondition(key=node.key, match=m.MatchValue(value=node.value))
    if isinstance(node, MatchAny):
        return m.FieldCondition(key=node.key, match=m.MatchAny(any=list(node.values)))
    if isinstance(node, Range):
        bounds = m.Range(gt=node.gt, gte=node.gte, lt=node.lt, lte=node.lte)
        return m.FieldCondition(key=node.key, range=bounds)
    if isinstance(node, DateRange):
        bounds = m.DatetimeRange(gt=node.gt, gte=node.gte, lt=node.lt, lte=node.lte)
        return m.FieldCondition(key=node.key, range=bounds)
    if isinstance(node, Nested):
        return m.NestedCondition(nested=m.Nested(key=node.key, filter=_filter(node.filter)))
    raise TypeError(f"not a filter node: {node!r}")
