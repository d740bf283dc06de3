"""``memory``: exact cosine (or dot-product) search on a contiguous float32 matrix.

Fast enough for hundreds of thousands of chunks on one machine: a query is
one matrix-vector product and an ``argpartition``. ``precision: float16``
(half the memory) or ``int8`` (a quarter: each row scaled to [-127, 127]
with its own float32 scale) keeps the matrix in that type and scores it a
block of rows at a time converted to float32, so memory drops by that
factor at some cost in speed and a little in recall (``make bench``). Filters are evaluated on
numpy columns of the metadata (``_columns``), built per field the first time a
filter names it and dropped on every write; a selective filter scores only
the matching rows. A store's own filter (``Context.filter``, from its
``filter:`` in the config) is found once after each write; when it matches
at most half the rows, their vectors are also kept together, so a query scans
only them (that much more memory). Persisted atomically to ``<index_dir>/<name>/memory.npz``
on ``flush()``/``close()``; ``refresh()`` reloads the file when another
process replaced it (and empties the store when it was deleted).

``index: hnsw`` adds an approximate index for large stores: an HNSW graph
(usearch, ``_ann``) proposes candidates and the matrix scores them exactly.
A filter matching few rows is answered exactly on those rows; a broader one
searches the graph wider and keeps the matching rows, widening again (then
falling back to exact search) until k rows match. The graph is saved to
``memory.ann`` before ``memory.npz``, both stamped with one token per flush;
on open a graph whose token, row count or settings disagree with the matrix
is rebuilt from it (and saved), so a crash between the two writes costs a
rebuild, never a wrong answer.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Literal

from pydantic import Field, model_validator

from ...components import ComponentConfig, Context
from ...errors import DimensionMismatchError, StoreError
from ...filters import ALL_OPERATORS, And, Filter, beyond, check_supported
from ...types import Chunk, Hit
from ._ann import MISSING_USEARCH, AnnIndex, graph_dtype
from ._persist import FileStore, atomic_write, chunk_from_dict, chunk_to_dict, clear

if TYPE_CHECKING:
    import numpy as np

    from ._columns import Columns

__all__ = ["MemoryStore"]

# a filter matching fewer rows than this share is scored on those rows only
_SUBSET_SHARE = 0.25
# the rows of a store's own filter are copied together when at most this share
# of the store (a query then scans them alone); a larger share scans every row
_OWN_COPY_SHARE = 0.5
# rows converted to float32 at a time when the matrix is float16 or int8
_BLOCK_ROWS = 16_384
# index: hnsw: a query asks the graph for k x _OVERSAMPLE candidates (k / s x
# _OVERSAMPLE with a filter matching a share s of the rows); past
# _MAX_CANDIDATES, exact search on the matching rows is the cheaper of the two
_OVERSAMPLE = 2.0
_MAX_CANDIDATES = 4_096
Precision = Literal["float32", "float16", "int8"]


class MemoryStore(FileStore):
    """Exact nearest-neighbour search in memory, persisted under the index directory."""

    capabilities = frozenset({"dense"})
    filter_operators = ALL_OPERATORS

    class Config(ComponentConfig):
        path: str | None = None
        """Directory for the store's file; default ``<index_dir>/<store name>``."""
        metric: Literal["cosine", "dot"] = "cosine"
        """``cosine`` normalises vectors on the way in; ``dot`` keeps them as given."""
        precision: Precision = "float32"
        """How vectors are held in memory and on disk: ``float32``, ``float16``
        (half the memory) or ``int8`` (a quarter, one float32 scale per row).
        Changing it converts the saved matrix on the next open."""
        index: Literal["exact", "hnsw"] = "exact"
        """``exact`` scores every row; ``hnsw`` adds an approximate HNSW graph
        (usearch, ``pip install 'ragloom[ann]'``) for stores of about a
        million rows and more, saved beside the matrix as ``memory.ann``."""
        connectivity: int = Field(16, ge=2, le=256)
        """``hnsw``: links per node of the graph (HNSW's M). More: better
        recall, more memory, slower builds. Changing it rebuilds the graph."""
        expansion_add: int = Field(128, ge=1)
        """``hnsw``: candidates kept while linking a new row (efConstruction).
        More: a better graph, slower writes."""
        expansion_search: int = Field(160, ge=1)
        """``hnsw``: candidates kept while searching (ef; at least k). More:
        better recall, slower queries. Takes effect on the next open."""

        @model_validator(mode="after")
        def _usearch_installed(self) -> MemoryStore.Config:
            import importlib.util

            if self.index == "hnsw" and importlib.util.find_spec("usearch") is None:
                raise ValueError(MISSING_USEARCH)
            return self

    config: Config
    file_name = "memory.npz"
    ann_name = "memory.ann"

    def _reset(self) -> None:
        super()._reset()
        self._matrix: np.ndarray | None = None  # capacity rows; first _n are live
        self._scales: np.ndarray | None = None  # int8 only: each row's float32 scale
        self._n = 0
        self._chunks: list[Chunk] = []
        self._row: dict[str, int] = {}
        self._columns: Columns | None = None  # metadata columns, rebuilt lazily after writes
        self._own: _OwnRows | None = None  # the rows of the store's own filter, after writes
        self._ann: AnnIndex | None = None  # index: hnsw, once the store holds rows
        self._token: str | None = None  # the store file's flush token (see _ann)

    # -- persistence -------------------------------------------------------
    def open(self, context: Context | None = None) -> None:
        super().open(context)
        if self.context.fresh and self._file is not None:
            clear(self._file.with_name(self.ann_name), self.context)

    def flush(self) -> None:
        if self._file is None or self._unchanged():
            return
        self._token = uuid.uuid4().hex
        ann_file = self._file.with_name(self.ann_name)
        if self._ann is not None:
            ann, token = self._ann, self._token
            atomic_write(ann_file, lambda handle: ann.write(handle, token))
        else:  # before the matrix: a crash in between leaves no graph to trust
            ann_file.unlink(missing_ok=True)
        super().flush()

    # -- persistence -------------------------------------------------------
    def _load(self, file: Path) -> None:
        import numpy as np

        with np.load(file, allow_pickle=False) as data:
            matrix = np.ascontiguousarray(data["vectors"])
            scales = np.asarray(data["scales"], np.float32) if "scales" in data.files else None
            chunks = json.loads(bytes(data["chunks"]).decode("utf-8"))
            token = bytes(data["token"]).decode("ascii") if "token" in data.files else None
        if matrix.ndim != 2 or matrix.shape[0] != len(chunks):
            raise ValueError(f"{len(chunks)} chunks but vectors of shape {matrix.shape}")
        if matrix.dtype == np.int8 and (scales is None or scales.shape != (len(chunks),)):
            raise ValueError(f"int8 vectors of shape {matrix.shape} without their scales")
        if matrix.dtype not in (np.float32, np.float16, np.int8):
            raise ValueError(f"vectors of type {matrix.dtype}")
        if matrix.dtype != _dtype(self.config.precision):  # the config changed: convert
            matrix, scales = _encode(_decode(matrix, scales), self.config.precision)
            self._outdated = True  # the next flush (an index run's) keeps the new precision
        # an empty store keeps no width: a rebuild may change embedders
        self._matrix = matrix if len(chunks) else None
        self._scales = scales if len(chunks) else None
        self._n = len(chunks)
        self._chunks = [chunk_from_dict(c) for c in chunks]
        self._row = {c.id: i for i, c in enumerate(self._chunks)}
        self._token = token
        if self.config.index == "hnsw" and self._n:
            ann = self._new_ann(matrix.shape[1])
            if token is not None and ann.read(file.with_name(self.ann_name), token, self._n):
                self._ann = ann
            else:  # missing, stale or unreadable: rebuild from the matrix, and save it
                self._build_ann()
                if token is not None:
                    self._save_ann(file.with_name(self.ann_name), token)
                else:  # a file with no token to tie a graph to: the next flush writes both
                    self._outdated = True

    def _save_ann(self, file: Path, token: str) -> None:
        """Save a graph rebuilt on open, if the folder takes it: a reader
        that cannot write keeps it in memory and rebuilds on the next open."""
        built = self._ann
        assert built is not None
        with contextlib.suppress(OSError):
            atomic_write(file, lambda handle: built.write(handle, token))

    def _write(self, handle: IO[bytes]) -> None:
        import numpy as np

        payload = json.dumps([chunk_to_dict(c) for c in self._chunks]).encode("utf-8")
        buffer = io.BytesIO()
        arrays = {"vectors": self._live(), "chunks": np.frombuffer(payload, dtype=np.uint8)}
        if self._token is not None:
            arrays["token"] = np.frombuffer(self._token.encode("ascii"), dtype=np.uint8)
        if arrays["vectors"].dtype == np.int8:
            scales = self._scales[: self._n] if self._scales is not None else np.zeros(0)
            arrays["scales"] = np.asarray(scales, dtype=np.float32)
        np.savez(buffer, **arrays)
        handle.write(buffer.getvalue())

    # -- the approximate index ---------------------------------------------
    def _new_ann(self, dim: int) -> AnnIndex:
        config = self.config
        return AnnIndex(
            dim=dim,
            metric=config.metric,
            dtype=graph_dtype(config.metric),
            connectivity=config.connectivity,
            expansion_add=config.expansion_add,
            expansion_search=config.expansion_search,
        )

    def _graph_rows(self, rows: np.ndarray | slice) -> np.ndarray:
        """Rows as the graph takes them: an int8 graph each row scaled to ±127
        (the int8 matrix's rows already are), a float16 graph the rows as
        float (int8 rows decoded)."""
        import numpy as np

        assert self._ann is not None
        held = self._live()[rows]
        if self._ann.spec["dtype"] == "i8":
            return held if held.dtype == np.int8 else _encode(held, "int8")[0]
        if held.dtype == np.int8:
            assert self._scales is not None
            return _decode(held, self._scales[: self._n][rows])
        return held

    def _build_ann(self) -> None:
        """A new graph of every live row."""
        self._ann = None
        if not self._n:
            return
        assert self._matrix is not None
        self._ann = self._new_ann(int(self._matrix.shape[1]))
        for start in range(0, self._n, _BLOCK_ROWS * 4):
            self._ann.append(self._graph_rows(slice(start, start + _BLOCK_ROWS * 4)))

    def _graph_query(self, q: np.ndarray) -> np.ndarray:
        """``q`` as the graph compares it: an int8 graph's rows are each
        scaled to ±127, so is the query (cosine does not mind the scale)."""
        if self._ann is not None and self._ann.spec["dtype"] == "i8":
            return _encode(q[None, :], "int8")[0][0]
        return q

    def _approximate(
        self, q: np.ndarray, k: int, mask: np.ndarray | None, allowed: int
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """Top ``k`` rows (of those ``mask`` allows) from the graph's
        candidates scored exactly, or None where exact search is the way."""
        assert self._ann is not None
        wanted = min(k, allowed)
        # the graph ranks on its coarser copy: twice the candidates, scored
        # exactly, find the true top k the graph ranked just below it
        count = math.ceil(wanted * _OVERSAMPLE * (1 if mask is None else self._n / allowed))
        query = self._graph_query(q)
        while count <= _MAX_CANDIDATES and count < allowed:
            rows = self._ann.search(query, count)
            if mask is not None:
                rows = rows[mask[rows]]
            if len(rows) >= wanted:
                scores = self._scores(q, rows)
                best = _top(scores, wanted)
                return rows[best], scores[best]
            count *= 4  # too few matched among the candidates: look wider
        return None

    # -- data --------------------------------------------------------------
    @property
    def dimension(self) -> int | None:
        return None if self._matrix is None else int(self._matrix.shape[1])

    def _live(self) -> np.ndarray:
        """The live rows as held: float32, float16 or int8 (see ``_scores``)."""
        import numpy as np

        if self._matrix is None:
            return np.zeros((0, 0), dtype=_dtype(self.config.precision))
        return self._matrix[: self._n]

    def _scores(self, q: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Each live row's (or each of ``rows``') score for the float32 query
        ``q`` (see ``_product``)."""
        matrix = self._live() if rows is None else self._live()[rows]
        scales = None
        if self._scales is not None:
            scales = self._scales[: self._n] if rows is None else self._scales[rows]
        return _product(matrix, scales, q)

    def _vectors(self, rows: np.ndarray) -> Sequence[np.ndarray]:
        """Rows ``rows`` as float32 vectors: views of a float32 matrix (no copy:
        the cheapest after a scan has left the rows out of the CPU caches),
        else one float32 copy of them all (dequantised when held as int8)."""
        import numpy as np

        assert self._matrix is not None
        if self._matrix.dtype == np.float32:
            matrix = self._matrix
            return [matrix[i] for i in rows.tolist()]
        value = self._matrix[rows].astype(np.float32)
        if self._scales is not None:
            value *= self._scales[rows][:, None]
        return value

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray | None = None) -> None:
        import numpy as np

        if vectors is None:
            raise StoreError("the memory store holds vectors: configure an embedder")
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(chunks):
            raise StoreError(
                f"memory store got {len(chunks)} chunks but vectors of shape {vectors.shape}"
            )
        if not len(chunks):
            return
        dim = vectors.shape[1]
        if self._matrix is not None and self._matrix.shape[1] != dim:
            raise DimensionMismatchError(
                f"memory store holds {self._matrix.shape[1]}-dimensional vectors, got {dim}: "
                "the embedder changed; run `ragloom index --rebuild`"
            )
        if self.config.metric == "cosine":
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors = vectors / np.where(norms == 0, 1.0, norms)
        vectors, scales = _encode(vectors, self.config.precision)
        # later duplicates in one call win, as with repeated upserts
        last: dict[str, int] = {c.id: i for i, c in enumerate(chunks)}
        new_rows = [i for cid, i in last.items() if cid not in self._row]
        self._reserve(self._n + len(new_rows), dim)
        assert self._matrix is not None
        first_new = self._n
        rewritten: list[int] = []
        for cid, i in last.items():
            row = self._row.get(cid)
            if row is None:
                row = self._n
                self._n += 1
                self._row[cid] = row
                self._chunks.append(chunks[i])
            else:
                self._chunks[row] = chunks[i]
                rewritten.append(row)
            self._matrix[row] = vectors[i]
            if scales is not None:
                self._scales[row] = scales[i]  # type: ignore[index]
        if self.config.index == "hnsw":
            if self._ann is None:
                self._build_ann()
            else:
                if rewritten:
                    moved = np.asarray(sorted(rewritten), dtype=np.intp)
                    self._ann.replace(moved, self._graph_rows(moved))
                if self._n > first_new:
                    self._ann.append(self._graph_rows(slice(first_new, self._n)))
        self._columns = self._own = None
        self._dirty = True

    def _reserve(self, rows: int, dim: int) -> None:
        import numpy as np

        dtype = _dtype(self.config.precision)
        if self._matrix is None:
            capacity = max(rows, 1024)
        elif rows > self._matrix.shape[0]:
            capacity = max(rows, 2 * self._matrix.shape[0])
        else:
            return
        grown = np.zeros((capacity, dim), dtype=dtype)
        scales = np.zeros(capacity, dtype=np.float32) if dtype == np.int8 else None
        if self._matrix is not None:
            grown[: self._n] = self._matrix[: self._n]
            if scales is not None and self._scales is not None:
                scales[: self._n] = self._scales[: self._n]
        self._matrix, self._scales = grown, scales

    def _mask(self, where: Filter) -> np.ndarray:
        """Row ``i`` matches ``where``: ``ragloom.filters.evaluate`` on numpy columns."""
        if self._columns is None:
            from ._columns import Columns

            self._columns = Columns([c.metadata for c in self._chunks])
        return self._columns.mask(where)

    def query(
        self,
        *,
        vector: np.ndarray | None = None,
        text: str | None = None,
        k: int = 10,
        where: Filter | None = None,
    ) -> list[Hit]:
        import numpy as np

        if vector is None:
            raise StoreError("the memory store answers vector queries: configure an embedder")
        if where is not None:
            check_supported(where, self.filter_operators, self.context.name or "memory")
        if self._n == 0 or k <= 0:
            return []
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        if q.shape[0] != self._matrix.shape[1]:  # type: ignore[union-attr]
            raise DimensionMismatchError(
                f"query vector has {q.shape[0]} dimensions, the memory store holds "
                f"{self._matrix.shape[1]}: the index was built with another embedder"  # type: ignore[union-attr]
            )
        if self.config.metric == "cosine":
            norm = math.sqrt(float(q @ q))
            if norm:
                q = q / norm
        own_filter, rest = self.context.filter, where
        if own_filter is not None:
            # what the caller asks beyond the store's own filter; called without
            # it (from Python, not through the pipeline), the store still answers
            # only within it, as bm25 does
            rest = beyond(where, own_filter)
            where = own_filter if rest is None else And((own_filter, rest))
        own, rest_mask = self._own_rows(), None
        if own is None:
            mask = None if where is None else self._mask(where)
        else:  # the store's own filter, found once, and what the query adds to it
            rest_mask = None if rest is None else self._mask(rest)
            mask = own.mask if rest_mask is None else own.mask & rest_mask
        allowed = self._n if mask is None else int(np.count_nonzero(mask))
        if allowed == 0:
            return []
        few = rest_mask is not None and allowed < _SUBSET_SHARE * self._n
        if own is not None and own.matrix is not None and not few:
            # the own rows, kept together: scan them alone (a selective query
            # filter takes the gather below instead)
            scores = _product(own.matrix, own.scales, q)
            if rest_mask is not None:
                scores[~rest_mask[own.rows]] = -np.inf
            best = _top(scores, min(k, allowed))
            return self._hits(own.rows[best], scores[best])
        found = None if self._ann is None else self._approximate(q, k, mask, allowed)
        if found is not None:
            top, values = found
        elif mask is None:
            scores = self._scores(q)
            top = _top(scores, k)
            values = scores[top]
        else:
            if allowed < _SUBSET_SHARE * self._n:
                # few matches: score only those rows (a gather and a small product)
                rows = np.flatnonzero(mask)
                local = self._scores(q, rows)
                best = _top(local, k)
                top, values = rows[best], local[best]
            else:
                scores = self._scores(q)
                scores[~mask] = -np.inf
                top = _top(scores, min(k, allowed))
                values = scores[top]
        return self._hits(top, values)

    def _hits(self, top: np.ndarray, values: np.ndarray) -> list[Hit]:
        name = self.context.name or "memory"
        chunks, vectors = self._chunks, self._vectors(top)
        return [
            Hit(chunk=chunks[i], score=score, store=name, scores={name: score}, vector=vector)
            for i, score, vector in zip(top.tolist(), values.tolist(), vectors)
        ]

    def _own_rows(self) -> _OwnRows | None:
        """The rows of the store's own filter (``Context.filter``, which every
        query's ``where`` starts with), when exact search answers it: found
        once after each write, not on every query."""
        own = self.context.filter
        if own is None or self._ann is not None or not self._n:
            return None
        if self._own is None:
            self._own = _OwnRows(self, self._mask(own))
        return self._own

    def delete(self, *, ids: Sequence[str] | None = None, where: Filter | None = None) -> int:
        import numpy as np

        if ids is None and where is None:
            raise StoreError("delete needs ids= or where=; to empty a store, rebuild the index")
        if where is not None:
            check_supported(where, self.filter_operators, self.context.name or "memory")
        doomed = np.zeros(self._n, dtype=bool)
        if ids is not None:
            doomed[[self._row[i] for i in ids if i in self._row]] = True
        if where is not None and self._n:
            doomed |= self._mask(where)
        deleted = int(np.count_nonzero(doomed))
        if not deleted:
            return 0
        keep = np.flatnonzero(~doomed)
        assert self._matrix is not None
        if self._ann is not None:
            self._ann.drop(doomed)
        # an emptied store forgets its width, so a rebuild may change embedders
        self._matrix = np.ascontiguousarray(self._matrix[keep]) if len(keep) else None
        if self._scales is not None:
            self._scales = self._scales[keep] if len(keep) else None
        self._chunks = [self._chunks[i] for i in keep.tolist()]
        self._n = len(self._chunks)
        self._row = {c.id: i for i, c in enumerate(self._chunks)}
        if self._ann is not None and (not self._n or self._ann.worn()):
            self._build_ann()  # empty, or more removed than left: a fresh graph
        self._columns = self._own = None
        self._dirty = True
        return deleted

    def count(self, where: Filter | None = None) -> int:
        import numpy as np

        if where is None:
            return self._n
        check_supported(where, self.filter_operators, self.context.name or "memory")
        return int(np.count_nonzero(self._mask(where))) if self._n else 0

    def ids(self, where: Filter | None = None) -> Iterator[str]:
        import numpy as np

        if where is None:
            return iter([c.id for c in self._chunks])
        check_supported(where, self.filter_operators, self.context.name or "memory")
        if not self._n:
            return iter([])
        return iter([self._chunks[i].id for i in np.flatnonzero(self._mask(where)).tolist()])


class _OwnRows:
    """The rows a store's own filter matches, and when they are at most half
    the store (``_OWN_COPY_SHARE``) a contiguous copy of their vectors, so a
    query scans only them; otherwise every row is scored and the rest masked."""

    def __init__(self, store: MemoryStore, mask: np.ndarray) -> None:
        import numpy as np

        self.mask = mask
        self.rows = np.flatnonzero(mask)
        self.matrix: np.ndarray | None = None
        self.scales: np.ndarray | None = None
        if len(self.rows) <= _OWN_COPY_SHARE * store._n:
            self.matrix = store._live()[self.rows]
            if store._scales is not None:
                self.scales = store._scales[self.rows]


def _product(matrix: np.ndarray, scales: np.ndarray | None, q: np.ndarray) -> np.ndarray:
    """``matrix @ q`` in float32: one product for float32 rows, else a block of
    rows at a time converted to float32 (int8 rows times their ``scales``)."""
    import numpy as np

    if matrix.dtype == np.float32:
        return matrix @ q
    out = np.empty(len(matrix), dtype=np.float32)
    for start in range(0, len(matrix), _BLOCK_ROWS):
        block = matrix[start : start + _BLOCK_ROWS].astype(np.float32)
        out[start : start + len(block)] = block @ q
    if scales is not None:
        out *= scales
    return out


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` highest scores, best first (ties in index order)."""
    import numpy as np

    n = len(scores)
    k = min(k, n)
    if k == n:
        top = np.arange(n)
    else:
        # the k-th best score as a threshold, then the rows at or above it:
        # half the time of argpartition, which writes an index of every row
        kth = np.partition(scores, n - k)[n - k]
        top = np.flatnonzero(scores >= kth)
        if len(top) > k:  # ties at the threshold: the first of them, in index order
            values = scores[top]
            above = top[values > kth]
            top = np.concatenate([above, top[values == kth][: k - len(above)]])
        elif len(top) < k:  # NaN scores, which partition sorts above every number
            return _top(np.where(np.isnan(scores), -np.inf, scores), k)
    return top[np.argsort(-scores[top], kind="stable")]


def _dtype(precision: Precision) -> np.dtype:
    import numpy as np

    return np.dtype({"float32": np.float32, "float16": np.float16, "int8": np.int8}[precision])


def _encode(vectors: np.ndarray, precision: Precision) -> tuple[np.ndarray, np.ndarray | None]:
    """float32 rows as held at ``precision``, with the int8 rows' scales
    (``row ≈ int8 row × scale``, the largest component mapped to ±127)."""
    import numpy as np

    if precision == "float32":
        return np.asarray(vectors, dtype=np.float32), None
    if precision == "float16":
        return np.asarray(vectors, dtype=np.float16), None
    peak = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, np.float32)
    scales = np.where(peak == 0, 1.0, peak / 127.0).astype(np.float32)
    quantised = np.rint(vectors / scales[:, None]).clip(-127, 127).astype(np.int8)
    return quantised, scales


def _decode(matrix: np.ndarray, scales: np.ndarray | None) -> np.ndarray:
    import numpy as np

    vectors = matrix.astype(np.float32)
    return vectors * scales[:, None] if scales is not None else vectors
