"""Memory store top-10 query over 100k x 384 vectors vs a plain numpy
matmul + argpartition on the same matrix, measured in the same run."""

from __future__ import annotations

import statistics
import time

import numpy as np
from ragloom.builtin.stores.memory import MemoryStore
from ragloom.types import Chunk

N, DIM, K, QUERIES = 100_000, 384, 10, 200


def bench_memory_store(n: int = N, dim: int = DIM) -> dict[str, float | str]:
    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((n, dim), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    queries = rng.standard_normal((QUERIES, dim), dtype=np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)

    store = MemoryStore()
    chunks = [
        Chunk(f"d{i}::0", f"d{i}", "", 0, 0, 0, f"d{i}#0", {"source": f"d{i}"}) for i in range(n)
    ]
    store.upsert(chunks, matrix)
    live = store._live()  # the same contiguous matrix the store searches

    def baseline(q: np.ndarray) -> np.ndarray:
        scores = live @ q
        top = np.argpartition(-scores, K - 1)[:K]
        return top[np.argsort(-scores[top])]

    def ours(q: np.ndarray) -> list:
        return store.query(vector=q, k=K)

    for q in queries[:10]:  # warm up, and check both agree
        assert [h.chunk.id for h in ours(q)] == [f"d{i}::0" for i in baseline(q)]
    base_t, our_t = [], []
    for q in queries:  # interleaved so drift hits both alike
        t = time.perf_counter()
        baseline(q)
        base_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        ours(q)
        our_t.append(time.perf_counter() - t)
    b, o = statistics.median(base_t), statistics.median(our_t)
    return {
        "name": f"memory store query, top-{K} of {n:,} x {dim}",
        "baseline": "numpy matmul + argpartition",
        "ragloom_s": o,
        "baseline_s": b,
        "min_speed": 1 / 1.2,
    }


if __name__ == "__main__":
    print(bench_memory_store())


def bench_memory_precision(n: int = 100_000, dim: int = DIM, queries: int = 200) -> dict:
    """``precision: int8`` against float32 in the same run, on 100k clustered
    vectors (as embeddings of related texts are): the query time ratio is the
    row; the name carries the memory saved and recall@10 against float32
    (float16 measured alike)."""
    import tempfile
    from pathlib import Path

    from ragloom.components import Context

    rng = np.random.default_rng(0)
    centres = rng.normal(size=(500, dim))
    data = (centres[rng.integers(0, 500, n)] + 0.7 * rng.normal(size=(n, dim))).astype(np.float32)
    asks = data[rng.choice(n, queries, replace=False)] + 0.1 * rng.normal(size=(queries, dim))
    chunks = [Chunk(f"c{i}", f"d{i}", "t", 0, 0, 1, f"d{i}#0", {}) for i in range(n)]
    found: dict[str, list[set[str]]] = {}
    seconds: dict[str, float] = {}
    held: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for precision in ("float32", "float16", "int8"):
            store = MemoryStore(precision=precision)
            store.open(Context(index_dir=Path(tmp) / precision, base_dir=Path(tmp), name="m"))
            store.upsert(chunks, data)
            held[precision] = store._live().nbytes + (
                store._scales[:n].nbytes if store._scales is not None else 0
            )
            store.query(vector=asks[0], k=10)
            times, sets = [], []
            for q in asks:
                started = time.perf_counter()
                hits = store.query(vector=q, k=10)
                times.append(time.perf_counter() - started)
                sets.append({h.chunk.id for h in hits})
            seconds[precision], found[precision] = statistics.median(times), sets

    def recall(precision: str) -> float:
        pairs = zip(found["float32"], found[precision])
        return float(np.mean([len(a & b) / 10 for a, b in pairs]))

    notes = ", ".join(
        f"{p}: {held['float32'] / held[p]:.1f}x less memory, recall@10 {recall(p):.3f}"
        for p in ("float16", "int8")
    )
    return {
        "name": f"memory store precision: int8 query, {n:,} x {dim} ({notes})",
        "baseline": "the same store at float32",
        "ragloom_s": seconds["int8"],
        "baseline_s": seconds["float32"],
        "min_speed": 0.2,  # int8 converts blocks to float32 per query: slower, 4x smaller
    }
