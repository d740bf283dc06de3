"""The SQL of reads and writes, built once per table and settings.

Identifiers are composed with ``psycopg.sql``; every value (vectors, texts,
``k``, filter values, field names) is a named parameter. Vector parameters
are sent in binary (``%(q)b``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .rows import CHUNK_COLUMNS

if TYPE_CHECKING:
    from psycopg import sql

    from .schema import Settings, Table

__all__ = ["STAGE", "Statements"]

STAGE = "ragloom_pgvector_stage"
"""The temporary table upserts copy rows into (one per connection, emptied at commit)."""

_WRITTEN = (*CHUNK_COLUMNS, "metadata", "metadata_dates")

_TSQUERY = {
    # plainto_tsquery ANDs the terms; OR them, so any shared term matches (as BM25)
    "any": "regexp_replace(plainto_tsquery(%(cfg)s::regconfig, %(text)s)::text, "
    "' (&|<[0-9]*->) ', ' | ', 'g')::tsquery",
    "all": "plainto_tsquery(%(cfg)s::regconfig, %(text)s)",
    "websearch": "websearch_to_tsquery(%(cfg)s::regconfig, %(text)s)",
}


class Statements:
    """SQL text for one table under its current settings.

    The read statements are rendered once to text with a ``{where}`` slot for
    the filter's SQL (``sqlfilter``), so a query costs a ``str.format``, and
    psycopg prepares each distinct text after a few runs."""

    def __init__(
        self, table: Table, settings: Settings, text_match: str, text_rank: str = "ts_rank_cd"
    ) -> None:
        from psycopg import sql

        self.table = table
        self.settings = settings
        cols = sql.SQL(", ").join(sql.Identifier(c) for c in CHUNK_COLUMNS)
        distance = sql.SQL("embedding {} %(q)b::{}").format(
            sql.SQL(settings.operator), sql.SQL(settings.vector_type)
        )
        where = sql.SQL("{where}")

        def render(statement: sql.Composable) -> str:
            return statement.as_string(None)

        dense = (
            "SELECT {cols}, embedding, {dist} AS distance FROM {table} "
            "WHERE embedding IS NOT NULL AND {where} ORDER BY {order} LIMIT %(k)s"
        )
        self._dense = render(
            sql.SQL(dense).format(
                cols=cols, dist=distance, table=table.sql, where=where, order=distance
            )
        )
        # ordered by an expression no vector index matches: PostgreSQL scans the
        # matching rows (through the filter's indexes, if any) and sorts them,
        # exact whatever plan a prepared statement kept
        self._dense_exact = render(
            sql.SQL(dense).format(
                cols=cols,
                dist=distance,
                table=table.sql,
                where=where,
                order=sql.SQL("({}) + 0").format(distance),
            )
        )
        self._text = render(
            sql.SQL(
                "SELECT {cols}, {rank}(tsv, q.query, %(norm)s) AS rank "
                "FROM {table}, (SELECT {tsquery} AS query) AS q "
                "WHERE tsv @@ q.query AND {where} ORDER BY rank DESC, id LIMIT %(k)s"
            ).format(
                cols=cols,
                rank=sql.Identifier(text_rank),
                table=table.sql,
                tsquery=sql.SQL(_TSQUERY[text_match]),
                where=where,
            )
        )
        self._count = render(
            sql.SQL("SELECT count(*) FROM {} WHERE {where}").format(table.sql, where=where)
        )
        self._ids = render(
            sql.SQL("SELECT id FROM {} WHERE {where}").format(table.sql, where=where)
        )
        self._delete = render(
            sql.SQL("DELETE FROM {} WHERE {where}").format(table.sql, where=where)
        )

    def dense(self, where: str, *, exact: bool = False) -> str:
        """Nearest first: chunk columns, the stored vector, the distance."""
        return (self._dense_exact if exact else self._dense).format(where=where)

    def text(self, where: str) -> str:
        """Best keyword match first: chunk columns, the rank (``ts_rank_cd`` or ``ts_rank``)."""
        return self._text.format(where=where)

    def count(self, where: str) -> str:
        return self._count.format(where=where)

    def ids(self, where: str) -> str:
        return self._ids.format(where=where)

    def delete(self, where: str) -> str:
        return self._delete.format(where=where)

    # -- upsert ------------------------------------------------------------------
    def stage(self) -> sql.Composed:
        """The per-connection staging table: text for the JSON (cast on insert),
        ``vector`` for the vectors (cast to ``halfvec`` on insert if need be)."""
        from psycopg import sql

        return sql.SQL(
            "CREATE TEMP TABLE IF NOT EXISTS {} (id text, document_id text, chunk_index bigint, "
            "start_offset bigint, end_offset bigint, label text, text text, metadata_json text, "
            "metadata text, metadata_dates text, embedding vector) ON COMMIT DELETE ROWS"
        ).format(sql.Identifier(STAGE))

    def copy(self) -> sql.Composed:
        from psycopg import sql

        return sql.SQL("COPY {} ({}) FROM STDIN (FORMAT BINARY)").format(
            sql.Identifier(STAGE), sql.SQL(", ").join(sql.Identifier(c) for c in self.staged())
        )

    def staged(self) -> tuple[str, ...]:
        return (*_WRITTEN, "embedding") if self.settings.dimension is not None else _WRITTEN

    def copy_types(self) -> list[str]:
        types = ["text", "text", "int8", "int8", "int8", "text", "text", "text", "text", "text"]
        return [*types, "vector"] if self.settings.dimension is not None else types

    def merge(self) -> sql.Composed:
        """Insert the staged rows, replacing those with the same id."""
        from psycopg import sql

        columns = self.staged()
        casts = {
            "metadata_json": sql.SQL("metadata_json::json"),
            "metadata": sql.SQL("metadata::jsonb"),
            "metadata_dates": sql.SQL("metadata_dates::jsonb"),
            "embedding": sql.SQL("embedding::{}").format(sql.SQL(self.settings.vector_type)),
        }
        select = sql.SQL(", ").join(casts.get(c, sql.Identifier(c)) for c in columns)
        updates = sql.SQL(", ").join(
            sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(c)) for c in columns if c != "id"
        )
        return sql.SQL(
            "INSERT INTO {table} ({cols}) SELECT {select} FROM {stage} "
            "ON CONFLICT (id) DO UPDATE SET {updates}"
        ).format(
            table=self.table.sql,
            cols=sql.SQL(", ").join(sql.Identifier(c) for c in columns),
            select=select,
            stage=sql.Identifier(STAGE),
            updates=updates,
        )
