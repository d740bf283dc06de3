"""Queries of the ``pgvector`` store: dense, keyword, and both fused.

Dense queries order by the distance operator so the vector index answers
them. An approximate index (HNSW, IVFFlat) may come back with fewer than
``k`` rows under a selective filter even with pgvector 0.8's iterative
scans (they stop after ``max_scan_tuples``); the query then runs again
ordered by an expression no vector index answers, which PostgreSQL answers
exactly from the filter (its GIN index, or a scan). So a filter never costs
matches: ``k`` hits whenever ``k`` chunks match.

A query given both a vector and a text (``search: hybrid``) runs both and
fuses them with ``ragloom.fusion`` (``fusion``, ``rrf_k``, weights); each hit
keeps its dense and keyword scores in ``Hit.scores`` as ``<name>.dense`` and
``<name>.text``.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ragloom import Hit
from ragloom.errors import StoreError
from ragloom.fusion import fuse

from .rows import chunk_from_row
from .sqlfilter import Params, where_sql

if TYPE_CHECKING:
    import numpy as np
    import psycopg
    from ragloom.filters import Filter

    from .store import PgvectorStore

__all__ = ["search"]


def search(
    store: PgvectorStore,
    *,
    vector: np.ndarray | None,
    text: str | None,
    k: int,
    where: Filter | None,
) -> list[Hit]:
    mode = store.config.search
    dense = vector is not None and not (mode == "text" and text is not None)
    keyword = text is not None and not (mode == "dense" and vector is not None)
    if not dense and not keyword:
        raise StoreError("a pgvector query needs vector= (dense) or text= (keyword)")
    if k <= 0:
        return []
    name = store.context.name or "pgvector"
    if dense and not keyword:
        return _dense(store, vector, k, where, name)
    if keyword and not dense:
        return _keyword(store, text or "", k, where, name)
    both = [
        _dense(store, vector, k, where, f"{name}.dense"),
        _keyword(store, text or "", k, where, f"{name}.text"),
    ]
    c = store.config
    fused = fuse(both, method=c.fusion, k=c.rrf_k, weights=[c.dense_weight, c.text_weight])
    hits = []
    for hit in fused[:k]:
        scores = {key: value for key, value in hit.scores.items() if key != "fusion"}
        scores[name] = hit.score
        hits.append(replace(hit, store=name, scores=scores))
    return hits


def _rows(
    store: PgvectorStore, statement: Any, params: Params, ef_search: int | None = None
) -> list[Any]:
    """The statement's rows, on a pooled connection whose ``hnsw.ef_search`` is
    ``ef_search`` when given. The setting stays on the connection, which
    remembers it (``store._ef_search``): a run of queries with one ``k`` sets
    it once, not three extra round trips (BEGIN, SET LOCAL, COMMIT) each."""

    def work(conn: psycopg.Connection[Any]) -> list[Any]:
        if ef_search is not None and store._ef_search.get(conn) != ef_search:
            conn.execute(f"SET hnsw.ef_search = {int(ef_search)}")
            store._ef_search[conn] = ef_search
        return conn.execute(statement, params, binary=True).fetchall()

    return store._run(work)  # type: ignore[no-any-return]


def _dense(store: PgvectorStore, vector: Any, k: int, where: Filter | None, name: str) -> list[Hit]:
    import numpy as np

    query = np.ascontiguousarray(np.asarray(vector, dtype=np.float32).reshape(-1))
    store._check_width(int(query.shape[0]), fix=False)
    settings = store._settings
    statements = store._statements
    assert settings is not None and statements is not None
    if settings.dimension is None:
        return []  # no vector stored yet
    params = Params()
    where_text = where_sql(where, params)
    params["q"] = query
    params["k"] = k
    kind = settings.index.get("type")
    approximate = kind in ("hnsw", "ivfflat") and not settings.index.get("pending")
    # HNSW returns at most ef_search rows: raised to k when k is larger
    ef_search = max(k, store.config.ef_search) if kind == "hnsw" else None
    rows = _rows(
        store, statements.dense(where_text), params, min(ef_search, 1000) if ef_search else None
    )
    if approximate and len(rows) < k:  # short: the matches are few, so exact is cheap
        rows = _rows(store, statements.dense(where_text, exact=True), params)
    similarity = _SIMILARITY[settings.distance]
    hits = []
    for row in rows:
        distance = float(row[9])
        score = 0.0 if math.isnan(distance) else similarity(distance)
        hits.append(
            Hit(
                chunk=chunk_from_row(row),
                score=score,
                store=name,
                scores={name: score},
                vector=row[8],  # a float32 array (rows.register_numpy_vectors)
            )
        )
    hits.sort(key=lambda hit: -hit.score)  # relaxed_order scans may come back out of order
    return hits


_SIMILARITY = {
    "cosine": lambda d: 1.0 - d,  # <=> is the cosine distance
    "l2": lambda d: -d,  # <-> is the Euclidean distance
    "inner_product": lambda d: -d,  # <#> is the negative inner product
}


def _keyword(store: PgvectorStore, text: str, k: int, where: Filter | None, name: str) -> list[Hit]:
    settings = store._settings
    statements = store._statements
    assert settings is not None and statements is not None
    params = Params()
    statement = statements.text(where_sql(where, params))
    params["cfg"] = settings.text_search_config
    params["text"] = text.replace("\x00", " ")
    params["norm"] = store.config.rank_normalization
    params["k"] = k
    hits = []
    for row in _rows(store, statement, params):
        score = float(row[8])
        hits.append(Hit(chunk=chunk_from_row(row), score=score, store=name, scores={name: score}))
    return hits
