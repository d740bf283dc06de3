"""Ranking metrics computed as ``trec_eval`` computes them (and so BEIR, through
pytrec_eval), over a run ``{query id: {doc id: score}}`` and qrels
``{query id: {doc id: relevance grade}}``.

Every metric is averaged over the queries of the qrels; a query the run lacks
scores 0 (``trec_eval -c``). Documents are ranked by score, ties broken by
document id descending, as trec_eval does, so a run's own order never matters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

__all__ = [
    "METRICS",
    "RELEVANT",
    "MetricScores",
    "Qrels",
    "Run",
    "evaluate_run",
    "mrr_at_k",
    "ndcg_at_k",
    "precision_at_k",
    "ranking",
    "recall_at_k",
    "score_run",
]

Run = Mapping[str, Mapping[str, float]]
"""Scores by query id and document id: ``{"q1": {"d7": 12.5, "d3": 9.1}}``."""

Qrels = Mapping[str, Mapping[str, int]]
"""Relevance judgements by query id and document id: ``{"q1": {"d3": 2, "d9": 0}}``."""

RELEVANT = 1
"""A judgement of at least this is relevant (trec_eval's default ``relevance_level``)."""


@dataclass(frozen=True)
class MetricScores:
    """One metric over a set of queries: ``per_query`` (every query in the
    qrels) and their ``mean``."""

    name: str
    per_query: Mapping[str, float]

    @property
    def mean(self) -> float:
        values = list(self.per_query.values())
        return math.fsum(values) / len(values) if values else 0.0

    @property
    def standard_error(self) -> float:
        """The standard error of ``mean``: the queries' sample standard
        deviation over the square root of their number (0 for fewer than two).
        Two runs over the same queries whose means differ by less than about
        twice this are not told apart by these queries."""
        values = list(self.per_query.values())
        if len(values) < 2:
            return 0.0
        mean = math.fsum(values) / len(values)
        variance = math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)
        return math.sqrt(variance / len(values))


def ranking(scores: Mapping[str, float]) -> list[str]:
    """Document ids in trec_eval's order: score descending, ties broken by
    document id descending (so a run's own order does not matter)."""
    return [doc for doc, _ in sorted(scores.items(), key=lambda x: (x[1], x[0]), reverse=True)]


def _score(
    name: str,
    run: Run,
    qrels: Qrels,
    k: int,
    metric: Callable[[list[str], Mapping[str, int]], float],
) -> MetricScores:
    if k <= 0:
        raise ValueError(f"k must be at least 1, not {k}")
    per_query = {
        qid: metric(ranking(run[qid])[:k] if qid in run else [], judged)
        for qid, judged in qrels.items()
    }
    return MetricScores(f"{name}@{k}", per_query)


def ndcg_at_k(run: Run, qrels: Qrels, k: int) -> MetricScores:
    """nDCG@k (trec_eval ``ndcg_cut_k``): gain is the relevance grade (grades
    below 0 count as 0), discount ``log2(rank + 1)``, normalised by the DCG of
    the ideal ranking of the judged documents cut at ``k``. A query with no
    relevant document, or missing from the run, scores 0."""

    def ndcg(top: list[str], judged: Mapping[str, int]) -> float:
        ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
        idcg = math.fsum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        if idcg == 0:
            return 0.0
        dcg = math.fsum(max(judged.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(top))
        return dcg / idcg

    return _score("nDCG", run, qrels, k, ndcg)


def recall_at_k(run: Run, qrels: Qrels, k: int) -> MetricScores:
    """Recall@k (trec_eval ``recall_k``): relevant documents in the top ``k``
    over all relevant documents of the query (0 when it has none)."""

    def recall(top: list[str], judged: Mapping[str, int]) -> float:
        relevant = sum(1 for g in judged.values() if g >= RELEVANT)
        if not relevant:
            return 0.0
        return sum(1 for d in top if judged.get(d, 0) >= RELEVANT) / relevant

    return _score("Recall", run, qrels, k, recall)


def precision_at_k(run: Run, qrels: Qrels, k: int) -> MetricScores:
    """Precision@k (trec_eval ``P_k``): relevant documents in the top ``k``
    over ``k``, even when the run holds fewer than ``k`` documents."""

    def precision(top: list[str], judged: Mapping[str, int]) -> float:
        return sum(1 for d in top if judged.get(d, 0) >= RELEVANT) / k

    return _score("P", run, qrels, k, precision)


def mrr_at_k(run: Run, qrels: Qrels, k: int) -> MetricScores:
    """MRR@k: the reciprocal rank of the first relevant document within the
    top ``k``, 0 if there is none (trec_eval's ``recip_rank`` on the run cut
    to its top ``k``)."""

    def reciprocal_rank(top: list[str], judged: Mapping[str, int]) -> float:
        for rank, doc in enumerate(top, start=1):
            if judged.get(doc, 0) >= RELEVANT:
                return 1.0 / rank
        return 0.0

    return _score("MRR", run, qrels, k, reciprocal_rank)


METRICS: dict[str, Callable[[Run, Qrels, int], MetricScores]] = {
    "nDCG": ndcg_at_k,
    "MRR": mrr_at_k,
    "Recall": recall_at_k,
    "P": precision_at_k,
}


def score_run(
    run: Run, qrels: Qrels, k_values: Iterable[int] = (10, 100)
) -> dict[str, MetricScores]:
    """Every metric at every ``k``, per query: ``{"nDCG@10": MetricScores, ...}``."""
    return {
        f"{name}@{k}": metric(run, qrels, k) for name, metric in METRICS.items() for k in k_values
    }


def evaluate_run(run: Run, qrels: Qrels, k_values: Iterable[int] = (10, 100)) -> dict[str, float]:
    """The mean of every metric at every ``k``: ``{"nDCG@10": ..., "Recall@100": ...}``,
    over every query in ``qrels`` (queries the run lacks score 0)."""
    return {name: scores.mean for name, scores in score_run(run, qrels, k_values).items()}
