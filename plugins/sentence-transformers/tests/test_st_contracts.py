"""The ragloom.testing contracts, run on the tiny random models (fast) and on
the packaged all-MiniLM-L6-v2 (real meaning), loaded by the real code path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ragloom.testing.embedders import EmbedderContract
from ragloom.testing.rerankers import RerankerContract

from ragloom_sentence_transformers import CrossEncoderReranker, SentenceTransformersEmbedder


class TestTinyEmbedder(EmbedderContract):
    prefix_options = ("query_prefix", "document_prefix")

    @pytest.fixture
    def embedder_factory(self, tiny_model: Path):
        return lambda **options: SentenceTransformersEmbedder(
            **{"model": str(tiny_model), "device": "cpu", **options}
        )

    @pytest.fixture
    def fingerprint_variants(self, other_tiny_model: Path) -> list[dict[str, Any]]:
        return [
            {"model": str(other_tiny_model)},
            {"query_prefix": "query: "},
            {"document_prefix": "passage: "},
            {"normalize": False},
            {"truncate_dim": 16},
            {"precision": "int8"},
            {"max_seq_length": 32},
        ]

    @pytest.fixture
    def fingerprint_invariants(self) -> list[dict[str, Any]]:
        return [{"batch_size": 3}, {"device": None}]


class TestTinyEmbedderQuantized(TestTinyEmbedder):
    """int8 codes: still deterministic, order-preserving, batch-independent."""

    same_vector = 2e-3  # one quantization step may flip with padding noise

    @pytest.fixture
    def embedder_factory(self, tiny_model: Path):
        return lambda **options: SentenceTransformersEmbedder(
            **{"model": str(tiny_model), "device": "cpu", "precision": "int8", **options}
        )

    @pytest.fixture
    def fingerprint_variants(self, other_tiny_model: Path) -> list[dict[str, Any]]:
        return [{"model": str(other_tiny_model)}, {"precision": "binary"}]

    def test_query_prefix_reaches_queries_only(self, make_embedder) -> None:
        pytest.skip("prefix equivalence is checked on float32 vectors")

    def test_document_prefix_reaches_documents_only(self, make_embedder) -> None:
        pytest.skip("prefix equivalence is checked on float32 vectors")


@pytest.mark.slow
class TestMiniLMEmbedder(EmbedderContract):
    semantic = True
    prefix_options = ("query_prefix", "document_prefix")

    @pytest.fixture
    def embedder_factory(self, minilm: Path):
        return lambda **options: SentenceTransformersEmbedder(
            **{"model": "all-MiniLM-L6-v2", "device": "cpu", **options}
        )

    @pytest.fixture
    def fingerprint_variants(self, tiny_model: Path) -> list[dict[str, Any]]:
        return [{"model": str(tiny_model)}, {"query_prefix": "query: "}, {"truncate_dim": 128}]


class TestTinyCrossEncoder(RerankerContract):
    @pytest.fixture
    def reranker_factory(self, tiny_cross_encoder: Path):
        return lambda **options: CrossEncoderReranker(
            **{"model": str(tiny_cross_encoder), "device": "cpu", **options}
        )


@pytest.fixture(scope="module")
def minilm_cross_encoder(minilm: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """all-MiniLM-L6-v2 with a fresh 1-label head: a real-size cross-encoder
    (its scores mean nothing until trained)."""
    import torch
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)
    model = CrossEncoder(str(minilm), num_labels=1, device="cpu", local_files_only=True)
    out = tmp_path_factory.mktemp("minilm-cross-encoder") / "model"
    model.save(str(out))
    return out


@pytest.mark.slow
class TestMiniLMCrossEncoder(RerankerContract):
    @pytest.fixture
    def reranker_factory(self, minilm_cross_encoder: Path):
        return lambda **options: CrossEncoderReranker(
            **{"model": str(minilm_cross_encoder), "device": "cpu", **options}
        )
