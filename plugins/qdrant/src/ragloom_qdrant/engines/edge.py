"""``engine: edge``: Qdrant's own engine inside the process (qdrant-edge-py).

One collection is one ``EdgeShard`` folder, ``<path>/<collection>``: the
engine's segments, write-ahead log and ``edge_config.json``, plus
``ragloom.json``, ragloom's manifest. Payload indexes, HNSW, sparse vectors
with the IDF modifier, delete by filter and the Query API's fusion all run
in Rust; every update is in the write-ahead log when it returns, and
``flush()`` writes the segments and runs the optimiser (which builds the
HNSW graph once a segment is large enough).
"""

from __future__ import annotations

import contextlib
import json
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

__all__ = ["EdgeEngine"]

MANIFEST = "ragloom.json"
_DISTANCES = {"cosine": "Cosine", "dot": "Dot", "euclid": "Euclid", "manhattan": "Manhattan"}
_INDEX_TYPES = {
    "keyword": "Keyword",
    "float": "Float",
    "integer": "Integer",
    "datetime": "Datetime",
}
_SCROLL_PAGE = 1024


def _qe() -> Any:
    import qdrant_edge

    return qdrant_edge


def _unreadable(folder: Path, exc: BaseException) -> StoreError:
    return StoreError(
        f"the Qdrant edge shard at {folder} is unreadable ({exc}); "
        "run `ragloom index --rebuild` to recreate it"
    )


class EdgeEngine:
    """A collection as an ``EdgeShard`` in ``<path>/<collection>``."""

    def __init__(self, path: Path, collection: str, *, fresh: bool) -> None:
        self.folder = path / collection
        self.where = f"Qdrant edge shard {self.folder}"
        self._natives: dict[Bool, Any] = {}
        self._hit_payload = _qe().PayloadSelector.Include(list(CHUNK_FIELDS))
        self._handle: Handle | None = acquire(path, f".{collection}.lock", "the Qdrant edge shard")
        try:
            with self._handle.lock:
                self._sweep()
                if fresh:
                    self._drop_locked()
                elif self._handle.value is None and self.folder.exists():
                    if {p.name for p in self.folder.iterdir()} <= {MANIFEST}:
                        # what a create killed before its shard was made left
                        # (a ragloom before the staging folder): never a shard
                        shutil.rmtree(self.folder)
                    else:
                        self._handle.value = self._load()
        except BaseException:
            self.close()
            raise

    # -- lifecycle -----------------------------------------------------------------
    def _load(self) -> Any:
        qe = _qe()
        try:
            manifest = json.loads((self.folder / MANIFEST).read_text("utf-8"))
            if not isinstance(manifest, dict):
                raise ValueError(f"{MANIFEST} holds {type(manifest).__name__}, not an object")
        except (OSError, ValueError) as exc:
            raise _unreadable(self.folder, exc) from exc
        try:
            shard = qe.EdgeShard.load(str(self.folder))
        except BaseException as exc:  # pyo3 raises Exception, or PanicException
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            if "WouldBlock" in str(exc):
                raise StoreError(
                    f"the Qdrant edge shard at {self.folder} is open in another program; "
                    "an embedded Qdrant belongs to one process at a time (use a server, `url:`)"
                ) from None
            raise _unreadable(self.folder, exc) from exc
        return shard

    @property
    def _shard(self) -> Any:
        assert self._handle is not None, "the engine is closed"
        return self._handle.value

    def ready(self) -> bool:
        return self._shard is not None

    def info(self) -> CollectionInfo | None:
        shard = self._shard
        if shard is None:
            return None
        try:
            config = json.loads((self.folder / "edge_config.json").read_text("utf-8"))
            manifest = json.loads((self.folder / MANIFEST).read_text("utf-8"))
            vectors = {
                name: (int(v["size"]), _distance_name(v["distance"]))
                for name, v in (config.get("vectors") or {}).items()
            }
            sparse = frozenset((config.get("sparse_vectors") or {}).keys())
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise _unreadable(self.folder, exc) from exc
        indexes = frozenset(shard.info().payload_schema.keys())
        return CollectionInfo(vectors, sparse, manifest, indexes)

    def _aside(self, purpose: str) -> Path:
        """A sibling of the shard's folder for work a kill may interrupt."""
        return self.folder.with_name(f".{self.folder.name}.{purpose}")

    def _sweep(self) -> None:
        """Remove what a killed create or drop left beside the shard (this
        process holds the folder's lock: no other one is at it)."""
        for purpose in ("creating", "dropped"):
            aside = self._aside(purpose)
            if aside.exists():
                shutil.rmtree(aside, ignore_errors=True)

    def create(self, spec: CollectionSpec) -> None:
        qe = _qe()
        assert self._handle is not None
        with self._handle.lock:
            if self._handle.value is not None:
                return  # another store of this process made it meanwhile
            self._drop_locked()
            # made aside and moved into place whole: a kill in between leaves
            # no half-made shard where the next run would call it unreadable
            staging = self._aside("creating")  # swept by the drop
            staging.mkdir(parents=True)
            _write_json(staging / MANIFEST, spec.manifest)  # first: a shard never lacks it
            quantization = None
            if spec.quantization == "int8":
                quantization = qe.ScalarQuantizationConfig(
                    qe.ScalarType.Int8, quantile=0.99, always_ram=True
                )
            hnsw = None
            if spec.hnsw_m is not None or spec.hnsw_ef_construct is not None:
                hnsw = qe.HnswIndexConfig(
                    m=16 if spec.hnsw_m is None else spec.hnsw_m,
                    ef_construct=100 if spec.hnsw_ef_construct is None else spec.hnsw_ef_construct,
                    full_scan_threshold=10_000,
                )
            vectors = {
                spec.vector_name: qe.EdgeVectorParams(
                    size=spec.dimension,
                    distance=getattr(qe.Distance, _DISTANCES[spec.distance]),
                    on_disk=spec.on_disk or None,
                    quantization_config=quantization,
                )
            }
            sparse = None
            if spec.sparse_name:
                sparse = {spec.sparse_name: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)}
            config = qe.EdgeConfig(vectors=vectors, sparse_vectors=sparse, hnsw_config=hnsw)
            qe.EdgeShard.create(str(staging), config).close()
            os.replace(staging, self.folder)
            self._handle.value = self._load()

    def drop(self) -> None:
        assert self._handle is not None
        with self._handle.lock:
            self._drop_locked()

    def _drop_locked(self) -> None:
        assert self._handle is not None
        shard, self._handle.value = self._handle.value, None
        if shard is not None:
            with contextlib.suppress(Exception):  # its files are about to go anyway
                shard.close()
        if self.folder.exists():
            # moved aside first: a kill mid-delete leaves the shard whole, or gone
            self._sweep()
            os.replace(self.folder, self._aside("dropped"))
        self._sweep()

    def flush(self) -> None:
        shard = self._shard
        if shard is not None:
            assert self._handle is not None
            with self._handle.lock:
                shard.flush()
                shard.optimize()  # builds HNSW for segments past the indexing threshold

    def close(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            release(handle, _close_shard)

    # -- writes ------------------------------------------------------------------
    def create_indexes(self, indexes: Sequence[tuple[str, str]]) -> None:
        qe = _qe()
        shard = self._shard
        if shard is None or not indexes:
            return
        assert self._handle is not None
        with self._handle.lock:
            for key, kind in indexes:
                schema = getattr(qe.PayloadSchemaType, _INDEX_TYPES[kind])
                shard.update(qe.UpdateOperation.create_field_index(key, schema))

    def upsert(self, points: Sequence[PointData]) -> None:
        qe = _qe()
        shard = self._shard
        assert shard is not None and self._handle is not None
        native = []
        for p in points:
            vectors = {
                name: qe.SparseVector(*v) if isinstance(v, tuple) else v
                for name, v in p.vectors.items()
            }
            native.append(qe.Point(p.id, vectors, p.payload))
        with self._handle.lock:
            shard.update(qe.UpdateOperation.upsert_points(native))

    def existing(self, ids: Sequence[str]) -> list[str]:
        shard = self._shard
        if shard is None or not ids:
            return []
        return [str(r.id) for r in shard.retrieve(list(ids), False, False)]

    def delete(self, ids: Sequence[str]) -> None:
        qe = _qe()
        shard = self._shard
        if shard is None or not ids:
            return
        assert self._handle is not None
        with self._handle.lock:
            shard.update(qe.UpdateOperation.delete_points(list(ids)))

    # -- reads --------------------------------------------------------------------
    def count(self, filter: Bool | None) -> int:
        qe = _qe()
        shard = self._shard
        if shard is None:
            return 0
        return int(shard.count(qe.CountRequest(exact=True, filter=self.native(filter))))

    def scroll(
        self, filter: Bool | None, keys: Sequence[str]
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        qe = _qe()
        shard = self._shard
        if shard is None:
            return
        native = self.native(filter)
        offset = None
        while True:
            records, offset = shard.scroll(
                qe.ScrollRequest(
                    offset=offset,
                    limit=_SCROLL_PAGE,
                    filter=native,
                    with_payload=qe.PayloadSelector.Include(list(keys)),
                    with_vector=False,
                )
            )
            for record in records:
                yield str(record.id), record.payload or {}
            if offset is None:
                return

    def _request(
        self, search: Search, with_vector: str | None, params: SearchParams, payload: Any
    ) -> Any:
        qe = _qe()
        return qe.QueryRequest(
            limit=search.limit,
            query=self._query(search),
            filter=self.native(search.filter),
            with_payload=payload,
            with_vector=[with_vector] if with_vector else False,
            params=self._params(search, params),
        )

    def _query(self, search: Search) -> Any:
        qe = _qe()
        if search.sparse is not None:
            return qe.Query.Nearest(qe.SparseVector(*search.sparse), using=search.using)
        return qe.Query.Nearest(search.vector, using=search.using)

    @staticmethod
    def _params(search: Search, params: SearchParams) -> Any:
        qe = _qe()
        if search.sparse is not None or params == SearchParams():
            return None
        quantization = qe.QuantizationSearchParams(rescore=True) if params.rescore else None
        return qe.SearchParams(hnsw_ef=params.ef, exact=params.exact, quantization=quantization)

    def search(
        self, searches: Sequence[Search], *, with_vector: str | None, params: SearchParams
    ) -> list[list[Found]]:
        qe = _qe()
        shard = self._shard
        if shard is None:
            return [[] for _ in searches]
        requests = [self._request(s, with_vector, params, self._hit_payload) for s in searches]
        if len(requests) == 1:
            results = [shard.query(requests[0])]
        else:
            results = shard.query_batch(qe.QueryBatchRequest(requests))
        return [[_found(p, with_vector) for p in points] for points in results]

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
        qe = _qe()
        shard = self._shard
        if shard is None:
            return []
        prefetches = [
            qe.Prefetch(
                limit=s.limit,
                query=self._query(s),
                filter=self.native(s.filter),
                params=self._params(s, params),
            )
            for s in searches
        ]
        # Qdrant ranks from 0: k + 1 gives ragloom's 1 / (k + rank from 1)
        fusion = qe.Fusion.Rrf(k=rrf_k + 1) if method == "rrf" else qe.Fusion.Dbsf()
        request = qe.QueryRequest(
            limit=limit,
            prefetches=prefetches,
            query=fusion,
            with_payload=self._hit_payload,
            with_vector=[with_vector] if with_vector else False,
        )
        return [_found(p, with_vector) for p in shard.query(request)]

    # -- filters ------------------------------------------------------------------
    def native(self, node: Bool | None) -> Any:
        """``node`` as a ``qdrant_edge.Filter`` (None for no filter); kept for the next
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


class _PointId:
    """A point's id, read from the engine only when shown (in an error): making
    the ``UUID`` of every hit costs more than the rest of reading it."""

    __slots__ = ("_point",)

    def __init__(self, point: Any) -> None:
        self._point = point

    def __str__(self) -> str:
        return str(self._point.id)

    __repr__ = __str__


def _found(point: Any, with_vector: str | None) -> Found:
    vector = None
    if with_vector and point.vector is not None:
        vector = point.vector.get(with_vector)
    return Found(_PointId(point), point.score, point.payload, vector)


def _close_shard(shard: Any) -> None:
    shard.flush()
    shard.close()


def _distance_name(value: str) -> Any:
    for ours, theirs in _DISTANCES.items():
        if theirs.lower() == str(value).lower():
            return ours
    return str(value).lower()


def _write_json(path: Path, data: Any) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, sort_keys=True), "utf-8")
    os.replace(temporary, path)


def _filter(node: Bool) -> Any:
    qe = _qe()
    return qe.Filter(
        must=[_condition(n) for n in node.must] or None,
        should=[_condition(n) for n in node.should] or None,
        must_not=[_condition(n) for n in node.must_not] or None,
    )


def _condition(node: Node) -> Any:
    qe = _qe()
    if isinstance(node, Bool):
        return _filter(node)
    if isinstance(node, Match):
        return qe.FieldCondition(node.key, match=qe.MatchValue(node.value))
    if isinstance(node, MatchAny):
        return qe.FieldCondition(node.key, match=qe.MatchAny(list(node.values)))
    if isinstance(node, Range):
        bounds = qe.RangeFloat(gt=node.gt, gte=node.gte, lt=node.lt, lte=node.lte)
        return qe.FieldCondition(node.key, range=bounds)
    if isinstance(node, DateRange):
        bounds = qe.RangeDateTime(gt=node.gt, gte=node.gte, lt=node.lt, lte=node.lte)
        return qe.FieldCondition(node.key, range=bounds)
    if isinstance(node, Nested):
        return qe.NestedCondition(node.key, _filter(node.filter))
    raise TypeError(f"not a filter node: {node!r}")
