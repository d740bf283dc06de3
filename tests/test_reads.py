"""Files an index run does not read again (``ragloom.reads``): a file whose
stat is as when it was indexed, under the same ragloom, readers, loader
options, secrets policy and access rules, is taken as indexed without being
parsed; anything else is read, as before."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pluggy
import pytest
import ragloom
import yaml
from ragloom import Document, Loader
from ragloom.builtin.loaders import _read
from ragloom.builtin.loaders.directory import DirectoryLoader
from ragloom.ledger import Ledger
from ragloom.registry import Registry

from .conftest import basic_config
from .test_structured_loaders import make_pdf

RAGLOOM = str(Path(sys.executable).parent / "ragloom")

FILES = {
    "docs/alpha.md": "# Alpha\n\nThe aardvark eats ants at night.\n",
    "docs/bravo.md": "# Bravo\n\nThe badger digs burrows in the woods.\n",
    "docs/sub/charlie.md": "# Charlie\n\nThe chameleon changes colour in the sun.\n",
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "docs" / "report.pdf").write_bytes(
        make_pdf(["The quarterly report shows growth.", "Page two of the report."])
    )
    return tmp_path


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files count as settled at once (the default waits two seconds after a
    change before trusting a file's stat; a test would sleep for it)."""
    monkeypatch.setattr("ragloom.reads.RACY_SECONDS", 0)


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the run parses, by name, in order."""
    names: list[str] = []
    real = _read._parsed

    def counting(kind: str, data: bytes, *, path: Path, **options: Any) -> Any:
        names.append(path.name)
        return real(kind, data, path=path, **options)

    monkeypatch.setattr(_read, "_parsed", counting)
    return names


def index(root: Path, pm: pluggy.PluginManager, config: dict | None = None, **options: Any):
    with ragloom.load(config or basic_config(), plugin_manager=pm, base_dir=root) as pipeline:
        return pipeline.index(**options)


def found(root: Path, pm: pluggy.PluginManager, question: str) -> dict[str, str]:
    """The indexed text of each document the question finds (its hits' text)."""
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=root) as pipeline:
        out: dict[str, str] = {}
        for hit in pipeline.retrieve(question):
            out[hit.chunk.document_id] = out.get(hit.chunk.document_id, "") + hit.chunk.text
        return out


def read_once_more(
    root: Path, pm: pluggy.PluginManager, parsed: list[str], config: dict | None = None
) -> None:
    """The next run reads every file (4), and the one after it none."""
    parsed.clear()
    report = index(root, pm, config)
    assert report.unread == 0 and report.unchanged == 4 and len(parsed) == 4
    parsed.clear()
    report = index(root, pm, config)
    assert report.unread == 4 and parsed == []


def ledger_sql(root: Path, *statements: str | tuple[str, tuple]) -> list[Any]:
    """Run ``statements`` on the index's ledger, as another program would,
    committed; the rows the last one gives."""
    db = sqlite3.connect(root / ".ragloom" / "ledger.sqlite")
    try:
        rows: list[Any] = []
        for statement in statements:
            sql, params = statement if isinstance(statement, tuple) else (statement, ())
            rows = db.execute(sql, params).fetchall()
        db.commit()
        return rows
    finally:
        db.close()


def test_unchanged_files_are_not_read_again(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str]
) -> None:
    first = index(root, pm)
    assert first.documents == 4 and first.unread == 0
    assert sorted(parsed) == ["alpha.md", "bravo.md", "charlie.md", "report.pdf"]
    parsed.clear()
    again = index(root, pm)
    assert again.unchanged == 4 and again.unread == 4 and not again.changed
    assert parsed == []  # not one file parsed
    assert again.corpus_version == first.corpus_version
    # what is indexed is what was: queries answer from it
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=root) as pipeline:
        assert (
            pipeline.retrieve("quarterly report growth")[0].chunk.document_id == "docs/report.pdf"
        )


def test_an_edited_file_is_read_even_with_its_size_and_mtime_put_back(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str]
) -> None:
    """The change time catches what size and mtime miss: a tool that writes
    the same number of bytes and sets the old mtime back (``cp -p``,
    ``rsync -t``, an editor keeping times)."""
    index(root, pm)
    path = root / "docs" / "alpha.md"
    before = path.stat()
    edited = FILES["docs/alpha.md"].replace("aardvark", "anteater")
    assert len(edited) == len(FILES["docs/alpha.md"])
    path.write_text(edited)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_mtime_ns == before.st_mtime_ns and path.stat().st_size == before.st_size
    parsed.clear()
    report = index(root, pm)
    assert report.changed == ("docs/alpha.md",) and report.unread == 3
    assert parsed == ["alpha.md"]
    assert "anteater" in found(root, pm, "anteater")["docs/alpha.md"]


def test_a_file_touched_is_read_and_found_unchanged(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str]
) -> None:
    index(root, pm)
    (root / "docs" / "bravo.md").touch()
    parsed.clear()
    report = index(root, pm)
    assert parsed == ["bravo.md"] and report.unchanged == 4 and report.unread == 3
    parsed.clear()
    assert index(root, pm).unread == 4 and parsed == []  # its new stamp was recorded


def test_a_file_changed_a_moment_ago_is_not_trusted(
    root: Path, pm: pluggy.PluginManager, parsed: list[str]
) -> None:
    """The default: a file changed less than two seconds before it was read
    may change again within the same clock tick, leaving its stat as it was;
    it is read again next run (and trusted once it has settled)."""
    index(root, pm)
    parsed.clear()
    assert index(root, pm).unread == 0 and len(parsed) == 4
    for path in (root / "docs").rglob("*"):
        if path.is_file():
            assert not _read.file_stamp(path, path.stat())
    time.sleep(2.1)
    assert index(root, pm).unread == 0  # read once more, now settled: stamped
    parsed.clear()
    assert index(root, pm).unread == 4 and parsed == []


def test_deleted_and_new_files(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str]
) -> None:
    index(root, pm)
    (root / "docs" / "bravo.md").unlink()
    (root / "docs" / "delta.md").write_text("# Delta\n\nThe dolphin dives.\n")
    parsed.clear()
    report = index(root, pm)
    assert report.deleted == ("docs/bravo.md",) and report.added == ("docs/delta.md",)
    assert parsed == ["delta.md"] and report.unread == 3
    ledger = Ledger(root / ".ragloom" / "ledger.sqlite").open()
    assert {source for _, source in ledger.reads()} == {
        "docs/alpha.md",
        "docs/delta.md",
        "docs/sub/charlie.md",
        "docs/report.pdf",
    }
    ledger.close()
    # the same name again, with other text: a new document, read
    (root / "docs" / "bravo.md").write_text("# Bravo\n\nA bison grazes.\n")
    parsed.clear()
    assert index(root, pm).added == ("docs/bravo.md",) and parsed == ["bravo.md"]
    assert "bison" in found(root, pm, "bison grazes")["docs/bravo.md"]


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"indexing": {"secrets": "redact"}}, id="secrets-policy"),
        pytest.param({"indexing": {"personal_data": "redact"}}, id="personal-data-policy"),
        pytest.param(
            {"access": {"rules": [{"path": "docs/sub/**", "principals": ["team"]}]}},
            id="access-rules",
        ),
        pytest.param(
            {"loaders": [{"type": "directory", "path": "docs", "metadata": {"team": "a"}}]},
            id="loader-options",
        ),
        pytest.param({"chunker": {"type": "recursive", "size": 300, "overlap": 20}}, id="chunker"),
    ],
)
def test_a_config_change_reads_every_file(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str], change: dict
) -> None:
    """What decides a document besides its file: a run under another secrets
    or personal data policy, other access rules, other loader options or
    another chunker reads every file again, and one under the same config
    after it does not."""
    index(root, pm)
    config = basic_config(**change)
    parsed.clear()
    report = index(root, pm, config)
    assert report.unread == 0 and len(parsed) == 4
    parsed.clear()
    assert index(root, pm, config).unread == 4 and parsed == []
    parsed.clear()
    assert index(root, pm).unread == 0 and len(parsed) == 4  # and back


def test_reread_and_rebuild_read_every_file(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str]
) -> None:
    index(root, pm)
    parsed.clear()
    report = index(root, pm, reread=True)
    assert report.unread == 0 and report.unchanged == 4 and len(parsed) == 4
    parsed.clear()
    report = index(root, pm, rebuild=True)
    assert report.unread == 0 and len(report.added) == 4 and len(parsed) == 4
    parsed.clear()
    assert index(root, pm).unread == 4 and parsed == []  # the rebuild stamped them


def test_a_document_a_store_lacks_is_read_and_written_again(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str]
) -> None:
    index(root, pm)
    added = basic_config(
        stores=[{"type": "memory"}, {"type": "bm25"}, {"type": "memory", "name": "extra"}]
    )
    parsed.clear()
    report = index(root, pm, added, repair=True)
    assert len(report.rewritten) == 4 and len(parsed) == 4
    with ragloom.load(added, plugin_manager=pm, base_dir=root) as pipeline:
        extra = dict(pipeline.stores)["extra"]
        assert extra.count() == sum(len(e.chunk_ids) for e in _entries(root).values())


def test_a_reading_that_said_something_is_read_and_said_every_run(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str]
) -> None:
    """A redacted secret, a PDF page without text: the report lists them on
    every run, as before, so those files are read every run."""
    (root / "docs" / "keys.md").write_text(
        "# Keys\n\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
    )
    (root / "docs" / "scan.pdf").write_bytes(make_pdf(["Some text on page one.", None]))
    config = basic_config(indexing={"secrets": "redact"})
    first = index(root, pm, config)
    said = {source for source, _ in first.problems}
    assert {"docs/keys.md", "docs/scan.pdf"} <= said
    parsed.clear()
    again = index(root, pm, config)
    assert {source for source, _ in again.problems} == said
    assert sorted(parsed) == ["keys.md", "scan.pdf"] and again.unread == 4


def test_access_rules_still_count_as_matched_when_files_are_not_read(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str]
) -> None:
    config = basic_config(access={"rules": [{"path": "docs/sub/**", "principals": ["team"]}]})
    assert not [m for s, m in index(root, pm, config).problems if s == "access"]
    parsed.clear()
    report = index(root, pm, config)
    assert report.unread == 4 and parsed == []
    assert not [m for s, m in report.problems if s == "access"]  # no "matched no document"
    with ragloom.load(config, plugin_manager=pm, base_dir=root) as pipeline:
        found = pipeline.retrieve("chameleon colour", principals=["team"])
        assert found[0].chunk.document_id == "docs/sub/charlie.md"
        assert not [
            h
            for h in pipeline.retrieve("chameleon colour", principals=["other"])
            if h.chunk.document_id == "docs/sub/charlie.md"
        ]


def test_after_an_older_raglooms_commit_every_file_is_read(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str]
) -> None:
    """An older ragloom may have let in what this one's rules leave out:
    every document is screened again, so every file is read."""
    index(root, pm)
    ledger_sql(root, "DELETE FROM meta WHERE key = 'writer'")  # as a ragloom before the stamp
    read_once_more(root, pm, parsed)


@pytest.mark.parametrize(
    "table",
    [
        "CREATE TABLE reads (something TEXT)",
        # the same columns without the primary key: it would grow on every run
        "CREATE TABLE reads (loader, source, stamp, doc_id, state, key, rules)",
    ],
)
def test_a_reads_table_of_another_shape_is_made_afresh(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str], table: str
) -> None:
    index(root, pm)
    ledger_sql(root, "DROP TABLE reads", table)  # not ragloom's
    (root / "docs" / "alpha.md").write_text("# Alpha\n\nAn albatross glides.\n")
    parsed.clear()
    report = index(root, pm)
    assert report.changed == ("docs/alpha.md",) and report.unread == 0 and len(parsed) == 4
    assert "albatross" in found(root, pm, "albatross")["docs/alpha.md"]
    parsed.clear()
    assert index(root, pm).unread == 4 and parsed == []  # healed
    index(root, pm)
    assert ledger_sql(root, "SELECT count(*) FROM reads") == [(4,)]


def test_a_reads_table_without_its_index_gets_it_and_keeps_its_rows(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str], caplog
) -> None:
    index(root, pm)
    ledger_sql(root, "DROP INDEX reads_by_document")
    parsed.clear()
    assert index(root, pm).unread == 4 and parsed == []  # the rows were kept
    assert "made afresh" not in caplog.text
    indexes = ledger_sql(root, "PRAGMA index_list(reads)")
    assert any(row[1] == "reads_by_document" for row in indexes)


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE reads SET rules = 'not json' WHERE source = 'docs/alpha.md'",
        "UPDATE reads SET stamp = 7 WHERE source = 'docs/alpha.md'",
        "UPDATE reads SET rules = '{\"a\": 1}' WHERE source = 'docs/alpha.md'",
    ],
)
def test_a_damaged_row_is_passed_over_and_written_afresh(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str], damage: str
) -> None:
    index(root, pm)
    ledger_sql(root, damage)
    parsed.clear()
    report = index(root, pm)
    assert parsed == ["alpha.md"] and report.unread == 3 and report.unchanged == 4
    parsed.clear()
    assert index(root, pm).unread == 4 and parsed == []


def test_a_row_naming_another_document_is_not_trusted(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str]
) -> None:
    """A damaged row that points a file at another document's indexed
    version would delete the file's document: a row counts only for the
    document its file gives."""
    index(root, pm)
    [(state,)] = ledger_sql(root, "SELECT state FROM reads WHERE source = 'docs/bravo.md'")
    redirect = "UPDATE reads SET doc_id = 'docs/bravo.md', state = ? WHERE source = 'docs/alpha.md'"
    ledger_sql(root, (redirect, (state,)))
    parsed.clear()
    report = index(root, pm)
    assert not report.deleted and not report.problems and parsed == ["alpha.md"]
    assert set(_entries(root)) == {
        "docs/alpha.md",
        "docs/bravo.md",
        "docs/sub/charlie.md",
        "docs/report.pdf",
    }


def test_a_row_for_another_indexed_version_is_not_trusted(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str]
) -> None:
    """The ledger decides: a row whose state is not the indexed document's
    (a ledger restored from a backup, a run by a ragloom that keeps no rows)
    means the file is read."""
    index(root, pm)
    ledger_sql(root, "UPDATE documents SET content_hash = 'other' WHERE id = 'docs/alpha.md'")
    parsed.clear()
    report = index(root, pm)
    assert parsed == ["alpha.md"] and report.changed == ("docs/alpha.md",)


class VersionedLoader(Loader):
    """A loader of records that carry a version, as a service's ETag: it
    stamps each with it, and fetches only what the run does not take as
    indexed (``fetched`` counts them)."""

    stamps = True
    records: dict[str, tuple[str, str]] = {}
    fetched: list[str] = []

    def load(self) -> Iterator[Document]:
        for record_id, (version, text) in sorted(self.records.items()):
            if self.context.unchanged(record_id, version):
                continue
            self.fetched.append(record_id)
            self.context.read(record_id, version)
            yield Document(id=record_id, text=text, metadata={"source": record_id})


def test_a_loader_plugin_can_stamp_its_own_sources(tmp_path: Path) -> None:
    from ragloom.plugins import build_plugin_manager

    pm = build_plugin_manager(load_entry_points=False, env={})

    class Plugin:
        @ragloom.hookimpl
        def register_loaders(self, register: Any) -> None:
            register("versioned", VersionedLoader)

    pm.register(Plugin(), name="versioned-plugin")
    Registry.from_plugin_manager(pm)
    VersionedLoader.records = {"a": ("v1", "Apples are red."), "b": ("v1", "Bananas are yellow.")}
    VersionedLoader.fetched = []
    config = basic_config(loaders=[{"type": "versioned"}])
    assert len(index(tmp_path, pm, config).added) == 2
    VersionedLoader.fetched.clear()
    report = index(tmp_path, pm, config)
    assert report.unread == 2 and VersionedLoader.fetched == []
    VersionedLoader.records["b"] = ("v2", "Bananas are green when unripe.")
    report = index(tmp_path, pm, config)
    assert report.changed == ("b",) and VersionedLoader.fetched == ["b"] and report.unread == 1
    VersionedLoader.records.pop("a")
    assert index(tmp_path, pm, config).deleted == ("a",)


def test_the_cli_says_how_many_files_were_not_read(root: Path) -> None:
    """End to end with the real two-second wait: ``ragloom index`` run from
    cron over an unchanged folder reads nothing, and says so."""
    (root / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    env = {**os.environ, "RAGLOOM_CACHE_DIR": str(root / "cache")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [RAGLOOM, "index", *args], cwd=root, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done

    time.sleep(2.1)
    run()
    shown = run().stdout
    assert "=4 unchanged (4 not read again)" in shown
    assert json.loads(run("--json").stdout)["unread"] == 4
    reread = json.loads(run("--reread", "--json").stdout)
    assert reread["unread"] == 0 and reread["unchanged"] == 4


def _entries(root: Path) -> dict[str, Any]:
    ledger = Ledger(root / ".ragloom" / "ledger.sqlite").open()
    try:
        return ledger.entries()
    finally:
        ledger.close()


def test_files_on_a_filesystem_that_cannot_be_trusted_are_read_every_run(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str], monkeypatch
) -> None:
    """FUSE mounts (sshfs, rclone) give the modification time as the change
    time and may keep a replaced file's inode: a same-size edit with its
    mtime put back would go unseen, so their files are never stamped."""
    fuse = "fs:0x65735546"  # what statfs says of a FUSE mount
    monkeypatch.setattr("ragloom.reads.filesystem", lambda path: fuse)
    index(root, pm)
    parsed.clear()
    assert index(root, pm).unread == 0 and len(parsed) == 4
    monkeypatch.setattr("ragloom.reads.filesystem", lambda path: None)  # not Linux
    parsed.clear()
    assert index(root, pm).unread == 0 and len(parsed) == 4


def test_the_filesystem_is_told_by_statfs(tmp_path: Path) -> None:
    from ragloom import reads

    assert reads.filesystem(tmp_path) in reads.LOCAL_FILESYSTEMS.values()  # CI's disk
    assert reads.filesystem(Path("/dev/shm")) == "tmpfs"
    assert reads.filesystem(Path("/proc/self")) == "fs:0x9fa0"  # procfs: not stamped
    assert reads.filesystem(tmp_path / "missing") is None
    (tmp_path / "a.md").write_text("text")

    def stat(ctime: float) -> Any:
        ns = int(ctime * 1e9)
        return SimpleNamespace(st_dev=1, st_ino=2, st_size=4, st_mtime_ns=ns, st_ctime_ns=ns)

    now = time.time()
    assert reads.file_stamp(tmp_path / "a.md", stat(now - 60), now) == (
        f"1:2:4:{int((now - 60) * 1e9)}:{int((now - 60) * 1e9)}"
    )
    assert reads.file_stamp(tmp_path / "a.md", stat(now - 1), now) is None  # racy
    assert reads.file_stamp(tmp_path / "a.md", stat(now + 60), now) is None  # from the future
    assert reads.file_stamp(Path("/proc/self/status"), stat(now - 60), now) is None


def test_a_file_with_a_modification_time_in_the_future_is_stamped_once_settled(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str]
) -> None:
    """Only the change time, which no tool sets, says when a file was last
    written (a tarball made on a machine with a fast clock)."""
    later = time.time_ns() + 10**9 * 86400 * 365
    os.utime(root / "docs" / "alpha.md", ns=(later, later))
    index(root, pm)
    parsed.clear()
    assert index(root, pm).unread == 4 and parsed == []


def test_a_loader_option_that_changes_no_document_costs_one_run(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str]
) -> None:
    index(root, pm)
    config = basic_config(
        loaders=[{"type": "directory", "path": "docs", "max_file_size": 5 * 10**6}]
    )
    parsed.clear()
    report = index(root, pm, config)
    assert report.unchanged == 4 and report.unread == 0 and len(parsed) == 4
    parsed.clear()
    assert index(root, pm, config).unread == 4 and parsed == []
    assert ledger_sql(root, "SELECT count(*) FROM reads") == [(4,)]  # the old key's went


class AppendixLoader(DirectoryLoader):
    """A plugin's directory loader that adds a document of its own for each
    file its parent reads: it makes no promise of its own (``stamps``)."""

    def load(self) -> Iterator[Document]:
        for doc in super().load():
            yield doc
            yield Document(
                id=f"{doc.id}#appendix",
                text=f"Appendix to {doc.text}",
                metadata={"source": doc.source},
            )


def test_a_subclass_that_yields_more_does_not_inherit_the_promise(
    root: Path, settled: None, parsed: list[str]
) -> None:
    from ragloom.plugins import build_plugin_manager

    pm = build_plugin_manager(load_entry_points=False, env={})

    class Plugin:
        @ragloom.hookimpl
        def register_loaders(self, register: Any) -> None:
            register("appendix", AppendixLoader)

    pm.register(Plugin(), name="appendix-plugin")
    config = basic_config(loaders=[{"type": "appendix", "path": "docs"}])
    assert len(index(root, pm, config).added) == 8
    parsed.clear()
    report = index(root, pm, config)
    assert report.unchanged == 8 and not report.deleted and report.unread == 0
    assert len(parsed) == 4


def test_a_plugin_added_or_upgraded_reads_every_file(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str], monkeypatch
) -> None:
    """A ``run_stage`` hook may change what a loader loads: a plugin added,
    removed or at another version reads every file once."""
    index(root, pm)

    class Tagger:
        @ragloom.hookimpl(wrapper=True)
        def run_stage(self, call: Any) -> Any:
            return (yield)

    pm.register(Tagger(), name="tagger")
    read_once_more(root, pm, parsed)

    class Dist:
        project_name, version = "ragloom-tagger", "2.0"

    real = pm.list_plugin_distinfo
    monkeypatch.setattr(
        pm, "list_plugin_distinfo", lambda: [*real(), (pm.get_plugin("tagger"), Dist())]
    )
    parsed.clear()
    assert index(root, pm).unread == 0 and len(parsed) == 4


def test_a_reads_table_damaged_on_disk_is_an_index_error_that_rebuild_recovers(
    root: Path, pm: pluggy.PluginManager, settled: None
) -> None:
    """Garbage written over the table's pages (not its shape): the ledger
    file is damaged, said as such, and ``--rebuild`` moves it aside."""
    for n in range(300):  # enough rows for the table to fill pages of its own
        (root / "docs" / f"n{n:03d}.md").write_text(f"# Note {n}\n\nNumber {n} of the notes.\n")
    index(root, pm)
    path = root / ".ragloom" / "ledger.sqlite"
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    (page_size,) = db.execute("PRAGMA page_size").fetchone()
    (root_page,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'reads'").fetchone()
    db.close()
    with path.open("r+b") as handle:
        handle.seek((root_page - 1) * page_size)
        handle.write(b"\xa5" * page_size)
    from ragloom.errors import IndexDamagedError

    with pytest.raises(IndexDamagedError, match="--rebuild"):
        index(root, pm)
    report = index(root, pm, rebuild=True)
    assert len(report.added) == 304
    assert any("moved aside" in m for _, m in report.problems)


def test_a_plugin_registered_without_a_name_is_known_by_its_class(tmp_path: Path) -> None:
    """pluggy names such a plugin by its ``id``, another in every process:
    the key would change on every run, and no file would ever be left unread."""
    from ragloom.plugins import build_plugin_manager
    from ragloom.reads import plugin_code

    class Observer:
        @ragloom.hookimpl
        def on_event(self, event: Any) -> None:
            return None

    class Other:
        @ragloom.hookimpl
        @staticmethod
        def on_event(event: Any) -> None:
            return None

    keys = []
    for plugin in (Observer(), Observer(), Observer, Other):
        pm = build_plugin_manager(load_entry_points=False, env={})
        pm.register(plugin)  # no name
        keys.append(sorted(plugin_code(pm)))
    assert keys[0] == keys[1] == keys[2]  # an instance, or the class itself
    assert any(k.endswith("Observer") for k in keys[0])
    assert keys[3] != keys[2]  # another class registered as a class


def test_a_document_left_behind_by_a_failed_chunking_is_read_and_written_again(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str]
) -> None:
    """Its ledger row carries another version's chunk stamp (a run whose
    chunking failed left it so): the diff writes it again, so it is read."""
    index(root, pm)
    ledger_sql(root, "UPDATE documents SET stamp = 'deadbeef0000' WHERE id = 'docs/alpha.md'")
    parsed.clear()
    report = index(root, pm)
    assert parsed == ["alpha.md"] and report.changed == ("docs/alpha.md",) and report.unread == 3
    assert "aardvark" in found(root, pm, "aardvark")["docs/alpha.md"]


def test_the_code_that_reads_files_and_the_screening_libraries_are_in_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new detect-secrets may find a secret the last one did not: an
    unchanged file must be screened again, so it must be read."""
    import importlib.metadata

    from ragloom import reads

    assert "detect-secrets" in reads.LIBRARIES and "pypdf" in reads.LIBRARIES
    before = reads.code_digest()
    real = importlib.metadata.version

    def newer(name: str) -> str:
        return "99.0" if name == "detect-secrets" else real(name)

    monkeypatch.setattr(importlib.metadata, "version", newer)
    assert reads.code_digest() != before


def test_a_pipeline_takes_the_code_digest_when_it_opens(
    root: Path, pm: pluggy.PluginManager, settled: None, parsed: list[str], monkeypatch
) -> None:
    """ragloom upgraded in place under a pipeline already open: its runs go
    on recording under the code it runs, so a new process (the new code)
    reads every file once."""
    from ragloom import reads

    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=root) as pipeline:
        pipeline.index()
        monkeypatch.setattr(reads, "code_digest", lambda: "the upgraded code")
        parsed.clear()
        assert pipeline.index().unread == 4 and parsed == []  # still the code it runs
    read_once_more(root, pm, parsed)  # a new pipeline: the new code
