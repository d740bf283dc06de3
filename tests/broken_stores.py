"""Deliberately broken stores, each run against the store contract.

Not collected by ragloom's own test run (the name does not start with
``test_``): ``test_store_contract.py`` copies it into a temporary directory
and runs pytest on it in a subprocess, with the template plugin's ``src`` on
``PYTHONPATH``, then checks that every ``Test<Store>`` class fails the tests
its bug should fail, and that the ``Test<Store>`` classes of the unbroken
controls pass.

Each store is the template's ``TinyStore`` (which passes the contract) with
one bug; ``test_store_contract.BREAKS`` names, per broken store, the contract
tests that must catch it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from ragloom import Hit
from ragloom.errors import StoreError
from ragloom.filters import And, Condition, Filter, Not, Or, evaluate
from ragloom.testing import DenseStoreContract
from ragloom_tinystore import TinyStore

LIMITED = frozenset({"$eq", "$in", "$gte", "$or"})
"""What the limited stores declare: no ``$not``, ``$exists``, ``$ne``..."""


def applicable(where: Filter | None, declared: frozenset[str]) -> Filter | None:
    """``where`` with every condition a store declaring ``declared`` cannot apply
    dropped, as a careless translation to a native filter does. Dropping a
    condition always widens the match: ``None`` matches everything."""
    if where is None or isinstance(where, Condition):
        return where if where is None or where.op in declared else None
    if isinstance(where, And):
        kept = [p for p in (applicable(i, declared) for i in where.items) if p is not None]
        return None if not kept else kept[0] if len(kept) == 1 else And(tuple(kept))
    if isinstance(where, Or):
        parts = [applicable(i, declared) for i in where.items]
        kept = tuple(p for p in parts if p is not None)
        return Or(kept) if "$or" in declared and len(kept) == len(parts) else None
    assert isinstance(where, Not)
    inner = applicable(where.item, declared)
    return None if "$not" not in declared or inner != where.item else where


def _is_variant(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, TinyStore) and value is not TinyStore


# -- controls: unbroken, they pass --------------------------------------------------
class LimitedTinyStore(TinyStore):
    """Declares a few operators and refuses the rest everywhere: correct."""

    filter_operators = LIMITED


class UnfilteredTinyStore(TinyStore):
    """Declares no operator, so refuses every filter: correct."""

    filter_operators = frozenset()


class MinimalTinyStore(TinyStore):
    """Keeps the default ``ids()`` (not implemented) and ``Hit.vector`` unset: correct."""

    def ids(self, where: Filter | None = None) -> Iterator[str]:
        return super(TinyStore, self).ids(where)

    def query(self, **kwargs: Any) -> list:
        return [replace(hit, vector=None) for hit in super().query(**kwargs)]


# -- filters: count and delete ------------------------------------------------------
class CountIgnoresWhere(UnfilteredTinyStore):
    """Queries refuse every filter, but ``count(where)`` ignores it and counts all."""

    def count(self, where: Filter | None = None) -> int:
        return len(self._rows)


class OverDeletes(LimitedTinyStore):
    """``delete(where=)`` drops the conditions it cannot apply: it deletes too much."""

    def delete(self, *, ids: Sequence[str] | None = None, where: Filter | None = None) -> int:
        if where is None:
            return super().delete(ids=ids)
        kept = applicable(where, self.filter_operators)
        doomed = [cid for cid, (c, _) in self._rows.items() if evaluate(kept, c.metadata)]
        return super().delete(ids=[*(ids or ()), *doomed])


class IgnoresUnsupportedOperators(LimitedTinyStore):
    """``count(where)`` and ``ids(where)`` apply what they can and silently ignore
    the operators the store does not declare, instead of refusing them."""

    def count(self, where: Filter | None = None) -> int:
        return super().count(applicable(where, self.filter_operators))

    def ids(self, where: Filter | None = None) -> Iterator[str]:
        return super().ids(applicable(where, self.filter_operators))


# -- ids() ------------------------------------------------------------------------
class IdsIgnoresWhere(TinyStore):
    """``ids(where)`` lists every id, whatever ``where`` says."""

    def ids(self, where: Filter | None = None) -> Iterator[str]:
        return super().ids(None)


class IdsKeepsDeleted(TinyStore):
    """``ids()`` still lists deleted chunks, as with tombstones never purged."""

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._gone: set[str] = set()

    def delete(self, *, ids: Sequence[str] | None = None, where: Filter | None = None) -> int:
        before = set(self._rows)
        deleted = super().delete(ids=ids, where=where)
        self._gone |= before - set(self._rows)
        return deleted

    def ids(self, where: Filter | None = None) -> Iterator[str]:
        return iter([*super().ids(where), *sorted(self._gone - set(self._rows))])


# -- Context.fresh ----------------------------------------------------------------
class IgnoresFresh(TinyStore):
    """Reads its file even when opened with ``Context(fresh=True)``."""

    def open(self, context: Any = None) -> None:
        super().open(context)
        self._rows = self._read()


class FreshOnlyHides(TinyStore):
    """Starts empty when fresh, but keeps its file until something is written:
    a rebuild that writes nothing brings the old chunks back."""

    def open(self, context: Any = None) -> None:
        super().open(context)
        self._dirty = False


class DamagedOpensEmpty(TinyStore):
    """Opens an unreadable file as an empty store instead of raising."""

    def _read(self) -> dict:
        try:
            return super()._read()
        except StoreError:
            return {}


# -- refresh() --------------------------------------------------------------------
class NoRefresh(TinyStore):
    """Keeps the default ``refresh()``, which does nothing, though it holds a copy."""

    def refresh(self) -> None:
        pass


class RefreshMissesDeletes(TinyStore):
    """``refresh()`` adds what the file holds but keeps what it no longer holds."""

    def refresh(self) -> None:
        if self._file is not None:
            self._rows = {**self._rows, **self._read()}


# -- Hit.vector -------------------------------------------------------------------
class WrongHitVector(TinyStore):
    """``Hit.vector`` holds the query vector, not the chunk's."""

    def query(self, *, vector: Any = None, **kwargs: Any) -> list:
        hits = super().query(vector=vector, **kwargs)
        return [replace(hit, vector=np.asarray(vector, dtype=np.float32)) for hit in hits]


# -- Hit.score --------------------------------------------------------------------
class TextScores(TinyStore):
    """``Hit.score`` as text (``"0.93"``): sorts, prints, and fuses wrong."""

    def query(self, **kwargs: Any) -> list:
        return [
            Hit(h.chunk, str(h.score), h.store, {**h.scores}, h.vector)  # type: ignore[arg-type]
            for h in super().query(**kwargs)
        ]


def _contract_class(store: type[TinyStore]) -> type[DenseStoreContract]:
    class Contract(DenseStoreContract):
        @pytest.fixture
        def store_factory(self) -> Any:
            return lambda path: store()

    Contract.__name__ = Contract.__qualname__ = f"Test{store.__name__}"
    return Contract


# a contract class per store: TestTinyStore, TestCountIgnoresWhere...
STORES = [TinyStore, *(s for s in list(globals().values()) if _is_variant(s))]
for _store in STORES:
    globals()[f"Test{_store.__name__}"] = _contract_class(_store)
