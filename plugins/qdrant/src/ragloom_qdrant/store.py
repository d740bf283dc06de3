"""``qdrant``: a Qdrant collection as a ragloom store, embedded or on a server.

Chunks are points whose id is ``uuid5`` of the chunk id (see ``payload.py``)
and whose payload holds the chunk and its typed filter index; every filter
of ragloom's language runs inside Qdrant (``filters.py``), before ranking,
access control included. With ``sparse: bm25`` each point also holds a BM25
sparse vector, and the store answers keyword queries, and both at once
(fused here, or in Qdrant with ``server_fusion``).

The collection is made when its vectors' width is known: at ``open()`` when
the config or the embedder gives it, else at the first upsert. An existing
collection whose vectors differ (name, width, distance) or whose sparse
vectors were made under other settings is refused with an error that says
what differs; nothing is ever rewritten silently.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ragloom import Chunk, Context, Hit, Store
from ragloom.errors import DimensionMismatchError, StoreError
from ragloom.filters import ALL_OPERATORS, Filter, check_supported
from ragloom.fusion import fuse

from .config import QdrantConfig
from .engines import CollectionInfo, CollectionSpec, Engine, PointData, Search, SearchParams
from .filters import Bool, translate
from .payload import FIELDS, FILTER, chunk_from_payload, encode_field, payload_of, point_id

if TYPE_CHECKING:
    import numpy as np

    from .sparse import BM25Vectors

__all__ = ["QdrantStore"]

FORMAT = 1
"""The payload layout's version, kept in every collection's manifest."""
SPARSE_NAME = "bm25"
_INDEX_KINDS = {"s": "keyword", "n": "float", "b": "integer", "d": "datetime"}
_FILTER_CACHE = 256
_SIMILARITIES = {
    "cosine": "cosine",
    "cos_sim": "cosine",
    "dot": "dot",
    "dot_product": "dot",
    "ip": "dot",
    "euclidean": "euclid",
    "euclid": "euclid",
    "l2": "euclid",
    "manhattan": "manhattan",
}


class QdrantStore(Store):
    """Chunks in a Qdrant collection: embedded (qdrant-edge, or qdrant-client's
    local mode) or on a server / Qdrant Cloud; dense vectors, and BM25 sparse
    vectors with ``sparse: bm25``."""

    capabilities: ClassVar[frozenset[str]] = frozenset({"dense"})
    filter_operators = ALL_OPERATORS
    Config = QdrantConfig
    config: QdrantConfig

    def __init__(self, config: QdrantConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        if self.config.sparse is not None:
            # this instance also answers keyword queries (the class, by default, dense only)
            self.capabilities = frozenset({"dense", "text"})  # type: ignore[misc]
        self._engine: Engine | None = None
        self._dimension: int | None = None
        self._distance: str | None = None
        self._sparse: BM25Vectors | None = None
        self._filters: dict[Filter, Any] = {}
        self._filters_lock = threading.Lock()
        self._indexed: set[str] = set()
        self._index_fields: dict[str, str] = {}
        self._params = SearchParams(
            ef=self.config.ef,
            exact=self.config.exact,
            rescore=self.config.quantization is not None,
        )

    @property
    def shared_writes(self) -> bool:
        """A Qdrant server (``url``) takes writes from many processes at once; an
        embedded collection (``path``) belongs to the process that opened it."""
        return self.config.url is not None

    @property
    def shared_data(self) -> bool:
        """Always: a server's collection is everyone's, and an embedded one is
        shared by every store of this process on its folder (a rebuild empties
        it under a pipeline reading it in the same program)."""
        return True

    @property
    def remote_queries(self) -> bool:
        """A Qdrant server's queries are requests, asked at once with the other
        stores; an embedded collection computes in this process."""
        return self.config.url is not None

    @property
    def location(self) -> str:
        """The collection, and the server or (embedded) folder holding it."""
        config = self.config
        if config.url is not None:
            return f"collection {config.collection!r} on {_without_userinfo(config.url)}"
        folder = config.path or "<index_dir>"
        return f"collection {config.collection!r} (engine {config.engine}) in {folder}"

    # -- lifecycle ---------------------------------------------------------------------
    def open(self, context: Context | None = None) -> None:
        super().open(context)
        self.close()
        config = self.config
        if config.sparse is not None:
            from .sparse import BM25Vectors

            self._sparse = BM25Vectors(
                config.analyzer, k1=config.k1, b=config.b, avg_len=config.avg_len
            )
        embedder = self.context.services.get("embedder")
        self._dimension = config.dimension
        if self._dimension is None and embedder is not None:
            self._dimension = int(embedder.dimension)
        self._distance = config.distance or _distance_of(embedder) or "cosine"
        engine = self._connect()
        self._engine = engine
        try:
            info = engine.info()
            if info is not None:
                self._check(info)
                self._ensure_indexes(info)
            elif self._dimension is not None:
                self._create(self._dimension)
        except BaseException:
            self.close()
            raise

    def _connect(self) -> Engine:
        config = self.config
        fresh = self.context.fresh
        if config.url is not None:
            from .engines.client import ClientEngine

            key = config.api_key.get_secret_value() if config.api_key else None
            return ClientEngine(
                config.collection,
                url=config.url,
                api_key=key or os.environ.get("QDRANT_API_KEY") or None,
                prefer_grpc=config.prefer_grpc,
                grpc_port=config.grpc_port,
                timeout=config.timeout,
                fresh=fresh,
            )
        folder = self.context.store_dir(config.path, "qdrant")
        other = "local" if config.engine == "edge" else "edge"
        if fresh:  # the other engine's copy of this collection goes too, or it would be read
            _forget(folder, config.collection, other)
        elif _holds(folder, config.collection, other):
            raise StoreError(
                f"{folder} holds collection {config.collection!r} written by the {other!r} "
                f"engine: set `engine: {other}`, or run `ragloom index --rebuild` to start "
                f"it afresh with {config.engine!r}"
            )
        if config.engine == "local":
            from .engines.client import ClientEngine

            return ClientEngine(config.collection, path=folder, fresh=fresh)
        from .engines.edge import EdgeEngine

        return EdgeEngine(folder, config.collection, fresh=fresh)

    def close(self) -> None:
        engine, self._engine = self._engine, None
        if engine is not None:
            engine.close()

    def flush(self) -> None:
        if self._engine is not None:
            self._engine.flush()

    def refresh(self) -> None:
        """Nothing to reload: a server applies every write at once, and an
        embedded engine is shared by every store of this process on its
        folder (no other process can open it meanwhile)."""

    # -- the collection --------------------------------------------------------------
    def _manifest(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "vector": self.config.vector_name,
            "sparse": None if self._sparse is None else self._sparse.settings(),
        }

    def _create(self, dimension: int) -> None:
        assert self._engine is not None
        config = self.config
        spec = CollectionSpec(
            dimension=dimension,
            distance=self._distance,  # type: ignore[arg-type]
            vector_name=config.vector_name,
            sparse_name=SPARSE_NAME if self._sparse is not None else None,
            manifest=self._manifest(),
            on_disk=config.on_disk,
            quantization=config.quantization,
            hnsw_m=config.hnsw_m,
            hnsw_ef_construct=config.hnsw_ef_construct,
        )
        self._engine.create(spec)
        info = self._engine.info()
        assert info is not None
        self._check(info)  # another store may have made it first, differently
        self._ensure_indexes(info)

    def _check(self, info: CollectionInfo) -> None:
        """Refuse a collection this store cannot use as configured, saying what differs."""
        assert self._engine is not None
        where = self._engine.where
        config = self.config
        rebuild = "or run `ragloom index --rebuild` to recreate it"
        vector = info.vectors.get(config.vector_name)
        if vector is None:
            names = ", ".join(repr(n) for n in info.vectors) or "none"
            raise StoreError(
                f"{where} has no dense vector named {config.vector_name!r} (it has: {names}): "
                f"set `vector_name:` to one of them, {rebuild}"
            )
        width, distance = vector
        if self._dimension is not None and width != self._dimension:
            raise DimensionMismatchError(
                f"{where} holds {width}-dimensional vectors but the embedder makes "
                f"{self._dimension}: the embedder changed; run `ragloom index --rebuild`"
            )
        if distance != self._distance:
            raise StoreError(
                f"{where} compares vectors by {distance} distance, this store by "
                f"{self._distance}: set `distance: {distance}`, {rebuild}"
            )
        self._dimension = width
        self._distance = distance
        manifest = info.manifest
        if manifest is not None and manifest.get("format") != FORMAT:
            raise StoreError(
                f"{where} was written by another version of ragloom-qdrant "
                f"(payload format {manifest.get('format')!r}, this one {FORMAT}); {rebuild}"
            )
        if self._sparse is not None:
            if SPARSE_NAME not in info.sparse:
                raise StoreError(
                    f"{where} has no {SPARSE_NAME!r} sparse vectors, which `sparse: bm25` "
                    f"needs: remove `sparse:`, or run `ragloom index --rebuild` to add them"
                )
            held = (manifest or {}).get("sparse")
            wanted_sparse = self._sparse.settings()
            if held != wanted_sparse:
                changed = sorted(
                    k
                    for k in set(wanted_sparse) | set(held or {})
                    if (held or {}).get(k) != wanted_sparse.get(k)
                )
                raise StoreError(
                    f"{where} holds BM25 vectors made with other settings "
                    f"({', '.join(changed)} differ): run `ragloom index --rebuild`"
                )

    def _ensure_indexes(self, info: CollectionInfo) -> None:
        """Payload indexes for the fields the config always filters on, and
        ``index_fields``: ``_fields`` now, each field's typed values (``.s``,
        ``.n``...) as upserts bring values of that type (an index per type
        would cost every write for types a field never holds)."""
        assert self._engine is not None
        self._indexed = set(info.payload_indexes)
        self._index_fields = {
            encode_field(f): f for f in {*self.context.filter_fields, *self.config.index_fields}
        }
        if FIELDS not in self._indexed:
            self._engine.create_indexes([(FIELDS, "keyword")])
            self._indexed.add(FIELDS)

    def _index_new_types(self, payloads: Sequence[dict[str, Any]]) -> None:
        """Indexes for the typed values of indexed fields that ``payloads`` bring first."""
        assert self._engine is not None
        missing: dict[str, str] = {}
        for payload in payloads:
            typed = payload[FILTER]
            for key in self._index_fields.keys() & typed.keys():
                for kind in typed[key].keys() & _INDEX_KINDS.keys():
                    path = f"{FILTER}.{key}.{kind}"
                    if path not in self._indexed:
                        missing[path] = _INDEX_KINDS[kind]
        if missing:
            self._engine.create_indexes(sorted(missing.items()))
            self._indexed.update(missing)

    # -- filters -------------------------------------------------------------------------
    def _filter(self, where: Filter | None) -> Bool | None:
        """``where`` checked and translated (cached: the same access filter comes
        back on every query of a user)."""
        if where is None:
            return None
        check_supported(where, self.filter_operators, self.context.name or "qdrant")
        try:
            cached = self._filters.get(where)
        except TypeError:  # an unhashable value in a hand-built tree
            return translate(where)
        if cached is None:
            cached = translate(where)
            with self._filters_lock:
                if len(self._filters) >= _FILTER_CACHE:
                    self._filters.clear()
                self._filters[where] = cached
        return cached

    # -- writes ------------------------------------------------------------------------
    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray | None = None) -> None:
        import numpy as np

        if vectors is None:
            raise StoreError("the qdrant store holds vectors: configure an embedder")
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(chunks):
            raise StoreError(
                f"qdrant store got {len(chunks)} chunks but vectors of shape {matrix.shape}"
            )
        if not len(chunks):
            return
        engine = self._require_engine()
        if self._dimension is None and engine.ready():
            self._adopt()  # made by another store of this process since open()
        width = int(matrix.shape[1])
        if self._dimension is not None and width != self._dimension:
            raise DimensionMismatchError(
                f"the qdrant store holds {self._dimension}-dimensional vectors, got {width}: "
                "the embedder changed; run `ragloom index --rebuild`"
            )
        if not np.isfinite(matrix).all():
            raise StoreError("the qdrant store got vectors holding NaN or infinity")
        last = {c.id: i for i, c in enumerate(chunks)}  # later duplicates win
        points = []  # built whole first: a chunk Qdrant cannot hold fails before any write
        for cid, i in last.items():
            chunk = chunks[i]
            named: dict[str, Any] = {self.config.vector_name: matrix[i].tolist()}
            if self._sparse is not None:
                named[SPARSE_NAME] = self._sparse.document(chunk.text)
            points.append(PointData(point_id(cid), named, payload_of(chunk)))
        if not engine.ready():
            self._create(width)
        self._index_new_types([p.payload for p in points])
        size = self.config.batch_size
        for start in range(0, len(points), size):
            engine.upsert(points[start : start + size])

    def delete(self, *, ids: Sequence[str] | None = None, where: Filter | None = None) -> int:
        if ids is None and where is None:
            raise StoreError("delete needs ids= or where=")
        native = self._filter(where)  # refuses before anything is deleted
        engine = self._require_engine()
        if not engine.ready():
            return 0
        doomed: set[Any] = set()  # point ids, as Qdrant takes them
        if ids:
            unique = list(dict.fromkeys(ids))
            wanted = [point_id(i) for i in unique]
            # a point another tool wrote, under an id of its own, is listed by
            # that id (ids()), which is taken here as it is
            wanted += [_native(i) for i in unique if _is_point_id(i)]
            for start in range(0, len(wanted), 1024):
                doomed.update(map(_native, engine.existing(wanted[start : start + 1024])))
        if where is not None:
            doomed.update(_native(pid) for pid, _ in engine.scroll(native, []))
        ordered = sorted(doomed, key=str)
        for start in range(0, len(ordered), 1024):
            engine.delete(ordered[start : start + 1024])
        return len(ordered)

    # -- reads ---------------------------------------------------------------------------
    def count(self, where: Filter | None = None) -> int:
        native = self._filter(where)
        engine = self._require_engine()
        return engine.count(native) if engine.ready() else 0

    def ids(self, where: Filter | None = None) -> Iterator[str]:
        native = self._filter(where)
        engine = self._require_engine()
        if not engine.ready():
            return iter([])
        return iter([_listed(pid, p) for pid, p in engine.scroll(native, ["chunk_id"])])

    def query(
        self,
        *,
        vector: np.ndarray | None = None,
        text: str | None = None,
        k: int = 10,
        where: Filter | None = None,
    ) -> list[Hit]:
        import numpy as np

        name = self.context.name or "qdrant"
        if vector is None and (text is None or self._sparse is None):
            if self._sparse is None:
                raise StoreError(f"the qdrant store {name!r} answers vector queries")
            raise StoreError(f"the qdrant store {name!r} needs a vector or a text to search")
        native = self._filter(where)
        engine = self._require_engine()
        if self._dimension is None and engine.ready():
            self._adopt()  # made by another store of this process since open()
        if vector is not None:
            q = np.asarray(vector, dtype=np.float32).reshape(-1)
            if self._dimension is not None and q.shape[0] != self._dimension:
                raise DimensionMismatchError(
                    f"query vector has {q.shape[0]} dimensions, the qdrant store holds "
                    f"{self._dimension}: the index was built with another embedder"
                )
        if k <= 0 or not engine.ready():
            return []  # no collection yet: nothing was ever written
        searches: list[tuple[str, Search]] = []
        if vector is not None:
            dense = Search(self.config.vector_name, k, native, vector=q.tolist())
            searches.append((self.config.vector_name, dense))
        if text is not None and self._sparse is not None:
            terms = self._sparse.query(text)
            if terms[0]:
                searches.append((SPARSE_NAME, Search(SPARSE_NAME, k, native, sparse=terms)))
        if not searches:
            return []
        with_vector = self.config.vector_name if self.config.return_vectors else None
        params = self._params
        negate = self._distance in ("euclid", "manhattan")  # Qdrant gives distances there
        if len(searches) > 1 and self.config.server_fusion:
            found = engine.fuse(
                [s for _, s in searches],
                method=self.config.fusion,
                rrf_k=self.config.rrf_k,
                limit=k,
                with_vector=with_vector,
                params=params,
            )
            return [self._hit(f.payload, f.id, f.score, name, f.vector) for f in found]
        lists = engine.search([s for _, s in searches], with_vector=with_vector, params=params)
        ranked = []
        for (using, _), found in zip(searches, lists):
            hits = []
            for f in found:
                score = -f.score if negate and using != SPARSE_NAME else f.score
                hits.append(self._hit(f.payload, f.id, score, name, f.vector))
            ranked.append(hits)
        if len(ranked) == 1:
            return ranked[0]
        # both halves of a hybrid query: each hit keeps its score from each half
        halves = [
            [h.with_score(f"{name}.{using}", h.score) for h in hits]
            for (using, _), hits in zip(searches, ranked)
        ]
        fused = fuse(halves, method=self.config.fusion, k=self.config.rrf_k)[:k]
        out = []
        for h in fused:  # the fused score under the store's name, each half's beside it
            scores = {key: v for key, v in h.scores.items() if key.startswith(f"{name}.")}
            scores[name] = h.score
            out.append(Hit(h.chunk, h.score, store=name, scores=scores, vector=h.vector))
        return out

    @staticmethod
    def _hit(payload: Any, pid: Any, score: float, name: str, vector: Any) -> Hit:
        stored = None
        if vector is not None:
            import numpy as np

            stored = np.asarray(vector, dtype=np.float32)
        chunk = chunk_from_payload(payload, pid)
        return Hit(chunk, score, store=name, scores={name: score}, vector=stored)

    def _adopt(self) -> None:
        """Learn the width and distance of a collection another store of this
        process made after this one opened (checking it as at ``open()``)."""
        assert self._engine is not None
        info = self._engine.info()
        if info is not None:
            self._check(info)

    def _require_engine(self) -> Engine:
        if self._engine is None:
            raise StoreError("the qdrant store is not open: call open() first")
        return self._engine


def _distance_of(embedder: Any) -> str | None:
    """The distance an embedder's vectors are meant for, where it says (a
    ``similarity`` / ``similarity_fn_name`` attribute, or such a key in its
    fingerprint); None otherwise (cosine is used)."""
    if embedder is None:
        return None
    said: Any = getattr(embedder, "similarity", None) or getattr(
        embedder, "similarity_fn_name", None
    )
    if not isinstance(said, str):
        try:
            fingerprint = embedder.fingerprint()
        except Exception:
            return None
        said = next(
            (fingerprint.get(k) for k in ("similarity", "distance", "metric") if k in fingerprint),
            None,
        )
    return _SIMILARITIES.get(str(said).lower()) if isinstance(said, str) else None


def _forget(folder: Any, collection: str, engine: str) -> None:
    """Delete what the embedded ``engine`` holds of ``collection`` in ``folder``
    (other collections there are left alone)."""
    import json
    import shutil

    if engine == "edge":
        if _holds(folder, collection, "edge"):
            shutil.rmtree(folder / collection)
        return
    shutil.rmtree(folder / "collection" / collection, ignore_errors=True)
    meta = folder / "meta.json"
    try:
        listed = json.loads(meta.read_text("utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(listed, dict) and collection in listed.get("collections", {}):
        del listed["collections"][collection]
        meta.write_text(json.dumps(listed), "utf-8")


def _holds(folder: Any, collection: str, engine: str) -> bool:
    """Whether ``folder`` holds ``collection`` written by the embedded ``engine``."""
    if engine == "edge":
        return (folder / collection / "edge_config.json").exists()
    return (folder / "collection" / collection).is_dir()


def _without_userinfo(url: str) -> str:
    """``url`` without a ``user:password@`` part: a location is logged."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))  # [::1]:6333 kept


def _is_point_id(value: str) -> bool:
    """Whether ``value`` is a Qdrant point id (a UUID or an unsigned integer),
    as ``ids()`` lists a point that holds no chunk id: a chunk id never is one."""
    import uuid

    if value.isdigit():
        return True
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _listed(point: str, payload: dict[str, Any]) -> str:
    """A point as ``ids()`` lists it: by its chunk id when its id is the one
    this store gives that chunk; else (written by another tool: no chunk id,
    or another id) by its own id, which ``delete(ids=)`` takes too, so that
    ``--repair`` removes it rather than calling it deleted."""
    chunk_id = payload.get("chunk_id")
    if isinstance(chunk_id, str) and point_id(chunk_id) == point:
        return chunk_id
    return point


def _native(point: str) -> Any:
    """A point id as Qdrant takes it: an unsigned integer, or a UUID string."""
    return int(point) if point.isdigit() else point
