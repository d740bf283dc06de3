"""Bringing a store's table to what its config asks, in ``open()``.

In one transaction holding the schema's and the table's advisory locks:
the bookkeeping tables, then ``Context.fresh`` (drop the table), then either
a new table (every migration, the vector column if the dimension is known,
the vector index) or the existing one migrated, its settings checked
against the config (``schema.check_settings``: refused when the data
depends on them, adopted when the table is empty), and its vector index
rebuilt when the index options changed.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ragloom.errors import StoreError

from .schema import SCHEMA_VERSION, Settings, Table, VectorIndex, check_settings

if TYPE_CHECKING:
    import psycopg

    from .options import PgvectorOptions

__all__ = ["apply_vectors", "prepare_table", "wanted_settings"]

log = logging.getLogger("ragloom.pgvector")


def wanted_settings(options: PgvectorOptions, dimension: int | None) -> Settings:
    """The settings ``options`` ask for, with the dimension known at open."""
    return Settings(
        dimension=dimension,
        vector_type="halfvec" if options.halfvec else "vector",
        distance=options.distance,
        text_search_config=options.text_search_config,
        index=VectorIndex.from_options(options).spec(),
    )


def prepare_table(
    conn: psycopg.Connection[Any],
    table: Table,
    options: PgvectorOptions,
    *,
    fresh: bool,
    dimension: int | None,
) -> Settings:
    """Create or migrate ``table`` and reconcile it with ``options``; returns its settings."""
    _check_text_config(conn, options.text_search_config)
    with conn.transaction():
        conn.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
            [f"ragloom_pgvector:{table.schema}"],
        )
        table.bootstrap(conn)
        table.lock(conn)
        if fresh:
            table.drop(conn)
        recorded = table.recorded(conn)
        if recorded is None and table.exists(conn):
            raise StoreError(
                f"table {table} exists but was not created by ragloom-pgvector: set `table:` "
                "to another name (ragloom never writes into a table it did not create)"
            )
        if recorded is not None and not table.exists(conn):
            log.warning("pgvector: table %s was dropped; creating it again", table)
            table.drop(conn)
            recorded = None
        wanted = wanted_settings(options, dimension)
        if recorded is None:
            version = table.migrate(conn, 0, wanted.text_search_config)
            settings = apply_vectors(conn, table, options, wanted, vectors=True)
        else:
            version, old = recorded
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"table {table} has schema version {version}, made by a newer "
                    f"ragloom-pgvector (this one knows {SCHEMA_VERSION}): upgrade the plugin"
                )
            version = table.migrate(conn, version, old.text_search_config)
            changes = set(check_settings(table, old, wanted, empty=table.is_empty(conn)))
            settings = replace(
                old,
                dimension=wanted.dimension or old.dimension,
                vector_type=wanted.vector_type,
                distance=wanted.distance,
            )
            if "text_search_config" in changes:
                table.set_text_config(conn, wanted.text_search_config)
                settings = replace(settings, text_search_config=wanted.text_search_config)
            vectors = bool({"dimension", "vector_type"} & changes)
            if vectors or "distance" in changes or _index_differs(conn, table, options, old):
                settings = apply_vectors(conn, table, options, settings, vectors=vectors)
        table.record(conn, version, settings)
    return settings


def apply_vectors(
    conn: psycopg.Connection[Any],
    table: Table,
    options: PgvectorOptions,
    settings: Settings,
    *,
    vectors: bool,
) -> Settings:
    """Make the vector column (if ``vectors``: the table holds no vectors) and
    the vector index match ``settings``; returns them with the index built."""
    if vectors:
        table.set_vectors(conn, settings)
    built = table.build_vector_index(
        conn, settings, VectorIndex.from_options(options), options.maintenance_work_mem
    )
    return replace(settings, index=built)


def _check_text_config(conn: psycopg.Connection[Any], name: str) -> None:
    import psycopg

    try:
        conn.execute("SELECT %s::text::regconfig", [name])  # autocommit: a failure ends here
    except psycopg.errors.UndefinedObject:
        known = [r[0] for r in conn.execute("SELECT cfgname FROM pg_ts_config ORDER BY 1")]
        raise StoreError(
            f"text_search_config {name!r} is not a text search configuration of this "
            f"database; known: {', '.join(known)}"
        ) from None


def _index_differs(
    conn: psycopg.Connection[Any], table: Table, options: PgvectorOptions, old: Settings
) -> bool:
    """Whether the vector index built is not the one ``options`` ask for (or is missing)."""
    wanted = VectorIndex.from_options(options).spec()
    built = {k: v for k, v in old.index.items() if k != "pending"}
    if wanted["type"] == "ivfflat" and wanted.get("lists") is None:
        built.pop("lists", None)  # automatic lists: whatever was chosen stands
        wanted.pop("lists", None)
    if built != wanted:
        return True
    return (
        old.dimension is not None
        and wanted["type"] != "none"
        and not old.index.get("pending")
        and not table.has_vector_index(conn)
    )
