"""The query path: transform -> embed -> every store -> fuse -> rerank, from
one committed corpus version.

Before it queries the stores, the retriever checks, cheaply, whether another
process committed an index run since the pipeline's view was loaded; if so
it refreshes the stores and moves to the new version (``sync``). The stores
are queried with the store lock held for reading, and a hit whose chunk is
not the committed version of its document is dropped (the store is asked
again for more when that left fewer than it could give), so every hit comes
from the pinned version.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .access import caller_filter, restrict
from .errors import IndexStateError
from .filters import Filter, check_supported, parse, to_spec
from .fingerprints import describe_fingerprint, fingerprints_match
from .fusion import best_per_document, fuse
from .types import Explanation, Hit, HitExplanation, Hits

if TYPE_CHECKING:
    from .components import Embedder, Message, QueryTransformer, Reranker, Store
    from .config import PipelineConfig
    from .runs import Run
    from .state import IndexState, View
    from .storeset import StoreSet

__all__ = ["Retriever"]


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
            return state.view

    def check_embedder(self, view: View) -> None:
        """Refuse to query an index built by another embedder."""
        if self.embedder is None or not view.exists:
            return
        with self._lock:
            if self._embedder_fingerprint is None:
                self._embedder_fingerprint = self.embedder.fingerprint()
        current = self._embedder_fingerprint
        if not fingerprints_match(view.embedder, current, self.embedder):
            raise IndexStateError(
                f"index {self.state.index_dir} was built with embedder "
                f"{describe_fingerprint(view.embedder)}, the config says "
                f"{describe_fingerprint(current)}: querying it would compare vectors from "
                "different models; run `ragloom index --rebuild`"
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

        vectors: list[Any] = [None] * len(queries)
        if vector is not None and queries == [question]:
            vectors = [vector]
        elif self.embedder is not None and self.stores.needs_vectors:
            embed_type = self.config.embedder.type  # type: ignore[union-attr]
            vectors = [
                run.stage("embed_query", embed_type, self.embedder, self.embedder.embed_query, q)
                for q in queries
            ]

        view = self.sync()
        self.check_embedder(view)
        lists: list[list[Hit]] = []
        weights: list[float] = []
        names: list[str] = []
        with self.state.lock.read():
            view = self.state.view  # switched only under the write lock
            for q, vector in zip(queries, vectors):
                for spec, (name, store) in zip(self.config.stores, self.stores):
                    ask = spec.k or candidates
                    own = restrict(where, spec.filter)  # the store's filter comes first
                    lists.append(self._query_store(run, view, name, store, q, vector, own, ask))
                    weights.append(spec.weight)
                    names.append(name)

        uniform = all(w == 1.0 for w in weights)
        fused = run.stage(
            "fuse",
            settings.fusion,
            None,
            fuse,
            lists,
            method=settings.fusion,
            k=settings.rrf_k,
            weights=None if uniform else weights,
            limit=k,
            by=settings.fuse_by,
        )
        ranked = fused
        if self.reranker is not None and fused:
            ranked = run.stage(
                "rerank",
                self.config.reranker.type,  # type: ignore[union-attr]
                self.reranker,
                self.reranker.rerank,
                question,
                fused,
                None,
            )
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
                hits=_explained(
                    ranked,
                    fused,
                    zip(names, lists),
                    self.reranker is not None,
                    by_document=settings.fuse_by == "document",
                ),
            )
        return Hits(
            ranked,
            corpus_version=view.version,
            index_id=view.index_id,
            explanation=explanation,
            trace=tuple(run.timings),
        )

    @staticmethod
    def _query_store(
        run: Run,
        view: View,
        name: str,
        store: Store,
        text: str,
        vector: Any,
        where: Filter | None,
        k: int,
    ) -> list[Hit]:
        """``store``'s best ``k`` hits that belong to ``view``. A store may hold
        chunks of a version being written (or of one being deleted); they are
        dropped, and the store asked again for more when that left fewer than
        it could give."""
        kwargs: dict[str, Any] = {"where": where}
        if "dense" in store.capabilities:
            kwargs["vector"] = vector
        if "text" in store.capabilities:
            kwargs["text"] = text
        ask = k
        while True:
            found = run.stage("retrieve", name, store, store.query, k=ask, **kwargs)
            stamps = view.stamps  # View.visible, inlined: it runs for every candidate
            visible = [
                h
                for h in found
                if stamps.get(h.chunk.document_id, "\0") == h.chunk.id.rpartition("@")[2]
            ]
            if len(visible) >= k or len(found) < ask or ask >= 8 * k:
                return visible[:k]
            ask *= 2


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
