"""Scoped index runs (``Pipeline.index(sources=...)``, ``ragloom index SOURCES``):
a document deleted inside the scope leaves the index, one deleted outside it
stays until a run that covers it; from the Python API and the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pluggy
import pytest
import ragloom
import yaml
from ragloom.filters import parse

from .conftest import basic_config

RAGLOOM = str(Path(sys.executable).parent / "ragloom")

FILES = {
    "docs/alpha.md": "The aardvark eats ants at night.\n",
    "docs/bravo.md": "The badger digs burrows in the woods.\n",
    "docs/sub/charlie.md": "The chameleon changes colour in the sun.\n",
    "docs/sub/delta.md": "The dolphin dives deep in the ocean.\n",
    "docs/sub/echo.md": "The echidna eats termites with its tongue.\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    return root


def indexed(pipeline: ragloom.Pipeline) -> set[str]:
    """The documents every store holds chunks of (checked store by store)."""
    found = [
        {doc for doc in FILES if store.count(parse({"document_id": doc}))}
        for _, store in pipeline.stores
    ]
    assert all(f == found[0] for f in found), found
    return found[0]


def delete_one_inside_and_one_outside(root: Path) -> None:
    (root / "docs" / "sub" / "charlie.md").unlink()  # inside docs/sub
    (root / "docs" / "alpha.md").unlink()  # outside it
    (root / "docs" / "sub" / "delta.md").write_text("The dolphin sleeps with one eye open.\n")


@pytest.mark.parametrize("scope", ["docs/sub", "docs/sub/"])
def test_a_scoped_run_deletes_inside_its_scope_only(
    project: Path, pm: pluggy.PluginManager, scope: str
) -> None:
    with ragloom.load(project / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        delete_one_inside_and_one_outside(project)
        preview = pipeline.index([scope], dry_run=True)
        assert preview.deleted == ("docs/sub/charlie.md",) and preview.unchanged == 1
        report = pipeline.index([scope])
        assert report.deleted == ("docs/sub/charlie.md",)
        assert report.changed == ("docs/sub/delta.md",) and report.unchanged == 1
        assert report.added == ()
        assert indexed(pipeline) == set(FILES) - {"docs/sub/charlie.md"}
        hits = pipeline.retrieve("chameleon colour", k=5)
        assert hits and "docs/sub/charlie.md" not in {h.chunk.document_id for h in hits}
        # the unscoped run catches up with what lay outside
        assert pipeline.index().deleted == ("docs/alpha.md",)
        assert indexed(pipeline) == set(FILES) - {"docs/sub/charlie.md", "docs/alpha.md"}


def test_a_deleted_file_named_as_the_scope_is_deleted(
    project: Path, pm: pluggy.PluginManager
) -> None:
    with ragloom.load(project / "ragloom.yaml", plugin_manager=pm) as pipeline:
        pipeline.index()
        delete_one_inside_and_one_outside(project)
        report = pipeline.index(["docs/sub/delta.md", "docs/sub/charlie.md"])
        assert report.deleted == ("docs/sub/charlie.md",)
        assert report.changed == ("docs/sub/delta.md",) and report.unchanged == 0
        assert indexed(pipeline) == set(FILES) - {"docs/sub/charlie.md"}


def test_ragloom_index_sources_from_another_directory(project: Path) -> None:
    """SOURCES are paths as the shell gives them (relative to the working
    directory), whatever directory the config lies in."""

    def index(*args: str) -> dict:
        result = subprocess.run(
            [RAGLOOM, "-c", "project/ragloom.yaml", "index", "--json", *args],
            cwd=project.parent,
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    assert len(index()["added"]) == len(FILES)
    delete_one_inside_and_one_outside(project)
    report = index("project/docs/sub")
    assert report["deleted"] == ["docs/sub/charlie.md"]
    assert report["changed"] == ["docs/sub/delta.md"] and report["unchanged"] == 1
    assert index()["deleted"] == ["docs/alpha.md"]


def test_a_link_added_to_an_indexed_folder_changes_no_ids(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """``docs/again -> sub``, sorting first, took the folder: every document
    of docs/sub was to be deleted and re-added under docs/again (refused as a
    mass deletion, or silently renamed under half the index)."""
    root = tmp_path / "project"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    loader = {"type": "directory", "path": "docs", "follow_symlinks": True}
    (root / "ragloom.yaml").write_text(yaml.safe_dump(basic_config(loaders=[loader])))
    with ragloom.load(root / "ragloom.yaml", plugin_manager=pm) as pipeline:
        assert len(pipeline.index().added) == len(FILES)
        os.symlink("sub", root / "docs" / "again", target_is_directory=True)
        report = pipeline.index()
        assert report.unchanged == len(FILES)
        assert report.added == report.deleted == report.changed == ()
        assert indexed(pipeline) == set(FILES)
        scoped = pipeline.index(["docs/again"])  # the folder, by its own path
        assert scoped.unchanged == 3 and scoped.added == scoped.deleted == ()
