"""The built-in embedder and reranker pass the same contracts as plugins."""

from __future__ import annotations

import pytest
from ragloom.builtin.embedders.hash import HashEmbedder
from ragloom.builtin.rerankers.mmr import MMRReranker
from ragloom.testing import EmbedderContract
from ragloom.testing.rerankers import TopKRerankerContract


class TestHashEmbedder(EmbedderContract):
    @pytest.fixture
    def embedder_factory(self):
        return lambda **options: HashEmbedder(**{"dimension": 256, **options})

    @pytest.fixture
    def fingerprint_variants(self):
        return [
            {"dimension": 128},
            {"ngram_range": [1, 1]},
            {"char_ngrams": 3},
            {"lowercase": False},
        ]


class TestMMRReranker(TopKRerankerContract):
    score_key = "mmr"

    @pytest.fixture
    def reranker_factory(self):
        return lambda **options: MMRReranker(**options)

    @pytest.fixture
    def services(self):
        return {"embedder": HashEmbedder(dimension=256)}
