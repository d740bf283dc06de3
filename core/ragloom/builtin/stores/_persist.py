"""Atomic files and chunk (de)serialisation shared by the built-in stores."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ...types import Chunk

__all__ = ["atomic_write", "chunk_from_dict", "chunk_to_dict", "file_identity"]


def atomic_write(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write ``path`` through a temporary file in the same directory, fsync it,
    then rename it into place: readers see the old file or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def file_identity(path: Path) -> tuple[int, int, int] | None:
    """``(inode, mtime in ns, size)`` of ``path``, or None when it is missing:
    an atomic replace (a new inode) or any rewrite changes it."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return (info.st_ino, info.st_mtime_ns, info.st_size)


def chunk_to_dict(chunk: Chunk) -> dict[str, Any]:
    return {
        "id": chunk.id,
        "document_id": chunk.document_id,
        "text": chunk.text,
        "index": chunk.index,
        "start": chunk.start,
        "end": chunk.end,
        "label": chunk.label,
        "metadata": dict(chunk.metadata),
    }


def chunk_from_dict(data: dict[str, Any]) -> Chunk:
    return Chunk(**data)
