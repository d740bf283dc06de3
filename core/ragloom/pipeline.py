"""The pipeline: index (load -> chunk -> embed -> store) and query
(transform -> retrieve from every store -> fuse -> rerank -> generate).

Every stage runs through the ``run_stage`` hook and emits a
``StageFinished`` event with its timing, so plugins can trace, time or retry
any of them.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .access import access_filter, restrict
from .components import Component, Context, Loader, Message, Store
from .config import PipelineConfig, load_config
from .errors import AccessError, IndexStateError, RagloomError
from .events import Event, ProblemReported, RunFinished, RunStarted, StageCall, StageFinished
from .filters import Filter, check_supported, evaluate, parse
from .fusion import fuse
from .globs import compile_glob
from .ledger import Ledger, LedgerEntry, index_lock
from .types import Answer, Chunk, Citation, Document, Hit, content_hash

if TYPE_CHECKING:
    import pluggy

__all__ = ["AnswerStream", "IndexReport", "Pipeline", "load"]

log = logging.getLogger("ragloom")

NOT_FOUND = "I could not find information about this in the indexed documents."
INDEX_BATCH = 64  # documents per chunk/embed/upsert round


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

    @property
    def documents(self) -> int:
        return len(self.added) + len(self.changed) + self.unchanged


class AnswerStream:
    """Iterate for pieces of the answer text; ``answer`` holds the checked
    ``Answer`` once iteration ends."""

    def __init__(self, pieces: Iterator[str | Answer], finish: Callable[[Answer], Answer]) -> None:
        self._pieces = pieces
        self._finish = finish
        self.answer: Answer | None = None

    def __iter__(self) -> Iterator[str]:
        for piece in self._pieces:
            if isinstance(piece, Answer):
                self.answer = self._finish(piece)
            else:
                yield piece


class Pipeline:
    """A configured pipeline. Build with ``ragloom.load(path_or_dict)``;
    use as a context manager or call ``close()`` when done."""

    def __init__(
        self, config: PipelineConfig, *, plugin_manager: pluggy.PluginManager | None = None
    ) -> None:
        from .plugins import get_plugin_manager

        self.config = config
        self._pm = plugin_manager or get_plugin_manager()
        self.loaders: list[Loader] = [s.create() for s in config.loaders]
        self.chunker = config.chunker.create()
        self.embedder = config.embedder.create() if config.embedder else None
        self.stores: list[tuple[str, Store]] = [(s.name, s.create()) for s in config.stores]
        self.query_transformers = [s.create() for s in config.query_transformers]
        self.reranker = config.reranker.create() if config.reranker else None
        self.generator = config.generator.create()
        index_dir = Path(config.index_dir).expanduser()
        self.index_dir = index_dir if index_dir.is_absolute() else config.base_dir / index_dir
        self._opened: list[Component] = []
        self._problems: list[tuple[str, str]] = []
        self._run_id = ""
        self._fingerprint_checked = False
        access = config.access
        self._access_rules = [
            (compile_glob(r.path) if r.path else None, parse(r.match), tuple(r.principals))
            for r in (access.rules if access else [])
        ]

    # -- construction ------------------------------------------------------
    @classmethod
    def from_config(
        cls,
        source: str | Path | Mapping[str, Any],
        *,
        plugin_manager: pluggy.PluginManager | None = None,
        env: Mapping[str, str] | None = None,
        base_dir: Path | None = None,
    ) -> Pipeline:
        """Validate a config file or dict and build the pipeline (cheap: nothing opens yet)."""
        from .plugins import get_registry
        from .registry import Registry

        registry = (
            Registry.from_plugin_manager(plugin_manager) if plugin_manager else get_registry()
        )
        config = load_config(source, registry, env=env, base_dir=base_dir)
        return cls(config, plugin_manager=plugin_manager)

    def to_config(self) -> dict[str, Any]:
        """The config as a dict; ``Pipeline.from_config`` of it builds an equal pipeline."""
        return self.config.to_dict()

    # -- lifecycle ---------------------------------------------------------
    def _components(self) -> list[tuple[str, Component]]:
        named: list[tuple[str, Component]] = [
            (s.type, c) for s, c in zip(self.config.loaders, self.loaders)
        ]
        named.append((self.config.chunker.type, self.chunker))
        if self.embedder is not None:
            named.append((self.config.embedder.type, self.embedder))  # type: ignore[union-attr]
        named.extend(self.stores)
        named.extend(
            (s.type, c) for s, c in zip(self.config.query_transformers, self.query_transformers)
        )
        if self.reranker is not None:
            named.append((self.config.reranker.type, self.reranker))  # type: ignore[union-attr]
        named.append((self.config.generator.type, self.generator))
        return named

    def open(self) -> Pipeline:
        """Open every component in order (loads models, reads stores). Idempotent."""
        if self._opened:
            return self
        services = {"embedder": self.embedder} if self.embedder is not None else {}
        try:
            for name, component in self._components():
                component.open(
                    Context(
                        index_dir=self.index_dir,
                        base_dir=self.config.base_dir,
                        name=name,
                        report=self._report,
                        services=services,
                    )
                )
                self._opened.append(component)
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        """Close every opened component in reverse order; stores persist here."""
        errors = []
        while self._opened:
            component = self._opened.pop()
            try:
                component.close()
            except Exception as exc:  # close the rest, then raise the first
                errors.append(exc)
        if errors:
            raise errors[0]

    def __enter__(self) -> Pipeline:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing ----------------------------------------------------------
    def _emit(self, event: Event) -> None:
        for impl in self._pm.hook.on_event.get_hookimpls():
            try:
                impl.function(event=event)
            except Exception:  # an observer never breaks a run
                log.exception("on_event observer %s failed", impl.plugin_name)

    def _report(self, source: str, message: str) -> None:
        self._problems.append((source, message))
        self._emit(ProblemReported(self._run_id, source=source, message=message))

    def _stage(
        self,
        stage: str,
        name: str,
        component: Any,
        func: Callable[..., Any],
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        call = StageCall(stage, name, component, func, args, kwargs, self._run_id)
        started = time.perf_counter()
        try:
            result = self._pm.hook.run_stage(call=call)
        except Exception as exc:
            self._emit(
                StageFinished(
                    self._run_id,
                    stage=stage,
                    name=name,
                    seconds=time.perf_counter() - started,
                    error=repr(exc),
                )
            )
            raise
        count = len(result) if hasattr(result, "__len__") else None
        seconds = time.perf_counter() - started
        log.debug(
            "stage %s (%s): %.4fs%s",
            stage,
            name,
            seconds,
            "" if count is None else f", {count} item(s)",
        )
        self._emit(
            StageFinished(self._run_id, stage=stage, name=name, seconds=seconds, count=count)
        )
        return result

    def _begin(self, operation: str) -> float:
        self._run_id = uuid.uuid4().hex[:12]
        self._emit(RunStarted(self._run_id, operation=operation))
        return time.perf_counter()

    def _end(
        self, operation: str, started: float, error: BaseException | None = None, **stats: Any
    ) -> None:
        self._emit(
            RunFinished(
                self._run_id,
                operation=operation,
                seconds=time.perf_counter() - started,
                stats=stats,
                error=repr(error) if error else None,
            )
        )

    # -- index -------------------------------------------------------------
    def index(
        self,
        sources: Sequence[str | Path] | None = None,
        *,
        dry_run: bool = False,
        rebuild: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> IndexReport:
        """Bring every store up to date with the loaders' documents.

        Incremental: unchanged documents (same content hash, same chunker) are
        skipped; changed ones are re-chunked, re-embedded and replaced;
        documents that vanished are deleted from every store. ``sources``
        limits the run to those paths (deletions too). ``dry_run`` computes
        the diff and changes nothing; ``rebuild`` starts from empty stores.
        ``progress(done, total)`` is called as documents are processed.
        """
        started = self._begin("index")
        self._problems = []
        try:
            report = self._index(sources, dry_run=dry_run, rebuild=rebuild, progress=progress)
        except BaseException as exc:
            self._end("index", started, exc)
            raise
        self._end("index", started, documents=report.documents, chunks=report.chunks)
        return report

    def _index(
        self,
        sources: Sequence[str | Path] | None,
        *,
        dry_run: bool,
        rebuild: bool,
        progress: Callable[[int, int], None] | None,
    ) -> IndexReport:
        started = time.perf_counter()
        if not self.loaders:
            raise RagloomError(
                "no loaders are configured: add e.g. `loaders: [{type: directory, path: docs}]`"
            )
        self.open()
        with index_lock(self.index_dir):
            ledger = Ledger(self.index_dir / "ledger.sqlite").open()
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
        entries = ledger.entries()
        embedder_fp = self.embedder.fingerprint() if self.embedder is not None else None
        chunker_fp = self.chunker.fingerprint()
        if rebuild and not dry_run:
            self._wipe(entries)
            ledger.clear()
            entries = {}
        stored_fp = ledger.get_meta("embedder")
        if entries and stored_fp is not None and stored_fp != embedder_fp:
            raise IndexStateError(
                f"index {self.index_dir} was built with embedder {_describe(stored_fp)}, "
                f"the config says {_describe(embedder_fp)}: run `ragloom index --rebuild`, "
                "or keep both by setting a new `index_dir`"
            )
        rechunk = bool(entries) and ledger.get_meta("chunker") != chunker_fp
        rechunk = rechunk or rebuild  # a dry-run rebuild shows every document as changed

        loaders = [(spec.type, loader) for spec, loader in zip(self.config.loaders, self.loaders)]
        scope: list[Path] | None = None
        if sources is not None:
            scope = [self.config.base_dir / Path(s) for s in sources]
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
            for doc in self._stage("load", loader_name, loader, lambda ld=loader: list(ld.load())):
                if doc.id in seen:
                    self._report(
                        doc.source, f"two documents have the id {doc.id!r}; kept the first"
                    )
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
            elif entry.content_hash != _state_hash(doc) or rechunk:
                changed.append(doc.id)
            else:
                unchanged += 1
                continue
            todo.append(doc)

        vanished = [
            entry
            for doc_id, entry in entries.items()
            if doc_id not in seen
            and (scope is None or _in_scope(entry, scope, self.config.base_dir))
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
                problems=tuple(self._problems),
            )

        ledger.set_meta("embedder", embedder_fp)
        ledger.set_meta("chunker", chunker_fp)
        chunks_written = 0
        if progress:
            progress(0, len(todo))
        for start in range(0, len(todo), INDEX_BATCH):
            batch = todo[start : start + INDEX_BATCH]
            chunks_written += self._index_batch(batch, entries, ledger)
            if progress:
                progress(min(start + INDEX_BATCH, len(todo)), len(todo))

        for entry in vanished:
            for name, store in self.stores:
                if entry.chunk_ids:
                    self._stage("delete", name, store, store.delete, ids=list(entry.chunk_ids))
            ledger.remove(entry.id)

        for name, store in self.stores:
            self._stage("flush", name, store, store.flush)
        version = ledger.bump_version()
        return IndexReport(
            added=tuple(added),
            changed=tuple(changed),
            deleted=tuple(e.id for e in vanished),
            unchanged=unchanged,
            chunks=chunks_written,
            seconds=time.perf_counter() - started,
            corpus_version=version,
            problems=tuple(self._problems),
        )

    def _index_batch(
        self, batch: list[Document], entries: Mapping[str, LedgerEntry], ledger: Ledger
    ) -> int:
        per_doc: list[tuple[Document, list[Chunk]]] = []
        for doc in batch:
            chunks = self._stage(
                "chunk", self.config.chunker.type, self.chunker, self.chunker.split, doc
            )
            per_doc.append((doc, chunks))
        chunks = [c for _, cs in per_doc for c in cs]
        vectors = None
        if self.embedder is not None and chunks and self._needs_vectors():
            vectors = self._stage(
                "embed",
                self.config.embedder.type,
                self.embedder,  # type: ignore[union-attr]
                self.embedder.embed_documents,
                [c.text for c in chunks],
            )
        new_ids = {c.id for c in chunks}
        stale = [
            cid
            for doc, _ in per_doc
            if doc.id in entries
            for cid in entries[doc.id].chunk_ids
            if cid not in new_ids
        ]
        for name, store in self.stores:
            if stale:
                self._stage("delete", name, store, store.delete, ids=stale)
            if chunks:
                dense = "dense" in store.capabilities
                self._stage("upsert", name, store, store.upsert, chunks, vectors if dense else None)
        for doc, doc_chunks in per_doc:  # after every store holds the chunks
            ledger.put(doc.id, doc.source, _state_hash(doc), [c.id for c in doc_chunks])
        return len(chunks)

    def _label(self, doc: Document) -> Document:
        """``doc`` with the principals of every matching ``access.rules`` entry
        added to its access field."""
        if not self._access_rules:
            return doc
        field = self.config.access.field  # type: ignore[union-attr]
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

    def _needs_vectors(self) -> bool:
        return any("dense" in store.capabilities for _, store in self.stores)

    def _wipe(self, entries: Mapping[str, LedgerEntry]) -> None:
        ids = [cid for entry in entries.values() for cid in entry.chunk_ids]
        for name, store in self.stores:
            if ids:
                self._stage("delete", name, store, store.delete, ids=ids)
            leftover = store.count()
            if leftover:
                self._stage(
                    "delete",
                    name,
                    store,
                    store.delete,
                    where=parse({"document_id": {"$exists": True}}),
                )

    # -- query -------------------------------------------------------------
    def retrieve(
        self,
        question: str,
        filters: Mapping[str, Any] | Filter | None = None,
        k: int | None = None,
        *,
        history: Sequence[Message] = (),
        principals: Sequence[str] | None = None,
    ) -> list[Hit]:
        """The best ``k`` hits for ``question`` from every store, fused and reranked.

        ``principals`` (user and group ids) limits the hits to chunks they may
        read, inside every store; required when the config has ``access:``.
        """
        started = self._begin("retrieve")
        try:
            hits = self._retrieve(question, filters, k, history, principals)
        except BaseException as exc:
            self._end("retrieve", started, exc)
            raise
        self._end("retrieve", started, hits=len(hits))
        return hits

    def _retrieve(
        self,
        question: str,
        filters: Mapping[str, Any] | Filter | None,
        k: int | None,
        history: Sequence[Message],
        principals: Sequence[str] | None = None,
    ) -> list[Hit]:
        where = restrict(parse(filters), parse(self.config.retrieval.filter))
        where = restrict(where, self._access_filter(principals))
        for name, store in self.stores:  # refuse before any store runs
            check_supported(where, store.filter_operators, name)
        self.open()
        self._check_index_fingerprint()
        settings = self.config.retrieval
        k = k or settings.k
        candidates = settings.candidates or max(3 * k, 20)

        queries = [question]
        for spec, transformer in zip(self.config.query_transformers, self.query_transformers):
            rewritten: list[str] = []
            for q in queries:
                rewritten.extend(
                    self._stage(
                        "transform", spec.type, transformer, transformer.transform, q, history
                    )
                )
            queries = list(dict.fromkeys(rewritten)) or queries

        lists: list[list[Hit]] = []
        weights: list[float] = []
        for q in queries:
            vector = None
            if self.embedder is not None and self._needs_vectors():
                vector = self._stage(
                    "embed_query",
                    self.config.embedder.type,  # type: ignore[union-attr]
                    self.embedder,
                    self.embedder.embed_query,
                    q,
                )
            for spec, (name, store) in zip(self.config.stores, self.stores):
                kwargs: dict[str, Any] = {"k": spec.k or candidates, "where": where}
                if "dense" in store.capabilities:
                    kwargs["vector"] = vector
                if "text" in store.capabilities:
                    kwargs["text"] = q
                lists.append(self._stage("retrieve", name, store, store.query, **kwargs))
                weights.append(spec.weight)

        uniform = all(w == 1.0 for w in weights)
        fused = self._stage(
            "fuse",
            settings.fusion,
            None,
            fuse,
            lists,
            method=settings.fusion,
            k=settings.rrf_k,
            weights=None if uniform else weights,
        )[:k]
        if self.reranker is not None and fused:
            fused = self._stage(
                "rerank",
                self.config.reranker.type,  # type: ignore[union-attr]
                self.reranker,
                self.reranker.rerank,
                question,
                fused,
                None,
            )
        return list(fused)

    def _access_filter(self, principals: Sequence[str] | None) -> Filter | None:
        access = self.config.access
        if principals is None:
            if access is not None:
                raise AccessError(
                    "this pipeline enforces access control (`access:` in its config): "
                    "pass principals=[...] with the caller's user and group ids "
                    "(an empty list reads only what is public)"
                )
            return None
        if isinstance(principals, str):
            raise TypeError("principals must be a list of ids, not one string")
        if access is None:  # no ACL configured: unlabelled chunks are public
            return access_filter(principals, unlabeled="public")
        return access_filter(principals, field=access.field, unlabeled=access.unlabeled)

    def _check_index_fingerprint(self) -> None:
        """Refuse to query an index built by another embedder (checked once per open)."""
        if self._fingerprint_checked or self.embedder is None:
            return
        path = self.index_dir / "ledger.sqlite"
        if path.exists():
            ledger = Ledger(path).open()
            try:
                stored = ledger.get_meta("embedder")
            finally:
                ledger.close()
            current = self.embedder.fingerprint()
            if stored is not None and stored != current:
                raise IndexStateError(
                    f"index {self.index_dir} was built with embedder {_describe(stored)}, "
                    f"the config says {_describe(current)}: querying it would compare "
                    "vectors from different models; run `ragloom index --rebuild`"
                )
        self._fingerprint_checked = True

    def ask(
        self,
        question: str,
        filters: Mapping[str, Any] | Filter | None = None,
        history: Sequence[Message] = (),
        *,
        k: int | None = None,
        principals: Sequence[str] | None = None,
    ) -> Answer:
        """Retrieve, then generate an answer that cites only the hits it was given.
        ``principals`` as for ``retrieve``."""
        started = self._begin("ask")
        try:
            hits = self._retrieve(question, filters, k, history, principals)
            answer = self._generate(question, hits, history)
        except BaseException as exc:
            self._end("ask", started, exc)
            raise
        self._end("ask", started, hits=len(hits), citations=len(answer.citations))
        return answer

    def _ordered(self, hits: list[Hit]) -> list[Hit]:
        """The hits in the order the generator sees them (``retrieval.order``)."""
        if self.config.retrieval.order == "lost-in-the-middle":
            return _lost_in_the_middle(hits)
        return hits

    def _generate(self, question: str, hits: list[Hit], history: Sequence[Message]) -> Answer:
        if not hits:
            return Answer(question=question, text=NOT_FOUND, grounded=False)
        hits = self._ordered(hits)
        try:
            answer = self._stage(
                "generate",
                self.config.generator.type,
                self.generator,
                self.generator.generate,
                question,
                hits,
                history,
            )
        except Exception as exc:
            log.warning("generator failed: %r; answering with the best passages", exc)
            return _degraded(question, hits, exc)
        return _checked(answer, hits)

    def stream(
        self,
        question: str,
        filters: Mapping[str, Any] | Filter | None = None,
        history: Sequence[Message] = (),
        *,
        k: int | None = None,
        principals: Sequence[str] | None = None,
    ) -> AnswerStream:
        """Like ``ask`` but yields the answer text as it is generated. Retrieval
        happens here; generation as the stream is iterated. The run's
        ``RunFinished`` event is emitted when the stream ends."""
        started = self._begin("stream")
        try:
            hits = self._retrieve(question, filters, k, history, principals)
        except BaseException as exc:
            self._end("stream", started, exc)
            raise

        hits = self._ordered(hits)

        def pieces() -> Iterator[str | Answer]:
            if not hits:
                answer = Answer(question=question, text=NOT_FOUND, grounded=False)
                yield answer.text
                yield answer
            else:
                try:
                    yield from self.generator.stream(question, hits, history)
                except Exception as exc:
                    log.warning("generator failed: %r; answering with the best passages", exc)
                    answer = _degraded(question, hits, exc)
                    yield "\n" + answer.text
                    yield answer
            self._end("stream", started, hits=len(hits))

        return AnswerStream(pieces(), lambda answer: _checked(answer, hits))


def _checked(answer: Answer, hits: Sequence[Hit]) -> Answer:
    """Drop citations of chunks the generator was not given, and their ``[n]``
    markers from the text; attach the hits."""
    given = {h.chunk.id for h in hits}
    kept = tuple(c for c in answer.citations if c.chunk_id in given)
    text = answer.text
    if len(kept) != len(answer.citations):
        dropped = {c.number for c in answer.citations if c.chunk_id not in given}
        log.warning("dropped %d citation(s) of chunks not given to the generator", len(dropped))
        text = re.sub(
            r"\s?\[(\d+)\]", lambda m: "" if int(m.group(1)) in dropped else m.group(0), text
        )
    return replace(answer, text=text, citations=kept, hits=tuple(hits))


def _degraded(question: str, hits: Sequence[Hit], exc: Exception) -> Answer:
    best = list(hits[:3])
    lines = [
        f"The answer could not be generated ({type(exc).__name__}: {exc}). "
        "The most relevant passages are:"
    ]
    citations = []
    for number, hit in enumerate(best, start=1):
        snippet = " ".join(hit.chunk.text.split())[:300]
        lines.append(f"[{number}] {snippet}")
        citations.append(Citation(number, hit.chunk.id, hit.chunk.label, hit.chunk.source, snippet))
    return Answer(
        question=question,
        text="\n".join(lines),
        citations=tuple(citations),
        hits=tuple(hits),
        grounded=True,
        degraded=True,
    )


def _describe(fingerprint: Any) -> str:
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


def load(
    source: str | Path | Mapping[str, Any],
    *,
    plugin_manager: pluggy.PluginManager | None = None,
    env: Mapping[str, str] | None = None,
    base_dir: Path | None = None,
) -> Pipeline:
    """Build a pipeline from a config file path or a dict (see ``Pipeline.from_config``)."""
    return Pipeline.from_config(source, plugin_manager=plugin_manager, env=env, base_dir=base_dir)


VOLATILE_METADATA = frozenset({"mtime", "path", "size"})


def _state_hash(doc: Document) -> str:
    """What decides whether a document must be re-indexed: its text and its
    metadata (but not where the file sits or when it was touched)."""
    import json

    meta = {k: v for k, v in doc.metadata.items() if k not in VOLATILE_METADATA}
    return content_hash(doc.hash + json.dumps(meta, sort_keys=True, default=str))


def _lost_in_the_middle(hits: list[Hit]) -> list[Hit]:
    """Best hits at both edges, weakest in the middle: 1 3 5 ... 6 4 2."""
    return hits[0::2] + hits[1::2][::-1]
