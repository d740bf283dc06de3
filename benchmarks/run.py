"""`make bench`: every benchmark, each against its baseline measured in the same run.

Ratios, not absolute times, are what the targets are about: a faster or
slower machine moves both sides alike. A row may also carry ``missed``, the
absolute targets it missed (recall, latency), which marks it MISSED too.

After the table, ``bench_answers`` grades the answers on the probe sets in
``benchmarks/answers`` (right, rightly refused, wrongly refused, misleading),
and ``bench_probes`` counts the cases of ``benchmarks/generator_probes`` the
``extractive`` generator meets.

``--quick`` leaves out the benchmarks at sizes only ``make bench`` needs
(``LARGE``: the memory store's hnsw index at 1M x 384, tens of minutes to build
on two cores).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_answers import print_report, report_answers  # noqa: E402
from bench_bm25 import bench_bm25, bench_bm25_reopen  # noqa: E402
from bench_chunkers import bench_recursive, bench_recursive_documents  # noqa: E402
from bench_embedder import bench_embedder  # noqa: E402
from bench_filters import bench_filtered_query  # noqa: E402
from bench_generation import bench_generation  # noqa: E402
from bench_incremental import bench_incremental, bench_unchanged_files  # noqa: E402
from bench_memory_store import (  # noqa: E402
    bench_memory_ann,
    bench_memory_precision,
    bench_memory_store,
)
from bench_pgvector import BENCHMARKS as PGVECTOR_BENCHMARKS  # noqa: E402
from bench_probes import print_report as print_probes  # noqa: E402
from bench_probes import report_probes  # noqa: E402
from bench_qdrant import bench_qdrant_filtered, bench_qdrant_plain  # noqa: E402
from bench_ray import (  # noqa: E402
    bench_ray_driver_writes,
    bench_ray_scaling,
    bench_ray_throughput,
)
from bench_retrieve import (  # noqa: E402
    bench_first_query_after_commit,
    bench_fusion_share,
    bench_hybrid_overhead,
    bench_retrieve,
)
from bench_serve import bench_serve  # noqa: E402

BENCHMARKS = [
    bench_memory_store,
    bench_memory_precision,
    bench_memory_ann,
    bench_recursive,
    bench_recursive_documents,
    bench_bm25,
    bench_bm25_reopen,
    bench_filtered_query,
    bench_retrieve,
    bench_hybrid_overhead,
    bench_fusion_share,
    bench_first_query_after_commit,
    bench_incremental,
    bench_unchanged_files,
    bench_embedder,
    bench_qdrant_plain,
    bench_qdrant_filtered,
    bench_serve,
    bench_generation,
    bench_ray_throughput,
    bench_ray_scaling,
    bench_ray_driver_writes,
    *PGVECTOR_BENCHMARKS,
]
LARGE = {bench_memory_ann}


def main() -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="ragloom benchmarks: speed = baseline time / ragloom time, same run")
    for column in ("benchmark", "baseline", "ragloom", "baseline time", "speed", "target"):
        table.add_column(column)
    missed = 0
    quick = "--quick" in sys.argv[1:]
    for bench in BENCHMARKS:
        if quick and bench in LARGE:
            continue
        result = bench()
        speed = result["baseline_s"] / result["ragloom_s"]
        ok = speed >= result["min_speed"] and not result.get("missed")
        missed += not ok
        table.add_row(
            str(result["name"]),
            str(result["baseline"]),
            f"{result['ragloom_s'] * 1000:.2f} ms",
            f"{result['baseline_s'] * 1000:.2f} ms",
            f"{speed:.2f}x",
            f"{'ok' if ok else 'MISSED'} (>= {result['min_speed']:.2f}x"
            + (f"; {result['missed']})" if result.get("missed") else ")"),
        )
    Console(width=160).print(table)
    # answer quality is a report beside the speed targets, not one of them
    print_report(report_answers())
    print_probes(report_probes())
    if missed:
        print(f"{missed} benchmark(s) missed their target")


if __name__ == "__main__":
    main()
