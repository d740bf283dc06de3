"""The store's table: creation, migrations, settings, vector index.

Everything here runs in ``open()`` (and when the first vectors fix the
dimension), inside a transaction holding an advisory lock on the table, so
several processes opening the same store at once apply each step once.

Two small tables in the store's schema record the state:

- ``ragloom_pgvector_tables``: one row per chunks table: its schema version
  and the settings its data depends on (dimension, vector type, distance,
  text search configuration, vector index). A later open with other settings
  fails clearly, or adopts them when the table is empty.
- ``ragloom_pgvector_migrations``: each migration applied to each table, with
  its time. Migrations are idempotent SQL (``IF NOT EXISTS``) applied in
  order; a table created by an older version is brought up to date.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragloom.errors import DimensionMismatchError, StoreError

if TYPE_CHECKING:
    import psycopg
    from psycopg import sql

    from .options import PgvectorOptions

__all__ = ["MIGRATIONS", "Settings", "Table", "VectorIndex"]

log = logging.getLogger("ragloom.pgvector")

REGISTRY = "ragloom_pgvector_tables"
MIGRATION_LOG = "ragloom_pgvector_migrations"

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (1, "chunks table"),
    (2, "metadata: JSONB GIN index and the ISO-date column"),
    (3, "full text: generated tsvector column and its GIN index"),
)
"""(version, description) of every migration, in order; ``Table.migrate`` holds their SQL."""

SCHEMA_VERSION = MIGRATIONS[-1][0]

_OPERATORS = {"cosine": "<=>", "l2": "<->", "inner_product": "<#>"}
_OPCLASS = {"cosine": "cosine_ops", "l2": "l2_ops", "inner_product": "ip_ops"}
_MAX_INDEXED_DIMS = {"vector": 2000, "halfvec": 4000}


@dataclass(frozen=True)
class VectorIndex:
    """The vector index a config asks for (``lists`` resolved at build time)."""

    kind: str  # hnsw | ivfflat | none
    m: int
    ef_construction: int
    lists: int | None

    @classmethod
    def from_options(cls, options: PgvectorOptions) -> VectorIndex:
        if options.index == "hnsw":
            return cls("hnsw", options.m, options.ef_construction, None)
        if options.index == "ivfflat":
            return cls("ivfflat", 0, 0, options.lists)
        return cls("none", 0, 0, None)

    def spec(self, lists: int | None = None) -> dict[str, Any]:
        if self.kind == "hnsw":
            return {"type": "hnsw", "m": self.m, "ef_construction": self.ef_construction}
        if self.kind == "ivfflat":
            return {"type": "ivfflat", "lists": lists if lists is not None else self.lists}
        return {"type": "none"}


@dataclass(frozen=True)
class Settings:
    """What a table's data depends on, as recorded in ``ragloom_pgvector_tables``."""

    dimension: int | None
    vector_type: str  # vector | halfvec
    distance: str
    text_search_config: str
    index: dict[str, Any]

    @property
    def operator(self) -> str:
        return _OPERATORS[self.distance]

    @property
    def opclass(self) -> str:
        return f"{self.vector_type}_{_OPCLASS[self.distance]}"


def _short(name: str, suffix: str) -> str:
    """``<name>_<suffix>`` within PostgreSQL's 63-byte identifiers."""
    full = f"{name}_{suffix}"
    if len(full) <= 63:
        return full
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: 63 - len(suffix) - 10]}_{digest}_{suffix}"


class Table:
    """One store's chunks table, addressed as ``schema.table``."""

    def __init__(self, schema: str, name: str) -> None:
        from psycopg import sql

        self.schema = schema
        self.name = name
        self.sql = sql.Identifier(schema, name)
        self.registry = sql.Identifier(schema, REGISTRY)
        self.migration_log = sql.Identifier(schema, MIGRATION_LOG)
        self.lock_key = f"ragloom_pgvector:{schema}.{name}"

    def __str__(self) -> str:
        return f"{self.schema}.{self.name}"

    def index_name(self, suffix: str) -> sql.Identifier:
        from psycopg import sql

        return sql.Identifier(_short(self.name, suffix))

    # -- state -----------------------------------------------------------------
    def lock(self, conn: psycopg.Connection[Any]) -> None:
        """Hold the table's advisory lock until the transaction ends."""
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [self.lock_key])

    def bootstrap(self, conn: psycopg.Connection[Any]) -> None:
        """The schema and the two bookkeeping tables, if missing (checked first,
        so a role without CREATE rights works once they exist)."""
        from psycopg import sql

        if not conn.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = %s)", [self.schema]
        ).fetchone()[0]:  # type: ignore[index]
            conn.execute(
                sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(self.schema))
            )
        if not self._regclass(conn, REGISTRY):
            conn.execute(
                sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {} (table_name text PRIMARY KEY, "
                    "schema_version integer NOT NULL, dimension integer, "
                    "vector_type text NOT NULL, distance text NOT NULL, "
                    "text_search_config text NOT NULL, vector_index jsonb NOT NULL, "
                    "created_at timestamptz NOT NULL DEFAULT now(), "
                    "updated_at timestamptz NOT NULL DEFAULT now())"
                ).format(self.registry)
            )
        if not self._regclass(conn, MIGRATION_LOG):
            conn.execute(
                sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {} (table_name text NOT NULL, "
                    "version integer NOT NULL, description text NOT NULL, "
                    "applied_at timestamptz NOT NULL DEFAULT now(), "
                    "PRIMARY KEY (table_name, version))"
                ).format(self.migration_log)
            )

    def _regclass(self, conn: psycopg.Connection[Any], name: str) -> bool:
        from psycopg import sql

        qualified = sql.Identifier(self.schema, name).as_string(conn)
        row = conn.execute("SELECT to_regclass(%s)", [qualified]).fetchone()
        return row is not None and row[0] is not None

    def exists(self, conn: psycopg.Connection[Any]) -> bool:
        return self._regclass(conn, self.name)

    def recorded(self, conn: psycopg.Connection[Any]) -> tuple[int, Settings] | None:
        from psycopg import sql

        row = conn.execute(
            sql.SQL(
                "SELECT schema_version, dimension, vector_type, distance, text_search_config, "
                "vector_index FROM {} WHERE table_name = %s"
            ).format(self.registry),
            [self.name],
        ).fetchone()
        if row is None:
            return None
        return int(row[0]), Settings(row[1], row[2], row[3], row[4], row[5])

    def record(self, conn: psycopg.Connection[Any], version: int, settings: Settings) -> None:
        from psycopg import sql
        from psycopg.types.json import Jsonb

        conn.execute(
            sql.SQL(
                "INSERT INTO {} (table_name, schema_version, dimension, vector_type, distance, "
                "text_search_config, vector_index) VALUES (%s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (table_name) DO UPDATE SET schema_version = EXCLUDED.schema_version, "
                "dimension = EXCLUDED.dimension, vector_type = EXCLUDED.vector_type, "
                "distance = EXCLUDED.distance, text_search_config = EXCLUDED.text_search_config, "
                "vector_index = EXCLUDED.vector_index, updated_at = now()"
            ).format(self.registry),
            [
                self.name,
                version,
                settings.dimension,
                settings.vector_type,
                settings.distance,
                settings.text_search_config,
                Jsonb(settings.index),
            ],
        )

    def drop(self, conn: psycopg.Connection[Any]) -> None:
        """The table and its records, gone (``Context.fresh``)."""
        from psycopg import sql

        conn.execute(sql.SQL("DROP TABLE IF EXISTS {} CASCADE").format(self.sql))
        conn.execute(
            sql.SQL("DELETE FROM {} WHERE table_name = %s").format(self.registry), [self.name]
        )
        conn.execute(
            sql.SQL("DELETE FROM {} WHERE table_name = %s").format(self.migration_log), [self.name]
        )

    def is_empty(self, conn: psycopg.Connection[Any]) -> bool:
        from psycopg import sql

        return conn.execute(
            sql.SQL("SELECT NOT EXISTS (SELECT 1 FROM {})").format(self.sql)
        ).fetchone()[0]  # type: ignore[index]

    # -- migrations -----------------------------------------------------------------
    def migrate(self, conn: psycopg.Connection[Any], applied: int, text_config: str) -> int:
        """Apply every migration after version ``applied``; returns the new version."""
        from psycopg import sql

        steps: dict[int, list[sql.Composable]] = {
            1: [
                sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {} (id text PRIMARY KEY, "
                    "document_id text NOT NULL, chunk_index bigint NOT NULL, "
                    "start_offset bigint NOT NULL, end_offset bigint NOT NULL, "
                    "label text NOT NULL, text text NOT NULL, "
                    "metadata_json json NOT NULL, metadata jsonb NOT NULL)"
                ).format(self.sql)
            ],
            2: [
                sql.SQL("ALTER TABLE {} ADD COLUMN IF NOT EXISTS metadata_dates jsonb").format(
                    self.sql
                ),
                sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} USING gin (metadata)").format(
                    self.index_name("metadata_gin"), self.sql
                ),
            ],
            3: [
                sql.SQL(
                    "ALTER TABLE {} ADD COLUMN IF NOT EXISTS tsv tsvector GENERATED ALWAYS AS "
                    "(to_tsvector({}::regconfig, text)) STORED"
                ).format(self.sql, sql.Literal(text_config)),
                sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} USING gin (tsv)").format(
                    self.index_name("tsv_gin"), self.sql
                ),
            ],
        }
        for version, description in MIGRATIONS:
            if version <= applied:
                continue
            for statement in steps[version]:
                conn.execute(statement)
            conn.execute(
                sql.SQL(
                    "INSERT INTO {} (table_name, version, description) VALUES (%s, %s, %s) "
                    "ON CONFLICT DO NOTHING"
                ).format(self.migration_log),
                [self.name, version, description],
            )
            log.info("pgvector %s: applied migration %d (%s)", self, version, description)
            applied = version
        return applied

    def set_text_config(self, conn: psycopg.Connection[Any], text_config: str) -> None:
        """Regenerate the ``tsv`` column with another text search configuration."""
        from psycopg import sql

        conn.execute(sql.SQL("ALTER TABLE {} DROP COLUMN IF EXISTS tsv").format(self.sql))
        self.migrate(conn, 2, text_config)

    # -- vectors ------------------------------------------------------------------------
    def set_vectors(self, conn: psycopg.Connection[Any], settings: Settings) -> None:
        """(Re)create the ``embedding`` column for ``settings`` (the table is empty)."""
        from psycopg import sql

        self.drop_vector_index(conn)
        conn.execute(sql.SQL("ALTER TABLE {} DROP COLUMN IF EXISTS embedding").format(self.sql))
        if settings.dimension is not None:
            conn.execute(
                sql.SQL("ALTER TABLE {} ADD COLUMN embedding {}({})").format(
                    self.sql, sql.SQL(settings.vector_type), sql.Literal(settings.dimension)
                )
            )

    def drop_vector_index(self, conn: psycopg.Connection[Any]) -> None:
        from psycopg import sql

        conn.execute(
            sql.SQL("DROP INDEX IF EXISTS {}").format(
                sql.Identifier(self.schema, _short(self.name, "embedding_idx"))
            )
        )

    def has_vector_index(self, conn: psycopg.Connection[Any]) -> bool:
        return self._regclass(conn, _short(self.name, "embedding_idx"))

    def build_vector_index(
        self,
        conn: psycopg.Connection[Any],
        settings: Settings,
        index: VectorIndex,
        work_mem: str | None,
    ) -> dict[str, Any]:
        """Create the vector index ``index`` asks for; returns its spec, to record.

        Over an empty table the index waits (``"pending": true``) until
        ``flush()`` builds it over the rows loaded: building over data is many
        times faster than growing an HNSW graph row by row, and IVFFlat needs
        rows to train its lists on. Queries meanwhile are exact."""
        from psycopg import sql

        self.drop_vector_index(conn)
        if index.kind == "none" or settings.dimension is None:
            return index.spec()
        limit = _MAX_INDEXED_DIMS[settings.vector_type]
        if settings.dimension > limit:
            raise StoreError(
                f"pgvector indexes {settings.vector_type} columns of at most {limit} "
                f"dimensions, and {self} holds {settings.dimension}: set `halfvec: true` "
                "(up to 4000) or `index: none` (exact search)"
            )
        if self.is_empty(conn):
            return {**index.spec(), "pending": True}
        if work_mem:
            conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", [work_mem])
        name = self.index_name("embedding_idx")
        opclass = sql.SQL(settings.opclass)
        if index.kind == "hnsw":
            conn.execute(
                sql.SQL(
                    "CREATE INDEX {} ON {} USING hnsw (embedding {}) "
                    "WITH (m = {}, ef_construction = {})"
                ).format(
                    name,
                    self.sql,
                    opclass,
                    sql.Literal(index.m),
                    sql.Literal(index.ef_construction),
                )
            )
            return index.spec()
        rows = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(self.sql)).fetchone()[0]  # type: ignore[index]
        lists = index.lists or default_lists(rows)
        conn.execute(
            sql.SQL("CREATE INDEX {} ON {} USING ivfflat (embedding {}) WITH (lists = {})").format(
                name, self.sql, opclass, sql.Literal(lists)
            )
        )
        return index.spec(lists)

    def defer_vector_index(self, conn: psycopg.Connection[Any]) -> dict[str, Any] | None:
        """Before a load into an empty table: drop its vector index and record it
        pending, for ``flush()`` to build over the rows. Returns the new spec, or
        None when there is nothing to defer."""
        recorded = self.recorded(conn)
        if recorded is None:
            return None
        version, settings = recorded
        if settings.index.get("type") == "none" or settings.index.get("pending"):
            return None
        if not self.is_empty(conn):
            return None
        self.drop_vector_index(conn)
        spec = {**settings.index, "pending": True}
        self.record(conn, version, Settings(**{**settings.__dict__, "index": spec}))
        return spec


def default_lists(rows: int) -> int:
    """pgvector's advice: rows / 1000 up to a million rows, sqrt(rows) beyond."""
    if rows <= 1_000_000:
        return max(1, rows // 1000)
    return int(rows**0.5)


def check_settings(table: Table, recorded: Settings, wanted: Settings, *, empty: bool) -> list[str]:
    """Which settings of ``wanted`` differ from the table's. Raises when the
    data depends on one and the table holds data; returns the names to adopt."""
    changes: list[str] = []
    checks = (
        ("dimension", recorded.dimension, wanted.dimension),
        ("vector_type", recorded.vector_type, wanted.vector_type),
        ("distance", recorded.distance, wanted.distance),
        ("text_search_config", recorded.text_search_config, wanted.text_search_config),
    )
    for name, old, new in checks:
        if new is None or old is None or old == new:
            if name == "dimension" and old is None and new is not None:
                changes.append(name)
            continue
        if not empty:
            option = {"vector_type": "halfvec", "dimension": "dimension"}.get(name, name)
            shown = {"vector_type": ("halfvec: " + str(old == "halfvec").lower())}.get(
                name, f"{option}: {old}"
            )
            message = (
                f"table {table} holds data made with {name.replace('_', ' ')} {old!r}, but the "
                f"config asks for {new!r}: set `{shown}` back, use another `table:`, or run "
                "`ragloom index --rebuild` to start the table afresh"
            )
            if name == "dimension":
                raise DimensionMismatchError(
                    f"table {table} holds {old}-dimensional vectors, but the embedder makes {new}: "
                    "the embedder changed; run `ragloom index --rebuild`, or use another `table:`"
                )
            raise StoreError(message)
        changes.append(name)
    return changes
