"""ragloom's events as OpenTelemetry spans.

- ``RunStarted`` opens a span ``ragloom.run.<operation>`` (``index``,
  ``retrieve``, ``ask``, ``stream``), a child of whatever span is current
  where the call was made (an HTTP server's request span, say): attributes
  ``ragloom.operation`` and ``ragloom.run_id``.
- ``StageFinished`` becomes a child span ``ragloom.stage.<stage>`` with the
  stage's own start and end times: ``ragloom.stage``, ``ragloom.component``
  (its config name), ``ragloom.item_count`` (hits, chunks, vectors...),
  ``ragloom.run_id``; a failed stage has status ERROR and ``error.type``.
- ``ProblemReported`` is a span event ``ragloom.problem`` on the run span.
- ``RunFinished`` ends the run span, with its stats as ``ragloom.<stat>``
  attributes (``ragloom.hits``, ``ragloom.corpus_version``...) and status
  ERROR if it failed.

Content is not recorded unless asked for (``capture_content=True``, or the
environment variable ``RAGLOOM_OTEL_CAPTURE_CONTENT=true``): then stage spans
also carry ``ragloom.query`` (the question or query text),
``ragloom.queries`` (after query transformers), ``ragloom.hits`` (the labels
of the hits a stage returned, best first), ``ragloom.answer`` and
``ragloom.citations`` (for a generated, not a streamed, answer). Content
comes from a ``run_stage`` wrapper, which otherwise does nothing: the
installed plugin (``plugin.py``) registers it only when the variable is set
as it loads.

Until the application sets a tracer provider (and without one given to the
observer), every span would be a no-op: the observer then does nothing at
all, so an installed but unconfigured plugin costs a pipeline call next to
nothing.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Generator, Mapping
from typing import Any

from ragloom import events, hookimpl
from ragloom.events import Event, ProblemReported, RunFinished, RunStarted, StageFinished

__all__ = ["CAPTURE_ENV", "SpanObserver"]

CAPTURE_ENV = "RAGLOOM_OTEL_CAPTURE_CONTENT"
SKIP_RUN: Any = getattr(events, "SKIP_RUN", None)
"""What ``on_event`` answers for a run it does not trace (None under a ragloom
from before ``SKIP_RUN``, which sends every event anyway)."""
MAX_TEXT = 4_000
"""Longest text recorded in an attribute (answers are cut there)."""


def _ns(seconds: float) -> int:
    return int(seconds * 1_000_000_000)


class SpanObserver:
    """Turns the events of runs into spans. A plugin itself: register an
    instance with a plugin manager (``pm.register(SpanObserver(provider))``)
    to trace its pipelines into ``provider``.

    :param tracer_provider: where spans go; by default the global one
        (``opentelemetry.trace.set_tracer_provider``), looked up at the start
        of each run until one is set; a run that started without one is not
        traced (its stages cost a dictionary look-up, not a provider look-up).
    :param capture_content: record questions, hit labels and answers; by
        default, whether ``RAGLOOM_OTEL_CAPTURE_CONTENT`` is ``true``.
    """

    def __init__(self, tracer_provider: Any = None, *, capture_content: bool | None = None) -> None:
        self._provider = tracer_provider
        self._capture = capture_content
        self._runs: dict[str, Any] = {}
        self._content: dict[tuple[str, str, str, int], deque[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._cached: Any = None

    # -- configuration ---------------------------------------------------------
    @property
    def capture_content(self) -> bool:
        if self._capture is not None:
            return self._capture
        return os.environ.get(CAPTURE_ENV, "").strip().lower() in ("1", "true", "yes", "on")

    def _tracer(self) -> Any:
        """The tracer, or None while spans would go nowhere (no provider
        given, and no global one set yet)."""
        if self._cached is not None:
            return self._cached
        trace = _trace()
        provider = self._provider
        if provider is None:
            provider = trace.get_tracer_provider()
            if isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
                return None  # nothing set yet: look again at the next run
        from . import __name__ as package

        self._cached = provider.get_tracer(package)
        return self._cached

    # -- on_event ----------------------------------------------------------------
    @hookimpl
    def on_event(self, event: Event) -> Any:
        if event.run_id not in self._runs and type(event) is not RunStarted:
            return None  # a run that found no tracer when it started is not traced
        if isinstance(event, RunStarted):
            # no tracer: the run need not send this observer its other events
            return None if self._started(event) else SKIP_RUN
        if isinstance(event, StageFinished):
            self._stage(event)
        elif isinstance(event, ProblemReported):
            with self._lock:
                span = self._runs.get(event.run_id)
            if span is not None:
                span.add_event(
                    "ragloom.problem",
                    {"ragloom.source": event.source, "ragloom.message": event.message},
                    timestamp=_ns(event.time),
                )
        elif isinstance(event, RunFinished):
            self._finished(event)

    def _started(self, event: RunStarted) -> bool:
        """Open the run's span; False when there is no tracer to open it on."""
        tracer = self._tracer()
        if tracer is None:
            return False
        span = tracer.start_span(
            f"ragloom.run.{event.operation}",
            start_time=_ns(event.time),
            attributes={"ragloom.operation": event.operation, "ragloom.run_id": event.run_id},
        )
        with self._lock:
            self._runs[event.run_id] = span
        return True

    def _stage(self, event: StageFinished) -> None:
        # a run is traced when its RunStarted found a tracer (kept in _cached)
        parent = self._runs.get(event.run_id)
        if parent is None:
            return
        tracer = self._cached
        from opentelemetry import trace
        from opentelemetry.trace import Status, StatusCode

        # the stage's event follows its run_stage call on the same thread:
        # stages of one run on several threads (stores asked at once) keep apart
        key = (event.run_id, event.stage, event.name, threading.get_ident())
        with self._lock:
            queued = self._content.get(key)
            content = queued.popleft() if queued else {}
            if queued is not None and not queued:
                del self._content[key]
        attributes: dict[str, Any] = {
            "ragloom.stage": event.stage,
            "ragloom.component": event.name,
            "ragloom.run_id": event.run_id,
            **content,
        }
        if event.count is not None:
            attributes["ragloom.item_count"] = event.count
        context = trace.set_span_in_context(parent)
        span = tracer.start_span(
            f"ragloom.stage.{event.stage}",
            context=context,
            start_time=_ns(event.time - event.seconds),
            attributes=attributes,
        )
        if event.error is not None:
            span.set_status(Status(StatusCode.ERROR, event.error))
            span.set_attribute("error.type", event.error.split("(", 1)[0])
        span.end(end_time=_ns(event.time))

    def _finished(self, event: RunFinished) -> None:
        from opentelemetry.trace import Status, StatusCode

        with self._lock:
            span = self._runs.pop(event.run_id, None)
            for key in [k for k in self._content if k[0] == event.run_id]:
                del self._content[key]  # content of stages that never finished
        if span is None:
            return
        for key, value in _scalars(event.stats).items():
            span.set_attribute(f"ragloom.{key}", value)
        span.set_attribute("ragloom.seconds", event.seconds)
        if event.error is not None:
            span.set_status(Status(StatusCode.ERROR, event.error))
            span.set_attribute("error.type", event.error.split("(", 1)[0])
        span.end(end_time=_ns(event.time))

    # -- run_stage (content capture) -------------------------------------------
    @hookimpl(wrapper=True)
    def run_stage(self, call: Any) -> Generator[None, Any, Any]:
        """A ``run_stage`` wrapper: the stage's result, unchanged; with content
        capture on, what went in and came out is kept for its span."""
        result = yield
        if call.run_id in self._runs and self.capture_content:  # a traced run
            content = _content_of(call, result)
            if content:
                with self._lock:
                    key = (call.run_id, call.stage, call.name, threading.get_ident())
                    self._content.setdefault(key, deque()).append(content)
        return result


_TRACE: Any = None


def _trace() -> Any:
    """``opentelemetry.trace``, imported on first use (not when the plugin
    loads: every ``ragloom`` command would pay for it) and kept."""
    global _TRACE
    if _TRACE is None:
        from opentelemetry import trace

        _TRACE = trace
    return _TRACE


def _scalars(stats: Mapping[str, Any]) -> dict[str, Any]:
    return {
        k: v for k, v in stats.items() if isinstance(v, (str, bool, int, float)) and v is not None
    }


def _text(value: Any) -> str:
    text = str(value)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _labels(result: Any) -> list[str] | None:
    if isinstance(result, (list, tuple)) and all(hasattr(h, "chunk") for h in result):
        return [str(h.chunk.label) for h in result]
    return None


def _content_of(call: Any, result: Any) -> dict[str, Any]:
    stage, args, kwargs = call.stage, call.args, call.kwargs
    content: dict[str, Any] = {}
    queried = stage in ("transform", "embed_query", "rerank", "generate")
    if queried and args and isinstance(args[0], str):
        content["ragloom.query"] = _text(args[0])
    if stage == "retrieve" and isinstance(kwargs.get("text"), str):
        content["ragloom.query"] = _text(kwargs["text"])
    if stage == "transform" and isinstance(result, list):
        content["ragloom.queries"] = [_text(q) for q in result]
    if stage in ("retrieve", "fuse", "rerank"):
        labels = _labels(result)
        if labels is not None:
            content["ragloom.hits"] = labels
    if stage == "generate" and hasattr(result, "text") and hasattr(result, "citations"):
        content["ragloom.answer"] = _text(result.text)
        content["ragloom.citations"] = [str(c.label) for c in result.citations]
    return content
