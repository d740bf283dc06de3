"""``memory``: exact cosine (or dot-product) search on a contiguous float32 matrix.

Fast enough for hundreds of thousands of chunks on one machine: a query is
one matrix-vector product and an ``argpartition``. Filters are evaluated on
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


class MemoryStore(FileStore):
    """Exact nearest-neighbour search in memory, persisted under the index directory."""

    capabilities = frozenset({"dense"})
    filter_operators = ALL_OPERATORS

    class Config(ComponentConfig):
        path: str | None = None
        """Directory for the store's file; default ``<index_dir>/<store name>``."""
        metric: Literal["cosine", "dot"] = "cosine"
        """``cosine`` normalises vectors on the way in; ``dot`` keeps them as given."""

    config: Config
    file_name = "memory.npz"

    def _reset(self) -> None:
        super()._reset()
        self._matrix: np.ndarray | None = None  # capacity rows; first _n are live
        self._n = 0
        self._chunks: list[Chunk] = []
        self._row: dict[str, int] = {}
        self._columns: Columns | None = None  # metadata columns, rebuilt lazily after writes

    # -- persistence -------------------------------------------------------
    def _load(self, file: Path) -> None:
        import numpy as np

        with np.load(file, allow_pickle=False) as data:
            matrix = np.ascontiguousarray(data["vectors"], dtype=np.float32)
            chunks = json.loads(bytes(data["chunks"]).decode("utf-8"))
        if matrix.ndim != 2 or matrix.shape[0] != len(chunks):
            raise ValueError(f"{len(chunks)} chunks but vectors of shape {matrix.shape}")
        # an empty store keeps no width: a rebuild may change embedders
        self._matrix = matrix if len(chunks) else None
        self._n = len(chunks)
        self._chunks = [chunk_from_dict(c) for c in chunks]
        self._row = {c.id: i for i, c in enumerate(self._chunks)}

    def _write(self, handle: IO[bytes]) -> None:
        import numpy as np

        payload = json.dumps([chunk_to_dict(c) for c in self._chunks]).encode("utf-8")
        buffer = io.BytesIO()
        np.savez(buffer, vectors=self._live(), chunks=np.frombuffer(payload, dtype=np.uint8))
        handle.write(buffer.getvalue())

    # -- data --------------------------------------------------------------
    @property
    def dimension(self) -> int | None:
        return None if self._matrix is None else int(self._matrix.shape[1])

    def _live(self) -> np.ndarray:
        import numpy as np

        if self._matrix is None:
            return np.zeros((0, 0), dtype=np.float32)
        return self._matrix[: self._n]

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
        self._columns = None
        self._dirty = True

    def _reserve(self, rows: int, dim: int) -> None:
        import numpy as np

        if self._matrix is None:
            self._matrix = np.zeros((max(rows, 1024), dim), dtype=np.float32)
        elif rows > self._matrix.shape[0]:
            grown = np.zeros((max(rows, 2 * self._matrix.shape[0]), dim), dtype=np.float32)
            grown[: self._n] = self._matrix[: self._n]
            self._matrix = grown

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
        live = self._live()
        if where is None:
            scores = live @ q
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
                local = live[rows] @ q
                best = _top(local, k)
                top, values = rows[best], local[best]
            else:
                scores = live @ q
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
                vector=live[i].copy(),
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
