"""`ragloom status` and `Pipeline.status()`: what an index holds, whether a
query would answer from it, and what the next index run will do."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import ragloom
import yaml
from ragloom.errors import IndexStateError, StoreError, Terminated
from ragloom.ledger import Journal, Ledger, index_lock, running_run

from .conftest import basic_config

RAGLOOM = str(Path(sys.executable).parent / "ragloom")


def status_of(corpus: Path, pm, **overrides: object):
    with ragloom.load(basic_config(**overrides), plugin_manager=pm, base_dir=corpus) as pipeline:
        return pipeline.status()


def indexed(corpus: Path, pm, **overrides: object) -> None:
    with ragloom.load(basic_config(**overrides), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()


def cli(corpus: Path, *args: str, **overrides: object) -> subprocess.CompletedProcess:
    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(basic_config(**overrides)))
    return subprocess.run(
        [RAGLOOM, "status", *args],
        cwd=corpus,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_before_any_run_nothing_is_made(corpus: Path, pm) -> None:
    found = status_of(corpus, pm)
    assert not found.exists and found.version == 0 and found.documents == 0
    assert found.ready and found.run is None and not found.next_run
    assert [(s.name, s.chunks) for s in found.stores] == [("memory", 0), ("bm25", 0)]
    assert not (corpus / ".ragloom").exists()  # status writes nothing
    result = cli(corpus)
    assert result.returncode == 0, result.stderr
    assert "nothing indexed yet: run `ragloom index`" in result.stdout


def test_an_index_says_its_version_documents_and_stores(corpus: Path, pm) -> None:
    before = time.time()
    small = {"type": "fixed", "size": 40, "overlap": 0}  # more chunks than documents
    indexed(corpus, pm, chunker=small)
    found = status_of(corpus, pm, chunker=small)
    assert found.exists and found.version == 1 and found.ready and found.problem is None
    assert found.documents == 3 and found.chunks > 3
    held = {s.name: s.chunks for s in found.stores}
    assert held == {"memory": found.chunks, "bm25": found.chunks}
    assert found.written_by == ragloom.__version__
    assert found.committed_at is not None and before - 1 <= found.committed_at <= time.time()
    assert found.embedder == "hash (256-d)"
    result = cli(corpus, chunker=small)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert f"documents: 3 ({found.chunks} chunk(s))" in lines
    assert f"store:     memory (memory): {found.chunks} chunk(s)" in lines
    assert "queries:   answered from version 1" in lines
    assert any(line.startswith("version:   1, committed 20") for line in lines), lines
    data = json.loads(cli(corpus, "--json", chunker=small).stdout)
    assert data["version"] == 1 and data["ready"] and data["documents"] == 3
    assert [s["chunks"] for s in data["stores"]] == [found.chunks, found.chunks]


def test_a_run_under_way_is_named_with_its_process(corpus: Path, pm) -> None:
    indexed(corpus, pm)
    with index_lock(corpus / ".ragloom"):  # as if `ragloom index` were running
        found = status_of(corpus, pm)
        result = cli(corpus)
    assert found.run == "running" and found.run_pid == os.getpid()
    assert found.ready  # readers answer from the committed version meanwhile
    assert f"index run: under way (process {os.getpid()})" in result.stdout.splitlines()
    assert running_run(corpus / ".ragloom") == (False, None)  # released


def test_looking_at_the_lock_never_fails_a_run_starting_then(corpus: Path, pm) -> None:
    """status takes the lock shared for an instant; a run that starts at that
    instant waits it out instead of saying that another run holds it."""
    indexed(corpus, pm)
    path = corpus / ".ragloom" / "index.lock"
    fd = os.open(path, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_SH)  # a probe that lasts far longer than any does
    releaser = threading.Timer(0.3, lambda: os.close(fd))
    releaser.start()
    try:
        with index_lock(corpus / ".ragloom"):
            assert running_run(corpus / ".ragloom")[0] is True
    finally:
        releaser.join()
    fd = os.open(path, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_SH)
    try:  # held past the grace: that is another run, and it is said
        with (
            pytest.raises(IndexStateError, match="another index run holds"),
            index_lock(corpus / ".ragloom"),
        ):
            pass
    finally:
        os.close(fd)


def test_a_stopped_run_and_what_the_next_one_does(corpus: Path, pm) -> None:
    indexed(corpus, pm)
    Journal(corpus / ".ragloom" / "journal.jsonl").record(["docs/x.md::0@abc"])
    found = status_of(corpus, pm)
    assert found.run == "stopped" and found.ready
    assert any("stopped run" in said for said in found.next_run), found.next_run
    assert "index run: one stopped before it ended" in cli(corpus).stdout


def test_a_rebuild_that_did_not_end_refuses_queries(corpus: Path, pm) -> None:
    indexed(corpus, pm)
    ledger = Ledger(corpus / ".ragloom" / "ledger.sqlite").open()
    ledger.clear(rebuilding=time.time(), bump=True)
    ledger.close()
    found = status_of(corpus, pm)
    assert not found.ready and found.rebuilding is not None
    assert "rebuild" in (found.problem or "")
    assert any("complete the `--rebuild`" in said for said in found.next_run)
    result = cli(corpus)
    assert result.returncode == 1
    assert "queries:   refused: " in result.stdout and "rebuild:   started " in result.stdout


def test_a_store_emptied_behind_ragloom_is_named(corpus: Path, pm) -> None:
    indexed(corpus, pm)
    (corpus / ".ragloom" / "memory" / "memory.npz").unlink()
    found = status_of(corpus, pm)
    held = {s.name: s.chunks for s in found.stores}
    assert held["memory"] == 0 and held["bm25"] == found.chunks
    assert not found.ready and "store 'memory' holds 0 chunk(s)" in (found.problem or "")
    assert "--repair" in (found.problem or "")
    result = cli(corpus, "--json")
    assert result.returncode == 1 and json.loads(result.stdout)["ready"] is False


class HeldElsewhere(StoreError, BlockingIOError):
    """What a store says when another process holds it (ragloom_qdrant's
    QdrantInUseError for an embedded Qdrant beside a running server)."""


def test_a_store_another_process_holds_is_not_checked_nor_a_refusal(
    corpus: Path, pm, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beside a running server holding an embedded store, status said
    "queries: refused" and exited 1, so a health check built on it marked a
    healthy server down (operator trial s26, L5)."""
    from ragloom.builtin.stores.memory import MemoryStore
    from ragloom.cli import _status_lines

    indexed(corpus, pm)

    def held(self: MemoryStore, context: object = None) -> None:
        raise HeldElsewhere("the memory file at X is open in another process")

    monkeypatch.setattr(MemoryStore, "open", held)
    found = status_of(corpus, pm)
    assert found.ready and found.problem is None and found.held == ("memory",)
    store = {s.name: s for s in found.stores}
    assert store["memory"].held and "open in another process" in (store["memory"].error or "")
    assert not store["bm25"].held and store["bm25"].chunks == found.chunks
    said = [value for name, value in _status_lines(found) if name in ("store", "queries")]
    assert said[0].startswith(
        "memory (memory): held by another process (a running server?): not checked"
    )
    assert said[-1].startswith("not checked: store 'memory' is held by another process")
    assert "/readyz" in said[-1] and "refused" not in said[-1]
    # what needs no store is still checked: another embedder is a refusal
    other = status_of(corpus, pm, embedder={"type": "hash", "dimension": 128})
    assert not other.ready and "embedder" in (other.problem or "")
    assert other.held == ("memory",)
    assert dict(_status_lines(other))["queries"].startswith("refused: ")


def test_config_changes_since_the_last_run(corpus: Path, pm) -> None:
    indexed(corpus, pm)
    rechunked = status_of(corpus, pm, chunker={"type": "recursive", "size": 120, "overlap": 0})
    assert rechunked.ready
    assert rechunked.next_run == (
        "chunk every document again: the config's chunker differs from the index's",
    )
    other = status_of(corpus, pm, embedder={"type": "hash", "dimension": 128})
    assert not other.ready and "embedder" in (other.problem or "")
    assert "--rebuild" in (other.problem or "")


def test_a_damaged_ledger_is_a_refusal_not_a_crash(corpus: Path, pm) -> None:
    indexed(corpus, pm)
    ledger = corpus / ".ragloom" / "ledger.sqlite"
    for extra in ("-wal", "-shm"):
        Path(f"{ledger}{extra}").unlink(missing_ok=True)
    ledger.write_bytes(b"not a database, " * 100)
    found = status_of(corpus, pm)
    assert found.exists and not found.ready and "ledger" in (found.problem or "")
    result = cli(corpus)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "queries:   refused: " in result.stdout


def test_a_version_an_older_ragloom_committed(corpus: Path, pm) -> None:
    indexed(corpus, pm)
    ledger = Ledger(corpus / ".ragloom" / "ledger.sqlite").open()
    ledger.begin()
    ledger.bump_version(stamp=False)  # as a ragloom from before the stamp does
    ledger.commit()
    ledger.close()
    found = status_of(corpus, pm)
    assert found.version == 2 and found.written_by is None and found.committed_at is None
    assert "version:   2, committed by an older ragloom" in cli(corpus).stdout


def test_the_last_run_that_ended_is_said_with_its_counts_and_problems(corpus: Path, pm) -> None:
    before = time.time()
    (corpus / "docs" / "bad.pdf").write_bytes(b"%PDF-1.4 not a pdf")
    indexed(corpus, pm)
    last = status_of(corpus, pm).last_run
    assert last is not None and last["outcome"] == "committed" and last["error"] is None
    assert (last["added"], last["changed"], last["deleted"], last["version"]) == (3, 0, 0, 1)
    assert before <= last["started"] <= last["ended"] <= time.time()
    assert last["problems"] == 1 and last["problem_examples"][0]["source"] == "docs/bad.pdf"
    (corpus / "docs" / "bad.pdf").unlink()
    indexed(corpus, pm)  # nothing changed: said so, not the run before's counts
    line = next(x for x in cli(corpus).stdout.splitlines() if x.startswith("last run:"))
    assert line.startswith("last run:  a run ended 20") and line.endswith(": nothing changed")
    last = json.loads(cli(corpus, "--json").stdout)["last_run"]
    assert last["problems"] == 0 and last["added"] == 0 and last["unchanged"] == 3


def test_a_failed_run_is_said_and_changes_nothing_else(corpus: Path, pm, monkeypatch) -> None:
    indexed(corpus, pm)
    for name in ("pricing.md", "memory.md"):  # two of three: the mass-delete guard
        (corpus / "docs" / name).unlink()
    with pytest.raises(IndexStateError, match="would delete 2 of the 3"):
        indexed(corpus, pm)
    found = status_of(corpus, pm)
    assert found.version == 1 and found.documents == 3 and found.ready
    assert found.last_run["outcome"] == "failed"
    assert "would delete 2 of the 3" in found.last_run["error"]
    lines = cli(corpus).stdout.splitlines()
    assert any(x.startswith("last run:  a run failed 20") for x in lines), lines

    # a failure half-way through writing: the run's ledger changes are rolled
    # back, and only the record of its failure is committed
    (corpus / "docs" / "new.md").write_text("# New\n\nA new document about otters.\n")
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:

        def broken(texts: list[str]) -> list:
            raise ragloom.errors.EmbedderError("the embedding server said 503")

        monkeypatch.setattr(pipeline.embedder, "embed_documents", broken)
        with pytest.raises(ragloom.errors.EmbedderError):
            pipeline.index(allow_mass_delete=True)
    found = status_of(corpus, pm)
    assert found.version == 1 and found.documents == 3
    assert found.last_run["outcome"] == "failed" and "503" in found.last_run["error"]
    monkeypatch.undo()
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        report = pipeline.index(allow_mass_delete=True)
    assert report.added == ("docs/new.md",) and len(report.deleted) == 2
    found = status_of(corpus, pm)
    assert found.version == 2 and found.documents == 2
    assert found.last_run["outcome"] == "committed" and found.last_run["deleted"] == 2


@pytest.mark.parametrize(
    ("raised", "said"),
    [(Terminated, "stopped by SIGTERM"), (KeyboardInterrupt, "stopped by Ctrl-C (SIGINT)")],
)
def test_a_run_stopped_by_a_signal_says_which(
    corpus: Path, pm, monkeypatch, raised: type[BaseException], said: str
) -> None:
    """It said the exception's name: ``a run interrupted ...: Terminated``."""
    indexed(corpus, pm)
    (corpus / "docs" / "new.md").write_text("# New\n\nA new document about otters.\n")
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:

        def stopped(texts: list[str]) -> list:
            raise raised

        monkeypatch.setattr(pipeline.embedder, "embed_documents", stopped)
        with pytest.raises(raised):
            pipeline.index()
    last = status_of(corpus, pm).last_run
    assert last["outcome"] == "interrupted" and last["error"] == said
    line = next(x for x in cli(corpus).stdout.splitlines() if x.startswith("last run:"))
    assert line.startswith("last run:  a run interrupted 20") and line.endswith(f": {said}")
    # as an older ragloom recorded it: the exception's name, said in words all the same
    ledger = Ledger(corpus / ".ragloom" / "ledger.sqlite").open()
    ledger.begin()
    ledger.set_meta("last_run", {**last, "error": raised.__name__})
    ledger.commit()
    ledger.close()
    assert status_of(corpus, pm).last_run["error"] == said
    assert json.loads(cli(corpus, "--json").stdout)["last_run"]["error"] == said


def test_a_run_that_fails_after_its_commit_is_said_committed(corpus: Path, pm, monkeypatch) -> None:
    """A store's deletion failing after the ledger committed (a full disk,
    Ctrl-C): the run's changes are in, and the record says so, with the error."""
    from ragloom.storewriter import StoreWriter

    (corpus / "docs" / "extra.md").write_text("# Extra\n\nAn extra page.\n")
    indexed(corpus, pm)
    (corpus / "docs" / "extra.md").unlink()

    def full(self, ids) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(StoreWriter, "delete", full)
    with pytest.raises(OSError):
        indexed(corpus, pm)
    last = status_of(corpus, pm).last_run
    assert last["outcome"] == "committed" and last["deleted"] == 1 and last["version"] == 2
    assert last["error"].startswith("after the commit: ") and "No space left" in last["error"]
    line = next(x for x in cli(corpus).stdout.splitlines() if x.startswith("last run:"))
    assert ": 1 deleted; after the commit: " in line, line
