"""The fixtures and helpers every store contract class shares.

``StoreHarness`` is the base of ``ragloom.testing.StoreContract``: the
``store_factory``/``store``/``filled`` fixtures, and the helpers a subclass
may use in tests of its own (``open_store``, ``upsert``, ``search``,
``everything``, ``stored_ids``, ``assert_holds``, ``assert_refused``). It
holds no tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pytest

from ..components import Context, Store
from ..errors import UnsupportedFilterError
from ..filters import Filter, check_supported, operators
from ..types import Chunk, Hit
from ._store_data import (
    CONTRACT_STORE_NAME,
    KEYWORDS,
    REPLACEMENT_KEYWORD,
    axis,
    contract_chunks,
    contract_vectors,
)

if TYPE_CHECKING:
    StoreFactory = Callable[[Path], Store]


def check(actual: Any, expected: Any, what: str) -> None:
    """``assert actual == expected`` with both values in the message (the suite's
    asserts are not rewritten by pytest unless a conftest registers it)."""
    if isinstance(actual, (set, frozenset)) and isinstance(expected, (set, frozenset)):
        assert actual == expected, (
            f"{what}: missing {sorted(expected - actual)}, unexpected {sorted(actual - expected)}"
        )
    assert actual == expected, f"{what}: got {actual!r}, expected {expected!r}"


class StoreHarness:
    """Fixtures and helpers of the store contract; no tests.

    ``dense`` and ``text`` say which query modes a contract class tests.
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
    def open_store(store_factory: StoreFactory, path: Path, *, fresh: bool = False) -> Store:
        """A store from ``store_factory(path)``, opened as the pipeline opens it, with
        ``Context(index_dir=path, base_dir=path, name="contract", fresh=fresh)``."""
        store = store_factory(path)
        assert isinstance(store, Store), f"store_factory returned {store!r}, not a ragloom.Store"
        context = Context(index_dir=path, base_dir=path, name=CONTRACT_STORE_NAME, fresh=fresh)
        store.open(context)
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
            query = axis(0) if vector is None else vector
            hits = store.query(vector=query, k=k, where=where)
        else:
            words = " ".join([*KEYWORDS, REPLACEMENT_KEYWORD]) if text is None else text
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
    def lists_ids(store: Store) -> bool:
        """Whether the store implements the optional ``ids()`` (the base class
        raises ``NotImplementedError``)."""
        try:
            list(store.ids())
        except NotImplementedError:
            return False
        return True

    @staticmethod
    def stored_ids(store: Store, where: Filter | None = None) -> set[str]:
        """``set(store.ids(where))``, checking that no id comes twice."""
        listed = list(store.ids(where))
        for cid in listed:
            assert isinstance(cid, str), f"ids() yielded {cid!r}, not a str"
        assert len(listed) == len(set(listed)), f"ids() listed a chunk twice: {sorted(listed)}"
        return set(listed)

    def assert_holds(self, store: Store, expected: set[str] | frozenset[str], what: str) -> None:
        """The store holds exactly the chunks ``expected``: by ``count()``, by a query
        reaching every chunk in each mode, and by ``ids()`` where implemented."""
        check(store.count(), len(expected), f"count() {what}")
        for mode in self.modes():
            check(self.everything(store, mode), set(expected), f"{mode} query {what}")
        if self.lists_ids(store):
            check(self.stored_ids(store), set(expected), f"ids() {what}")

    @staticmethod
    def declares(store: Store, where: Filter | None) -> bool:
        """Whether the store declares every operator ``where`` uses, as
        ``ragloom.filters.check_supported`` decides: ``$and`` is implied (several
        conditions are always ANDed), every other operator, ``$or`` and ``$not``
        included, must be in ``filter_operators``."""
        try:
            check_supported(where, frozenset(store.filter_operators), CONTRACT_STORE_NAME)
        except UnsupportedFilterError:
            return False
        return True

    def assert_refused(self, store: Store, where: Filter | None) -> None:
        """Every method taking a filter refuses one with an undeclared operator by
        raising ``UnsupportedFilterError``: ``query`` in each mode, ``count(where)``,
        ``ids(where)`` where implemented, and ``delete(where=)``, which deletes nothing.
        Dropping the condition instead would count, list or delete too much."""
        missing = ", ".join(sorted(operators(where) - set(store.filter_operators) - {"$and"}))

        def why(call: str) -> str:
            return (
                f"the store does not declare {missing} in filter_operators, yet {call} "
                "did not raise UnsupportedFilterError (a condition must never be dropped: "
                "call ragloom.filters.check_supported first)"
            )

        for mode in self.modes():
            with pytest.raises(UnsupportedFilterError):
                self.search(store, mode, k=10, where=where)
                pytest.fail(why(f"a {mode} query using it"))
        before = store.count()
        with pytest.raises(UnsupportedFilterError):
            store.count(where)
            pytest.fail(why("count(where) with it"))
        if self.lists_ids(store):
            with pytest.raises(UnsupportedFilterError):
                list(store.ids(where))
                pytest.fail(why("ids(where) with it"))
        with pytest.raises(UnsupportedFilterError):
            deleted = store.delete(where=where)
            pytest.fail(why(f"delete(where=) with it (it deleted {deleted})"))
        check(store.count(), before, "count() after a refused delete(where=)")
