"""Quiet psycopg_pool's warnings about ragloom's own connection pools.

When PostgreSQL goes away, the pool warns once per connection it discards
and once per reconnection attempt (``discarding closed connection``,
``error connecting in 'ragloom-pgvector-...'``, two lines each), while the
store raises a ``StoreError`` that says the same once, with what to do. A
filter on the ``psycopg.pool`` logger drops those warnings for the pools
this plugin made (their name, their worker threads, their connections) and
lets every other pool's through, and all of them at ``-v`` (DEBUG). Errors
always pass.
"""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Any

__all__ = ["POOL_PREFIX", "own", "quiet_pool_warnings"]

POOL_PREFIX = "ragloom-pgvector-"
"""The start of the name of every pool the store makes (and of its threads)."""

_connections: weakref.WeakSet[Any] = weakref.WeakSet()
_installed = threading.Lock()


class _OwnPoolWarnings(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR or not _about_ours(record):
            return True
        return logging.getLogger("ragloom.pgvector").isEnabledFor(logging.DEBUG)


def _about_ours(record: logging.LogRecord) -> bool:
    if (record.threadName or "").startswith(POOL_PREFIX):
        return True
    args = record.args if isinstance(record.args, tuple) else ()
    for arg in args:
        if isinstance(arg, str) and arg.startswith(POOL_PREFIX):
            return True
        try:
            if arg in _connections:
                return True
        except TypeError:  # not weakly referenceable: not a connection
            continue
    return False


def own(conn: Any) -> None:
    """Mark ``conn`` as one of this plugin's pooled connections."""
    _connections.add(conn)


def quiet_pool_warnings() -> None:
    """Install the filter on ``psycopg.pool`` (once per process)."""
    logger = logging.getLogger("psycopg.pool")
    with _installed:
        if not any(isinstance(f, _OwnPoolWarnings) for f in logger.filters):
            logger.addFilter(_OwnPoolWarnings())
