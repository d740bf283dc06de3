"""Files an index run need not read again.

A loader that reads files gives each file a *stamp*, what ``stat`` says of
it (:func:`file_stamp`), before reading it. The run records the stamp of
every document it indexed in the ledger (table ``reads``), with the state
hash of the document the file gave and a key of everything else that
decides it (:func:`reading_key`: ragloom's code, Python's and the readers'
versions, the secrets policy, the access rules, the plugins). On the next
run the loader asks ``Context.unchanged(source, stamp)`` first, and a file
whose stamp, key and indexed version all match is taken as it is, without
being read: a folder of unchanged PDFs costs a ``stat`` a file, not a parse.

What the answer never trusts (the file is read, as before):

- a file changed less than :data:`RACY_SECONDS` before it was stamped: a
  write within the same tick of a coarse clock would leave its stamp as it
  was (git's "racily clean" files); such a file gets no stamp;
- a file on a filesystem whose change times and inodes cannot be trusted
  (FUSE, network filesystems: see :data:`LOCAL_FILESYSTEMS`);
- a document not indexed as the row says (another version, its chunks
  missing from a store, a chunker change): the ledger decides;
- a document whose reading was reported (a page without text, a secret
  redacted): it is read, and reported, on every run;
- a loader whose own class does not promise it (``Loader.stamps``);
- a run after an older ragloom's commit, ``--rebuild`` and ``--reread``.

Loaders other than files may use the same two calls with a stamp of their
own (an ETag, a record's version): see ``Context.unchanged``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "LOCAL_FILESYSTEMS",
    "RACY_SECONDS",
    "Reads",
    "Reuse",
    "file_stamp",
    "filesystem",
    "reading_key",
    "stamps",
]

RACY_SECONDS = 2.0
"""A file changed (its ``ctime``, which the kernel sets and no tool sets back)
less than this long before it was stamped gets no stamp: it is read again
next run. Two seconds cover the coarsest clocks of common filesystems."""

LOCAL_FILESYSTEMS = {
    0xEF53: "ext4",  # ext2, ext3 and ext4 share it
    0x58465342: "xfs",
    0x9123683E: "btrfs",
    0x2FC12FC1: "zfs",
    0xF2F52010: "f2fs",
    0xCA451A4E: "bcachefs",
    0x3153464A: "jfs",
    0x52654973: "reiserfs",
    0x3434: "nilfs2",
    0x01021994: "tmpfs",
    0x858458F6: "ramfs",
    0x794C7630: "overlay",
}
"""The filesystems whose files get stamps, by the magic number Linux's
``statfs`` gives: local ones, whose kernel sets a file's change time on
every write and keeps its inode number. FUSE mounts (sshfs, rclone, s3fs)
report the modification time as the change time and may keep a replaced
file's inode, and a network filesystem's times come from another machine's
clock: their files are read on every run, as is every file where the
filesystem cannot be told (not Linux)."""


READERS = (
    "pypdf",
    "python-docx",
    "python-pptx",
    "openpyxl",
    "selectolax",
    "charset-normalizer",
    "PyYAML",
    "lxml",
)
"""The libraries the built-in loaders read files with: a new version of one
may read a file otherwise, so every file is read again after it changes."""


def file_stamp(path: Path, info: os.stat_result, now: float | None = None) -> str | None:
    """The stamp of file ``path`` from its ``stat`` ``info`` (taken before the
    file is read): device, inode, size, and modification and change times in
    nanoseconds. A write sets the change time, which no tool can set back.
    None, for a file read on every run: one changed less than
    :data:`RACY_SECONDS` before ``now`` (this clock's time of the ``stat``),
    or seemingly after it, or on a filesystem not in :data:`LOCAL_FILESYSTEMS`."""
    now_ns = int((time.time() if now is None else now) * 1e9)
    if now_ns - info.st_ctime_ns < RACY_SECONDS * 1e9:
        return None
    if filesystem(path) not in LOCAL_FILESYSTEMS.values():
        return None
    return f"{info.st_dev}:{info.st_ino}:{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}"


_statfs: Any = None


def filesystem(path: Path) -> str | None:
    """The kind of the filesystem ``path`` lies on, as Linux's ``statfs``
    tells it (``ext4``, ``btrfs``: :data:`LOCAL_FILESYSTEMS`), ``fs:0x...`` for
    another one (FUSE's is ``fs:0x65735546``); None where it cannot be told
    (not Linux, or the call failed). Asked for each file: a device number
    may be another filesystem's after a remount, and a btrfs subvolume has a
    device of its own."""
    global _statfs
    if _statfs is None:
        _statfs = False
        if sys.platform.startswith("linux"):
            import ctypes

            with contextlib.suppress(OSError, AttributeError):
                _statfs = ctypes.CDLL(None, use_errno=True).statfs
    if not _statfs:
        return None
    import ctypes

    buffer = ctypes.create_string_buffer(256)  # struct statfs; f_type comes first
    if _statfs(os.fsencode(path), buffer) != 0:
        return None
    kind = ctypes.c_long.from_buffer(buffer).value & 0xFFFFFFFF
    return LOCAL_FILESYSTEMS.get(kind, f"fs:{kind:#x}")


_code_key: str | None = None


def _code() -> str:
    """A digest of ragloom's own code (every module of the installed
    package) and the versions of the readers it uses: computed once per
    process (a few milliseconds)."""
    global _code_key
    if _code_key is None:
        from importlib.metadata import PackageNotFoundError, version

        digest = hashlib.sha256()
        package = Path(__file__).resolve().parent
        for path in sorted(package.rglob("*.py")):
            digest.update(path.relative_to(package).as_posix().encode())
            digest.update(path.read_bytes())
        for name in READERS:
            try:
                digest.update(f"{name}={version(name)}".encode())
            except PackageNotFoundError:
                digest.update(f"{name}=-".encode())
        # the standard library reads mail, books and notebooks
        digest.update(f"{sys.implementation.name} {sys.version}".encode())
        _code_key = digest.hexdigest()
    return _code_key


def reading_key(config: Any, plugins: list[str]) -> str:
    """What decides a document besides its file and its loader's options
    (the loader's key, recorded beside): ragloom's code and Python's, the
    readers' versions, the secrets policy, the access rules, and the
    plugins (``plugins``: each one's name and its distribution's version; a
    ``run_stage`` hook may change what is loaded, a loader plugin what it
    reads)."""
    access = config.access.model_dump(mode="json") if config.access is not None else None
    said = {
        "code": _code(),
        "secrets": config.indexing.secrets,
        "access": access,
        "plugins": sorted(plugins),
    }
    return hashlib.sha256(json.dumps(said, sort_keys=True).encode()).hexdigest()[:32]


def stamps(loader: object) -> bool:
    """Whether ``loader``'s own class promises what ``Context.unchanged``
    asks of a loader (``Loader.stamps``, set on the class itself): a subclass
    that changes what its parent yields does not inherit the promise."""
    return vars(type(loader)).get("stamps") is True


@dataclass(frozen=True)
class Reuse:
    """One ledger row of table ``reads``: the file ``source``, read by loader
    ``loader`` when it had ``stamp``, gave document ``doc_id`` in state
    ``state`` under ``key``; access rules ``rules`` (by position) matched it."""

    loader: str
    source: str
    stamp: str
    doc_id: str
    state: str
    key: str
    rules: tuple[int, ...] = ()


@dataclass
class Reads:
    """What one index run may take without reading, and what it read.

    ``rows`` are the ledger's (by loader key and source); ``holds(doc_id,
    state)`` says whether the ledger holds that document in that state,
    complete (not to be written again this run). ``loader`` is the key of
    the loader running now, None when its class makes no promise
    (:func:`stamps`): it is then told False, and its reads are not recorded."""

    rows: Mapping[tuple[str, str], Reuse]
    key: str
    holds: Callable[[str, str], bool]
    loader: str | None = None
    reused: list[Reuse] = field(default_factory=list)
    """The rows taken this run, in the order their loaders asked."""
    stamps: dict[tuple[str, str], str] = field(default_factory=dict)
    """(loader, source) -> the stamp of each file read this run."""

    def unchanged(self, source: str, stamp: str | None) -> bool:
        if not stamp or self.loader is None:
            return False
        row = self.rows.get((self.loader, source))
        if row is None or row.stamp != stamp or row.key != self.key or row.doc_id != source:
            return False
        if not self.holds(row.doc_id, row.state):
            return False
        self.reused.append(row)
        return True

    def read(self, source: str, stamp: str | None) -> None:
        if self.loader is None:
            return
        if stamp:
            self.stamps[(self.loader, source)] = stamp
        else:
            self.stamps.pop((self.loader, source), None)

    def taken(self) -> list[Reuse]:
        """The rows taken since the last call (the loader that just ran)."""
        taken, self.reused = self.reused, []
        return taken
