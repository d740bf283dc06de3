"""The pgvector store (embedded PostgreSQL 18, pgvector 0.8, HNSW defaults) at
10k and 100k chunks of 384 dimensions, in one run:

- top-10 query latency, plain and filtered (``{"category": ...}``: a tenth of
  the chunks), against the bare SQL query the store sends, run through a
  psycopg connection of its own with the same parameters and returning the
  same columns (the target: the store within 1.2x of it), and beside the
  memory store and, when ragloom-qdrant is installed, the qdrant store on the
  same data;
- upsert throughput in batches of 1,000 (as an index run writes them): the
  store against the bare COPY + INSERT ... ON CONFLICT of the same rows
  (the target: within 1.2x), and the HNSW index built at ``flush()``;
- recall@10 of the HNSW defaults against exact search.

The vectors have the structure of text embeddings: a point of a
32-dimensional latent space mapped into 384 dimensions, plus noise, then
normalised. Uniform random unit vectors in 384 dimensions have no near
neighbours to find (the nearest is barely nearer than any other): every
graph index scores badly on them, whatever its implementation. With the same
HNSW parameters (m 16, ef_construction 64, ef_search 40) pgvector found
0.33 and 0.05 of the true top 10 at 10k and 100k random vectors, and
usearch 0.17 at 20k; on these vectors, pgvector 0.92 and usearch 0.86 at 20k.

The store and the bare query are timed against each other, interleaved
query by query, each running first every other query; the memory and qdrant
stores are timed in a pass of their own, so that neither (the memory store's
numpy kernels, qdrant's threads) runs just before one side more often than
before the other.

``make bench`` runs the ``bench_pgvector_*`` functions, which share one
set-up; ``python benchmarks/bench_pgvector.py [--sizes 10000 100000]`` prints
every figure (each size's as JSON as soon as it is measured, then tables).
"""

from __future__ import annotations

import functools
import json
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from ragloom import Chunk, Context
from ragloom.builtin.stores.memory import MemoryStore
from ragloom.filters import parse

SIZES = (10_000, 100_000)
DIM, K, QUERIES, BATCH = 384, 10, 100, 1000
CATEGORIES = [f"category-{i}" for i in range(10)]
LATENT, NOISE = 32, 0.3


def vectors(rng: np.random.Generator, mix: np.ndarray, n: int) -> np.ndarray:
    """``n`` unit vectors shaped like embeddings: a ``LATENT``-dimensional point
    through ``mix`` (``LATENT x DIM``), plus isotropic noise, normalised."""
    latent = rng.standard_normal((n, LATENT), dtype=np.float32) @ mix
    noise = rng.standard_normal((n, DIM), dtype=np.float32) * (NOISE * LATENT**0.5)
    out = latent + noise
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def _data(n: int) -> tuple[list[Chunk], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    mix = rng.standard_normal((LATENT, DIM), dtype=np.float32)
    matrix = vectors(rng, mix, n)
    queries = vectors(rng, mix, QUERIES)
    chunks = [
        Chunk(
            f"d{i}::0",
            f"d{i}",
            f"chunk {i} of the benchmark corpus",
            0,
            0,
            32,
            f"d{i}#0",
            {"source": f"docs/d{i}.md", "category": CATEGORIES[i % 10], "year": 2000 + i % 25},
        )
        for i in range(n)
    ]
    return chunks, matrix, queries


def _median_ms(times: list[float]) -> float:
    return statistics.median(times)


def _timed(fn: Any) -> tuple[Any, float]:
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def _upsert_all(store: Any, chunks: list[Chunk], matrix: np.ndarray) -> float:
    t = time.perf_counter()
    for i in range(0, len(chunks), BATCH):
        store.upsert(chunks[i : i + BATCH], matrix[i : i + BATCH])
    return time.perf_counter() - t


def _loads(
    uri: str, store: Any, template: Any, chunks: list[Chunk], matrix: np.ndarray
) -> tuple[float, float]:
    """Seconds to load every chunk through ``store.upsert`` and through the
    store's own COPY + INSERT ... ON CONFLICT written by hand (into the table of
    ``template``, opened like ``store``), in batches of ``BATCH``, alternating
    batch by batch (and which goes first) so that drift hits both alike.

    The hand-written load serialises the metadata with json.dumps (timed, as
    the store's encoding is) and uses pgvector's own psycopg adapters: what the
    store adds is its checks and date columns; what it saves, its adapters."""
    import psycopg
    from pgvector.psycopg import register_vector

    statements = template._statements
    timed = {"store": 0.0, "bare": 0.0}
    with psycopg.connect(uri, autocommit=True) as conn:
        register_vector(conn)
        conn.execute(template._session_sql)

        def bare(batch: list[Chunk], vectors: np.ndarray) -> None:
            rows = [
                (c.id, c.document_id, c.index, c.start, c.end, c.label, c.text,
                 json.dumps(c.metadata), json.dumps(c.metadata), None)
                for c in batch
            ]  # fmt: skip
            with conn.transaction():
                conn.execute(statements.stage())
                with conn.cursor().copy(statements.copy()) as copy:
                    copy.set_types(statements.copy_types())
                    for row, vector in zip(rows, vectors):
                        copy.write_row((*row, vector))
                conn.execute(statements.merge())

        loads = [("store", store.upsert), ("bare", bare)]
        for b, i in enumerate(range(0, len(chunks), BATCH)):
            for name, load in loads[b % 2 :] + loads[: b % 2]:
                t = time.perf_counter()
                load(chunks[i : i + BATCH], matrix[i : i + BATCH])
                timed[name] += time.perf_counter() - t
    return timed["store"], timed["bare"]


def _qdrant_class() -> Any:
    try:
        from ragloom.plugins import build_plugin_manager
        from ragloom.registry import Registry

        registry = Registry.from_plugin_manager(build_plugin_manager())
        return registry.get("store", "qdrant").cls
    except Exception:
        return None


def _latencies(calls: dict[str, Any], queries: np.ndarray) -> dict[str, float]:
    """Median seconds per query of each call, interleaved query by query so
    drift hits all alike. The first to run a query rotates: it finds the pages
    that query visits colder (at 100k chunks the HNSW graph outgrows
    shared_buffers) than the next one. Give it calls that should be compared
    with each other only: each runs right after each other call equally often."""
    for fn in calls.values():  # warm up: prepared statements, caches
        for q in queries[:10]:
            fn(q)
    times: dict[str, list[float]] = {name: [] for name in calls}
    order = list(calls.items())
    for j, q in enumerate(queries):
        for name, fn in order[j % len(order) :] + order[: j % len(order)]:
            t = time.perf_counter()
            fn(q)
            times[name].append(time.perf_counter() - t)
    return {name: statistics.median(values) for name, values in times.items()}


def _bench_size(uri: str, root: Path, n: int, with_qdrant: bool = True) -> dict[str, Any]:
    import psycopg
    from pgvector.psycopg import register_vector
    from ragloom_pgvector import PgvectorStore
    from ragloom_pgvector.sqlfilter import Params, where_sql

    chunks, matrix, queries = _data(n)
    where = parse({"category": CATEGORIES[3]})
    out: dict[str, Any] = {"n": n}

    store = PgvectorStore(dsn=uri, table=f"bench_{n}", dimension=DIM)
    store.open(Context(name="bench", fresh=True))
    # the hand-written load's table: as the store's during a first load, no
    # vector index (the store's waits for flush()); none to build at close either
    bare = PgvectorStore(dsn=uri, table=f"bench_bare_{n}", dimension=DIM, index="none")
    bare.open(Context(name="bench", fresh=True))
    out["pg_load_s"], out["bare_load_s"] = _loads(uri, store, bare, chunks, matrix)
    bare.close()
    _, out["pg_index_s"] = _timed(store.flush)  # the HNSW index over the first load

    memory = MemoryStore()  # never flushed: it stays in memory
    out["memory_load_s"] = _upsert_all(memory, chunks, matrix)
    qdrant_cls, qdrant = (_qdrant_class() if with_qdrant else None), None
    if qdrant_cls is not None:
        qdrant = qdrant_cls()
        qdrant.open(
            Context(index_dir=root / f"qdrant-{n}", base_dir=root, name="qdrant", fresh=True)
        )
        out["qdrant_load_s"] = _upsert_all(qdrant, chunks, matrix)
        qdrant.flush()

    # the bare query: the store's own SQL and parameters, on a connection of its own
    conn = psycopg.connect(uri, autocommit=True)
    register_vector(conn)
    conn.execute(store._session_sql)

    def bare_query(q: np.ndarray, filt: Any = None) -> list[Any]:
        params = Params()
        sql = store._statements.dense(where_sql(filt, params))
        params["q"] = q
        params["k"] = K
        return conn.execute(sql, params, binary=True).fetchall()

    for i in range(5):  # the same answers
        ours = [h.chunk.id for h in store.query(vector=queries[i], k=K)]
        assert ours == [r[0] for r in bare_query(queries[i])]
        assert len(store.query(vector=queries[i], k=K, where=where)) == K
    for label, filt in (("plain", None), ("filtered", where)):
        pair = {  # the store against its own SQL, and nothing else in between
            "pgvector": lambda q, f=filt: store.query(vector=q, k=K, where=f),
            "bare": lambda q, f=filt: bare_query(q, f),
        }
        others = {"memory": lambda q, f=filt: memory.query(vector=q, k=K, where=f)}
        if qdrant is not None:
            others["qdrant"] = lambda q, f=filt: qdrant.query(vector=q, k=K, where=f)
        for calls in (pair, others):
            for name, value in _latencies(calls, queries).items():
                out[f"{name}_{label}_s"] = value
    # recall of the HNSW top 10 against exact search
    exact = [set(np.argsort(-(matrix @ q))[:K].tolist()) for q in queries]
    found = [
        {int(h.chunk.id[1:].split("::")[0]) for h in store.query(vector=q, k=K)} for q in queries
    ]
    out["recall_at_10"] = float(np.mean([len(a & b) / K for a, b in zip(exact, found)]))
    conn.close()
    store.close()
    if qdrant is not None:
        qdrant.close()
    return out


@functools.lru_cache(maxsize=1)
def measure(
    sizes: tuple[int, ...] = SIZES, report: bool = False, with_qdrant: bool = True
) -> tuple[dict[str, Any], ...]:
    """Every figure, at each size, measured once per process; with ``report``,
    each size's figures are printed (JSON) as soon as they are measured."""
    from ragloom_pgvector import embedded

    root = Path(tempfile.mkdtemp(prefix="ragloom-bench-pgvector-"))
    data_dir = root / "pgdata"
    uri = embedded.acquire(data_dir)
    try:
        figures = []
        for n in sizes:
            figures.append(_bench_size(uri, root, n, with_qdrant))
            if report:
                print(json.dumps(figures[-1]), flush=True)
        return tuple(figures)
    finally:
        embedded.release(data_dir)
        shutil.rmtree(root, ignore_errors=True)


def _row(n: int, label: str) -> dict[str, Any]:
    figures = next(f for f in measure() if f["n"] == n)
    extra = {k: v for k, v in figures.items() if k.endswith(f"_{label}_s")}
    beside = ", ".join(
        f"{store} {figures[f'{store}_{label}_s'] * 1000:.2f} ms"
        for store in ("memory", "qdrant")
        if f"{store}_{label}_s" in figures
    )
    return {
        "name": f"pgvector query, top-{K} of {n:,} x {DIM}, {label} (HNSW)",
        "baseline": f"the same SQL, bare psycopg ({beside})",
        "ragloom_s": figures[f"pgvector_{label}_s"],
        "baseline_s": figures[f"bare_{label}_s"],
        "min_speed": 1 / 1.2,
        **extra,
    }


def _upsert_row(n: int) -> dict[str, Any]:
    figures = next(f for f in measure() if f["n"] == n)
    beside = ", ".join(
        f"{store} {n / figures[f'{store}_load_s']:,.0f}/s"
        for store in ("memory", "qdrant")
        if f"{store}_load_s" in figures
    )
    return {
        "name": f"pgvector upsert {n:,} x {DIM} in batches of {BATCH:,} (then index: "
        f"{figures['pg_index_s']:.1f} s)",
        "baseline": f"COPY + INSERT ON CONFLICT, bare psycopg ({beside})",
        "ragloom_s": figures["pg_load_s"],
        "baseline_s": figures["bare_load_s"],
        "min_speed": 1 / 1.2,
    }


def bench_pgvector_10k_plain() -> dict[str, Any]:
    return _row(10_000, "plain")


def bench_pgvector_10k_filtered() -> dict[str, Any]:
    return _row(10_000, "filtered")


def bench_pgvector_100k_plain() -> dict[str, Any]:
    return _row(100_000, "plain")


def bench_pgvector_100k_filtered() -> dict[str, Any]:
    return _row(100_000, "filtered")


def bench_pgvector_upsert_10k() -> dict[str, Any]:
    return _upsert_row(10_000)


def bench_pgvector_upsert_100k() -> dict[str, Any]:
    return _upsert_row(100_000)


AT_ONCE_CHUNKS = 20_000


def bench_pgvector_stores_at_once() -> dict[str, Any]:
    """A hybrid ``Pipeline.retrieve`` over two pgvector stores (each its own
    embedded server) and bm25, 20k chunks: the pgvector stores asked at once
    (``remote_queries``, as ragloom does it) against the same pipeline asking
    them one after another, interleaved query by query."""
    import os

    import ragloom
    from bench_retrieve import _setup
    from ragloom_pgvector.store import PgvectorStore

    def asked(remote: bool) -> None:
        PgvectorStore.remote_queries = property(lambda self: remote)  # type: ignore[method-assign]

    said = PgvectorStore.remote_queries
    cache = os.environ.get("RAGLOOM_CACHE_DIR")
    times: dict[bool, list[float]] = {True: [], False: []}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            config, queries = _setup(root, AT_ONCE_CHUNKS, {"k": 10, "candidates": 30})
            config["stores"] = [
                {"type": "pgvector", "name": "passages"},
                {"type": "pgvector", "name": "sentences"},
                {"type": "bm25"},
            ]
            with ragloom.load(config, base_dir=root) as pipeline:
                pipeline.index()
                for q in queries[:10]:
                    pipeline.retrieve(q)
                for n, q in enumerate(queries[:100]):
                    for remote in (n % 2 == 0, n % 2 == 1):  # each side first every other query
                        asked(remote)
                        started = time.perf_counter()
                        pipeline.retrieve(q)
                        times[remote].append(time.perf_counter() - started)
    finally:
        PgvectorStore.remote_queries = said  # type: ignore[method-assign]
        if cache is None:
            os.environ.pop("RAGLOOM_CACHE_DIR", None)
        else:
            os.environ["RAGLOOM_CACHE_DIR"] = cache
    return {
        "name": f"hybrid retrieve, 2 pgvector + bm25, {AT_ONCE_CHUNKS:,} chunks (median)",
        "baseline": "the same stores asked one after another",
        "ragloom_s": statistics.median(times[True]),
        "baseline_s": statistics.median(times[False]),
        "min_speed": 1.5,  # about as long as the slowest store: near 2x for two alike
    }


BENCHMARKS = [
    bench_pgvector_10k_plain,
    bench_pgvector_10k_filtered,
    bench_pgvector_100k_plain,
    bench_pgvector_100k_filtered,
    bench_pgvector_upsert_10k,
    bench_pgvector_upsert_100k,
    bench_pgvector_stores_at_once,
]


def main() -> None:
    import argparse

    from rich.console import Console
    from rich.table import Table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--no-qdrant", action="store_true", help="leave the qdrant store out")
    args = parser.parse_args()
    sizes = tuple(args.sizes)
    # stopped with SIGTERM, still stop the embedded server (`finally` in measure)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))
    started = time.perf_counter()
    figures = measure(sizes, report=True, with_qdrant=not args.no_qdrant)
    stores = ["pgvector", "bare", "memory"] + (["qdrant"] if "qdrant_plain_s" in figures[0] else [])
    table = Table(title=f"top-{K} query latency, median of {QUERIES} (ms)")
    table.add_column("chunks")
    table.add_column("query")
    for name in stores:
        table.add_column("bare SQL" if name == "bare" else name)
    table.add_column("pgvector / bare")
    for f in figures:
        for label in ("plain", "filtered"):
            cells = [f"{f[f'{s}_{label}_s'] * 1000:.2f}" for s in stores]
            ratio = f[f"pgvector_{label}_s"] / f[f"bare_{label}_s"]
            table.add_row(f"{f['n']:,}", label, *cells, f"{ratio:.2f}x")
    console = Console(width=160)
    console.print(table)
    upserts = Table(title=f"upsert throughput, batches of {BATCH:,} (chunks/s)")
    for column in ("chunks", "pgvector load", "bare SQL load", "pgvector / bare",
                   "HNSW build at flush", "pgvector load + build", "memory", "qdrant"):  # fmt: skip
        upserts.add_column(column)
    for f in figures:
        n = f["n"]
        upserts.add_row(
            f"{n:,}",
            f"{n / f['pg_load_s']:,.0f}",
            f"{n / f['bare_load_s']:,.0f}",
            f"{f['pg_load_s'] / f['bare_load_s']:.2f}x",
            f"{f['pg_index_s']:.1f} s",
            f"{n / (f['pg_load_s'] + f['pg_index_s']):,.0f}",
            f"{n / f['memory_load_s']:,.0f}",
            f"{n / f['qdrant_load_s']:,.0f}" if "qdrant_load_s" in f else "-",
        )
    console.print(upserts)
    for f in figures:
        print(f"recall@10 of HNSW (defaults) vs exact at {f['n']:,}: {f['recall_at_10']:.3f}")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
