"""``Pipeline.retrieve_many``: the same hits as ``retrieve`` one question at a
time, with the questions embedded in batches; ``Embedder.embed_queries``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import ragloom
from ragloom.builtin.embedders.hash import HashEmbedder
from ragloom.components import Embedder
from ragloom.hookspecs import hookimpl

from .conftest import basic_config

QUESTIONS = [
    "How much is the Pro plan?",
    "How long are memories kept?",
    "Which encryption protects data at rest?",
    "Can I get a refund?",
    "When are deleted memories removed?",
]


class Counting(HashEmbedder):
    """The hash embedder, counting its batches and their sizes."""

    calls: list[tuple[str, int]] = []

    def embed_batch(self, texts):
        Counting.calls.append(("batch", len(texts)))
        return super().embed_batch(texts)


class Prefixed(Embedder):
    """Queries and documents embedded differently: ``embed_query`` overridden."""

    def embed_batch(self, texts):
        return np.array([[len(t), t.count("e"), 1.0] for t in texts], dtype=np.float32)

    def embed_query(self, text):
        return self.embed_batch(["query: " + text])[0]


@pytest.fixture
def counting_pm(pm):
    class Plugin:
        @hookimpl
        def register_embedders(self, register):
            register("counting", Counting)

    pm.register(Plugin(), name="counting")
    Counting.calls = []
    return pm


def test_same_hits_as_retrieve_with_one_embedding_call(corpus: Path, counting_pm) -> None:
    config = basic_config(embedder={"type": "counting", "dimension": 64})
    with ragloom.load(config, plugin_manager=counting_pm, base_dir=corpus) as pipeline:
        pipeline.index()
        one_by_one = [pipeline.retrieve(q, k=4) for q in QUESTIONS]
        Counting.calls = []
        batched = pipeline.retrieve_many(QUESTIONS, k=4)
    assert Counting.calls == [("batch", len(QUESTIONS))]
    assert len(batched) == len(QUESTIONS)
    for single, many in zip(one_by_one, batched):
        assert [h.chunk.id for h in many] == [h.chunk.id for h in single]
        assert [h.score for h in many] == pytest.approx([h.score for h in single])
        assert many.corpus_version == single.corpus_version
        assert {t.stage for t in many.trace} >= {"fuse"}


def test_filters_principals_and_errors(corpus: Path, pm) -> None:
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        found = pipeline.retrieve_many(QUESTIONS[:2], {"source": "docs/security.md"}, k=3)
        assert all(h.chunk.source == "docs/security.md" for hits in found for h in hits)
        assert pipeline.retrieve_many([]) == []
        with pytest.raises(ValueError):
            pipeline.retrieve_many(["fine", "  "])


def test_embed_queries_rows_are_embed_query() -> None:
    hashing = HashEmbedder(HashEmbedder.Config(dimension=32))
    rows = hashing.embed_queries(QUESTIONS)
    assert rows.shape == (len(QUESTIONS), 32) and rows.dtype == np.float32
    for row, question in zip(rows, QUESTIONS):
        np.testing.assert_allclose(row, hashing.embed_query(question), rtol=1e-6)

    prefixed = Prefixed(Prefixed.Config())
    rows = prefixed.embed_queries(QUESTIONS)  # the override's prefix is kept
    for row, question in zip(rows, QUESTIONS):
        np.testing.assert_array_equal(row, prefixed.embed_query(question))
    assert not np.array_equal(rows, prefixed.embed_documents(QUESTIONS))
    assert prefixed.embed_queries([]).shape == (0, 3)
