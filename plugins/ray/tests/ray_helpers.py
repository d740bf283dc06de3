"""Helpers of the ray plugin's tests: configs and snapshots (the corpora come
from ``ragloom.testing.corpora``, shared with core's crash test)."""

from __future__ import annotations

from ragloom.testing.corpora import make_corpus, write_doc

__all__ = ["config", "entries", "make_corpus", "ray_executor", "snapshot", "write_doc"]


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


def entries(pipeline: object) -> dict:
    """The ledger entries of an open pipeline's index, as comparable tuples."""
    from ragloom.ledger import Ledger

    ledger = Ledger(pipeline.index_dir / "ledger.sqlite").open()  # type: ignore[attr-defined]
    try:
        return {
            e.id: (e.source, e.content_hash, e.chunk_ids, e.stamp, e.loader)
            for e in ledger.entries().values()
        }
    finally:
        ledger.close()


def snapshot(pipeline: object) -> tuple[dict, dict, dict]:
    """(ledger entries, memory store id -> vector, bm25 chunk ids -> text) of an open pipeline."""
    stores = dict(pipeline.stores)  # type: ignore[attr-defined]
    memory = stores["memory"]
    vectors = {c.id: memory._matrix[i].copy() for i, c in enumerate(memory._chunks)}
    bm25 = stores["bm25"]
    chunks = bm25._chunks
    texts = {c.id: c.text for c in (chunks.values() if isinstance(chunks, dict) else chunks)}
    return entries(pipeline), vectors, texts
