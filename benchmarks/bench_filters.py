"""Filtered memory-store queries vs unfiltered ones on the same 100k x 384 store.

The metadata is what an index holds: a category among 20, a year, tag
lists and principals lists (some chunks unlabeled). The filtered query is a
typical one, ``{"category": ..., "year": {"$gte": 2020}}``, with the access
filter of a caller ANDed in; the target is within 2x of the unfiltered
top-10 query. The metadata columns are built by the first filtered query
(the warm-up), as they would be by the first query after an index run.
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from ragloom.access import access_filter, restrict
from ragloom.builtin.stores.memory import MemoryStore
from ragloom.filters import evaluate, parse
from ragloom.types import Chunk

N, DIM, K, QUERIES = 100_000, 384, 10, 200
CATEGORIES = [f"category-{i}" for i in range(20)]
TAGS = [f"tag-{i}" for i in range(30)]
GROUPS = [f"group-{i}" for i in range(50)]


def _metadata(rng: np.random.Generator, n: int) -> list[dict]:
    category = rng.integers(0, len(CATEGORIES), n)
    year = rng.integers(2000, 2026, n)
    n_tags = rng.integers(0, 5, n)
    n_groups = rng.integers(0, 4, n)  # 0: unlabeled (no principals field)
    rows = []
    for i in range(n):
        row = {
            "source": f"docs/d{i // 8}.md",
            "category": CATEGORIES[category[i]],
            "year": int(year[i]),
            "tags": [TAGS[t] for t in rng.choice(len(TAGS), n_tags[i], replace=False)],
        }
        if n_groups[i]:
            row["principals"] = [GROUPS[g] for g in rng.choice(len(GROUPS), n_groups[i])]
        rows.append(row)
    return rows


def bench_filtered_query(n: int = N, dim: int = DIM) -> dict[str, float | str]:
    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((n, dim), dtype=np.float32)
    queries = rng.standard_normal((QUERIES, dim), dtype=np.float32)
    metadata = _metadata(rng, n)
    store = MemoryStore()
    store.upsert(
        [Chunk(f"d{i}::0", f"d{i}", "", 0, 0, 0, f"d{i}#0", m) for i, m in enumerate(metadata)],
        matrix,
    )

    def where(i: int):
        caller = parse({"category": CATEGORIES[i % len(CATEGORIES)], "year": {"$gte": 2020}})
        acl = access_filter([GROUPS[i % 50], GROUPS[(i + 7) % 50]], unlabeled="public")
        return restrict(caller, acl)

    def unfiltered(i: int) -> list:
        return store.query(vector=queries[i], k=K)

    def filtered(i: int) -> list:
        return store.query(vector=queries[i], k=K, where=where(i))

    live = store._live()  # check against a brute-force reference while warming up
    for i in range(5):
        allowed = np.array([evaluate(where(i), m) for m in metadata])
        scores = np.where(allowed, live @ (queries[i] / np.linalg.norm(queries[i])), -np.inf)
        best = np.argsort(-scores, kind="stable")[: min(K, int(allowed.sum()))]
        assert [h.chunk.id for h in filtered(i)] == [f"d{j}::0" for j in best]
        unfiltered(i)

    plain_t, filtered_t = [], []
    for i in range(QUERIES):  # interleaved so drift hits both alike
        t = time.perf_counter()
        unfiltered(i)
        plain_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        filtered(i)
        filtered_t.append(time.perf_counter() - t)
    return {
        "name": f"memory store filtered query (category, year, ACL), top-{K} of {n:,} x {dim}",
        "baseline": "unfiltered query",
        "ragloom_s": statistics.median(filtered_t),
        "baseline_s": statistics.median(plain_t),
        "min_speed": 0.5,
    }


if __name__ == "__main__":
    print(bench_filtered_query())
