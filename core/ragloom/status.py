"""What an index holds and whether queries can use it: ``ragloom status``.

``index_status(pipeline)`` reads the ledger (read-only), asks each store how
many chunks it holds, looks whether an index run holds the index lock, and
runs the checks a query makes before it answers (a rebuild under way,
another embedder, a store moved, emptied or added since the last run), so
that an operator reads in one place what `search` would refuse and what the
next `ragloom index` will do, without reading ``ledger.sqlite`` by hand.
Nothing is written: no index folder is made where there is none.

A store that another process holds (an embedded engine that is one
process's, such as the embedded Qdrant while ``ragloom serve`` runs) is not
checked, and is no reason to call queries refused: only that process can
query it (a server answers them; an index run lets go when it ends). A
store says so by failing its ``open()`` with a ``BlockingIOError``
(Python's error for a lock another holder has; ``ragloom_qdrant``'s
``QdrantInUseError`` is one, and a ``StoreError`` too). The checks that need
no store (a rebuild under way, another embedder, a store retyped or moved)
still run.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from .errors import RagloomError, StoreError
from .fingerprints import describe_fingerprint, fingerprints_match
from .ledger import JOURNAL_FILE, Ledger, ledger_error, running_run
from .state import _chunk_total
from .storeset import store_kind

if TYPE_CHECKING:
    from .components import Store
    from .pipeline import Pipeline

__all__ = ["IndexStatus", "StoreStatus", "index_status"]


@dataclass(frozen=True)
class StoreStatus:
    """One store of the config, as it is now."""

    name: str
    type: str
    location: str | None
    """Where it keeps its chunks (a file, a table, a collection), when it says."""
    chunks: int | None
    """How many chunks it holds (None when it could not be asked)."""
    exact: bool
    """False for a store whose count lags its writes (Pinecone): about that many."""
    error: str | None = None
    """Why it could not be opened or counted."""
    held: bool = False
    """Another process holds it (``error`` says which store and where): not
    checked, and no reason to refuse queries."""


@dataclass(frozen=True)
class IndexStatus:
    """An index directory and the config's view of it (``Pipeline.status()``)."""

    index_dir: str
    exists: bool
    """Whether an index run ever committed here (a ledger exists)."""
    version: int
    """The corpus version queries answer from (0: none committed yet)."""
    committed_at: float | None
    """When that version was committed (None: by a ragloom that did not say)."""
    written_by: str | None
    """The ragloom version that committed it (None: an older ragloom)."""
    documents: int
    chunks: int
    """Chunks the ledger lists: what each store should hold."""
    embedder: str | None
    """The embedder the index was built with (``model (384-d)``)."""
    stores: tuple[StoreStatus, ...]
    run: str | None
    """``running`` (an index run holds the lock now), ``stopped`` (one was
    killed or failed: its journal is left, and the next run finishes it), or None."""
    run_pid: int | None
    rebuilding: float | None
    """When a ``--rebuild`` that has not committed its documents started."""
    ready: bool
    """Whether a query would answer now: False when it would be refused."""
    problem: str | None
    """What a query would be told instead (the message of its error)."""
    next_run: tuple[str, ...]
    """What the next ``ragloom index`` will do beyond indexing changes."""
    last_run: dict[str, Any] | None = None
    """The last index run that ended (the ledger's ``last_run``): ``outcome``
    (``committed``, ``failed`` or ``interrupted``), ``error``, ``started``,
    ``ended``, ``seconds``, ``sources``, ``rebuild``, the counts (``added``,
    ``changed``, ``deleted``, ``unchanged``, ``rewritten``, ``version``, of
    a committed run), ``problems`` (files not read) with the first
    ``problem_examples``, and ``errors`` (loaders whose source was missing).
    None before a run recorded one. A run stopped by a signal says which
    (``stopped by SIGTERM``, ``stopped by Ctrl-C (SIGINT)``); one killed
    with ``kill -9`` records nothing: ``run`` says ``stopped``."""
    held: tuple[str, ...] = ()
    """The stores another process holds (a running server, an index run),
    which were not checked: ``ready`` says what the other checks found."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_SIGNAL_NAMES = {
    "Terminated": "stopped by SIGTERM",
    "KeyboardInterrupt": "stopped by Ctrl-C (SIGINT)",
}
"""What an older ragloom recorded as a run's error when a signal stopped it."""


def _last_run(record: object) -> dict[str, Any] | None:
    """The ledger's ``last_run``, a run stopped by a signal said in words
    (an older ragloom kept the exception's name)."""
    if not isinstance(record, dict):
        return None
    if record.get("error") in _SIGNAL_NAMES:
        return {**record, "error": _SIGNAL_NAMES[record["error"]]}
    return record


def index_status(pipeline: Pipeline) -> IndexStatus:
    """The status of ``pipeline``'s index; opens its stores (as a query would),
    writes nothing."""
    state = pipeline.state
    running, pid = running_run(state.index_dir) if state.index_dir.is_dir() else (False, None)
    journal = (state.index_dir / JOURNAL_FILE).exists()
    run = "running" if running else ("stopped" if journal else None)
    unreadable: str | None = None
    try:
        meta, documents, chunks = _read_ledger(pipeline)
    except RagloomError as exc:  # a damaged ledger: what a query says of it, below
        meta, documents, chunks, unreadable = None, 0, 0, str(exc)
    exists = state.ledger_path.exists()
    meta = meta or {}
    version = int(meta.get("corpus_version") or 0)
    writer = meta.get("writer")
    stamped = (
        isinstance(writer, dict)
        and writer.get("commit") == meta.get("commit")
        and writer.get("version") == version
    )
    at = writer.get("at") if stamped else None
    problem: str | None = None
    try:  # the checks a query makes before it answers (with no ledger, too:
        # stores that hold chunks then lost it)
        view = pipeline.retriever.sync()
        pipeline.retriever.check_view(view)
    except RagloomError as exc:
        problem = _checks_beside(pipeline) if _held_elsewhere(exc) else str(exc)
    problem = problem or unreadable
    pipeline.stores.open()  # a store whose open failed is tried again (and says why)
    where = pipeline.stores.locations()
    stores = tuple(_store_status(pipeline, name, store, where) for name, store in pipeline.stores)
    if problem is None and run != "running":
        failed = next((s for s in stores if s.error and not s.held), None)
        if failed is not None:
            problem = f"store {failed.name!r}: {failed.error}"
    return IndexStatus(
        index_dir=str(state.index_dir),
        exists=exists,
        version=version,
        committed_at=float(at) if isinstance(at, (int, float)) else None,
        written_by=str(writer.get("ragloom")) if stamped else None,
        documents=documents,
        chunks=chunks,
        embedder=describe_fingerprint(meta["embedder"]) if meta.get("embedder") else None,
        stores=stores,
        run=run,
        run_pid=pid,
        rebuilding=float(meta["rebuilding"]) if meta.get("rebuilding") is not None else None,
        ready=problem is None,
        problem=problem,
        next_run=_next_run(pipeline, meta, documents, run),
        last_run=_last_run(meta.get("last_run")),
        held=tuple(s.name for s in stores if s.held),
    )


def _held_elsewhere(exc: BaseException) -> bool:
    """Whether ``exc`` says that another process holds a store (see the module
    docstring)."""
    return isinstance(exc, BlockingIOError)


def _checks_beside(pipeline: Pipeline) -> str | None:
    """What a query would be told, with a store another process holds (so
    the pipeline cannot open its stores): the checks of the ledger's view
    that need no store, or None. Those that count a store's chunks stop at
    the store not open, which is not checked."""
    try:
        pipeline.retriever.check_view(pipeline.state.load_view())
    except StoreError:  # counting the store another process holds
        return None
    except RagloomError as exc:
        return str(exc)
    return None


def _read_ledger(pipeline: Pipeline) -> tuple[dict[str, Any] | None, int, int]:
    """The ledger's meta, documents and chunks, read in one transaction
    (None: no ledger)."""
    state = pipeline.state
    if not state.ledger_path.exists():
        return None, 0, 0
    ledger = Ledger(state.ledger_path).open(read_only=True)
    db = ledger.db
    try:
        db.execute("BEGIN")
        rows = db.execute("SELECT key, value FROM meta").fetchall()
        documents = int(db.execute("SELECT count(*) FROM documents").fetchone()[0])
        chunks = _chunk_total(db)
        db.execute("COMMIT")
        meta = {key: json.loads(value) for key, value in rows}
    except (sqlite3.DatabaseError, ValueError) as exc:
        raise ledger_error(state.ledger_path, exc) from None
    finally:
        ledger.close()
    return meta, documents, chunks


def _store_status(
    pipeline: Pipeline, name: str, store: Store, where: dict[str, str]
) -> StoreStatus:
    failed: Exception | None = pipeline.stores.error(name)
    held: int | None = None
    if failed is None:
        try:
            with pipeline.state.lock.read():
                held = int(store.count())
        except Exception as exc:
            failed = exc
    return StoreStatus(
        name=name,
        type=store_kind(store),
        location=where.get(name),
        chunks=held,
        exact=bool(store.exact_count),
        error=None if failed is None else str(failed) or type(failed).__name__,
        held=failed is not None and _held_elsewhere(failed),
    )


def _next_run(
    pipeline: Pipeline,
    meta: dict[str, Any],
    documents: int,
    run: str | None,
) -> tuple[str, ...]:
    """What the next plain ``ragloom index`` does beyond indexing changes."""
    said: list[str] = []
    if meta.get("rebuilding") is not None and run != "running":
        said.append("complete the `--rebuild` that did not end: every document indexed again")
    elif run == "stopped":
        said.append("delete what the stopped run wrote that no document owns, then go on")
    stored_chunker = meta.get("chunker")
    if documents and stored_chunker is not None:
        current = pipeline.chunker.fingerprint()
        if not fingerprints_match(stored_chunker, current, pipeline.chunker):
            said.append("chunk every document again: the config's chunker differs from the index's")
    return tuple(said)
