"""Approximate search that stays correct: the HNSW index answers, and a
selective filter (a rare category, an access filter) still returns ``k``
hits, the best ones, as exact search over the matching chunks would."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import psycopg
import pytest
from ragloom import Chunk, Context
from ragloom.access import access_filter
from ragloom.filters import Filter, evaluate, parse

from ragloom_pgvector import PgvectorStore

N, DIM = 3000, 32


def corpus() -> tuple[list[Chunk], np.ndarray]:
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((N, DIM)).astype(np.float32)
    chunks = []
    for i in range(N):
        meta: dict[str, Any] = {"category": "rare" if i % 600 == 7 else "common", "n": i}
        if i % 200 == 3:
            meta["principals"] = ["auditor"]
        elif i % 2:
            meta["principals"] = ["staff"]
        chunks.append(Chunk(f"c{i:04d}", f"d{i}", f"text {i}", 0, 0, 8, f"c{i}", meta))
    return chunks, vectors


CHUNKS, VECTORS = corpus()


def exact(query: np.ndarray, where: Filter | None, k: int) -> list[str]:
    normed = VECTORS / np.linalg.norm(VECTORS, axis=1, keepdims=True)
    scores = normed @ (query / np.linalg.norm(query))
    order = np.argsort(-scores, kind="stable")
    allowed = [i for i in order if where is None or evaluate(where, CHUNKS[i].metadata)]
    return [CHUNKS[i].id for i in allowed[:k]]


@pytest.fixture(scope="module")
def table(pg_dsn: str) -> Iterator[str]:
    store = PgvectorStore(dsn=pg_dsn, table="ann_filtered")
    store.open(Context(name="ann", fresh=True))
    store.upsert(CHUNKS, VECTORS)
    store.close()
    yield "ann_filtered"


@pytest.fixture
def ann(pg_dsn: str, table: str, request: pytest.FixtureRequest) -> Iterator[PgvectorStore]:
    options = getattr(request, "param", {})
    store = PgvectorStore(dsn=pg_dsn, table=table, **options)
    store.open(Context(name="ann"))
    yield store
    store.close()


def test_the_hnsw_index_answers(pg_dsn: str, table: str, ann: PgvectorStore) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("ANALYZE ann_filtered")
        plan = "\n".join(
            r[0]
            for r in conn.execute(
                "EXPLAIN SELECT id FROM ann_filtered ORDER BY embedding <=> %s::vector LIMIT 10",
                [str(VECTORS[0].tolist())],
            )
        )
    assert "ann_filtered_embedding_idx" in plan, plan
    with ann._pool.connection() as conn:  # type: ignore[union-attr]
        assert conn.execute("SHOW hnsw.iterative_scan").fetchone()[0] == "relaxed_order"
    hits = ann.query(vector=VECTORS[5], k=10)
    assert hits[0].chunk.id == "c0005"
    found = [h.chunk.id for h in hits]
    assert len(set(found) & set(exact(VECTORS[5], None, 10))) >= 9  # approximate


@pytest.mark.parametrize(
    "ann",
    [
        {},  # the defaults: iterative scans find the matches
        # scans give up early: the exact fallback when they come back short
        {"ef_search": 10, "max_scan_tuples": 50},
        {"iterative_scan": "off"},  # pgvector before 0.8: the exact fallback
        {"iterative_scan": "strict_order"},
    ],
    indirect=True,
    ids=["default", "scan-limit", "no-iterative-scan", "strict-order"],
)
@pytest.mark.parametrize(
    "spec",
    [
        {"category": "rare"},  # 5 chunks
        {"principals": {"$in": ["auditor"]}},  # 15 chunks: an access filter
        {"n": {"$gte": 2990}},  # 10 chunks, a range no GIN index answers
        {"$and": [{"category": "common"}, {"principals": {"$in": ["auditor"]}}]},
    ],
    ids=["rare-category", "access", "range", "and"],
)
def test_selective_filters_return_k_hits(ann: PgvectorStore, spec: dict[str, Any]) -> None:
    where = parse(spec)
    matches = {c.id for c in CHUNKS if evaluate(where, c.metadata)}
    # a scan cut short that still found k matches returns them: approximate,
    # as HNSW is (which ones depends on the graph, built at random)
    cut_short = ann.config.max_scan_tuples < N
    for q in (0, 1234, 2999):
        query = VECTORS[q] + 0.1
        for k in (1, 10, 40):
            hits = ann.query(vector=query, k=k, where=where)
            found = [h.chunk.id for h in hits]
            assert len(found) == min(k, len(matches)), (spec, k, found)
            assert set(found) <= matches, (spec, k, found)
            assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
            if not cut_short or k >= len(matches):
                assert found == exact(query, where, k), (spec, k)


@pytest.mark.parametrize("unlabeled", ["deny", "public"])
def test_access_filters_in_hybrid_queries(ann: PgvectorStore, unlabeled: str) -> None:
    acl = access_filter(["auditor"], unlabeled=unlabeled)  # type: ignore[arg-type]
    allowed = {c.id for c in CHUNKS if evaluate(acl, c.metadata)}
    hits = ann.query(vector=VECTORS[10], text="text", k=30, where=acl)
    assert len(hits) == min(30, len(allowed)) and {h.chunk.id for h in hits} <= allowed


def test_k_beyond_ef_search(ann: PgvectorStore) -> None:
    hits = ann.query(vector=VECTORS[1], k=300)
    assert len(hits) == 300
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)


def test_ef_search_follows_k_on_the_connection(ann: PgvectorStore) -> None:
    """Raised to k for a larger k, back to the option's for a smaller one; set
    on the connection once, not per query."""
    pool = ann._pool
    assert pool is not None and pool.get_stats()["pool_size"] == 1

    def shown() -> str:
        with pool.connection() as conn:
            return str(conn.execute("SHOW hnsw.ef_search").fetchone()[0])  # type: ignore[index]

    assert len(ann.query(vector=VECTORS[1], k=300)) == 300
    assert shown() == "300"
    assert len(ann.query(vector=VECTORS[1], k=10)) == 10
    assert shown() == "40"
