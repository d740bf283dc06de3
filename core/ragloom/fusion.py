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
from operator import itemgetter
from typing import Any

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
    limit: int | None = None,
) -> list[Hit]:
    """Sum each list's per-hit contributions by chunk id; best first, ties in
    first-seen order. A chunk's per-store scores from every list are kept.
    Only the best ``limit`` hits are built (all when None): the rest of the
    candidates cost a dict entry, not an object."""
    weights = list(weights) if weights is not None else [1.0] * len(ranked)
    found: dict[str, list[Any]] = {}  # chunk id -> [summed score, each list's copy...]
    for hits, weight in zip(ranked, weights):
        for hit, value in zip(hits, contribution(hits)):
            entry = found.get(hit.chunk.id)
            if entry is None:
                found[hit.chunk.id] = [weight * value, hit]
            else:
                entry[0] += weight * value
                entry.append(hit)
    order = sorted(found.values(), key=itemgetter(0), reverse=True)  # stable: ties first-seen
    if limit is not None:
        order = order[:limit]
    return [_fused(entry) for entry in order]


def _fused(entry: list[Any]) -> Hit:
    """One hit from every list's copy of a chunk (``entry``: the fusion score,
    then the copies): the first-seen copy, with the per-store scores of all
    (the earlier list's on a clash), the first vector any of them carries,
    and the fusion score."""
    score, first, *hits = entry
    merged = dict(first.scores)
    vector = first.vector
    if hits:
        for hit in reversed(hits):
            merged.update(hit.scores)
        merged.update(first.scores)
        if vector is None:
            vector = next((h.vector for h in hits if h.vector is not None), None)
    score = float(score)
    merged["fusion"] = score
    return Hit(first.chunk, score, first.store, merged, vector)


def reciprocal_rank_fusion(
    ranked: Sequence[Sequence[Hit]],
    *,
    k: int = 60,
    weights: Sequence[float] | None = None,
    limit: int | None = None,
) -> list[Hit]:
    """Fuse ranked lists by reciprocal rank."""
    return _combine(
        ranked, weights, lambda hits: [1.0 / (k + r) for r in range(1, len(hits) + 1)], limit
    )


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
    ranked: Sequence[Sequence[Hit]],
    *,
    weights: Sequence[float] | None = None,
    limit: int | None = None,
) -> list[Hit]:
    """Fuse lists by the weighted sum of min-max normalised scores."""
    return _combine(ranked, weights, _minmax, limit)


def distribution_based_fusion(
    ranked: Sequence[Sequence[Hit]],
    *,
    weights: Sequence[float] | None = None,
    limit: int | None = None,
) -> list[Hit]:
    """Fuse lists by the weighted sum of mean ± 3σ normalised scores."""
    return _combine(ranked, weights, _distribution, limit)


def fuse(
    ranked: Sequence[Sequence[Hit]],
    *,
    method: str = "rrf",
    k: int = 60,
    weights: Sequence[float] | None = None,
    limit: int | None = None,
) -> list[Hit]:
    """Fuse with ``method`` (``rrf``, ``weighted`` or ``dbsf``); the best
    ``limit`` hits (all when None). A single list with no weights passes
    through unchanged."""
    if len(ranked) == 1 and weights is None:
        return list(ranked[0][:limit])
    if method == "rrf":
        return reciprocal_rank_fusion(ranked, k=k, weights=weights, limit=limit)
    if method == "weighted":
        return weighted_fusion(ranked, weights=weights, limit=limit)
    if method == "dbsf":
        return distribution_based_fusion(ranked, weights=weights, limit=limit)
    raise ValueError(f"unknown fusion method {method!r}; use one of {', '.join(FUSION_METHODS)}")
