"""Executors whose workers write the stores (``ragloom.executors.WritesStores``):
only when every configured store declares ``Store.shared_writes``, each
held batch written under ids the journal named first, every write flushed
before the ledger commits, and a failed write commits nothing.

The executor here is a stand-in for a cluster's (``ragloom-ray`` tests the
real one): it builds its own stores from ``IndexWork.stores``, as a worker
on another machine would, and writes them itself. The store is a stand-in
for a server: every instance with the same ``server`` reads and writes the
same data."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
import ragloom
from ragloom import Chunk, ComponentConfig, Hit, Store, hookimpl
from ragloom.components import Context, Executor
from ragloom.errors import RagloomError
from ragloom.executors import (
    IndexWork,
    Prepared,
    StoreRecipe,
    from_recipe,
    held_ids,
    prepare_batch,
)
from ragloom.ledger import Journal
from ragloom.testing.corpora import assert_agrees

from .conftest import basic_config
from .test_executors import ledger_entries

SERVERS: dict[str, dict[str, tuple[Chunk, np.ndarray | None]]] = {}


class ServerStore(Store):
    """Chunks on a 'server' (a dict shared by every instance naming it)."""

    class Config(ComponentConfig):
        server: str = "default"

    capabilities = frozenset({"dense"})

    @property
    def shared_writes(self) -> bool:
        return True

    @property
    def data(self) -> dict[str, tuple[Chunk, np.ndarray | None]]:
        return SERVERS.setdefault(self.config.server, {})

    def upsert(self, chunks, vectors=None):
        for i, chunk in enumerate(chunks):
            self.data[chunk.id] = (chunk, None if vectors is None else np.asarray(vectors[i]))

    def query(self, *, vector=None, text=None, k=10, where=None):
        scored = [(float(v @ vector), c) for c, v in self.data.values() if v is not None]
        scored.sort(key=lambda pair: -pair[0])
        return [Hit(chunk=c, score=s) for s, c in scored[:k]]

    def delete(self, *, ids=None, where=None):
        gone = [i for i in ids or () if i in self.data]
        for i in gone:
            del self.data[i]
        return len(gone)

    def count(self, where=None):
        return len(self.data)

    def ids(self, where=None):
        return iter(list(self.data))


class Workers(Executor):
    """Prepares batches of 2 and, when the run lets it, writes them from its
    own 'worker' stores (built from ``work.stores``), holding each batch until
    ``write``; records what it saw."""

    class Config(ComponentConfig):
        fail_writes: bool = False

    seen: ClassVar[dict[str, object]] = {}

    def map(self, work: IndexWork, documents: Sequence) -> Iterator[Prepared]:
        self.work = work
        type(self).seen["stores"] = work.stores
        self.held: dict[int, tuple[list[Chunk], np.ndarray | None]] = {}
        self.stores = [_open(recipe, work) for recipe in work.stores]
        self.writes: list[list[str]] = []
        chunker = from_recipe((work.chunker.entry.cls, work.chunker.config, work.chunker.type))
        embedder = from_recipe((work.embedder.entry.cls, work.embedder.config, work.embedder.type))
        embedder.open(Context())
        for start in range(0, len(documents), 2):
            batch = prepare_batch(chunker, embedder, documents[start : start + 2], vectors=True)
            if not self.stores:
                yield batch
                continue
            token = len(self.held)
            self.held[token] = ([c for cs in batch.chunks for c in cs], batch.vectors)
            stripped = [
                [Chunk(c.id, c.document_id, "", c.index, 0, 0, "") for c in cs]
                for cs in batch.chunks
            ]
            yield Prepared(documents=batch.documents, chunks=stripped, held=token)

    def write(self, prepared: Prepared, ids: Sequence[str]) -> None:
        pending = Journal(self.work.index_dir / "journal.jsonl").pending()
        assert set(ids) <= pending, "a store would see an id the journal does not name"
        chunks, vectors = self.held.pop(prepared.held)
        self.writes.append(list(ids))
        for store in self.stores:
            store.upsert(held_ids(chunks, ids), vectors)

    def flush_writes(self) -> None:
        type(self).seen["writes"] = self.writes
        if self.config.fail_writes:
            raise RagloomError("a worker lost its connection to the store")


def _open(recipe: StoreRecipe, work: IndexWork) -> Store:
    store = from_recipe(recipe.recipe)
    store.open(Context(index_dir=work.index_dir, name=recipe.name))
    return store


class Plugin:
    @hookimpl
    def register_executors(self, register):
        register("workers", Workers)

    @hookimpl
    def register_stores(self, register):
        register("server", ServerStore)


class DriverWrites:
    """Counts the store writes run on the driver (the run's stages)."""

    def __init__(self) -> None:
        self.upserts = 0

    @hookimpl(wrapper=True)
    def run_stage(self, call):
        if call.stage == "upsert":
            self.upserts += 1
        return (yield)


@pytest.fixture
def plugin_pm(pm):
    pm.register(Plugin())
    SERVERS.clear()
    Workers.seen.clear()
    return pm


def test_workers_write_every_store_when_all_are_shared(plugin_pm, corpus: Path) -> None:
    driver = DriverWrites()
    plugin_pm.register(driver)
    stores = [{"type": "server", "server": "a"}, {"type": "server", "name": "b", "server": "b"}]
    config = basic_config(index_dir=".w", executor={"type": "workers"}, stores=stores)
    with ragloom.load(config, plugin_manager=plugin_pm, base_dir=corpus) as pipeline:
        report = pipeline.index()
        documents = assert_agrees(pipeline)
        hits = pipeline.retrieve("How long are memories kept?", k=2)
    assert [s.name for s in Workers.seen["stores"]] == ["server", "b"]
    assert driver.upserts == 0  # the driver wrote nothing itself
    assert sum(len(ids) for ids in Workers.seen["writes"]) == report.chunks
    assert len(documents) == 3 and hits and "memories" in hits[0].chunk.text.lower()
    assert set(SERVERS["a"]) == set(SERVERS["b"])

    in_process = basic_config(index_dir=".p", stores=[{"type": "server", "server": "p"}])
    with ragloom.load(in_process, plugin_manager=plugin_pm, base_dir=corpus) as pipeline:
        pipeline.index()
    assert ledger_entries(corpus / ".w") == ledger_entries(corpus / ".p")
    for cid, (chunk, vector) in SERVERS["p"].items():
        assert SERVERS["a"][cid][0] == chunk  # text and metadata written on the workers
        np.testing.assert_allclose(SERVERS["a"][cid][1], vector)


def test_one_store_that_is_not_shared_keeps_every_write_on_the_driver(
    plugin_pm, corpus: Path
) -> None:
    driver = DriverWrites()
    plugin_pm.register(driver)
    stores = [{"type": "server"}, {"type": "bm25"}]
    config = basic_config(executor={"type": "workers"}, stores=stores)
    with ragloom.load(config, plugin_manager=plugin_pm, base_dir=corpus) as pipeline:
        pipeline.index()
        assert_agrees(pipeline)
    assert Workers.seen["stores"] == ()
    assert driver.upserts == 2 * 2  # two batches, two stores


def test_a_failed_worker_write_commits_nothing_and_the_next_run_repairs(
    plugin_pm, corpus: Path
) -> None:
    stores = [{"type": "server"}]
    failing = basic_config(executor={"type": "workers", "fail_writes": True}, stores=stores)
    with (
        ragloom.load(failing, plugin_manager=plugin_pm, base_dir=corpus) as pipeline,
        pytest.raises(RagloomError, match="lost its connection"),
    ):
        pipeline.index()
    assert ledger_entries(corpus / ".ragloom") == {}  # nothing committed
    assert SERVERS["default"]  # though the workers had written: the journal names it all
    assert Journal(corpus / ".ragloom" / "journal.jsonl").pending() >= set(SERVERS["default"])
    with ragloom.load(basic_config(stores=stores), plugin_manager=plugin_pm, base_dir=corpus) as p:
        report = p.index()
        assert_agrees(p)  # no orphan left by the failed run
    assert len(report.added) == 3


def test_held_ids_refuses_chunks_that_are_not_the_journaled_ones() -> None:
    chunks = [Chunk("d#0", "d", "a", 0, 0, 1, "d"), Chunk("d#1", "d", "b", 1, 1, 2, "d")]
    assert [c.id for c in held_ids(chunks, ["d#0@s", "d#1@s"])] == ["d#0@s", "d#1@s"]
    with pytest.raises(RagloomError, match="not the journaled"):
        held_ids(chunks, ["d#0@s", "d#2@s"])
    with pytest.raises(RagloomError, match="journaled 1"):
        held_ids(chunks, ["d#0@s"])


def test_stores_say_whether_they_take_shared_writes(registry) -> None:
    memory = registry.get("store", "memory").cls()
    assert memory.shared_writes is False
    assert ServerStore().shared_writes is True
