"""The filter translation: exact against ``ragloom.filters.evaluate`` on random
metadata and random filters, on both embedded engines; the string encoding;
and the values no Qdrant condition holds exactly, refused everywhere."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ragloom import Chunk, Context
from ragloom.access import access_filter
from ragloom.errors import FilterError, UnsupportedFilterError
from ragloom.filters import Condition, evaluate, parse

from ragloom_qdrant import QdrantStore
from ragloom_qdrant.filters import Bool, Match, MatchAny, Range, translate
from ragloom_qdrant.payload import string_chunks

# -- random metadata and filters -----------------------------------------------------
STRINGS = ["", "a", "ab", "abc", "b", "pricing", "Pricing", "pricin", "pricingz", "é", "zz",
           "2024", "unknown", "2024-01-15", "2023-06-30T12:00:00Z", "2024-03-01T09:30:00+02:00",
           "2023-12-31T23:59:59", "2024-01-01", "2024-01-15T00:00:00.000001", "2024-13-01",
           "x" * 70, "x" * 69 + "y", "\U0001f600", "a\U0001f600"]  # fmt: skip
NUMBERS = [0, 1, -1, 2, 2.5, 3, 1.0, 2023, 2023.0, 2024, -0.5, 10**12, 2**53 + 1, 1e300]
SCALARS: list[Any] = [*STRINGS, *NUMBERS, True, False, None]
# filter arguments: what the store compares exactly (bigger numbers and longer
# range bounds are refused, as tested below)
ARGUMENTS = [s for s in SCALARS if not isinstance(s, (int, float)) or abs(s) < 2**53]
BOUNDS = [s for s in ARGUMENTS if s is not None and not isinstance(s, bool)
          and (not isinstance(s, str) or len(s) <= 64)]  # fmt: skip
FIELDS = ["f", "g", "h", "odd key"]


def random_value(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.6:
        return rng.choice(SCALARS)
    if roll < 0.9:
        return [rng.choice(SCALARS) for _ in range(rng.randint(0, 3))]
    return {"nested": rng.choice(SCALARS)}


def random_metadata(rng: random.Random) -> dict[str, Any]:
    return {f: random_value(rng) for f in FIELDS if rng.random() < 0.7}


def random_condition(rng: random.Random) -> dict[str, Any]:
    field = rng.choice(FIELDS)
    op = rng.choice(["$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$exists"])
    if op in ("$in", "$nin"):
        arg: Any = [rng.choice(ARGUMENTS) for _ in range(rng.randint(0, 3))]
    elif op == "$exists":
        arg = rng.random() < 0.5
    elif op in ("$gt", "$gte", "$lt", "$lte"):
        arg = rng.choice(BOUNDS)
    else:
        arg = rng.choice(ARGUMENTS)
    return {field: {op: arg}}


def random_filter(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    roll = rng.random()
    if depth >= 2 or roll < 0.55:
        return random_condition(rng)
    if roll < 0.7:
        return {"$not": random_filter(rng, depth + 1)}
    key = "$or" if roll < 0.85 else "$and"
    return {key: [random_filter(rng, depth + 1) for _ in range(rng.randint(1, 3))]}


def random_chunks(count: int, seed: int) -> list[Chunk]:
    rng = random.Random(seed)
    return [
        Chunk(f"r{i}", f"doc{i}", f"text {i}", 0, 0, 6, f"r{i}#0", random_metadata(rng))
        for i in range(count)
    ]


@pytest.fixture(scope="module", params=["edge", "local"])
def random_store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[QdrantStore, list[Chunk]]]:
    path = tmp_path_factory.mktemp(f"random-{request.param}")
    store = QdrantStore(engine=request.param)
    store.open(
        Context(index_dir=path, base_dir=path, name="random", filter_fields=frozenset(FIELDS))
    )
    chunks = random_chunks(150, seed=7)
    vectors = np.random.default_rng(0).standard_normal((len(chunks), 8)).astype(np.float32)
    store.upsert(chunks, vectors)
    yield store, chunks
    store.close()


def test_random_filters_match_evaluate(random_store: tuple[QdrantStore, list[Chunk]]) -> None:
    """Whatever the metadata and the filter, the store selects exactly the chunks
    ``ragloom.filters.evaluate`` accepts: by count, by ids and by query."""
    store, chunks = random_store
    rng = random.Random(11)
    query = np.ones(8, dtype=np.float32)
    checked = 0
    rounds = 300 if store.config.engine == "edge" else 100  # local mode filters in Python
    for _ in range(rounds):
        spec = random_filter(rng)
        where = parse(spec)
        expected = {c.id for c in chunks if evaluate(where, c.metadata)}
        assert store.count(where) == len(expected), spec
        assert set(store.ids(where)) == expected, spec
        hits = store.query(vector=query, k=len(chunks), where=where)
        assert {h.chunk.id for h in hits} == expected, spec
        checked += bool(expected) and len(expected) < len(chunks)
    assert checked > rounds // 4  # many filters selected something, and not everything


def test_the_random_data_covers_the_hard_cases() -> None:
    """The random chunks hold what the translation must get right."""
    values = [v for c in random_chunks(150, seed=7) for v in c.metadata.values()]
    flat = [x for v in values for x in (v if isinstance(v, list) else [v])]
    assert any(v == [] for v in values) and None in flat
    assert True in flat and 1 in [x for x in flat if not isinstance(x, bool)]
    assert "unknown" in flat and "2024-03-01T09:30:00+02:00" in flat
    assert any(isinstance(v, dict) for v in values)


# -- the string encoding -----------------------------------------------------------------
def test_packed_strings_sort_as_python_strings() -> None:
    rng = random.Random(3)
    alphabet = ["a", "b", "z", "A", "0", "-", "é", "\U0001f600", "\x00", "\uffff"]
    words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 7))) for _ in range(400)]
    for a, b in zip(words, words[1:] + words[:1]):
        ca, cb = string_chunks(a), string_chunks(b)
        assert (ca < cb) == (a < b) and (ca == cb) == (a == b), (a, b)
        assert all(0 < c < 2**53 for c in ca)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"category": "pricing"}, Bool(must=(Match("_filter.category.s", "pricing"),))),
        ({"draft": True}, Bool(must=(Match("_filter.draft.b", 1),))),
        ({"year": 2023}, Bool(must=(Range("_filter.year.n", gte=2023.0, lte=2023.0),))),
        ({"year": {"$gte": 2024}}, Bool(must=(Range("_filter.year.n", gte=2024.0),))),
        ({"tags": {"$in": ["a", "b"]}}, Bool(must=(MatchAny("_filter.tags.s", ("a", "b")),))),
        (
            {"category": {"$ne": "pricing"}},
            Bool(must_not=(Match("_filter.category.s", "pricing"),)),
        ),
        ({"reviewer": {"$exists": True}}, Bool(must=(Match("_fields", "reviewer"),))),
    ],
)
def test_plain_filters_become_plain_conditions(spec: dict[str, Any], expected: Bool) -> None:
    """The common filters are one indexed condition each, as a hand-written Qdrant
    filter would be: no overhead for exactness where there is nothing to correct."""
    assert translate(parse(spec)) == expected


def test_the_access_filter_is_one_condition_inside_the_query() -> None:
    acl = access_filter(["alice", "eng"], unlabeled="public")
    assert translate(acl) == Bool(
        should=(
            MatchAny("_filter.principals.s", ("alice", "eng")),
            Bool(must_not=(Match("_fields", "principals"),)),
        )
    )


def test_field_names_that_are_not_plain_are_hashed() -> None:
    tree = translate(parse({"odd key": "x", "__private": "y"}))
    keys = [c.key for c in tree.must]  # type: ignore[union-attr]
    assert all(k.startswith("_filter.__") and " " not in k for k in keys)
    assert len(set(keys)) == 2


# -- refused values --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec",
    [
        {"year": {"$gte": 2**53}},
        {"year": 2**60},
        {"year": {"$lt": -(2.0**53)}},
        {"title": {"$gte": "x" * 65}},
    ],
    ids=["big-bound", "big-eq", "big-negative", "long-text-bound"],
)
def test_values_without_an_exact_condition_are_refused(
    tmp_path: Path, spec: dict[str, Any]
) -> None:
    """Declared operators, but values no Qdrant condition compares exactly:
    every method refuses them, and delete deletes nothing."""
    where = parse(spec)
    store = QdrantStore()
    store.open(Context(index_dir=tmp_path, base_dir=tmp_path, name="q"))
    try:
        chunk = Chunk("c1", "d1", "text", 0, 0, 4, "c1#0", {"year": 2024, "title": "x" * 70})
        store.upsert([chunk], np.ones((1, 4), dtype=np.float32))
        with pytest.raises(UnsupportedFilterError):
            store.query(vector=np.ones(4, dtype=np.float32), where=where)
        with pytest.raises(UnsupportedFilterError):
            store.count(where)
        with pytest.raises(UnsupportedFilterError):
            list(store.ids(where))
        with pytest.raises(UnsupportedFilterError):
            store.delete(ids=["c1"], where=where)
        assert store.count() == 1
    finally:
        store.close()


def test_nan_equals_nothing_and_a_long_text_is_compared_on_its_first_64_characters() -> None:
    # a filter holding NaN or an infinity is refused before any store sees it;
    # a condition built by hand still translates (NaN equals nothing)
    for spec in ({"x": float("nan")}, {"year": {"$in": [1, float("inf")]}}):
        with pytest.raises(FilterError, match="not a value a filter can compare"):
            parse(spec)
    assert translate(Condition("x", "$eq", float("nan"))) is not None
    # a stored string longer than 64 characters still compares exactly with a bound
    # of up to 64: its first 64 and its length decide
    long = "x" * 64
    where = parse({"t": {"$gt": long}})
    assert evaluate(where, {"t": long + "a"}) and not evaluate(where, {"t": long})
    assert isinstance(translate(Condition("t", "$gt", long)), Bool)
