from __future__ import annotations

from pathlib import Path

import numpy as np
import pluggy
import pytest
import ragloom
import yaml
from ragloom import Answer, Citation, Generator, Hit, hookimpl
from ragloom.errors import ConfigValidationError, IndexStateError, UnsupportedFilterError
from ragloom.filters import parse

from .conftest import basic_config


def write_config(root: Path, **overrides: object) -> Path:
    path = root / "ragloom.yaml"
    path.write_text(yaml.safe_dump(basic_config(**overrides)))
    return path


def test_yaml_to_answer_end_to_end(corpus: Path, pm: pluggy.PluginManager) -> None:
    with ragloom.load(write_config(corpus), plugin_manager=pm) as pipeline:
        report = pipeline.index()
        assert len(report.added) == 3 and report.chunks >= 3 and report.corpus_version == 1
        answer = pipeline.ask("How much does the Pro plan cost?")
    assert answer.grounded and "$29" in answer.text
    assert answer.citations and answer.citations[0].source == "docs/pricing.md"
    assert "[1]" in answer.text
    assert {c.chunk_id for c in answer.citations} <= {h.chunk.id for h in answer.hits}


def test_unanswerable_question_says_so(corpus: Path, pm: pluggy.PluginManager) -> None:
    with ragloom.load(write_config(corpus), plugin_manager=pm) as pipeline:
        pipeline.index()
        answer = pipeline.ask("Who founded the company and where is its headquarters?")
    assert not answer.grounded
    assert "could not find" in answer.text.lower()
    assert answer.citations == ()


def test_index_is_incremental(corpus: Path, pm: pluggy.PluginManager) -> None:
    config = write_config(corpus)
    with ragloom.load(config, plugin_manager=pm) as pipeline:
        pipeline.index()
        again = pipeline.index()
        # nothing changed: the same corpus, the same version (an answer cache keyed on it stays)
        assert again.unchanged == 3 and again.chunks == 0 and again.corpus_version == 1
        (corpus / "docs" / "memory.md").write_text("# Memory\n\nMemories are kept forever now.\n")
        (corpus / "docs" / "security.md").unlink()
        (corpus / "docs" / "new.md").write_text("# New\n\nA brand new zebra document.\n")
        preview = pipeline.index(dry_run=True)
        assert preview.added == ("docs/new.md",) and preview.changed == ("docs/memory.md",)
        assert preview.deleted == ("docs/security.md",) and preview.unchanged == 1
        report = pipeline.index()
        assert (report.added, report.changed, report.deleted) == (
            ("docs/new.md",),
            ("docs/memory.md",),
            ("docs/security.md",),
        )
        gone = parse({"source": "docs/security.md"})
        for name, store in pipeline.stores:
            assert store.count(gone) == 0, name
            assert store.count(parse({"source": "docs/new.md"})) == 1, name
        sources = {h.chunk.source for h in pipeline.retrieve("AES-256 encrypted", k=10)}
        assert "docs/security.md" not in sources
        hits = pipeline.retrieve("zebra", k=1)
        assert hits[0].chunk.source == "docs/new.md"
        assert "forever" in pipeline.retrieve("how long are memories kept", k=1)[0].chunk.text


def test_state_persists_across_processes(corpus: Path, pm: pluggy.PluginManager) -> None:
    config = write_config(corpus)
    with ragloom.load(config, plugin_manager=pm) as pipeline:
        pipeline.index()
    with ragloom.load(config, plugin_manager=pm) as fresh:
        hits = fresh.retrieve("refunded within 30 days", k=2)
        assert hits[0].chunk.source == "docs/pricing.md"
        assert set(hits[0].scores) >= {"memory", "bm25", "fusion"}


def test_a_closed_pipeline_opens_again_on_use(corpus: Path, pm: pluggy.PluginManager) -> None:
    """As concepts.md says: retrieve() after close() opens it again (the stores
    read their files anew, another process's commit included), and a second
    close() closes it again."""
    config = write_config(corpus)
    pipeline = ragloom.load(config, plugin_manager=pm)
    with pipeline:
        pipeline.index()
    (corpus / "docs" / "pricing.md").unlink()
    with ragloom.load(config, plugin_manager=pm) as other:
        assert other.index().deleted == ("docs/pricing.md",)
    hits = pipeline.retrieve("refunded within 30 days", k=3)
    assert hits and "docs/pricing.md" not in {hit.chunk.source for hit in hits}
    assert pipeline._opened
    pipeline.close()
    assert not pipeline._opened


def test_embedder_change_refuses_to_mix_vectors(corpus: Path, pm: pluggy.PluginManager) -> None:
    with ragloom.load(write_config(corpus), plugin_manager=pm) as pipeline:
        pipeline.index()
    changed = write_config(corpus, embedder={"type": "hash", "dimension": 128})
    with ragloom.load(changed, plugin_manager=pm) as pipeline:
        with pytest.raises(IndexStateError, match="--rebuild"):
            pipeline.index()
        report = pipeline.index(rebuild=True)
        assert len(report.added) == 3
        assert pipeline.retrieve("AES-256", k=1)[0].chunk.source == "docs/security.md"


def test_index_sources_limits_the_run(corpus: Path, pm: pluggy.PluginManager) -> None:
    with ragloom.load(write_config(corpus), plugin_manager=pm) as pipeline:
        pipeline.index()
        (corpus / "docs" / "pricing.md").write_text("# Pricing\n\nThe Pro plan costs $35.\n")
        (corpus / "docs" / "memory.md").unlink()
        report = pipeline.index(["docs/pricing.md"])
        assert report.changed == ("docs/pricing.md",) and report.deleted == ()


def test_filters_reach_every_store(corpus: Path, pm: pluggy.PluginManager) -> None:
    with ragloom.load(write_config(corpus), plugin_manager=pm) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve("plan days memories", filters={"source": "docs/memory.md"}, k=5)
        assert hits and {h.chunk.source for h in hits} == {"docs/memory.md"}
        assert pipeline.retrieve("plan", filters={"source": {"$in": []}}) == []


def _register_eq_only(pm: pluggy.PluginManager) -> None:
    """Registers store ``eq-only``: bm25 that applies ``$eq`` filters only."""
    from ragloom.builtin.stores.bm25 import BM25Store

    class EqOnly(BM25Store):
        filter_operators = frozenset({"$eq"})

    class Plugin:
        @hookimpl
        def register_stores(self, register):
            register("eq-only", EqOnly)

    pm.register(Plugin(), name="eq-only")


def test_unsupported_filter_fails_before_any_store_runs(
    corpus: Path, pm: pluggy.PluginManager
) -> None:
    _register_eq_only(pm)
    config = write_config(corpus, stores=[{"type": "eq-only"}], embedder=None)
    pipeline = ragloom.load(config, plugin_manager=pm)
    with pipeline:
        pipeline.index()
        with pytest.raises(UnsupportedFilterError, match="eq-only"):
            pipeline.retrieve("plan", filters={"chunk_index": {"$gte": 0}})


def test_excluding_deprecated_pages_is_checked_against_every_store(
    corpus: Path, pm: pluggy.PluginManager
) -> None:
    """``retrieval.deprecated: exclude`` adds a `$ne` to every query: a store
    that cannot apply it fails the config, named, not every query."""
    _register_eq_only(pm)
    config = write_config(
        corpus, stores=[{"type": "eq-only"}], embedder=None, retrieval={"deprecated": "exclude"}
    )
    with pytest.raises(ConfigValidationError, match=r"retrieval\.deprecated.*eq-only.*demote"):
        ragloom.load(config, plugin_manager=pm)


def test_generator_failure_degrades_to_passages(
    corpus: Path, pm: pluggy.PluginManager, caplog: pytest.LogCaptureFixture
) -> None:
    class Broken(Generator):
        def generate(self, question, hits, history=()):
            raise RuntimeError("model server down")

    class Plugin:
        @hookimpl
        def register_generators(self, register):
            register("broken", Broken)

    pm.register(Plugin(), name="broken")
    with (
        ragloom.load(write_config(corpus, generator={"type": "broken"}), plugin_manager=pm) as p,
        caplog.at_level("WARNING", logger="ragloom"),
    ):
        p.index()
        answer = p.ask("How much does the Pro plan cost?")
    assert answer.degraded and "(RuntimeError; the log has the details)" in answer.text
    assert "model server down" in caplog.text and "model server down" not in answer.text
    assert answer.citations and answer.citations[0].chunk_id == answer.hits[0].chunk.id


def test_citations_outside_the_hits_are_dropped(corpus: Path, pm: pluggy.PluginManager) -> None:
    class Liar(Generator):
        def generate(self, question, hits, history=()):
            return Answer(
                question,
                "text [1] [2]",
                citations=(
                    Citation(1, hits[0].chunk.id, hits[0].chunk.label, hits[0].chunk.source),
                    Citation(2, "invented::0", "invented#0", "invented.md"),
                ),
            )

    class Plugin:
        @hookimpl
        def register_generators(self, register):
            register("liar", Liar)

    pm.register(Plugin(), name="liar")
    with ragloom.load(write_config(corpus, generator={"type": "liar"}), plugin_manager=pm) as p:
        p.index()
        answer = p.ask("Pro plan price")
    assert [c.chunk_id for c in answer.citations] == [answer.hits[0].chunk.id]
    assert answer.text == "text [1]" and answer.grounded


def test_an_answer_whose_every_citation_is_dropped_is_not_grounded() -> None:
    from ragloom.answers import checked_answer
    from ragloom.testing import contract_hits

    hits = contract_hits()[:2]
    invented = Citation(1, "not/given::0", "not/given#0", "not/given.md")
    answer = checked_answer(Answer("q?", "Every workspace gets a trial [1].", (invented,)), hits)
    assert answer.citations == () and not answer.grounded
    assert answer.text == "Every workspace gets a trial."


def test_stream_yields_text_then_answer(corpus: Path, pm: pluggy.PluginManager) -> None:
    with ragloom.load(write_config(corpus), plugin_manager=pm) as pipeline:
        pipeline.index()
        stream = pipeline.stream("How long are memories kept on the Free plan?")
        text = "".join(stream)
    assert stream.answer is not None and stream.answer.text == text
    assert "90 days" in text and stream.answer.citations


def test_unreadable_file_is_reported_and_run_goes_on(
    corpus: Path, pm: pluggy.PluginManager
) -> None:
    (corpus / "docs" / "binary.md").write_bytes(b"\x00\x01\x02garbage")
    (corpus / "docs" / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    with ragloom.load(write_config(corpus), plugin_manager=pm) as pipeline:
        report = pipeline.index()
    assert len(report.added) == 3
    reported = {source for source, _ in report.problems}
    assert reported == {"docs/binary.md", "docs/latin1.md"}


def test_weighted_fusion_and_per_store_k(corpus: Path, pm: pluggy.PluginManager) -> None:
    config = write_config(
        corpus,
        stores=[{"type": "memory", "weight": 0.0}, {"type": "bm25", "weight": 1.0, "k": 2}],
        retrieval={"k": 5, "fusion": "weighted"},
    )
    with ragloom.load(config, plugin_manager=pm) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve("encrypted AES-256")
    assert hits[0].chunk.source == "docs/security.md"
    assert "fusion" in hits[0].scores


def test_to_config_round_trip_builds_equal_pipeline(corpus: Path, pm: pluggy.PluginManager) -> None:
    pipeline = ragloom.load(write_config(corpus), plugin_manager=pm)
    again = ragloom.load(pipeline.to_config(), plugin_manager=pm, base_dir=corpus)
    assert again.to_config() == pipeline.to_config()
    assert again.index_dir == pipeline.index_dir


def test_hits_are_typed(corpus: Path, pm: pluggy.PluginManager) -> None:
    with ragloom.load(write_config(corpus), plugin_manager=pm) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve("memories")
    assert all(isinstance(h, Hit) for h in hits)
    assert hits == sorted(hits, key=lambda h: -h.score)


def test_failed_run_leaves_the_ledger_as_it_was(corpus: Path, pm: pluggy.PluginManager) -> None:
    """A run that dies half-way commits nothing; the next run redoes the work."""
    from ragloom import Embedder

    state = {"fail": False}

    class Fragile(Embedder):
        def embed_batch(self, texts):
            if state["fail"]:
                raise ConnectionError("embedding service went away")
            return np.ones((len(texts), 4), dtype=np.float32)

        @property
        def dimension(self) -> int:
            return 4

    class Plugin:
        @hookimpl
        def register_embedders(self, register):
            register("fragile", Fragile)

    pm.register(Plugin(), name="fragile")
    config = write_config(corpus, embedder={"type": "fragile"})
    with ragloom.load(config, plugin_manager=pm) as pipeline:
        pipeline.index()
    (corpus / "docs" / "new.md").write_text("# New\n\nA new zebra document.\n")
    (corpus / "docs" / "memory.md").unlink()
    state["fail"] = True
    with ragloom.load(config, plugin_manager=pm) as pipeline, pytest.raises(ConnectionError):
        pipeline.index()
    state["fail"] = False
    with ragloom.load(config, plugin_manager=pm) as pipeline:
        preview = pipeline.index(dry_run=True)
        assert preview.added == ("docs/new.md",) and preview.deleted == ("docs/memory.md",)
        report = pipeline.index()
        assert report.corpus_version == 2
        for name, store in pipeline.stores:
            assert store.count(parse({"source": "docs/memory.md"})) == 0, name
            assert store.count(parse({"source": "docs/new.md"})) == 1, name


def test_copies_of_a_document_are_said_when_they_come(
    corpus: Path, pm: pluggy.PluginManager
) -> None:
    """A trial's `archive/plans (copy).md` was indexed without a word and
    cited for every plan question, and after the original changed its old
    price was the answer."""
    docs = corpus / "docs"
    (docs / "archive").mkdir()
    (docs / "archive" / "pricing (copy).md").write_bytes((docs / "pricing.md").read_bytes())
    (docs / "archive" / "pricing-2.md").write_bytes((docs / "pricing.md").read_bytes())
    config = write_config(corpus)
    with ragloom.load(config, plugin_manager=pm) as pipeline:
        said = [p for p in pipeline.index(dry_run=True).problems if "same text" in p[1]]
        assert tuple(said) == pipeline.index().problems  # one line a group; a dry run says it
        ((source, message),) = said
        assert source == "docs/archive/pricing (copy).md"
        assert "docs/archive/pricing-2.md, docs/pricing.md" in message and "exclude" in message
        assert pipeline.index().problems == ()  # unchanged: said when they came
        (docs / "memory.md").write_text("# Memory\n\nMemories are kept forever now.\n")
        assert pipeline.index().problems == ()  # a change elsewhere says nothing of them
        (docs / "pricing.md").write_text("# Pricing\n\nThe Pro plan costs $31 per user.\n")
        assert pipeline.index().problems == ()  # no longer the same: nothing to say
        (docs / "security-copy.md").write_bytes((docs / "security.md").read_bytes())
        # a new copy of a document whose file is read (a file unchanged for
        # 2 s is not, and its stand-in has no text to compare: then nothing is said)
        archived, copy = pipeline.index(reread=True).problems  # --reread: every group
        assert archived[0] == "docs/archive/pricing (copy).md"  # the two archived copies
        assert copy[0] == "docs/security-copy.md" and "docs/security.md" in copy[1]
        assert pipeline.index(reread=True).problems == (archived, copy)  # again


def test_copies_are_said_for_files_only_and_a_few_groups_at_most(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """A review found one note per group of like records (a JSONL file's),
    whose advice (`exclude:`) cannot apply, and no cap."""
    (tmp_path / "docs").mkdir()
    for group in range(7):
        for copy in range(2):
            (tmp_path / "docs" / f"g{group}-{copy}.md").write_text(f"# G\n\nText {group}.\n")
    (tmp_path / "rows.jsonl").write_text(
        "".join(f'{{"id": "r{i}", "text": "N/A"}}\n' for i in range(20))
    )
    config = basic_config(
        loaders=[
            {"type": "directory", "path": "docs"},
            {"type": "jsonl", "path": "rows.jsonl", "id_field": "id"},
        ]
    )
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        problems = pipeline.index().problems
    sources = [source for source, _ in problems]
    assert sources == [f"docs/g{g}-0.md" for g in range(5)] + ["copies"], problems
    assert problems[-1][1].startswith("2 more groups of files with the same text (4 files")
