"""Fusing ranked lists from several stores (and several queries) into one.

``rrf``: reciprocal rank fusion, score = sum of weight / (k + rank), k=60 by
default (Cormack et al., 2009). ``weighted``: each list's scores min-max
normalised to [0, 1], then summed with per-list weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .types import Hit

__all__ = ["fuse", "reciprocal_rank_fusion", "weighted_fusion"]


def reciprocal_rank_fusion(
    ranked: Sequence[Sequence[Hit]], *, k: int = 60, weights: Sequence[float] | None = None
) -> list[Hit]:
    """Fuse ranked lists by reciprocal rank; ties keep first-seen order."""
    weights = list(weights) if weights is not None else [1.0] * len(ranked)
    scores: dict[str, float] = {}
    first: dict[str, Hit] = {}
    for hits, weight in zip(ranked, weights):
        for rank, hit in enumerate(hits, start=1):
            cid = hit.chunk.id
            scores[cid] = scores.get(cid, 0.0) + weight / (k + rank)
            first[cid] = _merge(first[cid], hit) if cid in first else hit
    order = sorted(scores, key=lambda cid: -scores[cid])
    return [first[cid].with_score("fusion", scores[cid]) for cid in order]


def weighted_fusion(
    ranked: Sequence[Sequence[Hit]], *, weights: Sequence[float] | None = None
) -> list[Hit]:
    """Fuse lists by weighted sum of min-max normalised scores."""
    weights = list(weights) if weights is not None else [1.0] * len(ranked)
    scores: dict[str, float] = {}
    first: dict[str, Hit] = {}
    for hits, weight in zip(ranked, weights):
        if not hits:
            continue
        values = [h.score for h in hits]
        low, high = min(values), max(values)
        span = high - low
        for hit in hits:
            norm = 1.0 if span == 0 else (hit.score - low) / span
            cid = hit.chunk.id
            scores[cid] = scores.get(cid, 0.0) + weight * norm
            first[cid] = _merge(first[cid], hit) if cid in first else hit
    order = sorted(scores, key=lambda cid: -scores[cid])
    return [first[cid].with_score("fusion", scores[cid]) for cid in order]


def _merge(a: Hit, b: Hit) -> Hit:
    """``a`` with ``b``'s per-store scores added (and ``b``'s vector if ``a`` has none)."""
    return replace(
        a, scores={**b.scores, **a.scores}, vector=a.vector if a.vector is not None else b.vector
    )


def fuse(
    ranked: Sequence[Sequence[Hit]],
    *,
    method: str = "rrf",
    k: int = 60,
    weights: Sequence[float] | None = None,
) -> list[Hit]:
    """Fuse with ``method`` ``rrf`` or ``weighted``. One list passes through as is."""
    if len(ranked) == 1 and weights is None:
        return list(ranked[0])
    if method == "rrf":
        return reciprocal_rank_fusion(ranked, k=k, weights=weights)
    if method == "weighted":
        return weighted_fusion(ranked, weights=weights)
    raise ValueError(f"unknown fusion method {method!r}; use 'rrf' or 'weighted'")
