"""Stores written from the Ray actors (``writes: auto``) when every configured
store declares ``shared_writes``: here pgvector on a real PostgreSQL server
(the plugin's embedded one, reached by ``dsn`` as a server elsewhere would be).

- the same corpus gives the same ledger and the same rows (ids, text,
  vectors within float tolerance) as the in-process run, and the driver
  itself wrote nothing (no ``upsert`` stage ran on it);
- a store that cannot be shared (``bm25`` beside it) or ``writes: driver``
  keeps the writes on the driver;
- an actor killed in the middle of a write prepares its batch again on
  restart and writes the same chunks: nothing lost, nothing twice;
- the driver killed with SIGKILL at random points, then a complete run:
  the stores and the ledger agree exactly with the corpus.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psycopg
import pytest
import ragloom
import ragloom_pgvector.plugin
import ray.cloudpickle
import yaml
from ragloom import hookimpl
from ragloom.testing.corpora import RAGLOOM, assert_agrees, kill_runs, make_corpus, run_index
from ragloom_pgvector import embedded
from ragloom_pgvector.store import PgvectorStore
from ray_helpers import config, entries, ray_executor, write_doc

DRIVER = os.getpid()


@pytest.fixture
def pm(pm):
    """The ray plugin's plugin manager, with the pgvector plugin too."""
    pm.register(ragloom_pgvector.plugin, name="pgvector")
    return pm


@pytest.fixture(scope="module")
def pg_dsn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A PostgreSQL server with pgvector for this module, reached by URI."""
    data_dir = tmp_path_factory.mktemp("pg") / "pgdata"
    uri = embedded.acquire(data_dir)
    try:
        with psycopg.connect(uri, autocommit=True) as conn:
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                conn.execute(f"ALTER SYSTEM SET {setting} = off")
            conn.execute("SELECT pg_reload_conf()")
        yield uri
    finally:
        embedded.release(data_dir)


def pg_store(dsn: str, table: str, **options: object) -> dict:
    return {"type": "pgvector", "dsn": dsn, "table": table, **options}


def rows(dsn: str, table: str) -> dict[str, tuple[str, np.ndarray]]:
    """id -> (text, vector) of every row of ``table``."""
    with psycopg.connect(dsn) as conn:
        fetched = conn.execute(f'SELECT id, text, embedding::text FROM "{table}"').fetchall()
    return {
        cid: (text, np.array([float(x) for x in vector.strip("[]").split(",")]))
        for cid, text, vector in fetched
    }


class Stages:
    """Records the (stage, store) of every store write run in this process."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    @hookimpl(wrapper=True)
    def run_stage(self, call):
        if call.stage == "upsert":
            self.seen.append((call.stage, call.name))
        return (yield)


def test_the_actors_write_a_shared_store_and_build_the_in_process_index(
    tmp_path: Path, pm, ray_address: str, pg_dsn: str
) -> None:
    stages = Stages()
    pm.register(stages)
    docs = make_corpus(tmp_path, 30)
    local_cfg = config(".local", stores=[pg_store(pg_dsn, "local_a")])
    ray_cfg = config(".ray", ray_executor(ray_address), stores=[pg_store(pg_dsn, "ray_a")])

    def index_both() -> tuple[dict, dict, object]:
        with ragloom.load(local_cfg, plugin_manager=pm, base_dir=tmp_path) as local:
            local.index()
            local_entries = entries(local)
        assert ("upsert", "pgvector") in stages.seen  # in process: the driver writes
        stages.seen.clear()
        with ragloom.load(ray_cfg, plugin_manager=pm, base_dir=tmp_path) as remote:
            report = remote.index()
            ray_entries = entries(remote)
            hits = remote.retrieve("invoice refund", k=3)
            counts = remote.stores[0][1].count()
        assert stages.seen == []  # on Ray: the actors wrote, the driver did not
        assert ray_entries == local_entries
        assert counts == sum(len(e[2]) for e in ray_entries.values())
        assert hits and {h.chunk.id for h in hits} <= set(rows(pg_dsn, "ray_a"))
        return local_entries, ray_entries, report

    first, _, report = index_both()
    assert len(first) == 30 and report.chunks > 30
    assert_same_rows(pg_dsn, "local_a", "ray_a")

    rng = random.Random(5)
    files = sorted(docs.glob("*.md"))
    for path in files[:4]:
        write_doc(path, rng)  # changed
    for path in files[4:6]:
        path.unlink()  # deleted
    write_doc(docs / "new-0.md", rng)  # added
    _, _, report = index_both()
    assert (len(report.changed), len(report.deleted), len(report.added)) == (4, 2, 1)
    assert_same_rows(pg_dsn, "local_a", "ray_a")

    with psycopg.connect(pg_dsn, autocommit=True) as conn:  # garbage in the table
        conn.execute("UPDATE \"ray_a\" SET text = 'garbage'")
    stages.seen.clear()
    with ragloom.load(ray_cfg, plugin_manager=pm, base_dir=tmp_path) as remote:
        rebuilt = remote.index(rebuild=True)  # emptied on the driver, written by the actors
        assert_agrees(remote)
    assert len(rebuilt.added) == 29 and stages.seen == []
    assert_same_rows(pg_dsn, "local_a", "ray_a")


def assert_same_rows(dsn: str, local: str, remote: str) -> None:
    expected, got = rows(dsn, local), rows(dsn, remote)
    assert set(got) == set(expected)
    for cid, (text, vector) in expected.items():
        assert got[cid][0] == text
        np.testing.assert_allclose(got[cid][1], vector, rtol=1e-5, atol=1e-6)


def test_a_store_that_is_not_shared_keeps_the_writes_on_the_driver(
    tmp_path: Path, pm, ray_address: str, pg_dsn: str
) -> None:
    stages = Stages()
    pm.register(stages)
    make_corpus(tmp_path, 10)
    mixed = config(
        ".mixed", ray_executor(ray_address), stores=[pg_store(pg_dsn, "mixed"), {"type": "bm25"}]
    )
    with ragloom.load(mixed, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        pipeline.index()
        assert_agrees(pipeline)
    assert {name for _, name in stages.seen} == {"pgvector", "bm25"}
    stages.seen.clear()
    on_driver = config(
        ".driver",
        ray_executor(ray_address, writes="driver"),
        stores=[pg_store(pg_dsn, "on_driver")],
    )
    with ragloom.load(on_driver, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        pipeline.index()
        assert_agrees(pipeline)
    assert {name for _, name in stages.seen} == {"pgvector"}


class DyingPgvector(PgvectorStore):
    """pgvector whose Ray worker process kills itself (SIGKILL) in the middle of
    its first write, once (a marker file): the batch it held is lost with it."""

    class Config(PgvectorStore.Config):
        markers: str = ""

    def upsert(self, chunks, vectors=None):
        marker = Path(self.config.markers) / "died"
        if os.getpid() != DRIVER and not marker.exists():
            marker.write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return super().upsert(chunks, vectors)


class DyingPlugin:
    @hookimpl
    def register_stores(self, register):
        register("dying-pgvector", DyingPgvector)


def test_an_actor_killed_while_writing_writes_the_same_chunks_on_restart(
    tmp_path: Path, pm, ray_address: str, pg_dsn: str
) -> None:
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    pm.register(DyingPlugin())
    make_corpus(tmp_path, 24)
    markers = tmp_path / "markers"
    markers.mkdir()
    local_cfg = config(".local", stores=[pg_store(pg_dsn, "dying_local")])
    with ragloom.load(local_cfg, plugin_manager=pm, base_dir=tmp_path) as local:
        local.index()
        expected = entries(local)
    store = {**pg_store(pg_dsn, "dying_ray"), "type": "dying-pgvector", "markers": str(markers)}
    cfg = config(".ray", ray_executor(ray_address, batch_size=4, max_retries=2), stores=[store])
    with ragloom.load(cfg, plugin_manager=pm, base_dir=tmp_path) as remote:
        report = remote.index()
        got = entries(remote)
        count = remote.stores[0][1].count()
    died = int((markers / "died").read_text())
    assert died != DRIVER  # a worker really died mid-write
    assert got == expected
    assert count == sum(len(e[2]) for e in got.values()) == report.chunks
    assert_same_rows(pg_dsn, "dying_local", "dying_ray")  # nothing lost, nothing twice


def test_sigkill_of_the_driver_while_actors_write_then_rerun_agrees_exactly(
    tmp_path: Path, ray_address: str, pg_dsn: str
) -> None:
    rng = random.Random(20261202)
    docs = make_corpus(tmp_path, 60, seed=13)
    stores = [pg_store(pg_dsn, "crash")]
    on_ray = ray_executor(ray_address, batch_size=5)

    def write_config(executor: dict | None) -> None:
        data = config(".ragloom", executor, stores=stores)
        (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(data))

    write_config(on_ray)
    started = time.perf_counter()
    assert run_index(tmp_path, os.environ).wait(timeout=300) == 0
    duration = time.perf_counter() - started

    kills, serial = kill_runs(
        tmp_path,
        docs,
        rng,
        kills=3,
        most=24,  # the first run, timed cold on a busy machine, can outlast later ones
        duration=duration,
        earliest=0.3,
        before=lambda serial: write_config(on_ray if serial % 3 else None),  # a third in process
    )
    assert kills >= 3, f"only {kills} of {serial} runs were killed mid-way: it proves too little"
    time.sleep(1.0)  # the dead driver's actors go with it (Ray kills what it owned)

    write_config(on_ray)
    final = subprocess.run(
        [RAGLOOM, "index"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert final.returncode == 0, final.stderr

    write_config(None)
    with ragloom.load(tmp_path / "ragloom.yaml") as pipeline:
        documents = assert_agrees(pipeline)
        again = pipeline.index()
    assert again.unchanged == len(documents) and again.chunks == 0
    assert not (pipeline.index_dir / "journal.jsonl").exists()
