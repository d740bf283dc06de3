"""`ragloom index` killed with SIGKILL at random points, on a corpus edited
between runs: the next complete run leaves every store and the ledger in
exact agreement with the corpus. No lost chunk, no duplicate, no orphan."""

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
from ragloom.ledger import Ledger

from .conftest import basic_config

RAGLOOM = str(Path(sys.executable).parent / "ragloom")
WORDS = [
    "invoice",
    "refund",
    "plan",
    "memory",
    "export",
    "region",
    "audit",
    "token",
    "cluster",
    "backup",
    "latency",
    "replica",
    "schema",
    "index",
    "vector",
    "search",
    "answer",
    "cache",
    "ledger",
    "shard",
    "quota",
    "webhook",
    "tenant",
    "billing",
]


def write_doc(path: Path, rng: random.Random) -> None:
    paragraphs = [
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60))) + "."
        for _ in range(rng.randint(1, 5))
    ]
    path.write_text(f"# {rng.choice(WORDS).title()}\n\n" + "\n\n".join(paragraphs) + "\n")


def edit_corpus(docs: Path, rng: random.Random, serial: int) -> None:
    files = sorted(docs.glob("*.md"))
    for path in rng.sample(files, min(len(files), rng.randint(1, 8))):
        write_doc(path, rng)  # edit
    for path in rng.sample(files, min(len(files), rng.randint(0, 3))):
        path.unlink(missing_ok=True)  # delete
    for i in range(rng.randint(0, 4)):
        write_doc(docs / f"new-{serial}-{i}.md", rng)  # add
    remaining = sorted(docs.glob("*.md"))
    if remaining:  # rename: a delete plus an add
        moved = rng.choice(remaining)
        moved.rename(docs / f"moved-{serial}-{moved.name}")


def run_index(root: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [RAGLOOM, "index"],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def store_ids(store: object) -> list[str]:
    chunks = store._chunks  # both built-in stores keep their chunks here
    return [c.id for c in (chunks.values() if isinstance(chunks, dict) else chunks)]


def test_sigkill_at_random_points_then_rerun_agrees_exactly(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(120):
        write_doc(docs / f"doc-{i:03d}.md", rng)
    config = basic_config(chunker={"type": "recursive", "size": 300, "overlap": 30})
    (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(config))
    env = {**os.environ}

    started = time.perf_counter()
    assert run_index(tmp_path, env).wait(timeout=300) == 0
    duration = time.perf_counter() - started

    kills = 0
    for serial in range(24):
        edit_corpus(docs, rng, serial)
        process = run_index(tmp_path, env)
        time.sleep(rng.uniform(0.0, duration * 1.1))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            kills += 1
        process.wait(timeout=300)
    assert kills >= 12, f"only {kills} runs were killed mid-way; the test proves too little"

    final = subprocess.run(
        [RAGLOOM, "index"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert final.returncode == 0, final.stderr

    with ragloom.load(tmp_path / "ragloom.yaml") as pipeline:
        documents = list(pipeline.loaders[0].load())
        key = fingerprint_key(pipeline.chunker.fingerprint())
        expected = {c.id for d in documents for c in stamped(d, pipeline.chunker.split(d), key)}
        assert len(documents) == len(list(docs.glob("*.md")))
        for name, store in pipeline.stores:
            ids = store_ids(store)
            assert len(ids) == len(set(ids)), f"{name} holds duplicates"
            assert set(ids) == expected, (
                f"{name}: missing {len(expected - set(ids))}, orphans {len(set(ids) - expected)}"
            )
            assert store.count() == len(expected)
        ledger = Ledger(pipeline.index_dir / "ledger.sqlite").open()
        entries = ledger.entries()
        ledger.close()
        assert set(entries) == {d.id for d in documents}
        assert {cid for e in entries.values() for cid in e.chunk_ids} == expected
        again = pipeline.index()
    assert again.unchanged == len(documents) and again.chunks == 0
    assert not (pipeline.index_dir / "journal.jsonl").exists()
