"""The configured stores of a pipeline, opened together.

A store that fails to open (an unreadable file, a server that is down) does
not stop the pipeline from opening: its error is kept and raised by the
first query or index run that needs it, and the next use tries to open it
again. ``ragloom index --rebuild`` instead opens every store *fresh*
(``Context.fresh``), so a rebuild works whatever state their files are in,
unreadable ones included. Iterating a ``StoreSet`` yields ``(name, store)``
pairs, as ``Pipeline.stores`` always has.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .components import Context, Store
    from .config import ComponentSpec
    from .executors import StoreRecipe

__all__ = ["StoreSet"]


REOPEN_AFTER = 5.0
"""Seconds before a store whose open failed slowly (``SLOW_OPEN`` or more: a
server that did not answer) is tried again by the next query or run; its
error is raised meanwhile. A store that fails fast (an unreadable file) is
tried again at once, as before."""
SLOW_OPEN = 1.0


class StoreSet(Sequence[tuple[str, "Store"]]):
    """``(name, store)`` pairs in config order, with their lifecycle.

    ``context(name, fresh)`` builds the ``Context`` a store is opened with.
    Opening and reopening are not thread-safe by themselves: the pipeline
    calls them with its store lock held for writing.
    """

    def __init__(
        self, specs: Sequence[ComponentSpec], context: Callable[[str, bool], Context]
    ) -> None:
        self._specs = list(specs)
        self._items: list[tuple[str, Store]] = [(s.name, s.create()) for s in self._specs]
        self._context = context
        self._opened: set[str] = set()
        self._broken: dict[str, Exception] = {}
        self._failed_at: dict[str, float] = {}  # when each broken store's open failed

    # -- the sequence ---------------------------------------------------------
    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index: int) -> tuple[str, Store]:  # type: ignore[override]
        return self._items[index]

    def __iter__(self) -> Iterator[tuple[str, Store]]:
        return iter(list(self._items))

    def __repr__(self) -> str:
        return f"StoreSet({[name for name, _ in self._items]})"

    @property
    def needs_vectors(self) -> bool:
        """Whether any store answers vector queries (so texts must be embedded)."""
        return any("dense" in store.capabilities for _, store in self._items)

    @functools.cached_property
    def reads_slips(self) -> bool:
        """Whether any store reads a query's slips of typing (``Store.spelled``)."""
        from .components import Store

        return any(type(store).spelled is not Store.spelled for _, store in self._items)

    def spelled(self, text: str) -> str:
        """A query as the open stores that read slips of typing spell it
        ("parkng" as "parking": ``Store.spelled``), in config order."""
        for name, store in self._items:
            if name in self._opened:
                text = store.spelled(text)
        return text

    def shared_recipes(self) -> tuple[StoreRecipe, ...]:
        """Every store as a :class:`~ragloom.executors.StoreRecipe` when each of
        them declares ``shared_writes`` (so workers elsewhere may write them all);
        empty otherwise, or with no store."""
        from .executors import StoreRecipe, component_recipe

        if not self._items or not all(store.shared_writes for _, store in self._items):
            return ()
        recipes = []
        for spec in self._specs:
            recipe = component_recipe(spec)
            assert recipe is not None
            context = self._context(spec.name, False)
            recipes.append(StoreRecipe(spec.name, recipe, context.filter_fields, context.filter))
        return tuple(recipes)

    @property
    def opened(self) -> bool:
        return len(self._opened) == len(self._items)

    def is_open(self, name: str) -> bool:
        return name in self._opened

    # -- lifecycle ----------------------------------------------------------------
    def open(self) -> None:
        """Open every store not yet open, reading what it persisted. A store that
        fails is left closed and its error kept for ``check()``; one that took
        ``SLOW_OPEN`` seconds or more to fail is tried again only once
        ``REOPEN_AFTER`` seconds have passed (a database that did not answer
        made a command wait out its connection timeout twice: the pipeline's
        open, then its first query's)."""
        for name, store in self._items:
            if name not in self._opened:
                failed = self._failed_at.get(name)
                if failed is not None and time.monotonic() - failed < REOPEN_AFTER:
                    continue
                started = time.monotonic()
                try:
                    store.open(self._context(name, False))
                except Exception as exc:
                    self._broken[name] = exc
                    ended = time.monotonic()
                    if ended - started >= SLOW_OPEN:  # waited out a timeout: not again at once
                        self._failed_at[name] = ended
                    continue
                self._broken.pop(name, None)
                self._failed_at.pop(name, None)
                self._opened.add(name)

    def kinds(self) -> dict[str, str]:
        """Each store's name and type (``store_kind``)."""
        return {name: store_kind(store) for name, store in self._items}

    def locations(self) -> dict[str, str]:
        """Each store's ``location``, for those that tell one."""
        out = {}
        for name, store in self._items:
            with contextlib.suppress(Exception):  # a plugin's bug is no reason to fail a run
                where = store.location
                if isinstance(where, str) and where:
                    out[name] = where
        return out

    def check(self) -> None:
        """Raise the error of a store that could not be opened, if any."""
        for name, _ in self._items:
            if name in self._broken:
                raise self._broken[name]

    def error(self, name: str) -> Exception | None:
        """Why the store ``name`` could not be opened (None: it is open, or not tried)."""
        return self._broken.get(name)

    def reopen(self, name: str, *, fresh: bool) -> None:
        """Close the store ``name`` and open a new instance of it (``fresh``:
        empty, whatever it persisted)."""
        for i, (item_name, store) in enumerate(self._items):
            if item_name != name:
                continue
            if name in self._opened:
                self._opened.discard(name)
                store.close()
            replacement = self._specs[i].create()
            self._items[i] = (name, replacement)
            replacement.open(self._context(name, fresh))
            self._broken.pop(name, None)
            self._failed_at.pop(name, None)
            self._opened.add(name)
            return
        raise KeyError(name)

    def reopen_all(self, *, fresh: bool) -> None:
        for name, _ in list(self._items):
            self.reopen(name, fresh=fresh)

    def close(self) -> list[Exception]:
        """Close every opened store (in reverse order); returns the errors raised."""
        errors: list[Exception] = []
        for name, store in reversed(self._items):
            if name in self._opened:
                self._opened.discard(name)
                try:
                    store.close()
                except Exception as exc:  # close the rest, then report
                    errors.append(exc)
        return errors


def store_kind(store: Store) -> str:
    """The type a store was registered under (its class name if built by hand)."""
    return store.type_name or type(store).__name__
