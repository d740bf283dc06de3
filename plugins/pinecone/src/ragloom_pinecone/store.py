"""The ``pinecone`` store: dense vectors in a Pinecone index namespace.

    stores:
      - {type: pinecone, index: docs, namespace: handbook, create: true}
      - {type: bm25}

Writes go in batches within Pinecone's limits (at most ``batch_size`` and
1,000 vectors, 2 MB per request; 40 KB metadata per record), each under
``ragloom.remote``'s retry policy; a batch that still fails raises
``StoreError`` and the index run stops with the ledger untouched for it.
Filters are translated exactly (:mod:`ragloom_pinecone.translate`), so every
operator is supported; ``count(where)``, ``ids(where)`` and ``delete(where=)``
list ids and evaluate the filter on the fetched metadata with ragloom's own
semantics, so they never count or delete more than a query would match.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote

from pydantic import Field, SecretStr, model_validator
from ragloom import Chunk, Context, Hit, Store
from ragloom.errors import DimensionMismatchError, StoreError
from ragloom.filters import ALL_OPERATORS, Condition, Filter, check_supported, evaluate
from ragloom.remote import RemoteOptions, batches, retry, send_batches

from .client import (
    KEY_VARIABLE,
    api_key,
    classify,
    connect,
    data_plane,
    dense_field,
    wait_until_ready,
)
from .records import (
    MAX_METADATA_BYTES,
    TEXT_KEY,
    build_metadata,
    chunk_from_metadata,
    decode_id,
    encode_id,
    encode_prefix,
    metadata_size,
)
from .texts import TextFile
from .translate import translate

if TYPE_CHECKING:
    import numpy as np

__all__ = ["PineconeStore"]

MAX_REQUEST_BYTES = 2_000_000
"""Bytes of one upsert request: under Pinecone's 2 MB, with room for the envelope."""
MAX_VECTORS_PER_REQUEST = 1000
MAX_IDS_PER_DELETE = 1000
MAX_FETCH_URL_BYTES = 6000
"""Ids per fetch are bounded by the URL they travel in, kept well under 8 KB."""
MAX_TOP_K = 10_000
MAX_TOP_K_WITH_DATA = 1000


class PineconeStore(Store):
    """Dense vector search in a Pinecone index; see the module docs."""

    capabilities = frozenset({"dense"})
    filter_operators = ALL_OPERATORS
    exact_count = False
    """Pinecone's index stats, and so ``count()``, lag writes by seconds on the live service."""
    needs = frozenset({"embedder"})

    @property
    def shared_writes(self) -> bool:
        """A Pinecone index takes upserts from many clients at once."""
        return True

    @property
    def remote_queries(self) -> bool:
        """Every query is an HTTP request: asked at once with the other stores."""
        return True

    @property
    def location(self) -> str:
        """The index (by name or host) and the namespace."""
        config = self.config
        index = f"index {config.index!r}" if config.index else f"host {config.host!r}"
        return f"{index}, namespace {config.namespace!r}"

    class Config(RemoteOptions):
        index: str | None = Field(None, description="Index name (or give `host`).")
        host: str | None = Field(None, description="Index host, e.g. https://docs-abc.svc...")
        namespace: str = Field("", description="Namespace in the index ('' = the default one).")
        api_key: SecretStr | None = Field(None, description="Default: $PINECONE_API_KEY.")
        controller_host: str | None = Field(
            None, description="Control-plane URL (default: Pinecone's public API)."
        )
        create: bool = Field(False, description="Create the index when it does not exist.")
        dimension: int | None = Field(None, ge=1, description="Default: the embedder's.")
        metric: Literal["cosine", "dotproduct", "euclidean"] = "cosine"
        cloud: str = "aws"
        region: str = "us-east-1"
        create_timeout: float = Field(300.0, gt=0, description="Seconds to wait for readiness.")
        store_text: Literal["full", "truncate", "none"] = "full"
        path: str | None = Field(
            None, description="Folder of texts.sqlite (store_text: none); default the index's."
        )
        batch_size: int = Field(200, ge=1, le=MAX_VECTORS_PER_REQUEST)
        return_vectors: bool = Field(False, description="Set Hit.vector (larger answers).")

        @model_validator(mode="after")
        def _one_target(self) -> PineconeStore.Config:
            if bool(self.index) == bool(self.host):
                raise ValueError("give exactly one of `index` (a name) and `host`")
            if self.host and self.create:
                raise ValueError("`create: true` needs `index:` (a name), not `host:`")
            return self

    config: Config

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._client: Any = None
        self._index: Any = None
        self._texts: TextFile | None = None
        self._dimension = 0
        self._metric = "cosine"
        self._label = self.config.index or self.config.host or ""
        self._sleep: Callable[[float], None] = time.sleep

    # -- lifecycle -----------------------------------------------------------------------
    def open(self, context: Context | None = None) -> None:
        super().open(context)
        config = self.config
        key = api_key(config.api_key)
        self._client = connect(key, config.controller_host, config.timeout)
        if config.host:
            self._index = data_plane(key, config.host, config.timeout)
            stats = self._call("describe_index_stats", self._index.describe_index_stats)
            self._dimension = int(stats.dimension or 0)
            self._metric = str(stats.metric or config.metric)
        else:
            model = self._describe_or_create(str(config.index))
            self._dimension, self._metric = dense_field(model)
            self._index = data_plane(key, model.host, config.timeout)
        self._check_shape()
        if config.store_text == "none":
            folder = self.context.store_dir(config.path, "pinecone")
            self._texts = TextFile(folder, fresh=self.context.fresh)
        if self.context.fresh:
            self._delete_all()

    def close(self) -> None:
        for part in (self._index, self._client):
            if part is not None:
                part.close()
        self._index = self._client = None
        if self._texts is not None:
            self._texts.close()
            self._texts = None

    def _describe_or_create(self, name: str) -> Any:
        try:
            model = self._call("describe_index", lambda: self._client.indexes.describe(name))
        except StoreError as exc:
            if getattr(exc, "status", None) != 404:
                raise
            if not self.config.create:
                raise StoreError(
                    f"pinecone index {name!r} does not exist: create it (dimension "
                    f"{self._expected_dimension() or '?'}, metric {self.config.metric}), or set "
                    "`create: true` on the store"
                ) from None
            model = self._create(name)
        if not model.status.ready:
            model = wait_until_ready(
                lambda: self._call("describe_index", lambda: self._client.indexes.describe(name)),
                self.config.create_timeout,
                self._sleep,
                name,
            )
        return model

    def _create(self, name: str) -> Any:
        dimension = self._expected_dimension()
        if dimension is None:
            raise StoreError(
                f"pinecone: cannot create index {name!r} without a dimension: configure an "
                "embedder, or set `dimension:` on the store"
            )
        config = self.config
        schema = {"fields": {"_values": {"type": "dense_vector", "dimension": dimension,
                                         "metric": config.metric}}}  # fmt: skip
        deployment = {"deployment_type": "managed", "cloud": config.cloud, "region": config.region}
        try:
            return self._call(
                "create_index",
                lambda: self._client.indexes.create(
                    name=name, schema=schema, deployment=deployment, timeout=-1
                ),
                hint="`index` (lower-case letters, digits and '-'), `cloud` and `region`",
            )
        except StoreError as exc:
            if getattr(exc, "status", None) != 409:  # created meanwhile by another run
                raise
            return self._call("describe_index", lambda: self._client.indexes.describe(name))

    def _expected_dimension(self) -> int | None:
        if self.config.dimension is not None:
            return self.config.dimension
        embedder = self.context.services.get("embedder")
        return int(embedder.dimension) if embedder is not None else None

    def _check_shape(self) -> None:
        expected = self._expected_dimension()
        where = f"pinecone index {self._label!r}"
        if expected is not None and self._dimension and expected != self._dimension:
            raise DimensionMismatchError(
                f"{where} holds {self._dimension}-d vectors but this pipeline makes "
                f"{expected}-d ones: use another index (or `create: true` with a new name), "
                "or the embedder the index was built with"
            )
        if self.config.metric != self._metric:
            raise StoreError(
                f"{where} ranks by {self._metric}, the store is configured for "
                f"{self.config.metric}: set `metric: {self._metric}` or use another index"
            )

    # -- calls ---------------------------------------------------------------------------------
    def _call(self, what: str, call: Callable[[], Any], hint: str | None = None) -> Any:
        return retry(
            call,
            self.config.retry_policy(),
            classify=classify,
            error=StoreError,
            what=f"pinecone {what} (index {self._label!r})",
            key_variable=KEY_VARIABLE,
            hint=hint or "the store's options",
            sleep=self._sleep,
        )

    @property
    def _ns(self) -> str:
        return self.config.namespace

    def _require_open(self) -> Any:
        if self._index is None:
            raise StoreError("the pinecone store is not open: call open() first")
        return self._index

    # -- writes ---------------------------------------------------------------------------------
    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray | None = None) -> None:
        import numpy as np

        index = self._require_open()
        if not chunks:
            return
        if vectors is None:
            raise StoreError("the pinecone store holds vectors: upsert() needs them")
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(chunks):
            raise StoreError(f"upsert(): {len(chunks)} chunks but vectors of shape {matrix.shape}")
        if matrix.shape[1] != self._dimension:
            raise DimensionMismatchError(
                f"pinecone index {self._label!r} holds {self._dimension}-d vectors, "
                f"got {matrix.shape[1]}-d ones"
            )
        bad = ~np.isfinite(matrix).all(axis=1) | ~matrix.any(axis=1)
        if bad.any():
            chunk = chunks[int(np.flatnonzero(bad)[0])]
            raise StoreError(
                f"chunk {chunk.id!r}: its vector is all zeros or not finite, which Pinecone "
                "refuses; check the embedder's output for this text"
            )
        records = [
            {"id": encode_id(c.id), "values": row.tolist(), "metadata": self._metadata(c)}
            for c, row in zip(chunks, matrix)
        ]
        if self._texts is not None:
            self._texts.put((c.id, c.text) for c in chunks)
        overhead = len('{"vectors":[],"namespace":""}') + len(self._ns.encode())
        send_batches(
            records,
            lambda batch: index.upsert(vectors=batch, namespace=self._ns),
            max_count=self.config.batch_size,
            max_bytes=MAX_REQUEST_BYTES,
            overhead=overhead,
            policy=self.config.retry_policy(),
            classify=classify,
            error=StoreError,
            what=f"pinecone upsert of {len(records)} vector(s) (index {self._label!r})",
            key_variable=KEY_VARIABLE,
            hint="the vectors and the store's options",
            sleep=self._sleep,
        )

    def _metadata(self, chunk: Chunk) -> dict[str, Any]:
        metadata = build_metadata(chunk, self.config.store_text, MAX_METADATA_BYTES)
        size = metadata_size(metadata)
        if size <= MAX_METADATA_BYTES:
            return metadata
        text = len(chunk.text) if TEXT_KEY in metadata else 0
        advice = (
            "set `store_text: truncate` or `none`, or a smaller chunk `size`"
            if text and self.config.store_text == "full"
            else "keep less metadata on these documents (large fields are written twice: "
            "as given and for filtering)"
        )
        raise StoreError(
            f"chunk {chunk.id!r} needs {size} bytes of Pinecone metadata (text: {text} "
            f"characters), more than the {MAX_METADATA_BYTES} a record may hold: {advice}"
        )

    def delete(self, *, ids: Sequence[str] | None = None, where: Filter | None = None) -> int:
        self._require_open()
        if ids is not None and where is not None:
            raise StoreError("delete(): pass ids or where, not both")
        if where is not None:
            self._check(where)
            doomed = self._delete_where(where)
        elif ids:
            doomed = list(self._fetch([encode_id(i) for i in dict.fromkeys(ids)]))
            self._delete_vids(doomed)
        else:
            return 0
        if self._texts is not None:
            self._texts.delete([i for i in (decode_id(v) for v in doomed) if i is not None])
        return len(doomed)

    def _delete_where(self, where: Filter) -> list[str]:
        documents = _document_ids(where)
        doomed: list[str] = []
        if documents is not None:  # chunk ids start with "<document id>::": list by prefix
            prefixes = [encode_prefix(f"{d}::") for d in documents]
            if all(p is not None for p in prefixes):
                candidates = [v for p in prefixes for v in self._list(p)]
                fetched = self._fetch(candidates)
                doomed = [v for v, m in fetched.items() if evaluate(where, _chunk_metadata(m))]
                self._delete_vids(doomed)
                if not self._leftovers(where, set(doomed)):
                    return doomed
        rest = [vid for vid, _ in self._matching(where)]
        self._delete_vids(rest)
        return doomed + [v for v in rest if v not in set(doomed)]

    def _leftovers(self, where: Filter, deleted: set[str]) -> bool:
        """Whether a filtered query still finds chunks ``where`` matches (chunks whose
        ids do not follow ``<document id>::``), besides those just deleted."""
        top = min(MAX_TOP_K, len(deleted) + 1)
        probe = [1.0] + [0.0] * (self._dimension - 1)
        result = self._call(
            "query",
            lambda: self._index.query(
                top_k=top, vector=probe, namespace=self._ns, filter=translate(where)
            ),
        )
        return any(m.id not in deleted for m in result.matches)

    def _delete_vids(self, vids: Sequence[str]) -> None:
        for start in range(0, len(vids), MAX_IDS_PER_DELETE):
            part = list(vids[start : start + MAX_IDS_PER_DELETE])
            self._quiet_404(
                "delete", lambda part=part: self._index.delete(ids=part, namespace=self._ns)
            )

    def _delete_all(self) -> None:
        """``Context.fresh``: every vector of the namespace deleted, and waited for
        until the stats say so (they lag on the live service)."""
        self._quiet_404(
            "delete all", lambda: self._index.delete(delete_all=True, namespace=self._ns)
        )
        deadline = time.monotonic() + self.config.create_timeout
        while self.count() and time.monotonic() < deadline:
            self._sleep(0.5)

    def _quiet_404(self, what: str, call: Callable[[], Any]) -> None:
        """Run a delete; a 404 means the namespace holds nothing (Pinecone answers
        so for a namespace never written or emptied)."""
        try:
            self._call(what, call)
        except StoreError as exc:
            if getattr(exc, "status", None) != 404:
                raise

    # -- reads -----------------------------------------------------------------------------------
    def _check(self, where: Filter | None) -> dict[str, Any] | None:
        name = self.context.name or "pinecone"
        check_supported(where, self.filter_operators, name)
        return translate(where, name)

    def query(
        self,
        *,
        vector: np.ndarray | None = None,
        text: str | None = None,
        k: int = 10,
        where: Filter | None = None,
    ) -> list[Hit]:
        import numpy as np

        index = self._require_open()
        spec = self._check(where)
        if vector is None:
            raise StoreError("the pinecone store answers vector queries: pass vector=")
        query = np.asarray(vector, dtype=np.float32).ravel()
        if query.shape[0] != self._dimension:
            raise DimensionMismatchError(
                f"pinecone index {self._label!r} holds {self._dimension}-d vectors, "
                f"the query is {query.shape[0]}-d"
            )
        if k <= 0:
            return []
        top = min(k, MAX_TOP_K)
        with_data = top <= MAX_TOP_K_WITH_DATA
        result = self._call(
            "query",
            lambda: index.query(
                top_k=top,
                vector=query.tolist(),
                namespace=self._ns,
                filter=spec,
                include_metadata=with_data,
                include_values=with_data and self.config.return_vectors,
            ),
        )
        matches = list(result.matches)
        metadata = {m.id: m.metadata for m in matches if m.metadata}
        if not with_data:
            metadata = self._fetch([m.id for m in matches])
        chunks = self._chunks({m.id: metadata[m.id] for m in matches if m.id in metadata})
        name = self.context.name
        sign = -1.0 if self._metric == "euclidean" else 1.0  # squared distance: lower is closer
        hits = []
        for match in matches:
            if match.id not in chunks:
                continue  # deleted since it was matched (eventual consistency)
            score = sign * float(match.score)
            values = match.values if self.config.return_vectors and match.values else None
            hits.append(
                Hit(chunks[match.id], score, store=name, scores={name: score},
                    vector=np.asarray(values, dtype=np.float32) if values else None)
            )  # fmt: skip
        return hits

    def _chunks(self, records: dict[str, Any]) -> dict[str, Chunk]:
        """Chunks from record metadata, with texts from ``texts.sqlite`` if kept there."""
        if self._texts is None:
            return {vid: chunk_from_metadata(m) for vid, m in records.items()}
        out = {vid: chunk_from_metadata(m, text="") for vid, m in records.items()}
        texts = self._texts.get([c.id for c in out.values()])
        missing = [c.id for c in out.values() if c.id not in texts]
        if missing:
            raise StoreError(
                f"pinecone: the text of chunk {missing[0]!r} is not in {self._texts.path} "
                "(`store_text: none` keeps texts in the index folder, which must stay with "
                "the namespace); run `ragloom index --rebuild`"
            )
        return {vid: _with_text(c, texts[c.id]) for vid, c in out.items()}

    def count(self, where: Filter | None = None) -> int:
        self._require_open()
        if where is not None:
            self._check(where)
            return sum(1 for _ in self._matching(where))
        stats = self._call("describe_index_stats", self._index.describe_index_stats)
        summary = stats.namespaces.get(self._ns or "__default__")
        if summary is None and not self._ns:
            summary = stats.namespaces.get("")
        return int(summary.vector_count) if summary is not None else 0

    def ids(self, where: Filter | None = None) -> Iterator[str]:
        self._require_open()
        self._check(where)
        if where is not None:
            return iter([cid for _, cid in self._matching(where)])
        found: list[str] = []
        hashed: list[str] = []
        for vid in self._list(""):
            cid = decode_id(vid)
            if cid is None:
                hashed.append(vid)
            else:
                found.append(cid)
        found.extend(json.loads(m["_rl"])["id"] for m in self._fetch(hashed).values())
        return iter(found)

    # -- listing and fetching -------------------------------------------------------------------
    def _list(self, prefix: str | None) -> Iterator[str]:
        token = None
        while True:
            page = self._call(
                "list",
                lambda token=token: self._index.list_paginated(
                    prefix=prefix or None, limit=100, pagination_token=token, namespace=self._ns
                ),
            )
            yield from (item.id for item in page.vectors)
            token = page.pagination.next if page.pagination else None
            if not token:
                return

    def _fetch(self, vids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """``vector id -> metadata`` of the ids the namespace holds."""
        found: dict[str, dict[str, Any]] = {}
        size = lambda vid: len(quote(vid, safe="")) + 5  # noqa: E731 ("&ids=" and the id)
        for _, part in batches(
            list(vids), max_count=MAX_IDS_PER_DELETE, max_bytes=MAX_FETCH_URL_BYTES, size=size
        ):
            result = self._call(
                "fetch", lambda part=part: self._index.fetch(ids=part, namespace=self._ns)
            )
            found.update({vid: v.metadata or {} for vid, v in result.vectors.items()})
        return found

    def _matching(self, where: Filter) -> Iterator[tuple[str, str]]:
        """``(vector id, chunk id)`` of every record ``where`` matches, by listing the
        namespace and evaluating the filter on each record's metadata."""
        page: list[str] = []
        for vid in self._list(""):
            page.append(vid)
            if len(page) == 100:
                yield from self._evaluate(page, where)
                page = []
        if page:
            yield from self._evaluate(page, where)

    def _evaluate(self, vids: list[str], where: Filter) -> Iterator[tuple[str, str]]:
        for vid, metadata in self._fetch(vids).items():
            if "_rl" in metadata and evaluate(where, _chunk_metadata(metadata)):
                yield vid, json.loads(metadata["_rl"])["id"]


def _chunk_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    return json.loads(metadata["_rl"])["m"] if "_rl" in metadata else {}


def _with_text(chunk: Chunk, text: str) -> Chunk:
    return replace(chunk, text=text)


def _document_ids(where: Filter) -> list[str] | None:
    """The document ids of a filter that is ``document_id == x`` or ``$in [...]``."""
    if isinstance(where, Condition) and where.field == "document_id":
        if where.op == "$eq" and isinstance(where.value, str):
            return [where.value]
        if where.op == "$in" and all(isinstance(v, str) for v in where.value):
            return list(where.value)
    return None
