"""The ragloom.testing contracts, run on the tiny random models (fast) and on
the packaged all-MiniLM-L6-v2 (real meaning), loaded by the real code path.

Each class subclasses exactly the capability contracts that apply, so no
test is skipped: the random models get no semantic contract.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ragloom import Context
from ragloom.builtin.rerankers.mmr import MMRReranker
from ragloom.testing.embedders import PrefixEmbedderContract, SemanticEmbedderContract
from ragloom.testing.rerankers import (
    RerankerContract,
    SemanticRerankerContract,
    TopKRerankerContract,
)

from ragloom_sentence_transformers import CrossEncoderReranker, SentenceTransformersEmbedder


class TestTinyEmbedder(PrefixEmbedderContract):
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
    """int8 codes: still deterministic, order-preserving, batch-independent,
    and prefixed alike (quantization ranges are fixed, not the batch's)."""

    same_vector = 2e-3  # one quantization step may flip with padding noise

    @pytest.fixture
    def embedder_factory(self, tiny_model: Path):
        return lambda **options: SentenceTransformersEmbedder(
            **{"model": str(tiny_model), "device": "cpu", "precision": "int8", **options}
        )

    @pytest.fixture
    def fingerprint_variants(self, other_tiny_model: Path) -> list[dict[str, Any]]:
        return [{"model": str(other_tiny_model)}, {"precision": "binary"}]


@pytest.mark.slow
class TestMiniLMEmbedder(PrefixEmbedderContract, SemanticEmbedderContract):
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


@pytest.mark.slow
class TestMMROnMiniLM(TopKRerankerContract, SemanticRerankerContract):
    """The built-in ``mmr`` reranker on all-MiniLM-L6-v2 vectors: its first
    pick is the most relevant hit, but its scores (marginal worth when
    picked) need not descend, so not ``OrderedRerankerContract``."""

    score_key = "mmr"

    @pytest.fixture
    def services(self, minilm: Path, tmp_path: Path) -> Iterator[dict[str, Any]]:
        embedder = SentenceTransformersEmbedder(model="all-MiniLM-L6-v2", device="cpu")
        embedder.open(Context(index_dir=tmp_path, base_dir=tmp_path, name="embedder"))
        yield {"embedder": embedder}
        embedder.close()

    @pytest.fixture
    def reranker_factory(self):
        return lambda **options: MMRReranker(**options)
