"""The hook implementations: one ``SpanObserver`` on the global tracer provider."""

from __future__ import annotations

from typing import Any

from ragloom import hookimpl

from .observer import SpanObserver

_observer = SpanObserver()


@hookimpl
def on_event(event: Any) -> None:
    _observer.on_event(event)


@hookimpl(wrapper=True)
def run_stage(call: Any) -> Any:
    return (yield from _observer.run_stage(call))
