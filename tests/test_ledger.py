"""The incremental index: renames, big documents, chunker changes, the lock,
the journal."""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import ragloom
import yaml
from ragloom import ledger as ledger_module
from ragloom.errors import IndexDamagedError, IndexStateError
from ragloom.filters import parse
from ragloom.ledger import Journal, Ledger, index_lock

from .conftest import basic_config


def store_ids(store: object) -> set[str]:
    chunks = store._chunks  # both built-in stores keep their chunks here
    return {c.id for c in (chunks.values() if isinstance(chunks, dict) else chunks)}


def test_rename_is_a_delete_and_an_add(corpus: Path, pm) -> None:
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        (corpus / "docs" / "memory.md").rename(corpus / "docs" / "memories.md")
        report = pipeline.index()
        assert report.added == ("docs/memories.md",) and report.deleted == ("docs/memory.md",)
        for name, store in pipeline.stores:
            assert store.count(parse({"source": "docs/memory.md"})) == 0, name
            assert store.count(parse({"source": "docs/memories.md"})) >= 1, name


def test_document_spanning_several_embedding_batches(tmp_path: Path, pm) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    paragraphs = [f"Paragraph {i} talks about subject {i} in detail." for i in range(700)]
    (docs / "big.md").write_text("\n\n".join(paragraphs))
    config = basic_config(
        chunker={"type": "recursive", "size": 60, "overlap": 0},
        embedder={"type": "hash", "dimension": 64, "batch_size": 16},
    )
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        first = pipeline.index()
        assert first.chunks == 700
        ids = {name: store_ids(store) for name, store in pipeline.stores}
        assert all(len(v) == 700 for v in ids.values())
        paragraphs[350] = "Paragraph 350 was rewritten completely."
        (docs / "big.md").write_text("\n\n".join(paragraphs))
        second = pipeline.index()
        assert second.changed == ("docs/big.md",) and second.chunks == 700
        assert second.embedded == 1 and second.cached == 699  # only the edited text
        for name, store in pipeline.stores:
            now = store_ids(store)
            assert len(now) == 700 and not (now & ids[name]), name  # the old version is gone
        hit = pipeline.retrieve("rewritten completely", k=1)[0]
        assert hit.chunk.text == "Paragraph 350 was rewritten completely."


def test_chunker_change_rechunks_everything(corpus: Path, pm) -> None:
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        before = {n: store_ids(s) for n, s in pipeline.stores}
    changed = basic_config(chunker={"type": "fixed", "size": 40, "overlap": 0})
    with ragloom.load(changed, plugin_manager=pm, base_dir=corpus) as pipeline:
        assert len(pipeline.index(dry_run=True).changed) == 3
        report = pipeline.index()
        assert len(report.changed) == 3
        for name, store in pipeline.stores:
            after = store_ids(store)
            assert not (after & before[name]) and len(after) == report.chunks, name
        # said, with what changed (two configs taking turns on one index_dir
        # chunked everything again on every run, with nothing said)
        said = dict(report.problems)["chunker"]
        assert "chunked by another chunker config" in said
        assert "size 200 -> 40" in said and "type recursive -> fixed" in said
        assert "chunker" not in dict(pipeline.index().problems)  # once, not every run


def test_two_runs_cannot_hold_one_index(corpus: Path, pm) -> None:
    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    with index_lock(corpus / ".ragloom"):  # as if another run were indexing
        result = subprocess.run(
            [str(Path(sys.executable).parent / "ragloom"), "index"],
            cwd=corpus,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ},
        )
        assert result.returncode == 1 and "another index run holds" in result.stderr
        assert f"(process {os.getpid()})" in result.stderr  # which one, for `ps`
        with (
            ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline,
            pytest.raises(IndexStateError, match="holds"),
        ):
            pipeline.index()
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        assert len(pipeline.index().added) == 3  # released when the holder is done


def test_journal_ignores_a_torn_last_line(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.jsonl")
    journal.record(["a", "b"])
    with open(journal.path, "a") as handle:
        handle.write('["c", "d"')  # killed mid-write
    assert journal.pending() == {"a", "b"}
    journal.clear()
    assert journal.pending() == set()


def test_orphans_named_by_the_journal_are_repaired(corpus: Path, pm) -> None:
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        ledger = Ledger(pipeline.index_dir / "ledger.sqlite").open()
        owned = {c for e in ledger.entries().values() for c in e.chunk_ids}
        ledger.close()
        # simulate a run killed after writing a chunk it had journaled
        from ragloom.types import Chunk

        orphan = Chunk(
            "docs/gone.md::0@dead",
            "docs/gone.md",
            "orphan text",
            0,
            0,
            11,
            "docs/gone.md#chunk-0",
            {"source": "docs/gone.md", "document_id": "x"},
        )
        Journal(pipeline.index_dir / "journal.jsonl").record([orphan.id])
        for _, store in pipeline.stores:
            dense = "dense" in store.capabilities
            store.upsert(
                [orphan], pipeline.embedder.embed_documents(["orphan text"]) if dense else None
            )
        pipeline.index()
        for name, store in pipeline.stores:
            assert store_ids(store) == owned, name


@pytest.mark.parametrize(
    "exc",
    [
        sqlite3.OperationalError("attempt to write a readonly database"),
        sqlite3.OperationalError("unable to open database file"),
        PermissionError(13, "Permission denied"),
    ],
)
def test_a_ledger_that_cannot_be_written_is_not_called_damaged(tmp_path: Path, exc) -> None:
    """A read-only index folder was "damaged: run --rebuild", and the rebuild
    then failed too: the message says to look at the permissions."""
    message = str(Ledger(tmp_path / "ledger.sqlite")._damaged(exc))
    assert "cannot be written" in message and "check that this user may write" in message
    assert "--rebuild" not in message


def test_a_ledger_that_is_not_sqlite_is_damaged(tmp_path: Path) -> None:
    (tmp_path / "ledger.sqlite").write_bytes(b"not a database, not at all" * 100)
    with pytest.raises(IndexStateError, match="is damaged .* run `ragloom index --rebuild`"):
        Ledger(tmp_path / "ledger.sqlite").open()


def hold_for(path: Path, seconds: float) -> threading.Timer:
    """Another connection holding ``path``'s write lock (a process creating
    it, in rollback-journal mode as a new file starts) for ``seconds``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("CREATE TABLE IF NOT EXISTS early (x)")

    def let_go() -> None:
        holder.execute("COMMIT")
        holder.close()

    timer = threading.Timer(seconds, let_go)
    timer.start()
    return timer


def test_a_ledger_another_process_is_creating_is_waited_for(tmp_path: Path) -> None:
    """SQLite answers `PRAGMA journal_mode=WAL` "database is locked" at once,
    busy timeout or not, while another connection writes the new file: a
    server and a cron `ragloom index` starting together on a new index, or
    threads of one process, got "the ledger is damaged: run --rebuild"."""
    path = tmp_path / ".ragloom" / "ledger.sqlite"
    timer = hold_for(path, 0.3)
    ledger = Ledger(path).open()
    timer.join()
    assert ledger.entries() == {}
    assert ledger.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    ledger.close()


def test_a_ledger_locked_for_too_long_is_not_called_damaged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger_module, "_BUSY_SECONDS", 0.2)
    path = tmp_path / "ledger.sqlite"
    timer = hold_for(path, 2.0)
    with pytest.raises(IndexStateError, match="stayed locked for 0.2 s") as caught:
        Ledger(path).open()
    timer.join()
    assert "--rebuild" not in str(caught.value) and "try again" in str(caught.value)
    Ledger(path).open().close()  # let go: it opens


@pytest.mark.parametrize(
    ("exc", "said"),
    [
        (sqlite3.OperationalError("database or disk is full"), "the disk holding it is full"),
        (sqlite3.OperationalError("disk I/O error"), "a disk I/O error"),
        (OSError(28, "No space left on device"), "the disk holding it is full"),
    ],
)
def test_a_full_or_failing_disk_is_not_a_damaged_ledger(tmp_path: Path, exc, said) -> None:
    """A full volume was "the ledger is damaged: run --rebuild", and the
    rebuild moved the good ledger aside: the index was down until --repair."""
    error = Ledger(tmp_path / "ledger.sqlite")._damaged(exc)
    assert said in str(error) and "not damaged: do not rebuild" in str(error)
    assert not isinstance(error, IndexDamagedError)


def test_rebuild_keeps_a_ledger_it_cannot_open_for_want_of_space(
    corpus: Path, pm, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
    ledger = corpus / ".ragloom" / "ledger.sqlite"
    opened = Ledger.open

    def full(self: Ledger, *, read_only: bool = False) -> Ledger:
        raise self._damaged(sqlite3.OperationalError("database or disk is full"))

    monkeypatch.setattr(Ledger, "open", full)
    with (
        ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline,
        pytest.raises(IndexStateError, match="is full") as caught,
    ):
        pipeline.index(rebuild=True)
    assert not isinstance(caught.value, IndexDamagedError)
    assert not list(ledger.parent.glob("ledger.sqlite.damaged-*"))  # kept where it was
    monkeypatch.setattr(Ledger, "open", opened)
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        assert pipeline.retrieve("refund")  # space is back: the index answers as before
        assert pipeline.index().unchanged


def test_a_folder_where_the_index_lock_goes_is_moved_aside(
    corpus: Path, pm, caplog: pytest.LogCaptureFixture
) -> None:
    """Every run, --rebuild too, died with 'unexpected IsADirectoryError'."""
    lock = corpus / ".ragloom" / "index.lock"
    (lock / "x").mkdir(parents=True)
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        assert pipeline.index().added
    assert lock.is_file() and "was a folder" in caplog.text
    (aside,) = lock.parent.glob("index.lock.damaged-*")
    assert (aside / "x").is_dir()  # moved, not deleted


@pytest.mark.parametrize("folder", ["ledger.sqlite", "ledger.sqlite-wal"])
def test_a_folder_where_the_ledger_goes_is_recovered_by_rebuild(
    corpus: Path, pm, folder: str
) -> None:
    """A folder in the ledger's place (a sync tool, a bad restore) was called a
    permission problem, and --rebuild stopped on it."""
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
    index_dir = corpus / ".ragloom"
    for name in ("ledger.sqlite", "ledger.sqlite-wal", "ledger.sqlite-shm"):
        (index_dir / name).unlink(missing_ok=True)
    if folder != "ledger.sqlite":
        (index_dir / "ledger.sqlite").touch()
    (index_dir / folder).mkdir()
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        with pytest.raises(IndexDamagedError, match="is a folder .*--rebuild"):
            pipeline.index()
        assert pipeline.index(rebuild=True).added
        assert pipeline.retrieve("refund")
    assert list(index_dir.glob("ledger.sqlite.damaged-*"))


# -- a full disk under the index's own files -------------------------------------


def _no_space(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_journal_the_disk_cannot_hold_is_named_with_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write through a file object names no file: it was "unexpected
    OSError: [Errno 28] ...", nothing named, read as a ragloom bug."""
    journal = Journal(tmp_path / "journal.jsonl")
    monkeypatch.setattr(ledger_module.os, "fsync", _no_space)
    with pytest.raises(IndexStateError) as raised:
        journal.record(["a::0@x"])
    said = str(raised.value)
    assert f"cannot write {tmp_path / 'journal.jsonl'}: No space left on device" in said
    assert "free space" in said and "`ragloom index` again" in said
    assert "half-way" in said


def test_an_index_lock_the_disk_cannot_hold_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger_module.os, "write", _no_space)
    with (
        pytest.raises(IndexStateError, match="cannot write .*index.lock: No space left"),
        index_lock(tmp_path / "idx"),
    ):
        pass


def test_other_write_errors_of_the_journal_name_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(*args: object) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(ledger_module.os, "fsync", failing)
    with pytest.raises(OSError) as raised:
        Journal(tmp_path / "journal.jsonl").record(["a::0@x"])
    assert raised.value.filename == str(tmp_path / "journal.jsonl")


class _FullOnDelete:
    """A connection on a full disk: SQLite fails the statement and has
    rolled the transaction back already."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    @property
    def in_transaction(self) -> bool:
        return self._db.in_transaction

    def execute(self, sql: str, *args: object) -> object:
        if sql.startswith("DELETE FROM documents"):
            self._db.execute("ROLLBACK")
            raise sqlite3.OperationalError("database or disk is full")
        return self._db.execute(sql, *args)

    def __getattr__(self, name: str) -> object:
        return getattr(self._db, name)


def test_clearing_on_a_full_disk_keeps_the_first_error(tmp_path: Path) -> None:
    """`--rebuild` said "cannot rollback - no transaction is active": the
    ROLLBACK after SQLite's own replaced the error that matters."""
    ledger = Ledger(tmp_path / "ledger.sqlite").open()
    ledger._db = _FullOnDelete(ledger.db)  # type: ignore[assignment]
    with pytest.raises(sqlite3.OperationalError, match="database or disk is full"):
        ledger.clear(rebuilding=1.0)
    ledger.close()


def test_a_ledger_commit_on_a_full_disk_names_the_ledger(
    corpus: Path, pm, monkeypatch: pytest.MonkeyPatch
) -> None:
    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    real_commit = Ledger.commit

    def full(self: Ledger) -> None:
        self.db.execute("ROLLBACK")
        raise sqlite3.OperationalError("database or disk is full")

    with ragloom.load(corpus / "ragloom.yaml", plugin_manager=pm) as pipeline:
        monkeypatch.setattr(Ledger, "commit", full)
        with pytest.raises(IndexStateError) as raised:
            pipeline.index()
        said = str(raised.value)
        ledger_path = pipeline.index_dir / "ledger.sqlite"
        assert f"cannot write {ledger_path}: database or disk is full" in said
        assert "`ragloom index` again" in said
        monkeypatch.setattr(Ledger, "commit", real_commit)
        assert len(pipeline.index().added) == len(list((corpus / "docs").iterdir()))
