"""Fusing ranked lists from several stores (and several queries) into one.

``rrf``
    reciprocal rank fusion: score = sum of weight / (k + rank), k=60 by
    default (Cormack et al., 2009). Uses ranks only, so scores on different
    scales (cosine, BM25) need no calibration.
``weighted``
    each list's scores min-max normalised to [0, 1], then summed with
    per-list weights (a hit missing from a list adds 0 for it).
``dbsf``
    distribution-based score fusion (as in Qdrant): each list's scores
    normalised with its mean ± 3 standard deviations as the bounds, clipped
    to [0, 1], then summed with per-list weights. Less sensitive than
    min-max to one outlying top score.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

from .types import Hit

__all__ = [
    "FUSION_METHODS",
    "distribution_based_fusion",
    "fuse",
    "reciprocal_rank_fusion",
    "weighted_fusion",
]

FUSION_METHODS = ("rrf", "weighted", "dbsf")


def _combine(
    ranked: Sequence[Sequence[Hit]],
    weights: Sequence[float] | None,
    contribution: Callable[[Sequence[Hit]], list[float]],
) -> list[Hit]:
    """Sum each list's per-hit contributions by chunk id; best first, ties in
    first-seen order. A chunk's per-store scores from every list are kept."""
    weights = list(weights) if weights is not None else [1.0] * len(ranked)
    scores: dict[str, float] = {}
    first: dict[str, Hit] = {}
    for hits, weight in zip(ranked, weights):
        for hit, value in zip(hits, contribution(hits)):
            cid = hit.chunk.id
            scores[cid] = scores.get(cid, 0.0) + weight * value
            first[cid] = _merge(first[cid], hit) if cid in first else hit
    order = sorted(scores, key=lambda cid: -scores[cid])
    return [first[cid].with_score("fusion", scores[cid]) for cid in order]


def reciprocal_rank_fusion(
    ranked: Sequence[Sequence[Hit]], *, k: int = 60, weights: Sequence[float] | None = None
) -> list[Hit]:
    """Fuse ranked lists by reciprocal rank."""
    return _combine(ranked, weights, lambda hits: [1.0 / (k + r) for r in range(1, len(hits) + 1)])


def _minmax(hits: Sequence[Hit]) -> list[float]:
    values = [h.score for h in hits]
    if not values:
        return []
    low, high = min(values), max(values)
    span = high - low
    return [1.0 if span == 0 else (v - low) / span for v in values]


def _distribution(hits: Sequence[Hit]) -> list[float]:
    values = [h.score for h in hits]
    if not values:
        return []
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    if std == 0:
        return [1.0] * len(values)
    low, high = mean - 3 * std, mean + 3 * std
    return [min(1.0, max(0.0, (v - low) / (high - low))) for v in values]


def weighted_fusion(
    ranked: Sequence[Sequence[Hit]], *, weights: Sequence[float] | None = None
) -> list[Hit]:
    """Fuse lists by the weighted sum of min-max normalised scores."""
    return _combine(ranked, weights, _minmax)


def distribution_based_fusion(
    ranked: Sequence[Sequence[Hit]], *, weights: Sequence[float] | None = None
) -> list[Hit]:
    """Fuse lists by the weighted sum of mean ± 3σ normalised scores."""
    return _combine(ranked, weights, _distribution)


def _merge(a: Hit, b: Hit) -> Hit:
    """``a`` with ``b``'s per-store scores added (and ``b``'s vector if ``a`` has none)."""
    vector = a.vector if a.vector is not None else b.vector
    return replace(a, scores={**b.scores, **a.scores}, vector=vector)


def fuse(
    ranked: Sequence[Sequence[Hit]],
    *,
    method: str = "rrf",
    k: int = 60,
    weights: Sequence[float] | None = None,
) -> list[Hit]:
    """Fuse with ``method`` (``rrf``, ``weighted`` or ``dbsf``). A single list
    with no weights passes through unchanged."""
    if len(ranked) == 1 and weights is None:
        return list(ranked[0])
    if method == "rrf":
        return reciprocal_rank_fusion(ranked, k=k, weights=weights)
    if method == "weighted":
        return weighted_fusion(ranked, weights=weights)
    if method == "dbsf":
        return distribution_based_fusion(ranked, weights=weights)
    raise ValueError(f"unknown fusion method {method!r}; use one of {', '.join(FUSION_METHODS)}")
