"""The server: what ``open()`` checks and creates before any table, and the
settings every pooled connection starts with.

- The database must be UTF8 (chunks are Unicode).
- The ``vector`` extension is created if missing (under an advisory lock, as
  several processes may open at once); a role without the right to create it
  gets told to ask an administrator. pgvector 0.5 is the least (HNSW),
  ``halfvec`` needs 0.7, iterative index scans 0.8: without them, filtered
  queries that come back short still run again exactly (``search``).
- Each connection sets its ``search_path`` to reach the extension's types
  and operators wherever it was installed, and the index's query-time
  options (``hnsw.ef_search``, ``hnsw.iterative_scan``, ``ivfflat.probes``...).
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from ragloom.errors import StoreError

if TYPE_CHECKING:
    import psycopg

    from .options import PgvectorOptions

__all__ = ["ITERATIVE_VERSION", "check_database", "describe_dsn", "first_line", "session_sql"]

log = logging.getLogger("ragloom.pgvector")

MIN_VERSION = (0, 5, 0)  # HNSW
HALFVEC_VERSION = (0, 7, 0)
ITERATIVE_VERSION = (0, 8, 0)
_EXTENSION = "SELECT extversion FROM pg_extension WHERE extname = 'vector'"


def check_database(
    conn: psycopg.Connection[Any], options: PgvectorOptions
) -> tuple[tuple[int, ...], str]:
    """Check the server and create the extension if missing; returns pgvector's
    version and the search_path that reaches the extension."""
    encoding = conn.execute("SHOW server_encoding").fetchone()[0]  # type: ignore[index]
    if encoding.upper() not in ("UTF8", "UTF-8"):
        raise StoreError(
            f"pgvector: the database encoding is {encoding}, not UTF8: ragloom stores "
            "Unicode text; create the database with ENCODING 'UTF8'"
        )
    row = conn.execute(_EXTENSION).fetchone()
    if row is None:
        _create_extension(conn)
        row = conn.execute(_EXTENSION).fetchone()
    installed = str(row[0])  # type: ignore[index]
    version = tuple(int(p) for p in re.findall(r"\d+", installed)[:3])
    if version < MIN_VERSION:
        raise StoreError(
            f"pgvector {installed} is installed; ragloom-pgvector needs 0.5 or later: "
            "run ALTER EXTENSION vector UPDATE"
        )
    if options.halfvec and version < HALFVEC_VERSION:
        raise StoreError(
            f"halfvec: true needs pgvector 0.7 or later, and {installed} is installed: "
            "run ALTER EXTENSION vector UPDATE"
        )
    if version < ITERATIVE_VERSION and options.index != "none":
        log.warning(
            "pgvector %s has no iterative index scans (0.8+): filtered queries that "
            "come back short of k run again exactly",
            installed,
        )
    schema, path = conn.execute(
        "SELECT n.nspname, current_setting('search_path') FROM pg_extension e "
        "JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'"
    ).fetchone()  # type: ignore[misc]
    from psycopg import sql

    if schema not in [p.strip().strip('"') for p in path.split(",")]:
        path = f"{path}, {sql.Identifier(schema).as_string(conn)}"
    return version, path


def _create_extension(conn: psycopg.Connection[Any]) -> None:
    import psycopg

    try:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('ragloom_pgvector', 0))")
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.errors.InsufficientPrivilege as exc:
        raise StoreError(
            "pgvector: the `vector` extension is not installed in this database and this "
            "role may not create it: ask an administrator to run CREATE EXTENSION vector"
        ) from exc
    except (psycopg.errors.UndefinedFile, psycopg.errors.FeatureNotSupported) as exc:
        raise StoreError(
            "pgvector: this PostgreSQL server has no pgvector extension to create: install "
            "pgvector on the server (https://github.com/pgvector/pgvector)"
        ) from exc


def session_sql(options: PgvectorOptions, version: tuple[int, ...], search_path: str) -> str:
    """The ``SET`` statements every connection runs first."""
    from psycopg import sql

    statements = [
        sql.SQL("SET search_path TO {}").format(sql.SQL(search_path)),
        sql.SQL("SET hnsw.ef_search = {}").format(sql.Literal(options.ef_search)),
        sql.SQL("SET ivfflat.probes = {}").format(sql.Literal(options.probes)),
    ]
    if version >= ITERATIVE_VERSION:
        ivf_scan = "off" if options.iterative_scan == "off" else "relaxed_order"
        statements += [
            sql.SQL("SET hnsw.iterative_scan = {}").format(sql.Literal(options.iterative_scan)),
            sql.SQL("SET hnsw.max_scan_tuples = {}").format(sql.Literal(options.max_scan_tuples)),
            sql.SQL("SET ivfflat.iterative_scan = {}").format(sql.Literal(ivf_scan)),
        ]
    return "; ".join(s.as_string(None) for s in statements)


def describe_dsn(dsn: str) -> str:
    """The DSN without its password, for messages."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        parts = conninfo_to_dict(dsn)
    except Exception:
        return "the configured dsn"
    shown = {k: v for k, v in parts.items() if k in ("host", "port", "dbname", "user")}
    return " ".join(f"{k}={v}" for k, v in shown.items()) or "the default server"


def first_line(exc: BaseException) -> str:
    """The first line of an error's message (PostgreSQL adds detail lines)."""
    text = str(exc).strip() or repr(exc)
    return text.splitlines()[0][:500]
