"""Helpers of the ray plugin's tests: corpora and configs."""

from __future__ import annotations

import random
from pathlib import Path

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


def make_corpus(root: Path, count: int, seed: int = 7) -> Path:
    rng = random.Random(seed)
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        write_doc(docs / f"doc-{i:03d}.md", rng)
    return docs


def config(index_dir: str, executor: dict | None = None, **overrides: object) -> dict:
    data: dict = {
        "index_dir": index_dir,
        "loaders": [{"type": "directory", "path": "docs"}],
        "chunker": {"type": "recursive", "size": 300, "overlap": 30},
        "embedder": {"type": "hash", "dimension": 256},
        "stores": [{"type": "memory"}, {"type": "bm25"}],
        **overrides,
    }
    if executor is not None:
        data["executor"] = executor
    return data


def ray_executor(address: str, **options: object) -> dict:
    return {
        "type": "ray",
        "address": address,
        "embed_actors": 2,
        "num_cpus": 0.5,
        "batch_size": 8,
        **options,
    }


def snapshot(pipeline: object) -> tuple[dict, dict, dict]:
    """(ledger entries, memory store id -> vector, bm25 chunk ids -> text) of an open pipeline."""
    from ragloom.ledger import Ledger

    ledger = Ledger(pipeline.index_dir / "ledger.sqlite").open()  # type: ignore[attr-defined]
    try:
        entries = {
            e.id: (e.source, e.content_hash, e.chunk_ids, e.stamp, e.loader)
            for e in ledger.entries().values()
        }
    finally:
        ledger.close()
    stores = dict(pipeline.stores)  # type: ignore[attr-defined]
    memory = stores["memory"]
    vectors = {c.id: memory._matrix[i].copy() for i, c in enumerate(memory._chunks)}
    bm25 = stores["bm25"]
    chunks = bm25._chunks
    texts = {c.id: c.text for c in (chunks.values() if isinstance(chunks, dict) else chunks)}
    return entries, vectors, texts
