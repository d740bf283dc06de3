"""The openai embedder and generator against OpenAI's live API.

Run with ``OPENAI_API_KEY`` set: ``pytest -m integration plugins/openai/tests``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from ragloom.testing import GeneratorContract, SemanticEmbedderContract

from ragloom_openai import OpenAIEmbedder, OpenAIGenerator

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not os.environ.get("OPENAI_API_KEY"),
        reason="needs OpenAI's API: set OPENAI_API_KEY, then run "
        "`pytest -m integration plugins/openai/tests`",
    ),
]


class TestLiveOpenAIEmbedder(SemanticEmbedderContract):
    same_vector = 1e-2  # the service's floats may differ in the last digits between calls

    @pytest.fixture
    def embedder_factory(self) -> Callable[..., OpenAIEmbedder]:
        return lambda **options: OpenAIEmbedder(**{"dimensions": 256, **options})

    @pytest.fixture
    def fingerprint_variants(self) -> list[dict[str, Any]]:
        return [{"dimensions": 512}, {"model": "text-embedding-3-large", "dimensions": 256}]


class TestLiveOpenAIGenerator(GeneratorContract):
    @pytest.fixture
    def generator_factory(self) -> Callable[..., OpenAIGenerator]:
        return lambda **options: OpenAIGenerator(**{"max_tokens": 200, **options})

    @pytest.fixture
    def broken_generator_factory(self) -> Callable[..., OpenAIGenerator]:
        return lambda **options: OpenAIGenerator(model="no-such-model-xyz", **options)
