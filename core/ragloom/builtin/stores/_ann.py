"""The memory store's optional approximate index: an HNSW graph (usearch)
over the store's rows, kept beside ``memory.npz`` in ``memory.ann``.

The graph only proposes candidates; the memory store scores them exactly on
its own matrix, so a hit's score is the one exact search would give it.

Rows move when the store deletes (the matrix is compacted), so the graph
knows rows by *keys*: ``keys[row]`` is row ``row``'s key, new rows get keys
above every key in use and compaction keeps the order, so ``keys`` is
always ascending and a key's row is a binary search. A rewritten row keeps
its key (removed from the graph and added again).

The file is ``MAGIC``, one JSON line (the store file's token, rows, spec),
the keys, then usearch's own serialisation. The store writes it before
``memory.npz`` and records the same token in both: after a crash between
the two writes, or anything else that makes them disagree, the tokens or
the row counts differ and the graph is rebuilt from the matrix on open.
"""

from __future__ import annotations

import json
import mmap
import zlib
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ...errors import StoreError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["MISSING_USEARCH", "AnnIndex", "graph_dtype", "import_usearch"]

MAGIC = b"RAGLOOM-ANN 1\n"
MISSING_USEARCH = (
    "the memory store's `index: hnsw` needs usearch, which is not installed: "
    "pip install 'ragloom[ann]' (or set `index: exact`)"
)
# rows added to the graph per call, so a large build reports progress in steps
_ADD_BATCH = 65_536
_PARALLEL_ADD = 16_384
"""Batches of fewer rows are added to the graph on one thread."""


def import_usearch() -> Any:
    """The ``usearch.index`` module, or a ``StoreError`` saying what to install."""
    try:
        from usearch import index
    except ImportError as exc:
        raise StoreError(MISSING_USEARCH) from exc
    return index


def graph_dtype(metric: str) -> str:
    """The type the graph holds its copy of the vectors in (usearch's name).

    The graph only proposes candidates, which the store then scores exactly
    on its own matrix, so its copy can be coarser than the matrix: ``i8``
    for cosine whatever the store's precision (each row scaled to ±127, a
    scale cosine ignores: a quarter of float32's memory, and the distances
    that decide a search's speed are computed on a quarter of the bytes),
    ``f16`` for a dot product, where a per-row scale would change the
    ranking. The store's precision does not change it."""
    return "i8" if metric == "cosine" else "f16"


class AnnIndex:
    """An HNSW graph of a matrix's rows; see the module docstring."""

    def __init__(
        self,
        *,
        dim: int,
        metric: str,
        dtype: str,
        connectivity: int,
        expansion_add: int,
        expansion_search: int,
    ) -> None:
        import numpy as np

        usearch = import_usearch()
        self.spec = {"dim": dim, "metric": metric, "dtype": dtype, "connectivity": connectivity}
        self._expansion = (expansion_add, expansion_search)
        self._graph = usearch.Index(
            ndim=dim,
            metric="cos" if metric == "cosine" else "ip",
            dtype=dtype,
            connectivity=connectivity,
            expansion_add=expansion_add,
            expansion_search=expansion_search,
        )
        self.keys = np.zeros(0, dtype=np.uint64)  # row -> key, ascending
        self._next = 0
        self.removed = 0  # rows removed from the graph since it was built

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def expansion_search(self) -> int:
        return int(self._graph.expansion_search)

    # -- writes ------------------------------------------------------------
    def append(self, vectors: np.ndarray) -> None:
        """Add rows after the last one."""
        import numpy as np

        keys = np.arange(self._next, self._next + len(vectors), dtype=np.uint64)
        self._add(keys, vectors)
        self.keys = np.concatenate([self.keys, keys])
        self._next += len(vectors)

    def replace(self, rows: np.ndarray, vectors: np.ndarray) -> None:
        """Rows ``rows`` now hold ``vectors``."""
        keys = self.keys[rows]
        self._graph.remove(keys)
        self.removed += len(keys)
        self._add(keys, vectors)

    def drop(self, doomed: np.ndarray) -> None:
        """Forget the rows marked in the boolean ``doomed``; the rest move up."""
        self._graph.remove(self.keys[doomed])
        self.removed += int(doomed.sum())
        self.keys = self.keys[~doomed]

    def worn(self) -> bool:
        """More rows removed since the build than are left: rebuild it."""
        return self.removed > max(len(self.keys), 1_000)

    def _add(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        for start in range(0, len(keys), _ADD_BATCH):
            stop = start + _ADD_BATCH
            # a small batch (an index run's upserts, a small corpus) is added
            # on one thread: the same graph every time, and as fast; inserted
            # by threads racing on a busy machine, its recall varied
            threads = 1 if len(keys[start:stop]) < _PARALLEL_ADD else 0
            self._graph.add(keys[start:stop], vectors[start:stop], threads=threads)

    # -- reads -------------------------------------------------------------
    def search(self, query: np.ndarray, count: int) -> np.ndarray:
        """The rows of (about) the ``count`` nearest neighbours of ``query``,
        nearest first, as the graph ranks them."""
        import numpy as np

        found = self._graph.search(query, count, threads=1)
        keys = np.asarray(found.keys, dtype=np.uint64)
        rows = np.searchsorted(self.keys, keys)
        rows = np.minimum(rows, len(self.keys) - 1)
        return rows[self.keys[rows] == keys]

    # -- files -------------------------------------------------------------
    def write(self, handle: IO[bytes], token: str) -> None:
        keys, graph = self.keys.tobytes(), self._graph.save()
        header = {
            "token": token,
            "rows": len(self.keys),
            "next": self._next,
            "crc32": zlib.crc32(graph, zlib.crc32(keys)),
            **self.spec,
        }
        handle.write(MAGIC + json.dumps(header).encode("utf-8") + b"\n")
        handle.write(keys)
        handle.write(graph)

    def read(self, file: Path, token: str, rows: int) -> bool:
        """Load ``file`` if it was written with ``token`` for ``rows`` rows and
        this spec; False (and nothing loaded) if it is missing or disagrees."""
        try:
            with open(file, "rb") as handle:
                mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # missing, or empty
            return False
        try:
            with memoryview(mapped) as view:
                loaded = self._load(view, token, rows)
        except Exception:  # whatever a damaged file makes fail: it is rebuilt
            loaded = False
        finally:
            mapped.close()
        if not loaded:
            self._graph.reset()
        return loaded

    def _load(self, view: memoryview, token: str, rows: int) -> bool:
        import numpy as np

        if bytes(view[: len(MAGIC)]) != MAGIC:
            return False
        end = bytes(view[: 64 * 1024]).find(b"\n", len(MAGIC))
        header = json.loads(bytes(view[len(MAGIC) : end]))
        if header.get("token") != token or header.get("rows") != rows:
            return False
        if any(header.get(name) != value for name, value in self.spec.items()):
            return False
        with view[end + 1 :] as body:
            if zlib.crc32(body) != header.get("crc32"):
                return False
            keys = np.frombuffer(body, dtype=np.uint64, count=rows).copy()
            with body[keys.nbytes :] as graph:
                self._graph.load(graph)
        if len(self._graph) != rows or not bool(np.all(self._graph.contains(keys))):
            return False
        self._graph.expansion_add, self._graph.expansion_search = self._expansion
        self.keys, self._next = keys, int(header["next"])
        return True
