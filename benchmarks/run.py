"""`make bench`: every benchmark, each against its baseline measured in the same run.

Ratios, not absolute times, are what the targets are about: a faster or
slower machine moves both sides alike.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_chunkers import bench_recursive  # noqa: E402
from bench_memory_store import bench_memory_store  # noqa: E402

BENCHMARKS = [bench_memory_store, bench_recursive]


def main() -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="ragloom benchmarks (ratio = ragloom / baseline time unless noted)")
    for column in ("benchmark", "ragloom", "baseline", "ratio", "target"):
        table.add_column(column)
    for bench in BENCHMARKS:
        result = bench()
        table.add_row(
            str(result["name"]),
            f"{result['ragloom_s'] * 1000:.2f} ms",
            f"{result['baseline_s'] * 1000:.2f} ms",
            f"{result['ratio']:.3f}",
            str(result.get("target", "")),
        )
    Console().print(table)


if __name__ == "__main__":
    main()
