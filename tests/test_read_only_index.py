"""An index on a read-only file system (a container's read-only volume, an
index built elsewhere and mounted read-only) answers queries without writing
a byte there, and an index run there says what to do.

A read-only mount needs privileges a test does not have, so these tests make
``read_only_mount`` say so for the index folder, and check what matters on
such a file system: that nothing in the folder is created or changed (SQLite
in WAL mode writes ``-wal`` and ``-shm`` files on every open)."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest
import ragloom
import ragloom.ledger
import ragloom.state
from ragloom.errors import IndexStateError
from ragloom.ledger import Ledger

from .conftest import basic_config


def files(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def indexed(corpus: Path, pm) -> Path:
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        assert pipeline.index().added
    return corpus


@pytest.fixture
def read_only(indexed: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The index folder (``.ragloom``) said to lie on a read-only mount."""
    index_dir = (indexed / ".ragloom").resolve()

    def read_only_mount(path: Path) -> bool:  # the folder and all in it, as a mount
        path = Path(path).resolve()
        return path == index_dir or index_dir in path.parents

    monkeypatch.setattr(ragloom.ledger, "read_only_mount", read_only_mount)
    monkeypatch.setattr(ragloom.state, "read_only_mount", read_only_mount)
    return index_dir


def test_queries_on_a_read_only_mount_write_nothing(indexed: Path, read_only: Path, pm) -> None:
    before = files(read_only)
    assert not any(name.endswith(("-wal", "-shm")) for name in before)
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=indexed) as pipeline:
        hits = pipeline.retrieve("How much does the Pro plan cost?")
        assert hits and hits[0].chunk.document_id == "docs/pricing.md"
        assert hits.corpus_version == 1
        answer = pipeline.ask("How much does the Pro plan cost?")
        assert "$29" in answer.text
        # the view is not reloaded on every query: the watch reads the same file
        assert pipeline.retriever.state.changed() is False
        assert len(pipeline.retriever.state.view.stamps) == 3
    assert files(read_only) == before


def test_a_bm25_index_kept_before_the_mount_is_read_there(
    corpus: Path, monkeypatch: pytest.MonkeyPatch, pm
) -> None:
    """An index built elsewhere, queried once there (which keeps the bm25
    search index on disk), then mounted read-only: the kept index is read,
    not built again, and nothing is written."""
    import bm25s

    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        want = [h.chunk.id for h in pipeline.retrieve("Pro plan price")]
    index_dir = (corpus / ".ragloom").resolve()
    assert list((index_dir / "bm25" / "scores").iterdir())
    monkeypatch.setattr(
        ragloom.ledger,
        "read_only_mount",
        lambda p: index_dir in (Path(p).resolve(), *Path(p).resolve().parents),
    )
    monkeypatch.setattr(ragloom.state, "read_only_mount", ragloom.ledger.read_only_mount)
    monkeypatch.setattr(bm25s.BM25, "index", lambda *a, **k: pytest.fail("built again"))
    before = files(index_dir)
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        assert [h.chunk.id for h in pipeline.retrieve("Pro plan price")] == want
    assert files(index_dir) == before


def test_a_writable_index_is_opened_as_before(indexed: Path, pm) -> None:
    """The control for the test above: a query on a writable index opens the
    ledger in WAL mode, which writes beside it."""
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=indexed) as pipeline:
        pipeline.retrieve("Pro plan")
        pipeline.retrieve("Pro plan")  # the second asks the ledger's watch for news
        assert {"ledger.sqlite-wal", "ledger.sqlite-shm"} <= set(files(indexed / ".ragloom"))


def test_an_index_run_on_a_read_only_mount_says_what_to_do(
    indexed: Path, read_only: Path, pm
) -> None:
    before = files(read_only)
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=indexed) as pipeline:
        for rebuild in (False, True):
            with pytest.raises(IndexStateError, match="read-only file system") as caught:
                pipeline.index(rebuild=rebuild)
            assert "index where it can be written" in str(caught.value).lower()
    assert files(read_only) == before


def test_a_write_ahead_log_left_on_the_mount_is_read(indexed: Path, read_only: Path, pm) -> None:
    """A commit still in ``ledger.sqlite-wal`` (its writer did not close when
    the index was copied) is part of the index: an immutable read would miss
    it and answer from an older version."""
    ledger = read_only / "ledger.sqlite"
    writer = sqlite3.connect(ledger, isolation_level=None)
    try:
        writer.execute("PRAGMA wal_autocheckpoint=0")  # the commit stays in the log
        writer.execute("UPDATE meta SET value = '7' WHERE key = 'corpus_version'")
        assert Path(f"{ledger}-wal").stat().st_size > 0
        with ragloom.load(basic_config(), plugin_manager=pm, base_dir=indexed) as pipeline:
            assert pipeline.retrieve("Pro plan").corpus_version == 7
    finally:
        writer.close()


def test_an_empty_ledger_on_a_read_only_mount_is_named(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    sqlite3.connect(path).close()  # a file, no tables: nothing was ever indexed
    with pytest.raises(IndexStateError, match="holds no index") as caught:
        Ledger(path).open(read_only=True)
    assert "run `ragloom index` where the index can be written" in str(caught.value)


def test_the_answer_cache_is_off_on_a_read_only_mount(
    indexed: Path, read_only: Path, pm, caplog: pytest.LogCaptureFixture
) -> None:
    before = files(read_only)
    config = basic_config(cache={"answers": True})
    with (
        caplog.at_level(logging.WARNING, logger="ragloom"),
        ragloom.load(config, plugin_manager=pm, base_dir=indexed) as pipeline,
    ):
        for _ in range(2):
            answer = pipeline.ask("How much does the Pro plan cost?")
            assert "$29" in answer.text and not answer.metadata.get("cached")
    said = [r for r in caplog.records if "cache.answers is off" in r.getMessage()]
    assert len(said) == 1
    assert files(read_only) == before


def test_a_read_only_mount_written_through_another_path_is_followed(
    indexed: Path, monkeypatch: pytest.MonkeyPatch, pm
) -> None:
    """A bind mount read-only here, written by `ragloom index` through the
    writable path: SQLite's immutable read saw no change, so a server stayed
    on the old version for good. The ledger's time and size say it."""
    mount = indexed / "mounted"
    mount.symlink_to(indexed / ".ragloom")  # the read-only view of the same folder
    monkeypatch.setattr(ragloom.ledger, "read_only_mount", lambda p: Path(p) == mount)
    monkeypatch.setattr(ragloom.state, "read_only_mount", lambda p: Path(p) == mount)
    reader = basic_config(index_dir="mounted")
    with (
        ragloom.load(reader, plugin_manager=pm, base_dir=indexed) as server,
        ragloom.load(basic_config(), plugin_manager=pm, base_dir=indexed) as writer,
    ):
        assert server.retrieve("Pro plan").corpus_version == 1
        assert server.retriever.state.read_only and not writer.retriever.state.read_only
        assert server.retriever.state.changed() is False
        (indexed / "docs" / "kiwi.md").write_text("# Kiwi\n\nKiwi orchards are harvested in May.\n")
        assert writer.index().corpus_version == 2
        assert server.catch_up() is True
        hits = server.retrieve("kiwi orchard harvest")
        assert hits.corpus_version == 2 and hits[0].chunk.document_id == "docs/kiwi.md"


def test_a_ledger_that_goes_away_and_comes_back_loses_nothing(
    indexed: Path, pm, caplog: pytest.LogCaptureFixture
) -> None:
    """An unmounted volume, a folder moved away and back while a server runs:
    it answered "no hits" meanwhile, and stayed so once the ledger was back."""
    ledger = indexed / ".ragloom" / "ledger.sqlite"
    aside = indexed / "aside"
    aside.mkdir()
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=indexed) as server:
        assert server.retrieve("Pro plan").corpus_version == 1
        for name in ("ledger.sqlite", "ledger.sqlite-wal", "ledger.sqlite-shm"):
            if (ledger.parent / name).exists():
                (ledger.parent / name).rename(aside / name)
        with caplog.at_level(logging.WARNING, logger="ragloom"):
            for _ in range(3):
                assert server.catch_up() is False
                hits = server.retrieve("How much does the Pro plan cost?")
                assert hits.corpus_version == 1 and hits[0].chunk.document_id == "docs/pricing.md"
        gone = [r for r in caplog.records if "is gone" in r.getMessage()]
        assert len(gone) == 1
        for path in aside.iterdir():
            path.rename(ledger.parent / path.name)
        assert server.catch_up() is False  # the same version: nothing to move to
        assert server.retrieve("Pro plan").corpus_version == 1


def test_the_document_list_reads_a_read_only_index(indexed: Path, read_only: Path, pm) -> None:
    """MCP's resources and GET /v1/documents opened the ledger to write."""
    from ragloom.server.documents import list_documents

    before = files(read_only)
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=indexed) as pipeline:
        listed = list_documents(pipeline, None)
        assert sorted(d.id for d in listed) == [
            "docs/memory.md",
            "docs/pricing.md",
            "docs/security.md",
        ]
    assert files(read_only) == before


def test_advice_on_a_read_only_mount_says_where_to_follow_it(
    indexed: Path, read_only: Path, pm
) -> None:
    """ "Run `ragloom index --repair`" is refused on the mount itself."""
    added = basic_config(
        stores=[{"type": "memory"}, {"type": "bm25"}, {"type": "bm25", "name": "x"}]
    )
    with (
        ragloom.load(added, plugin_manager=pm, base_dir=indexed) as pipeline,
        pytest.raises(IndexStateError) as caught,
    ):
        pipeline.retrieve("Pro plan")
    said = str(caught.value)
    assert "--repair" in said and "lies on a read-only file system: do that where it" in said
