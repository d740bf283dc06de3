"""The ``hash`` embedder: deterministic, normalised, similarity-preserving."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from pydantic import ValidationError
from ragloom.builtin.embedders.hash import HashEmbedder


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_shape_dtype_and_unit_length() -> None:
    embedder = HashEmbedder(dimension=64)
    vectors = embedder.embed_batch(["The Pro plan costs $29.", "Refunds within 30 days."])
    assert vectors.shape == (2, 64)
    assert vectors.dtype == np.float32
    assert vectors.flags["C_CONTIGUOUS"]
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)


def test_dimension_is_config_without_probing(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = HashEmbedder(dimension=100)
    monkeypatch.setattr(embedder, "embed_batch", lambda texts: pytest.fail("probed"))
    assert embedder.dimension == 100


def test_empty_text_is_zero_not_nan() -> None:
    vectors = HashEmbedder().embed_batch(["", "   ", "!!!", "words here"])
    assert not np.isnan(vectors).any()
    assert not vectors[:3].any()
    assert np.linalg.norm(vectors[3]) == pytest.approx(1.0, rel=1e-5)


def test_empty_batch() -> None:
    embedder = HashEmbedder(dimension=32)
    assert embedder.embed_batch([]).shape == (0, 32)
    assert embedder.embed_documents([]).shape == (0, 32)


def test_embed_documents_batches_match_single_batch() -> None:
    texts = [f"document number {i} about topic {i % 7}" for i in range(50)]
    embedder = HashEmbedder(batch_size=8)
    np.testing.assert_array_equal(embedder.embed_documents(texts), embedder.embed_batch(texts))
    np.testing.assert_array_equal(embedder.embed_query(texts[3]), embedder.embed_batch(texts)[3])


def test_deterministic_across_processes() -> None:
    text = "Stable hashing: the same text gives the same vector, überall."
    here = HashEmbedder(dimension=128, char_ngrams=3).embed_query(text)
    code = (
        "import json\n"
        "from ragloom.builtin.embedders.hash import HashEmbedder\n"
        f"v = HashEmbedder(dimension=128, char_ngrams=3).embed_query({text!r})\n"
        "print(json.dumps([float(x) for x in v]))\n"
    )
    # A different hash seed makes Python's own hash() differ; ours must not.
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
    )
    there = np.array(json.loads(result.stdout), dtype=np.float32)
    np.testing.assert_array_equal(here, there)


def test_similar_texts_are_closer_than_unrelated() -> None:
    embedder = HashEmbedder()
    query, similar, unrelated = embedder.embed_documents(
        [
            "How much does the Pro plan cost per month?",
            "The Pro plan costs $29 per user per month.",
            "Ulaanbaatar is the capital of Mongolia.",
        ]
    )
    assert cosine(query, similar) > cosine(query, unrelated) + 0.1


def test_char_ngrams_help_morphology() -> None:
    words = HashEmbedder(char_ngrams=0)
    chars = HashEmbedder(char_ngrams=3)
    a, b = "pricing", "prices"
    assert cosine(*words.embed_batch([a, b])) == pytest.approx(0.0, abs=1e-6)
    assert cosine(*chars.embed_batch([a, b])) > 0.2


def test_lowercase_option() -> None:
    folded = HashEmbedder().embed_batch(["Hello World", "hello world"])
    np.testing.assert_array_equal(folded[0], folded[1])
    exact = HashEmbedder(lowercase=False).embed_batch(["Hello World", "hello world"])
    assert not np.array_equal(exact[0], exact[1])


def test_sublinear_tf_and_unnormalised_output() -> None:
    embedder = HashEmbedder(dimension=4096, ngram_range=(1, 1), normalize=False)
    once, many = embedder.embed_batch(["apple", "apple apple apple apple"])
    assert np.abs(once).sum() == pytest.approx(1.0)
    assert np.abs(many).sum() == pytest.approx(1.0 + np.log(4.0), rel=1e-5)


def test_ngram_range_adds_bigrams() -> None:
    unigrams = HashEmbedder(ngram_range=(1, 1))
    bigrams = HashEmbedder(ngram_range=(1, 2))
    assert len(unigrams.features("new york city")) == 3
    assert len(bigrams.features("new york city")) == 5
    # word order matters only through bigrams
    a, b = "dog bites man", "man bites dog"
    assert cosine(*unigrams.embed_batch([a, b])) == pytest.approx(1.0, rel=1e-5)
    assert cosine(*bigrams.embed_batch([a, b])) < 0.99


def test_fingerprint() -> None:
    fingerprint = HashEmbedder(dimension=256, batch_size=7).fingerprint()
    assert fingerprint["type"] == "HashEmbedder"
    assert fingerprint["dimension"] == 256
    assert fingerprint["ngram_range"] == [1, 2]
    assert "batch_size" not in fingerprint
    assert fingerprint != HashEmbedder(dimension=256, char_ngrams=3).fingerprint()
    assert fingerprint == HashEmbedder(dimension=256, batch_size=99).fingerprint()


@pytest.mark.parametrize(
    "options",
    [
        {"dimension": 0},
        {"ngram_range": (0, 2)},
        {"ngram_range": (3, 2)},
        {"char_ngrams": -1},
        {"batch_size": 0},
        {"unknown": 1},
    ],
)
def test_invalid_config_is_rejected(options: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        HashEmbedder(**options)


def test_unicode_tokens() -> None:
    vectors = HashEmbedder().embed_batch(["naïve café", "東京 タワー"])
    assert np.linalg.norm(vectors, axis=1) == pytest.approx([1.0, 1.0], rel=1e-5)
