"""`ragloom index` killed with SIGKILL at random points, on a corpus edited
between runs: the next complete run leaves every store and the ledger in
exact agreement with the corpus. No lost chunk, no duplicate, no orphan."""

from __future__ import annotations

import os
import random
import subprocess
import time
from pathlib import Path

import pytest
import ragloom
import yaml
from ragloom.testing.corpora import RAGLOOM, assert_agrees, kill_runs, run_index, write_doc

from .conftest import basic_config

LAYERED = {
    "chunker": {
        "type": "layers",
        "layers": {
            "passages": {"type": "recursive", "size": 300, "overlap": 30},
            "sentences": {"type": "sentence", "size": 120},
        },
    },
    "stores": [
        {"type": "memory", "name": "passages", "filter": {"layer": "passages"}},
        {"type": "memory", "name": "sentences", "filter": {"layer": "sentences"}},
        {"type": "bm25", "scope": "document", "filter": {"layer": "passages"}},
    ],
}


@pytest.mark.parametrize(
    "setup",
    [{"chunker": {"type": "recursive", "size": 300, "overlap": 30}}, LAYERED],
    ids=["recursive", "layers"],
)
def test_sigkill_at_random_points_then_rerun_agrees_exactly(tmp_path: Path, setup: dict) -> None:
    rng = random.Random(20261129)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(120):
        write_doc(docs / f"doc-{i:03d}.md", rng)
    config = basic_config(**setup)
    (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(config))
    env = {**os.environ}

    started = time.perf_counter()
    assert run_index(tmp_path, env).wait(timeout=300) == 0
    duration = time.perf_counter() - started

    # Edit, index, SIGKILL at a random moment; until 12 runs were killed
    # mid-way (a run that finished before its moment counts as a clean one).
    kills, serial = kill_runs(tmp_path, docs, rng, kills=12, most=48, duration=duration, env=env)
    assert kills >= 12, f"only {kills} of {serial} runs were killed mid-way: it proves too little"

    final = subprocess.run(
        [RAGLOOM, "index"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert final.returncode == 0, final.stderr

    with ragloom.load(tmp_path / "ragloom.yaml") as pipeline:
        documents = assert_agrees(pipeline)
        assert len(documents) == len(list(docs.glob("*.md")))
        again = pipeline.index()
    assert again.unchanged == len(documents) and again.chunks == 0
    assert not (pipeline.index_dir / "journal.jsonl").exists()
