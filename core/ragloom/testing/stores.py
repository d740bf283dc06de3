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
semantics) in queries, ``count(where)``, ``delete(where=)`` and ``ids(where)``,
filters applied before ranking, deletes by id and by filter, counts, the
empty store, dimension mismatches, ``Hit.vector``, access control,
persistence across close and reopen, ``Context(fresh=True)`` (also over
damaged files), ``refresh()`` between two instances on the same data, and
``ids()`` where implemented.

Nothing is skipped: a filter using an operator the store does not declare
in ``filter_operators`` must raise ``UnsupportedFilterError`` from
``query``, ``count``, ``delete`` and ``ids`` alike (``$and`` is implied;
``$or`` and ``$not`` must be declared, as ``ragloom.filters.check_supported``
decides). ``ids()`` is optional: a store without it passes when it raises
``NotImplementedError``, as the base class does.

The tests live in three private modules: ``_store_data`` (the chunks, vectors
and filter cases), ``_store_harness`` (fixtures and helpers) and
``_store_state`` (persistence, ``fresh``, ``refresh()``).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from ..access import access_filter, restrict
from ..components import Store
from ..errors import DimensionMismatchError
from ..filters import ALL_OPERATORS, evaluate, parse
from ._store_data import (
    ACL_PRINCIPALS,
    ALL_IDS,
    CONTRACT_DIMENSION,
    CONTRACT_STORE_NAME,
    FILTER_CASES,
    KEYWORDS,
    OPERATOR_FILTERS,
    REPLACEMENT_KEYWORD,
    ROWS,
    FilterCase,
    axis,
    contract_chunks,
    contract_vectors,
    direction,
    keyword_chunks,
)
from ._store_harness import check
from ._store_state import StoreStateTests

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


class StoreContract(StoreStateTests):
    """What every store passes, whatever it answers. Use a subclass.

    ``dense`` and ``text`` say which query modes the class tests: the common
    tests below run in each, and ``test_capabilities_match_the_contract``
    fails if they differ from the store's ``capabilities``. The fixtures and
    helpers come from ``StoreHarness``, the persistence, ``fresh`` and
    ``refresh()`` tests from ``StoreStateTests``.
    """

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
        check(filled.count(), len(ROWS), "count() after upserting the same chunks twice")
        for mode in self.modes():
            check(self.everything(filled, mode), ALL_IDS, f"{mode} query after re-upserting")

    def test_upsert_replaces_content_and_metadata(self, filled: Store) -> None:
        old = contract_chunks()[0]
        new = replace(
            old,
            text=f"{REPLACEMENT_KEYWORD} archive notes",
            end=len(f"{REPLACEMENT_KEYWORD} archive notes"),
            metadata={"source": old.metadata["source"], "category": "archive", "year": 1999},
        )
        archive, pricing = parse({"category": "archive"}), parse({"category": "pricing"})
        filters = self.declares(filled, pricing)
        if filters:  # filtered before the write too: a store caching metadata must refresh it
            check(filled.count(pricing), 3, "count() of pricing chunks")
            for mode in self.modes():
                check(self.everything(filled, mode, archive), set(), f"{mode} query, archive")
        self.upsert(filled, [new], axis(2)[None, :] if self.dense else None)
        check(filled.count(), len(ROWS), "count() after replacing c01")
        if filters:
            for mode in self.modes():
                found = self.everything(filled, mode, archive)
                check(found, {"c01"}, f"{mode} query on c01's new metadata")
            check(filled.count(archive), 1, "count() on c01's new metadata")
            check(filled.count(pricing), 2, "count() on c01's old metadata (c02, c10 left)")
        for mode in self.modes():
            hits = (
                self.search(filled, mode, k=1, vector=axis(2))
                if mode == "dense"
                else self.search(filled, mode, k=10, text=REPLACEMENT_KEYWORD)
            )
            assert [h.chunk for h in hits] == [new], f"{mode}: the replaced chunk is not served"
        if self.text:
            old_keyword = KEYWORDS[0]
            stale = self.search(filled, "text", k=10, text=old_keyword)
            assert stale == [], f"the old text of c01 still matches {old_keyword!r}: {stale}"

    def test_delete_by_ids(self, filled: Store) -> None:
        pricing = parse({"category": "pricing"})  # c01, c02, c10
        filters = self.declares(filled, pricing)
        if filters:
            check(filled.count(pricing), 3, "count() of pricing chunks")
        check(filled.delete(ids=["c01", "c02", "not-there"]), 2, "delete(ids=) return value")
        check(filled.count(), len(ROWS) - 2, "count() after deleting two")
        if filters:
            check(filled.count(pricing), 1, "count() of pricing chunks after the delete")
            for mode in self.modes():
                found = self.everything(filled, mode, pricing)
                check(found, {"c10"}, f"{mode} query for pricing chunks after the delete")
        check(filled.delete(ids=["c01"]), 0, "delete(ids=) of an id already deleted")
        for mode in self.modes():
            check(self.everything(filled, mode), ALL_IDS - {"c01", "c02"}, f"{mode} survivors")

    @pytest.mark.parametrize("case", FILTER_CASES, ids=lambda case: case.name)
    def test_delete_by_filter(self, filled: Store, case: FilterCase) -> None:
        where = case.where
        if not self.declares(filled, where):
            self.assert_refused(filled, where)
            return
        doomed = case.reference()
        spec = dict(case.spec)
        check(filled.delete(where=where), len(doomed), f"delete(where={spec}) return value")
        check(filled.count(where), 0, f"count(where) after delete(where={spec})")
        self.assert_holds(filled, ALL_IDS - doomed, f"after delete(where={spec})")

    # -- reads -------------------------------------------------------------------
    def test_empty_store(self, store: Store) -> None:
        store.warm()  # nothing to build
        check(store.count(), 0, "count() of an empty store")
        for mode in self.modes():
            check(self.search(store, mode, k=5), [], f"{mode} query of an empty store")
        check(store.delete(ids=["c01"]), 0, "delete(ids=) in an empty store")
        where = parse({"category": "pricing"})
        if self.declares(store, where):
            check(store.count(where), 0, "count(where) of an empty store")
            check(store.delete(where=where), 0, "delete(where=) in an empty store")
            for mode in self.modes():
                check(self.search(store, mode, k=5, where=where), [], f"filtered {mode} query")
        else:
            self.assert_refused(store, where)

    def test_warm_changes_no_answer(self, filled: Store) -> None:
        """``warm()`` (a server calls it every few seconds) builds ahead what
        a query would build: after it every query answers as before, and
        after a write too."""
        for mode in self.modes():
            before = [(h.chunk.id, h.score) for h in self.search(filled, mode, k=5)]
            filled.warm()
            filled.warm()
            after = [(h.chunk.id, h.score) for h in self.search(filled, mode, k=5)]
            check(after, before, f"{mode} hits after warm()")
        filled.delete(ids=[before[0][0]])
        filled.warm()
        for mode in self.modes():
            ids = [h.chunk.id for h in self.search(filled, mode, k=100)]
            assert before[0][0] not in ids, f"{mode}: a chunk deleted before warm() came back"

    def test_count(self, filled: Store) -> None:
        check(filled.count(), len(ROWS), "count()")
        check(filled.count(None), len(ROWS), "count(None)")

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
                assert isinstance(hit.score, (int, float)) and hit.score == hit.score, (
                    f"Hit.score is {hit.score!r} ({type(hit.score).__name__}): a score is a "
                    "float, never NaN (the pipeline ranks and fuses by it)"
                )
                assert hit.scores.get(CONTRACT_STORE_NAME) == hit.score, (
                    f"Hit.scores is {dict(hit.scores)}: record the score under the store's name"
                )
                assert math.isfinite(hit.score), f"score {hit.score} is not finite"

    def test_k_limits_the_hits(self, filled: Store) -> None:
        for mode in self.modes():
            for k in (1, 3, len(ROWS), 50):
                hits = self.search(filled, mode, k=k)
                check(len(hits), min(k, len(ROWS)), f"number of {mode} hits for k={k}")

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
        check(filled.count(where), len(expected), f"count({dict(case.spec)})")
        for mode in self.modes():
            found = self.everything(filled, mode, where)
            assert found == expected, (
                f"{mode} query with {dict(case.spec)}: missing {sorted(expected - found)}, "
                f"unexpected {sorted(found - expected)}"
            )
        if self.lists_ids(filled):
            check(self.stored_ids(filled, where), set(expected), f"ids({dict(case.spec)})")

    @pytest.mark.parametrize("op", sorted(ALL_OPERATORS))
    def test_operator_declared_or_refused(self, filled: Store, op: str) -> None:
        """A declared operator works in queries, ``count`` and ``ids``; an undeclared
        one is refused by all of them and by ``delete(where=)`` (``$and`` is implied)."""
        case = FilterCase(op, OPERATOR_FILTERS[op])
        where = case.where
        if op == "$and" or op in filled.filter_operators:
            if self.declares(filled, where):
                for mode in self.modes():
                    found = self.everything(filled, mode, where)
                    check(found, case.reference(), f"{mode} query with {dict(case.spec)}")
                check(filled.count(where), len(case.reference()), f"count({dict(case.spec)})")
                if self.lists_ids(filled):
                    check(self.stored_ids(filled, where), set(case.reference()), f"ids({op})")
            else:  # $not/$and/$or over an undeclared $eq
                self.assert_refused(filled, where)
        else:
            self.assert_refused(filled, where)

    # -- ids() -----------------------------------------------------------------------
    def test_ids_lists_exactly_the_stored_chunks(self, store: Store) -> None:
        """``ids()`` is optional: without it, ``ids()`` and ``ids(where)`` raise
        ``NotImplementedError`` (the base class does). With it, it lists every stored
        chunk id once, and follows upserts and deletes; ``test_filter`` checks
        ``ids(where)`` on every filter case."""
        pricing = parse({"category": "pricing"})
        if not self.lists_ids(store):
            with pytest.raises(NotImplementedError):
                list(store.ids(pricing))
                pytest.fail("ids() raises NotImplementedError but ids(where) does not")
            return
        check(self.stored_ids(store), set(), "ids() of an empty store")
        self.upsert(store, contract_chunks())
        check(self.stored_ids(store), set(ALL_IDS), "ids() of the filled store")
        self.upsert(store, contract_chunks()[:2])
        check(self.stored_ids(store), set(ALL_IDS), "ids() after upserting c01 and c02 again")
        store.delete(ids=["c01", "c05"])
        check(self.stored_ids(store), set(ALL_IDS - {"c01", "c05"}), "ids() after a delete")
        if self.declares(store, pricing):
            check(self.stored_ids(store, pricing), {"c02", "c10"}, "ids(category=pricing)")

    # -- access control ------------------------------------------------------------
    @pytest.mark.parametrize("unlabeled", ["deny", "public"])
    def test_access_filter_never_leaks(self, filled: Store, unlabeled: str) -> None:
        chunks = contract_chunks()
        for principals in ACL_PRINCIPALS:
            acl = access_filter(principals, unlabeled=unlabeled)  # type: ignore[arg-type]
            allowed = {c.id for c in chunks if evaluate(acl, c.metadata)}
            if not self.declares(filled, acl):
                self.assert_refused(filled, acl)  # fails closed
                continue
            check(filled.count(acl), len(allowed), f"count() as {principals} ({unlabeled})")
            for mode in self.modes():
                for k in (1, 2, 100):
                    hits = {h.chunk.id for h in self.search(filled, mode, k=k, where=acl)}
                    assert hits <= allowed, (
                        f"{mode} query as {principals} ({unlabeled}) leaked {hits - allowed}"
                    )
                    check(len(hits), min(k, len(allowed)), f"number of hits for k={k}")

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
                check(self.everything(filled, mode, acl), expected, f"{mode} query with {acl}")

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
        check(filled.count(where), len(expected), f"count() with {caller} as alice")
        for mode in self.modes():
            for k in (1, 100):
                hits = {h.chunk.id for h in self.search(filled, mode, k=k, where=where)}
                assert hits <= expected, f"{mode}: {caller} widened access to {hits - allowed}"
                check(len(hits), min(k, len(expected)), f"number of hits for k={k}")


class DenseStoreContract(StoreContract):
    """The contract of stores declaring ``"dense"``: vector queries."""

    dense = True

    def test_nearest_neighbour_order(self, filled: Store) -> None:
        ids = sorted(ALL_IDS)
        for query, order in ((direction(0.0), ids), (direction(72.0), ids[::-1])):
            for k in (1, 3, len(ids)):
                hits = self.search(filled, "dense", k=k, vector=query)
                check([h.chunk.id for h in hits], order[:k], f"nearest {k} in order")
                scores = [h.score for h in hits]
                assert scores == sorted(scores, reverse=True), (
                    f"scores must not increase down the list (higher is better): {scores}"
                )
        between = self.search(filled, "dense", k=3, vector=direction(8.0 * 4 + 3))
        check([h.chunk.id for h in between], ["c05", "c06", "c04"], "nearest 3 at 35 degrees")

    def test_filter_applies_before_vector_ranking(self, filled: Store) -> None:
        where = parse({"category": {"$in": ["memory", "onboarding"]}})  # c05, c06, c09
        if not self.declares(filled, where):
            self.assert_refused(filled, where)
            return
        hits = self.search(filled, "dense", k=2, vector=direction(0.0), where=where)
        assert [h.chunk.id for h in hits] == ["c05", "c06"], (
            "the top k must be the best *matching* chunks, not the matches among the top k"
        )
        hits = self.search(filled, "dense", k=2, vector=direction(72.0), where=where)
        check([h.chunk.id for h in hits], ["c09", "c06"], "filtered top 2 at 72 degrees")
        acl = restrict(where, access_filter(["carol"]))  # only c06
        if self.declares(filled, acl):
            hits = self.search(filled, "dense", k=1, vector=direction(0.0), where=acl)
            check([h.chunk.id for h in hits], ["c06"], "top 1 with a filter and an ACL")

    def test_hit_vectors_are_the_stored_vectors(self, filled: Store) -> None:
        """``Hit.vector`` is optional; when a store sets it, it is the vector upserted
        with the chunk (normalised or not), which the ``mmr`` reranker uses instead
        of embedding the text again."""
        vectors = contract_vectors()
        row = {cid: i for i, (cid, _, _) in enumerate(ROWS)}
        for hit in self.search(filled, "dense", k=100):
            if hit.vector is None:
                continue
            vector = np.asarray(hit.vector, dtype=np.float32)
            check(vector.shape, (CONTRACT_DIMENSION,), f"shape of Hit.vector of {hit.chunk.id}")
            expected = vectors[row[hit.chunk.id]]
            norms = float(np.linalg.norm(vector) * np.linalg.norm(expected))
            cosine = float(vector @ expected) / norms if norms else 0.0
            assert cosine > 0.999, (
                f"Hit.vector of {hit.chunk.id} is not the vector upserted with it "
                f"(cosine {cosine:.3f}): return the stored vector, or leave it None"
            )

    def test_dimension_mismatch_raises(self, filled: Store) -> None:
        chunk = contract_chunks()[0]
        with pytest.raises(DimensionMismatchError):
            filled.upsert([replace(chunk, text="wrong width")], np.ones((1, 3), np.float32))
        with pytest.raises(DimensionMismatchError):
            filled.query(vector=np.ones(3, dtype=np.float32), k=3)
        check(filled.count(), len(ROWS), "count() after a refused upsert")
        hits = self.search(filled, "dense", k=1, vector=direction(0.0))
        assert [h.chunk for h in hits] == [chunk], "a refused upsert changed the store"


class TextStoreContract(StoreContract):
    """The contract of stores declaring ``"text"``: keyword queries."""

    text = True

    def test_keyword_order(self, store: Store) -> None:
        self.upsert(store, keyword_chunks())
        hits = self.search(store, "text", k=10, text="zephyr")
        got = [(h.chunk.id, h.score) for h in hits]
        assert [h.chunk.id for h in hits] == ["k1", "k2", "k3"], (
            "more occurrences rank higher, and chunks sharing no term with the query are no "
            f"hits: expected k1, k2, k3 in that order, got {got}"
        )
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True), f"scores must not increase: {scores}"
        top2 = [h.chunk.id for h in self.search(store, "text", k=2, text="zephyr")]
        check(top2, ["k1", "k2"], "top 2 for 'zephyr'")
        check(self.search(store, "text", k=5, text="xylophone"), [], "a query no chunk matches")

    def test_filter_applies_before_keyword_ranking(self, store: Store) -> None:
        self.upsert(store, keyword_chunks())
        where = parse({"group": "b"})
        if not self.declares(store, where):
            self.assert_refused(store, where)
            return
        hits = self.search(store, "text", k=1, text="zephyr", where=where)
        assert [h.chunk.id for h in hits] == ["k2"], (
            "the top k must be the best *matching* chunks, not the matches among the top k"
        )
        hits = self.search(store, "text", k=10, text="zephyr", where=where)
        check([h.chunk.id for h in hits], ["k2", "k3"], "filtered hits for 'zephyr'")


class HybridStoreContract(DenseStoreContract, TextStoreContract):
    """The contract of stores declaring both ``"dense"`` and ``"text"``: both sets
    of tests, and the common ones in both query modes; and a query with both
    the vector and the text, as the pipeline asks such a store."""

    def test_a_query_with_both_vector_and_text_answers_from_both(self, store: Store) -> None:
        self.upsert(store, contract_chunks())
        # the vector is nearest c01 and farthest from c10; the text matches c10 alone
        hits = store.query(vector=axis(0), text=KEYWORDS[9], k=3)
        ids = [h.chunk.id for h in hits]
        assert "c01" in ids and "c10" in ids, (
            f"asked with vector= and text= (as the pipeline asks a hybrid store), the top 3 "
            f"were {ids}: the best of each half (c01 by vector, c10 by text) must be among "
            "them; a hybrid store fuses both, it does not drop one"
        )
