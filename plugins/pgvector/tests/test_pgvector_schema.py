"""The table: created when missing, migrated once, settings recorded and
checked, the vector index built as configured, and clear errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import psycopg
import pytest
from ragloom import Chunk, Context
from ragloom.errors import DimensionMismatchError, StoreError
from ragloom.testing import contract_chunks, contract_vectors

from ragloom_pgvector import PgvectorStore
from ragloom_pgvector.schema import MIGRATIONS, SCHEMA_VERSION

Opener = Callable[..., PgvectorStore]


@pytest.fixture
def open_store(pg_dsn: str, request: pytest.FixtureRequest) -> Any:
    """Open stores on a table of this test's own; all closed at the end."""
    table = "s_" + request.node.name.replace("[", "_").replace("]", "").replace("-", "_")[:50]
    opened: list[PgvectorStore] = []

    def open_(
        fresh: bool = False, services: dict[str, Any] | None = None, **options: Any
    ) -> PgvectorStore:
        store = PgvectorStore(dsn=pg_dsn, table=options.pop("table", table), **options)
        store.open(Context(name="t", fresh=fresh, services=services or {}))
        opened.append(store)
        return store

    open_.table = table  # type: ignore[attr-defined]
    yield open_
    for store in opened:
        store.close()


def sql(dsn: str, query: str, *args: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        cursor = conn.execute(query, args)
        return cursor.fetchall() if cursor.description else []


def indexes(dsn: str, table: str) -> dict[str, str]:
    rows = sql(dsn, "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s", table)
    return dict(rows)


class FixedEmbedder:
    def __init__(self, dimension: int) -> None:
        self.dimension = dimension


def test_creates_table_indexes_and_records(pg_dsn: str, open_store: Opener) -> None:
    store = open_store(services={"embedder": FixedEmbedder(16)})
    table = open_store.table  # type: ignore[attr-defined]
    found = indexes(pg_dsn, table)
    assert any("USING gin (metadata)" in d for d in found.values()), found
    assert any("USING gin (tsv)" in d for d in found.values()), found
    assert not any("USING hnsw" in d for d in found.values()), "built over the first load"
    [(version, dim, vtype, dist, cfg)] = sql(
        pg_dsn,
        "SELECT schema_version, dimension, vector_type, distance, text_search_config "
        "FROM ragloom_pgvector_tables WHERE table_name = %s",
        table,
    )
    assert (version, dim, vtype, dist, cfg) == (SCHEMA_VERSION, 16, "vector", "cosine", "english")
    applied = sql(
        pg_dsn,
        "SELECT version, description FROM ragloom_pgvector_migrations "
        "WHERE table_name = %s ORDER BY 1",
        table,
    )
    assert applied == list(MIGRATIONS)
    assert store.count() == 0


def test_the_first_load_builds_the_index_at_flush(pg_dsn: str, open_store: Opener) -> None:
    hnsw = "USING hnsw (embedding vector_cosine_ops) WITH (m='16', ef_construction='64')"
    store = open_store(services={"embedder": FixedEmbedder(16)})
    table = open_store.table  # type: ignore[attr-defined]
    store.upsert(contract_chunks()[:5], contract_vectors(5))
    store.upsert(contract_chunks()[5:], contract_vectors()[5:])
    assert not any(hnsw in d for d in indexes(pg_dsn, table).values())
    assert store.query(vector=contract_vectors()[2], k=1)[0].chunk.id == "c03"  # exact meanwhile
    store.flush()
    assert any(hnsw in d for d in indexes(pg_dsn, table).values())
    store.upsert(contract_chunks()[:1], contract_vectors(1))  # not a first load: kept
    assert any(hnsw in d for d in indexes(pg_dsn, table).values())
    store.delete(ids=[c.id for c in contract_chunks()])
    store.upsert(contract_chunks(), contract_vectors())  # emptied, then loaded: deferred again
    assert not any(hnsw in d for d in indexes(pg_dsn, table).values())
    store.close()  # close flushes
    assert any(hnsw in d for d in indexes(pg_dsn, table).values())


def test_migrations_are_idempotent_and_resume(pg_dsn: str, open_store: Opener) -> None:
    first = open_store()
    first.upsert(contract_chunks(), contract_vectors())
    table = open_store.table  # type: ignore[attr-defined]
    # as if the table came from a version that knew only the first migration
    sql(
        pg_dsn,
        "DELETE FROM ragloom_pgvector_migrations WHERE table_name = %s AND version > 1",
        table,
    )
    sql(
        pg_dsn, "UPDATE ragloom_pgvector_tables SET schema_version = 1 WHERE table_name = %s", table
    )
    second = open_store()
    assert second.count() == 10
    assert [v for v, _ in sql(pg_dsn, "SELECT version, 1 FROM ragloom_pgvector_migrations "
                              "WHERE table_name = %s ORDER BY 1", table)] == [1, 2, 3]  # fmt: skip
    third = open_store()  # nothing left to do
    assert third.count() == 10


def test_newer_schema_is_refused(pg_dsn: str, open_store: Opener) -> None:
    open_store()
    table = open_store.table  # type: ignore[attr-defined]
    sql(
        pg_dsn,
        "UPDATE ragloom_pgvector_tables SET schema_version = 99 WHERE table_name = %s",
        table,
    )
    with pytest.raises(StoreError, match=r"newer ragloom-pgvector"):
        open_store()


def test_a_table_ragloom_did_not_create_is_left_alone(pg_dsn: str, open_store: Opener) -> None:
    sql(pg_dsn, "CREATE TABLE users_own (id int)")
    with pytest.raises(StoreError, match=r"not created by ragloom-pgvector"):
        open_store(table="users_own")
    assert sql(pg_dsn, "SELECT count(*) FROM users_own") == [(0,)]


def test_another_dimension_fails_clearly(open_store: Opener) -> None:
    store = open_store()
    store.upsert(contract_chunks(), contract_vectors())
    with pytest.raises(DimensionMismatchError, match=r"holds 16-dimensional vectors.*rebuild"):
        open_store(services={"embedder": FixedEmbedder(384)})
    with pytest.raises(DimensionMismatchError, match=r"holds 16-dimensional"):
        open_store(dimension=8)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"distance": "l2"}, r"distance 'cosine'.*`distance: cosine`"),
        ({"halfvec": True}, r"vector type 'vector'.*`halfvec: false`"),
        (
            {"text_search_config": "simple"},
            r"text search config 'english'.*`text_search_config: english`",
        ),
    ],
)
def test_another_distance_or_type_fails_clearly(
    open_store: Opener, option: dict[str, Any], message: str
) -> None:
    store = open_store()
    store.upsert(contract_chunks(), contract_vectors())
    with pytest.raises(StoreError, match=message):
        open_store(**option)


def test_an_empty_table_adopts_new_settings(pg_dsn: str, open_store: Opener) -> None:
    store = open_store()
    store.upsert(contract_chunks(), contract_vectors())
    store.delete(ids=[c.id for c in contract_chunks()])
    other = open_store(distance="l2", halfvec=True, text_search_config="simple",
                       services={"embedder": FixedEmbedder(8)})  # fmt: skip
    chunk = Chunk("n", "d", "the running dogs", 0, 0, 16, "n", {})
    other.upsert([chunk], np.ones((1, 8), np.float32))
    assert [h.chunk.id for h in other.query(text="the", k=3)] == ["n"]  # simple keeps stop words
    other.flush()
    table = open_store.table  # type: ignore[attr-defined]
    assert any("halfvec_l2_ops" in d for d in indexes(pg_dsn, table).values())


def test_index_options_rebuild_the_index(pg_dsn: str, open_store: Opener) -> None:
    store = open_store()
    store.upsert(contract_chunks(), contract_vectors())
    store.flush()
    table = open_store.table  # type: ignore[attr-defined]
    open_store(m=8, ef_construction=32)
    assert any("m='8', ef_construction='32'" in d for d in indexes(pg_dsn, table).values())
    exact = open_store(index="none")
    assert not any("USING hnsw" in d for d in indexes(pg_dsn, table).values())
    assert [h.chunk.id for h in exact.query(vector=contract_vectors()[3], k=2)] == ["c04", "c03"]
    ivf = open_store(index="ivfflat", lists=None)  # lists from the row count, at least 1
    assert any("USING ivfflat" in d and "lists='1'" in d for d in indexes(pg_dsn, table).values())
    assert ivf.count() == 10


def test_ivfflat_waits_for_data(pg_dsn: str, open_store: Opener) -> None:
    store = open_store(index="ivfflat", services={"embedder": FixedEmbedder(16)})
    table = open_store.table  # type: ignore[attr-defined]
    assert not any("USING ivfflat" in d for d in indexes(pg_dsn, table).values())
    store.upsert(contract_chunks(), contract_vectors())
    assert store.query(vector=contract_vectors()[0], k=1)[0].chunk.id == "c01"  # exact meanwhile
    store.flush()  # trained on the rows there are
    assert any("USING ivfflat" in d for d in indexes(pg_dsn, table).values())
    assert store.query(vector=contract_vectors()[0], k=1)[0].chunk.id == "c01"


def test_too_wide_for_an_index(open_store: Opener) -> None:
    with pytest.raises(StoreError, match=r"halfvec: true"):
        open_store(dimension=3000)
    store = open_store(dimension=3000, halfvec=True, table="wide_half")
    store.upsert([Chunk("w", "d", "t", 0, 0, 1, "w", {})], np.ones((1, 3000), np.float32))
    assert store.query(vector=np.ones(3000, np.float32), k=1)[0].chunk.id == "w"


def test_unknown_text_search_config(open_store: Opener) -> None:
    with pytest.raises(StoreError, match=r"'klingon' is not a text search configuration.*english"):
        open_store(text_search_config="klingon")


def test_unreachable_server_says_where(tmp_path: Any) -> None:
    store = PgvectorStore(dsn=f"postgresql://me:secret@/db?host={tmp_path}", connect_timeout=2)
    with pytest.raises(
        StoreError, match=r"cannot connect to PostgreSQL at .*host=.*check `dsn:`"
    ) as caught:
        store.open(Context(name="x"))
    assert "secret" not in str(caught.value)


def test_secrets_stay_out_of_reprs(pg_dsn: str) -> None:
    store = PgvectorStore(dsn="postgresql://me:secret@localhost/db")
    assert "secret" not in repr(store) and "secret" not in repr(store.config)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"table": "no-dashes"}, "not a plain SQL identifier"),
        ({"schema": "a b"}, "not a plain SQL identifier"),
        ({"m": 40}, "at least 2 \\* m"),
        ({"text_search_config": "english; drop"}, "not a text search configuration name"),
        ({"maintenance_work_mem": "lots"}, "not a memory size"),
        ({"bogus": 1}, "Extra inputs are not permitted"),
    ],
)
def test_options_are_checked(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PgvectorStore(**options)


def test_empty_dsn_means_embedded() -> None:
    assert PgvectorStore(dsn="").config.dsn is None
    assert PgvectorStore(dsn="  ").config.dsn is None


def test_fresh_drops_only_its_own_table(pg_dsn: str, open_store: Opener) -> None:
    keep = open_store(table="kept_neighbour")
    keep.upsert(contract_chunks(), contract_vectors())
    store = open_store()
    store.upsert(contract_chunks(), contract_vectors())
    fresh = open_store(fresh=True)
    assert fresh.count() == 0
    assert keep.count() == 10


def test_only_a_server_given_by_dsn_takes_writes_from_other_processes() -> None:
    """``shared_writes``: with a ``dsn`` an executor's workers may write the
    table at once; the embedded server lives in one machine's index folder."""
    assert PgvectorStore(dsn="postgresql://127.0.0.1/db").shared_writes is True
    assert PgvectorStore().shared_writes is False
