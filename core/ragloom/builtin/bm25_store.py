"""``bm25``: keyword search with rank-bm25 (BM25Okapi, BM25L or BM25Plus).

Filters are applied before ranking: chunks that do not match never compete
for the top k. Persisted atomically to ``<index_dir>/<name>/bm25.json``; the
BM25 statistics are rebuilt lazily after writes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..components import ComponentConfig, Context, Store
from ..errors import StoreError
from ..filters import ALL_OPERATORS, Filter, check_supported, evaluate
from ..types import Chunk, Hit
from ._persist import atomic_write, chunk_from_dict, chunk_to_dict

if TYPE_CHECKING:
    import numpy as np

__all__ = ["BM25Store", "tokenize"]

_TOKEN = re.compile(r"\w+", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lowercased word tokens: the analyzer used at index and query time."""
    return _TOKEN.findall(text.lower())


class BM25Store(Store):
    """Okapi BM25 over chunk texts, via rank-bm25."""

    capabilities = frozenset({"text"})
    filter_operators = ALL_OPERATORS

    class Config(ComponentConfig):
        path: str | None = None
        """Directory for the store's file; default ``<index_dir>/<store name>``."""
        variant: Literal["okapi", "l", "plus"] = "okapi"
        """rank-bm25 class: BM25Okapi, BM25L or BM25Plus."""
        k1: float = 1.5
        b: float = 0.75

    def __init__(self, config: ComponentConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._chunks: dict[str, Chunk] = {}
        self._tokens: dict[str, list[str]] = {}
        self._model: Any = None
        self._order: list[str] = []
        self._dirty = False
        self._file: Path | None = None

    def open(self, context: Context | None = None) -> None:
        super().open(context)
        directory = (
            self.context.resolve(self.config.path)
            if self.config.path
            else self.context.index_dir / (self.context.name or "bm25")
        )
        self._file = directory / "bm25.json"
        if self._file.exists():
            try:
                data = json.loads(self._file.read_text("utf-8"))
            except (OSError, ValueError) as exc:
                raise StoreError(
                    f"bm25 store file {self._file} is unreadable ({exc}); "
                    "run `ragloom index --rebuild` to recreate it"
                ) from exc
            for item in data["chunks"]:
                chunk = chunk_from_dict(item)
                self._chunks[chunk.id] = chunk
                self._tokens[chunk.id] = tokenize(chunk.text)

    def close(self) -> None:
        if self._dirty:
            self.flush()

    def flush(self) -> None:
        if self._file is None:
            return
        payload = json.dumps({"chunks": [chunk_to_dict(c) for c in self._chunks.values()]})
        atomic_write(self._file, lambda handle: handle.write(payload.encode("utf-8")))
        self._dirty = False

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray | None = None) -> None:
        for chunk in chunks:
            self._chunks[chunk.id] = chunk
            self._tokens[chunk.id] = tokenize(chunk.text)
        if chunks:
            self._model = None
            self._dirty = True

    def _ensure_model(self) -> Any:
        if self._model is None and self._chunks:
            import rank_bm25

            cls = {"okapi": rank_bm25.BM25Okapi, "l": rank_bm25.BM25L, "plus": rank_bm25.BM25Plus}
            self._order = list(self._chunks)
            corpus = [self._tokens[cid] or [""] for cid in self._order]
            self._model = cls[self.config.variant](corpus, k1=self.config.k1, b=self.config.b)
        return self._model

    def query(
        self,
        *,
        vector: np.ndarray | None = None,
        text: str | None = None,
        k: int = 10,
        where: Filter | None = None,
    ) -> list[Hit]:
        import numpy as np

        if text is None:
            raise StoreError("the bm25 store answers text queries")
        if where is not None:
            check_supported(where, self.filter_operators, self.context.name or "bm25")
        terms = tokenize(text)
        model = self._ensure_model()
        if model is None or not terms or k <= 0:
            return []
        scores = np.asarray(model.get_scores(terms), dtype=np.float64)
        if where is not None:
            mask = np.fromiter(
                (evaluate(where, self._chunks[cid].metadata) for cid in self._order),
                dtype=bool,
                count=len(self._order),
            )
            scores = np.where(mask, scores, -np.inf)
        # only chunks sharing at least one term with the query are hits
        query_terms = set(terms)
        has_term = np.fromiter(
            (bool(query_terms.intersection(self._tokens[cid])) for cid in self._order),
            dtype=bool,
            count=len(self._order),
        )
        scores = np.where(has_term, scores, -np.inf)
        candidates = int(np.isfinite(scores).sum())
        k = min(k, candidates)
        if k == 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        top = top[np.argsort(-scores[top], kind="stable")]
        name = self.context.name or "bm25"
        return [
            Hit(
                chunk=self._chunks[self._order[i]],
                score=float(scores[i]),
                store=name,
                scores={name: float(scores[i])},
            )
            for i in top
            if np.isfinite(scores[i])
        ]

    def delete(self, *, ids: Sequence[str] | None = None, where: Filter | None = None) -> int:
        if ids is None and where is None:
            raise StoreError("delete needs ids= or where=; to empty a store, rebuild the index")
        doomed = {i for i in (ids or ()) if i in self._chunks}
        if where is not None:
            doomed |= {cid for cid, c in self._chunks.items() if evaluate(where, c.metadata)}
        for cid in doomed:
            del self._chunks[cid]
            del self._tokens[cid]
        if doomed:
            self._model = None
            self._dirty = True
        return len(doomed)

    def count(self, where: Filter | None = None) -> int:
        if where is None:
            return len(self._chunks)
        return sum(1 for c in self._chunks.values() if evaluate(where, c.metadata))
