"""Caches: embeddings by (embedder fingerprint, text), answers by everything
that decides them.

Both are SQLite files, safe for several processes (WAL, busy timeout).

The embedding cache is shared across indexes by default
(``$RAGLOOM_CACHE_DIR``, else ``~/.cache/ragloom``): re-indexing an
unchanged corpus from scratch, or indexing the same text twice, embeds
nothing. A vector is only ever reused under the same embedder fingerprint
(backend, model, dimension, prefixes, normalisation), so vector spaces never
mix.
Each vector keeps when it was last written or read (to the day: a read
rewrites it at most once a day), so ``ragloom cache prune`` can drop what
no index has used for a while, or the least recently used down to a size.

The answer cache is opt-in and lives in the index directory (created
readable by its owner only). Its key is the normalised question, the corpus
version and the ledger's ``index_id``, the filters, the principals, ``k`` and
a hash of the pipeline's config, so an answer is never served across a
re-index or a rebuilt ledger, to another principal, or from another
configuration. Each cache serialises its threads' use of its connection.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import RagloomError
from .types import Answer, Chunk, Citation, Hit

if TYPE_CHECKING:
    import numpy as np

    from .settings import CacheSettings

__all__ = [
    "AnswerCache",
    "CacheInfo",
    "EmbeddingCache",
    "PruneReport",
    "default_cache_dir",
    "fingerprint_key",
]

TOUCH_EVERY = 86_400.0
"""Seconds: a read rewrites a vector's last use only when it is older than this."""


def default_cache_dir() -> Path:
    """``$RAGLOOM_CACHE_DIR``, else ``$XDG_CACHE_HOME/ragloom``, else ``~/.cache/ragloom``."""
    explicit = os.environ.get("RAGLOOM_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ragloom"


def fingerprint_key(fingerprint: Any) -> str:
    """A short stable key for a JSON-able fingerprint."""
    blob = json.dumps(fingerprint, sort_keys=True, default=str).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:32]


def _connect(path: Path, *, private: bool = False) -> sqlite3.Connection:
    """A connection shared by the threads of one process (callers hold their
    cache's lock around each use). The file is created readable by its owner
    only: vectors say much of the texts they embed, and answers to
    access-controlled questions are not for everyone. ``private``: its
    folder too, as the index directory is."""
    from .ledger import ensure_index_dir, private_file

    if private:
        ensure_index_dir(path.parent)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    private_file(path)
    db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    return db


@dataclass(frozen=True)
class CacheInfo:
    """What an embedding cache file holds: its entries, its bytes on disk (with
    the write-ahead log), and the oldest and latest last use (Unix time; None
    when empty); ``by_embedder`` counts the entries of each embedder
    fingerprint key."""

    path: Path
    entries: int
    bytes: int
    oldest_use: float | None
    latest_use: float | None
    by_embedder: Mapping[str, int]


@dataclass(frozen=True)
class PruneReport:
    """A prune: the entries and bytes before and after (``dry_run``: what
    would be left)."""

    entries_before: int
    entries_removed: int
    bytes_before: int
    bytes_after: int
    dry_run: bool


class EmbeddingCache:
    """Vectors by (embedder fingerprint, SHA-256 of the text), each with its
    last use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.hits = 0
        self.misses = 0
        self._db: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self._tracks_use = True

    @classmethod
    def configured(cls, settings: CacheSettings, base_dir: Path) -> EmbeddingCache | None:
        """The cache ``cache:`` asks for (None when ``embeddings: false``)."""
        if not settings.embeddings:
            return None
        if settings.path:
            return cls(base_dir / Path(settings.path).expanduser())
        return cls(default_cache_dir() / "embeddings.sqlite")

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            try:
                db = _connect(self.path)
                db.execute(
                    "CREATE TABLE IF NOT EXISTS vectors (fingerprint TEXT NOT NULL, "
                    "text_hash TEXT NOT NULL, vector BLOB NOT NULL, "
                    "used REAL NOT NULL DEFAULT 0, "
                    "PRIMARY KEY (fingerprint, text_hash)) WITHOUT ROWID"
                )
                self._tracks_use = _add_use_column(db)
            except (OSError, sqlite3.Error) as exc:  # a file where its folder goes, read-only
                reason = getattr(exc, "strerror", None) or str(exc)
                raise RagloomError(
                    f"the embedding cache {self.path} cannot be opened ({reason}): point "
                    "RAGLOOM_CACHE_DIR or the config's `cache.path` at a folder this user "
                    "can write, or set `cache: {embeddings: false}`"
                ) from exc
            self._db = db
        return self._db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    @staticmethod
    def text_hash(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def get_many(self, fingerprint: str, hashes: Sequence[str], dim: int) -> dict[str, np.ndarray]:
        import numpy as np

        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 500):  # SQLite's variable limit
            part = unique[start : start + 500]
            marks = ",".join("?" * len(part))
            with self._lock:
                db = self.db  # opened first: it says whether the file keeps last uses
                used = "used" if self._tracks_use else "0"
                rows = db.execute(
                    f"SELECT text_hash, vector, {used} FROM vectors WHERE fingerprint = ? "
                    f"AND text_hash IN ({marks})",
                    (fingerprint, *part),
                ).fetchall()
            stale = time.time() - TOUCH_EVERY
            for text_hash, blob, _ in rows:
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape[0] == dim:
                    found[text_hash] = vector
            self._touch(fingerprint, [h for h, _, when in rows if when < stale])
        return found

    def _touch(self, fingerprint: str, hashes: Sequence[str]) -> None:
        """Mark ``hashes`` used now (those read whose last use is a day old or
        more: a read writes nothing otherwise). A cache this process cannot
        write (a read-only file) keeps the old times: reading never fails for
        that."""
        if not hashes or not self._tracks_use:
            return
        marks = ",".join("?" * len(hashes))
        # read-only, or locked past the timeout: the old times stay
        with self._lock, contextlib.suppress(sqlite3.OperationalError):
            self.db.execute(
                f"UPDATE vectors SET used = ? WHERE fingerprint = ? AND text_hash IN ({marks})",
                (time.time(), fingerprint, *hashes),
            )

    def put_many(self, fingerprint: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        import numpy as np

        now = time.time()
        rows = [
            (fingerprint, h, np.ascontiguousarray(v, dtype=np.float32).tobytes(), now)
            for h, v in items
        ]
        if rows:
            with self._lock, self.db:
                self.db.execute("BEGIN")
                self.db.executemany(
                    "INSERT OR REPLACE INTO vectors (fingerprint, text_hash, vector, used) "
                    "VALUES (?, ?, ?, ?)",
                    rows,
                )

    # -- upkeep ------------------------------------------------------------
    def _bytes(self) -> int:
        return sum(
            p.stat().st_size
            for p in (self.path, self.path.with_name(self.path.name + "-wal"))
            if p.exists()
        )

    def info(self) -> CacheInfo:
        """What the file holds (an absent file holds nothing; it is not created)."""
        if not self.path.exists():
            return CacheInfo(self.path, 0, 0, None, None, {})
        with self._lock:
            entries, oldest, latest = self.db.execute(
                "SELECT count(*), min(used), max(used) FROM vectors"
            ).fetchone()
            by = dict(
                self.db.execute(
                    "SELECT fingerprint, count(*) FROM vectors GROUP BY fingerprint "
                    "ORDER BY count(*) DESC"
                ).fetchall()
            )
        return CacheInfo(self.path, entries, self._bytes(), oldest, latest, by)

    def prune(
        self,
        *,
        older_than: float | None = None,
        max_bytes: int | None = None,
        dry_run: bool = False,
    ) -> PruneReport:
        """Drop the vectors last used more than ``older_than`` seconds ago,
        then the least recently used until the file would hold at most
        ``max_bytes`` (at its mean bytes an entry); the file is then compacted
        (``VACUUM``). Nothing is lost but the time to embed those texts again;
        an index run at the same time waits for the lock, as for any write."""
        if older_than is None and max_bytes is None:
            raise ValueError("say what to prune: older_than, max_bytes or both")
        info = self.info()
        if not info.entries:
            return PruneReport(0, 0, info.bytes, info.bytes, dry_run)
        with self._lock:
            db = self.db
            doomed = 0
            if older_than is not None:
                cutoff = time.time() - older_than
                doomed = db.execute(
                    "SELECT count(*) FROM vectors WHERE used < ?", (cutoff,)
                ).fetchone()[0]
            if max_bytes is not None:
                per_entry = info.bytes / info.entries
                keep = int(max_bytes // per_entry) if per_entry else info.entries
                doomed = max(doomed, info.entries - keep)
            doomed = min(doomed, info.entries)
            if dry_run or not doomed:
                left = info.bytes - int(doomed * info.bytes / info.entries)
                return PruneReport(info.entries, doomed, info.bytes, left, dry_run)
            with db:
                db.execute("BEGIN IMMEDIATE")
                db.execute(
                    "DELETE FROM vectors WHERE (fingerprint, text_hash) IN (SELECT "
                    "fingerprint, text_hash FROM vectors ORDER BY used, fingerprint, "
                    "text_hash LIMIT ?)",
                    (doomed,),
                )
            db.execute("VACUUM")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return PruneReport(info.entries, doomed, info.bytes, self._bytes(), False)


def _add_use_column(db: sqlite3.Connection) -> bool:
    """Give a cache written before vectors kept their last use a ``used``
    column, each entry's last use set to now (so none looks long unused on
    the day it is first kept). False when the file cannot be written."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(vectors)")}
    if "used" in columns:
        return True
    try:
        db.execute(f"ALTER TABLE vectors ADD COLUMN used REAL NOT NULL DEFAULT {time.time():.0f}")
    except sqlite3.OperationalError:  # read-only, or another process added it first
        return "used" in {row[1] for row in db.execute("PRAGMA table_info(vectors)")}
    return True


def normalise_question(question: str) -> str:
    """Case, Unicode form and whitespace folded; punctuation at the end dropped."""
    text = unicodedata.normalize("NFKC", question).casefold()
    return " ".join(text.split()).rstrip(" ?!.")


class AnswerCache:
    """Answers by everything that decides them; TTL and a size bound (LRU)."""

    def __init__(self, path: Path, *, ttl: float, max_entries: int) -> None:
        self.path = path
        self.ttl = ttl
        self.max_entries = max_entries
        self._db: sqlite3.Connection | None = None
        self._lock = threading.RLock()

    @classmethod
    def configured(cls, settings: CacheSettings, index_dir: Path) -> AnswerCache | None:
        """The cache ``cache:`` asks for (None unless ``answers: true``)."""
        if not settings.answers:
            return None
        return cls(
            index_dir / "answers.sqlite",
            ttl=settings.answer_ttl,
            max_entries=settings.answer_max_entries,
        )

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = _connect(self.path, private=True)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer TEXT NOT NULL, "
                "created REAL NOT NULL, used REAL NOT NULL)"
            )
        return self._db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    @staticmethod
    def key(
        *,
        question: str,
        corpus_version: int,
        index_id: str = "",
        filters: Any,
        principals: Sequence[str] | None,
        k: int | None,
        config_hash: str,
    ) -> str:
        parts = {
            "q": normalise_question(question),
            "v": corpus_version,
            "i": index_id,
            "f": filters,
            "p": sorted(principals) if principals is not None else None,
            "k": k,
            "c": config_hash,
        }
        return fingerprint_key(parts)

    def get(self, key: str) -> Answer | None:
        with self._lock:
            row = self.db.execute(
                "SELECT answer, created FROM answers WHERE key = ?", (key,)
            ).fetchone()
            if row is None:
                return None
            if time.time() - row[1] > self.ttl:
                self.db.execute("DELETE FROM answers WHERE key = ?", (key,))
                return None
            self.db.execute("UPDATE answers SET used = ? WHERE key = ?", (time.time(), key))
        return _answer_from_json(json.loads(row[0]))

    def put(self, key: str, answer: Answer) -> None:
        now = time.time()
        with self._lock, self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?)",
                (key, json.dumps(_answer_to_json(answer)), now, now),
            )
            self.db.execute("DELETE FROM answers WHERE created < ?", (now - self.ttl,))
            self.db.execute(
                "DELETE FROM answers WHERE key IN (SELECT key FROM answers "
                "ORDER BY used DESC LIMIT -1 OFFSET ?)",
                (self.max_entries,),
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self.db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])


def _answer_to_json(answer: Answer) -> dict[str, Any]:
    return {
        "question": answer.question,
        "text": answer.text,
        "citations": [asdict(c) for c in answer.citations],
        "hits": [
            {"chunk": asdict(h.chunk), "score": h.score, "store": h.store, "scores": dict(h.scores)}
            for h in answer.hits
        ],
        "grounded": answer.grounded,
        "degraded": answer.degraded,
        "metadata": dict(answer.metadata),
    }


def _answer_from_json(data: Mapping[str, Any]) -> Answer:
    return Answer(
        question=data["question"],
        text=data["text"],
        citations=tuple(Citation(**c) for c in data["citations"]),
        hits=tuple(
            Hit(Chunk(**h["chunk"]), h["score"], h["store"], h["scores"]) for h in data["hits"]
        ),
        grounded=data["grounded"],
        degraded=data["degraded"],
        metadata={**data["metadata"], "cached": True},
    )
