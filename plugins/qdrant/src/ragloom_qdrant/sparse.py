"""``sparse: bm25``: BM25 as sparse vectors that Qdrant scores with its IDF modifier.

A chunk's text goes through ragloom's ``Analyzer`` (the ``bm25`` store's:
lowercase, split, fold accents, drop stopwords, stem); each term becomes an
index (CRC-32 of its UTF-8 bytes) whose value is BM25's term-frequency part,

    tf / (tf + k1 * (1 - b + b * length / avg_len)),

``length`` the chunk's number of terms. A query holds each of its terms with
its count. Qdrant multiplies by each term's IDF, computed over the
collection at query time, ``ln(1 + (N - n + 0.5) / (n + 0.5))``: together,
Lucene's BM25 (bm25s's ``lucene`` method, the ``bm25`` store's default), with
``avg_len`` fixed when the chunk is written instead of recomputed.
"""

from __future__ import annotations

import zlib
from collections import Counter
from typing import Any

from ragloom.analysis import Analyzer, AnalyzerConfig

__all__ = ["BM25Vectors"]


class BM25Vectors:
    """Sparse BM25 vectors for documents and queries."""

    def __init__(self, analyzer: AnalyzerConfig, *, k1: float, b: float, avg_len: float) -> None:
        self.analyzer = Analyzer(analyzer)
        self.k1, self.b, self.avg_len = k1, b, avg_len

    def settings(self) -> dict[str, Any]:
        """What decides the vectors; kept in the collection's manifest, and a
        collection written under other settings is refused."""
        return {
            "model": "bm25",
            "analyzer": self.analyzer.fingerprint(),
            "k1": self.k1,
            "b": self.b,
            "avg_len": self.avg_len,
            "term_ids": "crc32",
        }

    @staticmethod
    def _term_ids(terms: list[str]) -> list[int]:
        return [zlib.crc32(t.encode("utf-8", "surrogatepass")) for t in terms]

    def document(self, text: str) -> tuple[list[int], list[float]]:
        terms = self.analyzer.analyze(text)
        counts = Counter(self._term_ids(terms))
        norm = self.k1 * (1 - self.b + self.b * len(terms) / self.avg_len)
        indices = sorted(counts)
        return indices, [counts[i] / (counts[i] + norm) for i in indices]

    def query(self, text: str) -> tuple[list[int], list[float]]:
        counts = Counter(self._term_ids(self.analyzer.analyze(text)))
        indices = sorted(counts)
        return indices, [float(counts[i]) for i in indices]
