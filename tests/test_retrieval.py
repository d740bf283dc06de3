"""Retrieval settings: config filters, fusion methods, MMR, context order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import ragloom
from ragloom import Answer, Generator, hookimpl
from ragloom.answers import lost_in_the_middle
from ragloom.builtin.rerankers.mmr import MMRReranker
from ragloom.components import Context, Embedder
from ragloom.config import validate_config
from ragloom.errors import ConfigValidationError, RerankerError
from ragloom.types import Chunk, Hit

from .conftest import basic_config


def test_config_filter_is_always_applied(corpus: Path, pm) -> None:
    config = basic_config(retrieval={"k": 10, "filter": {"source": {"$ne": "docs/security.md"}}})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve("AES-256 encrypted at rest")
        assert hits and "docs/security.md" not in {h.chunk.source for h in hits}
        # the caller's filter is ANDed, never replaces it
        widened = pipeline.retrieve("AES-256", filters={"source": "docs/security.md"})
        assert widened == []


def test_config_filter_is_checked(registry) -> None:
    bad = basic_config(retrieval={"filter": {"year": {"$gtee": 1}}})
    with pytest.raises(ConfigValidationError, match=r"retrieval\.filter.*\$gtee"):
        validate_config(bad, registry, env={})


@pytest.mark.parametrize("fusion", ["rrf", "weighted", "dbsf"])
def test_every_fusion_method_runs_from_config(corpus: Path, pm, fusion: str) -> None:
    config = basic_config(retrieval={"k": 3, "fusion": fusion})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve("encrypted at rest AES-256")
    assert hits[0].chunk.source == "docs/security.md"
    assert set(hits[0].scores) >= {"memory", "bm25", "fusion"}


def test_whole_documents_from_config_one_hit_each_and_the_committed_version(
    tmp_path: Path, pm
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    paragraphs = [
        f"Paragraph {i} of the handbook covers topic number {i} at length." for i in range(6)
    ]
    (docs / "handbook.md").write_text("\n\n".join(paragraphs), "utf-8")
    (docs / "glacier.md").write_text("Glacier storage keeps cold archives cheaply.", "utf-8")
    (docs / "billing.md").write_text("Billing runs monthly; invoices list every seat.", "utf-8")
    config = basic_config(
        chunker={"type": "recursive", "size": 80, "overlap": 20},
        stores=[{"type": "memory"}, {"type": "bm25", "scope": "document"}],
        retrieval={"k": 5, "fuse_by": "document"},
    )
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        assert pipeline.index().chunks >= 6  # the handbook is several chunks
        hits = pipeline.retrieve("handbook paragraph topic glacier billing")
        sources = [h.chunk.source for h in hits]
        assert len(sources) == len(set(sources)) == 3  # one hit per document
        # a rewrite is ranked as its new text only: the old version is gone
        (docs / "glacier.md").write_text("Glacier moved; see the tundra archive notes.", "utf-8")
        pipeline.index()
        found = pipeline.retrieve("tundra", k=5)
        assert [h.chunk.source for h in found][:1] == ["docs/glacier.md"]
        assert "tundra" in found[0].chunk.text
        assert all("cheaply" not in h.chunk.text for h in pipeline.retrieve("cheaply archives"))


def test_lost_in_the_middle_puts_best_at_the_edges() -> None:
    assert lost_in_the_middle(list(range(7))) == [0, 2, 4, 6, 5, 3, 1]
    assert lost_in_the_middle([]) == []


def test_generator_sees_lost_in_the_middle_order(corpus: Path, pm) -> None:
    seen: list[list[str]] = []

    class Recorder(Generator):
        def generate(self, question, hits, history=()):
            seen.append([h.chunk.id for h in hits])
            return Answer(question, "ok")

    class Plugin:
        @hookimpl
        def register_generators(self, register):
            register("recorder", Recorder)

    pm.register(Plugin(), name="recorder")
    config = basic_config(
        chunker={"type": "fixed", "size": 40, "overlap": 0},
        retrieval={"k": 5, "order": "lost-in-the-middle"},
        generator={"type": "recorder"},
    )
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        ranked = [h.chunk.id for h in pipeline.retrieve("plan memories days")]
        answer = pipeline.ask("plan memories days")
    assert len(ranked) == 5
    assert seen[0] == [ranked[i] for i in (0, 2, 4, 3, 1)]
    assert [h.chunk.id for h in answer.hits] == seen[0]


class Axes(Embedder):
    """Texts name their vector: 'x' -> (1, 0, 0), 'x y' -> normalised (1, 1, 0)..."""

    def embed_batch(self, texts):
        out = np.zeros((len(texts), 3), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.split():
                if word[0] in "xyz":
                    out[row, "xyz".index(word[0])] += float(word[1:] or 1)
        return out


def hit(cid: str, text: str, score: float) -> Hit:
    return Hit(Chunk(cid, cid, text, 0, 0, len(text), cid), score, "s", {"s": score})


def opened_mmr(**options) -> MMRReranker:
    reranker = MMRReranker(**options)
    reranker.open(Context(services={"embedder": Axes()}))
    return reranker


def test_mmr_skips_near_duplicates() -> None:
    hits = [hit("a", "x10 y1", 0.9), hit("b", "x10 y1", 0.89), hit("c", "x3 z10", 0.5)]
    diverse = opened_mmr(lambda_mult=0.5).rerank("x", hits, top_k=2)
    assert [h.chunk.id for h in diverse] == ["a", "c"]
    relevance_only = opened_mmr(lambda_mult=1.0).rerank("x", hits, top_k=2)
    assert [h.chunk.id for h in relevance_only] == ["a", "b"]
    assert "mmr" in diverse[0].scores and diverse[0].scores["s"] == 0.9


def test_mmr_prefers_stored_vectors() -> None:
    stored = hit("a", "z1", 0.9)
    stored = Hit(stored.chunk, 0.9, "s", {}, vector=np.array([1.0, 0.0, 0.0], dtype=np.float32))
    ranked = opened_mmr(lambda_mult=1.0).rerank("x", [hit("b", "z1", 0.5), stored])
    assert ranked[0].chunk.id == "a"  # its stored vector points at the query


def test_mmr_needs_an_embedder(registry) -> None:
    config = basic_config(stores=[{"type": "bm25"}], reranker={"type": "mmr"})
    del config["embedder"]
    with pytest.raises(ConfigValidationError, match="reranker 'mmr' needs an embedder"):
        validate_config(config, registry, env={})
    with pytest.raises(RerankerError):
        MMRReranker().open(Context())


def test_mmr_from_config(corpus: Path, pm) -> None:
    config = basic_config(reranker={"type": "mmr", "lambda_mult": 0.7, "top_k": 2})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve("encrypted AES-256", k=3)
    assert len(hits) == 2 and hits[0].chunk.source == "docs/security.md"
    assert {"fusion", "mmr"} <= set(hits[0].scores)


def _policies(root: Path) -> None:
    docs = root / "docs"
    docs.mkdir()
    (docs / "travel-2024.md").write_text(
        "# Travel Policy 2024\n\nStatus: superseded.\n\n"
        "The hotel limit for business trips is EUR 150 per night in every city.\n",
        "utf-8",
    )
    (docs / "travel-2026.md").write_text(
        "# Travel Policy 2026\n\nHotels: the limit is EUR 180 a night.\n", "utf-8"
    )


@pytest.mark.parametrize("mode", ["demote", "keep", "exclude"])
def test_hits_of_deprecated_documents_by_retrieval_deprecated(
    tmp_path: Path, pm, mode: str
) -> None:
    """The superseded policy, the better match, comes after the current one
    (``demote``, the default), first (``keep``), or not at all (``exclude``);
    its chunks carry ``deprecated: true``."""
    _policies(tmp_path)
    retrieval = {"k": 3} if mode == "demote" else {"k": 3, "deprecated": mode}
    with ragloom.load(basic_config(retrieval=retrieval), plugin_manager=pm, base_dir=tmp_path) as p:
        p.index()
        hits = p.retrieve("hotel limit for business trips per night in every city")
    sources = [h.chunk.source for h in hits]
    old = "docs/travel-2024.md"
    assert {h.chunk.metadata.get("deprecated") for h in hits if h.chunk.source == old} <= {True}
    if mode == "exclude":
        assert sources == ["docs/travel-2026.md"]
    else:
        assert sources == (
            [old, "docs/travel-2026.md"] if mode == "keep" else ["docs/travel-2026.md", old]
        )


def test_a_querys_slips_are_read_for_every_store(corpus: Path, pm) -> None:
    # the bm25 store reads "memries" as "memories" (Store.spelled), and the
    # memory store is asked with what it reads: the embedded query says the
    # word the pages say
    question = "How long are memries kept?"
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve(question, explain=True)
        read = pipeline.retrieve("How long are memories kept?", explain=True)
    assert hits.explanation is not None and read.explanation is not None
    assert hits.explanation.queries == ("How long are memories kept?",)
    assert [h.chunk.id for h in hits] == [h.chunk.id for h in read]
    assert [w.stores for w in hits.explanation.hits] == [w.stores for w in read.explanation.hits]
    as_typed = basic_config(stores=[{"type": "memory"}, {"type": "bm25", "spelling": False}])
    with ragloom.load(as_typed, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        typed = pipeline.retrieve(question, explain=True)
    assert typed.explanation is not None and typed.explanation.queries == (question,)


def test_no_slip_is_read_where_an_access_filter_applies(tmp_path: Path, pm) -> None:
    # the reading would tell a caller of a word in a page they may not read
    (tmp_path / "docs" / "hr").mkdir(parents=True)
    (tmp_path / "docs" / "public.md").write_text("The cafeteria opens at noon.\n", "utf-8")
    (tmp_path / "docs" / "hr" / "plans.md").write_text("Project Nightjar starts in March.\n")
    access = {"rules": [{"path": "docs/hr/**", "principals": ["hr"]}], "unlabeled": "public"}
    with ragloom.load(basic_config(access=access), plugin_manager=pm, base_dir=tmp_path) as p:
        p.index()
        outside = p.retrieve("nightjaw", principals=["eng"], explain=True)
        inside = p.retrieve("nightjaw", principals=["hr"], explain=True)
    assert outside.explanation is not None and outside.explanation.queries == ("nightjaw",)
    assert inside.explanation is not None and inside.explanation.queries == ("nightjaw",)
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=tmp_path) as p:
        p.index()
        open_to_all = p.retrieve("nightjaw", explain=True)
    assert open_to_all.explanation is not None
    assert open_to_all.explanation.queries == ("nightjar",)
