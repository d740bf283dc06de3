"""Learn how a pipeline fuses its stores, on judged queries.

:func:`tune_fusion` indexes a BEIR corpus with a config (as ``ragloom eval
--beir`` does, in the same index folder), asks every store once for its best
``depth`` hits per query, and then searches, on those lists alone, for the
fusion settings that score best: the method (``rrf``, ``weighted``,
``dbsf``), what it adds up (``fuse_by``: chunks or documents), the
``rrf_k`` constant, each store's ``weight`` and each store's candidate
``k``; then, with ``bm25=True``, each ``bm25`` store's ``scope`` (chunks or
whole documents), ``k1`` and ``b`` (that store asked again with each value
tried, on the index's own terms: no re-indexing), and the fusion once more
for the best of them. The other ``scope`` changes every bm25 score, so the
fusion is searched for it in full before the parameters are. Last, with
``feedback=True`` and a vector store, pseudo-relevance feedback
(``retrieval.feedback``) for the best settings: each ``docs`` and
``weight`` of a small grid replayed as the query path does it (the first
fusion's best hits, the vector stores asked again with the moved vector).
Every setting is scored by ranking exactly as the query
path's :func:`ragloom.fusion.fuse` does (the same arithmetic, ties in the
same order; the tests compare the two), so the score of the winner is the
score ``ragloom eval --beir`` then measures on the same split.

The search is coordinate ascent from the config's own settings, per method:
one setting at a time over a small grid, keeping a change only when it
scores higher by more than ``significance`` standard errors of the paired
per-query differences, until a round changes nothing. A few hundred
questions cannot tell a gain of 0.002 from chance, and settings kept for
such gains fit the tuning questions rather than the corpus (on SciFact
they cost held-out nDCG@10); ``significance=0`` keeps any gain. Each
method and unit (and each bm25 scope) is searched that way from the
config's own settings, and the highest-scoring search wins (the config's
own method and unit are searched first and win ties), so the result never
scores lower than the config's own settings on the tuning split.
Rerankers and query transformers are not part of the search: it tunes the
fused list a reranker would receive.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..access import restrict
from ..errors import ConfigError, RagloomError
from ..evaluation import METRICS, load_beir
from ..evaluation.beir import beir_index_config, corpus_file
from ..evaluation.metrics import MetricScores
from ..filters import parse
from ..fusion import FUSE_BY, FUSION_METHODS, distribution_scores, fuse, minmax_scores
from ..retrieval import feedback_vector, query_arguments

if TYPE_CHECKING:
    import pluggy

    from ..types import Hit

__all__ = ["FusionChoice", "FusionReport", "apply_choice", "tune_fusion"]

RRF_KS = (1, 2, 5, 10, 20, 30, 60, 100)
WEIGHTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2, 1.5, 2.0, 3.0, 5.0, 10.0)
STORE_KS = (10, 20, 30, 50, 75, 100, 150, 200, 300)
BM25_K1S = (0.5, 0.7, 0.9, 1.2, 1.5, 2.0)
BM25_BS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.75, 0.9)
BM25_SCOPES = ("chunk", "document")
FEEDBACK_DOCS = (2, 3, 5)
FEEDBACK_WEIGHTS = (0.3, 0.5, 1.0)
EVAL_DEPTH = 100
"""What ``ragloom eval --beir`` retrieves per query (its largest cutoff)."""


Options = tuple[tuple[tuple[str, float | str], ...], ...]
"""Per store, the ``(name, value)`` options tuned beside its weight and ``k``."""


@dataclass(frozen=True)
class FusionChoice:
    """Fusion settings: the method, its RRF constant, and per store (config
    order) a weight and a candidate ``k``; ``options``, when not empty, per
    store the options tuned beside them (``(("b", 0.4), ("k1", 0.9))`` for a
    bm25 store, ``()`` for a store whose options stay as configured); ``by``,
    what fusion adds up (``retrieval.fuse_by``); ``feedback``, ``(docs,
    weight)`` of ``retrieval.feedback`` or None (off)."""

    method: str
    rrf_k: int
    weights: tuple[float, ...]
    ks: tuple[int, ...]
    options: Options = ()
    by: str = "chunk"
    feedback: tuple[int, float] | None = None

    def store_options(self, index: int) -> dict[str, float | str]:
        """The options tuned for store ``index`` (empty: as configured)."""
        return dict(self.options[index]) if index < len(self.options) else {}

    def describe(self, names: Sequence[str]) -> str:
        stores = ", ".join(
            f"{name} (weight {w:g}, k {k}"
            + "".join(f", {key} {_shown(value)}" for key, value in self.store_options(i).items())
            + ")"
            for i, (name, w, k) in enumerate(zip(names, self.weights, self.ks))
        )
        rrf = f", rrf_k {self.rrf_k}" if self.method == "rrf" else ""
        by = ", by document" if self.by == "document" else ""
        fed = ""
        if self.feedback is not None:
            fed = f"; feedback from {self.feedback[0]} hits, weight {self.feedback[1]:g}"
        return f"{self.method}{rrf}{by}; {stores}{fed}"


def _shown(value: float | str) -> str:
    return value if isinstance(value, str) else f"{value:g}"


@dataclass(frozen=True)
class FusionReport:
    """What :func:`tune_fusion` found: the config's own settings and score, the
    best settings and score per method, and the overall best."""

    metric: str
    queries: int
    stores: tuple[str, ...]
    before: FusionChoice
    before_score: float
    best: FusionChoice
    best_score: float
    per_method: Mapping[str, tuple[FusionChoice, float]]
    evaluations: int
    seconds: float
    index_dir: str
    index_seconds: float = 0.0
    trace: tuple[tuple[str, float], ...] = field(default=(), repr=False)


def _beir_config(
    config: Mapping[str, Any], directory: Path, index_dir: Path | None, base_dir: Path | None
) -> tuple[dict[str, Any], Path]:
    """The config ``ragloom eval --beir`` would index ``directory`` with (and
    its index folder), so both share one index."""
    return beir_index_config(config, corpus_file(directory), directory, index_dir, base_dir)


def _metric(name: str) -> tuple[Callable[..., Any], int]:
    family, _, cutoff = name.partition("@")
    if family not in METRICS or not cutoff.isdigit() or int(cutoff) <= 0:
        choices = ", ".join(f"{m}@10" for m in METRICS)
        raise ConfigError(f"unknown metric {name!r}: use a metric and a cutoff, e.g. {choices}")
    return METRICS[family], int(cutoff)


class _Lists:
    """One query's per-store lists as arrays: each chunk as an index into the
    query's chunks (numbered in first-seen order), and each hit's score. For
    fusion by document: ``group`` numbers each chunk's document (first-seen
    order), ``group_docs`` names them, and ``firsts`` holds, per list, the
    positions of each document's first (best) hit."""

    __slots__ = ("docs", "firsts", "group", "group_docs", "ids", "scores")

    def __init__(self, per_store: Sequence[Sequence[Hit]]) -> None:
        import numpy as np

        number: dict[str, int] = {}
        groups: dict[str, int] = {}
        group: list[int] = []
        self.docs: list[str] = []
        self.group_docs: list[str] = []
        self.ids: list[np.ndarray] = []
        self.firsts: list[np.ndarray] = []
        self.scores: list[list[float]] = []
        for hits in per_store:
            ids, firsts, seen = [], [], set()
            for position, hit in enumerate(hits):
                cid, doc = hit.chunk.id, hit.chunk.document_id
                if cid not in number:
                    number[cid] = len(number)
                    self.docs.append(str(hit.chunk.metadata.get("record_id", doc)))
                    if doc not in groups:
                        groups[doc] = len(groups)
                        self.group_docs.append(self.docs[-1])
                    group.append(groups[doc])
                ids.append(number[cid])
                if doc not in seen:
                    seen.add(doc)
                    firsts.append(position)
            self.ids.append(np.asarray(ids, dtype=np.int64))
            self.firsts.append(np.asarray(firsts, dtype=np.int64))
            self.scores.append([float(hit.score) for hit in hits])
        self.group = np.asarray(group, dtype=np.int64)


def _contributions(method: str, rrf_k: int, scores: list[float]) -> list[float]:
    """Each hit's contribution before its weight, computed as ragloom.fusion does."""
    if method == "rrf":
        return [1.0 / (rrf_k + r) for r in range(1, len(scores) + 1)]
    if method == "weighted":
        return minmax_scores(scores)
    return distribution_scores(scores)


class _Scorer:
    """Scores a choice on fixed per-store lists. It ranks exactly as the query
    path's :func:`ragloom.fusion.fuse` (same arithmetic in the same order, ties
    in first-seen order), with arrays instead of one ``Hit`` per candidate, so
    that hundreds of settings can be tried in seconds."""

    def __init__(
        self,
        lists: Mapping[str, Sequence[Sequence[Hit]]],
        qrels: Mapping[str, Mapping[str, int]],
        metric: str,
    ) -> None:
        self.lists = {qid: _Lists(per_store) for qid, per_store in lists.items()}
        self.qrels = qrels
        self.measure, self.cutoff = _metric(metric)
        self.limit = max(EVAL_DEPTH, self.cutoff)
        self.cache: dict[FusionChoice, float] = {}
        self.per_query: dict[FusionChoice, list[float]] = {}
        """Each choice's value per query, in the order of ``lists``."""

    def ranking(self, lists: _Lists, choice: FusionChoice) -> dict[str, float]:
        """One query's documents and scores: the best ``limit`` fused chunks
        (or documents), each document scored by its best chunk (as ``ragloom
        eval --beir``)."""
        import numpy as np

        by_document = choice.by == "document"
        docs = lists.group_docs if by_document else lists.docs
        size = len(docs)
        total = np.zeros(size)
        seen = np.full(size, np.iinfo(np.int64).max, dtype=np.int64)
        present = np.zeros(size, dtype=bool)
        offset = 0
        single = len(lists.ids) == 1 and all(w == 1.0 for w in choice.weights)
        per_list = zip(lists.ids, lists.scores, lists.firsts, choice.weights, choice.ks)
        for ids, scores, firsts, weight, k in per_list:
            if by_document:  # each list's best hit per document among its first k
                kept = firsts[firsts < k]
                ids, scores = lists.group[ids[kept]], [scores[p] for p in kept.tolist()]
            else:
                ids, scores = ids[:k], scores[:k]
            if single:  # fuse passes a lone list through as it is
                values = np.asarray(scores)
            else:
                values = weight * np.asarray(_contributions(choice.method, choice.rrf_k, scores))
            np.add.at(total, ids, values)
            np.minimum.at(seen, ids, offset + np.arange(len(ids)))
            present[ids] = True
            offset += len(ids)
        chosen = np.flatnonzero(present)
        order = chosen[np.lexsort((seen[chosen], -total[chosen]))][: self.limit]
        found: dict[str, float] = {}
        for i in order.tolist():
            doc, value = docs[i], float(total[i])
            if doc not in found or value > found[doc]:
                found[doc] = value
        return found

    def __call__(self, choice: FusionChoice) -> float:
        if choice in self.cache:
            return self.cache[choice]
        run = {qid: self.ranking(lists, choice) for qid, lists in self.lists.items()}
        measured = self.measure(run, self.qrels, self.cutoff)
        value = float(measured.mean)
        self.cache[choice] = value
        self.per_query[choice] = [measured.per_query.get(qid, 0.0) for qid in self.lists]
        return value


Beats = Callable[["FusionChoice", "FusionChoice"], bool]
"""``beats(candidate, incumbent)``: whether the search moves to ``candidate``."""


def beats_by(new: Sequence[float], old: Sequence[float], significance: float) -> bool:
    """Whether per-query values ``new`` beat ``old`` (the same queries, in the
    same order): a higher mean, by more than ``significance`` standard errors
    of the per-query differences when ``significance`` is above 0."""
    gain = MetricScores("gain", {str(i): a - b for i, (a, b) in enumerate(zip(new, old))})
    if not gain.per_query or gain.mean <= 1e-12:
        return False
    if significance <= 0:
        return True
    # one question has no spread to weigh a gain against: no gain is told from chance
    return len(gain.per_query) >= 2 and gain.mean > significance * gain.standard_error + 1e-12


def _ascend(
    score: Callable[[FusionChoice], float],
    start: FusionChoice,
    depth: int,
    beats: Beats,
    rounds: int = 4,
) -> tuple[FusionChoice, float]:
    """Coordinate ascent from ``start``: one setting at a time, a change kept
    only when it ``beats`` the best so far."""
    best, best_score = start, score(start)
    ks = [k for k in STORE_KS if k <= depth]
    for _ in range(rounds):
        improved = False
        moves: list[Callable[[FusionChoice], list[FusionChoice]]] = []
        if best.method == "rrf":
            moves.append(lambda c: [replace(c, rrf_k=v) for v in RRF_KS])
        for i in range(1, len(best.weights)):  # store 0 keeps weight 1: only ratios matter
            moves.append(
                lambda c, i=i: [
                    replace(c, weights=c.weights[:i] + (w,) + c.weights[i + 1 :]) for w in WEIGHTS
                ]
            )
        for i in range(len(best.ks)):
            moves.append(
                lambda c, i=i: [replace(c, ks=c.ks[:i] + (k,) + c.ks[i + 1 :]) for k in ks]
            )
        for move in moves:
            for candidate in move(best):
                value = score(candidate)
                if beats(candidate, best):
                    best, best_score, improved = candidate, value, True
        if not improved:
            break
    return best, best_score


def _normalised(weights: Sequence[float]) -> tuple[float, ...]:
    """Weights scaled so the first store's is 1 (fusion ranks by ratios only)."""
    first = weights[0]
    if first <= 0:
        return tuple(float(w) for w in weights)
    return tuple(round(w / first, 6) for w in weights)


def tune_fusion(
    config: Mapping[str, Any],
    directory: str | Path,
    split: str = "tune",
    *,
    metric: str = "nDCG@10",
    methods: Sequence[str] = FUSION_METHODS,
    depth: int = 300,
    limit_queries: int | None = None,
    index_dir: str | Path | None = None,
    base_dir: Path | None = None,
    plugin_manager: pluggy.PluginManager | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    bm25: bool = True,
    significance: float = 1.0,
    feedback: bool = True,
) -> FusionReport:
    """Find the fusion settings that score best on ``split`` of a BEIR folder.

    :param config: a pipeline config dict (``Pipeline.to_config()``) with at
        least two stores and no query transformers.
    :param directory: the BEIR folder (``ragloom tune split`` writes one).
    :param split: the qrels split to tune on; never the held-out one.
    :param metric: what to maximise, ``nDCG@10`` by default (any of
        ``nDCG``, ``MRR``, ``Recall``, ``P`` at a cutoff).
    :param methods: the fusion methods to try.
    :param depth: hits asked of each store per query; the largest candidate
        ``k`` tried. At least the config's own (300 when unset, as ``ragloom
        eval --beir`` asks for 100 hits).
    :param progress: ``progress(phase, done, total)``, phase ``index``,
        ``query``, ``search``, ``bm25`` or ``feedback``.
    :param bm25: also tune ``scope``, ``k1`` and ``b`` of each ``bm25`` store.
    :param feedback: also try ``retrieval.feedback`` for the best settings
        (when a store searches vectors); False keeps the config's own.
    :param significance: a change is kept only when it beats the setting it
        replaces by more than this many standard errors of the paired
        per-query differences on ``split`` (0: any gain).
    :returns: the config's own settings and score, and the best found.
    """
    from ..pipeline import Pipeline
    from ..plugins import build_plugin_manager

    unknown = [m for m in methods if m not in FUSION_METHODS]
    if unknown or not methods:
        raise ConfigError(
            f"unknown fusion method(s) {', '.join(unknown) or '(none given)'}: "
            f"use {', '.join(FUSION_METHODS)}"
        )
    _metric(metric)
    if not significance >= 0:
        raise ConfigError(f"significance must be 0 or more standard errors, not {significance}")
    stores = [s for s in config.get("stores") or [] if isinstance(s, Mapping)]
    if len(stores) < 2:
        raise ConfigError(
            "tune fusion needs a config with two or more stores (e.g. a vector store and bm25): "
            "with one store there is nothing to fuse"
        )
    if config.get("query_transformers"):
        raise ConfigError(
            "tune fusion does not support query_transformers (each rewrite adds lists to "
            "fuse); tune with a config without them"
        )
    retrieval = dict(config.get("retrieval") or {})
    default_k = int(retrieval.get("candidates") or max(3 * EVAL_DEPTH, 20))
    own_ks = tuple(int(s.get("k") or default_k) for s in stores)
    depth = max(depth, *own_ks)

    _, queries, qrels = load_beir(directory, split)
    if limit_queries is not None:
        queries = dict(list(queries.items())[:limit_queries])
        qrels = {qid: qrels[qid] for qid in queries}
    if not queries:
        raise RagloomError(f"{directory}: split {split!r} has no judged queries to tune on")
    cfg, target = _beir_config(
        config, Path(directory), Path(index_dir) if index_dir else None, base_dir
    )
    pm = plugin_manager or build_plugin_manager()
    pipeline = Pipeline.from_config(cfg, plugin_manager=pm, base_dir=base_dir)
    names = tuple(name for name, _ in pipeline.stores)
    lists: dict[str, list[list[Hit]]] = {}
    query_vectors: dict[str, Any] = {}
    tunable = [i for i, spec in enumerate(pipeline.config.stores) if bm25 and spec.type == "bm25"]
    configured = parse(pipeline.config.retrieval.filter)  # as retrieval applies it
    wheres = [restrict(configured, spec.filter) for spec in pipeline.config.stores]
    with pipeline:
        started = time.perf_counter()
        pipeline.index(
            allow_mass_delete=True,  # the benchmark's own index (as ragloom eval --beir)
            progress=(lambda done, total: progress("index", done, total)) if progress else None,
        )
        index_seconds = time.perf_counter() - started
        pipeline.retriever.sync()
        embedder = pipeline.retriever.embedder
        items = list(queries.items())
        for start in range(0, len(items), 64):
            batch = items[start : start + 64]
            vectors: Sequence[Any] = [None] * len(batch)
            if embedder is not None and pipeline.stores.needs_vectors:
                vectors = embedder.embed_queries([text for _, text in batch])
            for (qid, text), vector in zip(batch, vectors):
                query_vectors[qid] = vector
                per_store = []
                for where, (_, store) in zip(wheres, pipeline.stores):
                    per_store.append(
                        store.query(k=depth, **query_arguments(store, text, vector, where))
                    )
                lists[qid] = per_store
            if progress:
                progress("query", start + len(batch), len(items))

        scorers: dict[Any, _Scorer] = {}

        def lists_for(options: Options) -> Mapping[str, list[list[Hit]]]:
            """The config's own lists, or with a bm25 store asked again with
            ``options``; the last of them kept (feedback asks for one many times)."""
            if options == last[0]:
                return last[1]
            per_query = lists
            for i, tuned in enumerate(options):
                if tuned:
                    per_store = _requery(pipeline, i, dict(tuned), queries, depth, wheres[i])
                    per_query = {
                        qid: [*hits[:i], per_store[qid], *hits[i + 1 :]]
                        for qid, hits in per_query.items()
                    }
            last[:] = [options, per_query]
            return per_query

        last: list[Any] = [(), lists]

        def scorer_for(choice: FusionChoice) -> _Scorer:
            """The scorer on the lists the stores give for ``choice``: with its
            options, and with feedback the vector stores' second lists."""
            options = choice.options if any(choice.options) else ()
            if choice.feedback is None:
                if options not in scorers:
                    scorers[options] = _Scorer(lists_for(options), qrels, metric)
                return scorers[options]
            if choice not in scorers:
                fed = _fed_back(
                    pipeline, choice, lists_for(options), query_vectors, queries, depth, wheres
                )
                scorers[choice] = _Scorer(fed, qrels, metric)
            return scorers[choice]

        def score(choice: FusionChoice) -> float:
            return scorer_for(choice)(choice)

        def per_query(choice: FusionChoice) -> list[float]:
            scorer = scorer_for(choice)
            scorer(choice)
            return scorer.per_query[choice]

        def beats(candidate: FusionChoice, incumbent: FusionChoice) -> bool:
            return beats_by(per_query(candidate), per_query(incumbent), significance)

        started = time.perf_counter()
        own_method = str(retrieval.get("fusion", "rrf"))
        own_rrf_k = int(retrieval.get("rrf_k", 60))
        own_weights = tuple(float(s.get("weight", 1.0)) for s in stores)
        own_by = str(retrieval.get("fuse_by", "chunk"))
        own_feedback = pipeline.config.retrieval.feedback
        before = FusionChoice(
            own_method,
            own_rrf_k,
            own_weights,
            own_ks,
            by=own_by,
            feedback=None
            if own_feedback is None
            else (own_feedback.docs, float(own_feedback.weight)),
        )
        before_score = score(before)

        # the best search so far: each search's steps are gated by ``beats``;
        # between searches (method, unit, bm25 scope) the higher score wins, ties
        # to the earlier search (the config's own method and unit come first)
        champion, champion_score = before, before_score
        if before.feedback is not None:  # the searches run without it: like for like
            champion = replace(before, feedback=None)
            champion_score = score(champion)

        def search(options: Options) -> None:
            nonlocal champion, champion_score
            tries = [(method, by) for method in methods for by in FUSE_BY]
            tries.sort(key=lambda t: (t[0] != own_method, t[1] != own_by))  # stable
            for number, (method, by) in enumerate(tries, start=1):
                start_choice = replace(
                    before,
                    method=method,
                    weights=_normalised(own_weights),
                    options=options,
                    by=by,
                    feedback=None,  # tried last, for the best settings
                )
                found = _ascend(score, start_choice, depth, beats)
                if method not in per_method or found[1] > per_method[method][1] + 1e-12:
                    per_method[method] = found
                if found[1] > champion_score + 1e-12:
                    champion, champion_score = found
                if progress:
                    progress("search", number, len(tries))

        per_method: dict[str, tuple[FusionChoice, float]] = {}
        search(())
        if tunable:  # the fusion for the bm25 stores' other scope: it changes every score
            search(_other_scope(pipeline, tunable))
        if tunable:  # the bm25 parameters for the best fusion, then the fusion for them
            tuned = _ascend_options(score, champion, tunable, pipeline, progress, beats)
            if tuned.options != champion.options:
                champion, champion_score = tuned, score(tuned)
                search(tuned.options)
        dense = any("dense" in store.capabilities for _, store in pipeline.stores)
        if feedback and dense and embedder is not None:
            champion = _choose_feedback(
                replace(champion, feedback=before.feedback), beats, progress
            )
            champion_score = score(champion)
        elif champion.feedback != before.feedback:  # kept as configured
            champion = replace(champion, feedback=before.feedback)
            champion_score = score(champion)
        if champion_score < before_score:  # never below the config's own settings
            champion, champion_score = before, before_score
        best, best_score = champion, champion_score
    return FusionReport(
        metric=metric,
        queries=len(lists),
        stores=names,
        before=before,
        before_score=before_score,
        best=best,
        best_score=best_score,
        per_method=per_method,
        evaluations=sum(len(s.cache) for s in scorers.values()),
        seconds=time.perf_counter() - started,
        index_dir=str(target),
        index_seconds=index_seconds,
    )


def _choose_feedback(
    start: FusionChoice,
    beats: Beats,
    progress: Callable[[str, int, int], None] | None,
) -> FusionChoice:
    """``start`` with the feedback of the grid that scores best among those
    that ``beat`` it without feedback (or ``start`` as it is)."""
    plain = replace(start, feedback=None)
    best = plain
    grid = [(docs, weight) for docs in FEEDBACK_DOCS for weight in FEEDBACK_WEIGHTS]
    if start.feedback is not None and start.feedback not in grid:
        grid.append(start.feedback)  # the config's own is a candidate too
    for number, setting in enumerate(grid, start=1):
        candidate = replace(start, feedback=setting)
        if beats(candidate, plain) and (best is plain or beats(candidate, best)):
            best = candidate
        if progress:
            progress("feedback", number, len(grid))
    return best


def _fed_back(
    pipeline: Any,
    choice: FusionChoice,
    lists: Mapping[str, Sequence[Sequence[Hit]]],
    vectors: Mapping[str, Any],
    texts: Mapping[str, str],
    depth: int,
    wheres: Sequence[Any],
) -> dict[str, list[list[Hit]]]:
    """Each query's lists as the query path makes them with ``choice.feedback``:
    the first fusion of ``lists`` (each cut to its store's ``k``) with
    ``choice``'s settings, the query vector moved towards its best hits, and
    every vector store asked again with it (``depth`` hits, its filter)."""
    assert choice.feedback is not None
    docs, weight = choice.feedback
    embedder = pipeline.retriever.embedder
    stores = [store for _, store in pipeline.stores]
    dense = [i for i, store in enumerate(stores) if "dense" in store.capabilities]
    uniform = all(w == 1.0 for w in choice.weights)  # as the query path passes them
    weights = None if uniform else list(choice.weights)
    out: dict[str, list[list[Hit]]] = {}
    for qid, per_store in lists.items():
        cut = [list(hits[:k]) for hits, k in zip(per_store, choice.ks)]
        top = fuse(
            cut, method=choice.method, k=choice.rrf_k, weights=weights, limit=docs, by=choice.by
        )
        moved = feedback_vector(
            vectors[qid],
            top,
            [cut[i] for i in dense],
            by=choice.by,
            weight=weight,
            embed=embedder.embed_documents,
        )
        again = list(per_store)
        for i in dense:
            asked = query_arguments(stores[i], texts[qid], moved, wheres[i])
            again[i] = stores[i].query(k=depth, **asked)
        out[qid] = again
    return out


def _other_scope(pipeline: Any, tunable: Sequence[int]) -> Options:
    """Options setting each tunable bm25 store to the scope it is not
    configured with (chunks <-> whole documents)."""
    stores = pipeline.config.stores
    return tuple(
        (("scope", next(s for s in BM25_SCOPES if s != spec.config.scope)),) if i in tunable else ()
        for i, spec in enumerate(stores)
    )


def _ascend_options(
    score: Callable[[FusionChoice], float],
    start: FusionChoice,
    tunable: Sequence[int],
    pipeline: Any,
    progress: Callable[[str, int, int], None] | None,
    beats: Beats,
) -> FusionChoice:
    """Coordinate ascent over each bm25 store's ``scope``, then ``k1``, then
    ``b``, from the configured values, with the fusion settings of
    ``start``; a value kept only when it ``beats`` the best so far. Options
    hold only what differs from the config."""
    best = replace(start, options=start.options or ((),) * len(start.weights))
    grids: tuple[tuple[str, Sequence[float | str]], ...] = (
        ("scope", BM25_SCOPES),
        ("k1", BM25_K1S),
        ("b", BM25_BS),
    )
    steps = [(i, key, grid) for i in tunable for key, grid in grids]
    for number, (i, key, grid) in enumerate(steps, start=1):
        config = pipeline.config.stores[i].config
        for value in grid:
            options = {**best.store_options(i), key: value}
            changed = tuple(sorted((k, v) for k, v in options.items() if v != getattr(config, k)))
            candidate = replace(best, options=best.options[:i] + (changed,) + best.options[i + 1 :])
            if beats(candidate, best):
                best = candidate
        if progress:
            progress("bm25", number, len(steps))
    return best if any(best.options) else replace(best, options=())


def _requery(
    pipeline: Any,
    index: int,
    options: Mapping[str, float | str],
    queries: Mapping[str, str],
    depth: int,
    where: Any,
) -> dict[str, list[Hit]]:
    """Each query's best ``depth`` hits from store ``index`` with ``options``
    changed, asked with ``where`` (the filters its first pass used): a second
    instance of it, on the same files, read and closed again (it writes nothing)."""
    spec = pipeline.config.stores[index]
    _, store = pipeline.stores[index]
    settings = {**spec.config.model_dump(exclude_unset=True), **options}
    if "keep_index" in type(spec.config).model_fields:  # a variant keeps nothing on disk
        settings["keep_index"] = False
    config = type(spec.config)(**settings)
    variant = spec.entry.cls(config)
    variant.type_name = spec.type
    variant.open(store.context)
    try:
        return {
            qid: variant.query(text=text, k=depth, where=where) for qid, text in queries.items()
        }
    finally:
        variant.close()


def apply_choice(data: Mapping[str, Any], choice: FusionChoice) -> dict[str, Any]:
    """A copy of a config's data with ``choice`` written in: ``retrieval.fusion``
    (and ``rrf_k`` for rrf, ``fuse_by`` by document, ``feedback``), each store's ``weight``
    and ``k``, and the options tuned for a store (a bm25 store's ``scope``,
    ``k1`` and ``b``)."""
    out = copy.deepcopy(dict(data))
    stores = out.get("stores")
    if not isinstance(stores, list) or len(stores) != len(choice.weights):
        raise RagloomError(
            f"the config has {len(stores) if isinstance(stores, list) else 0} store(s), "
            f"the fusion settings are for {len(choice.weights)}"
        )
    retrieval = dict(out.get("retrieval") or {})
    retrieval["fusion"] = choice.method
    if choice.method == "rrf":
        retrieval["rrf_k"] = choice.rrf_k
    else:
        retrieval.pop("rrf_k", None)
    if choice.by == "document":
        retrieval["fuse_by"] = "document"
    else:
        retrieval.pop("fuse_by", None)
    if choice.feedback is not None:
        retrieval["feedback"] = {"docs": choice.feedback[0], "weight": choice.feedback[1]}
    else:
        retrieval.pop("feedback", None)
    out["retrieval"] = retrieval
    for i, (store, weight, k) in enumerate(zip(stores, choice.weights, choice.ks)):
        if not isinstance(store, dict):
            raise RagloomError("stores[] entries must be mappings")
        store["weight"] = float(weight)
        store["k"] = int(k)
        store.update(choice.store_options(i))
    return out
