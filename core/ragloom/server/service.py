"""One pipeline behind a server: opened once, queried through its async
methods on behalf of a caller, with a time limit, and shaped as JSON.

The HTTP routes, the OpenAI-compatible chat and the MCP tools all go
through :class:`Service`, so they share one pipeline (one thread pool, one
committed corpus version per call, reloads when ``ragloom index`` commits in
another process) and one set of rules: the principals come from the
caller, never from the request body.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Awaitable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import FilterError
from ..filters import fields, parse
from .errors import ApiError
from .keys import Caller
from .models import MAX_TEXT
from .settings import ServerSettings

if TYPE_CHECKING:
    from ..answers import AsyncAnswerStream
    from ..pipeline import Pipeline
    from ..types import Answer, Hit, Hits

__all__ = ["Service", "answer_json", "hit_json", "index_json"]

log = logging.getLogger("ragloom.server")

T = TypeVar("T")

HIDDEN_METADATA = frozenset({"path"})
"""Metadata never sent to clients: where a file lies on the server. Hits
leave it out, and a caller's filters may not test it (their hit counts would
tell it, one comparison at a time)."""

_HIDDEN_WHY = {
    "path": "it says where a file lies on the server, which this server tells no "
    "caller; filter on 'source' (the file's path within the indexed folder) instead",
}


HURRIED_CLOSE = 1.0
"""Seconds ``Service.close`` waits for the pipeline once asked to stop now."""


class Service:
    """The pipeline a server answers from, and how it may be called."""

    def __init__(self, pipeline: Pipeline, settings: ServerSettings) -> None:
        self.pipeline = pipeline
        self.settings = settings
        self.ready = False
        self.open_error: str | None = None
        self.abandoned = False
        """``close`` gave up waiting for a call that does not return."""
        self.hurried = False
        """Asked to stop now (a second signal): ``close`` waits a moment only."""
        self._stop = threading.Event()
        self._unready_said: str | None = None
        self._watcher: threading.Thread | None = None
        pipeline.async_workers = settings.max_concurrency
        access = pipeline.config.access
        self._access_field = access.field if access is not None else None
        self._hidden = HIDDEN_METADATA | ({access.field} if access is not None else set())

    # -- lifecycle -----------------------------------------------------------
    async def open(self) -> None:
        """Open the pipeline (models, stores) without blocking the event loop."""
        try:
            # the stores read and their lazy indexes built before ready: the
            # first query does not pay for them
            await asyncio.get_running_loop().run_in_executor(None, self._open)
        except Exception as exc:
            self.open_error = f"{type(exc).__name__}: {exc}"
            log.error("the pipeline failed to open: %s", self.open_error, exc_info=True)
            raise
        self.ready = True
        log.info("pipeline open; ready")
        if self.settings.watch_interval > 0:
            self._watcher = threading.Thread(target=self._watch, name="ragloom-watch", daemon=True)
            self._watcher.start()

    def _open(self) -> None:
        self.pipeline.open()
        try:
            self.pipeline.catch_up()
        except Exception as exc:  # a query meets it too, and says it to its caller
            log.warning("the index cannot be read yet: %s", exc)

    def _watch(self) -> None:
        """Every ``watch_interval`` seconds until ``close``: ``catch_up``, so
        that the first query after another process's commit does not wait
        for the stores to reload. A failure is logged once (a query would
        meet it too, and say it to its caller)."""
        said = None
        while not self._stop.wait(self.settings.watch_interval):
            try:
                started = time.perf_counter()
                if self.pipeline.catch_up():
                    log.info(
                        "moved to corpus version %d in %.2fs",
                        self.pipeline.retriever.state.view.version,
                        time.perf_counter() - started,
                    )
                said = None
            except Exception as exc:
                text = f"{type(exc).__name__}: {exc}"
                if text != said:
                    log.warning("could not catch up with the index: %s", text)
                said = text

    async def close(self) -> None:
        """Close the pipeline, waiting at most ``settings.shutdown_timeout``
        (``HURRIED_CLOSE`` once ``hurried``): a call that never returns (a
        model or a store that does not answer) holds ``Pipeline.close``; it
        is then left behind (``abandoned``), on a thread of its own, so that
        the server still stops."""
        self.ready = False
        self._stop.set()
        loop = asyncio.get_running_loop()
        closed: asyncio.Future[BaseException | None] = loop.create_future()

        def settle(outcome: BaseException | None) -> None:
            if not closed.done():
                closed.set_result(outcome)

        def close() -> None:
            outcome: BaseException | None = None
            try:
                if self._watcher is not None:  # not closing stores under its catch-up
                    self._watcher.join()
                self.pipeline.close()
            except BaseException as exc:  # raised in the event loop, below
                outcome = exc
            with contextlib.suppress(RuntimeError):  # the loop stopped meanwhile
                loop.call_soon_threadsafe(settle, outcome)

        # not the loop's executor: asyncio.run waits for its threads at the end
        threading.Thread(target=close, name="ragloom-close", daemon=True).start()
        began = loop.time()
        while not closed.done():
            limit = self.settings.shutdown_timeout
            if self.hurried:  # asked to stop now, maybe while this waits
                limit = min(limit, HURRIED_CLOSE)
            left = began + limit - loop.time()
            if left <= 0:
                self.abandoned = True
                log.warning(
                    "stopping without closing the pipeline: a call still running after %gs "
                    "holds it (a model or a store that does not answer%s); the index is "
                    "safe, as after a kill",
                    limit,
                    ", or one cut short by a second signal" if self.hurried else "",
                )
                return
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(closed), min(left, 0.1))
        outcome = closed.result()
        if outcome is not None:
            raise outcome

    def index_problem(self) -> str | None:
        """What keeps every query from being answered now (``/readyz``): a
        rebuild under way, or an index that does not fit the config (the
        details, which name files, go to the log)."""
        from ..errors import IndexRebuildingError, IndexStateError

        retriever = self.pipeline.retriever
        try:
            retriever.check_view(retriever.sync())
        except IndexRebuildingError:
            return "the index is being rebuilt"
        except IndexStateError as exc:
            if str(exc) != self._unready_said:  # once, not at every probe
                self._unready_said = str(exc)
                log.warning("not ready: %s", exc)
            return "the index cannot be queried; the server log says why"
        self._unready_said = None
        return None

    def require_ready(self) -> None:
        if not self.ready:
            why = "the pipeline failed to open" if self.open_error else "the pipeline is opening"
            raise ApiError(
                "not_ready",
                f"not ready: {why}",
                headers={"Retry-After": str(self.settings.retry_after)},
            )

    async def limited(self, call: Awaitable[T]) -> T:
        """``call`` within the request time limit (504 ``timeout`` after it)."""
        try:
            return await asyncio.wait_for(call, self.settings.request_timeout)
        except asyncio.TimeoutError:
            raise ApiError(
                "timeout",
                f"the request took longer than {self.settings.request_timeout:g}s, "
                "the server's time limit",
            ) from None

    # -- calls ---------------------------------------------------------------
    def _check(
        self, k: int | None, filters: Mapping[str, Any] | None, text: str, name: str
    ) -> None:
        """What every route asks with, checked before anything runs (a route
        whose request model checked it already, the HTTP API's, agrees: the
        MCP tools and the playground come here alone)."""
        self.require_ready()
        if not text.strip():
            raise ApiError("invalid_request", f"{name} is empty", param=name)
        if len(text) > MAX_TEXT:
            raise ApiError(
                "invalid_request",
                f"{name} has {len(text):,} characters; at most {MAX_TEXT:,} on this server",
                param=name,
            )
        if k is not None and k < 1:
            raise ApiError("invalid_request", f"k must be 1 or more (got {k})", param="k")
        if k is not None and k > self.settings.max_k:
            raise ApiError(
                "invalid_request", f"k is at most {self.settings.max_k} on this server", param="k"
            )
        self.check_filters(filters)

    def check_filters(self, filters: Mapping[str, Any] | None) -> None:
        """Raise ``FilterError`` (400 ``invalid_filter``) for a malformed
        filter, or one that tests a field hits leave out (``path``, the access
        field), wherever it stands in the filter (``$and``, ``$or``, ``$not``
        included): which documents come back would tell the field's value,
        one comparison at a time."""
        tested = fields(parse(filters))
        if self._access_field is not None and self._access_field in tested:
            # hits leave it out, since it names other readers: a filter on it
            # would tell a caller who else may read each document
            raise FilterError(
                f"filters may not test {self._access_field!r}, the access field: it names "
                "who may read a document, which this server tells no caller; what you "
                "may read is already limited to your key's principals"
            )
        hidden = sorted(tested & self._hidden)
        if hidden:
            why = _HIDDEN_WHY.get(hidden[0], "this server sends it to no caller")
            raise FilterError(f"filters may not test {hidden[0]!r}: {why}")

    async def search(
        self,
        caller: Caller,
        query: str,
        *,
        k: int | None = None,
        filters: Mapping[str, Any] | None = None,
        explain: bool = False,
    ) -> Hits:
        self._check(k, filters, query, "query")
        return await self.limited(
            self.pipeline.aretrieve(
                query, filters, k, principals=caller.principal_list, explain=explain
            )
        )

    async def ask(
        self,
        caller: Caller,
        question: str,
        *,
        k: int | None = None,
        filters: Mapping[str, Any] | None = None,
        history: Sequence[Mapping[str, str]] = (),
        trace: bool = False,
    ) -> Answer:
        self._check(k, filters, question, "question")
        return await self.limited(
            self.pipeline.aask(
                question,
                filters,
                [dict(m) for m in history],
                k=k,
                principals=caller.principal_list,
                trace=trace,
            )
        )

    def stream(
        self,
        caller: Caller,
        question: str,
        *,
        k: int | None = None,
        filters: Mapping[str, Any] | None = None,
        history: Sequence[Mapping[str, str]] = (),
    ) -> AsyncAnswerStream:
        self._check(k, filters, question, "question")
        return self.pipeline.astream(
            question, filters, [dict(m) for m in history], k=k, principals=caller.principal_list
        )

    async def index(self, caller: Caller, **options: Any) -> Any:
        self.require_ready()
        if not caller.admin:
            from .auth import not_admin

            raise not_admin(caller)
        return await self.pipeline.aindex(**options)

    # -- JSON ----------------------------------------------------------------
    def hit(self, rank: int, hit: Hit) -> dict[str, Any]:
        return hit_json(rank, hit, self._hidden)

    def search_json(self, query: str, hits: Hits) -> dict[str, Any]:
        rows = [self.hit(rank, h) for rank, h in enumerate(hits, 1)]
        out: dict[str, Any] = {"query": query, "corpus_version": hits.corpus_version, "hits": rows}
        if hits.degraded:
            out["degraded"] = hits.degraded
        explanation = hits.explanation
        if explanation is not None:
            for row, why in zip(rows, explanation.hits):
                row["explain"] = _explain_json(why)
            out.update(
                queries=list(explanation.queries),
                filter=explanation.filter,
                retrieval_filter=explanation.retrieval_filter,
                access_filter=explanation.access_filter,
                store_filters=dict(explanation.store_filters),
                feedback=None if explanation.feedback is None else dict(explanation.feedback),
            )
        return out


def hit_json(
    rank: int, hit: Hit, hidden: frozenset[str] | set[str] = HIDDEN_METADATA
) -> dict[str, Any]:
    chunk = hit.chunk
    return {
        "rank": rank,
        "score": float(hit.score),
        "scores": {k: float(v) for k, v in hit.scores.items()},
        "store": hit.store,
        "id": chunk.id,
        "document_id": chunk.document_id,
        "source": chunk.source,
        "label": chunk.label,
        "text": chunk.text,
        "metadata": {k: v for k, v in chunk.metadata.items() if k not in hidden},
    }


def _explain_json(why: Any) -> dict[str, Any]:
    return {
        "stores": {n: {"rank": r, "score": float(s)} for n, (r, s) in why.stores.items()},
        "fused_rank": why.fused_rank,
        "fused_score": float(why.fused_score),
        "reranked_rank": why.reranked_rank,
        "rerank_score": None if why.rerank_score is None else float(why.rerank_score),
        "movement": why.movement,
    }


def citations_json(answer: Answer) -> list[dict[str, Any]]:
    return [
        {
            "number": c.number,
            "label": c.label,
            "source": c.source,
            "chunk_id": c.chunk_id,
            "quote": c.quote,
        }
        for c in answer.citations
    ]


def answer_json(answer: Answer, *, trace: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "question": answer.question,
        "answer": answer.text,
        "grounded": answer.grounded,
        "uncited": bool(answer.metadata.get("uncited")),
        "truncated": bool(answer.metadata.get("truncated")),
        "dropped_citations": list(answer.metadata.get("dropped_citations", ())),
        "degraded": answer.degraded,
        "cached": bool(answer.metadata.get("cached")),
        "corpus_version": answer.metadata.get("corpus_version"),
        "citations": citations_json(answer),
    }
    if answer.metadata.get("retrieval_degraded"):
        out["retrieval_degraded"] = answer.metadata["retrieval_degraded"]
    if trace:
        out["trace"] = [
            {"stage": t.stage, "name": t.name, "seconds": t.seconds, "count": t.count}
            for t in answer.metadata.get("trace", ())
        ]
    return out


def index_json(report: Any) -> dict[str, Any]:
    return {
        "added": list(report.added),
        "changed": list(report.changed),
        "rewritten": list(report.rewritten),
        "deleted": list(report.deleted),
        "unchanged": report.unchanged,
        "unread": report.unread,
        "chunks": report.chunks,
        "seconds": round(report.seconds, 3),
        "corpus_version": report.corpus_version,
        "embedded": report.embedded,
        "cached": report.cached,
        "dry_run": report.dry_run,
        "problems": [{"source": s, "message": m} for s, m in report.problems],
        "kept": list(report.kept),
        "repaired": list(report.repaired),
        "errors": [{"loader": n, "message": m} for n, m in report.errors],
        "ok": report.ok,
    }
