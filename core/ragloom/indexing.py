"""Indexing: load -> chunk -> embed -> store, incremental through the ledger.

Unchanged documents (same text and metadata, same chunker) are skipped;
changed ones are re-chunked, re-embedded and replaced in every store;
documents whose source vanished are deleted from every store. The ledger's
changes are one transaction, committed only after every store has flushed,
so a run killed at any point leaves the previous ledger, and the next run
redoes whatever it had not committed (store writes are idempotent by chunk
id; the journal names the chunks a killed run may have left behind).

A run holds the index lock (``index.lock``) from the moment it reads store
state until its last write, so two writers never interleave; it starts by
``refresh()``-ing every store, so a pipeline opened before another process
indexed never writes back a stale copy. Before changing anything it checks
that every store holds as many chunks as the ledger lists (``--repair``
puts them back in agreement), that no loader's whole source is missing (an
unmounted folder: its documents are left alone and the run fails), and that
the run would not delete more than ``indexing.max_delete_share`` of the
index.

Which loaders run and what every loaded document goes through (secrets,
access labels) is ``corpus.py``. Where the load, chunk and embed work runs is
the executor's choice (``executor:``, in this process by default; see
``executors.py``); everything above stays here, in the process that runs the
index, whatever the executor.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .access import Labeller
from .cache import fingerprint_key
from .components import Context
from .corpus import Admission, in_scope_of, load_here, load_on, scoped_loaders
from .errors import (
    ComponentError,
    IndexDamagedError,
    IndexStateError,
    InvalidRequestError,
    RagloomError,
    Terminated,
)
from .executors import (
    IndexWork,
    InProcessExecutor,
    LoadsDocuments,
    Prepared,
    WritesStores,
    embed_cached,
)
from .filters import evaluate, fields, to_spec
from .fingerprints import (
    describe_fingerprint,
    document_stamp,
    fingerprints_match,
    loader_key,
    state_hash,
)
from .ledger import (
    JOURNAL_FILE,
    LEDGER_FILE,
    LEDGER_FORMAT,
    Journal,
    Ledger,
    LedgerEntry,
    cannot_write,
    check_writer,
    index_lock,
    utc_time,
)
from .reads import Reads, code_digest, plugin_code, reading_key
from .storewriter import StoreWriter
from .types import Document, content_hash

if TYPE_CHECKING:
    import numpy as np

    from .cache import EmbeddingCache
    from .components import Chunker, Embedder, Executor, Loader
    from .config import PipelineConfig
    from .runs import Run
    from .state import IndexState
    from .storeset import StoreSet

__all__ = ["IndexReport", "Indexer"]

log = logging.getLogger("ragloom")


@dataclass(frozen=True)
class IndexReport:
    """What an index run did. ``problems`` lists (source, message) for every
    skipped input; the rest of the run went on. ``errors`` lists (loader,
    message) for every loader whose whole source was missing or unreadable:
    its documents were kept, and the run counts as failed (``ok`` is False)."""

    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    unchanged: int = 0
    chunks: int = 0
    seconds: float = 0.0
    corpus_version: int = 0
    dry_run: bool = False
    problems: tuple[tuple[str, str], ...] = ()
    embedded: int = 0
    """Chunk texts sent to the embedder in this run."""
    cached: int = 0
    """Chunk texts whose vectors came from the embedding cache."""
    kept: tuple[str, ...] = ()
    """Indexed documents not loaded this run but kept: their loader's source was
    unavailable, or the file could not be read."""
    errors: tuple[tuple[str, str], ...] = ()
    repaired: tuple[str, ...] = ()
    """What ``repair=True`` fixed, one line per store (empty when nothing was off)."""
    rewritten: tuple[str, ...] = ()
    """Documents written again though unchanged: a store lacked their chunks
    (``repair=True``). Not counted in ``changed``."""
    unread: int = 0
    """Unchanged documents taken as indexed without their files read again
    (``ragloom.reads``): counted in ``unchanged`` too."""

    @property
    def documents(self) -> int:
        """The documents the index holds from this run's loaders: those
        written, unchanged, and kept unread (``kept``)."""
        return (
            len(self.added)
            + len(self.changed)
            + len(self.rewritten)
            + self.unchanged
            + len(self.kept)
        )

    @property
    def ok(self) -> bool:
        """False when a loader's source was unavailable (``errors``)."""
        return not self.errors


def _lost_to_rebuild(when: str) -> str:
    return (
        f"what was indexed from it before the `ragloom index --rebuild` started {when} "
        "(which did not end, and had emptied the index) is not in the index until a run "
        "reads it: make it readable and run `ragloom index` again"
    )


def _check_sources_exist(
    scope: Sequence[Path], entries: Iterable[LedgerEntry], base_dir: Path
) -> None:
    """An InvalidRequestError for a source of a scoped run that is neither
    on disk nor where anything indexed came from: a typo (``ragloom index
    docs/typo.md`` said "not found; skipped" and exited 0, which a CI job
    took for success). A path that is gone but was indexed is the way to
    delete what came from it."""
    listed = list(entries)
    unknown = [
        path
        for path in scope
        if not os.path.lexists(path) and not any(in_scope_of(e, [path], base_dir) for e in listed)
    ]
    if unknown:
        shown = ", ".join(str(p) for p in unknown)
        raise InvalidRequestError(
            f"{shown}: not found, and nothing indexed came from "
            f"{'it' if len(unknown) == 1 else 'them'}; check the path"
        )


COPIES_SAID = 5
"""The most groups of copies an index run names, one note each (then one note counts the rest)."""


def _note_copies(run: Run, documents: Iterable[Document], new: set[str]) -> None:
    """Say which files this run adds or changes hold the same text as
    another loaded one (a file copied into ``archive/``): both are indexed,
    and their passages take each other's places among the hits an answer
    draws on, the copy cited as often as the original. Said once a group of
    copies, when one of them is new or changed (a stand-in for a file not
    read again has no text to compare), for files only (records of one
    file alike are the data's own), :data:`COPIES_SAID` groups at most."""
    by_text: dict[str, list[str]] = {}
    for doc in documents:
        if doc.text.strip() and doc.id == doc.metadata.get("source"):
            by_text.setdefault(content_hash(doc.text), []).append(doc.id)
    groups = [sorted(ids) for ids in by_text.values() if len(ids) > 1 and new.intersection(ids)]
    for first, *others in groups[:COPIES_SAID]:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        run.report(
            first,
            f"has the same text as {shown}: each is indexed and cited, and their passages "
            "take each other's places in answers; leave the copies out (`exclude:`) unless "
            "each must be found",
        )
    if len(groups) > COPIES_SAID:
        rest = groups[COPIES_SAID:]
        run.report(
            "copies",
            f"{len(rest)} more groups of files with the same text ({sum(map(len, rest))} files, "
            f"such as {rest[0][0]})",
        )


class Indexer:
    """One index run over a pipeline's parts (``Pipeline.index`` builds and runs it)."""

    def __init__(
        self,
        *,
        config: PipelineConfig,
        loaders: Sequence[Loader],
        chunker: Chunker,
        embedder: Embedder | None,
        stores: StoreSet,
        state: IndexState,
        run: Run,
        embedding_cache: EmbeddingCache | None = None,
        code: str | None = None,
    ) -> None:
        self.config = config
        self.code = code or code_digest()
        """The code that reads files (``ragloom.reads.code_digest``), as the
        pipeline took it when it opened."""
        self.loaders = list(loaders)
        self.chunker = chunker
        self.embedder = embedder
        self.stores = stores
        self.state = state
        self.job = run
        self.embedding_cache = embedding_cache
        self.embedded = 0  # texts sent to the embedder
        self.cached = 0  # texts whose vectors came from the embedding cache
        self._fingerprint_key = ""
        self._chunker_key = ""
        self._states: dict[str, str] = {}  # document id -> state hash, once per run
        self._loader_of: dict[str, str] = {}  # document id -> loader key
        self._chunk_ids: set[str] = set()  # the chunk ids written this run
        self._unfound: list[tuple[str, int, int, Mapping[str, Any]]] = []  # _find_unfound
        self._labeller = Labeller(config.access)
        self._the_executor: Executor | None = None
        self.writer = StoreWriter(stores, state, run)
        self.started_at = time.time()  # (wall clock) the run's start, for ``last_run``
        self._committed: dict[str, Any] | None = None  # the ``last_run`` committed

    @property
    def index_dir(self) -> Path:
        return self.state.index_dir

    # -- the run -------------------------------------------------------------
    def run(
        self,
        sources: Sequence[str | Path] | None = None,
        *,
        dry_run: bool = False,
        rebuild: bool = False,
        repair: bool = False,
        allow_mass_delete: bool = False,
        progress: Callable[..., None] | None = None,
        reread: bool = False,
    ) -> IndexReport:
        if not self.loaders:
            raise RagloomError(
                "no loaders are configured: add e.g. `loaders: [{type: directory, path: docs}]`"
            )
        self.started_at = time.time()
        with index_lock(self.index_dir):
            ledger = self._open_ledger(rebuild and not dry_run)
            try:
                return self._locked(
                    ledger, sources, dry_run, rebuild, repair, allow_mass_delete, progress, reread
                )
            except BaseException as exc:
                self.writer.discard()
                if not dry_run:
                    record = last_run(self.started_at, self.job, sources, rebuild, exc)
                    if self._committed is not None:
                        # its changes are in: the committed record stays, with
                        # what went wrong after (a store's deletion, Ctrl-C)
                        record = {
                            **self._committed,
                            "error": f"after the commit: {record['error']}",
                        }
                    _record_failure(ledger, record)
                # the ledger's write on a full disk (SQLite's "database or disk
                # is full"): the file named, and what to do, not "unexpected"
                if isinstance(exc, sqlite3.Error) and (full := cannot_write(ledger.path, exc)):
                    raise full from exc
                raise
            finally:
                ledger.close()
                if self._the_executor is not None:
                    self._the_executor.close()

    def _open_ledger(self, rebuild: bool) -> Ledger:
        path = self.index_dir / LEDGER_FILE
        try:
            ledger = Ledger(path).open()
            ledger.entries()  # a damaged table fails here, not half-way through the run
            if rebuild:  # (the run reads no row, and empties the table)
                ledger.check_reads()
            return ledger
        except IndexDamagedError:  # (not a full disk, nor a lock: the ledger is good)
            if not rebuild:
                raise
        moved = Ledger.move_aside(path)
        self.job.report(str(path), f"the ledger was damaged: moved aside to {moved}")
        return Ledger(path).open()

    def _locked(
        self,
        ledger: Ledger,
        sources: Sequence[str | Path] | None,
        dry_run: bool,
        rebuild: bool,
        repair: bool,
        allow_mass_delete: bool,
        progress: Callable[..., None] | None,
        reread: bool = False,
    ) -> IndexReport:
        run = self.job
        if rebuild and sources is not None:
            # it writes every document into emptied stores: a run of a few
            # files would leave the rest out of the index, with nothing said
            raise IndexStateError(
                "`ragloom index --rebuild` empties the stores and indexes everything: it "
                "takes no SOURCES; run it without them (or `ragloom index SOURCES` to "
                "index just those again)"
            )
        journal = Journal(self.index_dir / JOURNAL_FILE)
        started = ledger.get_meta("rebuilding")
        when = "" if started is None else utc_time(started)
        if started is not None and not rebuild:
            # a rebuild that was killed, or failed (a store it could not empty):
            # its empty ledger is committed, and the stores may hold anything
            # from before; this run completes it, as the query's message says
            if sources is not None:
                # completing it writes every document into emptied stores: a run
                # of a few files would leave the rest out, with nothing said
                raise IndexStateError(
                    f"a `ragloom index --rebuild` started {when} did not end: run "
                    "`ragloom index` without SOURCES to complete it"
                )
            rebuild = True
            run.report(
                str(self.index_dir),
                f"completing the `ragloom index --rebuild` started {when}, which did not end",
            )
        if not rebuild:
            check_writer(ledger.get_meta("writer"), self.index_dir)
        stamped_before = ledger.stamped
        wipe = rebuild and not dry_run
        # what a repair or a rebuild may delete of a store on a server that
        # the ledger does not list (another index's chunks?)
        delete_share = 1.0 if allow_mass_delete else self.config.indexing.max_delete_share
        entries = ledger.entries()
        embedder_fp = self.embedder.fingerprint() if self.embedder is not None else None
        self._fingerprint_key = fingerprint_key(embedder_fp)
        chunker_fp = self.chunker.fingerprint()
        self._chunker_key = fingerprint_key(chunker_fp)

        forced: set[str] = set()  # documents to write again whatever their state
        repaired: list[str] = []
        orphans = 0  # chunks of a run that died, deleted from the stores
        if not rebuild:
            stored_fp = ledger.get_meta("embedder")
            if entries and not fingerprints_match(stored_fp, embedder_fp, self.embedder):
                raise IndexStateError(
                    f"index {self.index_dir} was built with embedder "
                    f"{describe_fingerprint(stored_fp)}, the config says "
                    f"{describe_fingerprint(embedder_fp)}: run `ragloom index --rebuild`, "
                    "or keep both by setting a new `index_dir`"
                )
            self.writer.open()
            if not dry_run:
                orphans = self.writer.repair_journal(entries, journal)
            forced, repaired = self.writer.check(
                entries,
                repair=repair,
                dry_run=dry_run,
                known=ledger.get_meta("stores"),
                located=ledger.get_meta("locations"),
                max_delete_share=delete_share,
            )
        stored_chunker = ledger.get_meta("chunker")
        rechunk = rebuild or (
            bool(entries) and not fingerprints_match(stored_chunker, chunker_fp, self.chunker)
        )
        if rechunk and not rebuild:
            # a chunker edit, or another config on this index_dir: two configs
            # that take turns would chunk everything again on every run
            run.report(
                "chunker",
                f"the index was chunked by another chunker config "
                f"({_changed(stored_chunker, chunker_fp)}): every document is chunked "
                "again. If another config indexes into this index_dir too, give each its own",
            )

        for folder in self.writer.stray_folders(self.index_dir, self._loader_roots()):
            run.report(
                str(folder),
                "a folder of no store in the config (one removed or renamed, or moved aside "
                "by --rebuild): it still holds what was indexed into it, document text "
                "included; delete it if no config uses it",
            )
        # files unchanged since they were indexed are not read again: not after
        # an older ragloom's commit (every document is screened again), nor
        # when every document is chunked again
        trusted = not (rechunk or reread or not stamped_before)
        # the ledger names this chunker config exactly (not a tolerated older
        # spelling): a document stamped under another one was left behind when
        # it changed (its chunking failed), and is written again
        chunker = self._chunker_key if stored_chunker == chunker_fp else None
        run.reads = self._reads(ledger, entries, forced, trusted, chunker)
        scope, loaders = scoped_loaders(self.config, self.loaders, sources)
        if scope is not None:
            _check_sources_exist(scope, entries.values(), self.config.base_dir)
        indexing = self.config.indexing
        admit = Admission(indexing.secrets, self._labeller, indexing.personal_data)
        executor = self._executor()
        if sources is None and isinstance(executor, LoadsDocuments) and executor.loads_documents:
            executor.open(self._executor_context(executor))
            loaded = load_on(self.job, executor, self.config, self.index_dir, admit)
        else:
            self._labeller.reset()
            loaded = load_here(self.job, loaders, admit)
            if sources is None and loaded.ran and not loaded.failed:
                for rule in self._labeller.unmatched():
                    run.report(
                        "access",
                        f"{rule} matched no document's source: it labels nothing, and the "
                        "documents it means are unlabelled; sources are paths relative to "
                        "the config's folder (ragloom search shows them). Documents left "
                        "out for holding secrets are not counted",
                    )
        self._loader_of.update(loaded.loader_of)
        self._states.update(loaded.states)

        added: list[str] = []
        changed: list[str] = []
        rewritten: list[str] = []  # unchanged, but a store lacks its chunks
        todo: list[Document] = []
        unchanged = 0
        for doc in loaded.documents:
            entry = entries.get(doc.id)
            if entry is None:
                added.append(doc.id)
            elif (
                rechunk
                or entry.content_hash != self._state(doc)
                or (
                    chunker is not None
                    and entry.stamp
                    and entry.stamp != document_stamp(entry.content_hash, chunker)
                )
            ):
                changed.append(doc.id)
            elif doc.id in forced:
                rewritten.append(doc.id)
            else:
                unchanged += 1
                continue
            todo.append(doc)

        # with --reread every file was read: every group is said, as a check of them all
        news = {doc.id for doc in loaded.documents} if reread else {doc.id for doc in todo}
        _note_copies(run, loaded.documents, news)

        base = self.config.base_dir
        in_scope = [e for e in entries.values() if scope is None or in_scope_of(e, scope, base)]
        missing = [e for e in in_scope if e.id not in loaded.seen]
        kept = [e for e in missing if loaded.keeps(e, self.job.kept)]
        vanished = [e for e in missing if not loaded.keeps(e, self.job.kept)]
        held = {entry.loader for entry in entries.values()}  # "": a ledger before `loader`
        # a rebuild told to go on without what it cannot read drops it (below)
        fate = "deleted by this --rebuild" if rebuild and allow_mass_delete else "kept"
        if started is not None:
            # completing a killed rebuild: its wipe is committed, so what a source
            # it cannot read now held before is gone from the index, whatever the
            # loader's note says of keeping it; said as an error (the run fails)
            errors = tuple(
                (name, f"{message}; {_lost_to_rebuild(when)}")
                for name, message in loaded.failed.items()
            ) + tuple(
                (source, f"{source} could not be read (see its note); {_lost_to_rebuild(when)}")
                for source in sorted(self.job.kept)
            )
        else:
            errors = tuple(
                (
                    name,
                    f"{message}; "
                    + (
                        f"the documents it indexed before are {fate}"
                        if name in held or "" in held
                        else "nothing was indexed from it yet"
                    ),
                )
                for name, message in loaded.failed.items()
            )
        if vanished and not allow_mass_delete and self.config.indexing.max_delete_share < 1:
            # an unmounted share leaves its mount point: an empty folder where
            # documents were. Its documents stay, and the run fails, as for a
            # loader whose folder is gone, whatever share of the index they are
            emptied = _emptied_folders(vanished, base)
            if emptied:
                held = {entry.id for group in emptied.values() for entry in group}
                vanished = [e for e in vanished if e.id not in held]
                kept = [*kept, *(e for group in emptied.values() for e in group)]
                errors = errors + tuple(
                    (
                        folder,
                        f"{folder} is empty where {len(group)} indexed document(s) were "
                        "(an unmounted share, or a folder emptied by mistake?): they are "
                        "kept; mount it again, or if they really are gone, run `ragloom "
                        "index --allow-mass-delete`",
                    )
                    for folder, group in emptied.items()
                )
        refusal = None
        if rebuild and kept:
            # a rebuild writes only what it reads: what could not be read (an
            # unmounted loader, an unreadable file, one past max_file_size)
            # would leave the index, whatever the notes say of keeping it
            if not allow_mass_delete:
                refusal = (
                    f"--rebuild writes only what it reads, and {len(kept)} indexed "
                    "document(s) could not be read this run (the notes and errors say why; "
                    f"such as {kept[0].id}): they would be lost. Make them readable (mount "
                    "the folder, fix the permissions, raise max_file_size) and run again, or "
                    "run `ragloom index --rebuild --allow-mass-delete` to rebuild without them"
                )
            else:
                vanished, kept = [*vanished, *kept], []
        # documents of a built docs site the loader now skips as generated
        # output (its note says so) are meant to go: the guard does not count them
        generated = _in_generated_output(vanished, base) if vanished else 0
        refusal = refusal or self._mass_delete_refusal(
            len(vanished) - generated, len(in_scope), allow_mass_delete, added=len(added)
        )
        if refusal is not None:
            if not dry_run:
                raise IndexStateError(refusal)
            # a dry run lists what the run would do, and fails as it would
            errors = (*errors, (str(self.index_dir), f"the run would be refused: {refusal}"))

        if dry_run:
            return IndexReport(
                added=tuple(added),
                changed=tuple(changed),
                rewritten=tuple(rewritten),
                deleted=tuple(e.id for e in vanished),
                unchanged=unchanged,
                seconds=run.seconds,
                corpus_version=ledger.corpus_version,
                dry_run=True,
                problems=tuple(run.problems),
                kept=tuple(e.id for e in kept),
                errors=errors,
                repaired=tuple(repaired),
                unread=loaded.unread,
            )

        if wipe:  # every document is written into empty stores, under an empty ledger
            if started is None:  # (completing one: what the stores hold is its own)
                listed = sum(len(e.chunk_ids) for e in entries.values())
                self.writer.guard_wipe(listed, delete_share)
            journal.clear()
            # committed now: a run killed later leaves what the next completes;
            # until a run commits documents, queries say a rebuild is under way.
            # A reader in another process keeps the version it holds, from its
            # own copy of the stores; one whose stores are on a server, or an
            # engine it shares with this pipeline, would see them emptied under
            # it and refilled: a new version tells it
            shared = any(store.shared_data for _, store in self.writer.stores)
            ledger.clear(rebuilding=time.time(), bump=shared)
            self.writer.wipe()
            entries = {}
            added, changed, rewritten = [doc.id for doc in todo], [], []
        # Writes first (each id journaled before a store sees it), then the ledger
        # commit, then the deletions: a kill at any point leaves either the old
        # or the new ledger, and the journal names every chunk no document owns.
        ledger.begin()
        ledger.delete_meta("rebuilding")  # this run's rebuild, or one that was killed
        ledger.set_meta("embedder", embedder_fp)
        ledger.set_meta("chunker", chunker_fp)
        ledger.set_meta("stores", self.writer.kinds())  # which store each name was
        ledger.set_meta("locations", self.writer.locations(everything_written=rechunk))
        doomed: list[str] = []
        chunks_written = 0
        counting = _counting(progress)
        if counting:
            counting(0, len(todo), 0)
        failed: set[str] = set()
        if todo:
            chunks_written, failed = self._write_all(
                todo, entries, ledger, journal, doomed, counting
            )
        self._say_unfound()
        if failed:
            added = [d for d in added if d not in failed]
            changed = [d for d in changed if d not in failed]
            rewritten = [d for d in rewritten if d not in failed]
        for entry in vanished:
            journal.record(entry.chunk_ids)
            doomed.extend(entry.chunk_ids)
            ledger.remove(entry.id)
        ledger.put_reads(
            [r for r in loaded.reads if r.doc_id not in failed],
            forget=[e.id for e in vanished],
            loaders=[loader_key(spec) for spec in self.config.loaders],
        )
        self.writer.flush()
        written = len(added) + len(changed) + len(rewritten)
        # every document screened by this ragloom's rules: a full run that kept
        # none as it was, or a version this ragloom (or one that stamps) made
        screened = (sources is None and not kept and not failed) or stamped_before
        if wipe or written or vanished or repaired or orphans or not ledger.corpus_version:
            # readers holding the stores in memory reload on a new version only:
            # a repair or a cleanup that deleted chunks must reach them too
            version = ledger.bump_version(stamp=screened)
        else:  # nothing added, changed, deleted or repaired: the same version
            version = ledger.corpus_version
            if screened:
                # an older ragloom's commit, every document of it screened again by
                # this one's rules and found fine: this one's now (readers stop
                # screening their hits and warning)
                ledger.stamp()
        record = last_run(
            self.started_at,
            run,
            sources,
            wipe,
            counts={
                "added": len(added),
                "changed": len(changed),
                "deleted": len(vanished),
                "unchanged": unchanged,
                "rewritten": len(rewritten),
                "version": version,
            },
            errors=errors,
        )
        ledger.set_meta("last_run", record)
        ledger.commit()
        self._committed = record
        view = self.state.load_view()
        with self.state.lock.write():  # queries of this process move to the new version
            self.state.set_view(view)
        if doomed:
            self.writer.delete(doomed)
            self.writer.flush()
        journal.clear()
        self.writer.check_after(ledger)
        return IndexReport(
            added=tuple(added),
            changed=tuple(changed),
            rewritten=tuple(rewritten),
            deleted=tuple(e.id for e in vanished),
            unchanged=unchanged,
            chunks=chunks_written,
            embedded=self.embedded,
            cached=self.cached,
            seconds=run.seconds,
            corpus_version=version,
            problems=tuple(run.problems),
            kept=tuple(e.id for e in kept),
            errors=errors,
            repaired=tuple(repaired),
            unread=loaded.unread,
        )

    # -- loading ---------------------------------------------------------------
    def _mass_delete_refusal(
        self, deleted: int, indexed: int, allow: bool, added: int = 0
    ) -> str | None:
        """Why a run that deletes ``deleted`` of ``indexed`` documents is refused
        (``indexing.max_delete_share``), or None."""
        share = self.config.indexing.max_delete_share
        if allow or deleted <= 1 or share >= 1 or deleted <= share * indexed:
            return None
        found = (
            # the documents are there, under other ids: moved, or another index's ledger
            f" It would also add {added} document(s) not indexed before: if the documents "
            "were moved or renamed (or the ledger is another index's), that is expected; "
            "run `ragloom index --allow-mass-delete` (with `--rebuild` too, if you rebuild)."
            if added
            else ""
        )
        return (
            f"this run would delete {deleted} of the {indexed} indexed documents "
            f"({deleted / indexed:.0%}), more than `indexing.max_delete_share` "
            f"({share:.0%}) allows.{found} If a folder is unmounted, renamed or emptied by "
            "mistake, bring it back and run again; if the documents really are gone, "
            "run `ragloom index --allow-mass-delete`"
        )

    # -- writing -----------------------------------------------------------------
    def _write_all(
        self,
        todo: list[Document],
        entries: Mapping[str, LedgerEntry],
        ledger: Ledger,
        journal: Journal,
        doomed: list[str],
        progress: Callable[[int, int, int], None] | None,
    ) -> tuple[int, set[str]]:
        """Every document of ``todo`` through the configured executor, each batch
        written as it comes back. Returns the chunks written and the documents
        whose chunking failed on a worker (reported, left as they were).
        Refuses to go on (nothing is committed) when the executor returns a
        document twice or loses one."""
        executor = self._executor()
        work = IndexWork(
            chunker=self.config.chunker,
            embedder=self.config.embedder,
            vectors=self.embedder is not None and self.stores.needs_vectors,
            index_dir=self.index_dir,
            base_dir=self.config.base_dir,
            prepare=self._prepare,
            embedding_cache=self.embedding_cache.path if self.embedding_cache else None,
            stores=self.stores.shared_recipes() if isinstance(executor, WritesStores) else (),
        )
        wanted = {doc.id for doc in todo}
        done: set[str] = set()
        failed: set[str] = set()
        written = 0
        held = False  # whether the executor's workers wrote any batch
        try:
            executor.open(self._executor_context(executor))
            for prepared in executor.map(work, todo):
                ids = [doc.id for doc in prepared.documents] + list(prepared.failed)
                twice = [i for i in ids if i in done or i not in wanted]
                if twice or len(set(ids)) != len(ids):
                    raise IndexStateError(
                        f"executor {executor.type_name or type(executor).__name__!r} returned "
                        f"document {(twice or ids)[0]!r} twice (or one it was not given); "
                        "nothing was committed, run `ragloom index` again"
                    )
                done.update(ids)
                failed.update(prepared.failed)
                for source, message in prepared.problems:
                    self.job.report(source, message)
                held = held or prepared.held is not None
                written += self._write(prepared, entries, ledger, journal, doomed, executor)
                if progress:
                    progress(len(done), len(todo), written)
            if held:  # every worker write done and flushed before the ledger commits
                assert isinstance(executor, WritesStores)
                executor.flush_writes()
                self.writer.refresh()
        finally:
            executor.close()
        if done != wanted:
            lost = sorted(wanted - done)
            raise IndexStateError(
                f"executor {executor.type_name or type(executor).__name__!r} lost "
                f"{len(lost)} document(s) (first: {lost[0]!r}); nothing was committed, "
                "run `ragloom index` again"
            )
        return written, failed

    def _loader_roots(self) -> list[Path]:
        """The folders and files the loaders read (their ``path`` option):
        an index folder holding one (``index_dir: .``) holds the documents
        themselves, never a store's copy to forget."""
        roots = []
        for spec in self.config.loaders:
            path = getattr(spec.config, "path", None)
            if isinstance(path, str) and path:
                roots.append(Path(self.config.base_dir, path))
        return roots

    def _executor(self) -> Executor:
        """The run's executor (one per run: the one that loaded maps too)."""
        if self._the_executor is not None:
            return self._the_executor
        spec = self.config.executor
        if spec is None:
            executor: Executor = InProcessExecutor()
            executor.type_name = "inprocess"
        else:
            executor = spec.create()
        self._the_executor = executor
        return executor

    def _executor_context(self, executor: Executor) -> Context:
        return Context(
            index_dir=self.index_dir,
            base_dir=self.config.base_dir,
            name=executor.type_name or "executor",
            report=self.job.report,
        )

    def _check_unique(self, per_doc: list[tuple[Document, list[str], str]], ids: list[str]) -> None:
        """Refuse chunks that share an id (in a document, or across documents
        this run): a store keeps one of them, so the others would be lost while
        the ledger lists them. A chunker bug; nothing is committed."""
        seen = self._chunk_ids
        if len(set(ids)) == len(ids) and seen.isdisjoint(ids):
            seen.update(ids)
            return
        for doc, cids, _ in per_doc:
            for cid in cids:
                if cid in seen:
                    raise ComponentError(
                        f"chunker {self.config.chunker.type!r} gave two chunks the id "
                        f"{cid.rpartition('@')[0]!r} (the second in document {doc.id!r}): a "
                        "chunk's id must be unique, or a store keeps only one of them; nothing "
                        "was committed (a bug in the chunker: fix it, then run `ragloom index`)"
                    )
                seen.add(cid)

    def _prepare(self, batch: Sequence[Document]) -> Prepared:
        """Chunk and embed one batch in this process, through the run's stages and
        the embedding cache (what the in-process executor does)."""
        run = self.job
        chunker_type = self.config.chunker.type
        per_doc = [
            run.stage("chunk", chunker_type, self.chunker, self.chunker.split, doc) for doc in batch
        ]
        texts = [c.text for cs in per_doc for c in cs]
        vectors = None
        if self.embedder is not None and texts and self.stores.needs_vectors:
            vectors = self._embed(texts)
        return Prepared(documents=list(batch), chunks=per_doc, vectors=vectors)

    def _write(
        self,
        prepared: Prepared,
        entries: Mapping[str, LedgerEntry],
        ledger: Ledger,
        journal: Journal,
        doomed: list[str],
        executor: Executor,
    ) -> int:
        """Write one prepared batch to every store (its chunk ids journaled
        first) and stage its documents in the ledger; their old chunks that are
        not rewritten are added to ``doomed`` (deleted after the ledger commit).
        A batch ``held`` on the executor's workers is written there, under the
        journaled ids. Returns the number of chunks written."""
        per_doc: list[tuple[Document, list[str], str]] = []  # (document, its chunk ids, stamp)
        for doc, doc_chunks in zip(prepared.documents, prepared.chunks, strict=True):
            stamp = document_stamp(self._state(doc), self._chunker_key)
            per_doc.append((doc, [f"{c.id}@{stamp}" for c in doc_chunks], stamp))
        ids = [cid for _, cids, _ in per_doc for cid in cids]
        self._check_unique(per_doc, ids)
        vectors = prepared.vectors
        self.embedded += prepared.embedded
        self.cached += prepared.cached
        if prepared.cacheable and vectors is not None:
            self._remember([c.text for cs in prepared.chunks for c in cs], vectors)
        new_ids = set(ids)
        stale = [
            cid
            for doc, _, _ in per_doc
            if doc.id in entries
            for cid in entries[doc.id].chunk_ids
            if cid not in new_ids
        ]
        journal.record([*new_ids, *stale])
        doomed.extend(stale)
        if prepared.held is not None:  # its chunks may carry no metadata to check
            if not isinstance(executor, WritesStores):
                raise IndexStateError(
                    f"executor {executor.type_name!r} returned a held batch but cannot write "
                    "it (no WritesStores.write); nothing was committed"
                )
            executor.write(prepared, ids)
        elif ids:
            self._find_unfound(prepared)
            made = (c for cs in prepared.chunks for c in cs)
            chunks = [replace(c, id=cid) for c, cid in zip(made, ids, strict=True)]
            self.writer.upsert(chunks, vectors)
        for doc, cids, stamp in per_doc:  # committed after every store has flushed
            ledger.put(
                doc.id,
                doc.source,
                self._state(doc),
                cids,
                stamp=stamp,
                loader=self._loader_of.get(doc.id, ""),
            )
        return len(ids)

    def _find_unfound(self, prepared: Prepared) -> None:
        """Keep the documents of ``prepared`` with chunks that match no
        store's ``filter`` (said once, after the run's writes): the stores hold
        them, but no query can find them (a ``route`` chunker's route that is
        not ``layers`` under stores that each filter on ``layer``, say). Only
        when every store has a filter."""
        specs = self.config.stores
        if not specs or any(spec.filter is None for spec in specs):
            return
        for doc, chunks in zip(prepared.documents, prepared.chunks, strict=True):
            unfound = [c for c in chunks if not any(evaluate(s.filter, c.metadata) for s in specs)]
            if unfound:
                self._unfound.append((doc.id, len(unfound), len(chunks), unfound[0].metadata))

    def _say_unfound(self) -> None:
        """One note for every document ``_find_unfound`` kept: a config that
        strands one file type strands all of them, and a line a document would
        bury the run's other notes."""
        if not self._unfound:
            return
        filters = "; ".join(
            f"{s.name}: {json.dumps(to_spec(s.filter))}" for s in self.config.stores
        )
        first, unfound, total, metadata = self._unfound[0]
        # what the first has of the fields the filters look at (`layer`, say)
        looked = sorted(set().union(*(fields(s.filter) for s in self.config.stores)))
        which = ", ".join(
            f"`{f}` {json.dumps(metadata[f], default=str)}" if f in metadata else f"no `{f}`"
            for f in looked
        )
        fix = "widen a store's `filter`, add a store without one, or chunk them otherwise"
        if len(self._unfound) == 1:
            self.job.report(
                first,
                f"{unfound} of its {total} chunk(s) match no store's filter ({filters}; the "
                f"first has {which}): no query can find them; {fix}",
            )
            return
        names = [doc_id for doc_id, *_ in self._unfound]
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        chunks = sum(n for _, n, _, _ in self._unfound)
        self.job.report(
            "stores",
            f"{chunks} chunk(s) of {len(names)} document(s) ({shown}) match no store's filter "
            f"({filters}; the first has {which}): no query can find them; {fix}",
        )

    def _reads(
        self,
        ledger: Ledger,
        entries: Mapping[str, LedgerEntry],
        forced: set[str],
        trusted: bool,
        chunker: str | None,
    ) -> Reads:
        """What the run's loaders may leave unread (``ragloom.reads``): nothing
        unless ``trusted``; else a file whose row the ledger holds, with the
        same stamp and key, when the diff would find its document unchanged
        in the row's state: indexed in that state, stamped under this chunker
        config (``chunker``, when the diff checks it), and complete in every
        store (not ``forced``). Files are stamped either way."""

        def holds(doc_id: str, state: str) -> bool:
            entry = entries.get(doc_id)
            return (
                entry is not None
                and entry.content_hash == state
                and not (
                    chunker is not None
                    and entry.stamp
                    and entry.stamp != document_stamp(state, chunker)
                )
                and doc_id not in forced
            )

        rows = ledger.reads() if trusted else {}
        key = reading_key(self.config, self.code, plugin_code(self.job.plugin_manager))
        return Reads(rows, key, holds)

    def _state(self, doc: Document) -> str:
        state = self._states.get(doc.id)
        if state is None:
            state = self._states[doc.id] = state_hash(doc)
        return state

    def _remember(self, texts: list[str], vectors: np.ndarray) -> None:
        """Put vectors made elsewhere (another executor's workers) in the embedding cache."""
        cache = self.embedding_cache
        if cache is not None and len(texts) == len(vectors):
            cache.put_many(self._fingerprint_key, zip(map(cache.text_hash, texts), vectors))

    def _embed(self, texts: list[str]) -> np.ndarray:
        """Vectors for ``texts``: from the embedding cache where the same text was
        embedded under the same fingerprint, the rest through the embedder."""
        embedder, run = self.embedder, self.job
        assert embedder is not None and self.config.embedder is not None
        embed_type = self.config.embedder.type

        def embed(todo: list[str]) -> np.ndarray:
            return run.stage("embed", embed_type, embedder, embedder.embed_documents, todo)

        cache, key = self.embedding_cache, self._fingerprint_key
        vectors, embedded = embed_cached(embed, texts, cache, key, embedder)
        self.embedded += embedded
        self.cached += len(texts) - embedded
        return vectors


def _counting(
    progress: Callable[..., None] | None,
) -> Callable[[int, int, int], None] | None:
    """``progress`` as ``(documents done, documents to do, chunks written)``:
    a callback that takes two positional arguments gets the first two."""
    if progress is None:
        return None
    import inspect

    try:
        parameters = inspect.signature(progress).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: the documented two
        return lambda done, total, chunks: progress(done, total)
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) >= 3 or any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return progress
    return lambda done, total, chunks: progress(done, total)


def _emptied_folders(
    entries: Iterable[LedgerEntry], base_dir: Path
) -> dict[str, list[LedgerEntry]]:
    """The indexed documents gone from a folder that is there but empty, by
    that folder (as the documents' sources name it): the nearest folder of
    a document's file that still exists holds nothing at all, not even a
    hidden file, as an unmounted share's mount point does. A folder deleted
    with its files is not among them (its parent holds other things)."""
    found: dict[str, list[LedgerEntry]] = {}
    empty: dict[Path, bool] = {}
    for entry in entries:
        source = entry.source
        if not source or "://" in source:
            continue
        folder = (base_dir / source).parent
        while not os.path.lexists(folder) and folder != folder.parent:
            folder = folder.parent
        if folder not in empty:
            try:
                with os.scandir(folder) as listing:
                    empty[folder] = next(listing, None) is None
            except OSError:  # not a folder, or not readable: the loader said so
                empty[folder] = False
        if empty[folder]:
            try:
                name = folder.relative_to(base_dir).as_posix()
            except ValueError:
                name = str(folder)
            found.setdefault(name, []).append(entry)
    return found


def _in_generated_output(entries: Iterable[LedgerEntry], base_dir: Path) -> int:
    """How many of ``entries`` lie in a folder a docs tool built (a Sphinx
    ``_build/html``, a MkDocs ``site/``), which the directory loader skips."""
    from .builtin.loaders._generated import generated_output

    built: dict[Path, bool] = {}
    count = 0
    for entry in entries:
        if not entry.source or "://" in entry.source:
            continue
        folder = (base_dir / entry.source).parent
        while folder != folder.parent and folder != base_dir.parent:
            if folder not in built:
                try:
                    built[folder] = generated_output(folder, os.listdir(folder)) is not None
                except OSError:  # gone, or not a folder
                    built[folder] = False
            if built[folder]:
                count += 1
                break
            folder = folder.parent
    return count


def _changed(was: Any, now: Any) -> str:
    """What differs between two chunker fingerprints, for a message:
    ``size 400 -> 300, type recursive -> fixed``."""
    if not isinstance(was, Mapping) or not isinstance(now, Mapping):
        return f"{was} -> {now}"
    keys = sorted(k for k in {*was, *now} if was.get(k) != now.get(k))
    return ", ".join(f"{k} {was.get(k)} -> {now.get(k)}" for k in keys)[:300]


LAST_RUN_EXAMPLES = 3
"""How many problems (unread files) the ``last_run`` record names."""


def last_run(
    started: float,
    run: Run,
    sources: Sequence[str | Path] | None,
    rebuild: bool,
    failure: BaseException | None = None,
    *,
    counts: Mapping[str, int] | None = None,
    errors: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """The ledger's ``last_run`` record of one index run that ended, committed
    or failed (``ragloom status`` shows it: a run from cron that fails every
    night is otherwise said only to cron's mail). ``failure``: what ended it."""
    record: dict[str, Any] = {
        "started": round(started, 3),
        "ended": round(time.time(), 3),
        "seconds": round(run.seconds, 3),
        "outcome": "committed",
        "error": None,
        "sources": None if sources is None else [str(s) for s in sources][:5],
        "rebuild": rebuild,
        "problems": len(run.problems),
        "problem_examples": [
            {"source": source, "message": _clip(message)}
            for source, message in run.problems[:LAST_RUN_EXAMPLES]
        ],
        "errors": [{"loader": name, "message": _clip(message)} for name, message in errors],
    }
    if failure is not None:
        interrupted = isinstance(failure, (KeyboardInterrupt, SystemExit))
        record["outcome"] = "interrupted" if interrupted else "failed"
        record["error"] = _clip(ended_by(failure))
    record.update(counts or {})
    return record


def ended_by(failure: BaseException) -> str:
    """What ended a run, in words for ``ragloom status``: a signal by its
    name, not its exception's (``Terminated``); an error by its message."""
    if isinstance(failure, Terminated):
        return "stopped by SIGTERM"
    if type(failure) is KeyboardInterrupt:
        return str(failure) or "stopped by Ctrl-C (SIGINT)"
    return str(failure) or type(failure).__name__


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _record_failure(ledger: Ledger, record: dict[str, Any]) -> None:
    """``record`` as the ledger's ``last_run``, in a transaction of its own
    (the failed run's is rolled back first), where the ledger can take it:
    not one a newer ragloom wrote, nor one on a full disk (that error is the
    one the caller raises)."""
    import sqlite3

    try:
        db = ledger.db
        if db.in_transaction:
            db.execute("ROLLBACK")
        writer = ledger.get_meta("writer")
        if isinstance(writer, dict) and int(writer.get("format", 0)) > LEDGER_FORMAT:
            return
        ledger.begin()
        ledger.set_meta("last_run", record)
        ledger.commit()
    except (sqlite3.Error, OSError, ValueError, TypeError) as exc:
        log.debug("the failed run could not be recorded in the ledger: %s", exc)
