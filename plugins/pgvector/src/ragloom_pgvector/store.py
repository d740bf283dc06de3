"""``pgvector``: chunks, vectors and full text in one PostgreSQL table.

One row per chunk: its fields, its metadata (``jsonb`` with a GIN index, and
an exact ``json`` copy), its vector (``vector(d)`` or ``halfvec(d)``, HNSW by
default) and a generated ``tsvector`` column (GIN). Vector queries rank by
the configured distance, keyword queries by ``ts_rank_cd``; a query given
both (as the pipeline gives a store declaring both) searches both and fuses
them, by reciprocal rank unless configured otherwise. Filters become
parameterised SQL (``sqlfilter``), applied inside the query before ranking.

Approximate indexes stay correct under filters: pgvector 0.8's iterative
scans continue until ``k`` rows match, and a query still short of ``k``
runs again exactly, so a selective filter returns every match there is, up
to ``k``.

Connections come from a pool (``pool_size``): the pipeline may query from
several threads at once. Every write commits before it returns, so another
process sees it at once and ``refresh()`` only re-reads the table's settings.

A connection lost while the store is open (the server stopped or was
killed, the network failed) raises a ``StoreError`` that says so, names the
server, and says what to do; the pool's own warnings about it are left out
(``poollog``).
"""

from __future__ import annotations

import logging
import math
import re
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragloom import Chunk, Context, Hit, Store
from ragloom.errors import DimensionMismatchError, StoreError
from ragloom.filters import ALL_OPERATORS, Filter, check_supported

from . import embedded
from .database import check_database, describe_dsn, first_line, session_sql
from .options import PgvectorOptions
from .poollog import POOL_PREFIX, own, quiet_pool_warnings
from .prepare import apply_vectors, prepare_table
from .rows import encode_chunk, register_numpy_vectors
from .schema import Settings, Table
from .search import search
from .sqlfilter import Params, where_sql
from .statements import Statements

if TYPE_CHECKING:
    import numpy as np
    import psycopg
    from psycopg_pool import ConnectionPool

__all__ = ["PgvectorStore"]

log = logging.getLogger("ragloom.pgvector")


class PgvectorStore(Store):
    """Dense and keyword retrieval in PostgreSQL with pgvector; see the module docstring."""

    capabilities = frozenset({"dense", "text"})
    filter_operators = ALL_OPERATORS
    Config = PgvectorOptions
    config: PgvectorOptions

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._pool: ConnectionPool[Any] | None = None
        self._table: Table | None = None
        self._settings: Settings | None = None
        self._statements: Statements | None = None
        self._embedded: Path | None = None
        self._server = "PostgreSQL"  # the server, for messages (never the password)
        self._session_sql = ""
        # each pooled connection's hnsw.ef_search (search._rows changes it as k needs)
        self._ef_search: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()

    @property
    def location(self) -> str | None:
        """The table (its schema and name; never the DSN, which may hold a password)."""
        table = self._table
        return f"table {table.schema}.{table.name}" if table is not None else None

    @property
    def shared_writes(self) -> bool:
        """A PostgreSQL server (``dsn``) takes writes from many processes at once
        (each write is a transaction); the embedded server (no ``dsn``) lives in
        the index folder of one machine, so workers elsewhere could not reach it."""
        return self.config.dsn is not None

    @property
    def remote_queries(self) -> bool:
        """Every query is a round trip to a PostgreSQL server (the embedded one
        too runs as its own process): asked at once with the other stores."""
        return True

    # -- lifecycle -------------------------------------------------------------------
    def open(self, context: Context | None = None) -> None:
        super().open(context)
        name = self.context.name or "pgvector"
        self._table = Table(self.config.schema, self.config.table or default_table(name))
        dsn = self.config.dsn.get_secret_value() if self.config.dsn is not None else None
        if dsn is None:
            self._embedded = self.context.store_dir(self.config.path, "pgvector") / "pgdata"
            dsn = embedded.acquire(self._embedded, fresh=self.context.fresh)
            self._server = f"the embedded PostgreSQL in {self._embedded}"
        else:
            self._server = f"PostgreSQL at {describe_dsn(dsn)}"
        try:
            self._connect(dsn)
        except BaseException:
            self.close()
            raise

    def _connect(self, dsn: str) -> None:
        import psycopg
        from psycopg_pool import ConnectionPool

        table = self._table
        assert table is not None
        timeout = self.config.connect_timeout
        try:
            with psycopg.connect(
                dsn, autocommit=True, connect_timeout=max(1, math.ceil(timeout))
            ) as conn:
                version, search_path = check_database(conn, self.config)
                self._session_sql = session_sql(self.config, version, search_path)
                conn.execute(self._session_sql)
                settings = prepare_table(
                    conn,
                    table,
                    self.config,
                    fresh=self.context.fresh,
                    dimension=self._known_dimension(),
                )
        except psycopg.OperationalError as exc:
            raise StoreError(
                f"pgvector: cannot connect to PostgreSQL at {describe_dsn(dsn)}: "
                f"{first_line(exc)}; check `dsn:` and that the server runs"
            ) from exc
        except psycopg.Error as exc:
            raise StoreError(f"pgvector: preparing table {table}: {first_line(exc)}") from exc
        self._use(settings)
        quiet_pool_warnings()
        self._pool = ConnectionPool(
            dsn,
            min_size=1,
            max_size=self.config.pool_size,
            kwargs={"autocommit": True, "connect_timeout": max(1, math.ceil(timeout))},
            configure=self._configure,
            timeout=timeout,
            open=False,
            name=f"{POOL_PREFIX}{table}",
        )
        self._pool.open(wait=True, timeout=timeout)

    def _known_dimension(self) -> int | None:
        """The dimension known at open: ``dimension:``, else the embedder's."""
        if self.config.dimension is not None:
            return self.config.dimension
        embedder = self.context.services.get("embedder")
        if embedder is None:
            return None
        try:
            return int(embedder.dimension)
        except Exception:  # an embedder that cannot tell yet: the first upsert will
            return None

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        own(conn)
        conn.execute(self._session_sql)
        register_numpy_vectors(conn)
        self._ef_search[conn] = self.config.ef_search

    def _use(self, settings: Settings) -> None:
        self._settings = settings
        self._statements = Statements(
            self._table,  # type: ignore[arg-type]
            settings,
            self.config.text_match,
            self.config.text_rank,
        )

    def refresh(self) -> None:
        """Every write is visible at once; re-read the table's settings, which
        another process may have fixed (the dimension, at its first upsert)."""
        self._reload_settings()

    def _reload_settings(self) -> None:
        table = self._table
        if table is None or self._pool is None:
            return
        recorded = self._run(lambda conn: table.recorded(conn))
        if recorded is not None and recorded[1] != self._settings:
            self._use(recorded[1])

    def flush(self) -> None:
        """Writes commit as they happen; a vector index waiting for the first
        load (see ``Table.build_vector_index``) is built here."""
        settings = self._settings
        if self._pool is None or settings is None or not settings.index.get("pending"):
            return
        self._write(lambda conn: self._build_pending(conn))

    def _build_pending(self, conn: psycopg.Connection[Any]) -> None:
        table = self._table
        assert table is not None
        table.lock(conn)
        recorded = table.recorded(conn)
        if recorded is None:
            return
        version, settings = recorded
        if settings.index.get("pending") and not table.is_empty(conn):
            settings = apply_vectors(conn, table, self.config, settings, vectors=False)
            table.record(conn, version, settings)
        self._use(settings)

    def close(self) -> None:
        try:
            if self._pool is not None:
                try:
                    self.flush()
                finally:
                    pool, self._pool = self._pool, None
                    pool.close()
        finally:
            where, self._embedded = self._embedded, None
            if where is not None:
                embedded.release(where)

    # -- running SQL ------------------------------------------------------------------------
    def _opened(self) -> Statements:
        """The table's statements; ``StoreError`` when the store is not open."""
        if self._pool is None or self._statements is None:
            raise StoreError("the pgvector store is not open: call open() first")
        return self._statements

    def _run(self, work: Any, *, writes: bool = False) -> Any:
        """``work(conn)`` on a pooled connection, database errors as ``StoreError``
        (a lost connection, or none to be had, as ``_lost``)."""
        import psycopg
        from psycopg_pool import PoolTimeout

        if self._pool is None:
            raise StoreError("the pgvector store is not open: call open() first")
        try:
            with self._pool.connection() as conn:
                try:
                    return work(conn)
                except psycopg.Error as exc:
                    if conn.broken:  # the server went away under the statement
                        raise self._lost(exc, "lost the connection to", writes) from exc
                    raise
        except PoolTimeout as exc:  # none came back within `connect_timeout`
            waited = f"got no connection within {self.config.connect_timeout:g} s from"
            raise self._lost(exc, waited, writes, busy=True) from exc
        except psycopg.Error as exc:
            raise StoreError(f"pgvector {self._table}: {first_line(exc)}") from exc

    def _lost(
        self, exc: BaseException, what: str, writes: bool, *, busy: bool = False
    ) -> StoreError:
        """The server went away while the store was open: say so, that nothing
        is committed half-way, and what to do."""
        why = "the server stopped or cannot be reached" + (
            " (or all `pool_size` connections stayed busy that long)" if busy else ""
        )
        rolled = "the write under way was rolled back, and " if writes else ""
        start = (
            "run the command again, which starts the embedded server (restart a running "
            "`ragloom serve`)"
            if self._embedded is not None
            else "start the server (or check `dsn:` and the network), then run the command again"
        )
        return StoreError(
            f"pgvector {self._table}: {what} {self._server} ({first_line(exc)}): {why}. "
            f"Nothing is committed half-way: {rolled}an index run commits its version only "
            "once every store holds its chunks, so queries answer from the last version "
            f"committed. To go on, {start}; `ragloom index` removes what a stopped run wrote"
        )

    def _write(self, work: Any) -> Any:
        """``work(conn)`` in one transaction: all of it is written, or nothing."""

        def transaction(conn: psycopg.Connection[Any]) -> Any:
            with conn.transaction():
                return work(conn)

        return self._run(transaction, writes=True)

    # -- writes -----------------------------------------------------------------------------
    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray | None = None) -> None:
        import numpy as np

        matrix = None
        if vectors is not None:
            matrix = np.asarray(vectors, dtype=np.float32)
            if matrix.ndim != 2 or matrix.shape[0] != len(chunks):
                raise StoreError(
                    f"pgvector got {len(chunks)} chunks but vectors of shape {matrix.shape}"
                )
        if not chunks:
            return
        self._opened()
        if matrix is not None:
            self._check_width(matrix.shape[1], fix=True)
        last = {chunk.id: i for i, chunk in enumerate(chunks)}  # later duplicates win
        rows = [encode_chunk(chunks[i]) for i in last.values()]  # refuses before writing
        statements = self._statements
        assert statements is not None
        with_vectors = statements.settings.dimension is not None

        settings = statements.settings
        defer = settings.index.get("type") != "none" and not settings.index.get("pending")

        def write(conn: psycopg.Connection[Any]) -> None:
            if defer and statements.table.is_empty(conn):  # a first load: index at flush()
                statements.table.lock(conn)
                spec = statements.table.defer_vector_index(conn)
                if spec is not None:
                    self._use(replace(settings, index=spec))
            conn.execute(statements.stage())
            with conn.cursor().copy(statements.copy()) as copy:
                copy.set_types(statements.copy_types())
                for row, i in zip(rows, last.values()):
                    if with_vectors:
                        copy.write_row((*row, matrix[i] if matrix is not None else None))
                    else:
                        copy.write_row(row)
            conn.execute(statements.merge())

        self._write(write)

    def _check_width(self, width: int, *, fix: bool) -> None:
        settings = self._settings
        assert settings is not None
        if settings.dimension is None:
            self._reload_settings()
            settings = self._settings
            assert settings is not None
        if settings.dimension is None:
            if fix:
                self._write(lambda conn: self._fix_dimension(conn, width))
            return
        if settings.dimension != width:
            raise DimensionMismatchError(
                f"pgvector table {self._table} holds {settings.dimension}-dimensional vectors, "
                f"got {width}: the embedder changed; run `ragloom index --rebuild`"
            )

    def _fix_dimension(self, conn: psycopg.Connection[Any], width: int) -> None:
        """The first vectors fix the table's dimension: add the column and index."""
        table = self._table
        assert table is not None
        table.lock(conn)
        recorded = table.recorded(conn)
        assert recorded is not None
        version, settings = recorded
        if settings.dimension is None:
            settings = apply_vectors(
                conn, table, self.config, replace(settings, dimension=width), vectors=True
            )
            table.record(conn, version, settings)
        self._use(settings)
        if settings.dimension != width:
            raise DimensionMismatchError(
                f"pgvector table {table} holds {settings.dimension}-dimensional vectors, got "
                f"{width}: run `ragloom index --rebuild`"
            )

    def delete(self, *, ids: Sequence[str] | None = None, where: Filter | None = None) -> int:
        if ids is None and where is None:
            raise StoreError("delete needs ids= or where=; to empty a store, rebuild the index")
        check_supported(where, self.filter_operators, self.context.name or "pgvector")
        params = Params()
        parts = []
        if ids is not None:
            wanted = [i for i in ids if "\x00" not in i]  # no stored id holds NUL
            if not wanted and where is None:
                return 0
            parts.append(f"id = ANY({params.add(wanted)}::text[])")
        if where is not None:
            parts.append(where_sql(where, params))
        statement = self._opened().delete(" OR ".join(parts))
        return int(self._write(lambda conn: conn.execute(statement, params).rowcount))

    # -- reads ----------------------------------------------------------------------------------
    def count(self, where: Filter | None = None) -> int:
        check_supported(where, self.filter_operators, self.context.name or "pgvector")
        params = Params()
        statement = self._opened().count(where_sql(where, params))
        return int(self._run(lambda conn: conn.execute(statement, params).fetchone()[0]))

    def ids(self, where: Filter | None = None) -> Iterator[str]:
        check_supported(where, self.filter_operators, self.context.name or "pgvector")
        params = Params()
        statement = self._opened().ids(where_sql(where, params))
        return iter([r[0] for r in self._run(lambda conn: conn.execute(statement, params))])

    def query(
        self,
        *,
        vector: np.ndarray | None = None,
        text: str | None = None,
        k: int = 10,
        where: Filter | None = None,
    ) -> list[Hit]:
        check_supported(where, self.filter_operators, self.context.name or "pgvector")
        self._opened()
        return search(self, vector=vector, text=text, k=k, where=where)


def default_table(name: str) -> str:
    """``ragloom_<store name>``, as a plain identifier."""
    clean = re.sub(r"[^a-z0-9_]", "_", name.lower())
    return f"ragloom_{clean}"[:63]
