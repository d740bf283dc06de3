"""Retrieval evaluation: ranking metrics, test sets of questions, BEIR-format runs.

Three layers, each usable alone:

- :mod:`~ragloom.evaluation.metrics`: nDCG@k, Recall@k, MRR@k and P@k
  computed as ``trec_eval`` computes them (and so BEIR, through pytrec_eval),
  over a run ``{query id: {doc id: score}}`` and qrels
  ``{query id: {doc id: relevance grade}}``.
- :mod:`~ragloom.evaluation.cases`: a YAML file of questions, each with the
  sources retrieval must (and must not) find; :func:`run_cases` runs them
  against a pipeline (``ragloom eval FILE``).
- :mod:`~ragloom.evaluation.beir`: :func:`load_beir` reads a dataset folder
  (``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``);
  :func:`evaluate_beir` indexes the corpus with a pipeline config and scores
  its retrieval (``ragloom eval --beir DIR``).

    from ragloom.evaluation import evaluate_beir
    report = evaluate_beir(pipeline.to_config(), "data/scifact", "train")
    print(report.metrics["nDCG@10"], report.mean_query_ms)
"""

from __future__ import annotations

from .beir import BeirReport, default_beir_index_dir, evaluate_beir, load_beir
from .cases import CaseReport, CaseResult, EvalCase, load_cases, matches, run_cases
from .metrics import (
    METRICS,
    RELEVANT,
    MetricScores,
    Qrels,
    Run,
    evaluate_run,
    mrr_at_k,
    ndcg_at_k,
    precision_at_k,
    ranking,
    recall_at_k,
    score_run,
)

__all__ = [
    "METRICS",
    "RELEVANT",
    "BeirReport",
    "CaseReport",
    "CaseResult",
    "EvalCase",
    "MetricScores",
    "Qrels",
    "Run",
    "default_beir_index_dir",
    "evaluate_beir",
    "evaluate_run",
    "load_beir",
    "load_cases",
    "matches",
    "mrr_at_k",
    "ndcg_at_k",
    "precision_at_k",
    "ranking",
    "recall_at_k",
    "run_cases",
    "score_run",
]
