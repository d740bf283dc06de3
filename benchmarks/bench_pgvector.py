"""The pgvector store (embedded PostgreSQL 18, pgvector 0.8, HNSW defaults) at
10k and 100k chunks of 384 dimensions, in one run:

- top-10 query latency, plain and filtered (``{"category": ...}``: a tenth of
  the chunks), against the bare SQL query the store sends, run through a
  psycopg connection of its own with the same parameters (the target: the
  store within 1.2x of it), and beside the memory store and, when
  ragloom-qdrant is installed, the qdrant store on the same data;
- upsert throughput in batches of 1,000 (as an index run writes them): the
  store against the bare COPY + INSERT ... ON CONFLICT of the same rows
  (the target: within 1.2x), and the HNSW index built at ``flush()``.

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


def _data(n: int) -> tuple[list[Chunk], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((n, DIM), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    queries = rng.standard_normal((QUERIES, DIM), dtype=np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
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


def _bare_upsert(
    uri: str, table: str, template: Any, chunks: list[Chunk], matrix: np.ndarray
) -> float:
    """The store's own COPY + INSERT ... ON CONFLICT, by hand, from the same
    chunks and vectors, metadata serialised with json.dumps (timed too, as the
    store's encoding is): what the store adds is its checks and date columns."""
    import psycopg
    from pgvector.psycopg import register_vector

    statements = template._statements
    with psycopg.connect(uri, autocommit=True) as conn:
        register_vector(conn)
        conn.execute(template._session_sql)
        t = time.perf_counter()
        rows = [
            (c.id, c.document_id, c.index, c.start, c.end, c.label, c.text,
             json.dumps(c.metadata), json.dumps(c.metadata), None)
            for c in chunks
        ]  # fmt: skip
        for i in range(0, len(rows), BATCH):
            with conn.transaction():
                conn.execute(statements.stage())
                with conn.cursor().copy(statements.copy()) as copy:
                    copy.set_types(statements.copy_types())
                    for j in range(i, min(i + BATCH, len(rows))):
                        copy.write_row((*rows[j], matrix[j]))
                conn.execute(statements.merge())
        return time.perf_counter() - t


def _qdrant_class() -> Any:
    try:
        from ragloom.plugins import build_plugin_manager
        from ragloom.registry import Registry

        registry = Registry.from_plugin_manager(build_plugin_manager())
        return registry.get("store", "qdrant").cls
    except Exception:
        return None


def _latencies(calls: dict[str, Any], queries: np.ndarray) -> dict[str, float]:
    for fn in calls.values():  # warm up: prepared statements, caches
        for q in queries[:10]:
            fn(q)
    times: dict[str, list[float]] = {name: [] for name in calls}
    order = list(calls.items())
    for j, q in enumerate(queries):  # interleaved so drift hits all alike, and the
        # first to run a query rotates: it finds the pages that query visits colder
        # (at 100k chunks the HNSW graph outgrows shared_buffers) than the next one
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
    out["pg_load_s"] = _upsert_all(store, chunks, matrix)
    _, out["pg_index_s"] = _timed(store.flush)  # the HNSW index over the first load
    bare = PgvectorStore(dsn=uri, table=f"bench_bare_{n}", dimension=DIM)
    bare.open(Context(name="bench", fresh=True))
    out["bare_load_s"] = _bare_upsert(uri, f"bench_bare_{n}", bare, chunks, matrix)
    bare.close()

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
        calls = {
            "pgvector": lambda q, f=filt: store.query(vector=q, k=K, where=f),
            "bare": lambda q, f=filt: bare_query(q, f),
            "memory": lambda q, f=filt: memory.query(vector=q, k=K, where=f),
        }
        if qdrant is not None:
            calls["qdrant"] = lambda q, f=filt: qdrant.query(vector=q, k=K, where=f)
        for name, value in _latencies(calls, queries).items():
            out[f"{name}_{label}_s"] = value
    # recall of the HNSW top 10 against exact search, for the record
    exact = [set(np.argsort(-(matrix @ q))[:K].tolist()) for q in queries[:20]]
    found = [
        {int(h.chunk.id[1:].split("::")[0]) for h in store.query(vector=q, k=K)}
        for q in queries[:20]
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


BENCHMARKS = [
    bench_pgvector_10k_plain,
    bench_pgvector_10k_filtered,
    bench_pgvector_100k_plain,
    bench_pgvector_100k_filtered,
    bench_pgvector_upsert_10k,
    bench_pgvector_upsert_100k,
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
