"""Corpora for crash and identity tests: random documents from a small
vocabulary, edits between runs, ``ragloom index`` as a killable subprocess,
and the check that an index agrees exactly with its corpus.

    from ragloom.testing.corpora import make_corpus, edit_corpus, run_index, assert_agrees

Used by core's crash test (``tests/test_crash_safety.py``) and by executor
plugins that extend it (``ragloom-ray``): the same corpus, the same kill
points, the same final check, whatever runs the work.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..pipeline import Pipeline
    from ..types import Document

__all__ = [
    "RAGLOOM",
    "WORDS",
    "assert_agrees",
    "edit_corpus",
    "kill_runs",
    "make_corpus",
    "run_index",
    "write_doc",
]

RAGLOOM = str(Path(sys.executable).parent / "ragloom")
"""The ``ragloom`` command of this interpreter's environment."""

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
    """A Markdown document of 1-5 paragraphs of random ``WORDS`` under a heading."""
    paragraphs = [
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60))) + "."
        for _ in range(rng.randint(1, 5))
    ]
    path.write_text(f"# {rng.choice(WORDS).title()}\n\n" + "\n\n".join(paragraphs) + "\n")


def make_corpus(root: Path, count: int, seed: int = 7) -> Path:
    """``root/docs`` with ``count`` documents ``doc-000.md``...; returns the folder."""
    rng = random.Random(seed)
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        write_doc(docs / f"doc-{i:03d}.md", rng)
    return docs


def edit_corpus(docs: Path, rng: random.Random, serial: int, *, rename: bool = True) -> None:
    """Edit 1-8 documents, delete 0-3, add 0-4 and (``rename``) move one."""
    files = sorted(docs.glob("*.md"))
    for path in rng.sample(files, min(len(files), rng.randint(1, 8))):
        write_doc(path, rng)  # edit
    for path in rng.sample(files, min(len(files), rng.randint(0, 3))):
        path.unlink(missing_ok=True)  # delete
    for i in range(rng.randint(0, 4)):
        write_doc(docs / f"new-{serial}-{i}.md", rng)  # add
    remaining = sorted(docs.glob("*.md"))
    if rename and remaining:  # a delete plus an add
        moved = rng.choice(remaining)
        moved.rename(docs / f"moved-{serial}-{moved.name}")


def run_index(root: Path, env: Mapping[str, str] | None = None) -> subprocess.Popen[bytes]:
    """``ragloom index`` in ``root`` (its ``ragloom.yaml``), output discarded."""
    return subprocess.Popen(
        [RAGLOOM, "index"],
        cwd=root,
        env=dict(env) if env is not None else None,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def kill_runs(
    root: Path,
    docs: Path,
    rng: random.Random,
    *,
    kills: int,
    most: int,
    duration: float,
    earliest: float = 0.0,
    before: Callable[[int], None] | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[int, int]:
    """Edit the corpus, start ``ragloom index`` in ``root`` and SIGKILL it at a
    random moment (``earliest`` to 1.1 times ``duration`` seconds, a share of
    ``duration``, the time of a clean run), until ``kills`` runs were killed
    mid-way or ``most`` runs were started (a run that finished before its
    moment counts as a clean one, and its own time becomes ``duration``: the
    runs after a small edit are quicker than the timed one, and a loaded
    machine makes any one time a poor guide). ``before(serial)`` runs before
    each start (to change the config). Returns (runs killed, runs started)."""
    killed = serial = 0
    while killed < kills and serial < most:
        edit_corpus(docs, rng, serial)
        if before is not None:
            before(serial)
        process = run_index(root, env)
        started = time.perf_counter()
        deadline = started + rng.uniform(earliest * duration, duration * 1.1)
        while process.poll() is None and time.perf_counter() < deadline:
            time.sleep(0.01)
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            killed += 1
        else:
            duration = time.perf_counter() - started
        process.wait(timeout=300)
        serial += 1
    return killed, serial


def assert_agrees(pipeline: Pipeline) -> list[Document]:
    """Every store and the ledger of the open ``pipeline`` hold exactly the
    chunks of the documents its loaders see now: none missing, no orphan, no
    duplicate. Returns those documents."""
    from ..cache import fingerprint_key
    from ..fingerprints import stamped
    from ..ledger import Ledger

    documents = [d for loader in pipeline.loaders for d in loader.load()]
    key = fingerprint_key(pipeline.chunker.fingerprint())
    expected = {c.id for d in documents for c in stamped(d, pipeline.chunker.split(d), key)}
    for name, store in pipeline.stores:
        ids = list(store.ids())
        assert len(ids) == len(set(ids)), f"{name} holds duplicates"
        assert set(ids) == expected, (
            f"{name}: missing {len(expected - set(ids))}, orphans {len(set(ids) - expected)}"
        )
        assert store.count() == len(expected), name
    ledger = Ledger(pipeline.index_dir / "ledger.sqlite").open()
    try:
        entries = ledger.entries()
    finally:
        ledger.close()
    assert set(entries) == {d.id for d in documents}
    assert {cid for e in entries.values() for cid in e.chunk_ids} == expected
    return documents
