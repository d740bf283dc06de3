"""``EmbedderContract`` alone (no capability contract mixed in) catches an
embedder whose vectors do not tell texts apart: all zeros (which ``_cosine``
calls identical to each other), one constant vector, a vector per text
length. Each broken embedder below passes every other test of the base
contract; the hash embedder is the control."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from ragloom import Context
from ragloom.builtin.embedders.hash import HashEmbedder
from ragloom.testing import EmbedderContract


class Zeros(HashEmbedder):
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return np.zeros((len(texts), self.dimension), dtype=np.float32)


class Constant(HashEmbedder):
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return np.ones((len(texts), self.dimension), dtype=np.float32)


class ByLength(HashEmbedder):
    """Looks at the text, but sees only its length in words."""

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in zip(vectors, texts):
            row[min(len(text.split()), self.dimension - 1)] = 1.0
        return vectors


def opened(cls: type[HashEmbedder], tmp_path: Path) -> HashEmbedder:
    embedder = cls(dimension=64)
    embedder.open(Context(index_dir=tmp_path, base_dir=tmp_path, name="contract"))
    return embedder


@pytest.mark.parametrize("broken", [Zeros, Constant, ByLength])
def test_the_base_contract_rejects_vectors_that_ignore_the_text(
    broken: type[HashEmbedder], tmp_path: Path
) -> None:
    contract = EmbedderContract()
    embedder = opened(broken, tmp_path)
    # what the base contract checked before: all of it passes
    contract.test_embed_documents_shape_and_dtype(embedder)
    contract.test_embed_query_shape_and_dtype(embedder)
    contract.test_batch_matches_single(embedder)
    contract.test_order_is_kept(embedder)
    with pytest.raises(AssertionError, match="is zero|the vectors are the same"):
        contract.test_different_texts_get_different_vectors(embedder)


def test_the_hash_embedder_gives_different_texts_different_vectors(tmp_path: Path) -> None:
    EmbedderContract().test_different_texts_get_different_vectors(opened(HashEmbedder, tmp_path))
