"""Indexing: load -> chunk -> embed -> store, incremental through the ledger.

Unchanged documents (same text and metadata, same chunker) are skipped;
changed ones are re-chunked, re-embedded and replaced in every store;
documents whose source vanished are deleted from every store. The ledger's
changes are one transaction, committed only after every store has flushed,
so a run killed at any point leaves the previous ledger, and the next run
redoes whatever it had not committed (store writes are idempotent by chunk
id).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cache import fingerprint_key
from .errors import IndexStateError, RagloomError
from .filters import evaluate, parse
from .globs import compile_glob
from .ledger import Journal, Ledger, LedgerEntry, index_lock
from .types import Chunk, Document, content_hash

if TYPE_CHECKING:
    import numpy as np

    from .components import Embedder
    from .pipeline import Pipeline

__all__ = ["IndexReport", "Indexer", "check_index_fingerprint", "describe_fingerprint", "stamped"]

log = logging.getLogger("ragloom")

INDEX_BATCH = 64  # documents per chunk/embed/upsert round
VOLATILE_METADATA = frozenset({"mtime", "path", "size"})


@dataclass(frozen=True)
class IndexReport:
    """What an index run did. ``problems`` lists (source, message) for every
    skipped input; the rest of the run went on."""

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

    @property
    def documents(self) -> int:
        return len(self.added) + len(self.changed) + self.unchanged


class Indexer:
    """One index run of a pipeline (``Pipeline.index`` builds and runs it)."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline
        self.embedded = 0  # texts sent to the embedder
        self.cached = 0  # texts whose vectors came from the embedding cache
        self._fingerprint_key = ""
        self._chunker_key = ""
        self._states: dict[str, str] = {}  # document id -> state hash, once per run
        access = pipeline.config.access
        self._access_rules = [
            (compile_glob(r.path) if r.path else None, parse(r.match), tuple(r.principals))
            for r in (access.rules if access else [])
        ]

    def run(
        self,
        sources: Sequence[str | Path] | None,
        *,
        dry_run: bool,
        rebuild: bool,
        progress: Callable[[int, int], None] | None,
    ) -> IndexReport:
        p = self.pipeline
        started = time.perf_counter()
        if not p.loaders:
            raise RagloomError(
                "no loaders are configured: add e.g. `loaders: [{type: directory, path: docs}]`"
            )
        p.open()
        with index_lock(p.index_dir):
            ledger = Ledger(p.index_dir / "ledger.sqlite").open()
            try:
                return self._index_locked(ledger, sources, dry_run, rebuild, progress, started)
            finally:
                ledger.close()

    def _index_locked(
        self,
        ledger: Ledger,
        sources: Sequence[str | Path] | None,
        dry_run: bool,
        rebuild: bool,
        progress: Callable[[int, int], None] | None,
        started: float,
    ) -> IndexReport:
        p = self.pipeline
        journal = Journal(p.index_dir / "journal.jsonl")
        entries = ledger.entries()
        if not dry_run:
            self._repair(entries, journal)
        embedder_fp = p.embedder.fingerprint() if p.embedder is not None else None
        self._fingerprint_key = fingerprint_key(embedder_fp)
        chunker_fp = p.chunker.fingerprint()
        self._chunker_key = fingerprint_key(chunker_fp)
        if rebuild and not dry_run:
            journal.record([cid for e in entries.values() for cid in e.chunk_ids])
            ledger.clear()
            self._wipe(entries)
            journal.clear()
            entries = {}
        stored_fp = ledger.get_meta("embedder")
        if entries and stored_fp is not None and stored_fp != embedder_fp:
            raise IndexStateError(
                f"index {p.index_dir} was built with embedder "
                f"{describe_fingerprint(stored_fp)}, the config says "
                f"{describe_fingerprint(embedder_fp)}: run `ragloom index --rebuild`, "
                "or keep both by setting a new `index_dir`"
            )
        rechunk = bool(entries) and ledger.get_meta("chunker") != chunker_fp
        rechunk = rechunk or rebuild  # a dry-run rebuild shows every document as changed

        loaders = [(spec.type, loader) for spec, loader in zip(p.config.loaders, p.loaders)]
        scope: list[Path] | None = None
        if sources is not None:
            scope = [p.config.base_dir / Path(s) for s in sources]
            restricted = [
                (name, ld.with_sources([str(s) for s in sources])) for name, ld in loaders
            ]
            loaders = [(name, ld) for name, ld in restricted if ld is not None]
            if not loaders:
                raise RagloomError(
                    f"none of {', '.join(map(str, sources))} is covered by a configured loader"
                )

        documents: list[Document] = []
        seen: set[str] = set()
        for loader_name, loader in loaders:
            for doc in p._stage("load", loader_name, loader, lambda ld=loader: list(ld.load())):
                if doc.id in seen:
                    p._report(doc.source, f"two documents have the id {doc.id!r}; kept the first")
                    continue
                seen.add(doc.id)
                documents.append(self._label(doc))

        added: list[str] = []
        changed: list[str] = []
        todo: list[Document] = []
        unchanged = 0
        for doc in documents:
            entry = entries.get(doc.id)
            if entry is None:
                added.append(doc.id)
            elif entry.content_hash != self._state(doc) or rechunk:
                changed.append(doc.id)
            else:
                unchanged += 1
                continue
            todo.append(doc)

        vanished = [
            entry
            for doc_id, entry in entries.items()
            if doc_id not in seen and (scope is None or _in_scope(entry, scope, p.config.base_dir))
        ]
        if dry_run:
            return IndexReport(
                added=tuple(added),
                changed=tuple(changed),
                deleted=tuple(e.id for e in vanished),
                unchanged=unchanged,
                seconds=time.perf_counter() - started,
                corpus_version=ledger.corpus_version,
                dry_run=True,
                problems=tuple(p._problems),
            )

        # Writes first (each id journaled before a store sees it), then the ledger
        # commit, then the deletions: a kill at any point leaves either the old
        # or the new ledger, and the journal names every chunk no document owns.
        ledger.begin()
        ledger.set_meta("embedder", embedder_fp)
        ledger.set_meta("chunker", chunker_fp)
        doomed: list[str] = []
        chunks_written = 0
        if progress:
            progress(0, len(todo))
        for start in range(0, len(todo), INDEX_BATCH):
            batch = todo[start : start + INDEX_BATCH]
            chunks_written += self._index_batch(batch, entries, ledger, journal, doomed)
            if progress:
                progress(min(start + INDEX_BATCH, len(todo)), len(todo))
        for entry in vanished:
            journal.record(entry.chunk_ids)
            doomed.extend(entry.chunk_ids)
            ledger.remove(entry.id)
        self._flush()
        version = ledger.bump_version()
        ledger.commit()
        if doomed:
            self._delete(doomed)
            self._flush()
        journal.clear()
        return IndexReport(
            added=tuple(added),
            changed=tuple(changed),
            deleted=tuple(e.id for e in vanished),
            unchanged=unchanged,
            chunks=chunks_written,
            embedded=self.embedded,
            cached=self.cached,
            seconds=time.perf_counter() - started,
            corpus_version=version,
            problems=tuple(p._problems),
        )

    def _index_batch(
        self,
        batch: list[Document],
        entries: Mapping[str, LedgerEntry],
        ledger: Ledger,
        journal: Journal,
        doomed: list[str],
    ) -> int:
        """Chunk, embed and write one batch of documents to every store; their old
        chunks that are not rewritten are added to ``doomed`` (deleted after the
        ledger commit). Returns the number of chunks written."""
        p = self.pipeline
        per_doc: list[tuple[Document, list[Chunk]]] = []
        for doc in batch:
            chunks = p._stage("chunk", p.config.chunker.type, p.chunker, p.chunker.split, doc)
            per_doc.append((doc, stamped(doc, chunks, self._chunker_key, self._state(doc))))
        chunks = [c for _, cs in per_doc for c in cs]
        vectors = None
        if p.embedder is not None and chunks and p._needs_vectors():
            vectors = self._embed([c.text for c in chunks])
        new_ids = {c.id for c in chunks}
        stale = [
            cid
            for doc, _ in per_doc
            if doc.id in entries
            for cid in entries[doc.id].chunk_ids
            if cid not in new_ids
        ]
        journal.record([*new_ids, *stale])
        doomed.extend(stale)
        for name, store in p.stores:
            if chunks:
                dense = "dense" in store.capabilities
                p._stage("upsert", name, store, store.upsert, chunks, vectors if dense else None)
        for doc, doc_chunks in per_doc:  # committed after every store has flushed
            ledger.put(doc.id, doc.source, self._state(doc), [c.id for c in doc_chunks])
        return len(chunks)

    def _state(self, doc: Document) -> str:
        state = self._states.get(doc.id)
        if state is None:
            state = self._states[doc.id] = _state_hash(doc)
        return state

    def _embed(self, texts: list[str]) -> np.ndarray:
        """Vectors for ``texts``: from the embedding cache where the same text was
        embedded under the same fingerprint, the rest through the embedder."""
        import numpy as np

        p = self.pipeline
        assert p.embedder is not None and p.config.embedder is not None
        embed_type = p.config.embedder.type
        cache = p.embedding_cache
        if cache is None:
            self.embedded += len(texts)
            return p._stage("embed", embed_type, p.embedder, p.embedder.embed_documents, texts)
        key, dim = self._fingerprint_key, p.embedder.dimension
        hashes = [cache.text_hash(t) for t in texts]
        found = cache.get_many(key, hashes, dim)
        missing = list(dict.fromkeys(h for h in hashes if h not in found))
        if missing:
            first = {h: i for i, h in reversed(list(enumerate(hashes)))}
            todo = [texts[first[h]] for h in missing]
            fresh = p._stage("embed", embed_type, p.embedder, p.embedder.embed_documents, todo)
            cache.put_many(key, zip(missing, fresh))
            found.update(zip(missing, fresh))
        self.embedded += len(missing)
        self.cached += len(texts) - len(missing)
        return np.ascontiguousarray(np.vstack([found[h] for h in hashes]), dtype=np.float32)

    def _label(self, doc: Document) -> Document:
        """``doc`` with the principals of every matching ``access.rules`` entry
        added to its access field."""
        p = self.pipeline
        if not self._access_rules:
            return doc
        field = p.config.access.field  # type: ignore[union-attr]
        granted: set[str] = set()
        for glob, match, principals in self._access_rules:
            if (glob is not None and glob.fullmatch(doc.source)) or (
                match is not None and evaluate(match, doc.metadata)
            ):
                granted.update(principals)
        if not granted:
            return doc
        current = doc.metadata.get(field, [])
        current = [current] if isinstance(current, str) else list(current or [])
        labelled = sorted(set(map(str, current)) | granted)
        return replace(doc, metadata={**doc.metadata, field: labelled})

    def _repair(self, entries: Mapping[str, LedgerEntry], journal: Journal) -> None:
        """After a run that died: delete from every store the chunks the journal
        names that no committed document owns."""
        pending = journal.pending()
        if not pending:
            journal.clear()
            return
        owned = {cid for entry in entries.values() for cid in entry.chunk_ids}
        orphans = sorted(pending - owned)
        if orphans:
            log.warning("repairing an interrupted index run: %d orphan chunk(s)", len(orphans))
            self._delete(orphans)
            self._flush()
        journal.clear()

    def _delete(self, ids: list[str]) -> None:
        p = self.pipeline
        for name, store in p.stores:
            p._stage("delete", name, store, store.delete, ids=ids)

    def _flush(self) -> None:
        p = self.pipeline
        for name, store in p.stores:
            p._stage("flush", name, store, store.flush)

    def _wipe(self, entries: Mapping[str, LedgerEntry]) -> None:
        p = self.pipeline
        ids = [cid for entry in entries.values() for cid in entry.chunk_ids]
        for name, store in p.stores:
            if ids:
                p._stage("delete", name, store, store.delete, ids=ids)
            leftover = store.count()
            if leftover:
                p._stage(
                    "delete",
                    name,
                    store,
                    store.delete,
                    where=parse({"document_id": {"$exists": True}}),
                )
            p._stage("flush", name, store, store.flush)


def describe_fingerprint(fingerprint: Any) -> str:
    """``model (384-d)`` for an embedder fingerprint, for messages."""
    if not isinstance(fingerprint, Mapping):
        return "none" if fingerprint is None else str(fingerprint)
    model = fingerprint.get("model") or fingerprint.get("type")
    return f"{model} ({fingerprint.get('dimension')}-d)"


def _in_scope(entry: LedgerEntry, scope: list[Path], base_dir: Path) -> bool:
    path = (base_dir / entry.source).resolve()
    for root in scope:
        root = root.resolve()
        if path == root or root in path.parents:
            return True
    return False


def _state_hash(doc: Document) -> str:
    """What decides whether a document must be re-indexed: its text and its
    metadata (but not where the file sits or when it was touched)."""
    meta = {k: v for k, v in doc.metadata.items() if k not in VOLATILE_METADATA}
    return content_hash(doc.hash + json.dumps(meta, sort_keys=True, default=str))


def stamped(
    doc: Document, chunks: list[Chunk], chunker_key: str, state: str | None = None
) -> list[Chunk]:
    """``chunks`` with ids that name the document version and chunker config they
    came from (``docs/a.md::0@3f9c2e1a7b4d``): a changed document or chunker never
    reuses an id, so an interrupted run can never leave a chunk of one version
    filed under another's ledger entry; its leftovers are orphans the journal
    names."""
    version = content_hash((state or _state_hash(doc)) + chunker_key)[:12]
    return [replace(c, id=f"{c.id}@{version}") for c in chunks]


def check_index_fingerprint(index_dir: Path, embedder: Embedder) -> None:
    """Raise ``IndexStateError`` if the index in ``index_dir`` was built by an
    embedder with another fingerprint: its vectors are from another space."""
    path = index_dir / "ledger.sqlite"
    if not path.exists():
        return
    ledger = Ledger(path).open()
    try:
        stored = ledger.get_meta("embedder")
    finally:
        ledger.close()
    current = embedder.fingerprint()
    if stored is not None and stored != current:
        raise IndexStateError(
            f"index {index_dir} was built with embedder {describe_fingerprint(stored)}, "
            f"the config says {describe_fingerprint(current)}: querying it would compare "
            "vectors from different models; run `ragloom index --rebuild`"
        )
