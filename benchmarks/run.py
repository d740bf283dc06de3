"""`make bench`: every benchmark, each against its baseline measured in the same run.

Ratios, not absolute times, are what the targets are about: a faster or
slower machine moves both sides alike.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_bm25 import bench_bm25  # noqa: E402
from bench_chunkers import bench_recursive, bench_recursive_documents  # noqa: E402
from bench_embedder import bench_embedder  # noqa: E402
from bench_filters import bench_filtered_query  # noqa: E402
from bench_generation import bench_generation  # noqa: E402
from bench_incremental import bench_incremental  # noqa: E402
from bench_memory_store import bench_memory_precision, bench_memory_store  # noqa: E402
from bench_pgvector import BENCHMARKS as PGVECTOR_BENCHMARKS  # noqa: E402
from bench_qdrant import bench_qdrant_filtered, bench_qdrant_plain  # noqa: E402
from bench_ray import bench_ray_scaling, bench_ray_throughput  # noqa: E402
from bench_retrieve import bench_fusion_share, bench_hybrid_overhead, bench_retrieve  # noqa: E402
from bench_serve import bench_serve  # noqa: E402

BENCHMARKS = [
    bench_memory_store,
    bench_memory_precision,
    bench_recursive,
    bench_recursive_documents,
    bench_bm25,
    bench_filtered_query,
    bench_retrieve,
    bench_hybrid_overhead,
    bench_fusion_share,
    bench_incremental,
    bench_embedder,
    bench_qdrant_plain,
    bench_qdrant_filtered,
    bench_serve,
    bench_generation,
    bench_ray_throughput,
    bench_ray_scaling,
    *PGVECTOR_BENCHMARKS,
]


def main() -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="ragloom benchmarks: speed = baseline time / ragloom time, same run")
    for column in ("benchmark", "baseline", "ragloom", "baseline time", "speed", "target"):
        table.add_column(column)
    missed = 0
    for bench in BENCHMARKS:
        result = bench()
        speed = result["baseline_s"] / result["ragloom_s"]
        ok = speed >= result["min_speed"]
        missed += not ok
        table.add_row(
            str(result["name"]),
            str(result["baseline"]),
            f"{result['ragloom_s'] * 1000:.2f} ms",
            f"{result['baseline_s'] * 1000:.2f} ms",
            f"{speed:.2f}x",
            f"{'ok' if ok else 'MISSED'} (>= {result['min_speed']:.2f}x)",
        )
    Console(width=160).print(table)
    if missed:
        print(f"{missed} benchmark(s) missed their target")


if __name__ == "__main__":
    main()
