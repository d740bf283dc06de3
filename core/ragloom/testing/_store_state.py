"""The store contract's tests of state across instances: persistence,
``Context.fresh`` and ``refresh()``. Part of every contract class through
``ragloom.testing.StoreContract``; not used alone.

They open stores of their own, on the test's ``tmp_path``, as the pipeline
does: an index run and a long-lived server hold two instances of the same
store on the same data.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..errors import RagloomError
from ..filters import parse
from ._store_data import ALL_IDS, REPLACEMENT_KEYWORD, ROWS, axis, contract_chunks
from ._store_harness import StoreHarness, check

if TYPE_CHECKING:
    from ._store_harness import StoreFactory

_DAMAGE = {
    "garbage": b"\x00\xffthis is not a ragloom store file\n" * 64,
    "truncated": b"",
}


class StoreStateTests(StoreHarness):
    """Persistence across close and reopen, ``Context(fresh=True)``, ``refresh()``."""

    def fill_and_close(self, store_factory: StoreFactory, path: Path) -> None:
        """Open a store under ``path``, upsert ``contract_chunks()``, flush and close it."""
        store = self.open_store(store_factory, path)
        try:
            self.upsert(store, contract_chunks())
            store.flush()
        finally:
            store.close()

    # -- persistence -----------------------------------------------------------------
    def test_persists_across_close_and_reopen(
        self, store_factory: StoreFactory, tmp_path: Path
    ) -> None:
        self.fill_and_close(store_factory, tmp_path)

        second = self.open_store(store_factory, tmp_path)
        try:
            self.assert_holds(second, ALL_IDS, "after flush, close and reopen")
            originals = {c.id: c for c in contract_chunks()}
            for mode in self.modes():
                hits = self.search(second, mode, k=100)
                check(
                    {h.chunk.id: h.chunk for h in hits},
                    originals,
                    f"chunks of a {mode} query after reopening",
                )
            # c01 and c02: list-valued metadata and dates survive the round trip
            where = parse({"tags": "billing", "published": {"$gte": "2023-01-01"}})
            if self.declares(second, where):
                check(second.count(where), 2, "count(where) after reopening")
            check(second.delete(ids=["c01"]), 1, "delete(ids=) after reopening")
            second.flush()
        finally:
            second.close()

        third = self.open_store(store_factory, tmp_path)
        try:
            self.assert_holds(third, ALL_IDS - {"c01"}, "after a delete, flush and reopen")
        finally:
            third.close()

    # -- Context.fresh ------------------------------------------------------------------
    def test_fresh_open_starts_empty(self, store_factory: StoreFactory, tmp_path: Path) -> None:
        """``ragloom index --rebuild`` opens every store with ``Context(fresh=True)``:
        the store starts empty, and what it had persisted is gone for good, so a
        rebuild that writes nothing (every source deleted) leaves it empty."""
        self.fill_and_close(store_factory, tmp_path)
        fresh = self.open_store(store_factory, tmp_path, fresh=True)
        try:
            self.assert_holds(fresh, set(), "of a store opened with Context(fresh=True)")
            fresh.flush()
        finally:
            fresh.close()
        again = self.open_store(store_factory, tmp_path)
        try:
            self.assert_holds(
                again, set(), "after a fresh open, flush and close, then a plain reopen"
            )
        finally:
            again.close()

    def test_fresh_open_then_writes(self, store_factory: StoreFactory, tmp_path: Path) -> None:
        self.fill_and_close(store_factory, tmp_path)
        fresh = self.open_store(store_factory, tmp_path, fresh=True)
        try:
            self.upsert(fresh, contract_chunks()[:3])
            self.assert_holds(fresh, {"c01", "c02", "c03"}, "after a fresh open and an upsert")
            fresh.flush()
        finally:
            fresh.close()
        again = self.open_store(store_factory, tmp_path)
        try:
            self.assert_holds(again, {"c01", "c02", "c03"}, "after a fresh open, writes, reopen")
        finally:
            again.close()

    @pytest.mark.parametrize("damage", sorted(_DAMAGE))
    def test_fresh_open_ignores_damaged_files(
        self, store_factory: StoreFactory, tmp_path: Path, damage: str
    ) -> None:
        """A fresh open never reads what the store persisted: ``--rebuild`` works
        from any state on disk, garbage included. Every file the store wrote
        under its directory is overwritten (a store keeping no files there, such
        as one behind a server, is tested as by ``test_fresh_open_starts_empty``)."""
        self.fill_and_close(store_factory, tmp_path)
        for file in _files(tmp_path):
            file.write_bytes(_DAMAGE[damage])
        try:
            fresh = self.open_store(store_factory, tmp_path, fresh=True)
        except Exception as exc:
            pytest.fail(
                f"open() with Context(fresh=True) failed on {damage} files "
                f"({type(exc).__name__}: {exc}): a fresh store must not read what it persisted"
            )
        try:
            self.assert_holds(fresh, set(), f"of a fresh store over {damage} files")
            self.upsert(fresh, contract_chunks())
            fresh.flush()
        finally:
            fresh.close()
        again = self.open_store(store_factory, tmp_path)
        try:
            self.assert_holds(again, ALL_IDS, f"after a fresh open over {damage} files, reopened")
        finally:
            again.close()

    def test_damaged_files_fail_loudly(self, store_factory: StoreFactory, tmp_path: Path) -> None:
        """Without ``fresh``, a store whose files hold garbage raises a ``RagloomError``
        (``StoreError``, saying to run ``ragloom index --rebuild``) when opened or
        first read; it never answers from other data, nor as if empty."""
        self.fill_and_close(store_factory, tmp_path)
        for file in _files(tmp_path):
            file.write_bytes(_DAMAGE["garbage"])
        try:
            store = self.open_store(store_factory, tmp_path)
            count = store.count()
        except RagloomError:
            return
        except Exception as exc:
            pytest.fail(
                f"a store whose files hold garbage raised {type(exc).__name__}: {exc}; "
                "raise StoreError saying to run `ragloom index --rebuild` (a RagloomError "
                "reaches the user as a message, anything else as a crash)"
            )
        try:
            check(
                count,
                len(ROWS),
                "count() of a store whose files were overwritten with garbage: raise "
                "StoreError (run `ragloom index --rebuild`) instead of opening with other data",
            )
        finally:
            store.close()

    # -- refresh() ---------------------------------------------------------------------
    def test_refresh_sees_what_another_instance_wrote(
        self, store_factory: StoreFactory, tmp_path: Path
    ) -> None:
        """Two instances of the store on the same data, as a server's pipeline and
        an index run in another process: after one writes and flushes, the other's
        ``refresh()`` makes every write visible, upserts, replacements and deletes.
        A store that reads a live server sees them at once and passes with the
        default ``refresh()``, which does nothing."""
        writer = self.open_store(store_factory, tmp_path)
        reader = self.open_store(store_factory, tmp_path)
        try:
            reader.refresh()  # nothing written yet
            self.assert_holds(reader, set(), "after refresh() with nothing written")

            self.upsert(writer, contract_chunks())
            writer.flush()
            reader.refresh()
            self.assert_holds(reader, ALL_IDS, "after the other instance's upserts and refresh()")

            old = contract_chunks()[2]  # c03, replaced
            text = f"{REPLACEMENT_KEYWORD} archive notes"
            new = replace(
                old,
                text=text,
                end=len(text),
                metadata={"source": old.metadata["source"], "category": "archive"},
            )
            writer.delete(ids=["c01", "c02"])
            self.upsert(writer, [new], axis(2)[None, :] if self.dense else None)
            writer.flush()
            reader.refresh()
            self.assert_holds(
                reader, ALL_IDS - {"c01", "c02"}, "after the other instance's deletes"
            )
            for mode in self.modes():
                hits = (
                    self.search(reader, mode, k=1, vector=axis(2))
                    if mode == "dense"
                    else self.search(reader, mode, k=10, text=REPLACEMENT_KEYWORD)
                )
                check([h.chunk for h in hits], [new], f"{mode}: the replaced c03 after refresh()")
            archive = parse({"category": "archive"})
            if self.declares(reader, archive):
                check(reader.count(archive), 1, "count() on c03's new metadata after refresh()")

            # the other way round: a refreshed instance writes without losing anything
            self.upsert(reader, contract_chunks()[:1])
            reader.flush()
            writer.refresh()
            self.assert_holds(writer, ALL_IDS - {"c02"}, "after the reader wrote and refresh()")
            writer.refresh()  # nothing new: nothing changes
            self.assert_holds(writer, ALL_IDS - {"c02"}, "after a second refresh()")

            writer.delete(ids=sorted(ALL_IDS))
            writer.flush()
            reader.refresh()
            self.assert_holds(reader, set(), "after the other instance deleted everything")
        finally:
            reader.close()
            writer.close()


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
