"""The options of ``type: pgvector``: a frozen pydantic model, unknown keys rejected.

Every option is checked when the config is (``ragloom config check``), before
anything connects: identifiers, index parameters and their bounds, and the
combinations pgvector refuses (``ef_construction`` under ``2 * m``).
"""

from __future__ import annotations

import re
import warnings
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from ragloom import ComponentConfig

__all__ = ["IDENTIFIER", "PgvectorOptions"]

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
"""A PostgreSQL identifier ragloom accepts for ``schema`` and ``table``: plain
letters, digits and underscores (quoted in SQL anyway), at most 63 bytes."""

_TEXT_CONFIG = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*\.)?[A-Za-z_][A-Za-z0-9_]*$")


# `schema` is the option's natural name; it shadows pydantic's deprecated
# BaseModel.schema() classmethod, which pydantic warns about when the class is made
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message='Field name "schema"', category=UserWarning)

    class PgvectorOptions(ComponentConfig):
        """Options of the ``pgvector`` store; see docs/plugins/pgvector.md."""

        dsn: SecretStr | None = None
        """libpq connection string or URL (``postgresql://user:pw@host/db``); write
        ``${DATABASE_URL}`` to read it from the environment. Unset or empty: an
        embedded PostgreSQL under ``path`` (needs ``ragloom-pgvector[embedded]``)."""
        path: str | None = None
        """Embedded server only: the folder holding its data directory; default
        ``<index_dir>/<store name>``."""
        schema: str = "public"
        """Schema of the table (created if missing)."""
        table: str | None = None
        """Table name; default ``ragloom_<store name>``."""
        pool_size: int = Field(4, ge=1, le=1000)
        """Most connections the store holds: queries from that many threads run at once."""
        connect_timeout: float = Field(10.0, gt=0)
        """Seconds to wait for a connection before failing."""

        dimension: int | None = Field(None, ge=1, le=16000)
        """Vector width; default: the embedder's, else the first upsert's."""
        distance: Literal["cosine", "l2", "inner_product"] = "cosine"
        """How vectors compare; scores are cosine similarity, -L2 distance or the dot product."""
        halfvec: bool = False
        """Store vectors as 16-bit floats (``halfvec``): half the memory and disk."""

        index: Literal["hnsw", "ivfflat", "none"] = "hnsw"
        """Vector index: ``hnsw`` (approximate, fast), ``ivfflat`` (approximate,
        built at the first ``flush()`` with data), ``none`` (exact scan)."""
        m: int = Field(16, ge=2, le=100)
        """HNSW: links per node."""
        ef_construction: int = Field(64, ge=4, le=1000)
        """HNSW: candidate list size while building; at least ``2 * m``."""
        ef_search: int = Field(40, ge=1, le=1000)
        """HNSW: candidate list size per query (raised to ``k`` when ``k`` is larger)."""
        lists: int | None = Field(None, ge=1, le=32768)
        """IVFFlat: number of lists; default rows / 1000 (sqrt(rows) past a million), at least 1."""
        probes: int = Field(10, ge=1, le=32768)
        """IVFFlat: lists searched per query."""
        iterative_scan: Literal["relaxed_order", "strict_order", "off"] = "relaxed_order"
        """pgvector 0.8 iterative index scans: a filtered query scans on until it has
        ``k`` matches (``strict_order`` is HNSW only)."""
        max_scan_tuples: int = Field(20000, ge=1)
        """HNSW: most tuples an iterative scan visits before the exact fallback."""
        maintenance_work_mem: str | None = "512MB"
        """Memory for building a vector index (``SET LOCAL maintenance_work_mem``);
        unset: the server's setting."""

        text_search_config: str = "english"
        """PostgreSQL text search configuration of the ``tsv`` column (``english``,
        ``simple``, ``german``...)."""
        text_match: Literal["any", "all", "websearch"] = "any"
        """Which chunks a keyword query matches: ``any`` query term (as BM25),
        ``all`` of them, or ``websearch`` syntax (``"a phrase" or -word``)."""
        text_rank: Literal["ts_rank_cd", "ts_rank"] = "ts_rank_cd"
        """How keyword matches are ranked: ``ts_rank_cd`` (cover density: how
        often and how close together the terms occur) or ``ts_rank`` (how often)."""
        rank_normalization: int = Field(0, ge=0, le=63)
        """Normalization bits of the rank function: 0 none, 1 divides by 1 + log(length),
        2 by length, 4 by mean harmonic distance between extents, 8 by unique
        words, 16 by 1 + log(unique words), 32 rank / (rank + 1)."""

        search: Literal["hybrid", "dense", "text"] = "hybrid"
        """What a query given both a vector and a text searches: both, fused
        (``hybrid``), or one of them."""
        fusion: Literal["rrf", "weighted", "dbsf"] = "rrf"
        """How ``hybrid`` fuses the dense and keyword lists (as ``retrieval.fusion``)."""
        rrf_k: int = Field(60, gt=0)
        """The k constant of reciprocal rank fusion."""
        dense_weight: float = Field(1.0, ge=0)
        """Weight of the dense list in ``hybrid`` fusion."""
        text_weight: float = Field(1.0, ge=0)
        """Weight of the keyword list in ``hybrid`` fusion."""

        @field_validator("dsn", mode="before")
        @classmethod
        def _empty_dsn(cls, value: object) -> object:
            # `dsn: ${DATABASE_URL:-}` with the variable unset means "embedded"
            if value is None or (isinstance(value, str) and not value.strip()):
                return None
            if isinstance(value, SecretStr) and not value.get_secret_value().strip():
                return None
            return value

        @field_validator("schema", "table")
        @classmethod
        def _identifier(cls, value: str | None) -> str | None:
            if value is not None and not IDENTIFIER.match(value):
                raise ValueError(
                    f"{value!r} is not a plain SQL identifier: use letters, digits and "
                    "underscores, starting with a letter or underscore, at most 63 characters"
                )
            return value

        @field_validator("text_search_config")
        @classmethod
        def _text_config(cls, value: str) -> str:
            if not _TEXT_CONFIG.match(value):
                raise ValueError(
                    f"{value!r} is not a text search configuration name such as english, "
                    "simple or myschema.my_config"
                )
            return value

        @field_validator("maintenance_work_mem")
        @classmethod
        def _memory(cls, value: str | None) -> str | None:
            if value is not None and not re.match(r"^\d+\s*(kB|MB|GB|TB)?$", value):
                raise ValueError(f"{value!r} is not a memory size such as 512MB or 2GB")
            return value

        @model_validator(mode="after")
        def _combinations(self) -> PgvectorOptions:
            if self.ef_construction < 2 * self.m:
                raise ValueError(
                    f"ef_construction ({self.ef_construction}) must be at least 2 * m "
                    f"({2 * self.m}): pgvector refuses the index otherwise"
                )
            if self.iterative_scan == "strict_order" and self.index == "ivfflat":
                raise ValueError(
                    "iterative_scan: strict_order is for hnsw; ivfflat scans in relaxed_order"
                )
            return self
