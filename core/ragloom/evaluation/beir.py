"""BEIR-format evaluation: read a dataset folder, index its corpus with a
pipeline config, retrieve for its queries and score the run.

A BEIR folder holds ``corpus.jsonl`` (``{"_id", "title", "text", "metadata"}``),
``queries.jsonl`` (``{"_id", "text"}``) and ``qrels/<split>.tsv``
(``query-id  corpus-id  score``, with a header line).
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import QUERY_STORE_KEYS
from ..errors import RagloomError
from ..events import Event, StageFinished
from ..hookspecs import hookimpl
from .cases import measured_whole
from .metrics import Qrels, score_run

if TYPE_CHECKING:
    import pluggy

    from ..types import Hit

__all__ = ["BeirReport", "default_beir_index_dir", "evaluate_beir", "load_beir"]


log = logging.getLogger("ragloom")

_QUERY_BATCH = 64
"""Queries retrieved per ``retrieve_many`` call."""


def corpus_file(directory: str | Path) -> Path:
    """A BEIR folder's corpus: ``corpus.jsonl``, or ``corpus.jsonl.gz`` when
    only that is there."""
    root = Path(directory)
    corpus = root / "corpus.jsonl"
    if not corpus.is_file() and (root / "corpus.jsonl.gz").is_file():
        corpus = root / "corpus.jsonl.gz"
    return corpus


def load_beir(directory: str | Path, split: str = "test") -> tuple[Path, dict[str, str], Qrels]:
    """Read a BEIR dataset folder.

    :returns: the path of ``corpus.jsonl``, the queries that have judgements in
        ``qrels/<split>.tsv`` (``{query id: text}``, in the order of
        ``queries.jsonl``) and those judgements (``{query id: {doc id: grade}}``).

    The qrels file is tab-separated ``query-id corpus-id score`` with an
    optional header line; TREC's four columns (``qid 0 docid grade``) work too.
    A malformed line raises ``RagloomError`` naming the file and line. A
    query id given twice keeps its first text, as a corpus id does (logged).
    """
    corpus, queries, judged, notes = _read_beir(directory, split)
    for source, message in notes:
        log.warning("%s: %s", source, message)
    return corpus, queries, {qid: judged[qid] for qid in queries}


def _read_beir(
    directory: str | Path, split: str
) -> tuple[Path, dict[str, str], Qrels, list[tuple[str, str]]]:
    """:func:`load_beir`, with every judged query's qrels, those without a text
    too, and notes on what was read (a query id given twice)."""
    root = Path(directory)
    corpus = corpus_file(root)
    qrels_path = root / "qrels" / f"{split}.tsv"
    for needed in (corpus, root / "queries.jsonl", qrels_path):
        if not needed.is_file():
            splits = sorted(p.stem for p in (root / "qrels").glob("*.tsv"))
            hint = f" (splits here: {', '.join(splits)})" if splits and needed == qrels_path else ""
            raise RagloomError(
                f"{needed} not found{hint}: a BEIR folder holds corpus.jsonl, queries.jsonl "
                "and qrels/<split>.tsv"
            )

    qrels = _read_qrels(qrels_path)
    queries: dict[str, str] = {}
    first: dict[str, int] = {}
    twice: list[tuple[str, int, int]] = []
    queries_path = root / "queries.jsonl"
    # utf-8-sig: a byte order mark (files saved by Windows tools) is no part of the JSON
    with queries_path.open(encoding="utf-8-sig") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                qid, text = str(record["_id"]), str(record["text"])
            except (ValueError, KeyError, TypeError) as exc:
                raise RagloomError(
                    f'{queries_path}, line {number}: expected {{"_id": ..., "text": ...}} ({exc!r})'
                ) from None
            if qid in first:
                twice.append((qid, first[qid], number))
                continue
            first[qid] = number
            if qid in qrels:
                queries[qid] = text
    notes = []
    if twice:
        qid, was, again = twice[0]
        notes.append(
            (
                str(queries_path),
                f"{len(twice)} query id(s) given twice (first: {qid!r} on lines {was} and "
                f"{again}): each keeps its first text",
            )
        )
    return corpus, queries, qrels, notes


def _read_qrels(qrels_path: Path) -> Qrels:
    """A BEIR qrels file: ``{query id: {doc id: grade}}`` (see :func:`load_beir`)."""
    qrels: dict[str, dict[str, int]] = {}
    with qrels_path.open(encoding="utf-8-sig") as lines:
        for number, line in enumerate(lines, start=1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) == 4:
                parts = [parts[0], parts[2], parts[3]]
            try:
                if len(parts) != 3:
                    raise ValueError(f"{len(parts)} columns")
                grade = int(float(parts[2]))
            except ValueError as exc:
                if number == 1:
                    continue  # the header: query-id corpus-id score
                raise RagloomError(
                    f"{qrels_path}, line {number}: expected `query-id corpus-id score` ({exc})"
                ) from None
            qrels.setdefault(parts[0], {})[parts[1]] = grade
    return qrels


def default_beir_index_dir(
    config: Mapping[str, Any], directory: str | Path, base_dir: Path | None = None
) -> Path:
    """``<index_dir>/beir/<dataset>-<hash>``: a folder per dataset and indexing
    setup (chunker, embedder, stores), inside the config's own index directory
    but apart from its ledger, so evaluating never touches the project's index
    and re-running the same setup reuses its index. A store's ``weight`` and
    ``k`` only weigh and cut its hits at query time, and a ``bm25`` store's
    ``k1``, ``b``, ``method`` and ``delta`` only score the terms it holds, so
    the configs that ``ragloom tune fusion`` writes share the index of the
    config they tuned. The dataset's folder is part of the hash: two datasets
    in folders of one name get an index each."""
    stores = config.get("stores")
    if isinstance(stores, list):
        stores = [
            {key: value for key, value in store.items() if key not in _query_keys(store)}
            if isinstance(store, Mapping)
            else store
            for store in stores
        ]
    setup = {
        "chunker": config.get("chunker"),
        "embedder": config.get("embedder"),
        "stores": stores,
        # two datasets in folders of one name (data/v1/mine, data/v2/mine) are two indexes
        "dataset": str(Path(directory).resolve()),
    }
    digest = hashlib.sha256(json.dumps(setup, sort_keys=True, default=str).encode()).hexdigest()
    index_dir = Path(str(config.get("index_dir", ".ragloom"))).expanduser()
    if not index_dir.is_absolute():
        index_dir = (base_dir or Path.cwd()) / index_dir
    return index_dir / "beir" / f"{Path(directory).resolve().name}-{digest[:10]}"


_QUERY_KEYS = frozenset(QUERY_STORE_KEYS)
_BM25_QUERY_KEYS = _QUERY_KEYS | {"k1", "b", "method", "delta"}
"""A ``bm25`` store's scoring options too: it scores its stored terms with
them when it opens, so the chunks it holds are the same whatever they are."""


def _query_keys(store: Mapping[str, Any]) -> frozenset[str]:
    """The options of ``store`` that change what a query finds, not what the
    store holds: they share an index."""
    return _BM25_QUERY_KEYS if store.get("type") == "bm25" else _QUERY_KEYS


@dataclass(frozen=True)
class BeirReport:
    """What :func:`evaluate_beir` measured.

    ``metrics`` maps ``nDCG@k``, ``MRR@k``, ``Recall@k`` and ``P@k`` (for each
    ``k``) to their mean over the evaluated queries, ``standard_errors`` the same
    names to the standard error of that mean. ``index_seconds`` is the
    wall time of the index run (small when the index was up to date);
    ``query_ms`` holds each query's time: its own stages plus an equal share
    of its batch's query embedding (queries are embedded 64 at a time); ``stage_seconds`` the time
    spent per stage (``index/embed``, ``query/retrieve:bm25``...).
    """

    dataset: str
    split: str
    queries: int
    documents: int
    chunks_written: int
    indexed: int
    index_seconds: float
    query_ms: tuple[float, ...]
    metrics: Mapping[str, float]
    stage_seconds: Mapping[str, float]
    index_dir: str
    problems: tuple[tuple[str, str], ...] = ()
    run: Mapping[str, Mapping[str, float]] = field(default_factory=dict, repr=False)
    standard_errors: Mapping[str, float] = field(default_factory=dict)

    @property
    def mean_query_ms(self) -> float:
        return math.fsum(self.query_ms) / len(self.query_ms) if self.query_ms else 0.0

    def percentile_ms(self, q: float) -> float:
        """The ``q``-th percentile (0-100) of the query times, nearest rank."""
        if not self.query_ms:
            return 0.0
        ordered = sorted(self.query_ms)
        return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]

    def to_dict(self) -> dict[str, Any]:
        """Everything but the run, JSON-ready."""
        return {
            "dataset": self.dataset,
            "split": self.split,
            "queries": self.queries,
            "documents": self.documents,
            "chunks_written": self.chunks_written,
            "indexed": self.indexed,
            "metrics": {k: round(v, 6) for k, v in self.metrics.items()},
            "standard_errors": {k: round(v, 6) for k, v in self.standard_errors.items()},
            "timings": {
                "index_seconds": round(self.index_seconds, 3),
                "mean_query_ms": round(self.mean_query_ms, 3),
                "p50_query_ms": round(self.percentile_ms(50), 3),
                "p95_query_ms": round(self.percentile_ms(95), 3),
                "stages_seconds": {k: round(v, 4) for k, v in self.stage_seconds.items()},
            },
            "index_dir": self.index_dir,
            "problems": [{"source": s, "message": m} for s, m in self.problems],
        }


class _StageTimer:
    """An ``on_event`` observer summing stage times by phase, stage and component."""

    def __init__(self) -> None:
        self.phase = "index"
        self.seconds: dict[str, float] = {}

    @hookimpl
    def on_event(self, event: Event) -> None:
        if isinstance(event, StageFinished):
            key = f"{self.phase}/{event.stage}:{event.name}"
            self.seconds[key] = self.seconds.get(key, 0.0) + event.seconds


def beir_index_config(
    config: Mapping[str, Any],
    corpus: Path,
    directory: str | Path,
    index_dir: str | Path | None,
    base_dir: str | Path | None,
) -> tuple[dict[str, Any], Path]:
    """``config`` as ``ragloom eval --beir`` indexes a BEIR folder with: one
    jsonl loader over its ``corpus`` file, its own index folder (``index_dir``,
    or :func:`default_beir_index_dir`), stores without a ``path`` of their
    own, no access rules (a public benchmark corpus: nothing to restrict).
    Returns the config and the index folder."""
    cfg = copy.deepcopy(dict(config))
    target = Path(index_dir) if index_dir is not None else None
    target = target or default_beir_index_dir(cfg, directory, base_dir)
    cfg["index_dir"] = str(target.resolve())
    cfg["loaders"] = [
        {
            "type": "jsonl",
            "path": str(Path(corpus).resolve()),
            "id_field": "_id",
            "title_field": "title",
            "text_fields": ["text"],
        }
    ]
    for store in cfg.get("stores") or []:
        if isinstance(store, dict):
            store.pop("path", None)
    cfg.pop("access", None)
    return cfg, target


def evaluate_beir(
    config: Mapping[str, Any] | str | PathLike[str],
    directory: str | Path,
    split: str = "test",
    *,
    k_values: Sequence[int] = (10, 100),
    limit_queries: int | None = None,
    index_dir: str | Path | None = None,
    base_dir: Path | None = None,
    plugin_manager: pluggy.PluginManager | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> BeirReport:
    """Index a BEIR corpus with ``config`` and score its retrieval on ``split``.

    :param config: a pipeline config (a dict, as ``Pipeline.to_config()`` gives, or
        the path of a config file, whose folder relative paths resolve against);
        its ``loaders`` are replaced by one ``jsonl`` loader on the corpus
        (``id_field: _id``, ``title_field: title``, ``text_fields: [text]``), and
        its stores' ``path`` options are dropped so they live in ``index_dir``,
        and ``access`` is dropped (a benchmark corpus carries no principals).
    :param directory: the BEIR dataset folder.
    :param split: the qrels file to use, ``qrels/<split>.tsv``.
    :param k_values: the cutoffs of the metrics; the top ``max(k_values)``
        documents are retrieved per query.
    :param limit_queries: evaluate only the first this many queries.
    :param index_dir: where the index goes; default :func:`default_beir_index_dir`.
        The ledger makes a second run with the same setup only check the corpus.
    :param base_dir: what relative paths in ``config`` resolve against (default: cwd).
    :param plugin_manager: the plugins to build the pipeline from (default: a
        fresh one with the installed plugins); a stage timer is registered on
        it for the run.
    :param progress: ``progress(phase, done, total)``, phase ``index`` or ``query``.
    :returns: the metrics and timings.

    A document's score for a query is the best score of its chunks; the
    document id is the record id (``metadata.record_id``) of the chunks.
    """
    from ..pipeline import Pipeline
    from ..plugins import build_plugin_manager

    if not k_values or min(k_values) <= 0:
        raise ValueError(f"k_values must be positive cutoffs, not {tuple(k_values)}")
    if isinstance(config, (str, PathLike)):  # a config file, as ragloom.load takes one
        read = Pipeline.from_config(Path(config), plugin_manager=plugin_manager)
        config, base_dir = read.to_config(), base_dir or read.config.base_dir
    corpus, queries, judged, notes = _read_beir(directory, split)
    problems: list[tuple[str, str]] = list(notes)
    if limit_queries is not None:
        queries = dict(list(queries.items())[:limit_queries])
        qrels = {qid: judged[qid] for qid in queries}
    else:  # a judged query without a text is not answered: it scores 0, and is said
        qrels = judged
        textless = [qid for qid in judged if qid not in queries]
        if textless:
            problems.append(
                (
                    str(Path(directory) / "queries.jsonl"),
                    f"{len(textless)} judged query(ies) have no text here (first: "
                    f"{textless[0]!r}): each scores 0, as trec_eval counts a query the "
                    "run does not answer",
                )
            )

    cfg, target = beir_index_config(config, corpus, directory, index_dir, base_dir)

    pm = plugin_manager or build_plugin_manager()
    timer = _StageTimer()
    pm.register(timer, name=f"ragloom.evaluation.timer-{id(timer)}")
    try:
        pipeline = Pipeline.from_config(cfg, plugin_manager=pm, base_dir=base_dir)
        with pipeline:
            started = time.perf_counter()
            report = pipeline.index(
                allow_mass_delete=True,  # the benchmark's own: a corpus cut to a slice, say
                progress=(lambda done, total: progress("index", done, total)) if progress else None,
            )
            index_seconds = time.perf_counter() - started
            timer.phase = "query"
            depth = max(k_values)
            run: dict[str, dict[str, float]] = {}
            times: list[float] = []
            if queries:  # warm-up: lazy statistics and caches are not a query's cost
                pipeline.retrieve(next(iter(queries.values())), k=depth)
                timer.seconds = {k: v for k, v in timer.seconds.items() if k.startswith("index/")}
            # queries embedded a batch at a time (one model call per batch, not
            # per query); each query's time is its retrieval plus its share of
            # its batch's embedding
            items = list(queries.items())
            for start in range(0, len(items), _QUERY_BATCH):
                batch = items[start : start + _QUERY_BATCH]
                started = time.perf_counter()
                found = pipeline.retrieve_many([text for _, text in batch], k=depth)
                wall = (time.perf_counter() - started) * 1000
                own = [1000 * math.fsum(t.seconds for t in hits.trace) for hits in found]
                share = max(wall - math.fsum(own), 0.0) / len(batch)
                times.extend(ms + share for ms in own)
                for (qid, _), hits in zip(batch, found):
                    measured_whole(hits.degraded)
                    run[qid] = _document_scores(hits)
                if progress:
                    progress("query", start + len(batch), len(items))
            problems.extend(_unfindable(qrels, pipeline.retriever.sync(), corpus))
    finally:
        pm.unregister(timer)

    scores = score_run(run, qrels, k_values)
    return BeirReport(
        dataset=Path(directory).resolve().name,
        split=split,
        queries=len(qrels),
        documents=report.documents,
        chunks_written=report.chunks,
        indexed=len(report.added) + len(report.changed) + len(report.rewritten),
        index_seconds=index_seconds,
        query_ms=tuple(times),
        metrics={name: s.mean for name, s in scores.items()},
        standard_errors={name: s.standard_error for name, s in scores.items()},
        stage_seconds=dict(sorted(timer.seconds.items())),
        index_dir=str(target),
        problems=(*problems, *report.problems),
        run=run,
    )


def _unfindable(qrels: Qrels, view: Any, corpus: Path) -> list[tuple[str, str]]:
    """Notes on judgements no run could meet: documents judged relevant that
    are not in the index (an id's typo, qrels of another corpus version, a
    record the loader skipped), and queries with no document judged
    relevant (each scores 0). They count as trec_eval counts them; said,
    since they lower every config's score alike."""
    marker = f"{corpus.name}#"  # a record's document id: <the corpus file's path>#<its _id>
    indexed = {i.partition(marker)[2] for i in view.stamps if marker in i}
    missing = [
        (qid, doc)
        for qid, grades in qrels.items()
        for doc, grade in grades.items()
        if grade > 0 and doc not in indexed
    ]
    notes = []
    if missing and indexed:
        qid, doc = missing[0]
        notes.append(
            (
                str(corpus.parent / "qrels"),
                f"{len(missing)} relevant judgement(s) name a document not in the index "
                f"(first: {doc!r}, for query {qid!r}): no run can find them, so they lower "
                "recall and nDCG for every config alike (an id's typo, or qrels of another "
                "corpus version?)",
            )
        )
    nothing = [qid for qid, grades in qrels.items() if not any(g > 0 for g in grades.values())]
    if nothing:
        notes.append(
            (
                str(corpus.parent / "qrels"),
                f"{len(nothing)} query(ies) judge no document relevant (first: {nothing[0]!r}): "
                "each scores 0",
            )
        )
    return notes


def _document_scores(hits: Sequence[Hit]) -> dict[str, float]:
    """Hits by document (record id): each document once, with its best chunk's score."""
    scores: dict[str, float] = {}
    for hit in hits:
        doc = str(hit.chunk.metadata.get("record_id", hit.chunk.document_id))
        scores[doc] = max(scores.get(doc, hit.score), hit.score)
    return scores
