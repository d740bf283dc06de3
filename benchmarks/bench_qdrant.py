"""The qdrant store at 10k and 100k chunks x 384: upsert throughput and top-10
latency, plain and filtered (category + year + access), on qdrant-edge (the
default embedded engine), on qdrant-client's local mode and, for comparison,
on the memory store; beside them, in the same run, the bare engine call: a
qdrant-edge ``EdgeShard.query`` on the same shard with the same filter
written by hand, and a shard written by hand with plain payloads.

``bench_qdrant_plain`` and ``bench_qdrant_filtered`` (for ``run.py``) compare
the plugin on qdrant-edge with the bare engine call at 100k chunks (target:
within 1.2x). Run as a script for the whole table:

    python benchmarks/bench_qdrant.py            # 10k and 100k, every engine
    python benchmarks/bench_qdrant.py --sizes 10000
    python benchmarks/bench_qdrant.py --sizes 100000 --local-up-to 10000  # no local mode
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from ragloom import Chunk, Context
from ragloom.access import access_filter, restrict
from ragloom.builtin.stores.memory import MemoryStore
from ragloom.filters import parse

DIM, K = 384, 10
HNSW_UP_TO = 20_000
"""Sizes up to this build the default HNSW graph at flush; larger ones search
every vector (``hnsw_m: 0``), so that ``make bench`` takes minutes, not the
half hour that building a 100k-chunk graph takes on two cores."""
CATEGORIES = ["pricing", "security", "memory", "onboarding", "legal"]
FILTER = {"category": "pricing", "year": {"$gte": 2020}}
PRINCIPALS = ["u1", "g2"]
FILTER_FIELDS = frozenset({"document_id", "principals", "category", "year"})


def data(n: int, seed: int = 0) -> tuple[list[Chunk], np.ndarray, np.ndarray]:
    """``n`` chunks with category, year and principals; their unit vectors; queries."""
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = rng.standard_normal((100, DIM), dtype=np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    chunks = []
    for i in range(n):
        metadata = {
            "source": f"docs/d{i // 4}.md",
            "document_id": f"docs/d{i // 4}.md",
            "category": CATEGORIES[i % 5],
            "year": 2015 + (i * 7) % 10,
            "principals": [f"u{i % 13}", f"g{i % 3}"],
        }
        text = f"chunk {i} of document {i // 4}"
        chunks.append(Chunk(f"d{i // 4}::{i % 4}", f"docs/d{i // 4}.md", text, i % 4, 0,
                            len(text), f"docs/d{i // 4}.md#{i % 4}", metadata))  # fmt: skip
    return chunks, vectors, queries


def where() -> Any:
    return restrict(parse(FILTER), access_filter(PRINCIPALS))


def median_ms(fn: Callable[[np.ndarray], Any], queries: np.ndarray, limit: int) -> float:
    for q in queries[:3]:
        fn(q)  # warm up
    times = []
    for q in queries[:limit]:
        t = time.perf_counter()
        fn(q)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def interleaved_ms(
    a: Callable[[np.ndarray], Any], b: Callable[[np.ndarray], Any], queries: np.ndarray
) -> tuple[float, float]:
    """Medians of ``a`` and ``b`` timed in turn on each query, the first of the
    two alternating (the second finds the first's pages in memory), so drift
    and caches hit both alike."""
    for q in queries[:5]:
        a(q)
        b(q)
    times: dict[int, list[float]] = {0: [], 1: []}
    for i, q in enumerate(queries):
        order = (0, 1) if i % 2 == 0 else (1, 0)
        for which in order:
            t = time.perf_counter()
            (a, b)[which](q)
            times[which].append(time.perf_counter() - t)
    return statistics.median(times[0]) * 1000, statistics.median(times[1]) * 1000


class Setup:
    """One size's data in the plugin on qdrant-edge, with the bare engine calls."""

    def __init__(self, n: int) -> None:
        from ragloom_qdrant import QdrantStore

        self.n = n
        self.hnsw = n <= HNSW_UP_TO
        self.chunks, self.vectors, self.queries = data(n)
        self.folder = Path(tempfile.mkdtemp(prefix=f"bench-qdrant-{n}-"))
        self.store = QdrantStore() if self.hnsw else QdrantStore(hnsw_m=0)
        context = Context(index_dir=self.folder, base_dir=self.folder, name="qdrant",
                          filter_fields=FILTER_FIELDS)  # fmt: skip
        self.store.open(context)
        t = time.perf_counter()
        self.store.upsert(self.chunks, self.vectors)
        self.upsert_s = time.perf_counter() - t
        t = time.perf_counter()
        self.store.flush()  # WAL -> segments, and the optimiser (HNSW past its threshold)
        self.flush_s = time.perf_counter() - t
        self.where = where()

    @property
    def shard(self) -> Any:
        return self.store._engine._shard  # type: ignore[union-attr]

    def plugin(self, filtered: bool) -> Callable[[np.ndarray], Any]:
        w = self.where if filtered else None
        return lambda q: self.store.query(vector=q, k=K, where=w)

    def bare(self, filtered: bool) -> Callable[[np.ndarray], Any]:
        """``EdgeShard.query`` as one writes it by hand for the same result: the
        same filter on the same payload indexes, the same payload back."""
        import qdrant_edge as qe

        flt = None
        if filtered:
            flt = qe.Filter(
                must=[
                    qe.FieldCondition("_filter.principals.s", match=qe.MatchAny(PRINCIPALS)),
                    qe.FieldCondition("_filter.category.s", match=qe.MatchValue("pricing")),
                    qe.FieldCondition("_filter.year.n", range=qe.RangeFloat(gte=2020)),
                ]
            )
        fields = ["chunk_id", "document_id", "text", "index", "start", "end", "label", "metadata"]
        payload = qe.PayloadSelector.Include(fields)
        shard = self.shard

        def run(q: np.ndarray) -> Any:
            request = qe.QueryRequest(
                limit=K,
                query=qe.Query.Nearest(q.tolist(), using="dense"),
                filter=flt,
                with_payload=payload,
                with_vector=False,
            )
            # what any caller reads from each point found: its score and payload
            return [(p.score, p.payload) for p in shard.query(request)]

        return run

    def check(self) -> None:
        """The plugin and the bare call find the same chunks."""
        for filtered in (False, True):
            for q in self.queries[:5]:
                ours = [h.chunk.id for h in self.plugin(filtered)(q)]
                theirs = [payload["chunk_id"] for _, payload in self.bare(filtered)(q)]
                assert ours == theirs, (filtered, ours, theirs)

    def close(self) -> None:
        self.store.close()
        shutil.rmtree(self.folder, ignore_errors=True)


_SETUPS: dict[int, Setup] = {}


def setup(n: int) -> Setup:
    """Built once per size and process (run.py calls two benchmarks on it)."""
    if n not in _SETUPS:
        _SETUPS[n] = Setup(n)
        _SETUPS[n].check()
    return _SETUPS[n]


def _versus_bare(filtered: bool, n: int) -> dict[str, float | str]:
    s = setup(n)
    ours, bare = interleaved_ms(s.plugin(filtered), s.bare(filtered), s.queries)
    what = "filtered (category + year + access)" if filtered else "plain"
    search = "HNSW" if s.hnsw else "exact"
    return {
        "name": f"qdrant store (edge, {search}) top-{K} of {n:,} x {DIM}, {what}",
        "baseline": "EdgeShard.query, same shard and filter",
        "ragloom_s": ours / 1000,
        "baseline_s": bare / 1000,
        "min_speed": 1 / 1.2,
    }


def bench_qdrant_plain(n: int = 100_000) -> dict[str, float | str]:
    return _versus_bare(False, n)


def bench_qdrant_filtered(n: int = 100_000) -> dict[str, float | str]:
    return _versus_bare(True, n)


def bare_shard(
    n: int, chunks: list[Chunk], vectors: np.ndarray, folder: Path, hnsw: bool
) -> dict[str, Any]:
    """A shard written by hand with plain payloads (the metadata at the top level,
    indexed): the engine without the plugin, for upserts and filtered queries."""
    import qdrant_edge as qe
    from ragloom_qdrant import point_id

    vectors_config = {"dense": qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine)}
    graph = None if hnsw else qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=10_000)
    config = qe.EdgeConfig(vectors=vectors_config, hnsw_config=graph)
    shard = qe.EdgeShard.create(str(folder / "bare"), config)
    for key, kind in (("category", "Keyword"), ("year", "Float"), ("principals", "Keyword")):
        schema = getattr(qe.PayloadSchemaType, kind)
        shard.update(qe.UpdateOperation.create_field_index(key, schema))
    t = time.perf_counter()
    for start in range(0, n, 256):
        points = [
            qe.Point(
                point_id(c.id),
                {"dense": vectors[i].tolist()},
                {"chunk_id": c.id, "text": c.text, **c.metadata},
            )  # fmt: skip
            for i, c in enumerate(chunks[start : start + 256], start)
        ]
        shard.update(qe.UpdateOperation.upsert_points(points))
    upsert_s = time.perf_counter() - t
    t = time.perf_counter()
    shard.flush()
    shard.optimize()
    flush_s = time.perf_counter() - t
    flt = qe.Filter(
        must=[
            qe.FieldCondition("principals", match=qe.MatchAny(PRINCIPALS)),
            qe.FieldCondition("category", match=qe.MatchValue("pricing")),
            qe.FieldCondition("year", range=qe.RangeFloat(gte=2020)),
        ]
    )

    def run(q: np.ndarray, f: Any) -> Any:
        request = qe.QueryRequest(limit=K, query=qe.Query.Nearest(q.tolist(), using="dense"),
                                  filter=f, with_payload=True)  # fmt: skip
        return [(p.score, p.payload) for p in shard.query(request)]

    return {"shard": shard, "upsert_s": upsert_s, "flush_s": flush_s,
            "plain": lambda q: run(q, None), "filtered": lambda q: run(q, flt)}  # fmt: skip


def _row(n: int, store: str, upsert_s: float | None, flush_s: float | None,
         plain_ms: float, filtered_ms: float) -> dict[str, Any]:  # fmt: skip
    return {"n": n, "store": store, "upsert/s": n / upsert_s if upsert_s else None,
            "flush s": flush_s, "plain ms": plain_ms, "filtered ms": filtered_ms}  # fmt: skip


def _memory_row(s: Setup) -> dict[str, Any]:
    memory = MemoryStore()
    t = time.perf_counter()
    memory.upsert(s.chunks, s.vectors)
    upsert_s = time.perf_counter() - t
    plain = median_ms(lambda q: memory.query(vector=q, k=K), s.queries, 100)
    filtered = median_ms(lambda q: memory.query(vector=q, k=K, where=s.where), s.queries, 100)
    return _row(s.n, "memory", upsert_s, None, plain, filtered)


def _local_row(s: Setup, queries: int) -> dict[str, Any]:
    from ragloom_qdrant import QdrantStore

    folder = Path(tempfile.mkdtemp(prefix=f"bench-qdrant-local-{s.n}-"))
    local = QdrantStore(engine="local")
    local.open(Context(index_dir=folder, base_dir=folder, name="qdrant"))
    try:
        t = time.perf_counter()
        local.upsert(s.chunks, s.vectors)
        upsert_s = time.perf_counter() - t
        plain = median_ms(lambda q: local.query(vector=q, k=K), s.queries, queries)
        where = s.where
        filtered = median_ms(lambda q: local.query(vector=q, k=K, where=where), s.queries, queries)
    finally:
        local.close()
        shutil.rmtree(folder, ignore_errors=True)
    return _row(s.n, "qdrant (local mode)", upsert_s, None, plain, filtered)


def table(
    sizes: list[int], local_queries: int = 20, local_up_to: int | None = None
) -> list[dict[str, Any]]:
    rows = []
    for n in sizes:
        s = setup(n)
        plain, bare_plain = interleaved_ms(s.plugin(False), s.bare(False), s.queries)
        filtered, bare_filtered = interleaved_ms(s.plugin(True), s.bare(True), s.queries)
        label = "qdrant (edge, HNSW)" if s.hnsw else "qdrant (edge, hnsw_m: 0)"
        rows.append(_row(n, label, s.upsert_s, s.flush_s, plain, filtered))
        rows.append(_row(n, "EdgeShard.query, same shard", None, None, bare_plain, bare_filtered))
        hand = bare_shard(n, s.chunks, s.vectors, s.folder, s.hnsw)
        hand_plain = median_ms(hand["plain"], s.queries, 100)
        hand_filtered = median_ms(hand["filtered"], s.queries, 100)
        hand["shard"].close()
        rows.append(_row(n, "EdgeShard by hand, plain payload", hand["upsert_s"],
                         hand["flush_s"], hand_plain, hand_filtered))  # fmt: skip
        rows.append(_memory_row(s))
        if local_up_to is None or n <= local_up_to:
            rows.append(_local_row(s, local_queries))
        s.close()
        del _SETUPS[n]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--local-queries", type=int, default=20)
    parser.add_argument(
        "--local-up-to",
        type=int,
        default=None,
        help="measure local mode only at sizes up to this (it is slow)",
    )
    args = parser.parse_args()
    print(f"{'chunks':>8}  {'store':34} {'upserts/s':>10} {'flush s':>8} "
          f"{'plain ms':>9} {'filtered ms':>12}")  # fmt: skip
    for row in table(args.sizes, args.local_queries, args.local_up_to):
        upsert = f"{row['upsert/s']:,.0f}" if row["upsert/s"] else "-"
        flush = f"{row['flush s']:.2f}" if row["flush s"] is not None else "-"
        print(f"{row['n']:>8,}  {row['store']:34} {upsert:>10} {flush:>8} "
              f"{row['plain ms']:>9.3f} {row['filtered ms']:>12.3f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
