"""``memory``: exact cosine (or dot-product) search on a contiguous float32 matrix.

Fast enough for hundreds of thousands of chunks on one machine: a query is
one matrix-vector product and an ``argpartition``. ``precision: float16``
(half the memory) or ``int8`` (a quarter: each row scaled to [-127, 127]
with its own float32 scale) keeps the matrix in that type and scores it a
block of rows at a time converted to float32, so memory drops by that
factor at some cost in speed and a little in recall (``make bench``). Filters are evaluated on
numpy columns of the metadata (``_columns``), built per field the first time a
filter names it and dropped on every write; a selective filter scores only
the matching rows. Persisted atomically to ``<index_dir>/<name>/memory.npz``
on ``flush()``/``close()``; ``refresh()`` reloads the file when another
process replaced it (and empties the store when it was deleted).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Literal

from ...components import ComponentConfig
from ...errors import DimensionMismatchError, StoreError
from ...filters import ALL_OPERATORS, Filter, check_supported
from ...types import Chunk, Hit
from ._persist import FileStore, chunk_from_dict, chunk_to_dict

if TYPE_CHECKING:
    import numpy as np

    from ._columns import Columns

__all__ = ["MemoryStore"]

# a filter matching fewer rows than this share is scored on those rows only
_SUBSET_SHARE = 0.25
# rows converted to float32 at a time when the matrix is float16 or int8
_BLOCK_ROWS = 16_384
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

    config: Config
    file_name = "memory.npz"

    def _reset(self) -> None:
        super()._reset()
        self._matrix: np.ndarray | None = None  # capacity rows; first _n are live
        self._scales: np.ndarray | None = None  # int8 only: each row's float32 scale
        self._n = 0
        self._chunks: list[Chunk] = []
        self._row: dict[str, int] = {}
        self._columns: Columns | None = None  # metadata columns, rebuilt lazily after writes

    # -- persistence -------------------------------------------------------
    def _load(self, file: Path) -> None:
        import numpy as np

        with np.load(file, allow_pickle=False) as data:
            matrix = np.ascontiguousarray(data["vectors"])
            scales = np.asarray(data["scales"], np.float32) if "scales" in data.files else None
            chunks = json.loads(bytes(data["chunks"]).decode("utf-8"))
        if matrix.ndim != 2 or matrix.shape[0] != len(chunks):
            raise ValueError(f"{len(chunks)} chunks but vectors of shape {matrix.shape}")
        if matrix.dtype == np.int8 and (scales is None or scales.shape != (len(chunks),)):
            raise ValueError(f"int8 vectors of shape {matrix.shape} without their scales")
        if matrix.dtype not in (np.float32, np.float16, np.int8):
            raise ValueError(f"vectors of type {matrix.dtype}")
        if matrix.dtype != _dtype(self.config.precision):  # the config changed: convert
            matrix, scales = _encode(_decode(matrix, scales), self.config.precision)
        # an empty store keeps no width: a rebuild may change embedders
        self._matrix = matrix if len(chunks) else None
        self._scales = scales if len(chunks) else None
        self._n = len(chunks)
        self._chunks = [chunk_from_dict(c) for c in chunks]
        self._row = {c.id: i for i, c in enumerate(self._chunks)}

    def _write(self, handle: IO[bytes]) -> None:
        import numpy as np

        payload = json.dumps([chunk_to_dict(c) for c in self._chunks]).encode("utf-8")
        buffer = io.BytesIO()
        arrays = {"vectors": self._live(), "chunks": np.frombuffer(payload, dtype=np.uint8)}
        if arrays["vectors"].dtype == np.int8:
            scales = self._scales[: self._n] if self._scales is not None else np.zeros(0)
            arrays["scales"] = np.asarray(scales, dtype=np.float32)
        np.savez(buffer, **arrays)
        handle.write(buffer.getvalue())

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
        ``q``: one product for float32, else a block of rows at a time
        converted to float32 (int8 rows times their scales)."""
        import numpy as np

        matrix = self._live() if rows is None else self._live()[rows]
        if matrix.dtype == np.float32:
            return matrix @ q
        scales = None
        if self._scales is not None:
            scales = self._scales[: self._n] if rows is None else self._scales[rows]
        out = np.empty(len(matrix), dtype=np.float32)
        for start in range(0, len(matrix), _BLOCK_ROWS):
            block = matrix[start : start + _BLOCK_ROWS].astype(np.float32)
            out[start : start + len(block)] = block @ q
        if scales is not None:
            out *= scales
        return out

    def _vector(self, row: int) -> np.ndarray:
        """Row ``row`` as float32 (dequantised when held as int8)."""
        import numpy as np

        value = np.asarray(self._matrix[row], dtype=np.float32)  # type: ignore[index]
        if self._scales is not None:
            value = value * self._scales[row]
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
        for cid, i in last.items():
            row = self._row.get(cid)
            if row is None:
                row = self._n
                self._n += 1
                self._row[cid] = row
                self._chunks.append(chunks[i])
            else:
                self._chunks[row] = chunks[i]
            self._matrix[row] = vectors[i]
            if scales is not None:
                self._scales[row] = scales[i]  # type: ignore[index]
        self._columns = None
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
            norm = float(np.linalg.norm(q))
            if norm:
                q = q / norm
        if where is None:
            scores = self._scores(q)
            top = _top(scores, k)
            values = scores[top]
        else:
            mask = self._mask(where)
            allowed = int(np.count_nonzero(mask))
            if allowed == 0:
                return []
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
        name = self.context.name or "memory"
        return [
            Hit(
                chunk=self._chunks[i],
                score=score,
                store=name,
                scores={name: score},
                vector=self._vector(i),
            )
            for i, score in zip(top.tolist(), values.tolist())
        ]

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
        # an emptied store forgets its width, so a rebuild may change embedders
        self._matrix = np.ascontiguousarray(self._matrix[keep]) if len(keep) else None
        if self._scales is not None:
            self._scales = self._scales[keep] if len(keep) else None
        self._chunks = [self._chunks[i] for i in keep.tolist()]
        self._n = len(self._chunks)
        self._row = {c.id: i for i, c in enumerate(self._chunks)}
        self._columns = None
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


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` highest scores, best first (ties in index order)."""
    import numpy as np

    n = len(scores)
    k = min(k, n)
    top = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
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
