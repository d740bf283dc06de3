"""The committed state of an index directory, as queries see it.

An index run (``indexing.py``) writes a document's chunks to every store
before the ledger commits the document, and deletes replaced chunks after
the commit; another process may commit a run at any moment. So a store may
hold, for a while, chunks that no committed document owns. A query answers
from one committed corpus version all the same:

- :class:`View` is a snapshot of the ledger at one version: for each
  document, the stamp its committed chunk ids carry. A hit whose chunk is not
  the committed version of its document is never shown (``View.visible``).
- :class:`IndexState` holds the pipeline's current view and notices, cheaply
  (a ``stat`` and SQLite's ``PRAGMA data_version``), when another process has
  committed; the pipeline then refreshes its stores and loads the new view
  before it answers.
- :class:`RWLock` orders the calls into the stores of one process: queries
  share it; every store write (upsert, delete, flush, refresh) and every
  switch of view takes it alone. A query therefore sees the stores between
  two writes, holding at least every chunk of the version it pinned.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import IndexStateError
from .ledger import LEDGER_FILE, Ledger, ledger_error, read_only_mount, stamp_of, stamped

__all__ = ["IndexState", "RWLock", "View"]

log = logging.getLogger("ragloom")


@dataclass(frozen=True)
class View:
    """The committed index at one corpus version."""

    index_id: str = ""
    version: int = 0
    stamps: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Document id -> the stamp of its committed chunks."""
    embedder: Any = None
    """The embedder fingerprint the index was built with (None: not recorded)."""
    exists: bool = False
    """Whether a ledger exists: False before the first index run."""
    stores: Mapping[str, str] | None = None
    """Each store's name and type at the last index run (None: not recorded)."""
    locations: Mapping[str, str] | None = None
    """Each store's ``location`` that the last index run wrote (or repaired)."""
    rebuilding: float | None = None
    """When a rebuild that has not committed its documents yet started (it
    runs, or it was killed): the ledger is empty until one commits."""
    commit: str = ""
    """A random id of the commit that made this version (empty in a ledger
    written before there were any): one version number may be reached twice
    with other documents (a ledger restored from a backup), never one commit."""
    stamped: bool = True
    """Whether this version's commit was made by a ragloom that stamps its
    commits (``ledger.stamped``): False when an older one made it, whose
    rules may have let in documents this one leaves out (secrets)."""
    stamp_seen: bool = False
    """Whether a ragloom that stamps its commits ever wrote this ledger."""

    @property
    def key(self) -> tuple[str, int]:
        return (self.index_id, self.version)

    def visible(self, document_id: str, chunk_id: str) -> bool:
        """Whether the chunk is the committed version of its document."""
        stamp = self.stamps.get(document_id)
        return stamp is not None and stamp == stamp_of(chunk_id)

    @property
    def chunk_count(self) -> int:
        return len(self.stamps)


class RWLock:
    """Many readers or one writer; a waiting writer holds new readers back.

    Reentrant for readers (a thread that holds it for reading may take it
    again); a thread must not ask to write while it reads.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer: int | None = None
        self._waiting = 0
        self._local = threading.local()

    @contextmanager
    def read(self) -> Iterator[None]:
        depth = getattr(self._local, "depth", 0)
        me = threading.get_ident()
        if depth == 0 and self._writer != me:
            with self._cond:
                while self._writer is not None or self._waiting:
                    self._cond.wait()
                self._readers += 1
        self._local.depth = depth + 1
        try:
            yield
        finally:
            self._local.depth = depth
            if depth == 0 and self._writer != me:
                with self._cond:
                    self._readers -= 1
                    if not self._readers:
                        self._cond.notify_all()

    @contextmanager
    def write(self) -> Iterator[None]:
        me = threading.get_ident()
        if self._writer == me:  # nested: already exclusive
            yield
            return
        if getattr(self._local, "depth", 0):
            raise RuntimeError("a thread that reads the stores cannot also write them")
        with self._cond:
            self._waiting += 1
            try:
                while self._writer is not None or self._readers:
                    self._cond.wait()
            finally:
                self._waiting -= 1
            self._writer = me
        try:
            yield
        finally:
            with self._cond:
                self._writer = None
                self._cond.notify_all()


class IndexState:
    """The index directory of one pipeline: its current view, the lock that
    orders store calls, and a cheap check for commits by other processes."""

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = index_dir
        self.ledger_path = index_dir / LEDGER_FILE
        self.lock = RWLock()
        self._view: View | None = None
        self._watch: sqlite3.Connection | None = None
        self._watch_inode: tuple[int, int] | None = None
        self._data_version: int | None = None
        self._watch_lock = threading.Lock()
        self._frozen: tuple[Any, ...] | None = None
        """For a watch opened read-only (a read-only mount): the ledger's and
        its ``-wal`` file's size and time then. SQLite does not see another
        process write the file through another path (a bind mount), so
        these say it."""
        self._gone_said = False

    @property
    def view(self) -> View:
        """The view queries answer from (loaded on first use)."""
        view = self._view
        if view is None:
            view = self._view = self.load_view()
        return view

    @property
    def held(self) -> View | None:
        """The view queries answer from, None before one is loaded."""
        return self._view

    def set_view(self, view: View) -> None:
        """Switch to ``view``; call with ``lock.write()`` held."""
        self._view = view

    def forget(self) -> None:
        """Drop the view and the watch (the pipeline is closing)."""
        with self._watch_lock:
            if self._watch is not None:
                self._watch.close()
            self._watch = None
            self._watch_inode = None
            self._data_version = None
        self._view = None

    @property
    def read_only(self) -> bool:
        """Whether the index lies on a read-only file system: its ledger is
        read as it is, without the files SQLite would write beside it."""
        return read_only_mount(self.index_dir)

    # -- reading the ledger -------------------------------------------------
    def load_view(self) -> View:
        """The ledger's committed state, read in one transaction."""
        if not self.ledger_path.exists():
            return View()
        # migrates an older ledger in place; on a read-only mount, reads it as it is
        ledger = Ledger(self.ledger_path).open(read_only=self.read_only)
        db = ledger.db
        try:
            db.execute("BEGIN")
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            stamps = dict(db.execute("SELECT id, stamp FROM documents").fetchall())
            db.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            raise ledger_error(self.ledger_path, exc) from None
        finally:
            ledger.close()

        def value(key: str) -> Any:
            return json.loads(meta[key]) if key in meta else None

        return View(
            index_id=str(value("index_id") or ""),
            version=int(value("corpus_version") or 0),
            stamps=stamps,
            embedder=value("embedder"),
            exists=True,
            stores=stores if isinstance(stores := value("stores"), dict) else None,
            locations=where if isinstance(where := value("locations"), dict) else None,
            rebuilding=value("rebuilding"),
            commit=str(value("commit") or ""),
            stamped=stamped(value("writer"), value("commit"), value("corpus_version")),
            stamp_seen=value("writer") is not None,
        )

    def chunk_total(self, view: View) -> int | None:
        """How many chunks the ledger lists at ``view``'s version (None when
        the ledger is at another one now: the next query moves to it)."""
        if not self.ledger_path.exists():
            return None
        ledger = Ledger(self.ledger_path).open(read_only=self.read_only)
        db = ledger.db
        try:
            db.execute("BEGIN")
            meta = dict(
                db.execute(
                    "SELECT key, value FROM meta WHERE key IN ('index_id', 'corpus_version')"
                ).fetchall()
            )
            key = (
                str(json.loads(meta["index_id"])) if "index_id" in meta else "",
                int(json.loads(meta["corpus_version"])) if "corpus_version" in meta else 0,
            )
            total = None
            if key == view.key:
                total = _chunk_total(db)
            db.execute("COMMIT")
        except (sqlite3.DatabaseError, ValueError) as exc:
            raise ledger_error(self.ledger_path, exc) from None
        finally:
            ledger.close()
        return total

    def _signature(self, info: os.stat_result) -> tuple[Any, ...]:
        try:
            wal = os.stat(f"{self.ledger_path}-wal")
            written: tuple[int, int] | None = (wal.st_mtime_ns, wal.st_size)
        except OSError:
            written = None
        return (info.st_mtime_ns, info.st_size, written)

    def _connect_watch(self, info: os.stat_result) -> sqlite3.Connection:
        self._frozen = None
        if self.read_only:  # SQLite sees no write there: the files' times and sizes do
            self._frozen = self._signature(info)
            return Ledger(self.ledger_path).open(read_only=True).db
        return sqlite3.connect(
            self.ledger_path, isolation_level=None, check_same_thread=False, timeout=30
        )

    def changed(self) -> bool:
        """Whether the ledger on disk may be at another version than the view
        (another process committed, or the ledger was replaced). Cheap: a
        ``stat`` and ``PRAGMA data_version``; True errs on the side of a reload."""
        view = self._view
        if view is None:
            return True
        try:
            info = os.stat(self.ledger_path)
        except FileNotFoundError:
            if view.exists and not self._gone_said:
                # an unmounted volume, a folder moved away: answering nothing
                # would lose every document; the version held stays until a
                # ledger is back (a new index, or the same one)
                self._gone_said = True
                log.warning(
                    "the index ledger %s is gone (an unmounted volume, a moved folder?): "
                    "queries answer from corpus version %d until it is back",
                    self.ledger_path,
                    view.version,
                )
            return False
        self._gone_said = False
        inode = (info.st_dev, info.st_ino)
        with self._watch_lock:
            if self._frozen is not None and self._signature(info) != self._frozen:
                self._watch_inode = None  # written through another path: read it anew
            if self._watch is None or inode != self._watch_inode:
                if self._watch is not None:
                    self._watch.close()
                self._watch = None
                try:
                    self._watch = self._connect_watch(info)
                except (sqlite3.Error, IndexStateError):
                    return True  # the reload says what is wrong
                self._watch_inode = inode
                self._data_version = None
            try:
                data_version = int(self._watch.execute("PRAGMA data_version").fetchone()[0])
                if data_version == self._data_version:
                    return False
                row = self._watch.execute(
                    "SELECT (SELECT value FROM meta WHERE key = 'index_id'), "
                    "(SELECT value FROM meta WHERE key = 'corpus_version')"
                ).fetchone()
            except sqlite3.DatabaseError:
                return True  # a damaged ledger: the reload says what to do
            index_id = json.loads(row[0]) if row[0] else ""
            version = int(json.loads(row[1])) if row[1] else 0
            if view.exists and (index_id, version) == view.key:
                self._data_version = data_version  # nothing new until it moves again
                return False
            return True


def _chunk_total(db: sqlite3.Connection) -> int:
    """How many chunk ids the ledger's documents list: counted by SQLite's
    JSON functions (24 ms for 45,000 documents, against 150 ms parsing each
    list here), else here."""
    try:
        return int(
            db.execute(
                "SELECT coalesce(sum(json_array_length(chunk_ids)), 0) FROM documents"
            ).fetchone()[0]
        )
    except sqlite3.OperationalError:  # an SQLite built without JSON
        return sum(len(json.loads(ids)) for (ids,) in db.execute("SELECT chunk_ids FROM documents"))
