"""``FakePinecone``: Pinecone's control and data planes, limits and filter language."""

from __future__ import annotations

import base64
import json
import math
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .base import Fault, LoopbackServer, RecordedRequest, Response

# -- Pinecone ----------------------------------------------------------------------------

PINECONE_MAX_UPSERT_VECTORS = 1000
PINECONE_MAX_REQUEST_BYTES = 2 * 1024 * 1024
"""2 MB per upsert request (the docs say "2MB"; read here as MiB)."""
PINECONE_MAX_METADATA_BYTES = 40 * 1024
"""40 KB of metadata per vector, measured here as its compact JSON in UTF-8."""
PINECONE_MAX_TOP_K = 10_000
PINECONE_MAX_TOP_K_WITH_DATA = 1_000
"""topK when a query includes values or metadata."""
PINECONE_MAX_IDS = 1000
"""Ids per fetch or delete request (assumed for fetch: a URL holds so many)."""
PINECONE_LIST_LIMIT = 100
_DEFAULT_NAMESPACE = "__default__"
_INDEX_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,43}[a-z0-9])?$")
_FILTER_OPS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists"})


class PineconeFilterError(ValueError):
    """A filter Pinecone would reject (400)."""


def check_pinecone_filter(spec: Any, path: str = "filter") -> None:
    """Raise :class:`PineconeFilterError` for a filter Pinecone rejects: operators
    it lacks (``$not``, ``$nor``...), a range on a non-number, ``null`` anywhere,
    a list where a value belongs, an empty ``$and``/``$or``."""
    if not isinstance(spec, dict):
        raise PineconeFilterError(f"{path} must be an object")
    for key, value in spec.items():
        here = f"{path}.{key}"
        if key in ("$and", "$or"):
            if not isinstance(value, list) or not value:
                raise PineconeFilterError(f"{here} must be a non-empty array of filters")
            for i, item in enumerate(value):
                check_pinecone_filter(item, f"{here}[{i}]")
        elif key.startswith("$"):
            raise PineconeFilterError(f"{here}: unsupported operator {key}")
        elif isinstance(value, dict):
            if not value:
                raise PineconeFilterError(f"{here}: empty operator object")
            for op, arg in value.items():
                _check_pinecone_op(op, arg, f"{here}.{op}")
        else:
            _check_pinecone_op("$eq", value, here)


def _check_pinecone_op(op: str, arg: Any, path: str) -> None:
    if op not in _FILTER_OPS:
        raise PineconeFilterError(f"{path}: unsupported operator {op}")
    if op in ("$eq", "$ne"):
        if not _pinecone_scalar(arg):
            raise PineconeFilterError(f"{path}: {op} takes a string, number or boolean")
    elif op in ("$gt", "$gte", "$lt", "$lte"):
        if isinstance(arg, bool) or not isinstance(arg, (int, float)) or not math.isfinite(arg):
            raise PineconeFilterError(f"{path}: {op} takes a number")
    elif op in ("$in", "$nin"):
        if not isinstance(arg, list) or not arg:
            raise PineconeFilterError(f"{path}: {op} takes a non-empty array")
        if len(arg) > 10_000:  # assumed: the docs cap $in/$nin at 10,000 values
            raise PineconeFilterError(f"{path}: {op} takes at most 10000 values")
        if not all(_pinecone_scalar(a) for a in arg):
            raise PineconeFilterError(f"{path}: {op} takes strings, numbers or booleans")
    elif not isinstance(arg, bool):
        raise PineconeFilterError(f"{path}: $exists takes true or false")


def _pinecone_scalar(value: Any) -> bool:
    if isinstance(value, (bool, str)):
        return True
    return isinstance(value, (int, float)) and math.isfinite(value)


def pinecone_filter_matches(spec: Mapping[str, Any] | None, metadata: Mapping[str, Any]) -> bool:
    """Whether ``metadata`` matches a (valid) Pinecone filter, as Pinecone documents:
    keys of one object ANDed; a list of strings matches ``$eq``/``$in`` when any
    element does; numbers compare as numbers, booleans only with booleans.

    Assumed where the docs are silent: a record without the field matches
    ``$ne`` and ``$nin`` (as in MongoDB, whose language Pinecone follows) and
    a list matches ``$ne``/``$nin`` when no element equals. Clients that need
    either exact add ``$exists``."""
    if not spec:
        return True
    for key, value in spec.items():
        if key == "$and":
            if not all(pinecone_filter_matches(item, metadata) for item in value):
                return False
        elif key == "$or":
            if not any(pinecone_filter_matches(item, metadata) for item in value):
                return False
        else:
            ops = value if isinstance(value, dict) else {"$eq": value}
            for op, arg in ops.items():
                if not _pinecone_op(op, arg, key in metadata, metadata.get(key)):
                    return False
    return True


def _pinecone_eq(value: Any, arg: Any) -> bool:
    if isinstance(value, list):
        return any(_pinecone_eq(v, arg) for v in value)
    if isinstance(value, bool) or isinstance(arg, bool):
        return isinstance(value, bool) and isinstance(arg, bool) and value == arg
    if isinstance(value, str) or isinstance(arg, str):
        return isinstance(value, str) and isinstance(arg, str) and value == arg
    return bool(value == arg)


def _pinecone_op(op: str, arg: Any, present: bool, value: Any) -> bool:
    if op == "$exists":
        return present == arg
    if not present:
        return op in ("$ne", "$nin")
    if op == "$eq":
        return _pinecone_eq(value, arg)
    if op == "$ne":
        return not _pinecone_eq(value, arg)
    if op == "$in":
        return any(_pinecone_eq(value, a) for a in arg)
    if op == "$nin":
        return not any(_pinecone_eq(value, a) for a in arg)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return {
        "$gt": value > arg,
        "$gte": value >= arg,
        "$lt": value < arg,
        "$lte": value <= arg,
    }[op]


@dataclass
class _PineconeIndex:
    name: str
    dimension: int
    metric: str
    deployment: dict[str, Any]
    ready_after: int = 0
    describes: int = 0
    namespaces: dict[str, dict[str, tuple[list[float], dict[str, Any] | None]]] = field(
        default_factory=dict
    )


class FakePinecone(LoopbackServer):
    """Pinecone's control plane and the data plane of its (dense, serverless)
    indexes, on one port. An index's host is ``<url>/_index/<name>``;
    requests without that prefix go to the first index.

    ``add_index(name, dimension, metric)`` creates one directly; ``POST /indexes``
    creates one as the API does, not ready for its first ``ready_after``
    describes. ``delete_by_filter`` (default False) answers a delete with a
    filter as serverless indexes did before October 2025 (400); set it to apply
    the filter instead. Counts in ``describe_index_stats`` are exact at once
    here; on the live service they lag (eventually consistent).
    """

    def __init__(
        self,
        api_key: str | None = "test-key",
        *,
        ready_after: int = 1,
        delete_by_filter: bool = False,
    ) -> None:
        super().__init__()
        self.api_key = api_key
        self.ready_after = ready_after
        self.delete_by_filter = delete_by_filter
        self.indexes: dict[str, _PineconeIndex] = {}
        self._data_lock = threading.RLock()

    def add_index(self, name: str, dimension: int, metric: str = "cosine") -> str:
        """Create a ready index; returns its host."""
        with self._data_lock:
            self.indexes[name] = _PineconeIndex(name, dimension, metric, _managed())
        return self.index_host(name)

    def index_host(self, name: str) -> str:
        return f"{self.url}/_index/{name}"

    def vectors(self, index: str, namespace: str = "") -> dict[str, tuple[list[float], Any]]:
        """The records of a namespace (a copy), for assertions."""
        with self._data_lock:
            return dict(self.indexes[index].namespaces.get(namespace or _DEFAULT_NAMESPACE, {}))

    # -- errors ------------------------------------------------------------------------------
    def error_body(self, status: int, message: str) -> Any:
        code = {400: 3, 401: 16, 403: 7, 404: 5, 409: 6, 413: 3, 429: 8, 500: 13, 503: 14}
        return {"code": code.get(status, 2), "message": message, "details": []}

    def _control_error(self, status: int, code: str, message: str) -> Response:
        return Response(status, {"error": {"code": code, "message": message}, "status": status})

    # -- routing -----------------------------------------------------------------------------
    def handle(self, request: RecordedRequest, fault: Fault | None) -> Response:
        if self.api_key is not None and request.headers.get("api-key") != self.api_key:
            return self._control_error(401, "UNAUTHENTICATED", "Invalid API Key")
        path = request.path
        with self._data_lock:
            if path == "/indexes" or path.startswith("/indexes/"):
                return self._control(request)
            index: _PineconeIndex | None
            if path.startswith("/_index/"):
                name, _, rest = path[len("/_index/") :].partition("/")
                index, path = self.indexes.get(name), "/" + rest
            else:
                index = next(iter(self.indexes.values()), None)
            if index is None:
                return self.error(404, "Index not found")
            return self._data(index, request.method, path, request)

    # -- control plane -----------------------------------------------------------------------
    def _model(self, index: _PineconeIndex) -> dict[str, Any]:
        ready = index.describes > index.ready_after
        return {
            "name": index.name,
            "host": self.index_host(index.name),
            "status": {"ready": ready, "state": "Ready" if ready else "Initializing"},
            "schema": {
                "fields": {
                    "_values": {
                        "type": "dense_vector",
                        "dimension": index.dimension,
                        "metric": index.metric,
                    }
                }
            },
            "deployment": index.deployment,
            "deletion_protection": "disabled",
        }

    def _control(self, request: RecordedRequest) -> Response:
        name = request.path[len("/indexes/") :] if request.path.startswith("/indexes/") else ""
        if request.method == "GET" and not name:
            return Response(200, {"indexes": [self._model(i) for i in self.indexes.values()]})
        if request.method == "POST" and not name:
            return self._create(request.body)
        index = self.indexes.get(name)
        if index is None:
            return self._control_error(404, "NOT_FOUND", f"Resource {name} not found")
        if request.method == "GET":
            index.describes += 1
            return Response(200, self._model(index))
        if request.method == "DELETE":
            del self.indexes[name]
            return Response(202, None)
        return self._control_error(405, "METHOD_NOT_ALLOWED", request.method)

    def _create(self, body: Any) -> Response:
        if not isinstance(body, dict):
            return self._control_error(400, "INVALID_ARGUMENT", "body must be an object")
        name = body.get("name")
        if not isinstance(name, str) or not _INDEX_NAME.match(name):
            return self._control_error(
                400,
                "INVALID_ARGUMENT",
                "Name must consist of lower case alphanumeric characters or '-', "
                "start and end with an alphanumeric character, at most 45 characters",
            )
        if name in self.indexes:
            return self._control_error(409, "ALREADY_EXISTS", f"Resource {name} already exists")
        fields = ((body.get("schema") or {}).get("fields")) or {}
        dense = fields.get("_values") if isinstance(fields, dict) else None
        if not isinstance(dense, dict) or dense.get("type") != "dense_vector":
            return self._control_error(
                400, "INVALID_ARGUMENT", "this fake serves dense vector indexes (field _values)"
            )
        dimension, metric = dense.get("dimension"), dense.get("metric", "cosine")
        if not isinstance(dimension, int) or not 1 <= dimension <= 20_000:
            return self._control_error(400, "INVALID_ARGUMENT", "dimension must be 1 to 20000")
        if metric not in ("cosine", "euclidean", "dotproduct"):
            return self._control_error(400, "INVALID_ARGUMENT", f"unknown metric {metric!r}")
        index = _PineconeIndex(
            name, dimension, metric, body.get("deployment") or _managed(), self.ready_after
        )
        self.indexes[name] = index
        return Response(201, self._model(index))

    # -- data plane --------------------------------------------------------------------------
    def _data(
        self, index: _PineconeIndex, method: str, path: str, request: RecordedRequest
    ) -> Response:
        body = request.body if isinstance(request.body, dict) else {}
        try:
            if method == "POST" and path == "/vectors/upsert":
                return self._upsert(index, body, request.raw)
            if method == "POST" and path == "/query":
                return self._query(index, body)
            if method == "GET" and path == "/vectors/fetch":
                return self._fetch(index, request.query)
            if method == "POST" and path == "/vectors/delete":
                return self._delete(index, body)
            if method == "GET" and path == "/vectors/list":
                return self._list(index, request.query)
            if method == "POST" and path == "/describe_index_stats":
                return self._stats(index, body)
        except PineconeFilterError as exc:
            return self.error(400, f"Invalid filter: {exc}")
        return self.error(404, f"no route for {method} {path}")

    @staticmethod
    def _ns(value: Any) -> str:
        return value if isinstance(value, str) and value else _DEFAULT_NAMESPACE

    def _upsert(self, index: _PineconeIndex, body: dict[str, Any], raw: bytes) -> Response:
        if len(raw) > PINECONE_MAX_REQUEST_BYTES:
            return self.error(
                413,
                f"Request size {len(raw) / 1_048_576:.1f}MB exceeds the maximum supported "
                "size of 2MB",
            )
        vectors = body.get("vectors")
        if not isinstance(vectors, list) or not vectors:
            return self.error(400, "vectors must be a non-empty array")
        if len(vectors) > PINECONE_MAX_UPSERT_VECTORS:
            return self.error(
                400,
                f"The number of vectors per request must be less than or equal to "
                f"{PINECONE_MAX_UPSERT_VECTORS}; got {len(vectors)}",
            )
        records: dict[str, tuple[list[float], dict[str, Any] | None]] = {}
        for vector in vectors:
            problem = self._check_vector(index, vector)
            if problem:
                return self.error(400, problem)
            records[vector["id"]] = ([float(v) for v in vector["values"]], vector.get("metadata"))
        space = index.namespaces.setdefault(self._ns(body.get("namespace")), {})
        space.update(records)
        return Response(200, {"upsertedCount": len(vectors)})

    def _check_vector(self, index: _PineconeIndex, vector: Any) -> str | None:
        if not isinstance(vector, dict):
            return "each vector must be an object"
        vid, values = vector.get("id"), vector.get("values")
        if not isinstance(vid, str) or not 1 <= len(vid) <= 512 or not vid.isascii():
            return f"Vector ID must be 1-512 ASCII characters, got {vid!r}"
        if not isinstance(values, list) or len(values) != index.dimension:
            got = len(values) if isinstance(values, list) else type(values).__name__
            return (
                f"Vector dimension {got} does not match the dimension of the index "
                f"{index.dimension}"
            )
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in values):
            return f"Vector {vid!r} holds a value that is not a finite number"
        if not any(values):
            return f"Dense vectors must contain at least one non-zero value (vector {vid!r})"
        metadata = vector.get("metadata")
        if metadata is None:
            return None
        if not isinstance(metadata, dict):
            return f"Metadata of vector {vid!r} must be an object"
        for key, value in metadata.items():
            ok = _pinecone_scalar(value) or (
                isinstance(value, list) and all(isinstance(v, str) for v in value)
            )
            if not ok:
                kind = "null" if value is None else type(value).__name__
                return (
                    f"Metadata value for field {key!r} of vector {vid!r} must be a string, "
                    f"number, boolean or list of strings, got {kind}"
                )
        size = len(json.dumps(metadata, separators=(",", ":"), ensure_ascii=False).encode())
        if size > PINECONE_MAX_METADATA_BYTES:
            return (
                f"Metadata size is {size} bytes, which exceeds the limit of "
                f"{PINECONE_MAX_METADATA_BYTES} bytes per vector (vector {vid!r})"
            )
        return None

    def _query(self, index: _PineconeIndex, body: dict[str, Any]) -> Response:
        top_k = body.get("topK")
        with_data = bool(body.get("includeValues") or body.get("includeMetadata"))
        cap = PINECONE_MAX_TOP_K_WITH_DATA if with_data else PINECONE_MAX_TOP_K
        if not isinstance(top_k, int) or not 1 <= top_k <= cap:
            return self.error(400, f"topK must be between 1 and {cap}, got {top_k}")
        space = index.namespaces.get(self._ns(body.get("namespace")), {})
        vector = body.get("vector")
        if vector is None and body.get("id") is not None:
            found = space.get(body["id"])
            vector = found[0] if found else None
            if vector is None:
                return Response(200, {"matches": [], "namespace": body.get("namespace", "")})
        if not isinstance(vector, list) or len(vector) != index.dimension:
            got = len(vector) if isinstance(vector, list) else "no"
            return self.error(
                400,
                f"Query vector dimension {got} does not match the dimension of the index "
                f"{index.dimension}",
            )
        spec = body.get("filter")
        if spec is not None:
            check_pinecone_filter(spec)
        scored = []
        for vid, (values, metadata) in space.items():
            if spec and not pinecone_filter_matches(spec, metadata or {}):
                continue
            scored.append((_score(index.metric, vector, values), vid, values, metadata))
        descending = index.metric != "euclidean"
        scored.sort(key=lambda row: (-row[0] if descending else row[0], row[1]))
        matches = []
        for score, vid, values, metadata in scored[:top_k]:
            match: dict[str, Any] = {"id": vid, "score": score, "values": []}
            if body.get("includeValues"):
                match["values"] = values
            if body.get("includeMetadata") and metadata is not None:
                match["metadata"] = metadata
            matches.append(match)
        return Response(
            200,
            {"matches": matches, "namespace": body.get("namespace", ""), "usage": {"readUnits": 1}},
        )

    def _ids_param(self, query: Mapping[str, list[str]]) -> list[str]:
        return list(query.get("ids", []))

    def _fetch(self, index: _PineconeIndex, query: Mapping[str, list[str]]) -> Response:
        ids = self._ids_param(query)
        if not ids:
            return self.error(400, "ids must be a non-empty list")
        if len(ids) > PINECONE_MAX_IDS:
            return self.error(400, f"at most {PINECONE_MAX_IDS} ids per fetch")
        namespace = (query.get("namespace") or [""])[0]
        space = index.namespaces.get(self._ns(namespace), {})
        vectors = {}
        for vid in ids:
            if vid in space:
                values, metadata = space[vid]
                record: dict[str, Any] = {"id": vid, "values": values}
                if metadata is not None:
                    record["metadata"] = metadata
                vectors[vid] = record
        return Response(
            200, {"vectors": vectors, "namespace": namespace, "usage": {"readUnits": 1}}
        )

    def _delete(self, index: _PineconeIndex, body: dict[str, Any]) -> Response:
        name = self._ns(body.get("namespace"))
        ids, delete_all, spec = body.get("ids"), body.get("deleteAll"), body.get("filter")
        if sum(x is not None and x is not False for x in (ids, delete_all, spec)) != 1:
            return self.error(400, "exactly one of ids, deleteAll and filter must be given")
        if name not in index.namespaces:
            # assumed from serverless behaviour reported by users: a namespace that
            # does not exist (never written, or emptied by deleteAll) answers 404
            return self.error(404, "Namespace not found")
        space = index.namespaces[name]
        if delete_all:
            del index.namespaces[name]  # "deleting all records also deletes the namespace"
            return Response(200, {})
        if spec is not None:
            if not self.delete_by_filter:
                return self.error(
                    400,
                    "Serverless and Starter indexes do not support deleting with metadata "
                    "filtering",
                )
            check_pinecone_filter(spec)
            for vid in [v for v, (_, m) in space.items() if pinecone_filter_matches(spec, m or {})]:
                del space[vid]
            return Response(200, {})
        if not isinstance(ids, list) or not ids or len(ids) > PINECONE_MAX_IDS:
            return self.error(400, f"ids must be a list of 1 to {PINECONE_MAX_IDS} ids")
        for vid in ids:
            space.pop(vid, None)
        return Response(200, {})

    def _list(self, index: _PineconeIndex, query: Mapping[str, list[str]]) -> Response:
        namespace = (query.get("namespace") or [""])[0]
        prefix = (query.get("prefix") or [""])[0]
        raw_limit = (query.get("limit") or [str(PINECONE_LIST_LIMIT)])[0]
        try:
            limit = int(raw_limit)
        except ValueError:
            return self.error(400, f"limit must be an integer, got {raw_limit!r}")
        if not 1 <= limit <= PINECONE_LIST_LIMIT:
            return self.error(400, f"limit must be between 1 and {PINECONE_LIST_LIMIT}")
        after = ""
        token = (query.get("paginationToken") or [None])[0]
        if token:
            try:
                after = base64.urlsafe_b64decode(token.encode()).decode()
            except ValueError:
                return self.error(400, "invalid pagination token")
        space = index.namespaces.get(self._ns(namespace), {})
        ids = sorted(v for v in space if v.startswith(prefix) and v > after)
        page, more = ids[:limit], len(ids) > limit
        body: dict[str, Any] = {
            "vectors": [{"id": v} for v in page],
            "namespace": namespace,
            "usage": {"readUnits": 1},
        }
        if more:
            body["pagination"] = {"next": base64.urlsafe_b64encode(page[-1].encode()).decode()}
        return Response(200, body)

    def _stats(self, index: _PineconeIndex, body: dict[str, Any]) -> Response:
        if body.get("filter"):
            return self.error(
                400,
                "Serverless and Starter indexes do not support describing index stats with "
                "metadata filtering",
            )
        namespaces = {n: {"vectorCount": len(s)} for n, s in index.namespaces.items()}
        return Response(
            200,
            {
                "namespaces": namespaces,
                "dimension": index.dimension,
                "indexFullness": 0.0,
                "totalVectorCount": sum(len(s) for s in index.namespaces.values()),
                "metric": index.metric,
                "vectorType": "dense",
            },
        )


def _managed() -> dict[str, Any]:
    return {"deployment_type": "managed", "cloud": "aws", "region": "us-east-1"}


def _score(metric: str, query: list[float], values: list[float]) -> float:
    dot = sum(a * b for a, b in zip(query, values))
    if metric == "dotproduct":
        return dot
    if metric == "euclidean":  # squared distance: lower is closer
        return sum((a - b) ** 2 for a, b in zip(query, values))
    norms = math.sqrt(sum(a * a for a in query)) * math.sqrt(sum(b * b for b in values))
    return dot / norms if norms else 0.0
