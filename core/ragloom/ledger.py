"""The index ledger: what is indexed, under which fingerprints, at which version.

A SQLite file in the index directory. Per document: source, state hash,
chunk ids, the stamp its chunk ids carry (``docs/a.md::0@<stamp>``) and the
loader that produced it; globally: the chunker and embedder fingerprints the
index was built with, a corpus version that every index run that changed
the stores bumps (added, changed, deleted or repaired anything; the first
run and a rebuild), and an ``index_id`` minted when the ledger is created (so a ledger
rebuilt from scratch never reuses an old ledger's versions).

The pipeline writes a document's row only after every store holds its
chunks, so a crash leaves at worst a document that the next run redoes. The
files of the index directory are created readable by their owner only: they
hold the documents' text and who may read them.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import IndexDamagedError, IndexDirError, IndexStateError

if TYPE_CHECKING:
    from .reads import Reuse

log = logging.getLogger("ragloom")

__all__ = [
    "Journal",
    "Ledger",
    "LedgerEntry",
    "ensure_index_dir",
    "aside_path",
    "cannot_write",
    "written",
    "index_lock",
    "ledger_error",
    "read_only_mount",
    "running_run",
    "not_a_database",
    "private_file",
    "use_wal",
    "utc_time",
]


def utc_time(seconds: float) -> str:
    """A time the ledger records (a rebuild's start, a run's end) as the
    messages and ``ragloom status`` say it: ``2026-12-06 21:16:43 UTC``."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(float(seconds)))


_BUSY_SECONDS = 30
"""How long a connection waits for another that holds the ledger."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    chunk_ids TEXT NOT NULL,
    indexed_at REAL NOT NULL,
    stamp TEXT NOT NULL DEFAULT '',
    loader TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_READS_TABLE = """
CREATE TABLE IF NOT EXISTS reads (
    loader TEXT NOT NULL,
    source TEXT NOT NULL,
    stamp TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    state TEXT NOT NULL,
    key TEXT NOT NULL,
    rules TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (loader, source)
);
CREATE INDEX IF NOT EXISTS reads_by_document ON reads (doc_id);
"""
_READS_SHAPE = [
    ("loader", 1),
    ("source", 2),
    ("stamp", 0),
    ("doc_id", 0),
    ("state", 0),
    ("key", 0),
    ("rules", 0),
]
"""The columns of table ``reads`` (``ragloom.reads``) in order, each with its
place in the primary key (0: none)."""
_COLUMNS = {"stamp": "TEXT NOT NULL DEFAULT ''", "loader": "TEXT NOT NULL DEFAULT ''"}
"""Columns added after the first release: migrated in place on open."""

LEDGER_FORMAT = 2
"""The ledger format this ragloom writes. 1: a ledger whose commits carry no
``writer`` meta (every ragloom before the stamp). 2: every commit stamps
meta ``writer`` ``{format, ragloom, commit, version, screening}`` with its own commit id
and corpus version, so a reader can tell that a ragloom without the stamp
(an older one, on a machine not yet upgraded) made the last commit, and a
writer that a newer ragloom wrote the index (:func:`check_writer`)."""

LEDGER_FILE = "ledger.sqlite"
JOURNAL_FILE = "journal.jsonl"
"""The journal of an index run (``Journal``): present while one writes, or
after one was killed."""


@dataclass(frozen=True)
class LedgerEntry:
    id: str
    source: str
    content_hash: str
    chunk_ids: tuple[str, ...]
    stamp: str = ""
    """The suffix every chunk id of this document version carries."""
    loader: str = ""
    """Key of the loader that produced the document ('' if recorded before loaders were)."""


SCREENING = 2
"""The screening rules this ragloom indexes by, stamped with each commit
(``writer["screening"]``): raised when a ragloom finds what earlier ones let
in (a secret they did not recognise). 1 (no key): every ragloom before
credentials named in words ("API key: ..."), Authorization headers and keys
with invisible characters were found. A version stamped under older rules
counts as an older ragloom's: its readers screen every hit until this one
indexes again."""


def stamped(writer: Any, commit: Any, version: Any) -> bool:
    """Whether the ledger's last commit (meta ``commit`` and ``corpus_version``)
    was made by a ragloom that stamps its commits (``writer`` is the ledger's
    meta of that name): False when an older ragloom committed last, whose
    rules (secrets, access labels) may have let in what this one leaves out.
    Both must match: the oldest versions move the corpus version but leave
    the commit id as they found it; and its screening rules must be this
    one's or newer (:data:`SCREENING`). A ledger no run committed yet (no
    version) is."""
    return not version or (
        isinstance(writer, dict)
        and writer.get("commit") == commit
        and writer.get("version") == version
        and _screening(writer) >= SCREENING
    )


def _screening(writer: dict[str, Any]) -> int:
    try:
        return int(writer.get("screening", 1))
    except (TypeError, ValueError):
        return 1


def check_writer(writer: Any, path: Path) -> None:
    """Refuse to write an index that a newer ragloom wrote (its ledger format
    is past :data:`LEDGER_FORMAT`): this one would write it by older rules."""
    if not isinstance(writer, dict):
        return
    try:
        found = int(writer.get("format", 0))
    except (TypeError, ValueError):
        return
    if found > LEDGER_FORMAT:
        raise IndexStateError(
            f"the index in {path} was last written by a newer ragloom "
            f"({writer.get('ragloom', '?')}, ledger format {found}; this ragloom writes "
            f"format {LEDGER_FORMAT}): upgrade ragloom on this machine too, or start the "
            "index afresh with this one by `ragloom index --rebuild`"
        )


def stamp_of(chunk_id: str) -> str:
    """The document-version stamp a chunk id ends with (``...@<stamp>``)."""
    return chunk_id.rpartition("@")[2]


def read_only_mount(path: Path) -> bool:
    """Whether ``path`` (an existing folder) lies on a file system mounted
    read-only here, so that this process cannot write it (another may, through
    another mount of the same files): False when that cannot be told."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # missing; no statvfs (Windows)
        return False


def ensure_index_dir(index_dir: Path) -> None:
    """Create ``index_dir`` (owner-only) or fail clearly when it is not a folder."""
    if index_dir.exists() and not index_dir.is_dir():
        raise IndexDirError(
            f"index_dir {index_dir} is a file, not a folder: point `index_dir:` in the "
            "config at a folder (it is created if missing)",
            index_dir,
        )
    try:
        index_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    except FileExistsError:  # a parent is a file
        raise IndexDirError(
            f"cannot create index_dir {index_dir}: a part of that path is a file", index_dir
        ) from None
    except OSError as exc:
        raise IndexDirError(
            f"cannot create index_dir {index_dir}: {exc.strerror or exc}; check the path "
            "and its permissions",
            index_dir,
        ) from None


def private_file(path: Path) -> None:
    """Create ``path`` readable and writable by its owner only, if missing."""
    if not path.exists():
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))


def use_wal(db: sqlite3.Connection, timeout: float) -> None:
    """Put ``db`` in write-ahead-log mode. While another connection creates
    the same new file (a server and a cron ``ragloom index`` starting at once,
    two threads of one process), SQLite answers this pragma "database is
    locked" at once, without waiting out the connection's busy timeout: it is
    tried again, for up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if not _busy(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(2 * pause, 0.05)


def _sqlite_code(exc: BaseException) -> int | None:
    """SQLite's primary result code of ``exc`` (Python 3.11+ says it; None
    before, and for what SQLite did not raise): read its text instead."""
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def _busy(exc: Exception) -> bool:
    """SQLite's "database is locked" (or "... table is locked"): another
    connection holds the file, which is not damaged."""
    code = _sqlite_code(exc)
    if code is not None:
        return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "is locked" in str(exc)


def not_a_database(exc: BaseException) -> bool:
    """SQLite's word for a file that is not (or no longer) a database: not
    one it cannot reach now (locked, read-only, a full disk)."""
    code = _sqlite_code(exc)
    if code is not None:
        return code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
    text = str(exc).lower()
    return isinstance(exc, sqlite3.DatabaseError) and (
        "not a database" in text or "malformed" in text
    )


def aside_path(path: Path) -> Path:
    """Where a file or folder that is not what ragloom expects at ``path`` is
    moved: ``<name>.damaged-<time>``, numbered on when an earlier one of the
    same second is there (it is kept)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.damaged-{stamp}")
    number = 1
    while target.exists():
        number += 1
        target = path.with_name(f"{path.name}.damaged-{stamp}-{number}")
    return target


def ledger_error(path: Path, exc: Exception) -> IndexStateError:
    """What SQLite's ``exc`` on the ledger ``path`` means, and what to do.
    Only a file that is not a readable ledger is damaged
    (``IndexDamagedError``, which ``--rebuild`` moves aside): a file another
    process holds, a read-only one, and a full or failing disk are not, and
    moving the ledger aside for them would lose a good index."""
    if _busy(exc):
        return IndexStateError(
            f"the index ledger {path} stayed locked for {_BUSY_SECONDS} s ({exc}): "
            "another process holds it (a `ragloom index` or a server on this index, "
            "a backup or sync tool?); try again once it lets go"
        )
    if any(p.is_dir() for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"))):
        # a folder where the ledger (or its log) goes: no ledger at all
        return IndexDamagedError(
            f"the index ledger {path} (or its -wal or -shm file) is a folder ({exc}): run "
            "`ragloom index --rebuild`, which moves it aside and indexes every document again"
        )
    if _unwritable(exc):  # a read-only folder or file: --rebuild could not help
        return IndexStateError(
            f"the index ledger {path} cannot be written ({exc}): ragloom writes in "
            f"{path.parent}, to query too; check that this user may write there "
            "(another owner, mode 0400; an index on a read-only mount is only read)"
        )
    trouble = _disk_trouble(exc)
    if trouble is not None:
        return IndexStateError(
            f"the index ledger {path} could not be {trouble} ({exc}); the ledger is "
            "not damaged: do not rebuild; free space or mend the volume, then run again"
        )
    return IndexDamagedError(
        f"the index ledger {path} is damaged ({exc}): run `ragloom index --rebuild`, "
        "which moves it aside and indexes every document again"
    )


def _disk_trouble(exc: Exception) -> str | None:
    """A full disk or an I/O error (SQLite's SQLITE_FULL, SQLITE_IOERR; the
    OS's ENOSPC, EIO), said as what could not be done: the file is not
    damaged, the volume under it failed."""
    primary = _sqlite_code(exc)
    text = str(exc).lower()
    errno_ = getattr(exc, "errno", None)
    if (
        primary == sqlite3.SQLITE_FULL
        or errno_ == errno.ENOSPC
        or "disk is full" in text
        or "no space left" in text
    ):
        return "written: the disk holding it is full"
    if primary == sqlite3.SQLITE_IOERR or errno_ == errno.EIO or "disk i/o error" in text:
        return (
            "read or written: a disk I/O error (a full disk, a failing device, a network "
            "mount that went away?)"
        )
    return None


_NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT})


def cannot_write(path: Path, exc: BaseException) -> IndexStateError | None:
    """What an index run says when ``path`` (its lock file, journal or
    ledger) cannot be written because its volume is full: the file named,
    and what to do. None for any other error (``exc`` is raised as it is)."""
    code = getattr(exc, "errno", None)
    if code in _NO_ROOM:
        said = exc.strerror or str(exc)  # type: ignore[attr-defined]
    elif isinstance(exc, sqlite3.Error) and (
        _sqlite_code(exc) == sqlite3.SQLITE_FULL or "disk is full" in str(exc).lower()
    ):
        said = str(exc)
    else:
        return None
    return IndexStateError(
        f"cannot write {path}: {said}; no room is left on the volume of {path.parent} "
        "(a full disk, or this user's quota). Nothing was committed half-way: free "
        "space there, then run `ragloom index` again"
    )


@contextmanager
def written(path: Path) -> Iterator[None]:
    """Writes to ``path`` (through a file object or ``os.write``, whose
    errors name no file) that fail say which file: a full volume as
    :func:`cannot_write`, any other OS error with ``path`` as its filename."""
    try:
        yield
    except OSError as exc:
        if (full := cannot_write(path, exc)) is not None:
            raise full from exc
        if exc.filename:
            raise
        raise type(exc)(exc.errno, exc.strerror, str(path)) from exc


def _unwritable(exc: Exception) -> bool:
    """SQLite's (or the OS's) way of saying the file or its folder is read-only."""
    if isinstance(exc, PermissionError):
        return True
    text = str(exc).lower()
    return any(
        said in text
        for said in (
            "readonly database",
            "read-only",
            "unable to open database file",
            "permission denied",
        )  # fmt: skip
    )


class Ledger:
    """Per-document index state in ``<index_dir>/ledger.sqlite``.

    ``open()`` raises ``IndexStateError`` naming the file and the fix when the
    file is not a readable ledger; ``Ledger.move_aside`` puts such a file out
    of the way (``--rebuild`` does).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None

    def open(self, *, read_only: bool = False) -> Ledger:
        """Open (creating, and migrating an older ledger in place); with
        ``read_only``, only read it as it is (see ``_open_read_only``)."""
        if read_only:
            return self._open_read_only()
        ensure_index_dir(self.path.parent)
        try:
            private_file(self.path)
        except PermissionError as exc:
            raise self._damaged(exc) from None
        try:
            db = sqlite3.connect(self.path, isolation_level=None, timeout=_BUSY_SECONDS)
        except sqlite3.Error as exc:
            raise self._damaged(exc) from None
        try:
            use_wal(db, _BUSY_SECONDS)
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA)
            self._migrate(db)
            if db.execute("SELECT 1 FROM meta WHERE key = 'index_id'").fetchone() is None:
                db.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('index_id', ?)",
                    (json.dumps(uuid.uuid4().hex),),
                )
        except sqlite3.DatabaseError as exc:
            db.close()
            raise self._damaged(exc) from None
        self._db = db
        return self

    def _open_read_only(self) -> Ledger:
        """The ledger of an index on a read-only file system (a container's
        read-only volume, a read-only mount): SQLite reads it as immutable,
        without the ``-shm`` file it could not create there; a process that
        writes the same files through another mount is noticed by
        ``IndexState.changed``, which then opens it anew. A ``-wal`` file
        left by a writer that did not close holds committed data that an
        immutable read would miss: it is read in plain read-only mode, which
        needs the ``-shm`` file beside it."""
        wal = Path(f"{self.path}-wal")
        try:
            pending = wal.stat().st_size > 0
        except OSError:
            pending = False
        query = "mode=ro" if pending else "immutable=1"
        try:
            db = sqlite3.connect(
                f"{self.path.absolute().as_uri()}?{query}",
                uri=True,
                isolation_level=None,
                check_same_thread=False,  # also the pipeline's watch, used under its lock
            )
        except sqlite3.Error as exc:
            raise self._read_only_error(exc, pending) from None
        try:
            have = {row[1] for row in db.execute("PRAGMA table_info(documents)")}
        except sqlite3.DatabaseError as exc:
            db.close()
            raise self._read_only_error(exc, pending) from None
        if not have or set(_COLUMNS) - have:
            db.close()
            raise IndexStateError(
                f"the index ledger {self.path} lies on a read-only file system and "
                + (
                    "holds no index"
                    if not have
                    else "was written by an older ragloom, whose ledger must be upgraded in place"
                )
                + ": run `ragloom index` where the index can be written, then mount it again"
            )
        self._db = db
        return self

    def _read_only_error(self, exc: Exception, pending: bool) -> IndexStateError:
        if pending:
            return IndexStateError(
                f"the index ledger {self.path} lies on a read-only file system with the "
                f"write-ahead log of a run that did not close ({self.path.name}-wal) and "
                f"no {self.path.name}-shm beside it, so SQLite cannot read it ({exc}): open "
                "the index once where it can be written (`ragloom index` or any query "
                "folds the log in), then copy or mount it again"
            )
        return self._damaged(exc)

    def _damaged(self, exc: Exception) -> IndexStateError:
        return ledger_error(self.path, exc)

    @staticmethod
    def _migrate(db: sqlite3.Connection) -> None:
        """Add the columns a ledger written by an earlier version lacks, and
        make afresh a ``reads`` table of another shape (only ever a reason not
        to read a file: dropping it costs one run that reads every file), in
        one write transaction (another process or thread may be opening it
        too)."""
        have = {row[1] for row in db.execute("PRAGMA table_info(documents)")}
        if not set(_COLUMNS) - have and Ledger._reads_fit(db) and Ledger._reads_indexed(db):
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            Ledger._add_columns(db)
            if not Ledger._reads_fit(db):
                if Ledger._reads_shape(db):
                    log.warning("the ledger's table of files read was not ragloom's: made afresh")
                db.execute("DROP TABLE IF EXISTS reads")
            for statement in _READS_TABLE.split(";"):  # IF NOT EXISTS: what is missing
                if statement.strip():
                    db.execute(statement)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @staticmethod
    def _reads_shape(db: sqlite3.Connection) -> list[tuple[str, int]]:
        """Table ``reads``'s columns, each with its place in the primary key."""
        return [(row[1], row[5]) for row in db.execute("PRAGMA table_info(reads)")]

    @staticmethod
    def _reads_fit(db: sqlite3.Connection) -> bool:
        """Whether table ``reads`` is this ragloom's: its columns first, with
        its primary key (a newer ragloom's may add columns after them)."""
        shape = Ledger._reads_shape(db)
        return shape[: len(_READS_SHAPE)] == _READS_SHAPE and all(
            pk == 0 for _, pk in shape[len(_READS_SHAPE) :]
        )

    @staticmethod
    def _reads_indexed(db: sqlite3.Connection) -> bool:
        """Whether table ``reads`` has its index by document."""
        return any(row[1] == "reads_by_document" for row in db.execute("PRAGMA index_list(reads)"))

    @staticmethod
    def _add_columns(db: sqlite3.Connection) -> None:
        have = {row[1] for row in db.execute("PRAGMA table_info(documents)")}
        for column, kind in _COLUMNS.items():
            if column not in have:
                db.execute(f"ALTER TABLE documents ADD COLUMN {column} {kind}")
                if column == "stamp":  # derived from the chunk ids already recorded
                    rows = db.execute("SELECT id, chunk_ids FROM documents").fetchall()
                    db.executemany(
                        "UPDATE documents SET stamp = ? WHERE id = ?",
                        [
                            (stamp_of(ids[0]) if ids else "", doc_id)
                            for doc_id, ids in ((r[0], json.loads(r[1])) for r in rows)
                        ],
                    )

    @staticmethod
    def move_aside(path: Path) -> Path | None:
        """Rename a damaged ledger (and its WAL files) to ``<name>.damaged-<time>``;
        returns the new path, or None when there was nothing to move."""
        if not path.exists():
            if not any(Path(f"{path}{x}").is_dir() for x in ("-wal", "-shm")):
                return None
            path.touch()  # a folder beside no ledger: moved aside with an empty one
        target = aside_path(path)
        os.replace(path, target)
        for suffix in ("-wal", "-shm"):
            beside = Path(f"{path}{suffix}")
            if beside.is_dir():  # no log SQLite wrote: kept, out of the way
                os.replace(beside, Path(f"{target}{suffix}"))
            else:
                beside.unlink(missing_ok=True)
        return target

    def close(self) -> None:
        """Close; an open transaction is rolled back."""
        if self._db is not None:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            self._db.close()
            self._db = None

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self.open()
        assert self._db is not None
        return self._db

    def begin(self) -> None:
        """Start the transaction that ``commit()`` makes durable all at once."""
        self.db.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self.db.execute("COMMIT")

    def entries(self) -> dict[str, LedgerEntry]:
        try:
            rows = self.db.execute(
                "SELECT id, source, content_hash, chunk_ids, stamp, loader FROM documents"
            ).fetchall()
            return {
                r[0]: LedgerEntry(r[0], r[1], r[2], tuple(json.loads(r[3])), r[4], r[5])
                for r in rows
            }
        except (sqlite3.DatabaseError, ValueError) as exc:
            raise self._damaged(exc) from None

    def put(
        self,
        doc_id: str,
        source: str,
        content_hash: str,
        chunk_ids: Sequence[str],
        *,
        stamp: str = "",
        loader: str = "",
    ) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO documents "
            "(id, source, content_hash, chunk_ids, indexed_at, stamp, loader) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (doc_id, source, content_hash, json.dumps(list(chunk_ids)), time.time(), stamp, loader),
        )

    def remove(self, doc_id: str) -> None:
        self.db.execute("DELETE FROM documents WHERE id = ?", (doc_id,))

    def reads(self) -> dict[tuple[str, str], Reuse]:
        """The files read before (``ragloom.reads``), by loader key and source.
        A row that cannot be read is passed over (its file is read, and its
        row written afresh); a table damaged on disk is a damaged ledger
        (IndexDamagedError: ``--rebuild`` moves it aside)."""
        from .reads import Reuse

        try:
            rows = self.db.execute(
                "SELECT loader, source, stamp, doc_id, state, key, rules FROM reads"
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None
        out: dict[tuple[str, str], Reuse] = {}
        for row in rows:
            if not all(isinstance(v, str) for v in row):
                continue
            try:
                rules = tuple(int(r) for r in json.loads(row[6]))
            except (TypeError, ValueError):
                continue
            out[(row[0], row[1])] = Reuse(*row[:6], rules)
        return out

    def check_reads(self) -> None:
        """Read table ``reads`` through: IndexDamagedError when the file is
        damaged there, so that ``--rebuild`` (which empties it, and reads no
        row) moves the ledger aside, as for a damaged ``documents`` table.
        Other runs find the damage reading its rows (``reads``)."""
        try:
            self.db.execute("SELECT count(*), sum(length(rules)) FROM reads").fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None

    def put_reads(
        self, rows: Sequence[Reuse], *, forget: Sequence[str] = (), loaders: Sequence[str] = ()
    ) -> None:
        """Record ``rows``, in the run's transaction, and drop the rows of the
        documents ``forget`` (deleted) and of loaders other than ``loaders``
        (the configured ones: a loader whose options changed has a new key).
        Where that fails but the disk is fine (a table another program
        changed since the ledger was opened), the run goes on without them,
        said in the log: rows are only ever a reason not to read a file, and
        the next run reads it."""
        try:
            self.db.executemany("DELETE FROM reads WHERE doc_id = ?", [(d,) for d in forget])
            if loaders:
                marks = ", ".join("?" * len(loaders))
                self.db.execute(f"DELETE FROM reads WHERE loader NOT IN ({marks})", list(loaders))
            self.db.executemany(
                "INSERT OR REPLACE INTO reads (loader, source, stamp, doc_id, state, key, rules) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (r.loader, r.source, r.stamp, r.doc_id, r.state, r.key, json.dumps(r.rules))
                    for r in rows
                ],
            )
        except sqlite3.DatabaseError as exc:
            if _disk_trouble(exc) or _busy(exc):
                raise
            log.warning("the ledger's table of files read could not be written (%s)", exc)

    def get_meta(self, key: str) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value, sort_keys=True))
        )

    @property
    def corpus_version(self) -> int:
        return int(self.get_meta("corpus_version") or 0)

    @property
    def index_id(self) -> str:
        return str(self.get_meta("index_id") or "")

    def bump_version(self, *, stamp: bool = True) -> int:
        """The next corpus version, with a new random ``commit`` id: a ledger
        restored from a backup counts its versions again from an older one,
        and what was cached under a number it reuses held other documents.
        ``stamp``: the commit is stamped as this ragloom's (:data:`LEDGER_FORMAT`);
        not by a run that screened only some documents of a version an older
        ragloom committed (the rest are still as it let them in)."""
        version = self.corpus_version + 1
        commit = os.urandom(8).hex()
        self.set_meta("corpus_version", version)
        self.set_meta("commit", commit)
        if stamp:
            self._stamp(commit, version)
        return version

    @property
    def stamped(self) -> bool:
        """Whether this ragloom, or one that stamps its commits, made the last
        commit (an empty ledger is)."""
        return stamped(self.get_meta("writer"), self.get_meta("commit"), self.corpus_version)

    def stamp(self) -> bool:
        """Stamp the current version as this ragloom's, when it is not: for an
        index run that found nothing to change after an older ragloom's commit,
        having screened every document again (a full run). A new commit id
        goes with it, so nothing cached under the older one's (answers it
        made) is taken for this one's. True when it stamped."""
        if self.stamped:
            return False
        commit = os.urandom(8).hex()
        self.set_meta("commit", commit)
        self._stamp(commit, self.corpus_version)
        return True

    def _stamp(self, commit: str, version: int) -> None:
        from . import __version__

        self.set_meta(
            "writer",
            {
                "format": LEDGER_FORMAT,
                "ragloom": __version__,
                "commit": commit,
                "version": version,
                "screening": SCREENING,
                "at": round(time.time(), 3),
            },
        )

    def delete_meta(self, key: str) -> None:
        self.db.execute("DELETE FROM meta WHERE key = ?", (key,))

    def clear(self, *, rebuilding: float | None = None, bump: bool = False) -> None:
        """Forget every document and the meta but the version and the index id,
        in one transaction; ``rebuilding`` (the time a rebuild started) is
        recorded with it as meta ``rebuilding``, which the rebuild's own commit
        (or, when it was killed, the next run's) removes. ``bump``: a new
        corpus version, which readers in other processes load."""
        self.begin()
        try:
            self.db.execute("DELETE FROM documents")
            self.db.execute("DELETE FROM reads")
            self.db.execute("DELETE FROM meta WHERE key NOT IN ('corpus_version', 'index_id')")
            if rebuilding is not None:
                self.set_meta("rebuilding", rebuilding)
            if bump:
                self.bump_version()
            else:  # the empty ledger is this ragloom's (its mark too): an older one's
                self.stamp()  # commit after it is told apart by its version
            self.commit()
        except BaseException:
            # SQLite has rolled back already after some errors (a full disk):
            # a second ROLLBACK would fail and hide the error that matters
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise


class Journal:
    """Chunk ids an index run is about to write or remove, made durable first.

    Before a store sees a chunk id (written or to be deleted), the id is
    appended here and fsync'ed. After a run that died, ``pending()`` minus the
    chunk ids the committed ledger lists are exactly the chunks no document
    owns: the next run deletes them from every store before anything else.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def record(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        with written(self.path):
            private_file(self.path)
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(list(ids)) + "\n")
                handle.flush()
                os.fsync(handle.fileno())

    def pending(self) -> set[str]:
        """Every id recorded since the last ``clear()``; a torn or garbled line is
        ignored (the run died while writing it: its ids never reached a store)."""
        found: set[str] = set()
        try:
            text = self.path.read_bytes().decode("utf-8", errors="replace")
        except FileNotFoundError:
            return found
        for line in text.splitlines():
            try:
                ids = json.loads(line)
            except ValueError:
                continue
            if isinstance(ids, list):
                found.update(i for i in ids if isinstance(i, str))
        return found

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)


_LOCK_GRACE = 1.0
"""How long a run waits for the index lock before it says another run holds
it: ``ragloom status`` takes the lock shared for an instant to see whether a
run holds it, and a run starting at that instant waits it out."""


def _acquire(fd: int) -> bool:
    """Take the index lock alone: False when a run holds it past the grace."""
    import fcntl

    deadline = time.monotonic() + _LOCK_GRACE
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)


def running_run(index_dir: Path) -> tuple[bool, int | None]:
    """Whether an index run holds ``index_dir``'s lock now, and the process id
    its lock file names (None when unreadable). Reads only: the lock is taken
    shared for an instant (a run starting then waits it out, ``_LOCK_GRACE``)."""
    import fcntl

    path = index_dir / "index.lock"
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # no lock file (no run yet), or one this user cannot read
        return False, None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            return True, int(pid) if pid.isdigit() else None
        except OSError:  # a file system without locks: nothing to tell
            return False, None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False, None
    finally:
        os.close(fd)


def _holder(path: Path) -> str:
    """`` (process N)``: the process that wrote the lock file, when readable."""
    try:
        pid = path.read_text().strip()
    except OSError:
        return ""
    return f" (process {pid})" if pid.isdigit() else ""


@contextmanager
def index_lock(index_dir: Path) -> Iterator[None]:
    """Hold ``<index_dir>/index.lock`` for one index run; a second run fails clearly."""

    if read_only_mount(index_dir):
        raise IndexStateError(
            f"index_dir {index_dir} lies on a read-only file system: an index run writes "
            "there. Index where it can be written, then mount or copy the index here; "
            "queries (search, ask, serve, mcp, eval) read it read-only (with stores that "
            "need no write to answer: not an embedded Qdrant, nor pgvector's embedded "
            "PostgreSQL)"
        )
    ensure_index_dir(index_dir)
    path = index_dir / "index.lock"
    try:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except IsADirectoryError:
            # no run's lock (a run locks a file): what a hand or a tool put there
            # is moved aside, as --rebuild does with any file that is not ragloom's
            aside = aside_path(path)
            if path.is_dir() and not path.is_symlink():  # not another run's new lock file
                with contextlib.suppress(FileNotFoundError, OSError):
                    os.rename(path, aside)
                    logging.getLogger("ragloom").warning(
                        "the index lock %s was a folder, not a lock file: moved aside to %s",
                        path,
                        aside,
                    )
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except PermissionError as exc:
        raise IndexStateError(
            f"cannot open the index lock {path} ({exc.strerror}): an index run writes in "
            f"{index_dir}; check that this user may write there"
        ) from None
    try:
        if not _acquire(fd):
            raise IndexStateError(
                f"another index run holds {path}{_holder(path)}; wait for it to finish "
                "(the lock is released when that run ends, or its process exits)"
            )
        with written(path):
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        os.close(fd)
