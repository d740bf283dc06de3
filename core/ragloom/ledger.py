"""The index ledger: what is indexed, under which fingerprints, at which version.

A SQLite file in the index directory. Per document: source, content hash and
chunk ids; globally: the chunker and embedder fingerprints the index was
built with, and a corpus version that every successful index run bumps. The
pipeline writes a document's row only after every store holds its chunks, so
a crash leaves at worst a document that the next run redoes.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import IndexStateError

__all__ = ["Journal", "Ledger", "LedgerEntry", "index_lock"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    chunk_ids TEXT NOT NULL,
    indexed_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass(frozen=True)
class LedgerEntry:
    id: str
    source: str
    content_hash: str
    chunk_ids: tuple[str, ...]


class Ledger:
    """Per-document index state in ``<index_dir>/ledger.sqlite``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None

    def open(self) -> Ledger:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        return self

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
        rows = self.db.execute("SELECT id, source, content_hash, chunk_ids FROM documents")
        return {r[0]: LedgerEntry(r[0], r[1], r[2], tuple(json.loads(r[3]))) for r in rows}

    def put(self, doc_id: str, source: str, content_hash: str, chunk_ids: Sequence[str]) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO documents VALUES (?, ?, ?, ?, ?)",
            (doc_id, source, content_hash, json.dumps(list(chunk_ids)), time.time()),
        )

    def remove(self, doc_id: str) -> None:
        self.db.execute("DELETE FROM documents WHERE id = ?", (doc_id,))

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

    def bump_version(self) -> int:
        version = self.corpus_version + 1
        self.set_meta("corpus_version", version)
        return version

    def clear(self) -> None:
        self.db.execute("DELETE FROM documents")
        self.db.execute("DELETE FROM meta WHERE key != 'corpus_version'")


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
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(list(ids)) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def pending(self) -> set[str]:
        """Every id recorded since the last ``clear()``; a torn last line is ignored."""
        found: set[str] = set()
        try:
            text = self.path.read_text("utf-8")
        except FileNotFoundError:
            return found
        for line in text.splitlines():
            try:
                found.update(json.loads(line))
            except ValueError:
                continue  # the run died while writing this line: its ids never reached a store
        return found

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)


@contextmanager
def index_lock(index_dir: Path) -> Iterator[None]:
    """Hold ``<index_dir>/index.lock`` for one index run; a second run fails clearly."""
    import fcntl

    index_dir.mkdir(parents=True, exist_ok=True)
    path = index_dir / "index.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise IndexStateError(
                f"another `ragloom index` run holds {path}; wait for it to finish "
                "(the lock is released when that process exits)"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        os.close(fd)
