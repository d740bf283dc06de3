"""The cohere reranker and embedder against Cohere's live API.

Run with ``CO_API_KEY`` set: ``pytest -m integration plugins/cohere/tests``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from ragloom.testing import (
    RerankerContract,
    SemanticEmbedderContract,
    SemanticRerankerContract,
)

from ragloom_cohere import CohereEmbedder, CohereReranker

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not (os.environ.get("CO_API_KEY") or os.environ.get("COHERE_API_KEY")),
        reason="needs Cohere's API: set CO_API_KEY, then run "
        "`pytest -m integration plugins/cohere/tests`",
    ),
]


class TestLiveCohereReranker(RerankerContract, SemanticRerankerContract):
    @pytest.fixture
    def reranker_factory(self) -> Callable[..., CohereReranker]:
        return lambda **options: CohereReranker(**options)


class TestLiveCohereEmbedder(SemanticEmbedderContract):
    same_vector = 1e-2  # the service's floats may differ in the last digits between calls

    @pytest.fixture
    def embedder_factory(self) -> Callable[..., CohereEmbedder]:
        return lambda **options: CohereEmbedder(**{"output_dimension": 256, **options})

    @pytest.fixture
    def fingerprint_variants(self) -> list[dict[str, Any]]:
        return [{"output_dimension": 512}, {"model": "embed-english-light-v3.0",
                                            "output_dimension": None}]  # fmt: skip
