"""The memory store's vectorised filters are ``ragloom.filters.evaluate``, row by row."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ragloom.builtin.stores._columns import Columns
from ragloom.filters import And, Condition, Filter, Not, Or, evaluate, parse

FIELDS = ["a", "b", "tags"]

# strings chosen so that equality, order and ISO-date comparisons all get exercised
STRINGS = [
    "",
    "x",
    "pricing",
    "Pricing",
    "2024",
    "2024-05-01",
    "2024-05-01T00:00:00Z",
    "2024-05-01T12:00:00+02:00",
    "2024-05-01T10:00:00",
    "2023-12-31T23:59:59.999999",
    "2024-13-01",
    "abcd-ef-gh",
    "9999-12-31T23:59:59-05:00",
    "0001-01-01",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([2**53, -(2**53), 2024]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1.0, 2.5, 2024.0]),
    st.sampled_from(STRINGS),
    st.text(max_size=3),
)
# what a column cannot hold exactly: the field falls back to evaluate()
unusual = st.sampled_from([2**53 + 1, -(10**30), [["nested"]], {"a": 1}, np.float64(1.5)])
usual = st.one_of(scalars, st.lists(scalars, max_size=3), st.lists(scalars, max_size=2).map(tuple))
values = st.integers(0, 19).flatmap(lambda i: unusual if i == 0 else usual)
rows = st.lists(st.dictionaries(st.sampled_from(FIELDS), values, max_size=3), max_size=12)

arguments = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([2**53, 2**53 + 1, 2024]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(STRINGS),
)


@st.composite
def conditions(draw: st.DrawFn) -> Condition:
    field = draw(st.sampled_from(FIELDS))
    op = draw(
        st.sampled_from(["$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$exists"])
    )
    if op in ("$in", "$nin"):
        value: Any = tuple(draw(st.lists(arguments, max_size=4)))
    elif op == "$exists":
        value = draw(st.booleans())
    elif op in ("$eq", "$ne"):
        value = draw(arguments)
    else:  # includes what parse() rejects but evaluate() answers, e.g. {"$gt": true}
        value = draw(arguments.filter(lambda v: v is not None))
    return Condition(field, op, value)


filters = st.recursive(
    conditions(),
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: And(tuple(xs))),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: Or(tuple(xs))),
        inner.map(Not),
    ),
    max_leaves=6,
)


def reference(where: Filter | None, metadata: list[dict[str, Any]]) -> list[bool]:
    return [evaluate(where, m) for m in metadata]


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(metadata=rows, where=filters)
def test_mask_equals_evaluate_row_by_row(metadata: list[dict[str, Any]], where: Filter) -> None:
    mask = Columns(metadata).mask(where)
    assert mask.dtype == bool and mask.shape == (len(metadata),)
    assert mask.tolist() == reference(where, metadata)


@settings(max_examples=300, deadline=None)
@given(metadata=rows, first=filters, second=filters)
def test_columns_are_reused_across_filters(
    metadata: list[dict[str, Any]], first: Filter, second: Filter
) -> None:
    columns = Columns(metadata)
    for where in (first, second, first):
        assert columns.mask(where).tolist() == reference(where, metadata)


METADATA = [
    {"category": "pricing", "year": 2024, "draft": True, "tags": ["billing", "plans"]},
    {"category": "Pricing", "year": 2023.0, "draft": 1, "tags": []},
    {"category": "security", "year": "2024", "draft": False, "tags": "plans"},
    {"year": 2022, "published": "2024-03-01T09:30:00+02:00", "reviewer": None},
    {"category": None, "published": "2024-03-01", "tags": ["security"]},
    {"published": "unknown", "year": 2**60},
]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"category": "pricing"}, [0]),
        ({"category": None}, [4]),
        ({"category": {"$exists": False}}, [3, 5]),
        ({"year": 2023}, [1]),  # 1 == 1.0
        ({"year": {"$gte": 2023}}, [0, 1, 5]),  # "2024" is a string: never compares to a number
        ({"year": {"$gte": "2024"}}, [2]),
        ({"draft": True}, [0]),  # 1 is not True
        ({"draft": 1}, [1]),
        ({"tags": "plans"}, [0, 2]),  # any element of a list
        ({"tags": {"$ne": "plans"}}, [1, 3, 4, 5]),  # none of the elements; missing counts
        ({"tags": {"$nin": ["billing", "security"]}}, [1, 2, 3, 5]),
        ({"published": {"$lt": "2024-03-01T08:00:00Z"}}, [3, 4]),  # 07:30Z; date-only is UTC
        ({"published": {"$gt": "2024-01-01"}}, [3, 4, 5]),  # "unknown" compares as a string
        ({"reviewer": {"$exists": True}}, [3]),
        ({"$not": {"$or": [{"year": {"$lt": 2023}}, {"year": {"$exists": False}}]}}, [0, 1, 2, 5]),
    ],
)
def test_hand_written_cases(spec: dict[str, Any], expected: list[int]) -> None:
    where = parse(spec)
    mask = Columns(METADATA).mask(where)
    assert np.flatnonzero(mask).tolist() == expected
    assert mask.tolist() == reference(where, METADATA)


def test_no_filter_and_no_rows() -> None:
    assert Columns(METADATA).mask(None).all()
    assert Columns([]).mask(parse({"a": 1})).shape == (0,)
    assert Columns([{"a": 1}]).mask(And(())).tolist() == [True]
    assert Columns([{"a": 1}]).mask(Or(())).tolist() == [False]


def _memory_store(n: int, dim: int, seed: int = 1):
    from ragloom.builtin.stores.memory import MemoryStore
    from ragloom.types import Chunk

    rng = np.random.default_rng(seed)
    metadata = [
        {
            "category": f"c{rng.integers(10)}",
            "year": int(rng.integers(2000, 2026)),
            "tags": [f"t{t}" for t in rng.choice(8, int(rng.integers(0, 3)), replace=False)],
        }
        for _ in range(n)
    ]
    vectors = rng.standard_normal((n, dim), dtype=np.float32)
    store = MemoryStore()
    chunks = [Chunk(f"r{i}", "d", "", 0, 0, 0, "l", m) for i, m in enumerate(metadata)]
    store.upsert(chunks, vectors)
    return store, metadata, vectors, rng


@pytest.mark.parametrize(
    "spec",
    [
        {"category": "c3"},  # ~10%: only the matching rows are scored
        {"category": "c3", "tags": "t1"},  # ~2%
        {"year": {"$gte": 2003}},  # ~90%: the full product, masked
        {"$or": [{"tags": {"$nin": ["t1", "t2"]}}, {"category": {"$in": ["c1", "c2"]}}]},
        {"category": "nothing"},
    ],
)
def test_memory_store_filtered_top_k_is_brute_force(spec: dict[str, Any]) -> None:
    store, metadata, vectors, rng = _memory_store(3000, 16)
    where = parse(spec)
    allowed = np.array(reference(where, metadata))
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    assert store.count(where) == int(allowed.sum())
    for q in rng.standard_normal((5, 16), dtype=np.float32):
        scores = np.where(allowed, unit @ (q / np.linalg.norm(q)), -np.inf)
        for k in (1, 10, 400):
            expected = np.argsort(-scores, kind="stable")[: min(k, int(allowed.sum()))]
            hits = store.query(vector=q, k=k, where=where)
            assert [h.chunk.id for h in hits] == [f"r{i}" for i in expected]


def test_memory_store_columns_follow_writes() -> None:
    from ragloom.types import Chunk

    store, metadata, vectors, _ = _memory_store(200, 8)
    where = parse({"category": "new"})
    assert store.count(where) == 0 and store.query(vector=vectors[0], where=where) == []
    fresh = [Chunk(f"n{i}", "d", "", 0, 0, 0, "l", {"category": "new"}) for i in range(3)]
    store.upsert(fresh, vectors[:3])
    assert store.count(where) == 3
    assert {h.chunk.id for h in store.query(vector=vectors[0], where=where)} == {"n0", "n1", "n2"}
    store.upsert([Chunk("r0", "d", "", 0, 0, 0, "l", {"category": "new"})], vectors[:1])
    assert store.count(where) == 4
    assert store.delete(where=parse({"category": "new", "year": {"$exists": False}})) == 4
    assert store.count(where) == 0 and store.count() == 199
    assert store.delete(ids=["r1"]) == 1
    left = sum(evaluate(parse({"category": "c3"}), m) for m in metadata[2:])
    assert store.count(parse({"category": "c3"})) == left
