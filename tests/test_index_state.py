"""Index state that survives real-world events: an empty first run, a first run
killed or out of disk, a missing loader root, a mass deletion, a stale writer,
stores and ledger that disagree, and garbage on disk. Each test is one of the
reproductions of the "core you can trust" issue."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pluggy
import pytest
import ragloom
import yaml
from ragloom.errors import IndexStateError, StoreError
from ragloom.ledger import Ledger
from ragloom.plugins import build_plugin_manager

from .conftest import DOCS, DictStore, basic_config

RAGLOOM = str(Path(sys.executable).parent / "ragloom")


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [RAGLOOM, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=120,
    )


def project(root: Path, docs: dict[str, str] | None = None, **overrides: object) -> Path:
    (root / "docs").mkdir(parents=True, exist_ok=True)
    for name, text in (DOCS if docs is None else docs).items():
        (root / "docs" / name).write_text(text)
    (root / "ragloom.yaml").write_text(yaml.safe_dump(basic_config(**overrides)))
    return root


def sources(pipeline: ragloom.Pipeline, query: str, k: int = 10) -> set[str]:
    return {h.chunk.source for h in pipeline.retrieve(query, k=k)}


# -- 1. an empty first run, and every other way to an empty index ------------------


def test_a_first_run_without_its_folder_says_nothing_was_indexed_from_it(
    tmp_path: Path,
) -> None:
    """Not "the documents it indexed before are kept": there are none yet
    (the first run after `ragloom init`, whose docs/ folder is not made)."""
    root = project(tmp_path, docs={})
    (root / "docs").rmdir()
    first = cli("index", cwd=root)
    assert first.returncode == 1
    said = " ".join(first.stderr.split())
    assert "docs: directory not found" in said and "nothing was indexed from it yet" in said
    assert "kept" not in said


def test_empty_first_run_then_documents_arrive(tmp_path: Path) -> None:
    root = project(tmp_path, docs={})
    assert cli("index", "--dry-run", cwd=root).returncode == 0  # a ledger, no version
    for command in ("search", "ask"):  # before any run: said, not a bare refusal
        before = cli(command, "aardvark", cwd=root)
        assert before.returncode == 0
        assert "nothing is indexed yet in" in before.stdout + before.stderr, command
    first = cli("index", cwd=root)
    assert first.returncode == 0, first.stderr
    for command in ("search", "ask"):  # indexed, and empty: said too
        empty = cli(command, "aardvark", cwd=root)
        assert empty.returncode == 0
        said = " ".join((empty.stdout + empty.stderr).split())
        assert "holds no documents" in said and "check the loaders' paths" in said, command
    (root / "docs" / "a.md").write_text("# A\n\nThe aardvark eats ants at night.\n")
    second = cli("index", cwd=root)
    assert second.returncode == 0, second.stderr
    assert "+1 added" in second.stdout
    found = cli("search", "aardvark", "--json", cwd=root)
    assert found.returncode == 0 and '"docs/a.md"' in found.stdout
    # it holds documents, none of them matches: a plain "no hits"
    missed = cli("search", "zebra", "--filter", '{"source": "docs/b.md"}', cwd=root)
    assert missed.stdout.strip() == "no hits", missed.stdout
    rebuilt = cli("index", "--rebuild", cwd=root)
    assert rebuilt.returncode == 0, rebuilt.stderr


def test_index_emptied_then_filled_again(tmp_path: Path, pm: pluggy.PluginManager) -> None:
    root = project(tmp_path, docs={"a.md": "# A\n\nAardvarks dig burrows.\n"})
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        (root / "docs" / "a.md").unlink()
        # an empty folder is taken for an unmounted one: the document stays
        held = pipeline.index()
        assert held.deleted == () and held.kept == ("docs/a.md",) and not held.ok
        assert pipeline.index(allow_mass_delete=True).deleted == ("docs/a.md",)
        for _, store in pipeline.stores:
            assert store.count() == 0
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        (root / "docs" / "b.md").write_text("# B\n\nBadgers are nocturnal.\n")
        assert pipeline.index().added == ("docs/b.md",)
        assert sources(pipeline, "badgers nocturnal") == {"docs/b.md"}


def test_a_store_file_the_disk_cannot_hold_is_named(tmp_path: Path) -> None:
    """ENOSPC from a write through a file object names no file: the one being
    written is named, as `ragloom index` says it (`cannot write PATH: ...`)."""
    from ragloom.builtin.stores._persist import atomic_write

    def fill(handle: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    target = tmp_path / "store" / "memory.npz"
    with pytest.raises(OSError) as raised:
        atomic_write(target, fill)
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(target)
    assert list(target.parent.iterdir()) == []  # no temporary file left behind


def test_disk_full_first_run_then_a_normal_run(
    tmp_path: Path, pm: pluggy.PluginManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragloom.builtin.stores import _persist

    root = project(tmp_path)
    real = _persist.atomic_write

    def full(path: Path, write: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_persist, "atomic_write", full)
    with (
        ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline,
        pytest.raises(OSError, match="No space left"),
    ):
        pipeline.index()
    monkeypatch.setattr(_persist, "atomic_write", real)
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        report = pipeline.index()
        assert len(report.added) == 3
        assert sources(pipeline, "AES-256 encrypted") >= {"docs/security.md"}


@pytest.mark.parametrize("delay", [0.05, 0.4, 0.8, 1.2])
def test_first_run_killed_then_next_run_completes(tmp_path: Path, delay: float) -> None:
    docs = {
        f"doc-{i:03d}.md": f"# Doc {i}\n\nDocument {i} mentions token{i}.\n" for i in range(300)
    }
    root = project(tmp_path, docs=docs)
    process = subprocess.Popen(
        [RAGLOOM, "index"], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    again = cli("index", cwd=root)
    assert again.returncode == 0, again.stderr
    check = cli("index", cwd=root)
    assert check.returncode == 0 and "=300 unchanged" in check.stdout, check.stdout
    found = cli("search", "token123", "--json", "-k", "1", cwd=root)
    assert '"docs/doc-123.md"' in found.stdout


# -- 2. a missing loader root, and the mass-delete guard ---------------------------


def test_missing_root_is_an_error_and_its_documents_stay(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        loaders=[
            {"type": "directory", "path": "docs"},
            {"type": "directory", "path": "notes"},
        ],
    )
    (root / "notes").mkdir()
    (root / "notes" / "n.md").write_text("# Note\n\nThe quokka smiles.\n")
    assert cli("index", cwd=root).returncode == 0
    (root / "docs").rename(root / "docs-unmounted")  # the share is gone
    (root / "notes" / "m.md").write_text("# More\n\nThe wombat digs.\n")
    result = cli("index", cwd=root)
    assert result.returncode == 1, result.stdout
    assert "directory not found" in result.stderr and "kept" in result.stderr
    assert "+1 added" in result.stdout and "-0 deleted" in result.stdout  # notes/ went on
    for query, source in (("AES-256", "docs/security.md"), ("wombat", "notes/m.md")):
        found = cli("search", query, "--json", "-k", "1", cwd=root)
        assert f'"{source}"' in found.stdout, query


def test_an_edited_loader_still_keeps_its_documents_when_its_root_goes(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """The ledger records which loader added a document by its options: after
    an edit (an ``exclude`` added), the documents it still loads unchanged keep
    the old key. Its root then going must keep them, as with no edit."""
    root = project(tmp_path, docs={f"d{i}.md": f"# D{i}\n\nLocal fact {i}.\n" for i in range(6)})
    (root / "share").mkdir()
    (root / "share" / "m.md").write_text("# Mounted\n\nThe glimmer budget is 9000 quints.\n")
    config = yaml.safe_load((root / "ragloom.yaml").read_text())
    share = {"type": "directory", "path": "share"}
    config["loaders"] = [{"type": "directory", "path": "docs"}, share]
    with ragloom.load(config, plugin_manager=pm, base_dir=root) as pipeline:
        assert len(pipeline.index().added) == 7
    share["exclude"] = ["drafts/**"]  # a harmless edit: the same documents
    with ragloom.load(config, plugin_manager=pm, base_dir=root) as pipeline:
        assert pipeline.index().unchanged == 7
        (root / "share").rename(root / "share-unmounted")
        report = pipeline.index()
        assert report.deleted == () and report.errors, report
        assert "share/m.md" in sources(pipeline, "glimmer budget quints")
        (root / "share-unmounted").rename(root / "share")
        (root / "share" / "n.md").write_text("# New\n\nAnother page.\n")
        (root / "share" / "m.md").unlink()  # back, and the file gone: now it goes
        assert pipeline.index().deleted == ("share/m.md",)


def test_a_root_that_goes_while_the_run_reads_keeps_the_unread_documents(
    tmp_path: Path, pm: pluggy.PluginManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder unmounted (or moved) after the run listed its files: the
    files not yet read are not deleted (the check at the start of the run
    saw the folder), they are kept, and the run says so."""
    import ragloom.builtin.loaders.directory as directory

    docs = {f"d{i}.md": f"# D{i}\n\nThe d{i} fact is {i}.\n" for i in range(12)}
    root = project(tmp_path, docs=docs)
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        assert len(pipeline.index().added) == 12
        read = directory.read_document

        def unmounting(path: Path, **kwargs: Any) -> Any:
            if path.name == "d6.md" and (root / "docs").exists():
                (root / "docs").rename(root / "docs-away")
            return read(path, **kwargs)

        monkeypatch.setattr(directory, "read_document", unmounting)
        (root / "docs" / "d0.md").write_text("# D0\n\nThe d0 fact is now 100.\n")
        report = pipeline.index()
        assert report.deleted == (), report
        assert report.kept == ("docs/d6.md", "docs/d7.md", "docs/d8.md", "docs/d9.md")
        assert report.changed == ("docs/d0.md",)  # read before the folder went
        assert sum("is gone" in message for _, message in report.problems) == 4
        monkeypatch.setattr(directory, "read_document", read)
        (root / "docs-away").rename(root / "docs")
        (root / "docs" / "d9.md").unlink()  # back, one file gone: now it goes
        report = pipeline.index()
        assert report.deleted == ("docs/d9.md",) and not report.errors, report


def test_a_run_limited_to_a_folder_that_is_gone_deletes_its_documents(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """``ragloom index docs/old`` after ``rm -r docs/old``: the folder was the
    run's scope, so its documents go (a gone file's did already)."""
    root = project(tmp_path, docs={"u.md": "# U\n\nThe umber gate.\n"})
    (root / "docs" / "old").mkdir()
    (root / "docs" / "old" / "t.md").write_text("# T\n\nThe tern nests in the cliffs.\n")
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        assert len(pipeline.index().added) == 2
        shutil.rmtree(root / "docs" / "old")
        report = pipeline.index(sources=[root / "docs" / "old"])
        assert report.deleted == ("docs/old/t.md",) and report.errors == ()
        assert ("docs/old", "not found; skipped") in report.problems
        assert pipeline.index().unchanged == 1
        # gone, and nothing indexed came from it (a typo): refused, said, nothing changed
        from ragloom.errors import InvalidRequestError

        for typo in (root / "docs" / "old", root / "docs" / "u-typo.md"):
            with pytest.raises(InvalidRequestError, match="nothing indexed came from it"):
                pipeline.index(sources=[typo, root / "docs" / "u.md"])
        assert pipeline.index(dry_run=True).unchanged == 1


def test_mass_delete_is_refused_unless_allowed(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert cli("index", cwd=root).returncode == 0
    for name in ("security.md", "pricing.md"):  # two of three: past max_delete_share
        (root / "docs" / name).unlink()
    dry = cli("index", "--dry-run", cwd=root)  # what the run would do, and its refusal
    assert dry.returncode == 1 and "- docs/security.md" in dry.stdout
    assert "the run would be refused: this run would delete 2 of the 3" in dry.stderr
    refused = cli("index", cwd=root)
    assert refused.returncode == 1
    assert "would delete 2 of the 3" in refused.stderr and "--allow-mass-delete" in refused.stderr
    assert '"docs/security.md"' in cli("search", "AES-256", "--json", cwd=root).stdout
    assert "would also add" not in refused.stderr  # nothing found elsewhere: nothing said
    allowed = cli("index", "--allow-mass-delete", cwd=root)
    assert allowed.returncode == 0 and "-2 deleted" in allowed.stdout


def test_a_built_site_now_skipped_is_deleted_without_the_guard(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """An index that held a Sphinx build (indexed before the loader knew it
    for generated output) loses it on the next run, not refused by the
    mass-delete guard: the loader's note says why they go."""
    root = project(tmp_path, docs={"index.md": "# Index\n\nThe index page.\n"})
    built = root / "docs" / "_build" / "html"
    built.mkdir(parents=True)
    for name in ("a", "b", "c"):
        (built / f"{name}.md").write_text(f"# {name}\n\nA built copy of page {name}.\n")
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        assert len(pipeline.index().added) == 4
        (built / ".buildinfo").write_text("# Sphinx build info\n")  # now seen as built
        report = pipeline.index()
    assert report.ok and len(report.deleted) == 3, report
    assert any("generated documentation output" in m for _, m in report.problems)


def test_an_emptied_folder_is_taken_for_an_unmounted_share(tmp_path: Path) -> None:
    """A share's mount point left empty, beside other documents (not half of
    the index, which the mass-delete guard would catch): its documents stay,
    the run exits 1 and says so, whatever share of the index they are."""
    root = project(tmp_path, docs={f"d{i}.md": f"# D{i}\n\nLocal fact {i}.\n" for i in range(6)})
    (root / "docs" / "archive").mkdir()
    (root / "docs" / "archive" / "old.md").write_text("# Old\n\nThe glimmer budget was 12.\n")
    assert cli("index", cwd=root).returncode == 0
    (root / "docs" / "archive" / "old.md").unlink()  # unmounted: the folder stays, empty
    held = cli("index", cwd=root)
    assert held.returncode == 1, held.stdout + held.stderr
    assert "docs/archive is empty where 1 indexed document(s) were" in held.stderr
    assert '"docs/archive/old.md"' in cli("search", "glimmer budget", "--json", cwd=root).stdout
    # a folder deleted with its files is a deletion; so is an emptied folder, allowed
    (root / "docs" / "archive").rmdir()
    gone = cli("index", cwd=root)
    assert gone.returncode == 0 and "-1 deleted" in gone.stdout, gone.stderr


def test_the_guard_says_when_the_documents_were_found_under_other_ids(tmp_path: Path) -> None:
    """Documents moved into a subfolder were refused as a mass delete, with
    advice to look for an unmounted folder: they had all been found again."""
    root = project(tmp_path)
    assert cli("index", cwd=root).returncode == 0
    (root / "docs" / "archive").mkdir()
    for path in list((root / "docs").glob("*.md")):
        path.rename(root / "docs" / "archive" / path.name)
    refused = cli("index", cwd=root)
    assert refused.returncode == 1
    assert "It would also add 3 document(s) not indexed before" in refused.stderr
    assert "moved or renamed" in refused.stderr


def test_the_guard_is_configurable_and_ignores_single_deletions(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    root = project(tmp_path, docs={"a.md": "# A\n\nalpha\n", "b.md": "# B\n\nbravo\n"})
    config = root / "ragloom.yaml"
    with ragloom.load(config, plugin_manager=pm) as pipeline:
        pipeline.index()
        (root / "docs" / "a.md").unlink()
        assert pipeline.index().deleted == ("docs/a.md",)  # one document: never refused
    (root / "docs" / "a.md").write_text("# A\n\nalpha\n")
    (root / "docs" / "c.md").write_text("# C\n\ncharlie\n")
    off = yaml.safe_load(config.read_text())
    off["indexing"] = {"max_delete_share": 1.0}
    with ragloom.load(off, plugin_manager=pm, base_dir=root) as pipeline:
        pipeline.index()
        for name in ("a.md", "b.md", "c.md"):
            (root / "docs" / name).unlink()
        assert len(pipeline.index().deleted) == 3


# -- 3. a stale writer, and a reader that notices a newer corpus version -----------


def test_a_stale_pipeline_never_writes_back_its_copy(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    root = project(tmp_path)
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        assert sources(pipeline, "zebra stripes") <= {
            "docs/pricing.md",
            "docs/memory.md",
            "docs/security.md",
        }
        # another process indexes a new document while this pipeline stays open
        (root / "docs" / "zebra.md").write_text("# Zebra\n\nZebra stripes confuse flies.\n")
        other = cli("index", cwd=root)
        assert other.returncode == 0 and "+1 added" in other.stdout
        # the open pipeline answers from the new version before anything else ...
        hits = pipeline.retrieve("zebra stripes", k=1)
        assert hits[0].chunk.source == "docs/zebra.md" and hits.corpus_version == 2
        # ... and its own next run keeps what the other process wrote
        (root / "docs" / "yak.md").write_text("# Yak\n\nYaks live in the Himalaya.\n")
        report = pipeline.index()
        assert report.added == ("docs/yak.md",) and report.unchanged == 4
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as fresh:
        assert sources(fresh, "zebra stripes", k=1) == {"docs/zebra.md"}
        assert sources(fresh, "yaks Himalaya", k=1) == {"docs/yak.md"}
        ledger = Ledger(fresh.index_dir / "ledger.sqlite").open()
        assert set(ledger.entries()) == {f"docs/{n}" for n in [*DOCS, "zebra.md", "yak.md"]}
        ledger.close()


def test_a_run_that_changes_nothing_leaves_the_store_files_alone(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """cron re-indexing an unchanged folder must not rewrite every store file
    (1.5 GB at a million chunks), nor make the servers reading them load them
    again: the files keep their inode and mtime, and a reader answers the same."""
    root = project(tmp_path)
    assert cli("index", cwd=root).returncode == 0
    files = [root / ".ragloom" / "memory" / "memory.npz", root / ".ragloom" / "bm25" / "bm25.npz"]

    def identities() -> list[tuple[int, int]]:
        return [(f.stat().st_ino, f.stat().st_mtime_ns) for f in files]

    before = identities()
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as reader:
        first = reader.retrieve("refund within 30 days")
        again = cli("index", cwd=root)
        assert again.returncode == 0 and "=3 unchanged" in again.stdout, again.stdout
        assert identities() == before
        second = reader.retrieve("refund within 30 days")
        assert second.corpus_version == first.corpus_version
        assert [h.chunk.id for h in second] == [h.chunk.id for h in first]
        # a changed document is written as before, and the reader sees it
        (root / "docs" / "zebra.md").write_text("# Zebra\n\nZebra stripes confuse flies.\n")
        assert "+1 added" in cli("index", cwd=root).stdout
        assert all(a != b for a, b in zip(identities(), before))
        assert reader.retrieve("zebra stripes", k=1)[0].chunk.source == "docs/zebra.md"


def test_a_reader_that_reanalysed_a_store_never_writes_it_over_a_newer_run(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """The bm25 analyzer changed in the config: a server opens the store and
    analyses its texts again in memory. cron's `ragloom index` then commits a
    new document. The server closing must not write its older copy over the
    file that run wrote (the new document would vanish from keyword search
    while the ledger lists it)."""
    unstemmed = [{"type": "memory"}, {"type": "bm25", "analyzer": {"stem": False}}]
    root = project(tmp_path, stores=unstemmed)
    assert cli("index", cwd=root).returncode == 0
    (root / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))  # stemmed now
    file = root / ".ragloom" / "bm25" / "bm25.npz"
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as reader:
        assert reader.retrieve("refund within 30 days")  # opened: texts analysed again
        before = (file.stat().st_ino, file.stat().st_mtime_ns)
        (root / "docs" / "zebra.md").write_text("# Zebra\n\nZebra stripes confuse flies.\n")
        run = cli("index", cwd=root)
        assert run.returncode == 0 and "+1 added" in run.stdout, run.stderr
        assert (file.stat().st_ino, file.stat().st_mtime_ns) != before
        written = (file.stat().st_ino, file.stat().st_mtime_ns)
    assert (file.stat().st_ino, file.stat().st_mtime_ns) == written  # the reader wrote nothing
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as fresh:
        bm25 = dict(fresh.stores)["bm25"]
        hits = bm25.query(text="zebra stripes", k=1)
        assert hits and hits[0].chunk.source == "docs/zebra.md"
    again = cli("index", cwd=root)
    assert again.returncode == 0 and "=4 unchanged" in again.stdout, again.stdout + again.stderr


# -- 4. stores and ledger that disagree ---------------------------------------------


def test_a_deleted_store_file_is_detected_and_repaired(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert cli("index", cwd=root).returncode == 0
    (root / ".ragloom" / "memory" / "memory.npz").unlink()
    result = cli("index", cwd=root)
    assert result.returncode == 1
    assert "store 'memory' holds 0 chunk(s) but the ledger lists" in result.stderr
    assert "--repair" in result.stderr
    repaired = cli("index", "--repair", cwd=root)
    assert repaired.returncode == 0, repaired.stderr
    assert "memory:" in repaired.stdout and "written again" in repaired.stdout
    again = cli("index", cwd=root)
    assert again.returncode == 0 and "=3 unchanged" in again.stdout


def test_a_store_restored_from_a_backup_with_as_many_chunks_is_detected(
    tmp_path: Path,
) -> None:
    """The store's files of an older version hold as many chunks as the ledger
    lists, but not its chunks: a count alone said all was well, and search
    lost the changed document."""
    root = project(tmp_path)
    assert cli("index", cwd=root).returncode == 0
    store = root / ".ragloom" / "memory" / "memory.npz"
    backup = store.read_bytes()
    security = root / "docs" / "security.md"
    security.write_text(security.read_text().replace("AES-256", "ChaCha20"))
    assert "~1 changed" in cli("index", cwd=root).stdout
    store.write_bytes(backup)  # the older version's file, as many chunks
    result = cli("index", cwd=root)
    assert result.returncode == 1, result.stdout
    assert "as many as the ledger lists, but" in result.stderr and "--repair" in result.stderr
    repaired = cli("index", "--repair", cwd=root)
    assert repaired.returncode == 0, repaired.stderr
    assert '"docs/security.md"' in cli("search", "ChaCha20", "--json", cwd=root).stdout
    assert cli("index", cwd=root).returncode == 0


def test_a_store_the_config_added_or_retyped_is_said_so(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """Not "changed outside ragloom": the config names a store the last run
    did not write."""
    root = project(tmp_path)
    config = yaml.safe_load((root / "ragloom.yaml").read_text())
    with ragloom.load(config, plugin_manager=pm, base_dir=root) as pipeline:
        pipeline.index()
    added = {**config, "stores": [*config["stores"], {"type": "memory", "name": "extra"}]}
    with (
        ragloom.load(added, plugin_manager=pm, base_dir=root) as pipeline,
        pytest.raises(IndexStateError, match="store 'extra' holds 0 chunk.*the config added it"),
    ):
        pipeline.index()
    retyped = {**config, "stores": [{"type": "bm25", "name": "memory"}, config["stores"][1]]}
    with (
        ragloom.load(retyped, plugin_manager=pm, base_dir=root) as pipeline,
        pytest.raises(
            IndexStateError, match="was a 'memory' store at the last run and is a 'bm25'"
        ),
    ):
        pipeline.index()
    with ragloom.load(added, plugin_manager=pm, base_dir=root) as pipeline:
        report = pipeline.index(repair=True)  # and --repair fills it
        # the documents did not change: they were written again, for the new store
        assert report.repaired and not report.changed and not report.added
        assert sorted(report.rewritten) == sorted(
            Ledger(pipeline.index_dir / "ledger.sqlite").open().entries()
        )
        assert report.documents == len(report.rewritten) and report.corpus_version == 2
    again = {**added, "stores": [*added["stores"], {"type": "bm25", "name": "extra2"}]}
    (root / "again.yaml").write_text(yaml.safe_dump(again))
    shown = cli("-c", "again.yaml", "index", "--repair", cwd=root)
    said = " ".join(shown.stdout.split())
    assert shown.returncode == 0 and "~0 changed, ^3 written again, -0 deleted" in said, said


def test_a_query_refuses_a_store_the_config_added_or_retyped(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """Before `index --repair` fills it, such a store holds none of the
    documents: a query said "no hits" (exit 0) from it; it now says why."""
    root = project(tmp_path)
    config = yaml.safe_load((root / "ragloom.yaml").read_text())
    with ragloom.load(config, plugin_manager=pm, base_dir=root) as pipeline:
        pipeline.index()
    added = {**config, "stores": [*config["stores"], {"type": "memory", "name": "extra"}]}
    (root / "added.yaml").write_text(yaml.safe_dump(added))
    result = cli("-c", "added.yaml", "search", "encryption", cwd=root)
    assert result.returncode == 1
    assert "store 'extra' is not the one the last index run wrote (the config added it " in (
        " ".join(result.stderr.split())
    )
    assert "index --repair" in result.stderr
    retyped = {**config, "stores": [{"type": "bm25", "name": "memory"}, config["stores"][1]]}
    with ragloom.load(retyped, plugin_manager=pm, base_dir=root) as pipeline:
        with pytest.raises(
            IndexStateError,
            match=r"store 'memory' is not the one the last index run wrote \(that run wrote "
            r"a 'memory' store of that name, and the config now makes it a 'bm25' one\): it "
            r"does not hold the indexed documents as they are",
        ):
            pipeline.retrieve("encryption")
        assert pipeline.index(repair=True).repaired
        assert pipeline.retrieve("encryption")  # filled: it answers
    # a store the config dropped is not a reason to refuse
    with ragloom.load(
        {**config, "stores": config["stores"][1:]}, plugin_manager=pm, base_dir=root
    ) as pipeline:
        assert pipeline.retrieve("encryption")


def test_a_repair_that_only_deletes_reaches_a_reader_holding_the_stores(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """A chunk no document owns, carrying a committed stamp (so the visibility
    filter cannot drop it), deleted by ``--repair``: a new corpus version, so a
    reader that holds the stores in memory reloads them and stops returning it."""
    from ragloom.types import Chunk

    root = project(tmp_path)
    assert cli("index", cwd=root).returncode == 0
    ledger = Ledger(root / ".ragloom" / "ledger.sqlite").open()
    entry = ledger.entries()["docs/pricing.md"]
    ledger.close()
    stray = Chunk(
        f"docs/pricing.md::99@{entry.stamp}", "docs/pricing.md", "Quokka tariffs are secret.",
        99, 0, 26, "docs/pricing.md#chunk-99",
        {"source": "docs/pricing.md", "document_id": "docs/pricing.md"},
    )  # fmt: skip
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as writer:
        for _, store in writer.stores:  # written outside ragloom: the ledger does not know it
            dense = "dense" in store.capabilities
            store.upsert([stray], writer.embedder.embed_documents([stray.text]) if dense else None)
            store.flush()
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as reader:
        assert stray.id in [h.chunk.id for h in reader.retrieve("quokka tariffs")]
        before = reader.retrieve("quokka tariffs").corpus_version
        repaired = cli("index", "--repair", cwd=root)
        assert repaired.returncode == 0 and "deleted 1 chunk(s)" in repaired.stdout, repaired.stdout
        after = reader.retrieve("quokka tariffs")
    assert after.corpus_version == before + 1
    assert stray.id not in [h.chunk.id for h in after]


def test_a_lost_ledger_hides_every_chunk_until_repaired(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    root = project(tmp_path)
    config = root / "ragloom.yaml"
    with ragloom.load(config, plugin_manager=pm) as pipeline:
        pipeline.index()
        (root / "docs" / "security.md").unlink()
        (root / "docs" / "memory.md").write_text("# Memory\n\nMemories are kept forever.\n")
    for name in ("ledger.sqlite", "ledger.sqlite-wal", "ledger.sqlite-shm"):
        (root / ".ragloom" / name).unlink(missing_ok=True)
    lost = r"the index ledger .*ledger.sqlite lists no documents, but store 'memory' holds"
    with ragloom.load(config, plugin_manager=pm) as pipeline:
        # the stores still hold security.md and the old memory.md: never shown,
        # and not "no hits" either (which said nothing of the lost ledger)
        with pytest.raises(IndexStateError, match=lost + r".*`ragloom index --repair`"):
            pipeline.retrieve("AES-256 encrypted", k=5)
        with pytest.raises(IndexStateError, match="--repair"):
            pipeline.index()
        with pytest.raises(IndexStateError, match=lost):  # the empty ledger it left
            pipeline.retrieve("AES-256 encrypted", k=5)
        report = pipeline.index(repair=True)
        assert report.repaired and set(report.added) == {"docs/pricing.md", "docs/memory.md"}
        assert "docs/security.md" not in sources(pipeline, "AES-256 encrypted")
        assert "forever" in pipeline.retrieve("how long are memories kept", k=1)[0].chunk.text
        for _, store in pipeline.stores:
            assert store.count() == sum(
                len(e.chunk_ids)
                for e in Ledger(pipeline.index_dir / "ledger.sqlite").open().entries().values()
            )


# -- 5. --rebuild from any state -----------------------------------------------------


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty"])
@pytest.mark.parametrize("file", ["bm25/bm25.npz", "memory/memory.npz"])
def test_rebuild_works_from_a_damaged_store_file(tmp_path: Path, file: str, damage: str) -> None:
    root = project(tmp_path)
    assert cli("index", cwd=root).returncode == 0
    path = root / ".ragloom" / file
    data = path.read_bytes()
    path.write_bytes(
        {"truncate": data[: len(data) // 2], "garbage": os.urandom(999), "empty": b""}[damage]
    )
    broken = cli("index", cwd=root)
    assert broken.returncode == 1 and "--rebuild" in broken.stderr and file in broken.stderr
    assert "pickle" not in broken.stderr  # numpy's "load it unsafely" is never passed on
    assert cli("search", "AES-256", cwd=root).returncode == 1
    rebuilt = cli("index", "--rebuild", cwd=root)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert '"docs/security.md"' in cli("search", "AES-256", "--json", cwd=root).stdout


@pytest.mark.parametrize(
    "damage", [b"this is not a database", b"SQLite format 3\x00" + b"\x07" * 3000]
)
def test_a_damaged_ledger_names_the_file_and_rebuild_recovers(
    tmp_path: Path, damage: bytes
) -> None:
    root = project(tmp_path)
    assert cli("index", cwd=root).returncode == 0
    ledger = root / ".ragloom" / "ledger.sqlite"
    for name in ("ledger.sqlite-wal", "ledger.sqlite-shm"):
        (root / ".ragloom" / name).unlink(missing_ok=True)
    ledger.write_bytes(damage)
    for command in (("index",), ("search", "AES-256")):
        result = cli(*command, cwd=root)
        assert result.returncode == 1, command
        assert "ledger.sqlite" in result.stderr and "--rebuild" in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    rebuilt = cli("index", "--rebuild", cwd=root)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "moved aside" in rebuilt.stdout + rebuilt.stderr
    assert list((root / ".ragloom").glob("ledger.sqlite.damaged-*"))
    assert '"docs/security.md"' in cli("search", "AES-256", "--json", cwd=root).stdout


@pytest.mark.parametrize(
    "swap", ["memory/memory.npz", "bm25/bm25.npz", "memory", "bm25"], ids=lambda s: s
)
def test_rebuild_recovers_from_a_store_path_of_the_wrong_kind(tmp_path: Path, swap: str) -> None:
    """A folder where a store's file goes, or a file where its folder goes:
    the rebuild moves it aside, says so, and indexes again."""
    root = project(tmp_path)
    assert cli("index", cwd=root).returncode == 0
    path = root / ".ragloom" / swap
    if path.is_file():
        path.unlink()
        path.mkdir()
    else:
        shutil.rmtree(path)
        path.write_text("junk")
    rebuilt = cli("index", "--rebuild", cwd=root)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "moved aside" in rebuilt.stdout + rebuilt.stderr
    assert list(path.parent.glob(f"{path.name}.damaged-*"))
    assert '"docs/security.md"' in cli("search", "AES-256", "--json", cwd=root).stdout


@pytest.mark.parametrize(
    "setting",
    [
        {"index_dir": "docs/security.md"},
        {"stores": [{"type": "memory", "path": "docs/security.md"}]},
    ],
)
def test_an_index_path_that_names_a_file_is_one_line_naming_the_setting(
    tmp_path: Path, setting: dict
) -> None:
    root = project(tmp_path, **setting)
    for command in (("index",), ("search", "AES-256"), ("ask", "How is data encrypted?")):
        result = cli(*command, cwd=root)
        said = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert result.returncode == 1 and len(said) == 1, (command, result.stderr)
        assert "is a file, not a folder" in said[0] and "index_dir" in said[0], said
        assert "unexpected" not in result.stderr


def test_rebuild_from_garbage_everywhere(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert cli("index", cwd=root).returncode == 0
    index = root / ".ragloom"
    for path in index.rglob("*"):
        if path.is_file() and path.name != "index.lock":
            path.write_bytes(os.urandom(512))
    rebuilt = cli("index", "--rebuild", cwd=root)
    assert rebuilt.returncode == 0, rebuilt.stderr
    again = cli("index", cwd=root)
    assert again.returncode == 0 and "=3 unchanged" in again.stdout


def stored_ids(root: Path, pm: pluggy.PluginManager, index_dir: str = ".ragloom") -> dict:
    """Each store's chunk ids, and the ledger's, of the index in ``index_dir``."""
    config = yaml.safe_load((root / "ragloom.yaml").read_text())
    with ragloom.load({**config, "index_dir": index_dir}, plugin_manager=pm, base_dir=root) as p:
        found = {name: sorted(store.ids()) for name, store in p.stores}
        ledger = Ledger(p.index_dir / "ledger.sqlite").open()
        found["ledger"] = sorted(c for e in ledger.entries().values() for c in e.chunk_ids)
        ledger.close()
    return found


def test_rebuild_of_a_healthy_index_leaves_exactly_the_new_chunks(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    root = project(tmp_path)
    assert cli("index", cwd=root).returncode == 0
    before = stored_ids(root, pm)
    # new chunk boundaries for every document, one document changed, one gone
    config = yaml.safe_load((root / "ragloom.yaml").read_text())
    config["chunker"] = {"type": "recursive", "size": 60, "overlap": 0}
    (root / "ragloom.yaml").write_text(yaml.safe_dump(config))
    (root / "docs" / "security.md").write_text("# Security\n\nKeys rotate every 90 days.\n")
    (root / "docs" / "memory.md").unlink()
    rebuilt = cli("index", "--rebuild", "--json", cwd=root)
    assert rebuilt.returncode == 0, rebuilt.stderr
    report = json.loads(rebuilt.stdout)
    assert sorted(report["added"]) == ["docs/pricing.md", "docs/security.md"]
    assert report["changed"] == [] and report["deleted"] == ["docs/memory.md"]
    assert report["problems"] == []
    after = stored_ids(root, pm)
    assert after["memory"] == after["bm25"] == after["ledger"]
    assert not set(after["ledger"]) & set(before["ledger"]), "chunks of the old index are left"
    # exactly what an index built from nothing holds
    config = yaml.safe_load((root / "ragloom.yaml").read_text())
    with ragloom.load({**config, "index_dir": ".scratch"}, plugin_manager=pm, base_dir=root) as p:
        p.index()
    assert after == stored_ids(root, pm, ".scratch")
    again = cli("index", cwd=root)
    assert again.returncode == 0 and "=2 unchanged" in again.stdout, again.stdout + again.stderr


def test_rebuild_dry_run_lists_every_document_as_changed_and_changes_nothing(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    assert cli("index", cwd=root).returncode == 0
    (root / "docs" / "zebra.md").write_text("# Zebra\n\nZebra stripes confuse flies.\n")

    def files() -> dict[str, bytes]:
        index = root / ".ragloom"
        return {
            str(p.relative_to(index)): p.read_bytes()
            for p in index.rglob("*")
            if p.is_file() and p.name != "index.lock" and not p.name.endswith(("-wal", "-shm"))
        }

    before = files()
    dry = cli("index", "--rebuild", "--dry-run", "--json", cwd=root)
    assert dry.returncode == 0, dry.stderr
    report = json.loads(dry.stdout)
    assert report["dry_run"] is True
    assert sorted(report["changed"]) == sorted(f"docs/{name}" for name in DOCS)
    assert report["added"] == ["docs/zebra.md"] and report["unchanged"] == 0
    assert report["deleted"] == [] and report["chunks"] == 0
    assert files() == before
    text = cli("index", "--rebuild", "--dry-run", cwd=root)
    assert "+1 ~3 -0 =0 (nothing written)" in text.stdout
    assert files() == before
    after = cli("index", cwd=root)
    assert after.returncode == 0 and "+1 added" in after.stdout and "=3 unchanged" in after.stdout


def test_rebuild_refuses_a_store_that_does_not_honour_fresh(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    from dataclasses import replace

    from ragloom import hookimpl
    from ragloom.builtin.stores.memory import MemoryStore

    class Stubborn(MemoryStore):
        """Reads its file even when told to start afresh."""

        def open(self, context=None):
            super().open(replace(context, fresh=False) if context is not None else None)

    class Plugin:
        @hookimpl
        def register_stores(self, register):
            register("stubborn", Stubborn)

    pm.register(Plugin(), name="stubborn")
    root = project(tmp_path, stores=[{"type": "stubborn"}])
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        assert len(pipeline.index().added) == 3
        with pytest.raises(IndexStateError) as info:
            pipeline.index(rebuild=True)
    message = str(info.value)
    assert "store 'stubborn' still holds" in message
    assert "does not honour `Context.fresh`" in message and "empty it by hand" in message


def test_a_store_whose_count_lags_is_noted_when_empty_moved_and_repaired(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """``exact_count = False`` (a service such as Pinecone) spares a store the
    count check of every run; it must not spare it every check: one the
    config moved, or that holds nothing, is said, and --repair repairs it."""
    from ragloom.builtin.stores.memory import MemoryStore

    from .conftest import register_store

    class Lagging(MemoryStore):
        exact_count = False

        @property
        def location(self) -> str:
            return f"folder {self.config.path or 'default'}"

    register_store(pm, "lagging", Lagging)
    root = project(tmp_path, stores=[{"type": "lagging"}, {"type": "bm25"}])
    config = yaml.safe_load((root / "ragloom.yaml").read_text())
    with ragloom.load(config, plugin_manager=pm, base_dir=root) as pipeline:
        assert len(pipeline.index().added) == 3 and not pipeline.index().problems
    moved = {**config, "stores": [{"type": "lagging", "path": "elsewhere"}, {"type": "bm25"}]}
    with ragloom.load(moved, plugin_manager=pm, base_dir=root) as pipeline:
        for _ in range(2):  # every run, until repaired
            said = dict(pipeline.index().problems)["lagging"]
            assert "it was folder default at the last run and is folder elsewhere now" in said
        assert dict(pipeline.stores)["lagging"].count() == 0
        report = pipeline.index(repair=True)
        assert report.repaired and dict(pipeline.stores)["lagging"].count() > 0
        assert "lagging" not in dict(pipeline.index().problems)  # (its old folder is named)
    # emptied where it is (no move): a note, as the count cannot lag a whole index
    shutil.rmtree(root / "elsewhere")
    with ragloom.load(moved, plugin_manager=pm, base_dir=root) as pipeline:
        said = dict(pipeline.index().problems)["lagging"]
        assert "holds no chunk but the ledger lists" in said and "--repair" in said
        assert pipeline.index(repair=True).repaired
    # moved in a run that writes every document anyway (a new chunker): settled
    again = {**moved, "stores": [{"type": "lagging", "path": "third"}, {"type": "bm25"}],
             "chunker": {"type": "recursive", "size": 150, "overlap": 10}}  # fmt: skip
    with ragloom.load(again, plugin_manager=pm, base_dir=root) as pipeline:
        assert "the config moved it" in dict(pipeline.index().problems)["lagging"]
        assert "lagging" not in dict(pipeline.index().problems)


def test_store_open_errors_surface_on_use_not_on_open(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    root = project(tmp_path)
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
    (root / ".ragloom" / "bm25" / "bm25.npz").write_bytes(b"garbage")
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        with pytest.raises(StoreError, match="--rebuild"):
            pipeline.retrieve("AES-256")
        assert len(pipeline.index(rebuild=True).added) == 3
        assert sources(pipeline, "AES-256 encrypted", k=1) == {"docs/security.md"}


# -- files the loaders cannot read right now ----------------------------------------


def test_an_unreadable_file_keeps_its_indexed_version(
    tmp_path: Path, pm: pluggy.PluginManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path)
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        real = Path.read_bytes

        def flaky(self: Path) -> bytes:
            if self.name == "security.md":
                raise PermissionError(errno.EACCES, "Permission denied")
            return real(self)

        monkeypatch.setattr(Path, "read_bytes", flaky)
        report = pipeline.index()
        assert report.deleted == () and report.kept == ("docs/security.md",)
        assert any("Permission denied" in m for _, m in report.problems)
        assert sources(pipeline, "AES-256 encrypted", k=1) == {"docs/security.md"}


def test_index_dir_naming_a_file_is_one_clear_line(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / ".ragloom").write_text("not a folder")
    result = cli("index", cwd=root)
    assert result.returncode == 1
    assert "index_dir" in result.stderr and "is a file" in result.stderr
    assert "unexpected" not in result.stderr


def test_index_files_are_private(tmp_path: Path, pm: pluggy.PluginManager) -> None:
    root = project(tmp_path, cache={"answers": True})
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        pipeline.ask("How much does the Pro plan cost?")
    index = root / ".ragloom"
    assert index.stat().st_mode & 0o077 == 0
    for name in ("ledger.sqlite", "answers.sqlite", "index.lock"):
        assert (index / name).stat().st_mode & 0o077 == 0, name


def test_an_unlistable_folder_keeps_its_documents(
    tmp_path: Path, pm: pluggy.PluginManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path)
    (root / "docs" / "team").mkdir()
    (root / "docs" / "team" / "roster.md").write_text("# Roster\n\nThe roster lists narwhals.\n")
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        real = os.scandir

        def scandir(path: object) -> object:
            if str(path).endswith("team"):
                raise PermissionError(errno.EACCES, "Permission denied")
            return real(path)  # type: ignore[arg-type]

        monkeypatch.setattr(os, "scandir", scandir)
        report = pipeline.index()
        assert report.deleted == () and report.kept == ("docs/team/roster.md",)
        assert sources(pipeline, "roster narwhals", k=1) == {"docs/team/roster.md"}


def test_an_old_ledger_is_migrated_in_place(tmp_path: Path, pm: pluggy.PluginManager) -> None:
    import sqlite3

    root = project(tmp_path)
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        entries = Ledger(pipeline.index_dir / "ledger.sqlite").open().entries()
    path = root / ".ragloom" / "ledger.sqlite"
    db = sqlite3.connect(path)  # the 0.1 layout: no stamp, no loader
    db.executescript(
        "CREATE TABLE old AS SELECT id, source, content_hash, chunk_ids, indexed_at FROM documents;"
        "DROP TABLE documents; ALTER TABLE old RENAME TO documents;"
    )
    db.commit()
    db.close()
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        assert sources(pipeline, "AES-256 encrypted", k=1) == {"docs/security.md"}
        report = pipeline.index()
        assert report.unchanged == 3 and report.chunks == 0
    migrated = Ledger(path).open().entries()
    for doc_id, entry in entries.items():
        assert migrated[doc_id].stamp == entry.stamp == entry.chunk_ids[0].rpartition("@")[2]


# -- secrets inside documents ---------------------------------------------------------

AWS_LINE = "aws_access_key_id = AKIAZ7VQ3L5XK2M4P6RT\n"
SECRET_DOC = f"# Deploy\n\nConfigure the CLI:\n\n{AWS_LINE}\nThe kiwi deploys at noon.\n"


@pytest.mark.parametrize("policy", ["skip", "redact", "allow"])
def test_documents_holding_secrets(tmp_path: Path, pm: pluggy.PluginManager, policy: str) -> None:
    root = project(tmp_path, indexing={"secrets": policy})
    config = root / "ragloom.yaml"
    with ragloom.load(config, plugin_manager=pm) as pipeline:
        pipeline.index()
        (root / "docs" / "deploy.md").write_text(SECRET_DOC)  # a key pasted into a doc
        report = pipeline.index()
        hits = pipeline.retrieve("kiwi deploys AKIAZ7VQ3L5XK2M4P6RT", k=10)
        texts = " ".join(h.chunk.text for h in hits if h.chunk.source == "docs/deploy.md")
        messages = [m for s, m in report.problems if s == "docs/deploy.md"]
        if policy == "skip":
            assert report.added == () and texts == ""
            assert messages and "AWS" in messages[0] and "line 5" in messages[0]
        elif policy == "redact":
            assert report.added == ("docs/deploy.md",) and "kiwi" in texts
            assert "AKIAZ7VQ3L5XK2M4P6RT" not in texts and "[REDACTED" in texts
            assert messages and "redacted" in messages[0]
        else:
            assert "AKIAZ7VQ3L5XK2M4P6RT" in texts and messages == []


def _as_an_older_ragloom_committed(root: Path, commit_id: bool = True) -> None:
    """The ledger as a ragloom from before commit stamps leaves it after its
    commit: a new corpus version, a new commit id (``commit_id``; the oldest
    versions leave it as they found it), and the newer one's ``writer`` meta
    untouched (it knows nothing of it)."""
    import sqlite3

    with sqlite3.connect(root / ".ragloom" / "ledger.sqlite") as db:
        meta = "UPDATE meta SET value = ? WHERE key = ?"
        row = db.execute("SELECT value FROM meta WHERE key = 'corpus_version'").fetchone()
        db.execute(meta, (json.dumps(json.loads(row[0]) + 1), "corpus_version"))
        if commit_id:
            db.execute(meta, (json.dumps("0ldc0mm1t"), "commit"))


@pytest.mark.parametrize(
    ("policy", "commit_id"),
    [("skip", True), ("redact", True), ("allow", True), ("skip", False)],
)
def test_a_version_an_older_ragloom_committed_is_screened_for_secrets(
    tmp_path: Path,
    pm: pluggy.PluginManager,
    policy: str,
    commit_id: bool,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A rolling upgrade: a machine not yet upgraded indexes a document whose
    secret its older rules did not find (here: an index written under
    `allow`, then committed by an "older" ragloom). Until this version
    indexes again, its readers screen every hit by the config's policy, and
    say why; once it has, the stamp is its own and nothing is screened."""
    root = project(tmp_path, indexing={"secrets": "allow"})
    (root / "docs" / "deploy.md").write_text(SECRET_DOC)
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        stamped = pipeline.retrieve("kiwi deploys", k=10)
    assert stamped.corpus_version == 1
    assert any("AKIAZ7VQ3L5XK2M4P6RT" in h.chunk.text for h in stamped)  # allowed, stamped
    _as_an_older_ragloom_committed(root, commit_id)
    config = basic_config(indexing={"secrets": policy}, cache={"answers": True})
    (root / "ragloom.yaml").write_text(yaml.safe_dump(config))
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as reader:
        # an older ragloom may have cached answers from what this one screens out
        assert reader.answer_cache is not None
        asked: list[object] = []
        reader.answer_cache.get = lambda key: asked.append(key)  # type: ignore[method-assign]
        reader.ask("When does the kiwi deploy?")
        assert asked == []  # the cache is not read for a version an older ragloom made
        hits = reader.retrieve("kiwi deploys AKIAZ7VQ3L5XK2M4P6RT", k=10)
        assert hits.corpus_version == 2
        texts = " ".join(h.chunk.text for h in hits if h.chunk.source == "docs/deploy.md")
        said = " ".join(r.getMessage() for r in caplog.records)
        assert "committed by an older ragloom" in said
        if policy == "skip":
            assert texts == "" and "left out the hits of docs/deploy.md" in said
            assert {h.chunk.source for h in hits} - {"docs/deploy.md"}  # the rest is served
        elif policy == "redact":
            assert "kiwi" in texts and "AKIAZ7VQ3L5XK2M4P6RT" not in texts
            assert "[REDACTED" in texts
        else:
            assert "AKIAZ7VQ3L5XK2M4P6RT" in texts
        report = reader.index()  # this version indexes again: its own rules, its stamp
        after = reader.retrieve("kiwi deploys AKIAZ7VQ3L5XK2M4P6RT", k=10)
        reader.ask("When does the kiwi deploy?")
        assert len(asked) == 1  # its own version (stamped even when nothing changed): read
    assert after.corpus_version == (2 if policy == "allow" else 3)
    assert (report.deleted == ("docs/deploy.md",)) == (policy == "skip")
    deploy = " ".join(h.chunk.text for h in after if h.chunk.source == "docs/deploy.md")
    assert ("AKIAZ7VQ3L5XK2M4P6RT" in deploy) == (policy == "allow")


def test_a_version_stamped_under_older_screening_rules_is_screened_again(
    tmp_path: Path, pm: pluggy.PluginManager, caplog: pytest.LogCaptureFixture
) -> None:
    """A ragloom that stamped its commits but found fewer secrets (before
    "API key: ..." in words was one) made the last commit: its version is
    read as an older ragloom's, screened hit by hit, until this one indexes
    again and leaves the document out."""
    import sqlite3

    secret = "Staging API key: 9f8e7d6c5b4a39281706f5e4d3c2b1a0\n\nThe kiwi deploys at noon.\n"
    root = project(tmp_path, indexing={"secrets": "allow"})
    (root / "docs" / "deploy.md").write_text(f"# Deploy\n\n{secret}")
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
    with sqlite3.connect(root / ".ragloom" / "ledger.sqlite") as db:
        [(value,)] = db.execute("SELECT value FROM meta WHERE key = 'writer'").fetchall()
        writer = json.loads(value)
        assert writer["screening"] == 2
        del writer["screening"]  # as the ragloom before it stamped
        db.execute("UPDATE meta SET value = ? WHERE key = 'writer'", (json.dumps(writer),))
    (root / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))  # skip, the default
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as reader:
        hits = reader.retrieve("kiwi deploys API key", k=10)
        assert "docs/deploy.md" not in {h.chunk.source for h in hits}
        said = " ".join(r.getMessage() for r in caplog.records)
        assert "committed by an older ragloom" in said and "docs/deploy.md" in said
        report = reader.index()
        assert report.deleted == ("docs/deploy.md",)
        assert reader.retriever.state.view.stamped


def test_a_rebuild_mark_an_older_ragloom_left_behind_does_not_block_queries(
    tmp_path: Path, pm: pluggy.PluginManager, caplog: pytest.LogCaptureFixture
) -> None:
    """This version's `--rebuild` was killed after clearing the ledger (its
    mark, stamped as its own), then a ragloom from before the mark indexed
    again (it knows neither the mark nor the stamp): queries answer from its
    commit rather than refuse forever. The mark while still this version's
    own, or on a ledger no stamping ragloom ever wrote, refuses."""
    import sqlite3

    from ragloom.errors import IndexRebuildingError
    from ragloom.ledger import LEDGER_FILE, Ledger

    root = project(tmp_path)
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
    path = root / ".ragloom" / LEDGER_FILE
    ledger = Ledger(path).open()
    rows = ledger.db.execute("SELECT * FROM documents").fetchall()
    ledger.clear(rebuilding=time.time())  # what `--rebuild` commits first (local stores)
    assert ledger.stamped
    ledger.close()
    with (
        ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as reader,
        pytest.raises(IndexRebuildingError),
    ):
        reader.retrieve("refund", k=3)
    assert "older ragloom" not in caplog.text  # its own mark: no false warning
    with sqlite3.connect(path) as db:  # the older one indexes every document again
        marks = ",".join("?" * len(rows[0]))
        db.executemany(f"INSERT INTO documents VALUES ({marks})", rows)
    _as_an_older_ragloom_committed(root, commit_id=False)
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as reader:
        assert reader.retrieve("refunded within 30 days", k=3)  # what the older one indexed
    assert "committed by an older ragloom" in caplog.text
    with sqlite3.connect(path) as db:  # no stamping ragloom ever wrote it: the mark holds
        db.execute("DELETE FROM meta WHERE key = 'writer'")
    with (
        ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as reader,
        pytest.raises(IndexRebuildingError),
    ):
        reader.retrieve("refund", k=3)


def test_a_run_of_some_sources_does_not_stamp_what_an_older_ragloom_let_in(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """After an older ragloom's commit, `ragloom index SOURCES` screens only
    those: its commit is not stamped, so the rest is still screened at query
    time; a full run stamps it (with a new commit id, so that answers cached
    under the older one's are not taken for this one's)."""
    from ragloom.ledger import LEDGER_FILE, Ledger

    root = project(tmp_path, indexing={"secrets": "allow"})
    (root / "docs" / "deploy.md").write_text(SECRET_DOC)
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
    _as_an_older_ragloom_committed(root)
    (root / "ragloom.yaml").write_text(yaml.safe_dump(basic_config(indexing={"secrets": "skip"})))
    (root / "docs" / "pricing.md").write_text(DOCS["pricing.md"] + "\nA new line.\n")
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        scoped = pipeline.index([root / "docs" / "pricing.md"])
        assert scoped.changed == ("docs/pricing.md",) and scoped.corpus_version == 3
        hits = pipeline.retrieve("kiwi deploys AKIAZ7VQ3L5XK2M4P6RT", k=10)
        assert "docs/deploy.md" not in {h.chunk.source for h in hits}  # still screened
    ledger = Ledger(root / ".ragloom" / LEDGER_FILE).open()
    assert not ledger.stamped
    ledger.close()
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        full = pipeline.index()
        assert full.deleted == ("docs/deploy.md",)
    ledger = Ledger(root / ".ragloom" / LEDGER_FILE).open()
    assert ledger.stamped
    commit = ledger.get_meta("commit")
    assert not ledger.stamp() and ledger.get_meta("commit") == commit  # already its own
    ledger.close()


def test_an_index_a_newer_ragloom_wrote_is_not_written_by_this_one(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """A ledger stamped with a format past this ragloom's (a newer one wrote it,
    then a machine was rolled back): an index run refuses, saying what to do;
    queries still answer; `--rebuild` starts it afresh under this version."""
    import sqlite3

    from ragloom.ledger import LEDGER_FORMAT

    root = project(tmp_path)
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
    ledger = root / ".ragloom" / "ledger.sqlite"
    with sqlite3.connect(ledger) as db:
        writer = json.loads(db.execute("SELECT value FROM meta WHERE key = 'writer'").fetchone()[0])
        assert writer["format"] == LEDGER_FORMAT and writer["ragloom"] == ragloom.__version__
        writer.update(format=LEDGER_FORMAT + 1, ragloom="9.0.0")
        db.execute("UPDATE meta SET value = ? WHERE key = 'writer'", (json.dumps(writer),))
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        assert pipeline.retrieve("refund", k=3)  # reading is fine
        with pytest.raises(IndexStateError, match=r"newer ragloom \(9\.0\.0, ledger format"):
            pipeline.index()
        assert pipeline.index(rebuild=True).corpus_version == 2
    with sqlite3.connect(ledger) as db:
        writer = json.loads(db.execute("SELECT value FROM meta WHERE key = 'writer'").fetchone()[0])
    assert writer["format"] == LEDGER_FORMAT


@pytest.mark.parametrize("policy", ["skip", "redact"])
def test_secrets_in_front_matter_and_an_html_title(
    tmp_path: Path, pm: pluggy.PluginManager, policy: str
) -> None:
    """Front matter and an HTML title become every hit's metadata: they are
    screened as the text is."""
    key, secret = "AKIAZ7VQ3L5XK2M4P6RT", "q8Lm3Tq9xZ7VQ3L5XK2M4P6RTab12cd34efGh56I"
    root = project(
        tmp_path,
        docs={
            "deploy.md": f"---\ntitle: Deploy notes\naws:\n  key: {key}\n"
            f"  secret_access_key: {secret}\n---\n# Deploy\n\nThe falcon bucket deploys.\n",
            "page.html": f"<html><head><title>Key {key} page</title></head>"
            "<body><h1>Ops</h1><p>The ember relay runs nightly.</p></body></html>",
        },
        indexing={"secrets": policy},
    )
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        report = pipeline.index()
        messages = dict(report.problems)
        assert "metadata aws.key, aws.secret_access_key" in messages["docs/deploy.md"]
        assert "metadata title" in messages["docs/page.html"]
        hits = pipeline.retrieve("falcon bucket ember relay", k=10)
        if policy == "skip":
            assert report.added == () and list(hits) == []
            return
        assert sorted(report.added) == ["docs/deploy.md", "docs/page.html"]
        shown = json.dumps([dict(h.chunk.metadata) for h in hits]) + " ".join(
            h.chunk.text for h in hits
        )
        assert key not in shown and secret not in shown and "[REDACTED: AWS" in shown
        assert "Deploy notes" in shown and "falcon" in shown


def test_a_document_that_gains_a_secret_leaves_the_index(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    root = project(tmp_path)
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        with (root / "docs" / "security.md").open("a") as handle:
            handle.write(f"\nFor the audit bucket use\n{AWS_LINE}")
        report = pipeline.index()
        assert report.deleted == ("docs/security.md",)
        for _, store in pipeline.stores:
            assert not [i for i in store.ids() if i.startswith("docs/security.md")]


def test_the_quickstart_documents_hold_no_secret() -> None:
    from ragloom.secrets import find_secrets

    docs = Path(__file__).resolve().parent.parent / "examples" / "quickstart" / "docs"
    texts = {p.name: p.read_text("utf-8") for p in docs.glob("*.md")}
    assert len(texts) >= 5
    assert {name: find_secrets(text) for name, text in texts.items() if find_secrets(text)} == {}


# -- queries while a rebuild runs, or after one was killed -------------------------


class _Pause:
    """A plugin whose ``on_event`` calls ``then()`` once, at the rebuild's
    first embedding: the ledger is cleared and no document is back yet."""

    def __init__(self, then: Any) -> None:
        self.then, self.done = then, False

    @ragloom.hookimpl
    def on_event(self, event: Any) -> None:
        from ragloom.events import StageFinished

        if isinstance(event, StageFinished) and event.stage == "chunk" and not self.done:
            self.done = True
            self.then()


def test_a_rebuild_that_starts_between_a_querys_check_and_its_stores_is_refused(
    tmp_path: Path, pm: pluggy.PluginManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pipeline queried from threads while it rebuilds its own index: a
    query that checked the version it held, then took the store lock after
    the rebuild had emptied the stores, answered "no hits" labelled with that
    version (a few in every 30,000 such queries). It is refused now, as the
    other queries of the rebuild are."""
    from ragloom.errors import IndexRebuildingError
    from ragloom.ledger import Ledger

    root = project(tmp_path)
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        retriever = pipeline.retriever
        checked = retriever.check_view

        def then_a_rebuild_clears(view: Any) -> None:
            checked(view)
            if not view.rebuilding:  # what the rebuild's wipe does, at the worst moment
                Ledger(pipeline.index_dir / "ledger.sqlite").open().clear(rebuilding=time.time())
                with pipeline.state.lock.write():
                    pipeline.stores.reopen_all(fresh=True)
                    pipeline.state.set_view(pipeline.state.load_view())

        monkeypatch.setattr(retriever, "check_view", then_a_rebuild_clears)
        with pytest.raises(IndexRebuildingError):
            pipeline.retrieve("AES-256")


def test_a_query_during_a_rebuild_says_so(tmp_path: Path, pm: pluggy.PluginManager) -> None:
    """A pipeline opened while `--rebuild` runs found no documents and said
    "no hits"; it now raises IndexRebuildingError. One opened before keeps
    answering from its own copy of the stores."""
    from ragloom.errors import IndexRebuildingError

    root = project(tmp_path)
    config = yaml.safe_load((root / "ragloom.yaml").read_text())
    with ragloom.load(config, plugin_manager=pm, base_dir=root) as writer:
        writer.index()
    seen: dict[str, Any] = {}
    reader = ragloom.load(config, base_dir=root, plugin_manager=build_plugin_manager(
        load_entry_points=False, env={}))  # fmt: skip
    assert sources(reader, "AES-256")  # opened and answering before the rebuild

    def during() -> None:
        seen["before"] = sources(reader, "AES-256")
        with ragloom.load(config, base_dir=root, plugin_manager=build_plugin_manager(
                load_entry_points=False, env={})) as late:  # fmt: skip
            with pytest.raises(IndexRebuildingError) as info:
                late.retrieve("AES-256")
            seen["late"] = str(info.value)
        with pytest.raises(IndexRebuildingError):  # the rebuilding pipeline's own queries
            writer.retrieve("AES-256")

    with ragloom.load(config, plugin_manager=pm, base_dir=root) as writer:
        pm.register(_Pause(during), name="pause")
        report = writer.index(rebuild=True)
        assert report.added and seen
        assert "docs/security.md" in sources(writer, "AES-256")  # done: answers again
    assert seen["before"] == {"docs/security.md"} or "docs/security.md" in seen["before"]
    assert "the index is being rebuilt (`ragloom index --rebuild`, started " in seen["late"]
    assert "run `ragloom index` to complete it" in seen["late"]
    assert "docs/security.md" in sources(reader, "AES-256")  # the new version, loaded
    reader.close()


def test_a_killed_rebuild_is_named_until_a_run_completes_it(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert cli("index", cwd=root).returncode == 0
    script = (
        "import os, ragloom\n"
        "from ragloom.events import StageFinished\n"
        "from ragloom.plugins import get_plugin_manager\n"
        "class Kill:\n"
        "    @ragloom.hookimpl\n"
        "    def on_event(self, event):\n"
        "        if isinstance(event, StageFinished) and event.stage == 'chunk':\n"
        "            os._exit(9)\n"
        "get_plugin_manager().register(Kill(), name='kill')\n"
        "with ragloom.load('ragloom.yaml') as p:\n"
        "    p.index(rebuild=True)\n"
    )
    killed = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert killed.returncode == 9, killed.stderr
    refused = cli("search", "AES-256", cwd=root)
    assert refused.returncode == 1
    assert "the index is being rebuilt" in refused.stderr
    assert "If no rebuild is running, one was interrupted: run `ragloom index`" in refused.stderr
    completed = cli("index", cwd=root)
    assert completed.returncode == 0, completed.stderr
    assert '"docs/security.md"' in cli("search", "AES-256", "--json", cwd=root).stdout


class _SharedStore(DictStore):
    """A text store whose chunks live in one place for every instance, as on a
    server: the rebuild empties them under every reader."""

    remote_queries = True
    held: dict[str, Any] = {}

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        self.chunks = _SharedStore.held

    def open(self, context: Any = None) -> None:
        super().open(context)
        if self.context.fresh:
            self.chunks.clear()

    def query(self, *, vector: Any = None, text: Any = None, k: int = 10, where: Any = None):
        from ragloom.types import Hit

        words = set(str(text).lower().split())
        found = [c for c in self.chunks.values() if words & set(c.text.lower().split())]
        return [Hit(chunk=c, score=1.0, store="shared") for c in found[:k]]


def _shared_project(
    tmp_path: Path, pm: pluggy.PluginManager, kind: type
) -> tuple[Path, dict[str, Any], pluggy.PluginManager]:
    """A project on one store of ``kind`` (its data shared by every instance),
    its config, and a plugin manager for a reader pipeline of its own."""
    from .conftest import register_store

    _SharedStore.held = {}
    register_store(pm, "shared", kind)
    root = project(tmp_path, stores=[{"type": "shared"}], embedder=None)
    reader_pm = build_plugin_manager(load_entry_points=False, env={})
    register_store(reader_pm, "shared", kind)
    return root, yaml.safe_load((root / "ragloom.yaml").read_text()), reader_pm


class _EngineStore(_SharedStore):
    """One engine for every store of the process, as an embedded Qdrant: its
    queries compute here (no server), but a write by one instance is the
    others' at once."""

    remote_queries = False
    shared_data = True


@pytest.mark.parametrize("kind", [_SharedStore, _EngineStore], ids=["server", "engine"])
def test_a_reader_of_a_store_on_a_server_hears_of_the_rebuild(
    tmp_path: Path, pm: pluggy.PluginManager, kind: type
) -> None:
    """Its store is emptied and refilled under it: it would answer from part
    of the documents, silently; the cleared ledger comes with a new version,
    which it loads, and its queries say the index is being rebuilt. So too
    for a store whose engine the pipelines of one process share (an embedded
    Qdrant: the reader answered "no hits" through the whole rebuild, trial
    20's operator F4)."""
    from ragloom.errors import IndexRebuildingError

    root, config, reader_pm = _shared_project(tmp_path, pm, kind)
    with ragloom.load(config, plugin_manager=pm, base_dir=root) as writer:
        writer.index()
        reader = ragloom.load(config, plugin_manager=reader_pm, base_dir=root)
        assert sources(reader, "encrypted") == {"docs/security.md"}
        seen: list[str] = []

        def during() -> None:
            with pytest.raises(IndexRebuildingError) as info:
                reader.retrieve("encrypted")
            seen.append(str(info.value))

        pm.register(_Pause(during), name="pause")
        writer.index(rebuild=True)
    assert seen and "being rebuilt" in seen[0]
    assert sources(reader, "encrypted") == {"docs/security.md"}
    reader.close()


def test_a_store_on_a_server_emptied_behind_ragloom_is_refused_not_answered_from(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """A server's table dropped, or rows deleted, by hand: every query said
    "no hits" (a server's 200s), where an embedded store's was refused
    (trial 20's operator F2, pgvector); its count is asked once a version."""
    from .conftest import register_store

    _SharedStore.held = {}
    register_store(pm, "shared", _SharedStore)
    root = project(tmp_path, stores=[{"type": "shared"}], embedder=None)
    config = yaml.safe_load((root / "ragloom.yaml").read_text())
    with ragloom.load(config, plugin_manager=pm, base_dir=root) as pipeline:
        pipeline.index()
    doomed = next(k for k, c in _SharedStore.held.items() if c.source == "docs/security.md")
    del _SharedStore.held[doomed]  # a row deleted by hand
    with ragloom.load(config, plugin_manager=pm, base_dir=root) as reader:
        with pytest.raises(IndexStateError, match="holds .* chunk.* but the ledger lists"):
            reader.retrieve("encrypted")
        assert "docs/security.md" in reader.index(repair=True).rewritten
        assert sources(reader, "encrypted") == {"docs/security.md"}


class _TableStore(_SharedStore):
    """A table on a database server, in one of several places (``place``):
    many processes write it, and it lists its ids."""

    shared_writes = True
    places: dict[str, dict[str, Any]] = {}
    place = "public.chunks"

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        self.chunks = _TableStore.places.setdefault(_TableStore.place, {})

    @property
    def location(self) -> str:
        return f"table {_TableStore.place}"

    def ids(self, where: Any = None) -> Any:
        return iter(list(self.chunks))


def test_a_second_index_on_the_same_table_is_told_so_and_not_let_delete_the_first(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """Two configs on one database with the default table: the second's first
    run said "run --repair", and --repair deleted the first index's chunks as
    "no document owns" them (trial 20's operator F6). The run names the clash,
    and a repair that would delete most of a server's table is refused."""
    from .conftest import register_store

    _TableStore.places, _TableStore.place = {}, "public.ragloom_table"
    register_store(pm, "table", _TableStore)
    first = project(tmp_path / "first", stores=[{"type": "table"}], embedder=None)
    with ragloom.load(first / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
    held = dict(_TableStore.places["public.ragloom_table"])
    second = tmp_path / "second"
    (second / "docs").mkdir(parents=True)
    (second / "docs" / "other.md").write_text("# Other\n\nA document of another team.\n")
    (second / "ragloom.yaml").write_text((first / "ragloom.yaml").read_text())
    with ragloom.load(second / "ragloom.yaml", plugin_manager=pm) as pipeline:
        with pytest.raises(IndexStateError, match="another index may use the same location"):
            pipeline.index()
        with pytest.raises(IndexStateError, match="more than `indexing.max_delete_share`"):
            pipeline.index(repair=True)
        with pytest.raises(IndexStateError, match="`--rebuild` would delete them"):
            pipeline.index(rebuild=True)  # it drops the table: the first index's too
    assert _TableStore.places["public.ragloom_table"] == held  # the first index's, untouched
    with ragloom.load(first / "ragloom.yaml", plugin_manager=pm) as pipeline:
        assert pipeline.index().unchanged == len(pipeline.retriever.state.view.stamps)
        assert pipeline.index(rebuild=True).added  # its own rebuild: nothing in the way


def test_a_store_moved_back_to_an_older_copy_is_named_whatever_it_holds(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """The config moved a server's store to another table and back: the old
    table held as many chunks as the ledger lists, of older versions, and the
    run passed, its edited documents unfindable (trial 20's operator F7)."""
    from .conftest import register_store

    _TableStore.places, _TableStore.place = {}, "public.a"
    register_store(pm, "table", _TableStore)
    root = project(tmp_path, stores=[{"type": "table"}], embedder=None)
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
    _TableStore.place = "public.b"
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        with pytest.raises(IndexStateError, match="the config moved it"):
            pipeline.index()
        pipeline.index(repair=True)
        path = root / "docs" / "security.md"
        path.write_text(path.read_text().replace("encrypted", "ciphered"))  # as many chunks
        assert pipeline.index().changed == ("docs/security.md",)
    _TableStore.place = "public.a"  # back: as many chunks, the older copy
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        with pytest.raises(IndexStateError, match="the config moved it: it was table public.b"):
            pipeline.retrieve("ciphered")  # a query too: it would answer from the old copy
        with pytest.raises(IndexStateError, match="as many as the ledger lists: .*moved it"):
            pipeline.index()
        pipeline.index(repair=True)
        assert sources(pipeline, "ciphered") == {"docs/security.md"}


def test_a_rebuild_that_empties_a_shared_store_while_it_answers_is_heard_of(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """The reader checked its version, then asked its store while another
    pipeline's rebuild committed the cleared ledger and emptied the store:
    the store answered nothing, and the query said "no hits" at the old
    version (trial 20's operator F3, on pgvector). The version moved while
    it answered, so the query asks again, and is refused as rebuilding."""
    import threading

    from ragloom.errors import IndexRebuildingError

    root, config, reader_pm = _shared_project(tmp_path, pm, _SharedStore)
    paused, resume = threading.Event(), threading.Event()

    def hold() -> None:
        paused.set()
        assert resume.wait(60)

    with ragloom.load(config, plugin_manager=pm, base_dir=root) as writer:
        writer.index()
        reader = ragloom.load(config, plugin_manager=reader_pm, base_dir=root)
        assert sources(reader, "encrypted") == {"docs/security.md"}
        [(_, store)] = reader.stores
        answer = store.query
        rebuild = threading.Thread(target=lambda: writer.index(rebuild=True))

        asks: list[int] = []

        def query_while_it_rebuilds(**kwargs: Any) -> Any:
            asks.append(len(_SharedStore.held))
            if len(asks) == 1:  # the first ask: the rebuild starts under it
                pm.register(_Pause(hold), name="pause")
                rebuild.start()
                assert paused.wait(60)
            return answer(**kwargs)

        store.query = query_while_it_rebuilds  # type: ignore[method-assign]
        try:
            with pytest.raises(IndexRebuildingError):
                reader.retrieve("encrypted")
        finally:
            resume.set()
            rebuild.join(60)
        assert asks[0] > 0 and len(asks) == 1, asks  # asked once; then refused at its check
    assert sources(reader, "encrypted") == {"docs/security.md"}
    reader.close()


def test_a_folder_of_a_store_the_config_dropped_is_named_on_every_run(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """It keeps the text of every document indexed into it, deleted ones
    included, and nothing said so (a rename, a removal, even --rebuild)."""
    root = project(tmp_path)
    config = yaml.safe_load((root / "ragloom.yaml").read_text())
    with ragloom.load(config, plugin_manager=pm, base_dir=root) as pipeline:
        assert not pipeline.index().problems
    renamed = {**config, "stores": [config["stores"][0], {"type": "bm25", "name": "words"}]}
    with ragloom.load(renamed, plugin_manager=pm, base_dir=root) as pipeline:
        for run in (lambda: pipeline.index(repair=True), pipeline.index, pipeline.index):
            problems = dict(run().problems)
            stray = str(root / ".ragloom" / "bm25")
            assert stray in problems, problems
            assert "a folder of no store in the config" in problems[stray]
        assert set(problems) == {stray}  # the stores' own folders are not named
    shutil.rmtree(root / ".ragloom" / "bm25")
    with ragloom.load(renamed, plugin_manager=pm, base_dir=root) as pipeline:
        assert not pipeline.index().problems


def test_an_index_in_the_project_folder_never_calls_the_documents_a_stray_store(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """``index_dir: .`` puts the stores beside ``docs/``: the documents'
    own folder is no forgotten copy to delete."""
    root = project(tmp_path, index_dir=".")
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        report = pipeline.index()
        assert len(report.added) == len(DOCS) and not report.problems, report.problems
        (root / "old-store").mkdir()
        (root / "old-store" / "chunks.json").write_text("[]")
        problems = dict(pipeline.index().problems)
        assert set(problems) == {str(root / "old-store")}  # a real stray one still is
    # and a loader that reads the whole project folder: every folder is documents
    config = basic_config(index_dir=".", loaders=[{"type": "directory", "path": "."}])
    with ragloom.load(config, plugin_manager=pm, base_dir=root) as pipeline:
        assert not [s for s, _ in pipeline.index().problems if s.endswith(("docs", "old-store"))]


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_index_dir_is_a_config_error(tmp_path: Path, value: str) -> None:
    """A variable set to nothing (``index_dir: ${IDX}``, ``IDX=``) put the
    index in the project folder, silently."""
    from ragloom.errors import ConfigValidationError

    with pytest.raises(ConfigValidationError) as info:
        ragloom.load(basic_config(index_dir=value), base_dir=tmp_path)
    assert "index_dir is empty" in str(info.value)


@pytest.mark.parametrize("damage", ["deleted", "emptied"])
def test_a_query_refuses_a_store_whose_file_lost_chunks(tmp_path: Path, damage: str) -> None:
    """A store file deleted (or swapped for an emptier one) answered "no hits"
    to every query, exit 0, and a server 200 with no hits: only `ragloom
    index` said so. A query now refuses it, naming the store and the fix."""
    root = project(tmp_path, stores=[{"type": "memory"}])
    assert cli("index", cwd=root).returncode == 0
    store_file = next((root / ".ragloom" / "memory").glob("*.npz"))
    if damage == "deleted":
        store_file.unlink()
    else:  # another index's file, of one document
        other = project(tmp_path / "other", docs={"a.md": "# A\n\nOne short note.\n"})
        other_config = other / "ragloom.yaml"
        other_config.write_text(yaml.safe_dump(basic_config(stores=[{"type": "memory"}])))
        assert cli("index", cwd=other).returncode == 0
        store_file.write_bytes(next((other / ".ragloom" / "memory").glob("*.npz")).read_bytes())
    refused = cli("search", "refund", cwd=root)
    assert refused.returncode == 1, refused.stdout
    assert "store 'memory' holds" in refused.stderr and "--repair" in refused.stderr
    assert cli("index", "--repair", cwd=root).returncode == 0
    found = cli("search", "refund", cwd=root)
    assert found.returncode == 0 and "docs/" in found.stdout


@pytest.mark.parametrize("policy", ["skip", "redact"])
def test_a_secret_in_a_file_name_is_not_said_again_in_the_report(
    tmp_path: Path, pm: pluggy.PluginManager, policy: str
) -> None:
    """The note that a file's name holds a key printed the name, key and all,
    into the terminal and the CI log that keeps `ragloom index`'s output."""
    key = "AKIAZ7VQ3L5XK2M4P6RT"
    root = project(tmp_path, docs={f"{key}.txt": "The heron note.\n"}, indexing={"secrets": policy})
    shown = cli("index", "--dry-run", cwd=root)  # lists what it would add: not by the key
    assert shown.returncode == 0 and key not in shown.stdout + shown.stderr, shown.stdout
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        report = pipeline.index()
        assert report.problems and all(key not in source for source, _ in report.problems)
        assert any("[REDACTED: AWS" in source for source, _ in report.problems), report.problems
        if policy == "redact":  # its id (a chunk's, a citation's) is redacted as its source
            (hit,) = pipeline.retrieve("heron")
            assert key not in json.dumps([hit.chunk.id, hit.chunk.document_id, hit.chunk.label])
            assert hit.chunk.document_id.startswith("docs/[REDACTED: AWS Access Key ")
            again = pipeline.index()  # the same id on every run
            assert again.unchanged == 1 and not again.added and not again.deleted


def test_a_plain_run_completes_a_rebuild_that_failed(
    tmp_path: Path, pm: pluggy.PluginManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebuild that failed (not killed) after committing its empty ledger
    left the stores' files as they were: a query said "run `ragloom index` to
    complete it", and `ragloom index` refused, blaming changes "outside
    ragloom" and asking for --repair."""
    from ragloom.storewriter import StoreWriter

    root = project(tmp_path)
    config = root / "ragloom.yaml"
    with ragloom.load(config, plugin_manager=pm) as pipeline:
        indexed = pipeline.index()
    wipe = StoreWriter.wipe

    def denied(self: StoreWriter) -> None:
        raise PermissionError(13, "Permission denied", str(root / ".ragloom" / "bm25"))

    monkeypatch.setattr(StoreWriter, "wipe", denied)  # a store folder it may not write
    with (
        ragloom.load(config, plugin_manager=pm) as pipeline,
        pytest.raises(PermissionError),
    ):
        pipeline.index(rebuild=True)
    monkeypatch.setattr(StoreWriter, "wipe", wipe)
    refused = cli("search", "AES-256", cwd=root)
    assert "run `ragloom index` to complete it" in refused.stderr
    with ragloom.load(config, plugin_manager=pm) as pipeline:
        # a run of some files would complete it with those alone: refused
        with pytest.raises(IndexStateError, match="without SOURCES to complete it"):
            pipeline.index(sources=["docs/security.md"])
        completed = pipeline.index()
        assert sorted(completed.added) == sorted(indexed.added)
        assert any("completing the `ragloom index --rebuild`" in m for _, m in completed.problems)
        assert sources(pipeline, "AES-256 encryption") >= {"docs/security.md"}
        assert pipeline.index().unchanged == len(indexed.added)  # and all is in agreement


def test_a_server_keeps_answering_while_a_new_index_is_built_in_its_folder(
    tmp_path: Path, pm: pluggy.PluginManager, caplog: pytest.LogCaptureFixture
) -> None:
    """The index folder replaced under a running server: for the whole first
    run into the new folder, the server answered 200 with no hits (version 0)."""
    import shutil

    root = project(tmp_path)
    config = root / "ragloom.yaml"
    with ragloom.load(config, plugin_manager=pm) as server:
        server.index()
        before = server.retrieve("AES-256 encryption")
        shutil.rmtree(root / ".ragloom")
        # a new run has begun: its ledger exists, nothing is committed yet
        Ledger(root / ".ragloom" / "ledger.sqlite").open().close()
        during = server.retrieve("AES-256 encryption")
        assert during.corpus_version == before.corpus_version and during
        assert [h.chunk.id for h in during] == [h.chunk.id for h in before]
        assert "a new index is being built" in caplog.text
        with ragloom.load(config, plugin_manager=pm) as cron:
            committed = cron.index()
        after = server.retrieve("AES-256 encryption")
    assert after.index_id != before.index_id and after.corpus_version == committed.corpus_version
    assert "docs/security.md" in {h.chunk.source for h in after}


def test_no_hits_under_a_filter_says_which_field_none_has(tmp_path: Path) -> None:
    """A misspelt field, or a number compared with a string, gave a bare "no
    hits" (exit 0), which reads as "nothing matches"."""
    root = project(
        tmp_path,
        docs={
            "dated.md": "---\nupdated: '2026-02-10'\nyear: 2026\ntags: [hr, it]\n---\n# Badges\n\n"
            "Badges are renewed yearly.\n",
            "other.md": "# Parking\n\nThe garage opens at seven.\n",
        },
    )
    assert cli("index", cwd=root).returncode == 0
    typo = cli("search", "badges", "--filter", '{"udpated": {"$gte": "2026-01-01"}}', cwd=root)
    assert typo.returncode == 0
    assert "has a field `udpated` (did you mean `updated`?)" in typo.stdout, typo.stdout
    typed = cli("search", "badges", "--filter", '{"year": {"$gt": "2025"}}', cwd=root)
    assert "`year` holds number values, and the filter compares it with string" in typed.stdout
    right = cli("search", "badges", "--filter", '{"year": {"$gt": 2025}}', cwd=root)
    assert "docs/dated.md" in right.stdout
    none = cli("search", "badges", "--filter", '{"year": {"$gt": 2030}}', cwd=root)
    assert none.stdout.strip() == "no hits"  # the field and its type are right: nothing matches
    # a list field matches a string equal to one of its items: no type to blame
    tags = cli("search", "badges", "--filter", '{"tags": "payroll"}', cwd=root)
    assert tags.stdout.strip() == "no hits", tags.stdout


class _SlowToFailStore(DictStore):
    """A store on a server that does not answer: its open waits out a
    timeout, then fails."""

    opened = 0
    wait = 1.1

    def open(self, context: Any = None) -> None:
        import time

        type(self).opened += 1
        time.sleep(self.wait)
        raise StoreError("cannot connect: connection timeout expired")

    def query(self, *, vector: Any = None, text: Any = None, k: int = 10, where: Any = None):
        return []


def test_a_store_that_timed_out_opening_is_not_waited_for_again_at_once(
    tmp_path: Path, pm: pluggy.PluginManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL hung: a command waited twice its connect_timeout, once as
    the pipeline opened and again in its first query (operator trial 20, F8).
    The query raises what the open met; a store that failed fast, or after
    `REOPEN_AFTER` seconds, is tried again."""
    from ragloom import storeset

    from .conftest import register_store

    register_store(pm, "slow", _SlowToFailStore)
    root = project(tmp_path, stores=[{"type": "slow"}], embedder=None)
    _SlowToFailStore.opened = 0
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        with pytest.raises(StoreError, match="timeout expired"):
            pipeline.retrieve("anything")
        assert _SlowToFailStore.opened == 1
        monkeypatch.setattr(storeset, "REOPEN_AFTER", 0.0)
        with pytest.raises(StoreError, match="timeout expired"):
            pipeline.retrieve("anything")
        assert _SlowToFailStore.opened == 2
    _SlowToFailStore.wait = 0.0  # failing fast (an unreadable file): tried again each time
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        for _ in range(2):
            with pytest.raises(StoreError):
                pipeline.retrieve("anything")
    assert _SlowToFailStore.opened == 2 + 3


def test_a_file_that_grew_past_max_file_size_keeps_its_indexed_version(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """A runbook that grows past the limit is said, and answers as it was
    indexed (as an unreadable file does), not deleted one document at a
    time past the mass-delete guard; excluded, it goes."""
    loader = {"type": "directory", "path": "docs", "max_file_size": 200}
    root = project(
        tmp_path,
        docs={"runbook.md": "# Runbook\n\nRestart the aardvark service.\n", "b.md": "# B\n\nb\n"},
        loaders=[loader],
    )
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        with (root / "docs" / "runbook.md").open("a", encoding="utf-8") as handle:
            handle.write("more detail\n" * 40)
        report = pipeline.index()
        assert report.deleted == () and report.kept == ("docs/runbook.md",)
        assert report.documents == 2  # what the index holds: the kept one counts
        assert "over max_file_size (200)" in dict(report.problems)["docs/runbook.md"]
        assert "aardvark" in pipeline.retrieve("aardvark service")[0].chunk.text
        # a rebuild writes only what it reads: it would lose it, and says so
        with pytest.raises(IndexStateError, match=r"--rebuild writes only what it reads"):
            pipeline.index(rebuild=True)
        dry = pipeline.index(rebuild=True, dry_run=True)  # fails as the run would
        assert not dry.ok and "the run would be refused: --rebuild writes" in dry.errors[0][1]
        assert "aardvark" in pipeline.retrieve("aardvark service")[0].chunk.text
        dropped = pipeline.index(rebuild=True, allow_mass_delete=True)
        assert dropped.deleted == ("docs/runbook.md",) and dropped.kept == ()
        assert dropped.documents == 1
        pipeline.index(rebuild=True, allow_mass_delete=True)
    excluded = {**loader, "exclude": ["runbook.md"]}
    (root / "ragloom.yaml").write_text(yaml.safe_dump(basic_config(loaders=[excluded])))
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        assert pipeline.index().deleted == ()  # (the rebuild dropped it already)
        assert pipeline.status().documents == 1


def test_a_process_whose_config_changed_under_it_is_told_to_restart(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """A server loads its config once: after another process rebuilt the
    index with a changed embedder, its queries are refused with the fix that
    helps (restart it), not the rebuild that was just done; a process that
    never answered from the index gets the rebuild advice."""
    root = project(tmp_path, docs={"a.md": "# A\n\nAardvarks dig burrows.\n"})
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as server:
        server.index()
        assert server.retrieve("aardvark")
        changed = basic_config(embedder={"type": "hash", "dimension": 128})
        (root / "ragloom.yaml").write_text(yaml.safe_dump(changed))
        with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as cron:
            cron.index(rebuild=True)
        with pytest.raises(IndexStateError, match=r"rebuilt with embedder .*restart this process"):
            server.retrieve("aardvark")
    (root / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    with (
        ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as fresh,
        pytest.raises(IndexStateError, match=r"was built with embedder .*--rebuild`$"),
    ):
        fresh.retrieve("aardvark")


def test_a_rebuild_with_a_loader_unmounted_refuses_to_lose_its_documents(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """An unmounted share's documents are kept by a plain run; a rebuild,
    which writes only what it reads, would lose them: refused, nothing
    touched, unless --allow-mass-delete, which says they were deleted."""
    root = project(tmp_path, docs={"a.md": "# A\n\nAardvarks dig burrows.\n"})
    share = root / "share"
    share.mkdir()
    (share / "b.md").write_text("# B\n\nBadgers dig setts.\n", "utf-8")
    loaders = [{"type": "directory", "path": "docs"}, {"type": "directory", "path": "share"}]
    (root / "ragloom.yaml").write_text(yaml.safe_dump(basic_config(loaders=loaders)))
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        share.rename(root / "share.off")
        with pytest.raises(IndexStateError, match=r"such as share/b\.md"):
            pipeline.index(rebuild=True)
        assert pipeline.status().documents == 2
        assert "Badgers" in pipeline.retrieve("badgers setts")[0].chunk.text
        report = pipeline.index(rebuild=True, allow_mass_delete=True)
        assert report.deleted == ("share/b.md",) and report.kept == ()
        assert "deleted by this --rebuild" in report.errors[0][1]


def test_completing_a_killed_rebuild_says_what_it_could_not_read_is_lost(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """A killed `--rebuild` has committed its emptied ledger; the run that
    completes it writes only what it reads. A file grown past max_file_size
    and an unmounted share were said to be "kept" and were gone from the
    index: the run fails, naming each and the rebuild that emptied it."""
    loaders = [
        {"type": "directory", "path": "docs", "max_file_size": 200},
        {"type": "directory", "path": "share"},
    ]
    root = project(
        tmp_path,
        docs={"runbook.md": "# Runbook\n\nRestart the aardvark service.\n", "b.md": "# B\n\nb\n"},
        loaders=loaders,
    )
    share = root / "share"
    share.mkdir()
    (share / "c.md").write_text("# C\n\nBadgers dig setts.\n", "utf-8")
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        Ledger(pipeline.index_dir / "ledger.sqlite").open().clear(rebuilding=time.time())
        with (root / "docs" / "runbook.md").open("a", encoding="utf-8") as handle:
            handle.write("more detail\n" * 40)
        share.rename(root / "share.off")
        report = pipeline.index()
        assert not report.ok and report.kept == ()
        said = dict(report.errors)
        assert len(said) == 2 and "docs/runbook.md" in said
        assert any("share: directory not found" in message for message in said.values())
        for message in said.values():
            assert "before the `ragloom index --rebuild` started" in message
            assert "is not in the index until a run reads it" in message
            assert "nothing was indexed from it yet" not in message
        assert pipeline.status().documents == 1
        (root / "docs" / "runbook.md").write_text("# Runbook\n\nRestart the aardvark service.\n")
        (root / "share.off").rename(share)
        again = pipeline.index()
        assert again.ok and sorted(again.added) == ["docs/runbook.md", "share/c.md"]
        assert pipeline.status().documents == 3


def test_a_rebuild_of_some_sources_is_refused(tmp_path: Path, pm: pluggy.PluginManager) -> None:
    """A rebuild empties every store: limited to some files it would leave
    the rest out of the index, saying -0 deleted. Refused, nothing touched."""
    root = project(tmp_path, docs={"a.md": "# A\n\nAardvarks.\n", "b.md": "# B\n\nBadgers.\n"})
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        with pytest.raises(IndexStateError, match=r"takes no SOURCES"):
            pipeline.index(sources=[root / "docs" / "a.md"], rebuild=True)
        assert pipeline.status().documents == 2
