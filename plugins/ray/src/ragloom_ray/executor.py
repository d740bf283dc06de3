"""The ``ray`` executor: an index run's chunk and embed work on a Ray cluster.

The driver (the process running the index) keeps the diff against the
ledger, the journal, the store writes and the commit. With ``load: cluster``
the loaders run as Ray tasks that leave the documents in the object store
and send the driver stand-ins (id, source, state hash) for the diff. The
documents to (re)index go, ``batch_size`` at a time, to a pool of
``embed_actors`` actors; each actor builds the chunker and the embedder once
(a model loads once per actor), answers a ready check, and only then gets
batches; it returns chunks and vectors. Results come back to the driver as
they are ready and are journaled and written at once; at most
``max_in_flight`` batches are out at any time, so the driver never holds
more than that many prepared batches.

Plain Ray tasks and actors, not Ray Data: a Ray Data job costs seconds of
fixed overhead per run here, and the actor pool already gives what the run
needs (streaming results, backpressure, a model loaded once per actor).

An actor that dies mid-batch (a node lost, an out-of-memory kill) is
restarted and its batches run again on it, up to ``max_retries`` times;
each batch reaches the driver exactly once (the run checks: a document
returned twice, or never, fails the run before its commit).

With ``writes: auto`` and every configured store declaring
``shared_writes`` (pgvector with a ``dsn``, qdrant with a ``url``,
pinecone), the actors write the stores themselves: a batch comes back to
the driver as chunk ids only, the driver journals them, then sends the
actor that holds the batch a ``write`` with those ids; before the commit
it waits for every write and every actor's store flush. An actor that died
holding a batch prepares it again on restart and writes the same chunks.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field
from ragloom import ComponentConfig, Context
from ragloom.components import Executor
from ragloom.errors import RagloomError
from ragloom.executors import IndexWork, Loaded, LoadWork, Prepared, component_recipe

if TYPE_CHECKING:
    from ragloom.types import Document

__all__ = ["RayExecutor"]

log = logging.getLogger("ragloom")


class RayExecutor(Executor):
    """Chunks and embeds on a pool of Ray actors; the ledger stays on the driver."""

    class Config(ComponentConfig):
        address: str | None = Field(
            None,
            description="the cluster to join: `auto` (the one `ray start` runs on this "
            "machine), `ray://host:10001` (Ray Client) or `host:6379`; unset starts a local "
            "cluster on this machine (or uses the one this process already joined)",
        )
        embed_actors: int = Field(2, gt=0, description="actors in the pool")
        num_cpus: float = Field(1.0, ge=0, description="CPUs each actor reserves")
        num_gpus: float = Field(0.0, ge=0, description="GPUs each actor reserves")
        batch_size: int = Field(64, gt=0, description="documents per batch sent to an actor")
        max_in_flight: int | None = Field(
            None,
            gt=0,
            description="batches out at once (backpressure); default twice `embed_actors`",
        )
        max_retries: int = Field(
            3, ge=0, description="restarts of a dead actor, and retries of its batches"
        )
        start_timeout: float = Field(
            300.0,
            gt=0,
            description="seconds to wait for the cluster to start the first actor (a cluster "
            "that autoscales may need minutes to add a node); past it the run fails, "
            "naming what each actor asks for and what the cluster has",
        )
        load: Literal["cluster", "driver"] = Field(
            "cluster",
            description="where the loaders run: `cluster` (Ray tasks, one per loader; the "
            "driver gets only ids and hashes for the diff, the documents stay in Ray's "
            "object store; every node must read the sources at the same paths) or "
            "`driver` (the process running the index loads and sends the documents)",
        )
        runtime_env: dict[str, Any] | None = Field(
            None,
            description="Ray runtime environment for the actors (`pip`, `env_vars`, "
            "`working_dir`...), passed through as is",
        )
        writes: Literal["auto", "driver"] = Field(
            "auto",
            description="who writes the stores: `auto` (the actors, when every configured "
            "store declares shared writes: pgvector with `dsn`, qdrant with `url`, pinecone; "
            "otherwise the driver) or `driver` (always the process running the index)",
        )

    config: Config

    def __init__(self, config: ComponentConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._actors: list[Any] = []
        self._groups: dict[str, Any] = {}  # document id -> ref of its loaded group
        self._writes: list[Any] = []  # refs of the actors' store writes, until flush_writes
        self._writers: set[int] = set()  # the actors those went to

    @property
    def loads_documents(self) -> bool:
        return self.config.load == "cluster"

    def load_documents(self, work: LoadWork) -> Iterator[Loaded]:
        """Every loader on a Ray task at once, streaming groups of ``batch_size``
        documents into the object store; one :class:`Loaded` per loader, in
        order, once its task has finished."""
        import ray

        from .loading import END, load_part

        task = ray.remote(load_part).options(
            num_returns="streaming",
            num_cpus=1,
            runtime_env=self.config.runtime_env,
        )
        driver_node = str(ray.get_runtime_context().get_node_id())
        streams = [
            (
                key,
                task.remote(
                    recipe,
                    name,
                    str(work.index_dir),
                    str(work.base_dir),
                    work.admit,
                    self.config.batch_size,
                ),
            )
            for key, name, recipe in work.loaders
        ]
        for key, stream in streams:
            documents: list[Document] = []
            states: list[str] = []
            groups: list[tuple[list[Document], Any]] = []
            while True:
                head = self._get(next(stream), "failed loading")
                if head[0] == END:
                    _, problems, kept, error, node = head
                    break
                documents.extend(head[0])
                states.extend(head[1])
                groups.append((head[0], next(stream)))
            if error is not None and node != driver_node and not error.startswith("loader "):
                error += (
                    f" (read on Ray node {node}, not the driver's: with `load: cluster` every "
                    "node must see the sources at the paths the config gives; mount them "
                    "there, or set `load: driver`)"
                )
            if error is None:
                for stand_ins, ref in groups:
                    for doc in stand_ins:
                        self._groups.setdefault(doc.id, ref)
            yield Loaded(key, documents, states, problems, kept, error)

    def open(self, context: Context | None = None) -> None:
        """Join the cluster (``ray.init``) unless this process already has."""
        super().open(context)
        try:
            import ray
        except ImportError as exc:  # pragma: no cover (a dependency of this package)
            raise RagloomError("the ray executor needs ray: `pip install ragloom-ray`") from exc
        if not ray.is_initialized():
            address = self.config.address
            _check_reachable(address)
            options: dict[str, Any] = {"log_to_driver": False}
            if address is None:
                options["include_dashboard"] = False
            with _sigterm_kept():
                try:
                    ray.init(address=address, **options)
                except ConnectionError as exc:
                    raise RagloomError(
                        f"cannot join the Ray cluster ({_first_line(exc)}): start it (`ray "
                        "start --head`, or on a broken node `ray stop --force` first) or set "
                        "the executor's `address:`; unset, the run starts a cluster of its own"
                    ) from None

    def close(self) -> None:
        """Kill this run's actors (the cluster itself stays up)."""
        actors, self._actors = self._actors, []
        self._groups = {}  # the loaded documents leave the object store
        self._writes, self._writers = [], set()
        if not actors:
            return
        import ray

        for actor in actors:
            try:
                ray.kill(actor)
            except Exception:  # an actor already gone
                log.debug("ray actor already gone", exc_info=True)

    @property
    def in_flight(self) -> int:
        return self.config.max_in_flight or 2 * self.config.embed_actors

    @property
    def per_actor(self) -> int:
        """Batches out on one actor at most: its share of ``max_in_flight``
        (one running and one waiting by default, so an actor never idles
        between batches and never hoards them)."""
        return max(1, -(-self.in_flight // self.config.embed_actors))

    def map(self, work: IndexWork, documents: Sequence[Document]) -> Iterator[Prepared]:
        import ray

        from .worker import IndexWorker

        c = self.config
        batches = self._batches(documents)
        if not batches:
            return
        stores = work.stores if c.writes == "auto" else ()
        remote = ray.remote(IndexWorker).options(
            num_cpus=c.num_cpus,
            num_gpus=c.num_gpus,
            max_restarts=c.max_retries,
            max_task_retries=c.max_retries,
            runtime_env=c.runtime_env,
        )
        recipe = (
            component_recipe(work.chunker),
            component_recipe(work.embedder) if work.vectors else None,
            work.vectors,
            str(work.index_dir),
            str(work.base_dir),
            str(work.embedding_cache) if work.embedding_cache is not None else None,
            str(ray.get_runtime_context().get_node_id()),
            stores,
        )
        if stores:
            log.info("ray: the actors write the stores (%s)", ", ".join(s.name for s in stores))
        count = min(c.embed_actors, len(batches))
        started = time.perf_counter()
        self._actors = [remote.remote(*recipe) for _ in range(count)]
        # An actor gets batches only once it has answered `ready` (its model is
        # loaded): a batch sent to an actor still starting would wait there
        # while the ready ones idle.
        starting: dict[Any, int] = {a.ready.remote(): i for i, a in enumerate(self._actors)}
        said_waiting = False
        ready: list[int] = []
        load = [0] * count  # batches out per actor
        pending: dict[Any, int] = {}  # object ref -> actor index
        queue = _drain(batches)  # a batch's group is released once it is sent
        exhausted = False
        while True:
            while not exhausted and ready and len(pending) < self.in_flight:
                which = min(ready, key=load.__getitem__)
                if load[which] >= self.per_actor:
                    break
                batch = next(queue, None)
                if batch is None:
                    exhausted = True
                    break
                actor = self._actors[which]
                loaded = isinstance(batch, tuple)  # (group, ids): loaded on the cluster
                if loaded:
                    ref = actor.prepare_loaded.remote(*batch)
                elif stores:  # sent once, kept for a write after a restart
                    batch = (ray.put(batch),)
                    ref = actor.prepare.remote(batch[0])
                else:
                    ref = actor.prepare.remote(batch)
                pending[ref] = (which, batch, loaded)
                load[which] += 1
            if not pending and exhausted:
                return
            if ready or not starting:
                done, _ = ray.wait([*pending, *starting], num_returns=1)
            else:  # no actor placed yet: the cluster may never place one
                left = c.start_timeout - (time.perf_counter() - started)
                done, _ = ray.wait(list(starting), num_returns=1, timeout=max(min(left, 10.0), 0))
                if not done:
                    waited = time.perf_counter() - started
                    if waited >= c.start_timeout:
                        raise RagloomError(
                            f"none of the {count} ray actor(s) started in {waited:.0f} s "
                            f"({self._request()}; the cluster has {_resources(ray)}): the "
                            "cluster cannot place them (lower the executor's `num_cpus`/"
                            "`num_gpus`, or add a node), or they take longer to load their "
                            "models (raise `start_timeout`, as for a cluster that "
                            "autoscales); nothing of this run was committed"
                        )
                    if not said_waiting and waited >= 30:
                        said_waiting = True
                        log.warning(
                            "ray: no actor ready after 30 s (%s; the cluster has %s): they "
                            "load their models, or wait for room on the cluster; the run "
                            "gives up after `start_timeout` (%.0f s)",
                            self._request(),
                            _resources(ray),
                            c.start_timeout,
                        )
                    continue
            ref = done[0]
            if ref in starting:
                which = starting.pop(ref)
                self._get(ref, "could not start an actor")
                ready.append(which)
                if not starting:
                    log.info(
                        "ray: %d actors ready after %.1f s",
                        count,
                        time.perf_counter() - started,
                    )
                continue
            which, batch, loaded = pending.pop(ref)
            load[which] -= 1
            prepared = self._get(ref, "failed a batch")
            if prepared.held is not None:
                prepared = replace(prepared, held=_Held(which, prepared.held, batch, loaded))
            yield prepared

    def write(self, prepared: Prepared, ids: Sequence[str]) -> None:
        """Send the actor holding ``prepared`` the ids to write it under (the
        driver journaled them); the write runs there, awaited by ``flush_writes``."""
        held = prepared.held
        assert isinstance(held, _Held)
        actor = self._actors[held.actor]
        self._writers.add(held.actor)
        self._writes.append(actor.write.remote(held.token, list(ids), held.batch, held.loaded))

    def flush_writes(self) -> None:
        """Wait for every store write of the run, then flush the stores of each
        actor that wrote."""
        writes, self._writes = self._writes, []
        for ref in writes:
            self._get(ref, "failed writing a batch to the stores")
        flushes = [self._actors[i].flush.remote() for i in sorted(self._writers)]
        for ref in flushes:
            self._get(ref, "failed flushing the stores")

    def _batches(self, documents: Sequence[Document]) -> list[Any]:
        """Batches of at most ``batch_size`` documents: lists of documents, or for
        documents loaded on the cluster, ``(group ref, ids)`` pairs, each within
        one loaded group (the actor fetches the group from the object store)."""
        size = self.config.batch_size
        if not any(doc.id in self._groups for doc in documents[:1]):
            return [list(documents[i : i + size]) for i in range(0, len(documents), size)]
        by_group: dict[Any, list[str]] = {}
        for doc in documents:
            by_group.setdefault(self._groups[doc.id], []).append(doc.id)
        self._groups = {}  # groups with nothing to (re)index leave the object store
        return [
            (group, ids[i : i + size])
            for group, ids in by_group.items()
            for i in range(0, len(ids), size)
        ]

    def _request(self) -> str:
        c = self.config
        asks = f"each asks for {c.num_cpus:g} CPU(s)"
        return asks + (f" and {c.num_gpus:g} GPU(s)" if c.num_gpus else "")

    def _get(self, ref: Any, what: str) -> Any:
        """``ray.get(ref)``, its failures as errors that say what to do;
        ``what`` names the work (``failed a batch``, ``failed loading``)."""
        import ray

        try:
            return ray.get(ref)
        except ray.exceptions.RuntimeEnvSetupError as exc:
            raise RagloomError(
                f"Ray could not set up the actors' `runtime_env` ({_first_line(exc)}); a "
                "`pip:` entry needs `virtualenv` on every node (`ray start` logs say why); "
                "nothing of this run was committed"
            ) from exc
        except ray.exceptions.RayActorError as exc:
            raise RagloomError(
                f"a ray actor died more than `max_retries` ({self.config.max_retries}) times "
                f"or could not start ({_first_line(exc)}); nothing of this run was "
                "committed, run `ragloom index` again (`-v` logs Ray's account)"
            ) from exc
        except ray.exceptions.RayTaskError as exc:
            raise RagloomError(
                f"a ray worker {what}: {_first_line(exc)}; nothing of this run was committed"
            ) from exc

    def worker_pids(self) -> list[int]:
        """Process ids of this run's actors (tests kill one)."""
        import ray

        return [ray.get(a.pid.remote()) for a in self._actors]


@dataclass(frozen=True)
class _Held:
    """Where a held batch is: the actor (its index in the pool), its token
    there, and what that actor needs to prepare it again after a restart:
    ``(documents ref,)``, or ``(group ref, ids)`` when ``loaded`` (refs inside
    a tuple, so Ray hands them over unresolved: fetched only if needed)."""

    actor: int
    token: str
    batch: Any
    loaded: bool


def _first_line(exc: BaseException) -> str:
    """An error's first line: Ray's messages go on with dumps of the actor."""
    text = str(exc).strip()
    return text.splitlines()[0].strip() if text else type(exc).__name__


def _resources(ray: Any) -> str:
    """What the cluster has, for a message: ``2 CPU(s), no GPU on 1 node(s)``."""
    try:
        total = ray.cluster_resources()
        nodes = sum(1 for node in ray.nodes() if node.get("Alive"))
    except Exception:  # a message must not fail
        return "resources Ray did not say"
    gpus = total.get("GPU", 0)
    return (
        f"{total.get('CPU', 0):g} CPU(s), {f'{gpus:g} GPU(s)' if gpus else 'no GPU'} "
        f"on {nodes} node(s)"
    )


def _check_reachable(address: str | None, timeout: float = 5.0) -> None:
    """Fail at once on a ``host:port`` no cluster listens on: ``ray.init``
    waits for it without end (a wrong port, a name that does not resolve)."""
    if not address or address == "auto" or "://" in address or ":" not in address:
        return
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            return
    except ValueError:
        return  # not host:port: Ray says what it makes of it
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise RagloomError(
            f"no Ray cluster answers at {address} ({why}): check the executor's `address:` "
            "(the head node's GCS address, `host:6379`), and that `ray start --head` runs there"
        ) from None


@contextlib.contextmanager
def _sigterm_kept() -> Iterator[None]:
    """Keep this process's SIGTERM handler through ``ray.init``, which
    installs its own (a stack dump and exit status 15): the command's handler
    stops the run as Ctrl-C does, with its message and status 143. Python's
    handler is put back, whatever ``ray.init`` installed in C; a handler
    someone installed in C before (``getsignal`` says None) is left to Ray."""
    main = threading.current_thread() is threading.main_thread()
    handler = signal.getsignal(signal.SIGTERM) if main else None
    try:
        yield
    finally:
        if handler is not None:
            signal.signal(signal.SIGTERM, handler)


def _drain(items: list[Any]) -> Iterator[Any]:
    """``items`` one by one, each dropped from the list as it is taken."""
    items.reverse()
    while items:
        yield items.pop()
