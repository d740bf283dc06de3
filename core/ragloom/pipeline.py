"""The pipeline: index (load -> chunk -> embed -> store) and query
(transform -> retrieve from every store -> fuse -> rerank -> generate).

Every stage runs through the ``run_stage`` hook and emits a
``StageFinished`` event with its timing, so plugins can trace, time or retry
any of them.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .access import caller_filter, restrict
from .answers import NOT_FOUND, AnswerStream, checked_answer, degraded_answer, lost_in_the_middle
from .cache import AnswerCache, EmbeddingCache, fingerprint_key
from .components import Component, Context, Loader, Message, Store
from .config import PipelineConfig, load_config
from .events import Event, ProblemReported, RunFinished, RunStarted, StageCall, StageFinished
from .filters import Filter, check_supported, parse
from .fusion import fuse
from .indexing import Indexer, IndexReport, check_index_fingerprint
from .ledger import Ledger
from .types import Answer, Hit

if TYPE_CHECKING:
    import pluggy

__all__ = ["AnswerStream", "IndexReport", "Pipeline", "load"]

log = logging.getLogger("ragloom")


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
        self._embedding_cache: EmbeddingCache | None = None
        self._answer_cache: AnswerCache | None = None
        self._config_hash = fingerprint_key(config.to_dict())

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

    @property
    def embedding_cache(self) -> EmbeddingCache | None:
        """The embedding cache (``cache.embeddings``), opened on first use."""
        if self._embedding_cache is None and self.embedder is not None:
            self._embedding_cache = EmbeddingCache.configured(
                self.config.cache, self.config.base_dir
            )
        return self._embedding_cache

    @property
    def answer_cache(self) -> AnswerCache | None:
        """The answer cache (``cache.answers``, off by default), in the index directory."""
        if self._answer_cache is None:
            self._answer_cache = AnswerCache.configured(self.config.cache, self.index_dir)
        return self._answer_cache

    def close(self) -> None:
        """Close every opened component in reverse order; stores persist here."""
        for cache in (self._embedding_cache, self._answer_cache):
            if cache is not None:
                cache.close()
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
            report = Indexer(self).run(sources, dry_run=dry_run, rebuild=rebuild, progress=progress)
        except BaseException as exc:
            self._end("index", started, exc)
            raise
        self._end("index", started, documents=report.documents, chunks=report.chunks)
        return report

    def _needs_vectors(self) -> bool:
        return any("dense" in store.capabilities for _, store in self.stores)

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
        return caller_filter(self.config.access, principals)

    def _check_index_fingerprint(self) -> None:
        """Refuse to query an index built by another embedder (checked once per open)."""
        if not self._fingerprint_checked and self.embedder is not None:
            check_index_fingerprint(self.index_dir, self.embedder)
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
        ``principals`` as for ``retrieve``. With ``cache.answers`` on, an answer
        to the same question, filters, principals, corpus version and config is
        served from the cache (``answer.metadata["cached"]``); never with history."""
        started = self._begin("ask")
        try:
            self._access_filter(principals)  # refuse before touching any cache
            key = self._answer_key(question, filters, k, principals) if not history else None
            cache = self.answer_cache
            cached = cache.get(key) if key and cache is not None else None
            if cached is not None:
                self._end("ask", started, hits=len(cached.hits), cached=True)
                return cached
            hits = self._retrieve(question, filters, k, history, principals)
            answer = self._generate(question, hits, history)
            if key and cache is not None and not answer.degraded:
                cache.put(key, answer)
        except BaseException as exc:
            self._end("ask", started, exc)
            raise
        self._end("ask", started, hits=len(hits), citations=len(answer.citations))
        return answer

    def _answer_key(
        self,
        question: str,
        filters: Mapping[str, Any] | Filter | None,
        k: int | None,
        principals: Sequence[str] | None,
    ) -> str | None:
        if self.answer_cache is None:
            return None
        ledger_path = self.index_dir / "ledger.sqlite"
        if not ledger_path.exists():
            return None
        ledger = Ledger(ledger_path).open()
        try:
            version = ledger.corpus_version
        finally:
            ledger.close()
        return AnswerCache.key(
            question=question,
            corpus_version=version,
            filters=filters if filters is None or isinstance(filters, Mapping) else repr(filters),
            principals=principals,
            k=k,
            config_hash=self._config_hash,
        )

    def _ordered(self, hits: list[Hit]) -> list[Hit]:
        """The hits in the order the generator sees them (``retrieval.order``)."""
        if self.config.retrieval.order == "lost-in-the-middle":
            return lost_in_the_middle(hits)
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
            return degraded_answer(question, hits, exc)
        return checked_answer(answer, hits)

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
                    answer = degraded_answer(question, hits, exc)
                    yield "\n" + answer.text
                    yield answer
            self._end("stream", started, hits=len(hits))

        return AnswerStream(pieces(), lambda answer: checked_answer(answer, hits))


def load(
    source: str | Path | Mapping[str, Any],
    *,
    plugin_manager: pluggy.PluginManager | None = None,
    env: Mapping[str, str] | None = None,
    base_dir: Path | None = None,
) -> Pipeline:
    """Build a pipeline from a config file path or a dict (see ``Pipeline.from_config``)."""
    return Pipeline.from_config(source, plugin_manager=plugin_manager, env=env, base_dir=base_dir)
