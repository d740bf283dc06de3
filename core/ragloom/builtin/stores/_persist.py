"""What the built-in stores share: state held in memory and persisted to one
file (``FileStore``), atomic files, and chunk (de)serialisation."""

from __future__ import annotations

import logging
import os
import tempfile
import time
from abc import abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, ClassVar

from ...components import Context, Store
from ...errors import StoreError
from ...types import Chunk

__all__ = ["FileStore", "atomic_write", "chunk_from_dict", "chunk_to_dict", "file_identity"]

log = logging.getLogger("ragloom")


class FileStore(Store):
    """A store whose state lives in memory and in one file of its folder
    (``<index_dir>/<name>/<file_name>``, or its ``path:`` option), written
    atomically by ``flush()``.

    Subclasses set ``file_name``, extend ``_reset()`` with their own state,
    and implement ``_load(file)`` (raise anything for an unreadable file: it
    becomes a ``StoreError`` saying to rebuild) and ``_write(handle)``. This
    base handles the lifecycle: ``open`` (``context.fresh`` deletes the file
    unread), ``refresh`` (reload when another process replaced or deleted
    the file; drop writes not flushed), ``flush`` and ``close``.
    """

    file_name: ClassVar[str] = "store.bin"
    legacy_names: ClassVar[tuple[str, ...]] = ()
    """Files an earlier version wrote: deleted on a fresh open and after a flush."""

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._file: Path | None = None
        self._reset()

    def _reset(self) -> None:
        """Empty in-memory state; subclasses add theirs and call this."""
        self._dirty = False
        self._outdated = False  # the file holds this state in another form: rewrite it on flush
        self._identity: tuple[int, int, int] | None = None  # the file last read or written

    # -- lifecycle ---------------------------------------------------------
    def open(self, context: Context | None = None) -> None:
        super().open(context)
        directory = self.context.store_dir(getattr(self.config, "path", None), self.file_stem)
        self._file = directory / self.file_name
        self._reset()
        if self.context.fresh:
            clear(directory, self.context, folder=True)
            for name in (self.file_name, *self.legacy_names):
                clear(directory / name, self.context)
        elif self._file.exists():
            self._read(self._file)
        else:
            self._open_legacy(directory)

    @property
    def file_stem(self) -> str:
        return self.file_name.split(".")[0]

    def _open_legacy(self, directory: Path) -> None:
        """Read state an earlier version left in ``directory`` (none by default)."""

    def close(self) -> None:
        """Write what was not flushed, unless another process replaced the file
        since this store read or wrote it: that file is newer (an index run
        committed it) and is kept; the writes never flushed here (a failed
        run's, which its journal names) are dropped with a warning."""
        if not self._dirty or self._file is None:
            return
        if file_identity(self._file) != self._identity:
            log.warning(
                "%s store: not writing %s on close: another process replaced it since "
                "this one read it; writes not flushed here are dropped",
                self.context.name or self.file_stem,
                self._file,
            )
            return
        self.flush()

    def refresh(self) -> None:
        """Make the store what its file holds: reload it if another process
        replaced or deleted it, and drop writes not flushed (a failed run's)."""
        if self._file is None:
            return
        identity = file_identity(self._file)
        if identity == self._identity and not self._dirty:
            return
        self._reset()
        if identity is not None:
            self._read(self._file)

    def _unchanged(self) -> bool:
        """Whether the file holds exactly this state: nothing written since it
        was read or written, and not replaced since. ``flush`` then writes
        nothing, so an index run that changed nothing leaves the file (and
        the processes that read it) alone."""
        return (
            not self._dirty
            and not self._outdated
            and self._file is not None
            and self._identity is not None
            and file_identity(self._file) == self._identity
        )

    def flush(self) -> None:
        if self._file is None or self._unchanged():
            return
        atomic_write(self._file, self._write)
        self._identity = file_identity(self._file)
        for name in self.legacy_names:
            self._file.with_name(name).unlink(missing_ok=True)
        self._dirty = self._outdated = False

    def _read(self, file: Path) -> None:
        identity = file_identity(file)
        try:
            self._load(file)
        except Exception as exc:
            self._reset()
            raise self.unreadable(file, exc) from exc
        self._identity = identity

    def unreadable(self, file: Path, exc: Exception) -> StoreError:
        reason = str(exc)
        if "allow_pickle" in reason:  # numpy's guess for bytes that hold no array:
            reason = "not a file this store wrote"  # never advise loading it as a pickle
        return StoreError(
            f"{self.file_stem} store file {file} is unreadable ({reason}); "
            "run `ragloom index --rebuild` to recreate it"
        )

    @abstractmethod
    def _load(self, file: Path) -> None:
        """Replace the in-memory state (already reset) with ``file``'s."""

    @abstractmethod
    def _write(self, handle: IO[bytes]) -> None:
        """Write the in-memory state to ``handle`` (a temporary file, renamed after)."""


def clear(path: Path, context: Context, *, folder: bool = False) -> None:
    """For a fresh open (``--rebuild``): no file at ``path``, or (``folder``)
    a folder there. What stands in the way, of the wrong kind (a folder where
    the file goes, a file where the folder goes), is renamed aside to
    ``<name>.damaged-<time>`` and reported, not deleted: it is not this
    store's, or not as the store wrote it."""
    if folder:
        if path.is_dir() or not (path.exists() or path.is_symlink()):
            return  # a folder (or a link to one, the index on another disk), or nothing
    elif path.is_symlink() or path.is_file():
        path.unlink()
        return
    elif not path.exists():
        return
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    os.replace(path, aside)
    context.report(str(path), f"was not a {'folder' if folder else 'file'}: moved aside to {aside}")


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
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        if exc.filename is None and exc.errno is not None:
            # a write through a file object names no file (a full disk's
            # ENOSPC): the one it was writing is said, as for any other
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
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
    except NotADirectoryError:  # `index_dir:` or a store's `path:` names a file
        parent = next(p for p in path.parents if p.exists())
        raise StoreError(
            f"store file {path} cannot be made: {parent} is a file, not a folder; if the "
            "config names that file (`index_dir:`, or the store's `path:`), point it at a "
            "folder; if the file took the folder's place in the index, `ragloom index "
            "--rebuild` moves it aside"
        ) from None
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
