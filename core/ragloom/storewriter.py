"""An index run's writes into the stores, and the checks that keep stores and
ledger in agreement.

Every write (upsert, delete, flush, refresh) is a stage of the run and holds
the pipeline's store lock for writing, so no query of the same process sees
a store half-way through a call. Around the writes:

- ``open()`` opens the stores and refreshes them from disk (a pipeline
  opened before another process indexed never writes back a stale copy);
- ``repair_journal()`` deletes the chunks a killed run left behind;
- ``check()`` compares each store's count with the ledger's and, with
  ``repair``, deletes the chunks no document owns and names the documents
  to write again;
- ``wipe()`` opens every store fresh for a rebuild;
- ``discard()`` drops what a failed run had not flushed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import IndexStateError
from .storeset import store_kind

if TYPE_CHECKING:
    from .components import Store
    from .ledger import Journal, Ledger, LedgerEntry
    from .runs import Run
    from .state import IndexState
    from .storeset import StoreSet

__all__ = ["StoreWriter"]

log = logging.getLogger("ragloom")


class StoreWriter:
    """The stores of one index run, written under the store lock."""

    def __init__(self, stores: StoreSet, state: IndexState, run: Run) -> None:
        self.stores = stores
        self.state = state
        self.run = run
        # stores the config moved and this run did not repair: the ledger keeps
        # their former location, so that every run says so until --repair
        self._not_moved_yet: dict[str, str] = {}
        self._max_delete_share = 1.0

    def call(self, stage: str, name: str, store: Store, func: Any, *args: Any, **kw: Any) -> Any:
        """A store write, as a stage, with the store lock held: no query runs meanwhile."""
        with self.state.lock.write():
            return self.run.stage(stage, name, store, func, *args, **kw)

    def upsert(self, chunks: list[Any], vectors: Any) -> None:
        for name, store in self.stores:
            dense = "dense" in store.capabilities
            self.call("upsert", name, store, store.upsert, chunks, vectors if dense else None)

    def delete(self, ids: list[str]) -> None:
        for name, store in self.stores:
            self.call("delete", name, store, store.delete, ids=ids)

    def flush(self) -> None:
        for name, store in self.stores:
            self.call("flush", name, store, store.flush)

    def refresh(self) -> None:
        """Pick up what other processes wrote (an executor's workers)."""
        for name, store in self.stores:
            self.call("refresh", name, store, store.refresh)

    # -- before the run ----------------------------------------------------
    def open(self) -> None:
        """Open the stores (if the pipeline has not yet) and refresh them from disk."""
        with self.state.lock.write():
            self.stores.open()
            self.stores.check()
            for name, store in self.stores:
                self.run.stage("refresh", name, store, store.refresh)

    def repair_journal(self, entries: Mapping[str, LedgerEntry], journal: Journal) -> int:
        """After a run that died: delete from every store the chunks the journal
        names that no committed document owns. Returns how many there were."""
        pending = journal.pending()
        if not pending:
            journal.clear()
            return 0
        owned = {cid for entry in entries.values() for cid in entry.chunk_ids}
        orphans = sorted(pending - owned)
        if orphans:
            log.warning("repairing an interrupted index run: %d orphan chunk(s)", len(orphans))
            self.delete(orphans)
            self.flush()
        journal.clear()
        return len(orphans)

    def stray_folders(self, index_dir: Path, sources: Sequence[Path] = ()) -> list[Path]:
        """Folders in ``index_dir`` that are no configured store's, nor hold
        one: left by a store the config dropped or renamed, or moved aside by
        a rebuild, and holding what was indexed into them. Not a folder that
        is, or holds, one of ``sources`` (what the loaders read)."""
        try:
            folders = [p for p in index_dir.iterdir() if p.is_dir() and not p.is_symlink()]
        except OSError:
            return []
        if not folders:
            return []
        used = []
        for _, store in self.stores:
            context = getattr(store, "context", None)
            if context is not None:
                used.append(context.store_dir(getattr(store.config, "path", None)).absolute())
        read = [source.absolute() for source in sources]
        return sorted(
            folder
            for folder in folders
            if not any(
                u == folder.absolute() or folder.absolute() in u.parents for u in used + read
            )
            # a folder under one a loader reads is documents (``index_dir: .``, ``path: .``)
            and not any(r in folder.absolute().parents for r in read)
            and not _holds_indexes(folder)
        )

    def kinds(self) -> dict[str, str]:
        """Each store's name and type, as the ledger records them after a run."""
        return self.stores.kinds()

    def locations(self, *, everything_written: bool = False) -> dict[str, str]:
        """Each store's location (``Store.location``), as the ledger records them:
        a store moved and not repaired keeps its former one, unless this run
        wrote every document anew (a rebuild, a new chunker)."""
        now = self.stores.locations()
        return now if everything_written else {**now, **self._not_moved_yet}

    def check(
        self,
        entries: Mapping[str, LedgerEntry],
        *,
        repair: bool,
        dry_run: bool,
        known: Mapping[str, str] | None = None,
        located: Mapping[str, str] | None = None,
        max_delete_share: float = 1.0,
    ) -> tuple[set[str], list[str]]:
        """Every store must hold the chunks the ledger lists. Returns the
        documents to write again and, with ``repair``, what was fixed; without
        it, a mismatch stops the run (a dry run reports it). A repair that
        would delete more than ``max_delete_share`` of a server store's chunks
        (which the ledger does not know: another index's, on the same table or
        collection?) is refused (``IndexStateError``)."""
        self._max_delete_share = max_delete_share
        owned = {cid: doc_id for doc_id, e in entries.items() for cid in e.chunk_ids}
        forced: set[str] = set()
        fixed: list[str] = []
        for name, store in self.stores:
            moved = moved_location(name, store, located)
            if not store.exact_count:
                said_moved = self._check_lagging(name, store, owned, repair=repair,
                                                 dry_run=dry_run, forced=forced, fixed=fixed,
                                                 moved=moved)  # fmt: skip
                if said_moved and located is not None:
                    self._not_moved_yet[name] = located[name]
                continue
            held = self.run.stage("count", name, store, store.count)
            off = 0  # with as many chunks as the ledger: how many are not its own
            if held == len(owned) and not repair and not moved:
                off = self._strangers(name, store, owned)
                if not off:
                    continue
            if not repair:
                said = (
                    f"holds {held} chunk(s), as many as the ledger lists, but {off} of them "
                    "are not the ledger's"
                    if off
                    # moved where as many chunks lie (an older copy): which, unknown
                    else f"holds {held} chunk(s), as many as the ledger lists"
                    if held == len(owned)
                    else f"holds {held} chunk(s) but the ledger lists {len(owned)}"
                )
                # the ledger says which store each name was (ledgers before it, nothing)
                was = known.get(name) if isinstance(known, Mapping) else store_kind(store)
                if was != store_kind(store) or moved:  # the config changed, not the files
                    cause = (
                        "the config added it since the last run"
                        if was is None
                        else f"it was a {was!r} store at the last run and is a "
                        f"{store_kind(store)!r} one now"
                        if was != store_kind(store)
                        else moved
                    )
                    message = (
                        f"store {name!r} {said}: {cause}; run `ragloom index --repair` to write "
                        "the documents into it from the ledger (or `ragloom index --rebuild`)"
                    )
                elif store.shared_writes and held > len(owned):
                    message = (
                        f"store {name!r} ({store.location or store_kind(store)}) {said}: "
                        "another index may use the same location (two configs on one database "
                        "or server): give this one its own (`table:`, `collection:`, "
                        "`namespace:`); if the chunks are this index's own (its ledger lost "
                        "or restored from a backup), run `ragloom index --repair`"
                    )
                else:
                    message = (
                        f"store {name!r} {said}: "
                        "the store's files or the ledger were changed outside ragloom (deleted, "
                        "restored from a backup); run `ragloom index --repair` to bring them "
                        "back in agreement, or `ragloom index --rebuild`"
                    )
                if dry_run:
                    self.run.report(name, message)
                    continue
                raise IndexStateError(message)
            if dry_run:
                continue
            line = self._repair(name, store, owned, held, forced)
            if line:
                fixed.append(line)
        return forced, fixed

    def _check_lagging(
        self,
        name: str,
        store: Store,
        owned: Mapping[str, str],
        *,
        repair: bool,
        dry_run: bool,
        forced: set[str],
        fixed: list[str],
        moved: str | None = None,
    ) -> bool:
        """A store whose count lags its writes (``exact_count`` False, a service
        such as Pinecone) cannot be held to the ledger's count on every run.
        With ``repair`` its ids are listed and it is repaired as any store
        (``--repair`` is what an operator runs after moving it: another
        namespace or index). Otherwise a store that holds nothing while the
        ledger lists chunks gets a note: a count can lag a write by seconds,
        not a whole index. Returns whether it said the store was ``moved``."""
        if repair:
            if dry_run:
                return False
            try:
                present = list(self.run.stage("ids", name, store, lambda: list(store.ids())))
            except NotImplementedError:
                self.run.report(
                    name,
                    "a store whose count lags its writes and that cannot list its ids cannot "
                    "be repaired from the ledger: `ragloom index --rebuild` writes it afresh",
                )
                return False
            line = self._repair(name, store, owned, len(present), forced, present=present)
            if line:
                fixed.append(line)
            return False
        if not owned:
            return False
        if moved:
            self.run.report(
                name,
                f"{moved}: run `ragloom index --repair` to write the documents there from the "
                "ledger; until then its queries find only what that location holds",
            )
            return True
        held = self.run.stage("count", name, store, store.count)
        if held == 0:
            self.run.report(
                name,
                f"the store holds no chunk but the ledger lists {len(owned)}: if it was moved "
                "(another index, namespace or collection in the config) or emptied, run "
                "`ragloom index --repair` to write the documents into it from the ledger; "
                "until then its queries find nothing",
            )
        return False

    def _strangers(self, name: str, store: Store, owned: Mapping[str, str]) -> int:
        """How many of the chunks a store in this process holds the ledger does
        not list (a store folder restored from a backup holds as many chunks,
        of other versions). Not asked of a store on a server: listing every id
        there costs a round trip per page on every run."""
        if store.remote_queries:
            return 0
        try:
            present = self.run.stage("ids", name, store, lambda: list(store.ids()))
        except NotImplementedError:
            return 0
        return sum(1 for cid in present if cid not in owned)

    def _repair(
        self,
        name: str,
        store: Store,
        owned: Mapping[str, str],
        held: int,
        forced: set[str],
        present: list[str] | None = None,
    ) -> str | None:
        """Delete the chunks ``store`` holds that no document owns, and mark the
        documents whose chunks it lacks for writing again (``present``: its ids,
        when listed already)."""
        try:
            if present is None:
                present = list(self.run.stage("ids", name, store, lambda: list(store.ids())))
            found = set(present)
        except NotImplementedError:
            if held == len(owned):
                return None
            self._guard_repair(name, store, held - len(owned), held)
            # no way to tell which chunks are off: empty it, and write every document again
            with self.state.lock.write():
                self.stores.reopen(name, fresh=True)
            forced.update(owned.values())
            return f"{name}: rebuilt from the ledger's {len(set(owned.values()))} document(s)"
        extra = sorted(found - owned.keys())
        missing = owned.keys() - found
        self._guard_repair(name, store, len(extra), len(found))
        if extra:
            self.call("delete", name, store, store.delete, ids=extra)
            self.call("flush", name, store, store.flush)
        forced.update(owned[cid] for cid in missing)
        if not extra and not missing:
            return None
        return (
            f"{name}: deleted {len(extra)} chunk(s) no document owns; "
            f"{len({owned[c] for c in missing})} document(s) written again"
        )

    def guard_wipe(self, listed: int, share: float) -> None:
        """Before ``--rebuild`` empties the stores: refuse when a store on a
        server holds more than ``share`` of its chunks beyond the ``listed``
        ones of this index's ledger (another index on the same table or
        collection would lose them). A store that cannot be opened as it is
        (the reason to rebuild, often) is not asked."""
        if share >= 1:
            return
        with self.state.lock.write():
            self.stores.open()  # what fails is kept for later, not raised
        for name, store in self.stores:
            if not store.shared_writes or not self.stores.is_open(name):
                continue
            held = self.run.stage("count", name, store, store.count)
            strangers = held - listed
            if strangers > 1 and strangers > share * held:
                raise IndexStateError(
                    f"store {name!r} ({store.location or store_kind(store)}) holds {held} "
                    f"chunk(s), {strangers} more than this index lists: `--rebuild` would "
                    f"delete them with the rest ({strangers / held:.0%} of it, more than "
                    f"`indexing.max_delete_share`, {share:.0%}). If another index uses the "
                    "same location (two configs on one database or server), give this one its "
                    "own (`table:`, `collection:`, `namespace:`); if they are this index's own, "
                    "run `ragloom index --rebuild --allow-mass-delete`"
                )

    def _guard_repair(self, name: str, store: Store, strangers: int, held: int) -> None:
        """Refuse to delete ``strangers`` of the ``held`` chunks of a store on a
        server when they are more than ``indexing.max_delete_share`` of it:
        another index may use the same table or collection (two configs on one
        database), whose chunks this index's ledger does not list."""
        share = self._max_delete_share
        if not store.shared_writes or strangers <= 1 or share >= 1 or strangers <= share * held:
            return
        raise IndexStateError(
            f"store {name!r} ({store.location or store_kind(store)}) holds {held} chunk(s), "
            f"{strangers} of which no document of this index owns: repairing would delete "
            f"{strangers / held:.0%} of it, more than `indexing.max_delete_share` "
            f"({share:.0%}) allows. If another index uses the same location (two configs on "
            "one database or server), give this one its own (`table:`, `collection:`, "
            "`namespace:`); if they are this index's own leftovers, run "
            "`ragloom index --repair --allow-mass-delete`"
        )

    def wipe(self) -> None:
        """``--rebuild``: every store opened fresh (empty, its files unread)."""
        with self.state.lock.write():
            self.stores.reopen_all(fresh=True)
            # this process's queries see the cleared ledger with its rebuild
            # mark, not the documents the emptied stores no longer hold
            self.state.set_view(self.state.load_view())
        for name, store in self.stores:
            left = store.count()
            if left:
                raise IndexStateError(
                    f"store {name!r} still holds {left} chunk(s) after it was opened fresh for "
                    "the rebuild: it does not honour `Context.fresh`; empty it by hand"
                )

    # -- after the run -----------------------------------------------------
    def check_after(self, ledger: Ledger) -> None:
        """After the run every store must hold exactly the ledger's chunks; a
        store that does not lost writes: reported (the next run refuses)."""
        expected = sum(len(e.chunk_ids) for e in ledger.entries().values())
        for name, store in self.stores:
            if store.exact_count and (held := store.count()) != expected:
                self.run.report(
                    name,
                    f"after the run the store holds {held} chunk(s), the ledger lists "
                    f"{expected}: a write was lost; run `ragloom index --repair`",
                )

    def discard(self) -> None:
        """After a failed run: back to what the stores persisted (the writes
        this run did not flush are dropped; those it flushed, the journal names)."""
        with self.state.lock.write():
            for name, store in self.stores:
                try:
                    store.refresh()
                except Exception as exc:  # the original error matters more
                    log.warning("store %s could not be refreshed after a failed run: %r", name, exc)


def _holds_indexes(folder: Path) -> bool:
    """Whether ``folder`` is an index of its own, or a folder of them (the
    ``beir/`` where ``ragloom eval --beir`` keeps its indexes): each has its
    ledger. A store's folder never holds a ledger."""
    if (folder / "ledger.sqlite").exists():
        return True
    try:
        inner = [p for p in folder.iterdir() if p.is_dir()]
    except OSError:
        return False
    return bool(inner) and all((p / "ledger.sqlite").exists() for p in inner)


def moved_location(name: str, store: Store, located: Mapping[str, str] | None) -> str | None:
    """How the config moved ``store`` since the last run (its ``location``
    then and now), or None: not moved, or no location recorded or told."""
    if not isinstance(located, Mapping) or name not in located:
        return None
    try:
        now = store.location
    except Exception:  # a plugin's bug: no claim either way
        return None
    was = located[name]
    if not isinstance(now, str) or not now or now == was:
        return None
    return f"the config moved it: it was {was} at the last run and is {now} now"
