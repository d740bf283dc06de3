"""The store contract: the tests every ``ragloom.Store`` passes, built-in or plugin.

Subclass the contract that matches what the store answers and give it a
``store_factory`` fixture: a callable ``(path) -> Store`` that builds an
*unopened* store keeping its data under ``path``::

    import pytest
    from ragloom.testing import DenseStoreContract

    class TestMyStore(DenseStoreContract):
        @pytest.fixture
        def store_factory(self):
            return lambda path: MyStore(path=str(path))

``DenseStoreContract`` is for stores declaring ``"dense"``,
``TextStoreContract`` for ``"text"``, ``HybridStoreContract`` for both.
Their common part, ``StoreContract``, is not used alone. The suite opens
every store with ``Context(index_dir=path, base_dir=path, name="contract")``
and checks: idempotent upserts that replace content, ranking (nearest
neighbours, keyword order), every filter operator (``FILTER_CASES``, whose
answers are those of ``ragloom.filters.evaluate``, the reference
semantics), filters applied before ranking, deletes by id and by filter,
counts, the empty store, dimension mismatches, access control, and
persistence across close and reopen.

Nothing is skipped: a filter using an operator the store does not declare
in ``filter_operators`` must raise ``UnsupportedFilterError`` when queried.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pytest

from ..access import access_filter, restrict
from ..components import Context, Store
from ..errors import DimensionMismatchError, UnsupportedFilterError
from ..filters import ALL_OPERATORS, Filter, evaluate, operators, parse
from ..types import Chunk, Hit

if TYPE_CHECKING:
    StoreFactory = Callable[[Path], Store]

__all__ = [
    "CONTRACT_DIMENSION",
    "CONTRACT_STORE_NAME",
    "FILTER_CASES",
    "DenseStoreContract",
    "FilterCase",
    "HybridStoreContract",
    "StoreContract",
    "TextStoreContract",
    "contract_chunks",
    "contract_vectors",
]

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
_ROWS: list[tuple[str, str, dict[str, Any]]] = [
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

_KEYWORDS = [keyword for _, keyword, _ in _ROWS]
_REPLACEMENT_KEYWORD = "kilo"
_ALL_IDS = frozenset(cid for cid, _, _ in _ROWS)


def contract_chunks() -> list[Chunk]:
    """The ten chunks (``c01`` ... ``c10``) the contract stores, queries and filters.

    A fresh list each call; metadata values are plain JSON types (lists, not tuples).
    """
    chunks = []
    for index, (cid, keyword, metadata) in enumerate(_ROWS):
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


def contract_vectors(count: int = len(_ROWS), dim: int = CONTRACT_DIMENSION) -> np.ndarray:
    """Unit vectors whose nearest-neighbour order is known: row ``i`` lies at
    ``8 * i`` degrees in the plane of the first two axes. A query along the
    first axis ranks row 0 first, then 1, 2...; one along row ``j`` ranks by
    distance from ``j``. Cosine, dot product and Euclidean distance agree."""
    vectors = np.zeros((count, dim), dtype=np.float32)
    for i in range(count):
        vectors[i] = _direction(8.0 * i, dim)
    return vectors


def _direction(degrees: float, dim: int = CONTRACT_DIMENSION) -> np.ndarray:
    vector = np.zeros(dim, dtype=np.float32)
    vector[0] = math.cos(math.radians(degrees))
    vector[1] = math.sin(math.radians(degrees))
    return vector


def _axis(i: int, dim: int = CONTRACT_DIMENSION) -> np.ndarray:
    vector = np.zeros(dim, dtype=np.float32)
    vector[i] = 1.0
    return vector


def _check(actual: Any, expected: Any, what: str) -> None:
    """``assert actual == expected`` with both values in the message (the suite's
    asserts are not rewritten by pytest unless a conftest registers it)."""
    if isinstance(actual, (set, frozenset)) and isinstance(expected, (set, frozenset)):
        assert actual == expected, (
            f"{what}: missing {sorted(expected - actual)}, unexpected {sorted(actual - expected)}"
        )
    assert actual == expected, f"{what}: got {actual!r}, expected {expected!r}"


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
          *sorted(_ALL_IDS)),
]  # fmt: skip
"""Filter cases over ``contract_chunks()``, one or more per operator and rule."""

# one filter per operator, for the declared/undeclared check
_OPERATOR_FILTERS: dict[str, dict[str, Any]] = {
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

_ACL_PRINCIPALS: list[list[str]] = [["alice"], ["bob", "carol"], ["eng"], ["nobody"], []]


class StoreContract:
    """What every store passes, whatever it answers. Use a subclass.

    ``dense`` and ``text`` say which query modes the class tests: the common
    tests below run in each, and ``test_capabilities_match_the_contract``
    fails if they differ from the store's ``capabilities``.
    """

    dense: ClassVar[bool] = False
    text: ClassVar[bool] = False

    # -- fixtures ------------------------------------------------------------
    @pytest.fixture
    def store_factory(self) -> StoreFactory:
        """Override: return ``(path) -> Store``, an unopened store kept under ``path``."""
        raise NotImplementedError(
            f"{type(self).__name__} must define a `store_factory` fixture returning a "
            "callable (path) -> Store that builds an unopened store kept under path"
        )

    @pytest.fixture
    def store(self, store_factory: StoreFactory, tmp_path: Path) -> Iterator[Store]:
        """An opened, empty store."""
        store = self.open_store(store_factory, tmp_path)
        yield store
        store.close()

    @pytest.fixture
    def filled(self, store: Store) -> Store:
        """The opened store holding ``contract_chunks()``."""
        self.upsert(store, contract_chunks())
        return store

    # -- helpers subclasses may use --------------------------------------------
    @staticmethod
    def open_store(store_factory: StoreFactory, path: Path) -> Store:
        store = store_factory(path)
        assert isinstance(store, Store), f"store_factory returned {store!r}, not a ragloom.Store"
        store.open(Context(index_dir=path, base_dir=path, name=CONTRACT_STORE_NAME))
        return store

    def upsert(
        self, store: Store, chunks: Sequence[Chunk], vectors: np.ndarray | None = None
    ) -> None:
        """Upsert with vectors for dense stores (default: ``contract_vectors``)."""
        if self.dense and vectors is None:
            vectors = contract_vectors(len(chunks))
        store.upsert(chunks, vectors if self.dense else None)

    def modes(self) -> list[str]:
        return [mode for mode in ("dense", "text") if getattr(self, mode)]

    def search(
        self,
        store: Store,
        mode: str,
        *,
        k: int,
        where: Filter | None = None,
        vector: np.ndarray | None = None,
        text: str | None = None,
    ) -> list[Hit]:
        """Query in ``mode``; by default with a query that reaches every contract chunk
        (for text: every keyword; for dense: the first axis, all vectors being near it)."""
        if mode == "dense":
            query = _axis(0) if vector is None else vector
            hits = store.query(vector=query, k=k, where=where)
        else:
            words = " ".join([*_KEYWORDS, _REPLACEMENT_KEYWORD]) if text is None else text
            hits = store.query(text=words, k=k, where=where)
        assert isinstance(hits, list), f"query() returned {type(hits).__name__}, not a list"
        for hit in hits:
            assert isinstance(hit, Hit), f"query() returned {hit!r}, not a Hit"
        ids = [h.chunk.id for h in hits]
        assert len(ids) == len(set(ids)), f"{mode} query returned a chunk twice: {ids}"
        assert len(hits) <= k, f"{mode} query with k={k} returned {len(hits)} hits"
        return hits

    def everything(self, store: Store, mode: str, where: Filter | None = None) -> set[str]:
        """The ids a query reaching every chunk returns, with a large ``k``."""
        return {h.chunk.id for h in self.search(store, mode, k=100, where=where)}

    @staticmethod
    def declares(store: Store, where: Filter | None) -> bool:
        """Whether the store declares every operator ``where`` uses (``$and`` always)."""
        return not operators(where) - set(store.filter_operators) - {"$and"}

    def assert_refused(self, store: Store, where: Filter | None) -> None:
        """Querying with an undeclared operator raises ``UnsupportedFilterError``."""
        missing = sorted(operators(where) - set(store.filter_operators) - {"$and"})
        for mode in self.modes():
            with pytest.raises(UnsupportedFilterError):
                self.search(store, mode, k=10, where=where)
                pytest.fail(
                    f"the store does not declare {', '.join(missing)} in filter_operators, "
                    f"yet a {mode} query using it did not raise UnsupportedFilterError "
                    "(a condition must never be dropped)"
                )

    # -- declarations ----------------------------------------------------------
    def test_capabilities_match_the_contract(self, store: Store) -> None:
        declared = set(store.capabilities)
        assert declared, "the store declares no capabilities: 'dense', 'text' or both"
        assert declared <= {"dense", "text"}, f"unknown capabilities: {declared}"
        tested = set(self.modes())
        assert tested, (
            "StoreContract is not used alone: subclass DenseStoreContract, "
            "TextStoreContract or HybridStoreContract"
        )
        assert declared == tested, (
            f"the store declares {sorted(declared)} but {type(self).__name__} tests "
            f"{sorted(tested)}: subclass "
            + {
                frozenset({"dense"}): "DenseStoreContract",
                frozenset({"text"}): "TextStoreContract",
            }.get(frozenset(declared), "HybridStoreContract")
        )

    def test_filter_operators_are_known(self, store: Store) -> None:
        unknown = set(store.filter_operators) - ALL_OPERATORS
        assert not unknown, f"filter_operators names unknown operators: {sorted(unknown)}"

    # -- writes ------------------------------------------------------------------
    def test_upsert_is_idempotent_by_id(self, filled: Store) -> None:
        self.upsert(filled, contract_chunks())
        _check(filled.count(), len(_ROWS), "count() after upserting the same chunks twice")
        for mode in self.modes():
            _check(self.everything(filled, mode), _ALL_IDS, f"{mode} query after re-upserting")

    def test_upsert_replaces_content_and_metadata(self, filled: Store) -> None:
        old = contract_chunks()[0]
        new = replace(
            old,
            text=f"{_REPLACEMENT_KEYWORD} archive notes",
            end=len(f"{_REPLACEMENT_KEYWORD} archive notes"),
            metadata={"source": old.metadata["source"], "category": "archive", "year": 1999},
        )
        archive, pricing = parse({"category": "archive"}), parse({"category": "pricing"})
        filters = self.declares(filled, pricing)
        if filters:  # filtered before the write too: a store caching metadata must refresh it
            _check(filled.count(pricing), 3, "count() of pricing chunks")
            for mode in self.modes():
                _check(self.everything(filled, mode, archive), set(), f"{mode} query, archive")
        self.upsert(filled, [new], _axis(2)[None, :] if self.dense else None)
        _check(filled.count(), len(_ROWS), "count() after replacing c01")
        if filters:
            for mode in self.modes():
                found = self.everything(filled, mode, archive)
                _check(found, {"c01"}, f"{mode} query on c01's new metadata")
            _check(filled.count(archive), 1, "count() on c01's new metadata")
            _check(filled.count(pricing), 2, "count() on c01's old metadata (c02, c10 left)")
        for mode in self.modes():
            hits = (
                self.search(filled, mode, k=1, vector=_axis(2))
                if mode == "dense"
                else self.search(filled, mode, k=10, text=_REPLACEMENT_KEYWORD)
            )
            assert [h.chunk for h in hits] == [new], f"{mode}: the replaced chunk is not served"
        if self.text:
            old_keyword = _KEYWORDS[0]
            stale = self.search(filled, "text", k=10, text=old_keyword)
            assert stale == [], f"the old text of c01 still matches {old_keyword!r}: {stale}"

    def test_delete_by_ids(self, filled: Store) -> None:
        pricing = parse({"category": "pricing"})  # c01, c02, c10
        filters = self.declares(filled, pricing)
        if filters:
            _check(filled.count(pricing), 3, "count() of pricing chunks")
        _check(filled.delete(ids=["c01", "c02", "not-there"]), 2, "delete(ids=) return value")
        _check(filled.count(), len(_ROWS) - 2, "count() after deleting two")
        if filters:
            _check(filled.count(pricing), 1, "count() of pricing chunks after the delete")
            for mode in self.modes():
                found = self.everything(filled, mode, pricing)
                _check(found, {"c10"}, f"{mode} query for pricing chunks after the delete")
        _check(filled.delete(ids=["c01"]), 0, "delete(ids=) of an id already deleted")
        for mode in self.modes():
            _check(self.everything(filled, mode), _ALL_IDS - {"c01", "c02"}, f"{mode} survivors")

    @pytest.mark.parametrize("case", FILTER_CASES, ids=lambda case: case.name)
    def test_delete_by_filter(self, filled: Store, case: FilterCase) -> None:
        where = case.where
        if not self.declares(filled, where):
            self.assert_refused(filled, where)
            return
        doomed = case.reference()
        spec = dict(case.spec)
        _check(filled.delete(where=where), len(doomed), f"delete(where={spec}) return value")
        _check(filled.count(), len(_ROWS) - len(doomed), f"count() after delete(where={spec})")
        for mode in self.modes():
            _check(self.everything(filled, mode), _ALL_IDS - doomed, f"{mode} survivors")

    # -- reads -------------------------------------------------------------------
    def test_empty_store(self, store: Store) -> None:
        _check(store.count(), 0, "count() of an empty store")
        for mode in self.modes():
            _check(self.search(store, mode, k=5), [], f"{mode} query of an empty store")
        _check(store.delete(ids=["c01"]), 0, "delete(ids=) in an empty store")
        where = parse({"category": "pricing"})
        if self.declares(store, where):
            _check(store.count(where), 0, "count(where) of an empty store")
            _check(store.delete(where=where), 0, "delete(where=) in an empty store")
            for mode in self.modes():
                _check(self.search(store, mode, k=5, where=where), [], f"filtered {mode} query")
        else:
            self.assert_refused(store, where)

    def test_count(self, filled: Store) -> None:
        _check(filled.count(), len(_ROWS), "count()")
        _check(filled.count(None), len(_ROWS), "count(None)")

    def test_chunks_come_back_whole(self, filled: Store) -> None:
        originals = {c.id: c for c in contract_chunks()}
        for mode in self.modes():
            hits = self.search(filled, mode, k=100)
            assert {h.chunk.id: h.chunk for h in hits} == originals, (
                f"{mode}: chunks (text, offsets, label, metadata) must come back as upserted"
            )

    def test_hits_name_the_store(self, filled: Store) -> None:
        for mode in self.modes():
            for hit in self.search(filled, mode, k=3):
                assert hit.store == CONTRACT_STORE_NAME, (
                    f"Hit.store is {hit.store!r}: set it to self.context.name"
                )
                assert hit.scores.get(CONTRACT_STORE_NAME) == hit.score, (
                    f"Hit.scores is {dict(hit.scores)}: record the score under the store's name"
                )
                assert math.isfinite(hit.score), f"score {hit.score} is not finite"

    def test_k_limits_the_hits(self, filled: Store) -> None:
        for mode in self.modes():
            for k in (1, 3, len(_ROWS), 50):
                hits = self.search(filled, mode, k=k)
                _check(len(hits), min(k, len(_ROWS)), f"number of {mode} hits for k={k}")

    # -- filters -----------------------------------------------------------------
    @pytest.mark.parametrize("case", FILTER_CASES, ids=lambda case: case.name)
    def test_filter(self, filled: Store, case: FilterCase) -> None:
        where = case.where
        expected = case.reference()
        if case.expected is not None:
            assert expected == case.expected, (
                f"ragloom.filters.evaluate gives {sorted(expected)} for {dict(case.spec)}, "
                f"the case says {sorted(case.expected)}"
            )
        if not self.declares(filled, where):
            self.assert_refused(filled, where)
            return
        _check(filled.count(where), len(expected), f"count({dict(case.spec)})")
        for mode in self.modes():
            found = self.everything(filled, mode, where)
            assert found == expected, (
                f"{mode} query with {dict(case.spec)}: missing {sorted(expected - found)}, "
                f"unexpected {sorted(found - expected)}"
            )

    @pytest.mark.parametrize("op", sorted(ALL_OPERATORS))
    def test_operator_declared_or_refused(self, filled: Store, op: str) -> None:
        case = FilterCase(op, _OPERATOR_FILTERS[op])
        where = case.where
        if op == "$and" or op in filled.filter_operators:
            if self.declares(filled, where):
                for mode in self.modes():
                    found = self.everything(filled, mode, where)
                    _check(found, case.reference(), f"{mode} query with {dict(case.spec)}")
            else:  # $not/$and/$or over an undeclared $eq
                self.assert_refused(filled, where)
        else:
            self.assert_refused(filled, where)

    # -- access control ------------------------------------------------------------
    @pytest.mark.parametrize("unlabeled", ["deny", "public"])
    def test_access_filter_never_leaks(self, filled: Store, unlabeled: str) -> None:
        chunks = contract_chunks()
        for principals in _ACL_PRINCIPALS:
            acl = access_filter(principals, unlabeled=unlabeled)  # type: ignore[arg-type]
            allowed = {c.id for c in chunks if evaluate(acl, c.metadata)}
            if not self.declares(filled, acl):
                self.assert_refused(filled, acl)  # fails closed
                continue
            _check(filled.count(acl), len(allowed), f"count() as {principals} ({unlabeled})")
            for mode in self.modes():
                for k in (1, 2, 100):
                    hits = {h.chunk.id for h in self.search(filled, mode, k=k, where=acl)}
                    assert hits <= allowed, (
                        f"{mode} query as {principals} ({unlabeled}) leaked {hits - allowed}"
                    )
                    _check(len(hits), min(k, len(allowed)), f"number of hits for k={k}")

    def test_access_filter_hand_written(self, filled: Store) -> None:
        cases = [
            (access_filter(["alice"]), {"c01", "c03", "c08"}),
            (access_filter(["carol", "eng"]), {"c02", "c03", "c06", "c07"}),
            (access_filter([]), set()),
            (access_filter(["alice"], unlabeled="public"), {"c01", "c03", "c05", "c08", "c10"}),
            (access_filter(["nobody"], unlabeled="public"), {"c05", "c10"}),
        ]
        for acl, expected in cases:
            if not self.declares(filled, acl):
                self.assert_refused(filled, acl)
                continue
            for mode in self.modes():
                _check(self.everything(filled, mode, acl), expected, f"{mode} query with {acl}")

    @pytest.mark.parametrize(
        "caller",
        [
            {"principals": {"$exists": False}},
            {"$or": [{"principals": {"$exists": False}}, {"category": {"$exists": True}}]},
            {"$not": {"principals": "alice"}},
            {"principals": {"$in": ["bob", "eng"]}},
            {"category": "pricing"},
        ],
        ids=["unlabeled", "or-widen", "not-self", "other-principals", "category"],
    )
    def test_caller_filter_cannot_widen_access(self, filled: Store, caller: dict[str, Any]) -> None:
        chunks = contract_chunks()
        acl = access_filter(["alice"])
        where = restrict(parse(caller), acl)
        allowed = {c.id for c in chunks if evaluate(acl, c.metadata)}
        expected = {c.id for c in chunks if evaluate(where, c.metadata)}
        assert expected <= allowed
        if not self.declares(filled, where):
            self.assert_refused(filled, where)
            return
        _check(filled.count(where), len(expected), f"count() with {caller} as alice")
        for mode in self.modes():
            for k in (1, 100):
                hits = {h.chunk.id for h in self.search(filled, mode, k=k, where=where)}
                assert hits <= expected, f"{mode}: {caller} widened access to {hits - allowed}"
                _check(len(hits), min(k, len(expected)), f"number of hits for k={k}")

    # -- persistence -----------------------------------------------------------------
    def test_persists_across_close_and_reopen(
        self, store_factory: StoreFactory, tmp_path: Path
    ) -> None:
        first = self.open_store(store_factory, tmp_path)
        self.upsert(first, contract_chunks())
        first.flush()
        first.close()

        second = self.open_store(store_factory, tmp_path)
        try:
            _check(second.count(), len(_ROWS), "count() after flush, close and reopen")
            originals = {c.id: c for c in contract_chunks()}
            for mode in self.modes():
                hits = self.search(second, mode, k=100)
                _check(
                    {h.chunk.id: h.chunk for h in hits},
                    originals,
                    f"chunks of a {mode} query after reopening",
                )
            # c01 and c02: list-valued metadata and dates survive the round trip
            where = parse({"tags": "billing", "published": {"$gte": "2023-01-01"}})
            if self.declares(second, where):
                _check(second.count(where), 2, "count(where) after reopening")
            _check(second.delete(ids=["c01"]), 1, "delete(ids=) after reopening")
            second.flush()
        finally:
            second.close()

        third = self.open_store(store_factory, tmp_path)
        try:
            _check(third.count(), len(_ROWS) - 1, "count() after a delete, flush and reopen")
            for mode in self.modes():
                found = self.everything(third, mode)
                _check(found, _ALL_IDS - {"c01"}, f"{mode} query after a delete and reopen")
        finally:
            third.close()


class DenseStoreContract(StoreContract):
    """The contract of stores declaring ``"dense"``: vector queries."""

    dense = True

    def test_nearest_neighbour_order(self, filled: Store) -> None:
        ids = sorted(_ALL_IDS)
        for query, order in ((_direction(0.0), ids), (_direction(72.0), ids[::-1])):
            for k in (1, 3, len(ids)):
                hits = self.search(filled, "dense", k=k, vector=query)
                _check([h.chunk.id for h in hits], order[:k], f"nearest {k} in order")
                scores = [h.score for h in hits]
                assert scores == sorted(scores, reverse=True), (
                    f"scores must not increase down the list (higher is better): {scores}"
                )
        between = self.search(filled, "dense", k=3, vector=_direction(8.0 * 4 + 3))
        _check([h.chunk.id for h in between], ["c05", "c06", "c04"], "nearest 3 at 35 degrees")

    def test_filter_applies_before_vector_ranking(self, filled: Store) -> None:
        where = parse({"category": {"$in": ["memory", "onboarding"]}})  # c05, c06, c09
        if not self.declares(filled, where):
            self.assert_refused(filled, where)
            return
        hits = self.search(filled, "dense", k=2, vector=_direction(0.0), where=where)
        assert [h.chunk.id for h in hits] == ["c05", "c06"], (
            "the top k must be the best *matching* chunks, not the matches among the top k"
        )
        hits = self.search(filled, "dense", k=2, vector=_direction(72.0), where=where)
        _check([h.chunk.id for h in hits], ["c09", "c06"], "filtered top 2 at 72 degrees")
        acl = restrict(where, access_filter(["carol"]))  # only c06
        if self.declares(filled, acl):
            hits = self.search(filled, "dense", k=1, vector=_direction(0.0), where=acl)
            _check([h.chunk.id for h in hits], ["c06"], "top 1 with a filter and an ACL")

    def test_dimension_mismatch_raises(self, filled: Store) -> None:
        chunk = contract_chunks()[0]
        with pytest.raises(DimensionMismatchError):
            filled.upsert([replace(chunk, text="wrong width")], np.ones((1, 3), np.float32))
        with pytest.raises(DimensionMismatchError):
            filled.query(vector=np.ones(3, dtype=np.float32), k=3)
        _check(filled.count(), len(_ROWS), "count() after a refused upsert")
        hits = self.search(filled, "dense", k=1, vector=_direction(0.0))
        assert [h.chunk for h in hits] == [chunk], "a refused upsert changed the store"


# a small corpus whose keyword order is known under every BM25 variant: the
# ranked texts have the same length and hold "zephyr" 3, 2 and 1 times; the
# filler holds none of it
_KEYWORD_ROWS = [
    ("k1", "zephyr zephyr zephyr quartz", {"group": "a"}),
    ("k2", "zephyr zephyr quartz basalt", {"group": "b"}),
    ("k3", "zephyr quartz basalt granite", {"group": "b"}),
    ("f1", "quartz basalt granite slate", {"group": "a"}),
    ("f2", "basalt granite slate marble", {"group": "b"}),
    ("f3", "granite slate marble gneiss", {"group": "a"}),
    ("f4", "slate marble gneiss schist", {"group": "b"}),
    ("f5", "marble gneiss schist quartz", {"group": "a"}),
]


def _keyword_chunks() -> list[Chunk]:
    return [
        Chunk(cid, f"doc-{cid}", text, 0, 0, len(text), f"{cid}.md#0", dict(meta))
        for cid, text, meta in _KEYWORD_ROWS
    ]


class TextStoreContract(StoreContract):
    """The contract of stores declaring ``"text"``: keyword queries."""

    text = True

    def test_keyword_order(self, store: Store) -> None:
        self.upsert(store, _keyword_chunks())
        hits = self.search(store, "text", k=10, text="zephyr")
        assert [h.chunk.id for h in hits] == ["k1", "k2", "k3"], (
            "more occurrences rank higher, and chunks sharing no term with the query are no hits"
        )
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True), f"scores must not increase: {scores}"
        top2 = [h.chunk.id for h in self.search(store, "text", k=2, text="zephyr")]
        _check(top2, ["k1", "k2"], "top 2 for 'zephyr'")
        _check(self.search(store, "text", k=5, text="xylophone"), [], "a query no chunk matches")

    def test_filter_applies_before_keyword_ranking(self, store: Store) -> None:
        self.upsert(store, _keyword_chunks())
        where = parse({"group": "b"})
        if not self.declares(store, where):
            self.assert_refused(store, where)
            return
        hits = self.search(store, "text", k=1, text="zephyr", where=where)
        assert [h.chunk.id for h in hits] == ["k2"], (
            "the top k must be the best *matching* chunks, not the matches among the top k"
        )
        hits = self.search(store, "text", k=10, text="zephyr", where=where)
        _check([h.chunk.id for h in hits], ["k2", "k3"], "filtered hits for 'zephyr'")


class HybridStoreContract(DenseStoreContract, TextStoreContract):
    """The contract of stores declaring both ``"dense"`` and ``"text"``: both sets
    of tests, and the common ones in both query modes."""
