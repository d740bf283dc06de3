"""One embedded engine per folder and process, shared by the stores opened on it.

An embedded Qdrant (qdrant-edge's shard, qdrant-client's local mode) is one
process's: it keeps its data in memory and its files open, and locks them.
So the stores of one process opened on the same folder (an index run and a
server's pipeline in one program, or two pipelines) share one engine: a
write by one is seen at once by the others, and the last to close it closes
it. Another process cannot open the folder while this one holds it: a file
lock (``.<name>.lock`` beside the data) makes it fail at ``open()``, with a
message that says to run Qdrant as a server for that.

This module holds the only process-wide state of the plugin: the table of
open engines, guarded by a lock.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..errors import QdrantInUseError

__all__ = ["Handle", "acquire", "release"]

_OPEN: dict[str, Handle] = {}
_TABLE_LOCK = threading.Lock()


@dataclass(eq=False)
class Handle:
    """An engine shared by the stores of this process on one folder. ``value``
    is the engine object (None while there is no collection); ``lock``
    serialises writes and lifecycle changes between the stores sharing it."""

    key: str
    lock_file: IO[Any]
    value: Any = None
    refs: int = 0
    lock: threading.RLock = field(default_factory=threading.RLock)


def private_folder(folder: Path) -> None:
    """Create ``folder`` and each missing folder above it readable by their
    owner only, as ragloom creates ``index_dir``: the engines write document
    text there (payloads, the write-ahead log) with the process umask, 0644
    at the usual 022. Folders that exist are left as they are."""
    missing = []
    for path in (folder, *folder.parents):
        if path.exists():
            break
        missing.append(path)
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another thread or process made it
            path.mkdir(mode=0o700)
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)  # the error that says why


def acquire(folder: Path, lock_name: str, what: str) -> Handle:
    """The handle of ``folder`` for this process, taking its file lock on the
    first use. Raises ``QdrantInUseError`` (a ``StoreError``) when another
    process holds it."""
    import portalocker

    private_folder(folder)
    lock_path = folder / lock_name
    key = f"{os.path.realpath(lock_path)}"
    with _TABLE_LOCK:
        handle = _OPEN.get(key)
        if handle is None:
            stream = open(lock_path, "a+")  # noqa: SIM115 (held until the last release)
            try:
                portalocker.lock(stream, portalocker.LOCK_EX | portalocker.LOCK_NB)
            except portalocker.LockException:
                stream.close()
                raise QdrantInUseError(
                    f"{what} at {folder} is open in another process: an embedded Qdrant "
                    "belongs to one process at a time. Close that process, or, for several "
                    "processes on one index (a server plus scheduled indexing), run Qdrant "
                    "as a server and set `url:` (https://qdrant.tech/documentation/quickstart/)"
                ) from None
            handle = Handle(key=key, lock_file=stream)
            _OPEN[key] = handle
        handle.refs += 1
        return handle


def release(handle: Handle, close: Callable[[Any], None]) -> None:
    """Give ``handle`` back; the last release closes its engine with ``close``
    and drops the file lock."""
    import portalocker

    with _TABLE_LOCK, handle.lock:  # an acquire waits: the file lock is still held
        handle.refs -= 1
        if handle.refs > 0:
            return
        _OPEN.pop(handle.key, None)
        try:
            if handle.value is not None:
                close(handle.value)
        finally:
            handle.value = None
            try:
                portalocker.unlock(handle.lock_file)
            finally:
                handle.lock_file.close()
