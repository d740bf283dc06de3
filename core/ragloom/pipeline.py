"""The pipeline: index (load -> chunk -> embed -> store) and query
(transform -> retrieve from every store -> fuse -> rerank -> generate).

A ``Pipeline`` holds the configuration and the open components; each call
(``index``, ``retrieve``, ``ask``, ``stream``) gets its own ``Run`` (its id,
problems, stages and events), so one pipeline serves many threads. Every
stage runs through the ``run_stage`` hook and emits a ``StageFinished``
event with its timing, so plugins can trace, time or retry any of them.

Queries answer from one committed corpus version (``state.View``): before a
query, the pipeline notices cheaply whether another process committed an
index run and, if so, refreshes its stores and moves to the new version; a
chunk that is not the committed version of its document is never returned.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .access import caller_filter
from .answering import Answerer
from .answers import (
    AnswerStream,
    AsyncAnswerStream,
)
from .cache import AnswerCache, EmbeddingCache, fingerprint_key
from .components import Component, Context, Loader, Message
from .config import PipelineConfig, load_config
from .errors import InvalidRequestError
from .filters import Filter, fields, parse
from .indexing import Indexer, IndexReport
from .retrieval import Retriever
from .runs import Run, current_run
from .state import IndexState
from .storeset import StoreSet
from .types import MAX_K, Answer, Hits

if TYPE_CHECKING:
    import pluggy

    from .status import IndexStatus

__all__ = ["AnswerStream", "IndexReport", "Pipeline", "load"]

log = logging.getLogger("ragloom")


class Pipeline:
    """A configured pipeline. Build with ``ragloom.load(path_or_dict)``;
    use as a context manager or call ``close()`` when done.

    Thread-safe: any number of threads may query one pipeline while another
    indexes; queries see one committed corpus version each. Components must
    allow concurrent queries (the built-in ones do).
    """

    def __init__(
        self, config: PipelineConfig, *, plugin_manager: pluggy.PluginManager | None = None
    ) -> None:
        from .plugins import get_plugin_manager

        self.config = config
        self._pm = plugin_manager or get_plugin_manager()
        self.loaders: list[Loader] = [s.create() for s in config.loaders]
        self.chunker = config.chunker.create()
        self.embedder = config.embedder.create() if config.embedder else None
        self.query_transformers = [s.create() for s in config.query_transformers]
        self.reranker = config.reranker.create() if config.reranker else None
        self.generator = config.generator.create()
        index_dir = Path(config.index_dir).expanduser()
        self.index_dir = index_dir if index_dir.is_absolute() else config.base_dir / index_dir
        self.state = IndexState(self.index_dir)
        self.stores = StoreSet(config.stores, self._store_context)
        self.answerer = Answerer(config=config, generator=self.generator)
        self.retriever = Retriever(
            config=config,
            embedder=self.embedder,
            stores=self.stores,
            query_transformers=self.query_transformers,
            reranker=self.reranker,
            state=self.state,
        )
        self._opened: list[Component] = []
        self._query_open = False  # the reranker and query transformers (``open(query=...)``)
        self._code: str | None = None  # ragloom.reads.code_digest, taken by open()
        self._lock = threading.RLock()  # lifecycle, caches
        self._embedding_cache: EmbeddingCache | None = None
        self._answer_cache: AnswerCache | None = None
        self._said_read_only = False
        self._executor: ThreadPoolExecutor | None = None
        self.async_workers = 8
        self._config_hash = fingerprint_key(config.to_dict())
        access_field = {config.access.field} if config.access is not None else set()
        self._filter_fields = frozenset(
            {"document_id", *access_field, *fields(parse(config.retrieval.filter))}
        )

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
        """Every component but the stores and those only queries use (see
        ``_query_components``), those others use (the embedder, the
        generator) first."""
        c = self.config
        named: list[tuple[str, Component]] = []
        if self.embedder is not None and c.embedder is not None:
            named.append((c.embedder.type, self.embedder))
        if self._generator_indexes():
            named.append((c.generator.type, self.generator))
        named.extend((s.type, ld) for s, ld in zip(c.loaders, self.loaders))
        named.append((c.chunker.type, self.chunker))
        return named

    def _generator_indexes(self) -> bool:
        """Whether a component an index run uses declares the generator in
        its ``needs`` (a chunker that asks a model): else the generator opens
        with the query components (an LLM's model is not loaded by every
        cron run, nor does one that cannot load stop it)."""
        used = [*self.loaders, self.chunker, *(store for _, store in self.stores)]
        if self.embedder is not None:
            used.append(self.embedder)
        return any("generator" in type(c).needs_for(c.config) for c in used)

    def _query_components(self) -> list[tuple[str, Component]]:
        """The components only queries use: the generator (unless an index
        run's component needs it), the query transformers and the reranker.
        An index run opens none of them (a cross-encoder's or an LLM's model
        is not loaded by every cron run, nor one that cannot be loaded
        stops it)."""
        c = self.config
        named: list[tuple[str, Component]] = []
        if not self._generator_indexes():  # first: query transformers may use it
            named.append((c.generator.type, self.generator))
        named.extend((s.type, q) for s, q in zip(c.query_transformers, self.query_transformers))
        if self.reranker is not None and c.reranker is not None:
            named.append((c.reranker.type, self.reranker))
        return named

    def _store_context(self, name: str, fresh: bool = False) -> Context:
        """A store's context: with its own ``filter:`` from the config."""
        own = next((s.filter for s in self.config.stores if s.name == name), None)
        return self._context(name, fresh, own)

    def _context(self, name: str, fresh: bool = False, own: Filter | None = None) -> Context:
        services: dict[str, Any] = {
            "generator": self.generator,
            # what each loader reads (its `path:`): a folder's loader does not
            # call a file another loader indexes left out
            "loader_paths": tuple(
                Path(self.config.base_dir, path).absolute()
                for spec in self.config.loaders
                if isinstance(path := getattr(spec.config, "path", None), str) and path
            ),
        }
        if self.embedder is not None:
            services["embedder"] = self.embedder
        return Context(
            index_dir=self.index_dir,
            base_dir=self.config.base_dir,
            name=name,
            report=_report,
            services=services,
            fresh=fresh,
            filter_fields=self._filter_fields | fields(own),
            filter=own,
            keep=_keep,
            unchanged=_unchanged,
            read=_read,
        )

    def open(self, *, query: bool = True) -> Pipeline:
        """Open every component (loads models, reads stores). Idempotent and
        thread-safe. A store that cannot be opened (an unreadable file) fails
        the first query or index run that uses it, not this; ``index(rebuild=True)``
        starts it afresh. ``query=False`` leaves closed the components only
        queries use (the reranker, the query transformers), as ``index()``
        opens it: the first query opens them."""
        with self._lock:
            if not self._opened:
                try:
                    from .reads import code_digest

                    # the code that reads files, as loaded now (an upgrade in place
                    # while the pipeline is open is not this process's code)
                    self._code = code_digest()
                    for name, component in self._components():
                        component.open(self._context(name))
                        self._opened.append(component)
                    with self.state.lock.write():
                        self.stores.open()
                except BaseException:
                    self.close()
                    raise
            if query and not self._query_open:
                opened: list[Component] = []
                try:
                    for name, component in self._query_components():
                        component.open(self._context(name))
                        opened.append(component)
                except BaseException:
                    # the rest stays open (an index run beside this needs it)
                    for component in reversed(opened):
                        with contextlib.suppress(Exception):
                            component.close()
                    raise
                self._opened.extend(opened)
                self._query_open = True
        return self

    def catch_up(self) -> bool:
        """Move now to an index version another process committed, and let
        the stores build what they build lazily (the ``bm25`` index), rather
        than in the first query that follows: a long-lived process calls it
        from a timer (``ragloom serve`` and ``ragloom mcp`` do, every
        ``--watch-interval`` seconds). True when it moved to another version.
        Queries that arrive meanwhile wait for the move, as they would have.
        A pipeline not open (or closed) is left so: False. Not to be called
        beside ``close``."""
        if not self._opened:
            return False
        return self.retriever.catch_up()

    def status(self) -> IndexStatus:
        """What the index holds and whether a query would answer from it now
        (``ragloom status``): the committed version, its documents and chunks,
        each store's count and location, an index run under way or stopped,
        the refusal a query would get, and what the next index run will do
        beyond indexing changes. Opens the pipeline; writes nothing."""
        from .status import index_status

        self.open()  # what a query opens: a reranker that cannot load is said here
        return index_status(self)

    @property
    def embedding_cache(self) -> EmbeddingCache | None:
        """The embedding cache (``cache.embeddings``), opened on first use."""
        with self._lock:
            if self._embedding_cache is None and self.embedder is not None:
                self._embedding_cache = EmbeddingCache.configured(
                    self.config.cache, self.config.base_dir
                )
            return self._embedding_cache

    @property
    def answer_cache(self) -> AnswerCache | None:
        """The answer cache (``cache.answers``, off by default), in the index
        directory; none on an index on a read-only file system, where it could
        not be written (said once in the log)."""
        with self._lock:
            if self._answer_cache is None and self.config.cache.answers:
                if self.retriever.state.read_only:
                    if not self._said_read_only:
                        self._said_read_only = True
                        log.warning(
                            "cache.answers is off: index_dir %s lies on a read-only file system",
                            self.index_dir,
                        )
                    return None
                self._answer_cache = AnswerCache.configured(self.config.cache, self.index_dir)
            return self._answer_cache

    def close(self) -> None:
        """Close the stores (they persist here) and every opened component, in
        reverse order."""
        with self._lock:
            if self._executor is not None:
                self._executor.shutdown(wait=True)
                self._executor = None
            self.retriever.close()
            for cache in (self._embedding_cache, self._answer_cache):
                if cache is not None:
                    cache.close()
            with self.state.lock.write():
                errors = self.stores.close()
            self._query_open = False
            while self._opened:
                component = self._opened.pop()
                try:
                    component.close()
                except Exception as exc:  # close the rest, then raise the first
                    errors.append(exc)
            self.state.forget()
        if errors:
            raise errors[0]

    def __enter__(self) -> Pipeline:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, operation: str) -> Run:
        """A new ``Run`` for one call (emits ``RunStarted``)."""
        return Run(operation, self._pm)

    # -- async -------------------------------------------------------------
    @property
    def executor(self) -> ThreadPoolExecutor:
        """The bounded thread pool the async methods run in (``async_workers``
        threads, 8 by default), so an event loop never blocks on a model call
        or a store query."""
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=self.async_workers, thread_name_prefix="ragloom"
                )
            return self._executor

    async def _in_pool(self, func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        import asyncio
        import contextvars
        import functools

        call = functools.partial(contextvars.copy_context().run, func, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self.executor, call)

    async def aretrieve(self, question: str, *args: Any, **kwargs: Any) -> Hits:
        """``retrieve`` without blocking the event loop (same arguments)."""
        return await self._in_pool(self.retrieve, question, *args, **kwargs)

    async def aask(self, question: str, *args: Any, **kwargs: Any) -> Answer:
        """``ask`` without blocking the event loop (same arguments)."""
        return await self._in_pool(self.ask, question, *args, **kwargs)

    async def aindex(self, *args: Any, **kwargs: Any) -> IndexReport:
        """``index`` without blocking the event loop (same arguments)."""
        return await self._in_pool(self.index, *args, **kwargs)

    def astream(self, question: str, *args: Any, **kwargs: Any) -> AsyncAnswerStream:
        """``stream`` as an async iterator of text pieces (``async for``);
        retrieval and generation run in the thread pool; ``.answer`` holds the
        checked answer at the end."""
        return AsyncAnswerStream(lambda: self.stream(question, *args, **kwargs), self.executor)

    # -- index -------------------------------------------------------------
    def index(
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
        """Bring every store up to date with the loaders' documents.

        Incremental: unchanged documents (same content hash, same chunker) are
        skipped, and a file unchanged since it was indexed (its ``stat``, and
        ragloom, its readers and the config as they were) is not even read
        (``ragloom.reads``; ``reread`` reads every file); changed ones are
        re-chunked, re-embedded and replaced;
        documents that vanished are deleted from every store. ``sources``
        limits the run to those paths (deletions too). ``dry_run`` computes
        the diff and changes nothing; ``rebuild`` starts from empty stores and
        a new ledger, whatever state they were in; ``repair`` brings stores
        that disagree with the ledger back in line. A run that would delete
        more than ``indexing.max_delete_share`` of the documents is refused
        unless ``allow_mass_delete``. ``progress(done, total)`` is called as
        documents are processed (after each batch, wherever the executor ran
        it); a callback taking a third argument gets the chunks written so
        far too: ``progress(done, total, chunks)``. A loader whose whole source is unavailable
        keeps its documents and is listed in ``report.errors``.
        """
        run = self.run("index")
        try:
            with run.active():
                self.open(query=False)
                indexer = Indexer(
                    config=self.config,
                    loaders=self.loaders,
                    chunker=self.chunker,
                    embedder=self.embedder,
                    stores=self.stores,
                    state=self.state,
                    run=run,
                    embedding_cache=self.embedding_cache,
                    code=self._code,
                )
                report = indexer.run(
                    sources,
                    dry_run=dry_run,
                    rebuild=rebuild,
                    repair=repair,
                    allow_mass_delete=allow_mass_delete,
                    progress=progress,
                    reread=reread,
                )
        except BaseException as exc:
            run.finish(exc)
            raise
        run.finish(documents=report.documents, chunks=report.chunks)
        return report

    # -- query -------------------------------------------------------------
    def retrieve(
        self,
        question: str,
        filters: Mapping[str, Any] | Filter | None = None,
        k: int | None = None,
        *,
        history: Sequence[Message] = (),
        principals: Sequence[str] | None = None,
        explain: bool = False,
    ) -> Hits:
        """The best ``k`` hits for ``question`` from every store, fused and reranked,
        all from one committed corpus version (``hits.corpus_version``).

        ``principals`` (user and group ids) limits the hits to chunks they may
        read, inside every store; required when the config has ``access:``.
        ``explain`` attaches ``hits.explanation``: each hit's rank and score in
        every store, after fusion and after reranking, and the filters applied.
        ``hits.trace`` holds the stages' timings.
        """
        question = _check_question(question)
        k = _check_k(k)
        history = _check_history(history)
        run = self.run("retrieve")
        try:
            with run.active():
                hits = self._retrieve(
                    run, question, filters, k, history, principals, explain=explain
                )
        except BaseException as exc:
            run.finish(exc)
            raise
        run.finish(hits=len(hits), corpus_version=hits.corpus_version)
        return hits

    def retrieve_many(
        self,
        questions: Sequence[str],
        filters: Mapping[str, Any] | Filter | None = None,
        k: int | None = None,
        *,
        principals: Sequence[str] | None = None,
    ) -> list[Hits]:
        """``retrieve`` for each of ``questions`` (same filters, ``k`` and
        principals), with the questions embedded in batches rather than one
        call each: for evaluations and bulk lookups. One run each, as
        ``retrieve``; each ``Hits`` has its own corpus version."""
        questions = list(questions)
        questions = [_check_question(question) for question in questions]
        k = _check_k(k)
        self.open()
        vectors: Sequence[Any] = [None] * len(questions)
        embedder = self.retriever.embedder
        if (
            questions
            and embedder is not None
            and self.retriever.stores.needs_vectors
            and not self.query_transformers
        ):
            run = self.run("embed_queries")
            try:
                with run.active():
                    vectors = run.stage(
                        "embed_query",
                        self.config.embedder.type,  # type: ignore[union-attr]
                        embedder,
                        embedder.embed_queries,
                        questions,
                    )
            except BaseException as exc:
                run.finish(exc)
                raise
            run.finish(queries=len(questions))
        results = []
        for question, vector in zip(questions, vectors):
            run = self.run("retrieve")
            try:
                with run.active():
                    hits = self.retriever.retrieve(
                        run, question, filters, k, (), principals, vector=vector
                    )
            except BaseException as exc:
                run.finish(exc)
                raise
            run.finish(hits=len(hits), corpus_version=hits.corpus_version)
            results.append(hits)
        return results

    def _retrieve(
        self,
        run: Run,
        question: str,
        filters: Mapping[str, Any] | Filter | None,
        k: int | None,
        history: Sequence[Message],
        principals: Sequence[str] | None,
        *,
        explain: bool = False,
    ) -> Hits:
        self.open()
        return self.retriever.retrieve(
            run, question, filters, k, history, principals, explain=explain
        )

    def _access_filter(self, principals: Sequence[str] | None) -> Filter | None:
        return caller_filter(self.config.access, principals)

    def ask(
        self,
        question: str,
        filters: Mapping[str, Any] | Filter | None = None,
        history: Sequence[Message] = (),
        *,
        k: int | None = None,
        principals: Sequence[str] | None = None,
        trace: bool = False,
    ) -> Answer:
        """Retrieve, then generate an answer that cites only the hits it was given.
        ``principals`` as for ``retrieve``. With ``cache.answers`` on, an answer
        to the same question, filters, principals, corpus version and config is
        served from the cache (``answer.metadata["cached"]``); never with history.
        ``answer.metadata["corpus_version"]`` is the version it was drawn from;
        with ``trace``, ``answer.metadata["trace"]`` lists every stage's timing."""
        question = _check_question(question)
        k = _check_k(k)
        history = _check_history(history)
        run = self.run("ask")
        try:
            with run.active():
                answer = self._ask(run, question, filters, history, k, principals)
                if trace:
                    answer = replace(
                        answer, metadata={**answer.metadata, "trace": tuple(run.timings)}
                    )
        except BaseException as exc:
            run.finish(exc)
            raise
        run.finish(
            hits=len(answer.hits),
            citations=len(answer.citations),
            cached=bool(answer.metadata.get("cached")),
        )
        return answer

    def _ask(
        self,
        run: Run,
        question: str,
        filters: Mapping[str, Any] | Filter | None,
        history: Sequence[Message],
        k: int | None,
        principals: Sequence[str] | None,
    ) -> Answer:
        self._access_filter(principals)  # refuse before touching any cache
        cache = self.answer_cache if not history else None
        view = self.retriever.sync() if cache is not None else None
        if view is None or not view.stamped:
            # (not stamped: an older ragloom committed this version, and may have
            # cached answers from documents this one screens out; none is read or
            # cached until this version indexes again)
            hits = self._retrieve(run, question, filters, k, history, principals)
            return self.answerer.generate(run, question, hits, history)
        assert cache is not None
        key = AnswerCache.key(
            question=question,
            corpus_version=view.version,
            index_id=view.index_id,
            commit=view.commit,
            filters=filters if filters is None or isinstance(filters, Mapping) else repr(filters),
            principals=principals,
            k=k,
            config_hash=self._config_hash,
        )
        cached = cache.get(key)
        if cached is not None:
            return cached
        hits = self._retrieve(run, question, filters, k, history, principals)
        answer = self.answerer.generate(run, question, hits, history)
        if (
            not answer.degraded
            and not hits.degraded  # a reranker that failed once is asked again next time
            and (hits.index_id, hits.corpus_version) == view.key
        ):
            cache.put(key, answer)  # only under the version the key names
        return answer

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
        happens here; generation (the ``generate`` stage, whose result is the
        generator's iterator of pieces) as the stream is iterated. The run's
        ``RunFinished`` event is emitted when the stream ends, is closed, or the
        caller stops iterating early."""
        question = _check_question(question)
        k = _check_k(k)
        history = _check_history(history)
        run = self.run("stream")
        try:
            with run.active():
                hits = self._retrieve(run, question, filters, k, history, principals)
        except BaseException as exc:
            run.finish(exc)
            raise
        return self.answerer.stream(run, question, hits, history)


def _report(source: str, message: str) -> None:
    """``Context.report`` of every component: into the calling thread's run."""
    run = current_run.get()
    if run is not None:
        run.report(source, message)
    else:
        log.warning("%s: %s", source, message)


def _keep(source: str) -> None:
    run = current_run.get()
    if run is not None:
        run.keep(source)


def _unchanged(source: str, stamp: str | None) -> bool:
    """``Context.unchanged``: asked of the calling thread's index run."""
    run = current_run.get()
    reads = getattr(run, "reads", None)
    return reads is not None and reads.unchanged(source, stamp)


def _read(source: str, stamp: str | None) -> None:
    """``Context.read``: told to the calling thread's index run."""
    run = current_run.get()
    reads = getattr(run, "reads", None)
    if reads is not None:
        reads.read(source, stamp)


def _check_question(question: Any) -> str:
    """``question`` as text every component takes (see :func:`_as_text`), or
    an InvalidRequestError when it is no string or nothing but whitespace."""
    if not isinstance(question, str):
        raise InvalidRequestError(f"the question must be a string, not {type(question).__name__}")
    if not question.strip():
        raise InvalidRequestError("the question is empty: ask something")
    return _as_text(question)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _as_text(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD: what Python makes
    of bytes that are not UTF-8 in a command line or a terminal's input set to
    UTF-8 (``caf\\xe9`` typed in Latin-1), and what a JSON body may escape
    (``"\\udce9"``). No tokenizer takes them (the embedder failed with a
    ``TypeError``), and no text that a document holds contains them."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


HISTORY_ROLES = ("user", "assistant", "system", "developer", "tool")
"""The roles a ``history`` message may have (chat APIs' own); generators
and query transformers read the ``user`` and ``assistant`` turns."""


def _check_history(history: Any) -> tuple[Message, ...]:
    """``history`` as a tuple of ``{"role", "content"}`` dicts (copies), or an
    InvalidRequestError naming the first message that is not one."""
    if history is None:
        return ()
    if isinstance(history, (str, bytes, Mapping)) or not isinstance(history, Iterable):
        raise InvalidRequestError(
            "history must be a list of messages such as "
            f'{{"role": "user", "content": "..."}}, not {type(history).__name__}'
        )
    checked = []
    for number, message in enumerate(history, start=1):
        where = f"history message {number}"
        if not isinstance(message, Mapping):
            raise InvalidRequestError(
                f'{where} must be a dict with "role" and "content", not {type(message).__name__}'
            )
        role, content = message.get("role"), message.get("content")
        if isinstance(content, list) and all(
            isinstance(p, Mapping) and p.get("type") == "text" and isinstance(p.get("text"), str)
            for p in content
        ):  # chat APIs' content parts, text only
            content = "\n".join(p["text"] for p in content)
        elif content is None and role in ("assistant", "tool") and "content" in message:
            content = ""  # an assistant turn that only called a tool
        if role not in HISTORY_ROLES:
            raise InvalidRequestError(
                f"{where}: role must be one of {', '.join(HISTORY_ROLES)}, not {role!r}"
            )
        if not isinstance(content, str):
            raise InvalidRequestError(
                f'{where} has no "content"'
                if content is None
                else f'{where}: "content" must be text, not {type(content).__name__}'
            )
        checked.append({**message, "role": role, "content": _as_text(content)})
    return tuple(checked)


def _check_k(k: Any) -> int | None:
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, int):
        raise InvalidRequestError(
            f"k must be a whole number of hits, not {k!r} ({type(k).__name__})"
        )
    if not 1 <= k <= MAX_K:
        raise InvalidRequestError(f"k must be between 1 and {MAX_K}, not {k}")
    return k


def load(
    source: str | Path | Mapping[str, Any],
    *,
    plugin_manager: pluggy.PluginManager | None = None,
    env: Mapping[str, str] | None = None,
    base_dir: Path | None = None,
) -> Pipeline:
    """Build a pipeline from a config file path or a dict (see ``Pipeline.from_config``)."""
    return Pipeline.from_config(source, plugin_manager=plugin_manager, env=env, base_dir=base_dir)
