"""The data of the store contract: ten chunks, their vectors, the filter cases.

Private: ``ragloom.testing`` re-exports the public names (``contract_chunks``,
``contract_vectors``, ``FILTER_CASES``, ``FilterCase``, ``CONTRACT_DIMENSION``,
``CONTRACT_STORE_NAME``); the rest serves the contract classes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..filters import Filter, evaluate, parse
from ..types import Chunk

CONTRACT_DIMENSION = 16
"""Width of the vectors the suite gives dense stores."""

CONTRACT_STORE_NAME = "contract"
"""The ``Context.name`` every store is opened with: hits must carry it."""

# (id, keyword, metadata). Each text holds one keyword no other chunk has, so a
# text query for every keyword reaches every chunk. The metadata covers what
# filters must get right: missing fields, null, bool vs int, 1 == 1.0, numbers
# held as strings, scalars and lists (empty too) in one field, ISO dates with
# and without time zones next to a non-date string, and access principals
# (absent = unlabeled, [] = nobody).
ROWS: list[tuple[str, str, dict[str, Any]]] = [
    ("c01", "alpha", {"category": "pricing", "year": 2024, "rating": 4.5, "draft": False,
                      "tags": ["billing", "plans"], "published": "2024-01-15",
                      "principals": ["alice"]}),
    ("c02", "bravo", {"category": "pricing", "year": 2023, "rating": 3.0, "draft": True,
                      "tags": ["billing"], "published": "2023-06-30T12:00:00Z",
                      "principals": ["bob", "carol"]}),
    ("c03", "charlie", {"category": "security", "year": 2024, "rating": 5, "draft": False,
                        "tags": ["security", "compliance"],
                        "published": "2024-03-01T09:30:00+02:00",
                        "principals": ["alice", "eng"]}),
    ("c04", "delta", {"category": "security", "year": 2022, "draft": 1, "tags": [],
                      "published": "2022-11-05", "principals": []}),
    ("c05", "echo", {"category": "memory", "year": 2021, "rating": 2.5, "draft": 0,
                     "tags": "plans", "published": "unknown"}),
    ("c06", "foxtrot", {"category": "memory", "year": 2023.0, "rating": None,
                        "tags": ["plans", "memory"], "published": "2023-12-31T23:59:59",
                        "principals": ["carol"]}),
    ("c07", "golf", {"year": 2025, "draft": True, "tags": ["roadmap"], "principals": ["eng"],
                     "reviewer": "dana"}),
    ("c08", "hotel", {"category": "Pricing", "year": "2024", "tags": ["billing", "legacy"],
                      "principals": ["alice", "bob"], "reviewer": None}),
    ("c09", "india", {"category": "onboarding", "rating": 4.0, "draft": False,
                      "published": "2025-02-01", "principals": ["support"]}),
    ("c10", "juliet", {"category": "pricing", "year": 2025, "rating": 1.5, "tags": ["plans"],
                       "published": "2025-06-01T00:00:00Z"}),
]  # fmt: skip

KEYWORDS = [keyword for _, keyword, _ in ROWS]
REPLACEMENT_KEYWORD = "kilo"
ALL_IDS = frozenset(cid for cid, _, _ in ROWS)


def contract_chunks() -> list[Chunk]:
    """The ten chunks (``c01`` ... ``c10``) the contract stores, queries and filters.

    A fresh list each call; metadata values are plain JSON types (lists, not tuples).
    """
    chunks = []
    for index, (cid, keyword, metadata) in enumerate(ROWS):
        text = f"{keyword} {metadata.get('category') or 'misc'} notes"
        chunks.append(
            Chunk(
                id=cid,
                document_id=f"doc-{cid}",
                text=text,
                index=index,
                start=0,
                end=len(text),
                label=f"{cid}.md#0",
                metadata={"source": f"{cid}.md", **_copy(metadata)},
            )
        )
    return chunks


def contract_vectors(count: int = len(ROWS), dim: int = CONTRACT_DIMENSION) -> np.ndarray:
    """Unit vectors whose nearest-neighbour order is known: row ``i`` lies at
    ``8 * i`` degrees in the plane of the first two axes. A query along the
    first axis ranks row 0 first, then 1, 2...; one along row ``j`` ranks by
    distance from ``j``. Cosine, dot product and Euclidean distance agree."""
    vectors = np.zeros((count, dim), dtype=np.float32)
    for i in range(count):
        vectors[i] = direction(8.0 * i, dim)
    return vectors


def direction(degrees: float, dim: int = CONTRACT_DIMENSION) -> np.ndarray:
    vector = np.zeros(dim, dtype=np.float32)
    vector[0] = math.cos(math.radians(degrees))
    vector[1] = math.sin(math.radians(degrees))
    return vector


def axis(i: int, dim: int = CONTRACT_DIMENSION) -> np.ndarray:
    vector = np.zeros(dim, dtype=np.float32)
    vector[i] = 1.0
    return vector


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


@dataclass(frozen=True)
class FilterCase:
    """A filter over ``contract_chunks()`` and, where written by hand, the ids it
    matches. The suite always compares a store with ``ragloom.filters.evaluate``;
    a hand-written ``expected`` checks that reference too."""

    name: str
    spec: Mapping[str, Any]
    expected: frozenset[str] | None = None

    @property
    def where(self) -> Filter | None:
        return parse(self.spec)

    def reference(self, chunks: Sequence[Chunk] | None = None) -> frozenset[str]:
        """The ids of ``chunks`` (default: ``contract_chunks()``) that match, by ``evaluate``."""
        where = self.where
        rows = contract_chunks() if chunks is None else chunks
        return frozenset(c.id for c in rows if evaluate(where, c.metadata))


def _case(name: str, spec: Mapping[str, Any], *ids: str) -> FilterCase:
    return FilterCase(name, spec, frozenset(ids))


FILTER_CASES: list[FilterCase] = [
    _case("eq", {"category": "pricing"}, "c01", "c02", "c10"),
    _case("eq-explicit", {"category": {"$eq": "security"}}, "c03", "c04"),
    _case("eq-no-match", {"category": "nonexistent"}),
    _case("ne-missing-matches", {"category": {"$ne": "pricing"}},
          "c03", "c04", "c05", "c06", "c07", "c08", "c09"),
    _case("in", {"category": {"$in": ["memory", "onboarding"]}}, "c05", "c06", "c09"),
    _case("nin-missing-matches", {"category": {"$nin": ["pricing", "security"]}},
          "c05", "c06", "c07", "c08", "c09"),
    _case("gt", {"year": {"$gt": 2023}}, "c01", "c03", "c07", "c10"),
    _case("gte-int-and-float", {"year": {"$gte": 2023}}, "c01", "c02", "c03", "c06", "c07", "c10"),
    _case("lt", {"year": {"$lt": 2023}}, "c04", "c05"),
    _case("lte-float-argument", {"year": {"$lte": 2022.5}}, "c04", "c05"),
    _case("range", {"year": {"$gte": 2022, "$lt": 2024}}, "c02", "c04", "c06"),
    _case("eq-int-equals-float", {"year": 2023}, "c02", "c06"),
    _case("number-never-compares-to-string", {"year": {"$gte": "2024"}}, "c08"),
    _case("float-lt-null-never-compares", {"rating": {"$lt": 3}}, "c05", "c10"),
    _case("eq-true-not-1", {"draft": True}, "c02", "c07"),
    _case("eq-false-not-0", {"draft": False}, "c01", "c03", "c09"),
    _case("eq-1-not-true", {"draft": 1}, "c04"),
    _case("ne-bool", {"draft": {"$ne": True}},
          "c01", "c03", "c04", "c05", "c06", "c08", "c09", "c10"),
    _case("list-eq-any-element", {"tags": "billing"}, "c01", "c02", "c08"),
    _case("list-ne-no-element", {"tags": {"$ne": "billing"}},
          "c03", "c04", "c05", "c06", "c07", "c09", "c10"),
    _case("list-in", {"tags": {"$in": ["plans", "roadmap"]}}, "c01", "c05", "c06", "c07", "c10"),
    _case("list-nin", {"tags": {"$nin": ["billing", "plans"]}}, "c03", "c04", "c07", "c09"),
    _case("exists-empty-list-counts", {"tags": {"$exists": True}},
          "c01", "c02", "c03", "c04", "c05", "c06", "c07", "c08", "c10"),
    _case("exists-false", {"principals": {"$exists": False}}, "c05", "c10"),
    _case("eq-null-not-missing", {"reviewer": None}, "c08"),
    _case("exists-null-counts", {"reviewer": {"$exists": True}}, "c07", "c08"),
    _case("ne-missing-and-null-match", {"reviewer": {"$ne": "dana"}},
          "c01", "c02", "c03", "c04", "c05", "c06", "c08", "c09", "c10"),
    _case("date-gte-and-non-date-string", {"published": {"$gte": "2024-01-01"}},
          "c01", "c03", "c05", "c09", "c10"),
    _case("date-lt-time-zones", {"published": {"$lt": "2024-03-01T08:00:00Z"}},
          "c01", "c02", "c03", "c04", "c06"),
    _case("date-only-is-midnight-utc", {"published": {"$lte": "2023-12-31"}}, "c02", "c04"),
    _case("string-order", {"category": {"$gte": "p"}}, "c01", "c02", "c03", "c04", "c10"),
    _case("and", {"$and": [{"category": "pricing"}, {"year": {"$gte": 2024}}]}, "c01", "c10"),
    _case("implicit-and", {"category": "pricing", "draft": {"$ne": True}}, "c01", "c10"),
    _case("or", {"$or": [{"category": "security"}, {"tags": "roadmap"}]}, "c03", "c04", "c07"),
    _case("not", {"$not": {"category": "pricing"}},
          "c03", "c04", "c05", "c06", "c07", "c08", "c09"),
    _case("not-or-exists",
          {"$not": {"$or": [{"year": {"$exists": False}}, {"year": {"$lt": 2024}}]}},
          "c01", "c03", "c07", "c08", "c10"),
    _case("nested",
          {"$or": [
              {"$and": [{"category": "pricing"}, {"$not": {"year": {"$lt": 2024}}}]},
              {"$and": [{"tags": {"$in": ["security"]}},
                        {"published": {"$gte": "2024-01-01"}}]},
          ]},
          "c01", "c03", "c10"),
    _case("principals-in", {"principals": {"$in": ["alice"]}}, "c01", "c03", "c08"),
    _case("match-all",
          {"$or": [{"category": {"$exists": True}}, {"category": {"$exists": False}}]},
          *sorted(ALL_IDS)),
]  # fmt: skip
"""Filter cases over ``contract_chunks()``, one or more per operator and rule."""

# one filter per operator, for the declared/undeclared check
OPERATOR_FILTERS: dict[str, dict[str, Any]] = {
    "$eq": {"category": {"$eq": "pricing"}},
    "$ne": {"category": {"$ne": "pricing"}},
    "$in": {"category": {"$in": ["memory"]}},
    "$nin": {"category": {"$nin": ["memory"]}},
    "$gt": {"year": {"$gt": 2023}},
    "$gte": {"year": {"$gte": 2023}},
    "$lt": {"year": {"$lt": 2023}},
    "$lte": {"year": {"$lte": 2023}},
    "$exists": {"reviewer": {"$exists": True}},
    "$and": {"$and": [{"category": "pricing"}, {"year": 2024}]},
    "$or": {"$or": [{"category": "memory"}, {"year": 2024}]},
    "$not": {"$not": {"category": "pricing"}},
}

ACL_PRINCIPALS: list[list[str]] = [["alice"], ["bob", "carol"], ["eng"], ["nobody"], []]

# a small corpus whose keyword order is known under every BM25 variant: the
# ranked texts have the same length and hold "zephyr" 3, 2 and 1 times; the
# filler holds none of it
KEYWORD_ROWS = [
    ("k1", "zephyr zephyr zephyr quartz", {"group": "a"}),
    ("k2", "zephyr zephyr quartz basalt", {"group": "b"}),
    ("k3", "zephyr quartz basalt granite", {"group": "b"}),
    ("f1", "quartz basalt granite slate", {"group": "a"}),
    ("f2", "basalt granite slate marble", {"group": "b"}),
    ("f3", "granite slate marble gneiss", {"group": "a"}),
    ("f4", "slate marble gneiss schist", {"group": "b"}),
    ("f5", "marble gneiss schist quartz", {"group": "a"}),
]


def keyword_chunks() -> list[Chunk]:
    """The chunks of ``KEYWORD_ROWS``, for the keyword-order tests."""
    return [
        Chunk(cid, f"doc-{cid}", text, 0, 0, len(text), f"{cid}.md#0", dict(meta))
        for cid, text, meta in KEYWORD_ROWS
    ]
