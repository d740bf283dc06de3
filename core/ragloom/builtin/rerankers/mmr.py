"""``mmr``: maximal marginal relevance (Carbonell & Goldstein, 1998).

Picks hits one at a time, each maximising
``lambda_mult * sim(query, hit) - (1 - lambda_mult) * max sim(hit, picked)``,
so near-duplicate passages do not crowd out the rest. Similarities are
cosines of the pipeline embedder's vectors: a hit's stored vector when its
store returned one, otherwise its text embedded now.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from ...components import ComponentConfig, Context, Embedder, Reranker
from ...errors import RerankerError
from ...types import Hit

if TYPE_CHECKING:
    import numpy as np

__all__ = ["MMRReranker"]


class MMRReranker(Reranker):
    """Diversify the fused hits with maximal marginal relevance."""

    needs: ClassVar[frozenset[str]] = frozenset({"embedder"})

    class Config(ComponentConfig):
        lambda_mult: float = Field(0.5, ge=0.0, le=1.0)
        """1.0 ranks by relevance alone; 0.0 by diversity alone."""
        top_k: int | None = Field(None, gt=0)
        """How many hits to keep; default: all of them, reordered."""

    config: Config

    def open(self, context: Context | None = None) -> None:
        super().open(context)
        embedder = self.context.services.get("embedder")
        if not isinstance(embedder, Embedder):
            raise RerankerError("the mmr reranker needs an embedder: configure `embedder:`")
        self._embedder = embedder

    def rerank(self, query: str, hits: Sequence[Hit], top_k: int | None = None) -> list[Hit]:
        import numpy as np

        hits = list(hits)
        if not hits:
            return []
        keep = min(len(hits), top_k or self.config.top_k or len(hits))
        vectors = self._vectors(hits)
        q = _unit(np.asarray(self._embedder.embed_query(query), dtype=np.float32)[None, :])[0]
        relevance = vectors @ q
        similarity = vectors @ vectors.T
        lam = self.config.lambda_mult
        picked: list[int] = []
        values: list[float] = []
        best_seen = np.full(len(hits), -np.inf, dtype=np.float32)
        remaining = np.ones(len(hits), dtype=bool)
        for _ in range(keep):
            redundancy = np.where(np.isfinite(best_seen), best_seen, 0.0) if picked else 0.0
            objective = lam * relevance - (1.0 - lam) * redundancy
            objective = np.where(remaining, objective, -np.inf)
            choice = int(np.argmax(objective))
            picked.append(choice)
            values.append(float(objective[choice]))
            remaining[choice] = False
            best_seen = np.maximum(best_seen, similarity[choice])
        return [hits[i].with_score("mmr", v) for i, v in zip(picked, values)]

    def _vectors(self, hits: list[Hit]) -> np.ndarray:
        import numpy as np

        dim = self._embedder.dimension
        out = np.zeros((len(hits), dim), dtype=np.float32)
        missing = []
        for i, hit in enumerate(hits):
            if hit.vector is not None and np.shape(hit.vector) == (dim,):
                out[i] = hit.vector
            else:
                missing.append(i)
        if missing:
            texts = [hits[i].chunk.text for i in missing]
            out[missing] = self._embedder.embed_documents(texts)
        return _unit(out)


def _unit(matrix: Any) -> np.ndarray:
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)
