"""`ragloom index` with the ray executor, killed with SIGKILL at random points
(the driver: the process holding the ledger), on a corpus edited between
runs, with in-process runs killed in between: the next complete run, on Ray,
leaves every store and the ledger in exact agreement with the corpus, and an
in-process run after it finds nothing to do. The core's crash test
(tests/test_crash_safety.py) does the same with the in-process executor."""

from __future__ import annotations

import os
import random
import subprocess
import time
from pathlib import Path

import ragloom
import yaml
from ragloom.testing.corpora import RAGLOOM, assert_agrees, kill_runs, make_corpus, run_index
from ray_helpers import config, ray_executor


def write_config(root: Path, executor: dict | None) -> None:
    (root / "ragloom.yaml").write_text(yaml.safe_dump(config(".ragloom", executor)))


def test_sigkill_of_the_driver_then_rerun_agrees_exactly(tmp_path: Path, ray_address) -> None:
    rng = random.Random(20261201)
    docs = make_corpus(tmp_path, 80, seed=11)
    on_ray = ray_executor(ray_address, batch_size=6)
    write_config(tmp_path, on_ray)
    started = time.perf_counter()
    assert run_index(tmp_path, os.environ).wait(timeout=300) == 0
    duration = time.perf_counter() - started

    # until 5 runs were killed mid-way (one that finished first counts as clean)
    def before(serial: int) -> None:  # a third of the runs in process
        write_config(tmp_path, on_ray if serial % 3 else None)

    kills, serial = kill_runs(
        tmp_path, docs, rng, kills=5, most=20, duration=duration, earliest=0.3, before=before
    )
    assert kills >= 5, f"only {kills} of {serial} runs were killed mid-way: it proves too little"

    write_config(tmp_path, on_ray)
    final = subprocess.run(
        [RAGLOOM, "index"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert final.returncode == 0, final.stderr

    write_config(tmp_path, None)  # the same index, opened in process
    with ragloom.load(tmp_path / "ragloom.yaml") as pipeline:
        documents = assert_agrees(pipeline)
        again = pipeline.index()
    assert again.unchanged == len(documents) and again.chunks == 0
    assert not (pipeline.index_dir / "journal.jsonl").exists()
