"""The SQL translation of filters equals ``ragloom.filters.evaluate``, on
metadata built to trip it: ints and floats around 2**53 and 1e23, -0.0,
booleans beside 0 and 1, null, numbers held as strings, ISO dates in every
form ``datetime.fromisoformat`` takes (time zones, week dates, odd
separators, fractions) beside impossible dates and plain strings, lists
(empty, mixed, nested), objects, and arguments no stored value can hold
(NaN, infinities, NUL characters)."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ragloom import Chunk, Context
from ragloom.errors import StoreError
from ragloom.filters import And, Condition, Filter, Not, Or, evaluate, parse

from ragloom_pgvector import PgvectorStore
from ragloom_pgvector.rows import as_date
from ragloom_pgvector.sqlfilter import Params, where_sql

FIELDS = ["a", "b", "c", "when", "missing"]

SCALARS: list[Any] = [
    0, 1, -1, 2, 7, 2023, 2024, 2**53, 2**53 + 1, -(2**53) - 1, 10**23, 10**30,
    0.0, -0.0, 0.1, 0.5, 1.0, 2.5, 2023.0, 2024.5, 1e23, 2.0**53, 1e300, -1e-300,
    True, False, None,
    "", "a", "b", "B", "ab", "é", "z", "1", "2024", "pricing", "Pricing",
    "2024-01-01", "2024-01-15", "2023-12-31T23:59:59", "2024-01-01T00:00:00Z",
    "2024-01-01T01:00:00+01:00", "2024-03-01T09:30:00+02:00", "2024-01-01 12:00",
    "2024-01-01T10", "2024-01-01T10:00:00.123456", "2024-01-01T10:00:00,5+05:30",
    "2024-W01-1", "2024-01-01x10:00", "2024-02-30", "2024-13-01", "unknown",
    "2024-01-01T10:00:00+0530", "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00",
    "20240101T10:00", "2024-1-01",
]  # fmt: skip
ARGS = [*SCALARS, float("inf"), float("-inf"), float("nan"), "a\x00b", "2024-01-01\x00"]


def metadata_rows(count: int = 240) -> list[dict[str, Any]]:
    rng = random.Random(7)
    rows = []
    for _ in range(count):
        meta: dict[str, Any] = {}
        for field in FIELDS[:-1]:
            pick = rng.random()
            if pick < 0.15:
                continue  # missing
            if pick < 0.6:
                meta[field] = rng.choice(SCALARS)
            elif pick < 0.9:
                meta[field] = rng.sample(SCALARS, rng.randint(0, 3))
            elif pick < 0.95:
                meta[field] = [rng.choice(SCALARS), [rng.choice(SCALARS)]]  # a nested list
            else:
                meta[field] = {"x": rng.choice(SCALARS)}
        rows.append(meta)
    return rows


ROWS = metadata_rows()


def conditions() -> st.SearchStrategy[Filter]:
    fields = st.sampled_from([*FIELDS, "x\x00"])
    args = st.sampled_from(ARGS)
    plain = st.builds(Condition, fields, st.sampled_from(["$eq", "$ne"]), args)
    listed = st.builds(
        Condition,
        fields,
        st.sampled_from(["$in", "$nin"]),
        st.lists(args, max_size=3).map(tuple),
    )
    ordered = st.builds(
        Condition,
        fields,
        st.sampled_from(["$gt", "$gte", "$lt", "$lte"]),
        args.filter(lambda v: not isinstance(v, bool) and isinstance(v, (int, float, str))),
    )
    exists = st.builds(Condition, fields, st.just("$exists"), st.booleans())
    return st.one_of(plain, listed, ordered, exists)


FILTERS = st.recursive(
    conditions(),
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3).map(lambda items: And(tuple(items))),
        st.lists(inner, min_size=1, max_size=3).map(lambda items: Or(tuple(items))),
        inner.map(Not),
    ),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def tricky(pg_dsn: str) -> Iterator[PgvectorStore]:
    store = PgvectorStore(dsn=pg_dsn, table="filter_property")
    store.open(Context(name="filters", fresh=True))
    chunks = [Chunk(f"r{i:03d}", "d", "text", 0, 0, 4, "l", meta) for i, meta in enumerate(ROWS)]
    store.upsert(chunks)
    yield store
    store.close()


def expected(where: Filter) -> set[str]:
    return {f"r{i:03d}" for i, meta in enumerate(ROWS) if evaluate(where, meta)}


@settings(max_examples=400, deadline=None)
@given(where=FILTERS)
def test_sql_matches_evaluate(tricky: PgvectorStore, where: Filter) -> None:
    assert set(tricky.ids(where)) == expected(where), where


@pytest.mark.parametrize("arg", [a for a in ARGS if isinstance(a, str)])
@pytest.mark.parametrize("op", ["$gt", "$gte", "$lt", "$lte", "$eq", "$ne"])
def test_every_string_argument(tricky: PgvectorStore, op: str, arg: str) -> None:
    for field in FIELDS:
        where = Condition(field, op, arg)
        assert set(tricky.ids(where)) == expected(where), where


@pytest.mark.parametrize(
    "arg", [a for a in ARGS if isinstance(a, (int, float)) and not isinstance(a, bool)]
)
@pytest.mark.parametrize("op", ["$gt", "$gte", "$lt", "$lte", "$eq", "$ne"])
def test_every_number_argument(tricky: PgvectorStore, op: str, arg: Any) -> None:
    for field in FIELDS:
        where = Condition(field, op, arg)
        assert set(tricky.ids(where)) == expected(where), where


def test_dates_follow_the_rule_of_ragloom_filters() -> None:
    """``rows.as_date`` is ragloom's ISO-date rule, string for string."""
    from ragloom.filters import _as_date  # the reference, private to ragloom

    for value in [*(s for s in ARGS if isinstance(s, str)), "2024-01-01T10:00:00.1234567"]:
        assert as_date(value) == _as_date(value), value


def test_values_are_bound_never_formatted() -> None:
    """Field names and values reach SQL only as parameters."""
    hostile = "x'); DROP TABLE chunks; --"
    where = parse({hostile: {"$in": [hostile]}, "$or": [{"f": {"$gte": hostile}}, {hostile: 1}]})
    params = Params()
    sql = where_sql(where, params)
    assert hostile not in sql and "DROP" not in sql
    assert hostile in params.values()


def test_hostile_field_names_work(tricky: PgvectorStore) -> None:
    where = parse({"a'; --": {"$exists": False}, "%s": {"$ne": 1}, "%(k)s": None})
    assert set(tricky.ids(where)) == expected(where)


@pytest.mark.parametrize(
    ("metadata", "what"),
    [
        ({"x": float("nan")}, "nan"),
        ({"x": [1.0, float("inf")]}, "inf"),
        ({"x": "a\x00b"}, "NUL"),
        ({"x\x00": 1}, "NUL"),
        ({"x": object()}, "object"),
    ],
)
def test_unstorable_metadata_is_refused(
    tricky: PgvectorStore, metadata: dict[str, Any], what: str
) -> None:
    before = tricky.count()
    chunk = Chunk("bad", "d", "text", 0, 0, 4, "l", metadata)
    with pytest.raises(StoreError, match=r"chunk 'bad'"):
        tricky.upsert([chunk])
    assert tricky.count() == before


def test_unstorable_text_is_refused(tricky: PgvectorStore) -> None:
    with pytest.raises(StoreError, match=r"NUL"):
        tricky.upsert([Chunk("bad", "d", "te\x00xt", 0, 0, 5, "l", {})])
    with pytest.raises(StoreError, match=r"Unicode"):
        tricky.upsert([Chunk("bad", "d", "te\ud800xt", 0, 0, 5, "l", {})])


def test_numbers_round_trip_exactly(pg_dsn: str) -> None:
    """Hits carry metadata exactly as upserted: key order, floats past 2**53,
    -0.0, big ints, nested values."""
    metadata = {
        "z": 1e23,
        "a": 2**70,
        "m": -0.0,
        "b": [1.5, {"k": None}],
        "n": 0.1,
        "t": True,
        "u": "café \U0001f600 \\u0000 \\ud800",  # non-ASCII, and escapes as text
        "\U0001f600": ["日本語"],
    }
    store = PgvectorStore(dsn=pg_dsn, table="round_trip")
    store.open(Context(name="rt", fresh=True))
    try:
        store.upsert([Chunk("c", "d", "alpha", 0, 0, 5, "l", metadata)])
        [hit] = store.query(text="alpha", k=1)
        assert list(hit.chunk.metadata) == list(metadata)
        assert hit.chunk.metadata == metadata
        assert (
            repr(hit.chunk.metadata["z"]) == "1e+23"
            and math.copysign(1, hit.chunk.metadata["m"]) < 0
        )
        assert store.count(parse({"z": 1e23})) == 1
        assert store.count(parse({"z": 10**23})) == 0  # 1e23 is not 10**23 exactly
        assert store.count(parse({"z": {"$lt": 10**23}})) == 1
        assert store.count(parse({"\U0001f600": "日本語", "u": metadata["u"]})) == 1
    finally:
        store.close()
