"""A connection lost while the store is open (the server killed or stopped
mid-run): one clear ``StoreError`` that names the server and says what to
do, and none of the pool's own warnings about ragloom's pools."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import psycopg
import pytest
from ragloom import Context
from ragloom.errors import StoreError
from ragloom.testing import contract_chunks, contract_vectors

from ragloom_pgvector import PgvectorStore


@pytest.fixture
def store(pg_dsn: str, request: pytest.FixtureRequest) -> Iterator[PgvectorStore]:
    """A store on a table of this test's own, with one pooled connection."""
    table = "c_" + request.node.name.replace("[", "_").replace("]", "").replace("-", "_")[:50]
    opened = PgvectorStore(dsn=pg_dsn, table=table, pool_size=1, connect_timeout=5)
    opened.open(Context(name="t"))
    try:
        yield opened
    finally:
        opened.close()


def pool_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith("psycopg") and r.levelno >= logging.WARNING
    ]


def test_a_connection_lost_mid_write_says_so_and_what_to_do(
    pg_dsn: str, store: PgvectorStore, caplog: pytest.LogCaptureFixture
) -> None:
    """The trial's run ended on `error: pgvector ...: terminating connection due
    to unexpected postmaster exit` after six multi-line pool warnings
    (operator trial s26, L3). The backend is terminated here (the server
    lives on, as the pool's reconnection then shows)."""
    caplog.set_level(logging.WARNING)
    chunks, vectors = contract_chunks(), contract_vectors()
    store.upsert(chunks[:3], vectors[:3])
    pid = store._run(lambda conn: conn.info.backend_pid)
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    with pytest.raises(StoreError) as caught:
        store.upsert(chunks[3:6], vectors[3:6])
    message = str(caught.value)
    assert "lost the connection to PostgreSQL at " in message and "host=" in message
    assert "terminating connection due to administrator command" in message
    assert "the write under way was rolled back" in message
    assert "Nothing is committed half-way" in message
    assert "start the server" in message and "`ragloom index`" in message
    assert "password" not in message
    assert store.count() == 3  # the pool connects again; nothing of the lost write
    assert not pool_warnings(caplog), pool_warnings(caplog)


def test_no_connection_within_the_timeout_says_why_it_may_be(
    store: PgvectorStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from psycopg_pool import PoolTimeout

    def none(*args: object, **kwargs: object) -> None:
        raise PoolTimeout("couldn't get a connection after 5.00 sec")

    monkeypatch.setattr(store._pool, "connection", none)
    with pytest.raises(StoreError) as caught:
        store.count()
    message = str(caught.value)
    assert "got no connection within 5 s from PostgreSQL at " in message
    assert "cannot be reached" in message and "`pool_size`" in message
    assert "write under way" not in message  # a read


def test_other_pools_warnings_pass(store: PgvectorStore, caplog: pytest.LogCaptureFixture) -> None:
    """Only ragloom's own pools are quieted (and all of them at DEBUG)."""
    caplog.set_level(logging.WARNING)
    pool_log = logging.getLogger("psycopg.pool")
    pool_log.warning("error connecting in %r: %s", "someone-elses-pool", "refused")
    pool_log.warning("error connecting in %r: %s", "ragloom-pgvector-public.t", "refused")
    assert pool_warnings(caplog) == ["error connecting in 'someone-elses-pool': refused"]
    caplog.clear()
    caplog.set_level(logging.DEBUG)
    pool_log.warning("error connecting in %r: %s", "ragloom-pgvector-public.t", "refused")
    assert pool_warnings(caplog) == ["error connecting in 'ragloom-pgvector-public.t': refused"]
