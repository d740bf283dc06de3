"""One call of a pipeline (``index``, ``retrieve``, ``ask``, ``stream``) as an
object: its id, the problems it collected, its stages and its events.

Concurrent calls on one pipeline each get their own ``Run``, so nothing of
one call (its id, its problem list) leaks into another. Components report
problems through ``Context.report``, which the pipeline routes to the run of
the calling thread (``current_run``).

Events go through pluggy (``pm.hook.on_event``), so ``tryfirst``/``trylast``,
wrappers and implementations that take no argument behave as pluggy
documents. An observer that raises is logged and does not break the run:
:func:`guard_observers` wraps every plain ``on_event`` implementation of a
plugin manager (wrappers are left as they are).
"""

from __future__ import annotations

import contextvars
import copy
import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .errors import RagloomError
from .events import (
    SKIP_RUN,
    Event,
    ProblemReported,
    RunFinished,
    RunStarted,
    StageCall,
    StageFinished,
)
from .stages import run_stage as core_run_stage
from .types import StageTiming

if TYPE_CHECKING:
    import pluggy

    from .reads import Reads

__all__ = ["Run", "current_run", "guard_observers"]

log = logging.getLogger("ragloom")

current_run: contextvars.ContextVar[Run | None] = contextvars.ContextVar(
    "ragloom_current_run", default=None
)
"""The run the calling thread (or task) is inside, if any."""

_GUARDED = "_ragloom_guarded"


class Run:
    """One call of a pipeline: ``run.stage(...)`` runs a stage through the
    ``run_stage`` hook and times it; ``run.report(...)`` records a problem;
    ``run.finish(...)`` emits ``RunFinished`` (once)."""

    def __init__(self, operation: str, plugin_manager: pluggy.PluginManager) -> None:
        self.operation = operation
        self.id = os.urandom(6).hex()  # 12 hex digits, as uuid4().hex[:12] at a fifth of the cost
        self.problems: list[tuple[str, str]] = []
        self.timings: list[StageTiming] = []
        """Every stage that finished, in order (``ragloom ask --trace``)."""
        self.kept: set[str] = set()
        """Sources a loader could not read this run: their indexed documents are kept."""
        self.reads: Reads | None = None
        """An index run's files read before (``ragloom.reads``): what loaders
        may leave unread; None in other runs."""
        self._pm = plugin_manager
        impls = plugin_manager.hook.run_stage.get_hookimpls()
        self._direct = len(impls) == 1 and impls[0].function is core_run_stage
        """Only core's ``run_stage`` is registered: a stage calls its function
        itself, as that implementation would, without building a ``StageCall``."""
        self._started = time.perf_counter()
        self._finished = False
        self._declined = False
        answers = self.emit(RunStarted(self.id, operation=operation))
        observers = plugin_manager.hook.on_event.get_hookimpls()
        self._declined = bool(answers) and (
            # every observer declined the run (a wrapper sees every event)
            len(answers) == len(observers) and all(a is SKIP_RUN for a in answers)
        )
        """Whether every observer at its start declined this run: it sends no
        later event (an observer registered meanwhile gets none either)."""

    def branch(self) -> Run:
        """This run for stages done on another thread at the same time: the
        same id, observers and problems, its own ``timings``, which the caller
        adds to this run's in the order it chooses (the trace stays in one
        order, whichever thread finished first)."""
        branch = copy.copy(self)
        branch.timings = []
        return branch

    @property
    def plugin_manager(self) -> pluggy.PluginManager:
        return self._pm

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self._started

    # -- events ------------------------------------------------------------
    def emit(self, event: Event) -> list[Any]:
        """Send ``event`` to the observers (none once every one declined the
        run); their answers."""
        if self._declined:
            return []
        guard_observers(self._pm)
        try:
            answers = self._pm.hook.on_event(event=event)
        except Exception:  # a wrapper observer failed: it never breaks a run
            log.exception("on_event observer failed")
            return []
        # a wrapper that returns nothing leaves no list: nothing was answered
        return answers if isinstance(answers, list) else []

    def report(self, source: str, message: str) -> None:
        """Record a problem that does not stop the run."""
        self.problems.append((source, message))
        self.emit(ProblemReported(self.id, source=source, message=message))

    def keep(self, source: str) -> None:
        """Keep what the index holds from ``source`` (a document id or a folder)."""
        self.kept.add(source)

    def finish(self, error: BaseException | None = None, **stats: Any) -> None:
        """Emit ``RunFinished`` with ``stats``; later calls do nothing."""
        if self._finished:
            return
        self._finished = True
        self.emit(
            RunFinished(
                self.id,
                operation=self.operation,
                seconds=self.seconds,
                stats=stats,
                error=repr(error) if error is not None else None,
            )
        )

    @contextmanager
    def active(self) -> Iterator[Run]:
        """Make this the calling thread's current run (for ``Context.report``)."""
        token = current_run.set(self)
        try:
            yield self
        finally:
            current_run.reset(token)

    # -- stages ------------------------------------------------------------
    def stage(
        self,
        stage: str,
        name: str,
        component: Any,
        func: Callable[..., Any],
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        """Run ``func(*args, **kwargs)`` as ``stage`` through the ``run_stage``
        hook and emit ``StageFinished`` with its timing and item count."""
        started = time.perf_counter()
        try:
            if self._direct:
                result = func(*args, **kwargs)
            else:
                call = StageCall(stage, name, component, func, args, kwargs, self.id)
                result = self._pm.hook.run_stage(call=call)
        except BaseException as exc:
            self.emit(
                StageFinished(
                    self.id,
                    stage=stage,
                    name=name,
                    seconds=time.perf_counter() - started,
                    error=repr(exc),
                )
            )
            _say_where(exc, stage, name)
            raise
        seconds = time.perf_counter() - started
        count = len(result) if hasattr(result, "__len__") else None
        if log.isEnabledFor(logging.DEBUG):  # the item count is formatted only when logged
            log.debug(
                "stage %s (%s): %.4fs%s",
                stage,
                name,
                seconds,
                "" if count is None else f", {count} item(s)",
            )
        self.timings.append(StageTiming(stage, name, seconds, count))
        # no observer wants it: no event to build
        if not self._declined and self._pm.hook.on_event.get_hookimpls():
            self.emit(StageFinished(self.id, stage=stage, name=name, seconds=seconds, count=count))
        return result

    def stream_stage(
        self,
        stage: str,
        name: str,
        component: Any,
        func: Callable[..., Iterator[Any]],
        *args: Any,
        **kwargs: Any,
    ) -> Iterator[Any]:
        """Like ``stage`` for a stage whose result is an iterator (a streamed
        answer): the hook gets the call as any other, and ``StageFinished``
        (its ``count`` the pieces yielded) comes when the iterator is exhausted,
        fails, or is closed by a caller that stopped early."""
        call = StageCall(stage, name, component, func, args, kwargs, self.id)
        started = time.perf_counter()
        count = 0
        try:
            for piece in self._pm.hook.run_stage(call=call):
                count += 1
                yield piece
        except GeneratorExit:
            self._stream_finished(_finished(self, stage, name, started, count=count))
            raise
        except BaseException as exc:
            self._stream_finished(
                _finished(self, stage, name, started, count=count, error=repr(exc))
            )
            raise
        self._stream_finished(_finished(self, stage, name, started, count=count))

    def _stream_finished(self, event: StageFinished) -> None:
        self.timings.append(StageTiming(event.stage, event.name, event.seconds, event.count))
        self.emit(event)


def _finished(run: Run, stage: str, name: str, started: float, **fields: Any) -> StageFinished:
    return StageFinished(
        run.id, stage=stage, name=name, seconds=time.perf_counter() - started, **fields
    )


def guard_observers(pm: pluggy.PluginManager) -> None:
    """Wrap each plain ``on_event`` implementation so that an exception it
    raises is logged and the remaining observers still run. Idempotent;
    pluggy's ordering, ``tryfirst``/``trylast`` and argument subsets are kept."""
    for impl in pm.hook.on_event.get_hookimpls():
        if impl.hookwrapper or getattr(impl, "wrapper", False):
            continue
        function = impl.function
        if getattr(function, _GUARDED, False):
            continue

        def guarded(*args: Any, _f: Callable[..., Any] = function, **kwargs: Any) -> Any:
            try:
                return _f(*args, **kwargs)
            except Exception:
                log.exception("on_event observer %r failed", _f)
                return None

        setattr(guarded, _GUARDED, True)
        impl.function = guarded  # type: ignore[misc]  # pluggy calls impl.function


STAGE_NOTE = "in the {stage} stage of {name!r}"
"""The note an error that is not ragloom's own gets where it leaves a stage:
which component raised it (a plugin's ``KeyError`` says nothing of that)."""


def _say_where(exc: BaseException, stage: str, name: str) -> None:
    """Note on ``exc`` the stage and component it came from: once (the
    innermost stage), and not on ragloom's own errors, which say it already."""
    if isinstance(exc, RagloomError) or not isinstance(exc, Exception):
        return
    if getattr(exc, _NOTED, False) or not hasattr(exc, "add_note"):  # (add_note: 3.11+)
        return
    exc.add_note(STAGE_NOTE.format(stage=stage, name=name))
    setattr(exc, _NOTED, True)


_NOTED = "_ragloom_stage_noted"
