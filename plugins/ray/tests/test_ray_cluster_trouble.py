"""A cluster that cannot do the run, as operators meet it: actors it can
never place, an address nobody answers at, and SIGTERM from a supervisor.
Each ends with one clear error, the index lock let go and nothing
committed, where the run hung for ever or ended with Ray's stack dump."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import yaml
from ragloom.testing.corpora import RAGLOOM, make_corpus
from ray_helpers import config, ray_executor


def index(root: Path, executor: dict, timeout: float = 240) -> subprocess.CompletedProcess:
    (root / "ragloom.yaml").write_text(yaml.safe_dump(config(".ragloom", executor)))
    return subprocess.run(
        [RAGLOOM, "index"], cwd=root, capture_output=True, text=True, timeout=timeout
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_actors_the_cluster_cannot_place_fail_the_run(tmp_path: Path, ray_address) -> None:
    make_corpus(tmp_path, 6, seed=3)
    started = time.perf_counter()
    # the cluster has no GPU: it never places such an actor
    result = index(tmp_path, ray_executor(ray_address, num_gpus=1, start_timeout=12))
    assert result.returncode == 1, result.stderr
    said = result.stderr
    assert "none of the 1 ray actor(s) started in" in said, said
    assert "each asks for 0.5 CPU(s) and 1 GPU(s)" in said and "no GPU" in said
    assert "nothing of this run was committed" in said
    assert time.perf_counter() - started < 120
    # the lock was let go, and the next run indexes everything
    again = index(tmp_path, ray_executor(ray_address))
    assert again.returncode == 0, again.stderr
    assert "+6 added" in again.stdout


def test_an_address_nobody_answers_at_fails_at_once(tmp_path: Path) -> None:
    make_corpus(tmp_path, 2, seed=4)
    for address in (f"127.0.0.1:{free_port()}", "nosuchhost.invalid:6379"):
        started = time.perf_counter()
        result = index(tmp_path, ray_executor(address), timeout=60)
        assert result.returncode == 1, result.stderr
        assert f"no Ray cluster answers at {address}" in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1  # one line
        assert time.perf_counter() - started < 30


def test_sigterm_of_a_ray_run_is_the_documented_stop(tmp_path: Path, ray_address) -> None:
    make_corpus(tmp_path, 150, seed=5)
    (tmp_path / "ragloom.yaml").write_text(
        yaml.safe_dump(config(".ragloom", ray_executor(ray_address, batch_size=2)))
    )
    run = subprocess.Popen(
        [RAGLOOM, "index"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    journal = tmp_path / ".ragloom" / "journal.jsonl"
    deadline = time.monotonic() + 180
    while not journal.exists() and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # the first batch is back from the actors: Ray is up
    assert run.poll() is None, "the run ended before it could be stopped"
    os.kill(run.pid, signal.SIGTERM)
    _, err = run.communicate(timeout=120)
    said = err.decode()
    assert run.returncode == 143, said
    assert "error: terminated (SIGTERM)" in said and "SIGTERM received at" not in said
    # the index is whole: the next run finishes the work
    again = subprocess.run(
        [RAGLOOM, "index"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0, again.stderr
