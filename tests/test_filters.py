from __future__ import annotations

import pytest
from ragloom.errors import FilterError, UnsupportedFilterError
from ragloom.filters import And, Condition, Not, Or, check_supported, evaluate, operators, parse

META = {
    "category": "pricing",
    "year": 2024,
    "tags": ["billing", "faq"],
    "draft": False,
    "published": "2024-03-01T10:00:00Z",
}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"category": "pricing"}, True),
        ({"category": "security"}, False),
        ({"year": {"$gte": 2024}}, True),
        ({"year": {"$gt": 2024}}, False),
        ({"year": {"$lt": 2025, "$gte": 2023}}, True),
        ({"tags": "faq"}, True),
        ({"tags": {"$in": ["x", "billing"]}}, True),
        ({"tags": {"$nin": ["billing"]}}, False),
        ({"tags": {"$ne": "faq"}}, False),
        ({"missing": {"$exists": False}}, True),
        ({"missing": {"$ne": 1}}, True),
        ({"missing": 1}, False),
        ({"draft": False}, True),
        ({"draft": 0}, False),
        ({"$or": [{"year": 1999}, {"category": "pricing"}]}, True),
        ({"$not": {"category": "pricing"}}, False),
        ({"$and": [{"year": 2024}, {"$not": {"tags": "secret"}}]}, True),
        ({"published": {"$gte": "2024-02-28"}}, True),
        ({"published": {"$lt": "2024-03-01T09:00:00+00:00"}}, False),
        ({"year": {"$gt": "2023"}}, False),  # a number never compares to a string
    ],
)
def test_evaluate(spec: dict, expected: bool) -> None:
    assert evaluate(parse(spec), META) is expected


def test_parse_builds_tree() -> None:
    node = parse({"a": 1, "$or": [{"b": {"$in": [1, 2]}}, {"$not": {"c": 3}}]})
    assert node == And(
        (
            Condition("a", "$eq", 1),
            Or((Condition("b", "$in", (1, 2)), Not(Condition("c", "$eq", 3)))),
        )
    )
    assert operators(node) == {"$and", "$eq", "$or", "$in", "$not"}
    assert parse({}) is None and parse(None) is None
    assert parse({"$or": [{}, {"a": 1}]}) is None  # an empty alternative matches all
    assert parse({"$and": [{}], "b": 2}) == Condition("b", "$eq", 2)


@pytest.mark.parametrize(
    ("spec", "path"),
    [
        ({"year": {"$gtee": 1}}, "year.$gtee"),
        ({"$or": [{"a": 1}, {"b": {"$in": "x"}}]}, "$or[1].b.$in"),
        ({"$xor": []}, "$xor"),
        ({"a": {"$exists": "yes"}}, "a.$exists"),
        ({"a": [1, 2]}, "a"),
        ({"$and": []}, "$and"),
    ],
)
def test_malformed_filters_name_the_path(spec: dict, path: str) -> None:
    with pytest.raises(FilterError) as info:
        parse(spec)
    assert path in str(info.value)


def test_unsupported_operator_is_rejected_with_store_name() -> None:
    node = parse({"year": {"$gte": 2024}, "tags": {"$nin": ["x"]}})
    with pytest.raises(UnsupportedFilterError, match=r"'pinecone'.*\$nin"):
        check_supported(node, frozenset({"$eq", "$gte"}), "pinecone")
    check_supported(node, frozenset({"$eq", "$gte", "$nin"}), "all")


@pytest.mark.parametrize(
    ("spec", "path", "said"),
    [
        ({"price": {"$lt": float("nan")}}, "price.$lt", "NaN"),
        ({"price": float("nan")}, "price", "NaN"),
        ({"price": {"$gt": float("inf")}}, "price.$gt", "Infinity"),
        ({"$or": [{"a": {"$in": [1, float("-inf")]}}]}, "$or[0].a.$in[1]", "-Infinity"),
    ],
)
def test_a_non_finite_number_is_refused_naming_the_field(spec: dict, path: str, said: str) -> None:
    """``{"price": {"$lt": NaN}}`` (Python's JSON reader takes NaN) matched
    nothing, silently: nothing orders against NaN."""
    with pytest.raises(FilterError) as info:
        parse(spec)
    assert str(info.value).startswith(f"{path}: {said} is not a value a filter can compare")


def test_a_nan_filter_from_json_is_refused() -> None:
    import json

    with pytest.raises(FilterError, match=r"price\.\$lt: NaN"):
        parse(json.loads('{"price": {"$lt": NaN}}'))
