"""The llamacpp generator and embedder against ragloom's contracts, with the
SmolLM2-135M-Instruct GGUF in process (real tokens, real streaming)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from ragloom.testing import EmbedderContract, GeneratorContract

from ragloom_llamacpp import LlamaCppEmbedder, LlamaCppGenerator


class TestLlamaCppGenerator(GeneratorContract):
    @pytest.fixture
    def generator_factory(self) -> Callable[..., LlamaCppGenerator]:
        return lambda **options: LlamaCppGenerator(**{"max_tokens": 64, **options})

    @pytest.fixture
    def broken_generator_factory(self) -> Callable[..., LlamaCppGenerator]:
        """A context window too small for the prompt: llama.cpp refuses the call."""
        return lambda **options: LlamaCppGenerator(n_ctx=64, max_tokens=16, **options)


class TestLlamaCppEmbedder(EmbedderContract):
    """SmolLM2's hidden states, mean-pooled (576 wide). Not semantic enough for
    SemanticEmbedderContract: a chat model this small is no retrieval model.
    Texts are cut at 128 tokens (``n_ctx``), to keep the long-text test short."""

    @pytest.fixture
    def embedder_factory(self, gguf: Any) -> Callable[..., LlamaCppEmbedder]:
        return lambda **options: LlamaCppEmbedder(
            **{"model_path": str(gguf), "n_ctx": 128, **options}
        )

    @pytest.fixture
    def fingerprint_variants(self) -> list[dict[str, Any]]:
        return [{"normalize": False}, {"n_ctx": 64}]

    @pytest.fixture
    def fingerprint_invariants(self) -> list[dict[str, Any]]:
        return [{"batch_size": 2}, {"n_threads": 1}, {"model_path": "smollm2"}]
