"""The store contract of ragloom.testing, dense, keyword and both, against
the embedded PostgreSQL, under several index, distance and vector types;
and against a server of your own when PGVECTOR_TEST_DSN is set."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pgvector_support import table_for
from ragloom.testing import HybridStoreContract

from ragloom_pgvector import PgvectorStore

Factory = Callable[[Path], PgvectorStore]


class TestPgvectorHnswCosine(HybridStoreContract):
    """The defaults: HNSW, cosine distance, float32 vectors."""

    @pytest.fixture
    def store_factory(self, pg_dsn: str) -> Factory:
        return lambda path: PgvectorStore(dsn=pg_dsn, table=table_for(path))


class TestPgvectorExactL2(HybridStoreContract):
    """No vector index (exact scans), Euclidean distance; keywords ranked by
    ``ts_rank`` with length normalization."""

    @pytest.fixture
    def store_factory(self, pg_dsn: str) -> Factory:
        return lambda path: PgvectorStore(
            dsn=pg_dsn,
            table=table_for(path),
            index="none",
            distance="l2",
            text_rank="ts_rank",
            rank_normalization=1,
        )


class TestPgvectorIvfflatHalfvecInnerProduct(HybridStoreContract):
    """IVFFlat (built at flush), half-precision vectors, inner product, another schema."""

    @pytest.fixture
    def store_factory(self, pg_dsn: str) -> Factory:
        return lambda path: PgvectorStore(
            dsn=pg_dsn,
            schema="ragloom_ivf",
            table=table_for(path),
            index="ivfflat",
            lists=2,
            probes=1,
            halfvec=True,
            distance="inner_product",
        )


LIVE_DSN = os.environ.get("PGVECTOR_TEST_DSN")


@pytest.mark.integration
@pytest.mark.skipif(
    not LIVE_DSN, reason="set PGVECTOR_TEST_DSN to a PostgreSQL database with pgvector to run"
)
class TestPgvectorLiveServer(HybridStoreContract):
    """The contract against a server of your own (tables in schema ragloom_test)."""

    @pytest.fixture
    def store_factory(self) -> Any:
        run = uuid.uuid4().hex[:8]
        return lambda path: PgvectorStore(
            dsn=LIVE_DSN, schema="ragloom_test", table=table_for(path, f"t{run}")
        )
