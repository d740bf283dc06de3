"""``cross-encoder``: rerank hits by reading the query and each passage
together, with a sentence-transformers ``CrossEncoder`` (ms-marco MiniLM,
BGE rerankers, your own ``ragloom tune reranker`` output).

Each hit gets the model's score as ``scores["rerank"]`` (and as its
``score``); the scores of earlier stages (``fusion``, each store's) stay in
``scores`` so a result can be explained. Hits come back best first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import Field
from ragloom import ComponentConfig, Hit, Reranker
from ragloom.errors import RerankerError

from .lazy import LazyModel
from .models import load_failure_message, quiet_loading, resolve_model

if TYPE_CHECKING:
    from sentence_transformers import CrossEncoder

__all__ = ["CrossEncoderReranker"]


class CrossEncoderReranker(LazyModel["CrossEncoder"], Reranker):
    """Scores (query, passage) pairs with a cross-encoder and reorders the hits."""

    class Config(ComponentConfig):
        model: str = Field("cross-encoder/ms-marco-MiniLM-L6-v2", min_length=1)
        """A Hugging Face Hub name or a local directory (relative to the config file)."""
        top_k: int | None = Field(None, gt=0)
        """How many hits to keep; None keeps them all, reordered."""
        batch_size: int = Field(32, gt=0)
        """Pairs per forward pass."""
        max_length: int | None = Field(None, gt=0)
        """Tokens per (query, passage) pair beyond which it is truncated; None: the model's."""
        device: str | None = None
        """``cpu``, ``cuda``, ``mps``...; None picks the best available."""
        trust_remote_code: bool = False
        """Allow models that need their own code from the Hub (runs that code)."""

    config: Config

    def _load_model(self) -> CrossEncoder:
        cfg = self.config
        try:
            resolved = resolve_model(cfg.model, self.context.base_dir)
        except FileNotFoundError as exc:
            raise RerankerError(f"reranker.model: {exc}") from None
        from sentence_transformers import CrossEncoder

        try:
            with quiet_loading():
                model = CrossEncoder(
                    resolved.location,
                    max_length=cfg.max_length,
                    device=cfg.device,
                    trust_remote_code=cfg.trust_remote_code,
                    local_files_only=resolved.local_files_only,
                )
        except Exception as exc:
            raise RerankerError(load_failure_message(resolved, exc, "reranker.model")) from exc
        self._resolved = resolved
        return model

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        """The model's score of each (query, text) pair, in input order."""
        import numpy as np

        if not texts:
            return []
        model = self._load()
        try:
            raw = model.predict(
                [(query, text) for text in texts],
                batch_size=self.config.batch_size,
                show_progress_bar=False,
                convert_to_numpy=True,
            )
        except Exception as exc:
            raise RerankerError(
                f"reranking {len(texts)} passage(s) with {self.config.model!r} failed: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        values = np.asarray(raw, dtype=np.float64)
        if values.ndim == 2:  # a model with several labels: the last is "relevant"
            values = values[:, -1]
        return [float(v) for v in values.reshape(-1)]

    def rerank(self, query: str, hits: Sequence[Hit], top_k: int | None = None) -> list[Hit]:
        """``hits`` scored by the cross-encoder, best first, the best ``top_k``
        (the argument, else the config's, else all)."""
        hits = list(hits)
        if not hits:
            return []
        values = self.scores(query, [hit.chunk.text for hit in hits])
        # best first; equal scores keep the order they came in (fused rank)
        order = sorted(range(len(hits)), key=lambda i: -values[i])
        keep = top_k or self.config.top_k or len(hits)
        return [hits[i].with_score("rerank", values[i]) for i in order[:keep]]
