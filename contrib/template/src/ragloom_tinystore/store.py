"""The ``tinystore`` store: exact cosine search over chunks kept in a JSON file."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragloom import Chunk, ComponentConfig, Context, Hit, Store
from ragloom.errors import DimensionMismatchError, StoreError
from ragloom.filters import ALL_OPERATORS, Filter, check_supported, evaluate

if TYPE_CHECKING:
    import numpy as np


class TinyStore(Store):
    """Chunks and vectors in ``<index_dir>/<name>/tiny.json``."""

    capabilities = frozenset({"dense"})
    filter_operators = ALL_OPERATORS  # evaluate() applies every operator

    class Config(ComponentConfig):
        path: str | None = None  # default: <index_dir>/<store name>

    config: Config

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._rows: dict[str, tuple[Chunk, list[float]]] = {}
        self._file: Path | None = None
        self._dirty = False  # holds writes its file lacks

    def open(self, context: Context | None = None) -> None:
        super().open(context)
        folder = self.context.store_dir(self.config.path, "tinystore")
        self._file = folder / "tiny.json"
        if self.context.fresh:  # --rebuild: start empty, read nothing, and
            self._dirty = True  # let flush() replace whatever the file holds
        else:
            self._rows = self._read()

    def _read(self) -> dict[str, tuple[Chunk, list[float]]]:
        assert self._file is not None
        if not self._file.exists():
            return {}
        try:
            items = json.loads(self._file.read_text("utf-8"))
            return {i["chunk"]["id"]: (Chunk(**i["chunk"]), i["vector"]) for i in items}
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreError(
                f"tinystore file {self._file} is unreadable ({exc}); "
                "run `ragloom index --rebuild` to recreate it"
            ) from exc

    def refresh(self) -> None:
        # another process flushed: read its file again (a big store would first
        # compare the file's modification time with the one it read)
        if self._file is not None:
            self._rows = self._read()
            self._dirty = False

    def flush(self) -> None:
        if self._file is None or not self._dirty:
            return  # never write back a copy that may be stale
        self._file.parent.mkdir(parents=True, exist_ok=True)
        rows = [{"chunk": dataclasses.asdict(c), "vector": v} for c, v in self._rows.values()]
        # write a temporary file, then rename it: readers see the old file or the new
        temporary = self._file.with_name(f".{self._file.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(rows), "utf-8")
        os.replace(temporary, self._file)
        self._dirty = False

    def close(self) -> None:
        self.flush()

    def _check_width(self, width: int) -> None:
        held = len(next(iter(self._rows.values()))[1]) if self._rows else width
        if width != held:
            raise DimensionMismatchError(
                f"tinystore holds {held}-dimensional vectors, got {width}: "
                "the embedder changed; run `ragloom index --rebuild`"
            )

    def _check_filter(self, where: Filter | None) -> None:
        # refuse what filter_operators does not declare; never drop a condition
        check_supported(where, self.filter_operators, self.context.name or "tinystore")

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray | None = None) -> None:
        if vectors is None:
            raise StoreError("tinystore holds vectors: configure an embedder")
        if len(chunks):
            self._check_width(len(vectors[0]))  # before writing anything
        for chunk, vector in zip(chunks, vectors, strict=True):
            self._rows[chunk.id] = (chunk, [float(x) for x in vector])
            self._dirty = True

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
            raise StoreError("tinystore answers vector queries: configure an embedder")
        self._check_filter(where)
        if not self._rows or k <= 0:
            return []
        self._check_width(len(vector))
        # the filter first: only matching chunks compete for the top k
        rows = [(c, v) for c, v in self._rows.values() if evaluate(where, c.metadata)]
        if not rows:
            return []
        matrix = np.asarray([v for _, v in rows], dtype=np.float32)
        query = np.asarray(vector, dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
        scores = matrix @ query / np.where(norms == 0, 1.0, norms)
        name = self.context.name
        # Hit.vector: the stored vector, which the mmr reranker uses
        return [
            Hit(chunk=rows[i][0], score=float(scores[i]), store=name,
                scores={name: float(scores[i])}, vector=matrix[i])
            for i in np.argsort(-scores, kind="stable")[:k]
        ]

    def delete(self, *, ids: Sequence[str] | None = None, where: Filter | None = None) -> int:
        if ids is None and where is None:
            raise StoreError("delete needs ids= or where=")
        self._check_filter(where)
        doomed = {i for i in ids or () if i in self._rows}
        if where is not None:
            doomed |= {i for i, (c, _) in self._rows.items() if evaluate(where, c.metadata)}
        for i in doomed:
            del self._rows[i]
        self._dirty = self._dirty or bool(doomed)
        return len(doomed)

    def count(self, where: Filter | None = None) -> int:
        self._check_filter(where)
        return sum(1 for c, _ in self._rows.values() if evaluate(where, c.metadata))

    def ids(self, where: Filter | None = None) -> Iterator[str]:
        self._check_filter(where)
        return iter([i for i, (c, _) in self._rows.items() if evaluate(where, c.metadata)])
