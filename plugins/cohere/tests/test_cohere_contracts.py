"""The cohere reranker and embedder against ragloom's contracts, on a loopback Cohere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from ragloom.testing import EmbedderContract, RerankerContract, SemanticRerankerContract
from ragloom.testing.servers import FakeCohere

from ragloom_cohere import CohereEmbedder, CohereReranker


class TestCohereReranker(RerankerContract, SemanticRerankerContract):
    """Semantic too: the fake scores by shared words, so the answer ranks first."""

    @pytest.fixture
    def reranker_factory(self, cohere_server: FakeCohere) -> Callable[..., CohereReranker]:
        return lambda **options: CohereReranker(base_url=cohere_server.url, **options)


class TestCohereRerankerSplit(RerankerContract):
    """Two documents per request: every ranking is merged from several requests."""

    @pytest.fixture
    def reranker_factory(self, cohere_server: FakeCohere) -> Callable[..., CohereReranker]:
        return lambda **options: CohereReranker(
            base_url=cohere_server.url, max_documents_per_request=2, **options
        )


class TestCohereEmbedder(EmbedderContract):
    @pytest.fixture
    def embedder_factory(self, cohere_server: FakeCohere) -> Callable[..., CohereEmbedder]:
        return lambda **options: CohereEmbedder(
            base_url=cohere_server.url, **{"model": "embed-english-light-v3.0", **options}
        )

    @pytest.fixture
    def fingerprint_variants(self) -> list[dict[str, Any]]:
        return [{"model": "embed-english-v3.0"}, {"model": "embed-v4.0", "output_dimension": 256}]

    @pytest.fixture
    def fingerprint_invariants(self) -> list[dict[str, Any]]:
        return [{"batch_size": 2}, {"timeout": 5.0}, {"max_retries": 1}, {"api_key": "other"}]


class TestCohereEmbedderV4(EmbedderContract):
    """embed-v4.0 at a chosen output_dimension, three texts per request."""

    @pytest.fixture
    def embedder_factory(self, cohere_server: FakeCohere) -> Callable[..., CohereEmbedder]:
        return lambda **options: CohereEmbedder(
            base_url=cohere_server.url, **{"output_dimension": 256, "batch_size": 3, **options}
        )

    @pytest.fixture
    def fingerprint_variants(self) -> list[dict[str, Any]]:
        return [{"output_dimension": 512}]
