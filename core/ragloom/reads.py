"""Files an index run need not read again.

A loader that reads files gives each file a *stamp*, what ``stat`` says of
it (:func:`file_stamp`), before reading it. The run records the stamp of
every document it indexed in the ledger (table ``reads``), with the state
hash of the document the file gave and a key of everything else that
decides it (:func:`reading_key`: ragloom's code, Python's and the readers'
and secrets screening's versions, the secrets and personal data policies,
the access rules, the plugins). On the next run the loader asks
``Context.unchanged(source, stamp)`` first, and a file whose stamp, key and
indexed version all match is taken as it is, without being read: a folder
of unchanged PDFs costs a ``stat`` a file, not a parse.

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

import functools
import hashlib
import json
import os
import sys
import time
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "LOCAL_FILESYSTEMS",
    "RACY_SECONDS",
    "Reads",
    "Reuse",
    "code_digest",
    "file_stamp",
    "filesystem",
    "plugin_code",
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


LIBRARIES = (
    "pypdf",
    "cryptography",
    "pycryptodome",
    "python-docx",
    "python-pptx",
    "openpyxl",
    "selectolax",
    "charset-normalizer",
    "PyYAML",
    "tomli",
    "lxml",
    "detect-secrets",
)
"""The libraries that decide what a file gives: the readers (and pypdf's
decryption), and the secrets screening's patterns. A new version of one may
read a file otherwise, or find a secret the last one did not, so every file
is read again after one changes."""


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


def filesystem(path: Path) -> str | None:
    """The kind of the filesystem ``path`` lies on, as Linux's ``statfs``
    tells it (``ext4``, ``btrfs``: :data:`LOCAL_FILESYSTEMS`), ``fs:0x...`` for
    another one (FUSE's is ``fs:0x65735546``); None where it cannot be told
    (not Linux, or the call failed). Asked for each file: a device number
    may be another filesystem's after a remount, and a btrfs subvolume has a
    device of its own."""
    import ctypes

    statfs = _statfs()
    if statfs is None:
        return None
    buffer = ctypes.create_string_buffer(256)  # struct statfs; f_type comes first
    if statfs(os.fsencode(path), buffer) != 0:
        return None
    kind = ctypes.c_long.from_buffer(buffer).value & 0xFFFFFFFF
    return LOCAL_FILESYSTEMS.get(kind, f"fs:{kind:#x}")


@functools.cache
def _statfs() -> Callable[..., int] | None:
    """The C library's ``statfs``, on Linux; None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).statfs  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


def code_digest() -> str:
    """A digest of the code that reads files: ragloom's own (every module of
    the installed package: its ``.py`` files, else, where it was installed
    without them, its compiled ones), Python's, and the versions of
    :data:`LIBRARIES`. The pipeline takes it when it opens (a few
    milliseconds), with the code it runs loaded."""
    from importlib.metadata import PackageNotFoundError, version

    from . import __version__

    digest = hashlib.sha256(f"ragloom {__version__}".encode())
    package = Path(__file__).resolve().parent
    files = sorted(package.rglob("*.py")) or sorted(
        p for p in package.rglob("*.pyc") if "__pycache__" not in p.parts
    )
    for path in files:
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    for name in LIBRARIES:
        try:
            digest.update(f"{name}={version(name)}".encode())
        except PackageNotFoundError:
            digest.update(f"{name}=-".encode())
    # the standard library reads mail, books and notebooks
    digest.update(f"{sys.implementation.name} {sys.version}".encode())
    return digest.hexdigest()


def plugin_code(pm: Any) -> list[str]:
    """Every plugin registered with ``pm`` (core's modules included), by the
    code it runs: its module or class, with its distribution's version when
    it came from one (not the name it was registered under: pluggy names an
    object registered without one by its ``id``, another every process)."""
    dists = {id(plugin): dist for plugin, dist in pm.list_plugin_distinfo()}
    out = []
    for plugin in pm.get_plugins():
        if isinstance(plugin, types.ModuleType):
            code = plugin.__name__
        else:
            kind = plugin if isinstance(plugin, type) else type(plugin)
            code = f"{kind.__module__}.{kind.__qualname__}"
        dist = dists.get(id(plugin))
        out.append(f"{code} {dist.project_name}=={dist.version}" if dist else code)
    return out


def reading_key(config: Any, code: str, plugins: list[str]) -> str:
    """What decides a document besides its file and its loader's options
    (the loader's key, recorded beside): the code that reads it (``code``:
    :func:`code_digest`), the secrets and personal data policies, the access
    rules, and the plugins (``plugins``: :func:`plugin_code`; a ``run_stage``
    hook may change what is loaded, a loader plugin what it reads)."""
    access = config.access.model_dump(mode="json") if config.access is not None else None
    said = {
        "code": code,
        "secrets": config.indexing.secrets,
        "personal_data": config.indexing.personal_data,
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

    def begin(self, loader: str | None) -> None:
        """A loader starts (its key; None when its class makes no promise):
        rows a loader that failed part way took are dropped with it."""
        self.loader = loader
        self.reused = []

    def taken(self) -> list[Reuse]:
        """The rows the loader that just ran took."""
        taken, self.reused = self.reused, []
        return taken
