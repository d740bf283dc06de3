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
    normalised with its mean ± 3 sample standard deviations as the bounds
    (not clipped: an outlying top score stays on top), then summed with
    per-list weights; a list of one hit, or of equal scores, counts 0.5 each.
    Less sensitive than min-max to one outlying top score.

Fusion adds up each chunk's contributions (``by="chunk"``) or each
document's (``by="document"``): then each list keeps only its best hit of a
document (lists are best first) before the scores are normalised or ranked,
a document's contributions are summed whichever chunk earned them, and the
fused hit is the copy that contributed most (the earlier list's on a tie):
one hit per document.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

from .types import Hit

__all__ = [
    "FUSE_BY",
    "FUSION_METHODS",
    "best_per_document",
    "distribution_based_fusion",
    "distribution_scores",
    "fuse",
    "minmax_scores",
    "reciprocal_rank_fusion",
    "weighted_fusion",
]

FUSION_METHODS = ("rrf", "weighted", "dbsf")
FUSE_BY = ("chunk", "document")


def best_per_document(hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` (best first) with only the first, best hit of each document."""
    seen: set[str] = set()
    out = []
    for hit in hits:
        doc = hit.chunk.document_id
        if doc not in seen:
            seen.add(doc)
            out.append(hit)
    return out


def _combine(
    ranked: Sequence[Sequence[Hit]],
    weights: Sequence[float] | None,
    contribution: Callable[[Sequence[Hit]], list[float]],
    limit: int | None = None,
    by: str = "chunk",
) -> list[Hit]:
    """Sum each list's per-hit contributions by chunk id (or, ``by="document"``,
    by document id, each list cut to its best hit per document); best first,
    ties in first-seen order. A chunk's per-store scores from every list are
    kept. Only the best ``limit`` hits are built (all when None): the rest of
    the candidates cost a dict entry, not an object."""
    weights = list(weights) if weights is not None else [1.0] * len(ranked)
    if by == "document":
        return _combine_documents(ranked, weights, contribution, limit)
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


def _combine_documents(
    ranked: Sequence[Sequence[Hit]],
    weights: Sequence[float],
    contribution: Callable[[Sequence[Hit]], list[float]],
    limit: int | None,
) -> list[Hit]:
    """``_combine`` by document: the copy that contributed most leads its entry."""
    found: dict[str, list[Any]] = {}  # document id -> [summed score, best share, copies...]
    for hits, weight in zip(ranked, weights):
        hits = best_per_document(hits)
        for hit, value in zip(hits, contribution(hits)):
            share = weight * value
            entry = found.get(hit.chunk.document_id)
            if entry is None:
                found[hit.chunk.document_id] = [share, share, hit]
                continue
            entry[0] += share
            if share > entry[1]:
                entry[1] = share
                entry.insert(2, hit)
            else:
                entry.append(hit)
    order = sorted(found.values(), key=itemgetter(0), reverse=True)  # stable: ties first-seen
    if limit is not None:
        order = order[:limit]
    return [_fused([entry[0], *entry[2:]]) for entry in order]


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
        if vector is None:  # another chunk's (fusion by document) is not this one's
            same = (h.vector for h in hits if h.vector is not None and h.chunk.id == first.chunk.id)
            vector = next(same, None)
    score = float(score)
    merged["fusion"] = score
    return Hit(first.chunk, score, first.store, merged, vector)


def reciprocal_rank_fusion(
    ranked: Sequence[Sequence[Hit]],
    *,
    k: int = 60,
    weights: Sequence[float] | None = None,
    limit: int | None = None,
    by: str = "chunk",
) -> list[Hit]:
    """Fuse ranked lists by reciprocal rank."""
    return _combine(
        ranked, weights, lambda hits: [1.0 / (k + r) for r in range(1, len(hits) + 1)], limit, by
    )


def _minmax(hits: Sequence[Hit]) -> list[float]:
    return minmax_scores([h.score for h in hits])


def _distribution(hits: Sequence[Hit]) -> list[float]:
    return distribution_scores([h.score for h in hits])


def minmax_scores(values: Sequence[float]) -> list[float]:
    """``weighted``'s normalisation of one list's scores: min-max to [0, 1]
    over its finite scores, 1.0 each when they are all equal; NaN and -inf
    count 0, +inf 1."""
    if not values:
        return []
    if math.isfinite(sum(values)):  # the usual case: one C loop to know
        low, high = min(values), max(values)
        span = high - low
        return [1.0 if span == 0 else (v - low) / span for v in values]
    finite = [v for v in values if math.isfinite(v)]
    low, high = (min(finite), max(finite)) if finite else (0.0, 0.0)
    span = high - low
    return [
        (1.0 if span == 0 else (v - low) / span) if math.isfinite(v) else float(v == math.inf)
        for v in values
    ]


def distribution_scores(values: Sequence[float]) -> list[float]:
    """``dbsf``'s normalisation of one list's scores, Qdrant's: ``(score -
    low) / (high - low)`` with the list's mean ∓ 3 sample standard deviations
    as ``low`` and ``high``, not clipped (a top score beyond ``high`` stays
    above the others: clipped to 1.0, a deep list's best hits tied), and 0.5
    for a list of one hit or of equal scores (a spread within rounding is
    none). The statistics are of the finite scores; NaN and -inf count 0,
    +inf as much as the list's best."""
    finite = [v for v in values if math.isfinite(v)]
    n = len(finite)
    mean = sum(finite) / n if n else 0.0
    std = math.sqrt(sum((v - mean) ** 2 for v in finite) / (n - 1)) if n > 1 else 0.0
    if std <= 1e-12 * max(1.0, abs(mean)):
        return [0.5 if math.isfinite(v) or v == math.inf else 0.0 for v in values]
    low = mean - 3 * std
    top = (max(finite) - low) / (6 * std)
    return [
        (v - low) / (6 * std) if math.isfinite(v) else (top if v == math.inf else 0.0)
        for v in values
    ]


def weighted_fusion(
    ranked: Sequence[Sequence[Hit]],
    *,
    weights: Sequence[float] | None = None,
    limit: int | None = None,
    by: str = "chunk",
) -> list[Hit]:
    """Fuse lists by the weighted sum of min-max normalised scores."""
    return _combine(ranked, weights, _minmax, limit, by)


def distribution_based_fusion(
    ranked: Sequence[Sequence[Hit]],
    *,
    weights: Sequence[float] | None = None,
    limit: int | None = None,
    by: str = "chunk",
) -> list[Hit]:
    """Fuse lists by the weighted sum of mean ± 3σ normalised scores."""
    return _combine(ranked, weights, _distribution, limit, by)


def fuse(
    ranked: Sequence[Sequence[Hit]],
    *,
    method: str = "rrf",
    k: int = 60,
    weights: Sequence[float] | None = None,
    limit: int | None = None,
    by: str = "chunk",
) -> list[Hit]:
    """Fuse with ``method`` (``rrf``, ``weighted`` or ``dbsf``), adding up each
    chunk's or each document's contributions (``by``); the best ``limit``
    hits (all when None). A single list with no weights passes through
    unchanged (by document: its best hit per document)."""
    if by not in FUSE_BY:
        raise ValueError(f"unknown fusion unit {by!r}; use one of {', '.join(FUSE_BY)}")
    if len(ranked) == 1 and weights is None:
        hits = ranked[0] if by == "chunk" else best_per_document(ranked[0])
        return list(hits[:limit])
    if method == "rrf":
        return reciprocal_rank_fusion(ranked, k=k, weights=weights, limit=limit, by=by)
    if method == "weighted":
        return weighted_fusion(ranked, weights=weights, limit=limit, by=by)
    if method == "dbsf":
        return distribution_based_fusion(ranked, weights=weights, limit=limit, by=by)
    raise ValueError(f"unknown fusion method {method!r}; use one of {', '.join(FUSION_METHODS)}")
