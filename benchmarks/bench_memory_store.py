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
