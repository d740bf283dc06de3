"""`ragloom index` with the ray executor, killed with SIGKILL at random points
(the driver: the process holding the ledger), on a corpus edited between
runs, with in-process runs killed in between: the next complete run, on Ray,
leaves every store and the ledger in exact agreement with the corpus, and an
in-process run after it finds nothing to do. The core's crash test
(tests/test_crash_safety.py) does the same with the in-process executor."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import ragloom
import yaml
from ragloom.cache import fingerprint_key
from ragloom.fingerprints import stamped
from ray_helpers import config, make_corpus, ray_executor, snapshot, write_doc

RAGLOOM = str(Path(sys.executable).parent / "ragloom")


def edit_corpus(docs: Path, rng: random.Random, serial: int) -> None:
    files = sorted(docs.glob("*.md"))
    for path in rng.sample(files, min(len(files), rng.randint(1, 8))):
        write_doc(path, rng)
    for path in rng.sample(files, min(len(files), rng.randint(0, 3))):
        path.unlink(missing_ok=True)
    for i in range(rng.randint(0, 4)):
        write_doc(docs / f"new-{serial}-{i}.md", rng)


def write_config(root: Path, executor: dict | None) -> None:
    (root / "ragloom.yaml").write_text(yaml.safe_dump(config(".ragloom", executor)))


def run_index(root: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [RAGLOOM, "index"],
        cwd=root,
        env={**os.environ},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_sigkill_of_the_driver_then_rerun_agrees_exactly(tmp_path: Path, ray_address) -> None:
    rng = random.Random(20261201)
    docs = make_corpus(tmp_path, 80, seed=11)
    on_ray = ray_executor(ray_address, batch_size=6)
    write_config(tmp_path, on_ray)
    started = time.perf_counter()
    assert run_index(tmp_path).wait(timeout=300) == 0
    duration = time.perf_counter() - started

    kills = 0
    for serial in range(10):
        edit_corpus(docs, rng, serial)
        write_config(tmp_path, on_ray if serial % 3 else None)  # a third of them in process
        process = run_index(tmp_path)
        time.sleep(rng.uniform(0.3 * duration, duration * 1.1))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            kills += 1
        process.wait(timeout=300)
    assert kills >= 5, f"only {kills} runs were killed mid-way; the test proves too little"

    write_config(tmp_path, on_ray)
    final = subprocess.run(
        [RAGLOOM, "index"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert final.returncode == 0, final.stderr

    write_config(tmp_path, None)  # the same index, opened in process
    with ragloom.load(tmp_path / "ragloom.yaml") as pipeline:
        documents = list(pipeline.loaders[0].load())
        key = fingerprint_key(pipeline.chunker.fingerprint())
        expected = {c.id for d in documents for c in stamped(d, pipeline.chunker.split(d), key)}
        entries, vectors, texts = snapshot(pipeline)
        assert set(entries) == {d.id for d in documents}
        assert {cid for e in entries.values() for cid in e[2]} == expected
        assert set(vectors) == expected and set(texts) == expected
        for name, store in pipeline.stores:
            ids = list(store.ids())
            assert len(ids) == len(set(ids)) == store.count() == len(expected), name
        again = pipeline.index()
    assert again.unchanged == len(documents) and again.chunks == 0
    assert not (pipeline.index_dir / "journal.jsonl").exists()
