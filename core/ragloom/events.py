"""Typed, frozen events that ``on_event`` observers receive, and the stage call
that ``run_stage`` implementations wrap."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "SKIP_RUN",
    "Event",
    "ProblemReported",
    "RunFinished",
    "RunStarted",
    "StageCall",
    "StageFinished",
]


class _SkipRun:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ragloom.events.SKIP_RUN"


SKIP_RUN: Any = _SkipRun()
"""What an ``on_event`` observer returns for a ``RunStarted`` it has no use
for (an OpenTelemetry observer with no tracer provider set): when every
observer returns it, the run builds and sends none of its later events."""


@dataclass(frozen=True)
class StageCall:
    """One stage of a run, handed to ``run_stage``.

    ``stage`` is one of ``load``, ``refresh``, ``count``, ``ids``, ``chunk``,
    ``embed``, ``upsert``, ``delete``, ``flush`` (index runs) and ``transform``,
    ``embed_query``, ``retrieve``, ``fuse``, ``rerank``, ``generate`` (queries;
    for a streamed answer, ``generate`` returns the generator's iterator of
    pieces). ``component`` is the component instance (None for core stages
    such as ``fuse``); ``name`` its config name; ``run_id`` the run it belongs to.
    ``run()`` performs the stage and returns its result.
    """

    stage: str
    name: str
    component: Any
    func: Callable[..., Any] = field(repr=False)
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    run_id: str = ""

    def run(self) -> Any:
        return self.func(*self.args, **self.kwargs)


@dataclass(frozen=True)
class Event:
    """Base of every event; ``run_id`` ties the events of one run together."""

    run_id: str
    time: float = field(default_factory=time.time, kw_only=True)


@dataclass(frozen=True)
class RunStarted(Event):
    """An ``index``, ``retrieve``, ``ask`` or ``stream`` run began."""

    operation: str


@dataclass(frozen=True)
class StageFinished(Event):
    """A stage finished: how long it took, how many items it produced, and the
    error text if it failed."""

    stage: str
    name: str
    seconds: float
    count: int | None = None
    error: str | None = None


@dataclass(frozen=True)
class ProblemReported(Event):
    """Something was skipped without stopping the run (an unreadable file)."""

    source: str
    message: str


@dataclass(frozen=True)
class RunFinished(Event):
    """A run ended; ``stats`` holds its counts (documents, chunks, hits...)."""

    operation: str
    seconds: float
    stats: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None
