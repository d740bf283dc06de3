"""Embedding cache and answer cache."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
import ragloom
from ragloom import hookimpl
from ragloom.builtin.embedders.hash import HashEmbedder
from ragloom.cache import AnswerCache, EmbeddingCache, normalise_question
from ragloom.errors import RagloomError
from ragloom.events import StageFinished
from ragloom.types import Answer, Chunk, Citation, Hit

from .conftest import basic_config


class Counter:
    def __init__(self) -> None:
        self.embedded = 0

    @hookimpl
    def on_event(self, event):
        if isinstance(event, StageFinished) and event.stage == "embed" and event.count:
            self.embedded += event.count


def test_rebuilding_an_unchanged_corpus_embeds_nothing(corpus: Path, pm) -> None:
    counter = Counter()
    pm.register(counter, name="counter")
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        first = pipeline.index()
        assert first.embedded == first.chunks > 0 and first.cached == 0
        again = pipeline.index(rebuild=True)
    assert again.embedded == 0 and again.cached == first.chunks
    assert counter.embedded == first.chunks
    # another index directory shares the cache
    other = basic_config(index_dir=".other-index")
    with ragloom.load(other, plugin_manager=pm, base_dir=corpus) as pipeline:
        report = pipeline.index()
        assert report.embedded == 0 and report.cached == first.chunks
        assert pipeline.retrieve("AES-256", k=1)[0].chunk.source == "docs/security.md"


def test_another_fingerprint_never_reuses_vectors(corpus: Path, pm) -> None:
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
    changed = basic_config(index_dir=".other", embedder={"type": "hash", "dimension": 128})
    with ragloom.load(changed, plugin_manager=pm, base_dir=corpus) as pipeline:
        report = pipeline.index()
    assert report.cached == 0 and report.embedded == report.chunks


def test_identical_texts_are_embedded_once(tmp_path: Path, pm) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (docs / name).write_text("Exactly the same words in every file.\n")
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=tmp_path) as pipeline:
        report = pipeline.index()
    assert report.chunks == 3 and report.embedded == 1 and report.cached == 2


def test_cache_can_be_turned_off(corpus: Path, pm) -> None:
    config = basic_config(cache={"embeddings": False})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        again = pipeline.index(rebuild=True)
    assert again.cached == 0 and again.embedded == again.chunks


def test_a_cache_path_that_cannot_be_a_folder_names_the_setting(corpus: Path, pm) -> None:
    (corpus / "taken").write_text("a file where the cache folder goes")
    config = basic_config(cache={"path": "taken/embeddings.sqlite"})
    with (
        ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline,
        pytest.raises(RagloomError, match=r"embedding cache .*taken.* cannot be opened") as info,
    ):
        pipeline.index()
    assert "RAGLOOM_CACHE_DIR" in str(info.value) and "embeddings: false" in str(info.value)
    off = basic_config(cache={"embeddings": False})
    with ragloom.load(off, plugin_manager=pm, base_dir=corpus) as pipeline:
        assert pipeline.index().added  # the failed run committed nothing; this one does


def test_embedding_cache_round_trip(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "e.sqlite")
    vectors = HashEmbedder(dimension=16).embed_batch(["one", "two"])
    hashes = [cache.text_hash("one"), cache.text_hash("two")]
    cache.put_many("fp", zip(hashes, vectors))
    found = cache.get_many("fp", [*hashes, cache.text_hash("three")], 16)
    assert set(found) == set(hashes)
    assert np.array_equal(found[hashes[1]], vectors[1])
    assert cache.get_many("other-fp", hashes, 16) == {}
    assert cache.get_many("fp", hashes, 32) == {}  # wrong width is never served


def answer_config(**cache: object) -> dict:
    return basic_config(cache={"answers": True, **cache}, access={"unlabeled": "public"})


def test_a_new_cache_file_is_its_owners_alone(tmp_path: Path) -> None:
    """Vectors say much of the texts they embed: the file was 0644 in a
    folder anyone could list, while the index directory is 0700."""
    cache = EmbeddingCache(tmp_path / "cache" / "embeddings.sqlite")
    cache.put_many("fp", [(cache.text_hash("a text"), np.ones(4, dtype=np.float32))])
    cache.close()
    assert (cache.path.stat().st_mode & 0o777) == 0o600


def test_answer_cache_hits_and_keys(corpus: Path, pm) -> None:
    with ragloom.load(answer_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        first = pipeline.ask("How much does the Pro plan cost?", principals=["alice"])
        assert not first.metadata.get("cached")
        again = pipeline.ask("  how much does the PRO plan cost ", principals=["alice"])
        assert again.metadata.get("cached") and again.text == first.text
        assert again.citations == first.citations
        other = pipeline.ask("How much does the Pro plan cost?", principals=["bob"])
        assert not other.metadata.get("cached")
        filtered = pipeline.ask(
            "How much does the Pro plan cost?", {"source": "docs/pricing.md"}, principals=["alice"]
        )
        assert not filtered.metadata.get("cached")
        idle = pipeline.index()  # cron finding nothing new: the same version, the cache stays
        assert idle.unchanged and not (idle.added or idle.changed or idle.deleted)
        kept = pipeline.ask("How much does the Pro plan cost?", principals=["alice"])
        assert kept.metadata.get("cached") and kept.text == first.text
        assert kept.metadata["corpus_version"] == first.metadata["corpus_version"]
        (corpus / "docs" / "pricing.md").write_text("# Pricing\n\nThe Pro plan costs $35.\n")
        pipeline.index()  # a new corpus version: nothing cached survives it
        fresh = pipeline.ask("How much does the Pro plan cost?", principals=["alice"])
    assert not fresh.metadata.get("cached") and "$35" in fresh.text


def test_answer_cache_ttl_and_size(tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path / "a.sqlite", ttl=0.2, max_entries=2)
    chunk = Chunk("c", "d", "text", 0, 0, 4, "d#c", {"source": "d"})
    answer = Answer("q", "a [1]", (Citation(1, "c", "d#c", "d", "text"),), (Hit(chunk, 1.0),))
    for key in ("k1", "k2", "k3"):
        cache.put(key, answer)
    assert len(cache) == 2 and cache.get("k1") is None
    assert cache.get("k3").citations == answer.citations
    time.sleep(0.25)
    assert cache.get("k3") is None


def test_answer_cache_key_includes_everything() -> None:
    base = dict(
        question="Q?", corpus_version=1, filters=None, principals=["a"], k=None, config_hash="c"
    )
    key = AnswerCache.key(**base)
    assert AnswerCache.key(**{**base, "question": " q "}) == key
    for change in (
        {"corpus_version": 2},
        {"filters": {"x": 1}},
        {"principals": ["b"]},
        {"principals": None},
        {"k": 3},
        {"config_hash": "d"},
    ):
        assert AnswerCache.key(**{**base, **change}) != key, change
    assert normalise_question("  Hello   World?? ") == "hello world"


def test_access_is_checked_before_the_answer_cache(corpus: Path, pm) -> None:
    with ragloom.load(answer_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        pipeline.ask("Pro plan cost", principals=["alice"])
        with pytest.raises(ragloom.RagloomError, match="principals"):
            pipeline.ask("Pro plan cost")
