"""The hook implementations: one ``SpanObserver`` on the global tracer provider.

The ``run_stage`` wrapper only captures content, so it is registered only when
``RAGLOOM_OTEL_CAPTURE_CONTENT`` asks for content as the plugin loads: without
it, every stage of every run would pass through a wrapper that does nothing.
"""

from __future__ import annotations

from typing import Any

from ragloom import hookimpl

from .observer import SpanObserver

_observer = SpanObserver()


@hookimpl
def on_event(event: Any) -> Any:
    return _observer.on_event(event)  # SKIP_RUN for a run it does not trace


if _observer.capture_content:

    @hookimpl(wrapper=True)
    def run_stage(call: Any) -> Any:
        return (yield from _observer.run_stage(call))
