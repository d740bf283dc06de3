"""Executors: the ``register_executors`` hook, the built-in ``inprocess``
executor, and what the index run guarantees whatever the executor does
(each document back exactly once, or nothing is committed)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import ragloom
from ragloom import ComponentConfig, hookimpl
from ragloom.components import Executor
from ragloom.errors import ConfigValidationError, IndexStateError
from ragloom.executors import IndexWork, Prepared, component_recipe, from_recipe, prepare_batch
from ragloom.ledger import Ledger

from .conftest import basic_config


def ledger_entries(index_dir: Path) -> dict:
    ledger = Ledger(index_dir / "ledger.sqlite").open()
    try:
        return {e.id: (e.content_hash, e.chunk_ids) for e in ledger.entries().values()}
    finally:
        ledger.close()


class OneByOne(Executor):
    """Prepares one document at a time, last first, and counts its batches."""

    class Config(ComponentConfig):
        pass

    batches = 0

    def map(self, work: IndexWork, documents: Sequence) -> Iterator[Prepared]:
        for doc in reversed(documents):
            type(self).batches += 1
            yield work.prepare([doc])


def test_hook_register_executors(pm, corpus: Path) -> None:
    class Plugin:
        @hookimpl
        def register_executors(self, register):
            register("one-by-one", OneByOne)

    pm.register(Plugin())
    config = basic_config(index_dir=".one", executor={"type": "one-by-one"})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        assert pipeline.config.executor is not None
        assert pipeline.config.to_dict()["executor"] == {"type": "one-by-one"}
        report = pipeline.index()
    assert OneByOne.batches == 3 == len(report.added)
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        expected = pipeline.index()
    assert ledger_entries(corpus / ".one") == ledger_entries(corpus / ".ragloom")
    assert report.chunks == expected.chunks


def test_the_default_executor_is_inprocess(pm, corpus: Path) -> None:
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        assert pipeline.config.executor is None and "executor" not in pipeline.to_config()
        plain = pipeline.index()
    config = basic_config(index_dir=".explicit", executor={"type": "inprocess"})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        explicit = pipeline.index()
    assert explicit.chunks == plain.chunks
    assert ledger_entries(corpus / ".explicit") == ledger_entries(corpus / ".ragloom")


def test_an_unknown_executor_is_a_config_error(pm, corpus: Path) -> None:
    with pytest.raises(ConfigValidationError, match="unknown executor type 'rayy'") as info:
        ragloom.load(basic_config(executor={"type": "rayy"}), plugin_manager=pm, base_dir=corpus)
    assert "executor.type" in str(info.value) and "inprocess" in str(info.value)
    with pytest.raises(ConfigValidationError, match="unknown option 'workers'"):
        ragloom.load(
            basic_config(executor={"type": "inprocess", "workers": 2}),
            plugin_manager=pm,
            base_dir=corpus,
        )


class Twice(Executor):
    class Config(ComponentConfig):
        mode: str = "twice"

    def map(self, work: IndexWork, documents: Sequence) -> Iterator[Prepared]:
        if self.config.mode == "twice":
            yield work.prepare(documents[:1])
        yield work.prepare(documents if self.config.mode == "twice" else documents[1:])


@pytest.mark.parametrize("mode", ["twice", "lost"])
def test_a_document_returned_twice_or_lost_fails_the_run_before_its_commit(
    pm, corpus: Path, mode: str
) -> None:
    class Plugin:
        @hookimpl
        def register_executors(self, register):
            register("twice", Twice)

    pm.register(Plugin())
    config = basic_config(executor={"type": "twice", "mode": mode})
    with (
        ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline,
        pytest.raises(IndexStateError, match="twice" if mode == "twice" else "lost 1"),
    ):
        pipeline.index()
    assert ledger_entries(corpus / ".ragloom") == {}  # nothing committed
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        report = pipeline.index()  # the next run, in process, repairs
        counts = {name: store.count() for name, store in pipeline.stores}
    assert len(report.added) == 3
    assert counts == {"memory": report.chunks, "bm25": report.chunks}


class Elsewhere(Executor):
    """Builds its own chunker and embedder from the recipes, as a remote worker
    does, and leaves out the documents named in ``fail``."""

    class Config(ComponentConfig):
        fail: list[str] = []

    def map(self, work: IndexWork, documents: Sequence) -> Iterator[Prepared]:
        chunker = from_recipe(component_recipe(work.chunker))
        embedder = from_recipe(component_recipe(work.embedder))
        for component in (embedder, chunker):
            component.open()
        prepared = prepare_batch(chunker, embedder, documents, vectors=work.vectors)
        failed = [d for d in prepared.documents if d.id in self.config.fail]
        keep = [i for i, d in enumerate(prepared.documents) if d.id not in self.config.fail]
        offsets = np.cumsum([0, *map(len, prepared.chunks)])
        rows = [row for i in keep for row in range(offsets[i], offsets[i + 1])]
        yield replace(
            prepared,
            documents=[prepared.documents[i] for i in keep],
            chunks=[prepared.chunks[i] for i in keep],
            vectors=prepared.vectors[rows],
            failed=tuple(d.id for d in failed),
            problems=tuple((d.source, "worker failed on it") for d in failed),
        )


def test_vectors_made_elsewhere_fill_the_cache_and_failed_documents_keep_their_version(
    pm, corpus: Path
) -> None:
    class Plugin:
        @hookimpl
        def register_executors(self, register):
            register("elsewhere", Elsewhere)

    pm.register(Plugin())
    with ragloom.load(
        basic_config(executor={"type": "elsewhere"}), plugin_manager=pm, base_dir=corpus
    ) as pipeline:
        first = pipeline.index()
    assert first.embedded == first.chunks and first.cached == 0
    before = ledger_entries(corpus / ".ragloom")

    (corpus / "docs" / "memory.md").write_text("# Memory\n\nMemories are kept forever now.\n")
    (corpus / "docs" / "security.md").write_text("# Security\n\nEverything is encrypted.\n")
    config = basic_config(executor={"type": "elsewhere", "fail": ["docs/memory.md"]})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        second = pipeline.index()
        texts = {hit.chunk.text for hit in pipeline.retrieve("memories kept", k=10)}
    after = ledger_entries(corpus / ".ragloom")
    assert second.changed == ("docs/security.md",)
    assert ("docs/memory.md", "worker failed on it") in second.problems
    assert after["docs/memory.md"] == before["docs/memory.md"]  # its old version stays
    assert after["docs/security.md"] != before["docs/security.md"]
    assert any("90 days" in t for t in texts) and not any("forever" in t for t in texts)

    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        rebuilt = pipeline.index(rebuild=True)  # in process: the vectors come from the cache
    assert rebuilt.cached > 0 and rebuilt.embedded == 1  # only the edited memory.md is new


def test_progress_gets_the_chunks_written_when_it_asks_for_them(pm, corpus: Path) -> None:
    """``progress(done, total)`` as documented; a callback with a third
    parameter also gets the chunks written so far (the CLI's bar shows them)."""
    two: list[tuple[int, int]] = []
    three: list[tuple[int, int, int]] = []
    config = basic_config(executor={"type": "inprocess"})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        report = pipeline.index(progress=lambda done, total: two.append((done, total)))
        (corpus / "docs" / "new.md").write_text("# New\n\nA new page about refunds.\n")
        pipeline.index(rebuild=True, progress=lambda d, t, chunks: three.append((d, t, chunks)))
    assert two[0] == (0, 3) and two[-1] == (3, 3)
    assert three[0] == (0, 4, 0) and three[-1][:2] == (4, 4)
    assert three[-1][2] > report.chunks  # the new page's chunk too


def test_a_document_that_failed_when_the_chunker_changed_is_rechunked_next_run(
    pm, corpus: Path
) -> None:
    """The chunker changes and one document fails on a worker: it keeps its
    old chunks, the ledger records the new chunker, and the next run still
    writes that document under the new one (its stamp names the old)."""

    class Plugin:
        @hookimpl
        def register_executors(self, register):
            register("elsewhere", Elsewhere)

    pm.register(Plugin())
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
    smaller = {"type": "recursive", "size": 60, "overlap": 0}
    config = basic_config(
        chunker=smaller, executor={"type": "elsewhere", "fail": ["docs/memory.md"]}
    )
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        changed = pipeline.index()
    assert "docs/memory.md" not in changed.changed and "docs/security.md" in changed.changed
    stale = ledger_entries(corpus / ".ragloom")["docs/memory.md"]
    with ragloom.load(
        basic_config(chunker=smaller), plugin_manager=pm, base_dir=corpus
    ) as pipeline:
        again = pipeline.index()
        memory = [h.chunk for h in pipeline.retrieve("memories", k=20)]
    assert again.changed == ("docs/memory.md",)
    assert ledger_entries(corpus / ".ragloom")["docs/memory.md"] != stale
    assert memory and all(len(c.text) <= 60 for c in memory)
    with ragloom.load(
        basic_config(chunker=smaller), plugin_manager=pm, base_dir=corpus
    ) as pipeline:
        assert pipeline.index().changed == ()  # and then it is done
