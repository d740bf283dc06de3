"""OpenTelemetry spans for ragloom runs and stages (see ``SpanObserver``)."""

from __future__ import annotations

from .observer import CAPTURE_ENV, SpanObserver

__all__ = ["CAPTURE_ENV", "SpanObserver"]
