"""The query path: transform -> embed -> every store -> fuse -> rerank, from
one committed corpus version.

Before it queries the stores, the retriever checks, cheaply, whether another
process committed an index run since the pipeline's view was loaded; if so
it refreshes the stores and moves to the new version (``sync``). The stores
are queried with the store lock held for reading, and a hit whose chunk is
not the committed version of its document is dropped (the store is asked
again for more when that left fewer than it could give), so every hit comes
from the pinned version. ``retrieval.feedback`` embeds what it needs between
its two rounds without the lock, and asks again only if the version is
still the pinned one.

Stores whose queries wait on a server (``Store.remote_queries``) are asked on
the retriever's own small thread pool, at once with the query's other stores:
a hybrid query with a remote store then takes about as long as its slowest
store, not the sum of them. Stores that compute in this process are asked
one after another on the calling thread (side by side they would compete for
the same cores). The pool's tasks never wait on the pool (a store whose
query asks the pipeline again gets that query run on its own thread), so a
full pool delays a query but cannot deadlock it.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import math
import os
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

from .access import caller_filter, restrict
from .errors import ComponentError, IndexRebuildingError, IndexStateError, StoreError
from .filters import Filter, check_supported, evaluate, parse, to_spec
from .fingerprints import describe_fingerprint, fingerprints_match
from .fusion import best_per_document, fuse
from .ledger import JOURNAL_FILE, utc_time
from .storeset import store_kind
from .storewriter import moved_location
from .types import Explanation, Hit, HitExplanation, Hits

if TYPE_CHECKING:
    from .components import Embedder, Message, QueryTransformer, Reranker, Store
    from .config import PipelineConfig
    from .runs import Run
    from .state import IndexState, View
    from .storeset import StoreSet

__all__ = ["Retriever", "feedback_vector"]


log = logging.getLogger("ragloom")


class Retriever:
    """The query side of a pipeline's parts (``Pipeline.retrieve`` uses it)."""

    def __init__(
        self,
        *,
        config: PipelineConfig,
        embedder: Embedder | None,
        stores: StoreSet,
        query_transformers: Sequence[QueryTransformer],
        reranker: Reranker | None,
        state: IndexState,
    ) -> None:
        self.config = config
        self.embedder = embedder
        self.stores = stores
        self.query_transformers = list(query_transformers)
        self.reranker = reranker
        self.state = state
        self._lock = threading.Lock()
        self._embedder_fingerprint: Any = None
        self._embedder_matched = False  # an index of its embedder was answered from
        self._stores_checked: tuple[str, int] | None = None
        self._new_index_said = ""  # the new index (its id) a warning named
        self._broken: set[str] = set()  # stores (by name) said to break the contract
        self._secrets_said: set[str] = set()  # documents said to hold a secret (_screened)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_pid = 0

    STORE_WORKERS = 8
    """Threads the stores are asked on besides the caller's (shared by every
    query of the pipeline; a query waits when all are busy)."""

    def close(self) -> None:
        """Stop the stores' thread pool (``Pipeline.close`` calls it)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None and self._pool_pid == os.getpid():
            pool.shutdown(wait=True)

    def _store_pool(self) -> ThreadPoolExecutor:
        with self._lock:
            # a forked child inherits the pool but not its threads: a new one
            if self._pool is None or self._pool_pid != os.getpid():
                from concurrent.futures import ThreadPoolExecutor

                self._pool = ThreadPoolExecutor(
                    max_workers=self.STORE_WORKERS, thread_name_prefix="ragloom-store"
                )
                self._pool_pid = os.getpid()
            return self._pool

    def sync(self) -> View:
        """The view to answer from: the stores open, and refreshed when another
        process committed since (checked cheaply on every call)."""
        state = self.state
        if self.stores.opened and not state.changed():
            return state.view
        with state.lock.write():
            self.stores.open()
            self.stores.check()
            if state.changed():
                view = state.load_view()
                held = state.held
                if (
                    held is not None
                    and held.version
                    and not held.rebuilding
                    and view.index_id != held.index_id
                    and not view.version
                ):
                    # a new index begun where this one was (its folder replaced):
                    # until its first run commits, answering from it would say
                    # "nothing is indexed" to everyone; the version held stays
                    if self._new_index_said != view.index_id:
                        self._new_index_said = view.index_id
                        log.warning(
                            "a new index is being built in %s: queries answer from corpus "
                            "version %d of the one before until its first run commits",
                            state.index_dir,
                            held.version,
                        )
                    return held
                for _attempt in range(3):
                    # the stores read their files after this version was committed;
                    # unchanged version afterwards: the files hold every chunk of it
                    for _, store in self.stores:
                        store.refresh()
                    latest = state.load_view()
                    if latest.key == view.key:
                        break
                    view = latest
                state.set_view(view)
                if not view.stamped and view.exists:
                    self._unstamped_said(view)
            return state.view

    def _unstamped_said(self, view: View) -> None:
        policy = self.config.indexing.secrets
        log.warning(
            "corpus version %d of the index in %s was committed by an older ragloom "
            "(a machine not yet upgraded, or the index as the last version left it): "
            "its documents were screened by that version's rules%s; run `ragloom "
            "index` with this version, and upgrade every machine that writes this index",
            view.version,
            self.state.index_dir,
            ""
            if policy == "allow"
            else f", so until then each hit is screened for secrets here "
            f"(`indexing.secrets: {policy}`)",
        )

    def catch_up(self) -> bool:
        """Move to a version another process committed, and let every store
        build what it builds lazily (``Store.warm``), before a query has to:
        a server calls it every few seconds. True when it moved."""
        held = self.state.held
        view = self.sync()
        with self.state.lock.read():
            for _, store in self.stores:
                store.warm()
            # the checks a first query makes once a version, made here; what they
            # refuse, the queries say (a watcher is not the place to raise it)
            with contextlib.suppress(IndexStateError):
                self.check_view(view)
        return held is None or view.key != held.key

    def check_view(self, view: View) -> None:
        """Refuse to query ``view`` when no answer from it could be trusted: a
        rebuild under way, another embedder, a store the last run did not
        write, or a lost ledger (``IndexStateError`` and its subclasses)."""
        try:
            if view.rebuilding is not None and (view.stamped or not view.stamp_seen):
                # (a ragloom from before the stamp committed after this one's
                # rebuild stopped: it completed the index, and left the mark,
                # which it does not know)
                raise IndexRebuildingError(rebuilding_message(view.rebuilding))
            self.check_embedder(view)
            self.check_stores(view)
        except IndexStateError as exc:
            if not self.state.read_only:
                raise
            # the `ragloom index` it advises cannot run on this mount
            exc.args = (
                f"{exc}. This index lies on a read-only file system: do that where it "
                "can be written, then mount or copy it here again",
            )
            raise

    def check_embedder(self, view: View) -> None:
        """Refuse to query an index built by another embedder."""
        if self.embedder is None or not view.exists:
            return
        with self._lock:
            if self._embedder_fingerprint is None:
                self._embedder_fingerprint = self.embedder.fingerprint()
        current = self._embedder_fingerprint
        if fingerprints_match(view.embedder, current, self.embedder):
            self._embedder_matched = True
            return
        if self._embedder_matched:
            # it answered from this index before: another process rebuilt it,
            # likely with a config changed since this one was loaded (a server
            # loads its config once), and a rebuild from here would undo that
            raise IndexStateError(
                f"index {self.state.index_dir} was rebuilt with embedder "
                f"{describe_fingerprint(view.embedder)} after this process loaded its "
                f"config, which says {describe_fingerprint(current)}: if the config "
                "changed, restart this process (`ragloom serve` and `ragloom mcp` read "
                "it once, at start); else run `ragloom index --rebuild` with the config "
                "it runs"
            )
        raise IndexStateError(
            f"index {self.state.index_dir} was built with embedder "
            f"{describe_fingerprint(view.embedder)}, the config says "
            f"{describe_fingerprint(current)}: querying it would compare vectors from "
            "different models; run `ragloom index --rebuild`"
        )

    def check_stores(self, view: View) -> None:
        """Refuse to query a store the config added, retyped or moved since the
        last index run: it does not hold the indexed documents (none of them, or a
        copy from before), and its answers would be "no hits", or stale ones,
        with nothing said. Checked once a version."""
        if self._stores_checked == view.key:
            return
        if not view.stamps:
            self._check_no_documents()
            self._stores_checked = view.key
            return
        if view.stores is None:
            return
        for name, store in self.stores:
            was, now = view.stores.get(name), store_kind(store)
            if was == now:
                # another table or collection than the one written: what it holds
                # is not this version (an older copy, of as many chunks, or
                # nothing). A store whose count lags is answered from, as its runs say
                moved = moved_location(name, store, view.locations) if store.exact_count else None
                if moved:
                    raise IndexStateError(
                        f"store {name!r}: {moved}, and does not hold the indexed documents "
                        "as they are; run `ragloom index --repair` to write them there from "
                        "the ledger"
                    )
                continue
            cause = (
                "the config added it since"
                if was is None
                else f"that run wrote a {was!r} store of that name, and the config now "
                f"makes it a {now!r} one"
            )
            raise IndexStateError(
                f"store {name!r} is not the one the last index run wrote ({cause}): it does "
                "not hold the indexed documents as they are (none, or an older copy); run "
                "`ragloom index --repair` to write them into it from the ledger (or "
                "`ragloom index --rebuild`)"
            )
        self._check_counts(view)
        self._stores_checked = view.key

    def _check_counts(self, view: View) -> None:
        """Refuse a store that holds fewer chunks than the ledger lists (its
        file deleted, emptied, or swapped for another index's; a server's
        table dropped or rows deleted behind ragloom's back): answering from
        it would be "no hits", or some documents missing, with nothing said,
        where ``ragloom index`` stops and says so. Once a version, a count
        each (a store whose count lags, ``exact_count`` False, is not asked).
        More chunks than listed is no reason: a run deletes the old chunks of
        a version after committing it, and the visibility filter drops them.
        Not while a run writes (a journal), nor when the ledger moved
        meanwhile (the next query loads the new version)."""
        local = [(n, s) for n, s in self.stores if s.exact_count]
        if not local or (self.state.index_dir / JOURNAL_FILE).exists():
            return
        listed = self.state.chunk_total(view)
        if listed is None:
            return
        for name, store in local:
            held = store.count()
            if held < listed and not self.state.changed():
                raise IndexStateError(
                    f"store {name!r} holds {held} chunk(s) but the ledger lists {listed}: the "
                    "store's files or the ledger were changed outside ragloom (deleted, "
                    "replaced, restored from a backup), and its answers would miss "
                    "documents; run `ragloom index --repair` to bring them back in "
                    "agreement, or `ragloom index --rebuild`"
                )

    def _check_no_documents(self) -> None:
        """The ledger lists no document: a store in this process that holds
        chunks while no index run is under way (no journal) lost its ledger
        (deleted, or replaced by an empty one), and answering "no hits" or
        "nothing is indexed yet" would hide it."""
        if (self.state.index_dir / JOURNAL_FILE).exists():
            return  # a run writes, or one was killed: the next run settles it
        for name, store in self.stores:
            if store.remote_queries or not store.exact_count:
                continue
            held = store.count()
            if held:
                raise IndexStateError(
                    f"the index ledger {self.state.ledger_path} lists no documents, but store "
                    f"{name!r} holds {held} chunk(s): the ledger was deleted or replaced; run "
                    "`ragloom index --repair` to index the documents again into the stores "
                    "as they are, or `ragloom index --rebuild`"
                )

    # -- query -------------------------------------------------------------
    def retrieve(
        self,
        run: Run,
        question: str,
        filters: Mapping[str, Any] | Filter | None,
        k: int | None,
        history: Sequence[Message],
        principals: Sequence[str] | None = None,
        *,
        explain: bool = False,
        vector: Any = None,
    ) -> Hits:
        """``vector``: the question's embedding, already computed (``retrieve_many``
        embeds its questions in one batch); used only when no query transformer
        rewrites the question."""
        caller, configured = parse(filters), parse(self.config.retrieval.filter)
        if self.config.retrieval.deprecated == "exclude":
            configured = restrict(configured, _CURRENT)
        acl = caller_filter(self.config.access, principals)
        where = restrict(restrict(caller, configured), acl)
        for spec in self.config.stores:  # refuse before any store runs
            check_supported(where, spec.entry.cls.filter_operators, spec.name)
        settings = self.config.retrieval
        k = k or settings.k
        candidates = settings.candidates or max(3 * k, 20)

        queries = [question]
        for spec, transformer in zip(self.config.query_transformers, self.query_transformers):
            rewritten: list[str] = []
            for q in queries:
                found = run.stage(
                    "transform", spec.type, transformer, transformer.transform, q, history
                )
                rewritten.extend(found)
            queries = list(dict.fromkeys(rewritten)) or queries

        synced = None
        if self.stores.reads_slips and acl is None:
            # each query as the stores' texts spell its slips of typing ("parkng":
            # "parking"), so that a dense store embeds the word the pages say;
            # read from the version it is asked of (another process may have
            # committed the word since), and never where an access filter
            # applies (the reading would tell of words the caller may not read)
            synced = self.sync()
            with self.state.lock.read():
                queries = list(dict.fromkeys(self.stores.spelled(q) for q in queries))

        vectors: list[Any] = [None] * len(queries)
        if vector is not None and queries == [question]:
            vectors = [vector]
        elif self.embedder is not None and self.stores.needs_vectors:
            embed_type = self.config.embedder.type  # type: ignore[union-attr]
            vectors = [
                run.stage("embed_query", embed_type, self.embedder, self.embedder.embed_query, q)
                for q in queries
            ]

        for attempt in range(_ASKED_AGAIN + 1):
            view = synced if synced is not None and attempt == 0 else self.sync()
            self.check_view(view)
            asked: list[_Asked] = []  # what each list answered
            with self.state.lock.read():
                latest = self.state.view  # switched only under the write lock
                if latest is not view:
                    # switched since it was checked: a rebuild by this pipeline
                    # emptied its stores meanwhile, say; checked again, or the
                    # query would answer "no hits" from a version it does not hold
                    self.check_view(latest)
                view = latest
                for number in range(len(queries)):
                    for spec, (name, store) in zip(self.config.stores, self.stores):
                        own = restrict(where, spec.filter)  # the store's filter comes first
                        ask = spec.k or candidates
                        asked.append(_Asked(number, name, store, own, ask, spec.weight, acl))
                lists = self._query_stores(run, view, queries, vectors, asked)
            # a store others write at once (a server, an engine shared in this
            # process) may have been emptied by a rebuild in another pipeline
            # while it answered: that rebuild commits its new version first,
            # so a version moved meanwhile asks again, from the new one
            if attempt == _ASKED_AGAIN or not any(a.store.shared_data for a in asked):
                break
            if not self.state.changed():
                break
        weights = [a.weight for a in asked]
        fusion = partial(
            fuse,
            method=settings.fusion,
            k=settings.rrf_k,
            weights=None if all(w == 1.0 for w in weights) else weights,
            by=settings.fuse_by,
        )
        fed: list[Hit] = []
        if settings.feedback is not None and any(v is not None for v in vectors):
            fed = fusion(lists, limit=settings.feedback.docs)
        if fed:
            # the moved vectors may embed hits a store returned without theirs:
            # a model call, made without holding back an index run's writes
            moved = self._moved_vectors(run, vectors, lists, asked, fed)
            with self.state.lock.read():
                if self.state.view.key == view.key:
                    self._ask_again(run, view, queries, moved, lists, asked)
                # else an index run switched versions meanwhile: the first
                # lists, all of the version this query pinned, stand

        fused = run.stage("fuse", settings.fusion, None, fusion, lists, limit=k)
        if settings.exact_ids and fused:
            fused = named_records_first(
                question, fused, lists, by_document=settings.fuse_by == "document"
            )
        ranked = fused
        degraded = ""
        if self.reranker is not None and fused:
            try:
                ranked = run.stage(
                    "rerank",
                    self.config.reranker.type,  # type: ignore[union-attr]
                    self.reranker,
                    self.reranker.rerank,
                    question,
                    fused,
                    None,
                )
            except ComponentError as exc:
                if settings.on_rerank_error == "raise" or not _outage(exc):
                    raise  # a refused key, a wrong model: the config's to fix, said
                # an optional stage: the fused order is still an answer, said to be one
                log.warning("reranker failed, answering with the fused order: %s", exc)
                degraded = f"the reranker failed ({type(exc).__name__}); fused order"
        if settings.deprecated == "demote":
            ranked = current_first(ranked)
        explanation = None
        if explain:
            explanation = Explanation(
                queries=tuple(queries),
                filter=to_spec(caller),
                retrieval_filter=to_spec(configured),
                access_filter=to_spec(acl),
                store_filters={
                    spec.name: to_spec(spec.filter)
                    for spec in self.config.stores
                    if spec.filter is not None
                },
                feedback=None
                if settings.feedback is None or not fed
                else {
                    "docs": settings.feedback.docs,
                    "weight": settings.feedback.weight,
                    "from": [h.chunk.id for h in fed],
                },
                hits=_explained(
                    ranked,
                    fused,
                    zip((a.name for a in asked), lists),
                    self.reranker is not None and not degraded,
                    by_document=settings.fuse_by == "document",
                ),
            )
        return Hits(
            ranked,
            corpus_version=view.version,
            index_id=view.index_id,
            documents=len(view.stamps),
            explanation=explanation,
            trace=tuple(run.timings),
            degraded=degraded,
        )

    def _moved_vectors(
        self,
        run: Run,
        vectors: Sequence[Any],
        lists: Sequence[Sequence[Hit]],
        asked: Sequence[_Asked],
        fed: Sequence[Hit],
    ) -> list[Any]:
        """``retrieval.feedback``: each question's vector moved towards the
        first fused hits ``fed`` (None for a question without a vector)."""
        settings = self.config.retrieval
        assert settings.feedback is not None
        dense = [lists[i] for i, a in enumerate(asked) if "dense" in a.store.capabilities]
        embed = self._embed_documents(run)
        return [
            None
            if vector is None
            else feedback_vector(
                vector,
                fed,
                dense,
                by=settings.fuse_by,
                weight=settings.feedback.weight,
                embed=embed,
            )
            for vector in vectors
        ]

    def _ask_again(
        self,
        run: Run,
        view: View,
        queries: Sequence[str],
        moved: Sequence[Any],
        lists: list[list[Hit]],
        asked: Sequence[_Asked],
    ) -> None:
        """Each vector store asked again with its question's ``moved`` vector,
        its new list in the first one's place (under the store lock)."""
        again = [
            i
            for i, a in enumerate(asked)
            if "dense" in a.store.capabilities and moved[a.query] is not None
        ]
        found = self._query_stores(run, view, queries, moved, [asked[i] for i in again])
        for i, hits in zip(again, found):
            lists[i] = hits

    def _embed_documents(self, run: Run) -> Any:
        """``texts -> vectors`` with the embedder, as an ``embed`` stage (for
        feedback hits a store returned without their vectors)."""
        embedder = self.embedder
        if embedder is None:
            return None
        embed_type = self.config.embedder.type  # type: ignore[union-attr]
        return lambda texts: run.stage(
            "embed", embed_type, embedder, embedder.embed_documents, texts
        )

    def _query_stores(
        self,
        run: Run,
        view: View,
        queries: Sequence[str],
        vectors: Sequence[Any],
        asked: Sequence[_Asked],
    ) -> list[list[Hit]]:
        """Each of ``asked`` answered (its hits, in order). The lists of
        stores whose queries wait on a server (``Store.remote_queries``) are
        asked on the stores' pool, at once with the rest, which this thread
        asks one after another (a last remote one too, when nothing else is
        left to it). Stores that compute in this process are asked here only:
        side by side they would compete for the same cores. Every list is
        waited for before the first error is raised, so that no query still
        runs once the caller lets go of the store lock."""

        def call(a: _Asked, on: Run) -> Callable[[], list[Hit]]:
            return partial(
                self._query_store,
                on,
                view,
                a.name,
                a.store,
                queries[a.query],
                vectors[a.query],
                a.where,
                a.k,
                a.acl,
            )

        away = [i for i, a in enumerate(asked) if a.store.remote_queries]
        if len(away) == len(asked):
            away.pop()
        if not away or _on_store_pool.active:
            # a store's query that asks the pipeline again runs it here: a pool
            # task never waits on the pool
            return [call(a, run)() for a in asked]
        runs = [run.branch() for _ in asked]
        futures: dict[int, Future[list[Hit]]] = {}
        pool = self._store_pool()
        for i in away:
            # a pool shut down by a closing pipeline: this thread asks that store
            with contextlib.suppress(RuntimeError):
                # in a copy of this thread's context: the current run, tracing spans
                futures[i] = pool.submit(
                    contextvars.copy_context().run, _pooled, call(asked[i], runs[i])
                )
        lists: list[Any] = [None] * len(asked)
        errors: dict[int, BaseException] = {}
        # every pool query is waited for, whatever stopped this thread, before
        # the caller lets go of the store lock
        try:
            for i, a in enumerate(asked):
                if i not in futures and not errors:
                    try:
                        lists[i] = call(a, runs[i])()
                    except Exception as exc:
                        errors[i] = exc
        except BaseException:  # Ctrl-C, SystemExit: the rest is not asked
            _wait_all(futures.values(), cancel=True)
            raise
        _wait_all(futures.values(), cancel=bool(errors))
        for i, future in futures.items():
            if not future.cancelled():
                exc = future.exception()
                if exc is None:
                    lists[i] = future.result()
                else:
                    errors[i] = exc
        for branch in runs:  # the trace in the stores' order, whichever finished first
            run.timings.extend(branch.timings)
        if errors:
            raise errors[min(errors)]  # the first store's, in the config's order
        return lists

    def _query_store(
        self,
        run: Run,
        view: View,
        name: str,
        store: Store,
        text: str,
        vector: Any,
        where: Filter | None,
        k: int,
        acl: Filter | None = None,
    ) -> list[Hit]:
        """``store``'s best ``k`` hits that belong to ``view``. A store may hold
        chunks of a version being written (or of one being deleted); they are
        dropped, and the store asked again for more when that left fewer than
        it could give. What a store returns is held to the store contract
        first (``_as_promised``), and, under access control, every hit to
        the access filter: a store that ignored it leaks nothing."""
        kwargs = query_arguments(store, text, vector, where)
        ask = k
        while True:
            found = run.stage("retrieve", name, store, store.query, k=ask, **kwargs)
            found = _as_promised(found, name, store, ask, self._broken)
            stamps = view.stamps  # View.visible, inlined: it runs for every candidate
            visible = [
                h
                for h in found
                if stamps.get(h.chunk.document_id, "\0") == h.chunk.id.rpartition("@")[2]
            ]
            if acl is not None:
                visible = _readable(visible, acl, name, store, self._broken)
            if not view.stamped:
                visible = _screened(visible, self.config.indexing.secrets, self._secrets_said)
            if len(visible) >= k or len(found) < ask or ask >= 8 * k:
                return visible[:k]
            ask *= 2


_ASKED_AGAIN = 2
"""How many times a query asks its stores again when the corpus version
moved while stores others write answered it (then it answers as it found)."""


def _screened(hits: list[Hit], policy: str, said: set[str]) -> list[Hit]:
    """``hits`` screened for secrets as an index run of this version would
    have screened their documents (``indexing.secrets``): under ``skip`` a hit
    holding one is dropped, under ``redact`` its text is redacted. For a
    version an older ragloom committed (``View.stamped`` False), whose rules
    may have let secrets in that this one finds."""
    if policy == "allow":
        return hits
    from .secrets import find_secrets, redact

    kept = []
    for hit in hits:
        found = find_secrets(hit.chunk.text)
        if not found:
            kept.append(hit)
        elif policy == "redact":
            chunk = replace(hit.chunk, text=redact(hit.chunk.text, found))
            kept.append(Hit(chunk, hit.score, hit.store, hit.scores, hit.vector))
        elif hit.chunk.document_id not in said and len(said) < 1000:
            said.add(hit.chunk.document_id)  # said once a document, not each query
            log.warning(
                "left out the hits of %s: they hold a secret (%s), and an older ragloom "
                "indexed them; run `ragloom index` to take them out of the index",
                hit.chunk.source,
                found[0].kind,
            )
    return kept


def _as_promised(found: Any, name: str, store: Store, k: int, said: set[str]) -> list[Hit]:
    """A store's answer to ``query(k=k)`` as the store contract promises it:
    a list of ``Hit`` with number scores (else ``StoreError``, naming the
    store), best first, each chunk once, at most ``k``. A plugin that breaks
    the last three is put right here, and said once a store: a chunk twice
    or the worst first would reach fusion, and the answer, as it came."""
    try:
        if type(found) is not list:
            found = list(found)
        scores = [h.score for h in found]
        total = sum(scores)  # TypeError for a score that is no number
        if (
            len(found) <= k
            and len({h.chunk.id for h in found}) == len(found)
            and (total == total or _finite_order(scores))  # NaN: looked at below
            and scores == sorted(scores, reverse=True)
        ):
            return found
        if not all(isinstance(h, Hit) for h in found):
            raise TypeError("not a Hit")
    except (TypeError, AttributeError):
        raise StoreError(
            f"store {name!r} ({store_kind(store)}) returned {_shown(found)} from query(), "
            "not a list of ragloom.Hit with number scores: its plugin breaks the store "
            "contract (run ragloom.testing's StoreContract against it)"
        ) from None
    faults = []
    unique: dict[str, Hit] = {}
    for hit in found:
        unique.setdefault(hit.chunk.id, hit)
    if len(unique) < len(found):
        faults.append("a chunk more than once")

    def rank(hit: Hit) -> float:
        score = float(hit.score)
        return -math.inf if score != score else score

    ordered = sorted(unique.values(), key=rank, reverse=True)  # stable: ties as given
    if any(h.score != h.score for h in ordered):
        faults.append("NaN scores (ranked last)")
    if ordered != list(unique.values()):
        faults.append("hits not best first")
    if len(ordered) > k:
        faults.append(f"more than the {k} hits asked")
    if name not in said:
        said.add(name)
        log.warning(
            "store %r (%s) answered a query with %s: put right here; its plugin breaks the "
            "store contract (run ragloom.testing's StoreContract against it)",
            name,
            store_kind(store),
            ", ".join(faults) or "hits out of order",
        )
    return ordered[:k]


def _finite_order(scores: list[Any]) -> bool:
    """Whether ``scores`` hold no NaN (their sum may be NaN from inf - inf)."""
    return all(s == s for s in scores)


def _shown(found: Any) -> str:
    if isinstance(found, list):
        wrong = next((h for h in found if not isinstance(h, Hit)), None)
        if wrong is not None:
            return f"a list holding {type(wrong).__name__}"
        bad = next((h.score for h in found if not isinstance(h.score, (int, float))), None)
        return f"a hit whose score is {type(bad).__name__} {bad!r}"
    return type(found).__name__


def _readable(hits: list[Hit], acl: Filter, name: str, store: Store, said: set[str]) -> list[Hit]:
    """``hits`` that the access filter ``acl`` lets the caller read. A store
    is asked with it inside its filter; a store whose hits are not all
    readable ignored it (a plugin bug), and what it leaked is dropped here."""
    readable = [h for h in hits if evaluate(acl, h.chunk.metadata)]
    if len(readable) < len(hits) and f"{name} acl" not in said:
        said.add(f"{name} acl")
        log.error(
            "store %r (%s) returned chunks the caller's access filter excludes: it does not "
            "apply the filter it is given (its plugin breaks the store contract); they were "
            "dropped",
            name,
            store_kind(store),
        )
    return readable


def rebuilding_message(started: float) -> str:
    when = utc_time(started)
    return (
        f"the index is being rebuilt (`ragloom index --rebuild`, started {when}) and holds "
        "no documents until that run ends: try again then. If no rebuild is running, one "
        "was interrupted: run `ragloom index` to complete it"
    )


def query_arguments(store: Store, text: str, vector: Any, where: Filter | None) -> dict[str, Any]:
    """What ``store.query`` is asked with: the filter, and the question as a
    vector or as text, as the store's capabilities take it."""
    kwargs: dict[str, Any] = {"where": where}
    if "dense" in store.capabilities:
        kwargs["vector"] = vector
    if "text" in store.capabilities:
        kwargs["text"] = text
    return kwargs


class _Asked(NamedTuple):
    """What one list of hits answered: the question's number, the store (by
    name), the filter it was asked with, how many hits, its fusion weight."""

    query: int
    name: str
    store: Store
    where: Filter | None
    k: int
    weight: float
    acl: Filter | None = None
    """The access filter inside ``where``, checked again on every hit."""


def feedback_vector(
    vector: Any,
    top: Sequence[Hit],
    dense_lists: Sequence[Sequence[Hit]],
    *,
    by: str = "chunk",
    weight: float = 0.5,
    embed: Callable[[list[str]], Any] | None = None,
) -> Any:
    """Rocchio's pseudo-relevance feedback: the question's ``vector`` (made unit
    length) plus ``weight`` times the mean of the ``top`` hits of a first
    fusion, each one unit vector, made unit length again.

    Fused by document (``by="document"``) a top hit stands for its document:
    the mean of the unit vectors of every chunk of it that the vector
    stores' lists (``dense_lists``) hold, each document counting once;
    otherwise for its own chunk. A chunk held only without its vector (a
    store that does not return vectors), or a hit no list holds, is embedded
    with ``embed`` (texts to vectors, as documents are). ``vector`` itself
    when there is nothing to add."""
    import numpy as np

    def key(hit: Hit) -> str:
        return hit.chunk.document_id if by == "document" else hit.chunk.id

    def unit(v: Any) -> Any:
        if v is None:
            return None
        v = np.asarray(v, dtype=np.float32)
        n = float(np.linalg.norm(v))
        return v / n if n > 0 else None

    members: dict[str, dict[str, Hit]] = {key(hit): {} for hit in top}  # by chunk id
    for hits in dense_lists:
        for hit in hits:
            got = members.get(key(hit))
            if got is not None and getattr(got.get(hit.chunk.id), "vector", None) is None:
                got[hit.chunk.id] = hit
    for hit in top:  # a hit only other stores found stands for itself
        members[key(hit)] = members[key(hit)] or {hit.chunk.id: hit}
    bare = [h for got in members.values() for h in got.values() if h.vector is None]
    embedded: dict[str, Any] = {}
    if bare and embed is not None:
        embedded = dict(zip((h.chunk.id for h in bare), embed([h.chunk.text for h in bare])))
    documents = []
    for got in members.values():
        units = [unit(embedded.get(c) if h.vector is None else h.vector) for c, h in got.items()]
        units = [u for u in units if u is not None]
        if units:
            documents.append(np.mean(units, axis=0))
    query = unit(vector)
    if query is None or not documents:
        return vector
    moved = query + weight * np.mean(documents, axis=0)
    norm = float(np.linalg.norm(moved))
    return query if norm == 0 else (moved / norm).astype(np.float32)


def _explained(
    ranked: Sequence[Hit],
    fused: Sequence[Hit],
    lists: Iterable[tuple[str, Sequence[Hit]]],
    reranked: bool,
    *,
    by_document: bool = False,
) -> tuple[HitExplanation, ...]:
    """Where each returned hit stood in each store, after fusion, after
    reranking. Fused by document, a store's place is that of its best chunk
    of the hit's document (the rank among the documents it returned), as
    fusion counted it, whichever chunk it was."""
    in_stores: dict[str, dict[str, tuple[int, float]]] = {}
    for name, hits in lists:
        if by_document:
            hits = best_per_document(hits)
        for rank, hit in enumerate(hits, start=1):
            key = hit.chunk.document_id if by_document else hit.chunk.id
            best = in_stores.setdefault(key, {})
            if name not in best or rank < best[name][0]:
                best[name] = (rank, hit.score)
    fused_at = {h.chunk.id: (rank, h.score) for rank, h in enumerate(fused, start=1)}
    out = []
    for rank, hit in enumerate(ranked, start=1):
        fused_rank, fused_score = fused_at.get(hit.chunk.id, (rank, hit.score))
        out.append(
            HitExplanation(
                chunk_id=hit.chunk.id,
                stores=in_stores.get(hit.chunk.document_id if by_document else hit.chunk.id, {}),
                fused_rank=fused_rank,
                fused_score=hit.scores.get("fusion", fused_score),
                reranked_rank=rank if reranked else None,
                rerank_score=hit.score if reranked else None,
            )
        )
    return tuple(out)


_IDENTIFIER = re.compile(r"(?<![\w.-])(?=[\w.-]*[A-Za-z])(?=[\w.-]*\d)[\w][\w.-]{2,63}(?<![.-])")
"""A token that may name a record: letters and digits together (``INC-1006``,
``CM-330``, ``ERR_4012``), 3 to 64 characters."""


_ROW_LABEL = re.compile(r"^[ \t]*\|[ \t]*([^|\n]{3,66}?)[ \t]*\|", re.MULTILINE)
"""A Markdown table row's first cell."""


def _row_codes(named: set[str]) -> set[str]:
    """The ``named`` ids a table row's label may be: those with three digits
    or more (a feature matrix's ``2FA`` or ``v2.4`` row is no record)."""
    return {name for name in named if sum(ch.isdigit() for ch in name) >= 3}


def _labels_a_row(text: str, codes: set[str]) -> bool:
    """Whether ``text`` holds a table row whose first cell is one of the
    ``codes`` (``_row_codes``; code marks aside: ``| `E1347` | ...``)."""
    if not codes or "|" not in text:
        return False
    return any(m.group(1).strip("`* ").lower() in codes for m in _ROW_LABEL.finditer(text))


def named_records_first(
    question: str, fused: list[Hit], lists: Sequence[Sequence[Hit]], *, by_document: bool = False
) -> list[Hit]:
    """``retrieval.exact_ids``: the records whose id the question names
    (a csv or jsonl record's ``record_id``: ``INC-1006``; a Markdown table
    row labelled with it: ``| E1347 | ...``) first, from any store's
    candidates, then the fused order, as long as it was. Rank fusion weighs
    ranks only: a record that keyword search found far ahead of the rest but
    that the embedder missed sank below passages that both placed in the
    middle (or tied with the embedder's near miss, and lost the tie)."""
    named = {m.group().lower() for m in _IDENTIFIER.finditer(question)}
    if not named:
        return fused
    codes = _row_codes(named)
    first: dict[str, Hit] = {}
    for hit in [*fused, *(h for found in lists for h in found)]:
        if hit.chunk.id in first:
            continue
        record = hit.chunk.metadata.get("record_id")
        if (isinstance(record, str) and record.lower() in named) or _labels_a_row(
            hit.chunk.text, codes
        ):
            first[hit.chunk.id] = hit
    if not first:
        return fused
    top = max(h.score for h in fused)
    promoted = [
        replace(h, score=top, scores={**h.scores, "fusion": top, "named": 1.0})
        for h in first.values()
    ]
    if by_document:  # (``fuse_by: document``) one hit a document: the promoted one
        seen: set[str] = set()
        promoted = [
            h
            for h in promoted
            if not (h.chunk.document_id in seen or seen.add(h.chunk.document_id))
        ]
        rest = [h for h in fused if h.chunk.id not in first and h.chunk.document_id not in seen]
    else:
        rest = [h for h in fused if h.chunk.id not in first]
    return (promoted + rest)[: len(fused)]


_CURRENT = parse({"deprecated": {"$ne": True}})
"""``retrieval.deprecated: exclude``: the chunks of documents not marked deprecated."""


def current_first(hits: list[Hit]) -> list[Hit]:
    """``retrieval.deprecated: demote``: the hits of documents marked
    ``deprecated: true`` after the others, each part in its order: an
    answerer reads the current page first, and the old one is still there
    for a question about it."""
    old = [h for h in hits if h.chunk.metadata.get("deprecated") is True]
    if not old or len(old) == len(hits):
        return hits
    return [h for h in hits if h.chunk.metadata.get("deprecated") is not True] + old


def _outage(exc: ComponentError) -> bool:
    """Whether ``exc`` is a service out of reach or overloaded after its
    retries (a timeout, no connection, 429, 5xx), not a refusal a retry
    would meet again (a 401 key, a 404 model) or a bug."""
    from .remote import RetryPolicy

    failure = getattr(exc, "failure", None)
    return failure is not None and RetryPolicy().retryable(failure)


class _PoolFlag(threading.local):
    active = False
    """True on the store pool's threads, while they ask a store."""


_on_store_pool = _PoolFlag()


def _pooled(call: Callable[[], list[Hit]]) -> list[Hit]:
    """``call()`` on a store pool thread, marked as such."""
    _on_store_pool.active = True
    try:
        return call()
    finally:
        _on_store_pool.active = False


def _wait_all(futures: Iterable[Future[Any]], *, cancel: bool) -> None:
    """Wait until every one of ``futures`` is done (cancelling those not yet
    started when ``cancel``); an interruption while waiting (Ctrl-C) is
    raised once they all are."""
    from concurrent.futures import wait

    pending = list(futures)
    if cancel:
        for future in pending:
            future.cancel()
    interrupted: BaseException | None = None
    while pending:
        try:
            pending = list(wait(pending).not_done)
        except BaseException as exc:  # re-raised once all are done
            interrupted = interrupted or exc
    if interrupted is not None:
        raise interrupted
