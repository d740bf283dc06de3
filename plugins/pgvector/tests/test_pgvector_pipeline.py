"""End to end, through the ``ragloom`` command: the quickstart with one store,
``{type: pgvector}`` (dense and keyword inside an embedded PostgreSQL, fused),
indexes the demo documents and passes the quickstart's eval.yaml; the plugin
is listed and its options validated by ``ragloom config check``.

Each command is a process of its own, and one that loads the quickstart's
embedder (all-MiniLM-L6-v2 through sentence-transformers) spends most of
its time importing it: only the index and the eval use it. The rebuild and
the search that follow use the ``hash`` embedder, which also makes the
rebuild change the table's dimension in the same embedded server."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from pgvector_support import postgres_processes, server_folder

ROOT = Path(__file__).resolve().parents[3]
QUICKSTART = ROOT / "examples" / "quickstart"
RAGLOOM = [sys.executable, "-m", "ragloom.cli"]


def ragloom(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [*RAGLOOM, *args], cwd=project, env=env, capture_output=True, text=True, timeout=600
    )


def written(report: str) -> int:
    """The chunks an index run says it wrote."""
    found = re.search(r"(\d+) chunk\(s\) written", report)
    assert found, report
    return int(found.group(1))


@pytest.fixture
def project() -> Iterator[Path]:
    """The quickstart (documents and eval.yaml) with a config whose only store is
    pgvector, in a folder of its own (see ``conftest.server_folder``)."""
    folder = server_folder("quickstart")
    shutil.copytree(QUICKSTART / "docs", folder / "docs")
    shutil.copy(QUICKSTART / "eval.yaml", folder / "eval.yaml")
    config = yaml.safe_load((QUICKSTART / "ragloom.yaml").read_text("utf-8"))
    config["stores"] = [{"type": "pgvector"}]
    (folder / "ragloom.yaml").write_text(yaml.safe_dump(config), "utf-8")
    config["embedder"] = {"type": "hash"}  # no model to import
    (folder / "hash.yaml").write_text(yaml.safe_dump(config), "utf-8")
    try:
        yield folder
        assert not postgres_processes(folder), "the embedded server outlived the commands"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
def test_quickstart_with_only_pgvector_passes_its_eval(project: Path) -> None:
    indexed = ragloom(project, "index")
    assert indexed.returncode == 0, indexed.stdout + indexed.stderr
    assert (project / ".ragloom" / "pgvector" / "pgdata" / "PG_VERSION").exists()

    evaluated = ragloom(project, "eval", "eval.yaml")
    assert evaluated.returncode == 0, evaluated.stdout + evaluated.stderr

    # a fresh table in the same server, of another dimension (512, not 384)
    rebuilt = ragloom(project, "-c", "hash.yaml", "index", "--rebuild")
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert written(rebuilt.stdout) == written(indexed.stdout) > 0, rebuilt.stdout

    question = "How much does the Team plan cost?"
    searched = ragloom(project, "-c", "hash.yaml", "search", "--json", question)
    assert searched.returncode == 0, searched.stderr
    hits = json.loads(searched.stdout)
    hits = hits["hits"] if isinstance(hits, dict) else hits
    assert "pricing-faq.md" in json.dumps(hits[0])
    assert "pgvector.dense" in json.dumps(hits) and "pgvector.text" in json.dumps(hits)


def test_ragloom_plugins_lists_it(tmp_path: Path) -> None:
    listed = ragloom(tmp_path, "plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    plugins = json.loads(listed.stdout)
    text = json.dumps(plugins)
    assert "ragloom-pgvector" in text and "pgvector" in text


def test_config_check_reports_bad_options(tmp_path: Path) -> None:
    config = tmp_path / "ragloom.yaml"
    config.write_text(
        "loaders: []\nstores:\n  - {type: pgvector, tabel: chunks, index: diskann, m: 40}\n",
        "utf-8",
    )
    checked = ragloom(tmp_path, "config", "check")
    assert checked.returncode != 0
    output = checked.stdout + checked.stderr
    assert "stores[0].tabel" in output and "did you mean 'table'" in output
    assert "stores[0].index" in output
    config.write_text(
        "loaders: []\nembedder: {type: hash, dimension: 32}\n"
        "stores:\n  - {type: pgvector, dimension: 64}\n",
        "utf-8",
    )
    checked = ragloom(tmp_path, "config", "check")
    assert checked.returncode != 0
    assert "stores[0].dimension" in checked.stdout + checked.stderr  # not the embedder's 32
