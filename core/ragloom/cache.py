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
rewrites it at most once a day), in a table beside the vectors, so
``ragloom cache prune`` can drop what no index has used for a while, or the
least recently used down to a size.

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
import logging
import math
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
from .ledger import _disk_trouble, _unwritable, aside_path, not_a_database
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

_VECTORS = (
    "CREATE TABLE IF NOT EXISTS {name} (fingerprint TEXT NOT NULL, text_hash TEXT NOT NULL, "
    "vector BLOB NOT NULL, PRIMARY KEY (fingerprint, text_hash))"
)
"""The vectors, in a table with row ids: a 1.5 KB vector overflowed the pages
of the WITHOUT ROWID table files written before (4.7 KB a 384-dimension
vector on disk, against 2.2 KB)."""

_BUSY_MS = 30_000
"""How long a connection waits for another process's lock."""

log = logging.getLogger("ragloom")

ROW_BYTES = 740
"""Bytes a vector's row costs on disk beside the vector itself, in the
compact layout with its last use and keys (a 384-dimension vector, 1,536
bytes, takes about 2.2 KB): what ``prune(max_bytes=...)`` counts."""

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
    from .ledger import ensure_index_dir, private_file, use_wal

    if private:
        ensure_index_dir(path.parent)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    private_file(path)
    db = sqlite3.connect(
        path, timeout=_BUSY_MS / 1000, isolation_level=None, check_same_thread=False
    )
    use_wal(db, _BUSY_MS / 1000)
    db.execute("PRAGMA synchronous=NORMAL")
    return db


def identity(path: Path) -> tuple[int, int] | None:
    """Which file ``path`` is now (device, inode); None when there is none."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def set_aside(
    path: Path, what: str, exc: BaseException, opened: tuple[int, int] | None = None
) -> None:
    """Move a damaged cache file (and its WAL files) to
    ``<name>.damaged-<time>``, saying so: a cache holds only what can be
    computed again, and a file SQLite cannot read must not stop an index run
    (or ``--rebuild``) or a query. ``opened``: the file that was found damaged;
    when ``path`` is another one now, another process set it aside first and
    started a new one, which stays."""
    if opened is not None and identity(path) != opened:
        return
    target = aside_path(path)
    try:
        os.replace(path, target)
    except FileNotFoundError:
        return
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    log.warning(
        "the %s %s is damaged (%s): moved aside to %s; a new one is started "
        "(what it held is computed again)",
        what,
        path,
        exc,
        target,
    )


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
    compact: bool = True
    """False for a file in the older layout (about twice the bytes a vector);
    any prune rewrites it."""


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
        self._opened: tuple[int, int] | None = None  # the file the connection is to
        self._lock = threading.RLock()
        self._tracks_use = True
        self._unwritable: str = ""  # why vectors are no longer put (said once)

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
                try:
                    db = self._open()
                except sqlite3.DatabaseError as exc:
                    if not not_a_database(exc):
                        raise
                    set_aside(self.path, "embedding cache", exc, self._opened)
                    db = self._open()
            except (OSError, sqlite3.Error) as exc:  # a file where its folder goes, read-only
                reason = getattr(exc, "strerror", None) or str(exc)
                raise RagloomError(
                    f"the embedding cache {self.path} cannot be opened ({reason}): point "
                    "RAGLOOM_CACHE_DIR or the config's `cache.path` at a folder this user "
                    "can write, or set `cache: {embeddings: false}`"
                ) from exc
            self._db = db
        return self._db

    def _open(self) -> sqlite3.Connection:
        db = _connect(self.path)
        self._opened = identity(self.path)
        try:
            db.execute(_VECTORS.format(name="vectors"))
            self._tracks_use = _uses_table(db)
        except BaseException:
            db.close()
            raise
        return db

    def _damaged_now(self, exc: sqlite3.DatabaseError) -> None:
        """A damaged page found while reading or writing: the file is set
        aside, and the next use starts a new one."""
        if not not_a_database(exc):
            raise exc
        self.close()
        set_aside(self.path, "embedding cache", exc, self._opened)

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
        stale: list[str] = []  # read, and last used a day ago or more (or never said)
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 500):  # SQLite's variable limit
            part = unique[start : start + 500]
            marks = ",".join("?" * len(part))
            with self._lock:
                db = self.db  # opened first: it says whether the file keeps last uses
                if self._tracks_use:
                    query = (
                        "SELECT v.text_hash, v.vector, u.used FROM vectors v LEFT JOIN uses u "
                        "ON u.fingerprint = v.fingerprint AND u.text_hash = v.text_hash "
                        f"WHERE v.fingerprint = ? AND v.text_hash IN ({marks})"
                    )
                else:
                    query = (
                        "SELECT text_hash, vector, NULL FROM vectors WHERE fingerprint = ? "
                        f"AND text_hash IN ({marks})"
                    )
                try:
                    rows = db.execute(query, (fingerprint, *part)).fetchall()
                except sqlite3.DatabaseError as exc:
                    self._damaged_now(exc)  # what it held is embedded again
                    return {}
            day_ago = time.time() - TOUCH_EVERY
            for text_hash, blob, when in rows:
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape[0] == dim:
                    found[text_hash] = vector
                if when is None or when < day_ago:
                    stale.append(text_hash)
        self._touch(fingerprint, stale)
        return found

    def _touch(self, fingerprint: str, hashes: Sequence[str]) -> None:
        """Mark ``hashes`` used now (those read whose last use is a day old or
        more, or unknown: a read writes nothing otherwise). A cache this
        process cannot write (a read-only file) keeps the old times: reading
        never fails for that."""
        if not hashes or not self._tracks_use:
            return
        now = time.time()
        # one transaction; read-only, or locked past the timeout: the old times stay
        with self._lock, contextlib.suppress(sqlite3.OperationalError), self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT OR REPLACE INTO uses (fingerprint, text_hash, used) VALUES (?, ?, ?)",
                [(fingerprint, h, now) for h in hashes],
            )

    def put_many(self, fingerprint: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        import numpy as np

        rows = [
            (fingerprint, h, np.ascontiguousarray(v, dtype=np.float32).tobytes()) for h, v in items
        ]
        if not rows or self._unwritable:
            return
        for attempt in range(2):  # a damaged file set aside: into a new one
            try:
                self._put_rows(rows)
                return
            except sqlite3.DatabaseError as exc:
                why = _disk_trouble(exc) or ("written: it is read-only" if _unwritable(exc) else "")
                if why:
                    # the cache only saves work: the run goes on without it
                    self._unwritable = why
                    log.warning(
                        "the embedding cache %s could not be %s; this run goes on without "
                        "storing vectors in it (free space, or set `cache: {embeddings: false}`)",
                        self.path,
                        why,
                    )
                    return
                if attempt:
                    raise
                self._damaged_now(exc)

    def _put_rows(self, rows: list[tuple[str, str, bytes]]) -> None:
        now = time.time()
        with self._lock, self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT OR REPLACE INTO vectors (fingerprint, text_hash, vector) VALUES (?, ?, ?)",
                rows,
            )
            if self._tracks_use:
                self.db.executemany(
                    "INSERT OR REPLACE INTO uses (fingerprint, text_hash, used) VALUES (?, ?, ?)",
                    [(f, h, now) for f, h, _ in rows],
                )

    # -- upkeep ------------------------------------------------------------
    def _bytes(self) -> int:
        return sum(
            p.stat().st_size
            for p in (self.path, self.path.with_name(self.path.name + "-wal"))
            if p.exists()
        )

    def info(self) -> CacheInfo:
        """What the file holds (an absent file holds nothing; it is not created).
        A vector written by a ragloom that kept no last uses counts as used
        now."""
        if not self.path.exists():
            return CacheInfo(self.path, 0, 0, None, None, {})
        with self._lock:
            db = self.db
            entries = db.execute("SELECT count(*) FROM vectors").fetchone()[0]
            oldest = latest = None
            if entries:
                uses = self._uses_sql()
                oldest, latest = db.execute(f"SELECT min(used), max(used) FROM ({uses})").fetchone()
            by = dict(
                db.execute(
                    "SELECT fingerprint, count(*) FROM vectors GROUP BY fingerprint "
                    "ORDER BY count(*) DESC"
                ).fetchall()
            )
        return CacheInfo(
            self.path, entries, self._bytes(), oldest, latest, by, compact=self._compact()
        )

    def _compact(self) -> bool:
        with self._lock:
            row = self.db.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'vectors'"
            ).fetchone()
        return row is None or "WITHOUT ROWID" not in row[0].upper()

    def _uses_sql(self) -> str:
        """Each vector's key, last use (now where none is kept) and bytes."""
        size = f"length(v.vector) + {ROW_BYTES} AS size"
        if not self._tracks_use:
            return f"SELECT fingerprint, text_hash, {time.time()} AS used, {size} FROM vectors v"
        return (
            f"SELECT v.fingerprint, v.text_hash, coalesce(u.used, {time.time()}) AS used, {size} "
            "FROM vectors v LEFT JOIN uses u "
            "ON u.fingerprint = v.fingerprint AND u.text_hash = v.text_hash"
        )

    def _doomed_sql(self) -> str:
        """The vectors a prune drops: last used before the cutoff (the first
        parameter), or beyond the size (the second) counting from the most
        recently used; each row with its bytes and whether it goes."""
        return (
            "SELECT fingerprint, text_hash, size, used < ? OR kept > ? AS doomed FROM ("
            "SELECT fingerprint, text_hash, used, size, SUM(size) OVER (ORDER BY used DESC, "
            "fingerprint DESC, text_hash DESC ROWS UNBOUNDED PRECEDING) AS kept "
            f"FROM ({self._uses_sql()}))"
        )

    def prune(
        self,
        *,
        older_than: float | None = None,
        max_bytes: int | None = None,
        dry_run: bool = False,
    ) -> PruneReport:
        """Drop the vectors last used more than ``older_than`` seconds ago,
        and the least recently used beyond ``max_bytes`` (each vector's bytes
        counted as the compact layout holds it, from the most recently used
        on); then compact the file (``VACUUM``), and rewrite a file in the
        older layout in the compact one (also when nothing is dropped). A
        vector with no last use (written by a ragloom that kept none) is
        dated now, so it stays a while. What goes is chosen under the write
        lock: a vector an index run reads meanwhile is dated before the
        choice. Nothing is lost but the time to embed those texts again; an
        index run at the same time waits for the lock, as for any write.
        ``dry_run``: what would go, and the bytes left (estimated)."""
        if older_than is None and max_bytes is None:
            raise ValueError("say what to prune: older_than, max_bytes or both")
        info = self.info()
        if not info.entries:
            return PruneReport(0, 0, info.bytes, info.bytes, dry_run)
        cutoff = -math.inf if older_than is None else time.time() - older_than
        limit = math.inf if max_bytes is None else float(max_bytes)
        with self._lock:
            db = self.db
            if dry_run:
                doomed, left = db.execute(
                    f"SELECT sum(doomed), sum(CASE WHEN doomed THEN 0 ELSE size END) "
                    f"FROM ({self._doomed_sql()})",
                    (cutoff, limit),
                ).fetchone()
                return PruneReport(info.entries, doomed or 0, info.bytes, left or 0, True)
            try:
                return self._prune(info, cutoff, limit)
            except sqlite3.OperationalError as exc:  # a read-only file, a lock held too long
                raise RagloomError(
                    f"the embedding cache {self.path} cannot be pruned ({exc}): prune it "
                    "where it can be written, when no index run holds it for long"
                ) from exc

    def _prune(self, info: CacheInfo, cutoff: float, limit: float) -> PruneReport:
        db = self.db
        with db:
            db.execute("BEGIN IMMEDIATE")  # a file this process cannot write fails here
            if not info.compact:  # the older layout: rewritten into the compact one
                db.execute(_VECTORS.format(name="vectors_compact"))
                db.execute(
                    "INSERT INTO vectors_compact (fingerprint, text_hash, vector) "
                    "SELECT fingerprint, text_hash, vector FROM vectors"
                )
                db.execute("DROP TABLE vectors")
                db.execute("ALTER TABLE vectors_compact RENAME TO vectors")
            db.execute(  # vectors another ragloom wrote without a last use: dated now
                "INSERT OR IGNORE INTO uses (fingerprint, text_hash, used) "
                "SELECT fingerprint, text_hash, ? FROM vectors",
                (time.time(),),
            )
            db.execute(
                "CREATE TEMP TABLE doomed AS SELECT fingerprint, text_hash "
                f"FROM ({self._doomed_sql()}) WHERE doomed",
                (cutoff, limit),
            )
            doomed = db.execute("SELECT count(*) FROM doomed").fetchone()[0]
            for table in ("vectors", "uses"):
                db.execute(
                    f"DELETE FROM {table} WHERE (fingerprint, text_hash) IN "
                    "(SELECT fingerprint, text_hash FROM doomed)"
                )
            db.execute(  # uses of vectors gone by other means
                "DELETE FROM uses WHERE (fingerprint, text_hash) NOT IN "
                "(SELECT fingerprint, text_hash FROM vectors)"
            )
            db.execute("DROP TABLE doomed")
        if doomed or not info.compact:
            db.execute("VACUUM")
            # the WAL back into the file, without waiting long on a reader
            # (the next checkpoint does it then): a writer waits while this does
            db.execute("PRAGMA busy_timeout = 1000")
            try:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                db.execute(f"PRAGMA busy_timeout = {_BUSY_MS}")
        return PruneReport(info.entries, doomed, info.bytes, self._bytes(), False)


def _uses_table(db: sqlite3.Connection) -> bool:
    """The table of each vector's last use, beside the vectors (a table of its
    own, so that a ragloom that keeps no last uses still reads and writes the
    same file). False when it is missing and the file cannot be written."""
    try:
        db.execute(
            "CREATE TABLE IF NOT EXISTS uses (fingerprint TEXT NOT NULL, "
            "text_hash TEXT NOT NULL, used REAL NOT NULL, "
            "PRIMARY KEY (fingerprint, text_hash)) WITHOUT ROWID"
        )
    except sqlite3.OperationalError:  # read-only
        return bool(
            db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'uses'"
            ).fetchone()
        )
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
        self._said: set[str] = set()
        self._opened: tuple[int, int] | None = None

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
            self._opened = identity(self.path)
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
        commit: str = "",
        filters: Any,
        principals: Sequence[str] | None,
        k: int | None,
        config_hash: str,
    ) -> str:
        parts = {
            "q": normalise_question(question),
            "v": corpus_version,
            "i": index_id,
            "m": commit,
            "f": filters,
            "p": sorted(principals) if principals is not None else None,
            "k": k,
            "c": config_hash,
        }
        return fingerprint_key(parts)

    def get(self, key: str) -> Answer | None:
        """The answer cached under ``key``; None when there is none, or when
        the file cannot be read (a cache never fails a question: see ``_failed``)."""
        try:
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
        except (sqlite3.Error, OSError) as exc:
            self._failed(exc)
            return None
        return _answer_from_json(json.loads(row[0]))

    def put(self, key: str, answer: Answer) -> None:
        """Keep ``answer`` under ``key`` (not when the file cannot be written)."""
        try:
            self._put(key, answer)
        except (sqlite3.Error, OSError) as exc:
            self._failed(exc)

    def _failed(self, exc: BaseException) -> None:
        """The cache file could not be used: the question is answered without
        it. A damaged file is set aside (a new one starts with the next
        question); a locked, read-only or full one is said once a reason."""
        self.close()
        if not_a_database(exc):
            set_aside(self.path, "answer cache", exc, self._opened)
            return
        said = str(exc)
        if said not in self._said:
            self._said.add(said)
            log.warning(
                "the answer cache %s cannot be used (%s): answering without it", self.path, exc
            )

    def _put(self, key: str, answer: Answer) -> None:
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
