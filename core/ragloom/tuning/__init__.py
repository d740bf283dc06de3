"""Tuning a pipeline on judged questions: held-out splits and fusion settings.

- :mod:`~ragloom.tuning.split`: :func:`split_beir` divides a BEIR folder's
  judged queries into a tuning part and a held-out part (``ragloom tune split``),
  written as qrels files so that ``ragloom eval --beir DIR --split heldout``
  measures only questions the tuning never saw.
- :mod:`~ragloom.tuning.fusion`: :func:`tune_fusion` learns the fusion method,
  its constant, the store weights and each store's candidate ``k`` on a
  split (``ragloom tune fusion``) and returns them as config changes.
- :mod:`~ragloom.tuning.corpus`: :func:`corpus_vectors` gives a corpus's chunk
  vectors under a config (from the embedding cache), for training a query
  encoder against them (``ragloom tune embedder --query-only``).

Model training (``ragloom tune embedder``, ``ragloom tune reranker``) needs
torch and lives in the ragloom-sentence-transformers plugin, which adds its
commands to the ``tune`` group.
"""

from __future__ import annotations

from .corpus import CorpusVectors, corpus_vectors
from .fusion import FusionChoice, FusionReport, apply_choice, tune_fusion
from .split import SplitReport, split_beir, split_queries

__all__ = [
    "CorpusVectors",
    "FusionChoice",
    "FusionReport",
    "SplitReport",
    "apply_choice",
    "corpus_vectors",
    "split_beir",
    "split_queries",
    "tune_fusion",
]
