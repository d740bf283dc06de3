"""A query asks its remote stores (``remote_queries``) at once with its other
stores: stores that each wait for the others inside ``query`` answer only if
they run together; a store's error reaches the caller only once every store
has returned; the stores run in the caller's context (its run, its tracing
spans). Stores that compute in the process are asked on the caller's thread."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, ClassVar

import pluggy
import pytest
import ragloom
from ragloom.errors import StoreError
from ragloom.runs import current_run
from ragloom.types import Hit

from .conftest import DictStore, basic_config, register_store


class Meeting(DictStore):
    """A text store whose ``query`` waits at ``barrier`` (when set) for the
    other stores' queries, records the run it ran in, and fails when its
    name is in ``failing``."""

    capabilities = frozenset({"text"})
    remote: ClassVar[set[str]] = set()
    threads: ClassVar[dict[str, int]] = {}
    barrier: ClassVar[threading.Barrier | None] = None
    failing: ClassVar[set[str]] = set()
    slow: ClassVar[dict[str, float]] = {}
    interrupting: ClassVar[set[str]] = set()
    nested: ClassVar[dict[str, Any]] = {}
    runs: ClassVar[list[Any]] = []
    finished: ClassVar[list[str]] = []

    @property
    def remote_queries(self) -> bool:
        return self.context.name in type(self).remote

    def query(self, *, vector=None, text=None, k=10, where=None) -> list[Hit]:
        name = self.context.name
        type(self).threads[name] = threading.get_ident()
        type(self).runs.append(current_run.get(None))
        if type(self).barrier is not None:
            type(self).barrier.wait()  # BrokenBarrierError unless the others come
        time.sleep(type(self).slow.get(name, 0.0))
        again = type(self).nested.pop(name, None)
        if again is not None:
            again.retrieve("document")  # asks its pipeline again, once
        type(self).finished.append(name)
        if name in type(self).interrupting:
            raise KeyboardInterrupt
        if name in type(self).failing:
            raise StoreError(f"{name} is down")
        ranked = sorted(self.chunks.values(), key=lambda c: c.id)[:k]
        return [Hit(chunk=c, score=1.0 / (1 + i), store=name) for i, c in enumerate(ranked)]


@pytest.fixture
def project(tmp_path: Path, pm: pluggy.PluginManager) -> Path:
    register_store(pm, "meeting", Meeting)
    Meeting.barrier, Meeting.failing, Meeting.slow = None, set(), {}
    Meeting.runs, Meeting.finished = [], []
    Meeting.remote, Meeting.threads = {"one", "two", "three"}, {}
    Meeting.interrupting, Meeting.nested = set(), {}
    (tmp_path / "docs").mkdir()
    for name in ("a", "b", "c"):
        (tmp_path / "docs" / f"{name}.md").write_text(f"Document {name}.\n")
    return tmp_path


def config(*names: str) -> dict:
    return basic_config(stores=[{"type": "meeting", "name": n} for n in names])


def test_the_stores_of_one_query_are_asked_at_once(project: Path, pm) -> None:
    with ragloom.load(config("one", "two", "three"), plugin_manager=pm, base_dir=project) as p:
        p.index()
        # each query waits for the other two: asked one after another, the first would time out
        Meeting.barrier = threading.Barrier(3, timeout=10)
        hits = p.retrieve("document")
        assert len(hits) == 3
        assert sorted(Meeting.finished) == ["one", "three", "two"]
        # and again, from several threads at once (the pool is shared)
        Meeting.barrier = None
        with_threads: list[int] = []
        threads = [
            threading.Thread(target=lambda: with_threads.append(len(p.retrieve("document"))))
            for _ in range(8)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert with_threads == [3] * 8


@pytest.mark.parametrize("remote", [["one"], ["two"], ["one", "two"]])
def test_a_remote_store_is_asked_at_once_with_a_local_one(
    project: Path, pm, remote: list[str]
) -> None:
    Meeting.remote = set(remote)
    with ragloom.load(config("one", "two"), plugin_manager=pm, base_dir=project) as p:
        p.index()
        Meeting.barrier = threading.Barrier(2, timeout=10)
        assert len(p.retrieve("document")) == 3


def test_stores_that_compute_here_are_asked_on_the_callers_thread(project: Path, pm) -> None:
    Meeting.remote = set()
    with ragloom.load(config("one", "two", "three"), plugin_manager=pm, base_dir=project) as p:
        p.index()
        Meeting.threads = {}
        p.retrieve("document")
        assert Meeting.threads == dict.fromkeys(["one", "two", "three"], threading.get_ident())
        assert p.retriever._pool is None  # no pool made for them


def test_every_store_runs_in_the_callers_run(project: Path, pm) -> None:
    with ragloom.load(config("one", "two"), plugin_manager=pm, base_dir=project) as p:
        p.index()
        Meeting.runs, Meeting.slow = [], {"one": 0.3}  # "two" finishes first
        hits = p.retrieve("document")
        assert Meeting.finished == ["two", "one"]
        assert len(Meeting.runs) == 2 and None not in Meeting.runs
        assert Meeting.runs[0].id == Meeting.runs[1].id
        # each store's stage is in the hits' trace, in the config's order,
        # whichever thread ran it and whichever finished first
        assert [t.name for t in hits.trace if t.stage == "retrieve"] == ["one", "two"]


@pytest.mark.parametrize("failing", ["one", "two"])
def test_a_failing_store_fails_the_query_after_the_others_returned(
    project: Path, pm, failing: str
) -> None:
    with ragloom.load(config("one", "two"), plugin_manager=pm, base_dir=project) as p:
        p.index()
        Meeting.failing = {failing}
        Meeting.slow = {n: 0.3 for n in ("one", "two") if n != failing}
        Meeting.finished = []
        with pytest.raises(StoreError, match=f"{failing} is down"):
            p.retrieve("document")
        # the other store had finished before the error reached the caller:
        # none runs after the store lock is let go
        assert sorted(Meeting.finished) == ["one", "two"]
        Meeting.failing, Meeting.slow = set(), {}
        assert len(p.retrieve("document")) == 3  # the pipeline goes on


def test_the_pool_is_closed_with_the_pipeline_and_made_again(project: Path, pm) -> None:
    p = ragloom.load(config("one", "two"), plugin_manager=pm, base_dir=project)
    with p:
        p.index()
        p.retrieve("document")
        pool = p.retriever._pool
        assert pool is not None
    assert p.retriever._pool is None
    with pytest.raises(RuntimeError):
        pool.submit(print)  # shut down
    with p:
        assert len(p.retrieve("document")) == 3
        assert p.retriever._pool is not None and p.retriever._pool is not pool


def test_an_interrupted_query_waits_for_the_pool_before_it_lets_go(project: Path, pm) -> None:
    """Ctrl-C in the store the caller asks while a remote store still runs:
    the interruption is raised only once that store has returned (so no
    index run writes under it)."""
    Meeting.remote = {"one"}
    with ragloom.load(config("one", "two"), plugin_manager=pm, base_dir=project) as p:
        p.index()
        Meeting.slow, Meeting.interrupting, Meeting.finished = {"one": 0.3}, {"two"}, []
        with pytest.raises(KeyboardInterrupt):
            p.retrieve("document")
        assert Meeting.finished == ["two", "one"]
        Meeting.slow, Meeting.interrupting = {}, set()
        assert len(p.retrieve("document")) == 3


def test_the_first_stores_error_is_raised_whichever_failed_first(project: Path, pm) -> None:
    Meeting.remote = {"one"}  # asked on the pool, after "two" fails on the caller
    with ragloom.load(config("one", "two"), plugin_manager=pm, base_dir=project) as p:
        p.index()
        Meeting.failing, Meeting.slow = {"one", "two"}, {"one": 0.2}
        with pytest.raises(StoreError, match="one is down"):
            p.retrieve("document")


def test_a_query_during_close_is_asked_on_the_callers_thread(project: Path, pm) -> None:
    """The pool shut down under a running query (``close()`` from another
    thread): the stores it can no longer take are asked by the caller."""
    with ragloom.load(config("one", "two", "three"), plugin_manager=pm, base_dir=project) as p:
        p.index()
        p.retrieve("document")
        pool = p.retriever._pool
        pool.shutdown()  # as close() would, with the query already past _store_pool()
        Meeting.threads = {}
        assert len(p.retrieve("document")) == 3
        assert set(Meeting.threads.values()) == {threading.get_ident()}


def test_a_store_that_asks_the_pipeline_again_does_not_wait_on_the_pool(project: Path, pm) -> None:
    """Every pool thread busy with a store whose query asks the pipeline
    again: that inner query runs on the pool thread, not queued behind it."""
    with ragloom.load(config("one", "two"), plugin_manager=pm, base_dir=project) as p:
        p.index()
        p.retriever.STORE_WORKERS = 1
        p.retriever.close()
        Meeting.nested = {"one": p}  # "one" runs on the pool's only thread
        done: list[int] = []
        worker = threading.Thread(target=lambda: done.append(len(p.retrieve("document"))))
        worker.start()
        worker.join(timeout=20)
        assert not worker.is_alive(), "the inner query waited on the pool it runs on"
        assert done == [3]
