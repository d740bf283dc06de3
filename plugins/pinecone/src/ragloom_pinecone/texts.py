"""Chunk texts kept in the index folder (``store_text: none``): ``texts.sqlite``."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from ragloom.errors import StoreError

__all__ = ["TextFile"]

FILE_NAME = "texts.sqlite"


class TextFile:
    """``chunk id -> text`` in a SQLite file; safe to read from several threads."""

    def __init__(self, folder: Path, *, fresh: bool) -> None:
        self.path = folder / FILE_NAME
        folder.mkdir(parents=True, exist_ok=True)
        if fresh:
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("CREATE TABLE IF NOT EXISTS texts (id TEXT PRIMARY KEY, text TEXT)")
            self._db.execute("SELECT count(*) FROM texts").fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"pinecone: {self.path} (the chunk texts of `store_text: none`) is damaged "
                f"({exc}); run `ragloom index --rebuild`"
            ) from exc

    def put(self, items: Iterable[tuple[str, str]]) -> None:
        with self._lock:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR REPLACE INTO texts (id, text) VALUES (?, ?)", items)
            self._db.execute("COMMIT")

    def get(self, ids: Sequence[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        with self._lock:
            for start in range(0, len(ids), 500):
                part = list(ids[start : start + 500])
                marks = ",".join("?" * len(part))
                rows = self._db.execute(f"SELECT id, text FROM texts WHERE id IN ({marks})", part)
                found.update(rows.fetchall())
        return found

    def delete(self, ids: Sequence[str]) -> None:
        with self._lock:
            self._db.execute("BEGIN")
            self._db.executemany("DELETE FROM texts WHERE id = ?", [(i,) for i in ids])
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()
