"""Logging for people and for log pipelines, with secrets redacted.

    from ragloom.logs import configure, redact

    configure(level="INFO", fmt="json")     # one JSON object a line, on stderr
    log.info("calling %s", url)             # ...://user:[REDACTED]@host/...

ragloom logs through the standard library (``logging.getLogger("ragloom")``
and its children, such as ``ragloom.server.access``); this module only
formats. :func:`configure` installs one handler on the root logger with
either formatter:

- :class:`TextFormatter`: ``LEVEL logger: message``, redacted, and passed
  through an optional ``clean`` function (the CLI's terminal ``sanitize``).
- :class:`JsonFormatter`: one object a line with ``time`` (ISO 8601, UTC),
  ``level``, ``logger``, ``message``, the fields a call passed with
  ``extra={...}`` (a server's ``request_id``, ``status``, ``ms``...) and
  ``exception`` when there is one. Every string in it is redacted.

:func:`redact` removes what must never reach a log: the value of an
``Authorization`` or ``X-API-Key`` header, ``Bearer`` tokens, ``sk-...`` and
``ragloom-...`` keys, the password of a URL (``postgresql://user:pass@host``)
and ``api_key=...``/``"token": "..."``-style assignments. Redaction is a
last line of defence: ragloom never logs a key on purpose.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from collections.abc import Callable, Mapping
from typing import IO, Any, Literal

__all__ = ["LOG_FORMATS", "JsonFormatter", "TextFormatter", "configure", "redact"]

LogFormat = Literal["text", "json"]
LOG_FORMATS: tuple[str, ...] = ("text", "json")

REDACTED = "[REDACTED]"

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # header lines and header-like pairs: "Authorization: Basic abc", "x-api-key=..."
    (
        re.compile(
            r"(?i)(\b(?:proxy-)?authorization\b['\"]?\s*[:=]\s*['\"]?)"
            r"(?:(?:bearer|basic|token|digest)\s+)?[^\s'\",;}]+"
        ),
        r"\1" + REDACTED,
    ),
    (re.compile(r"(?i)(\bx-api-key\b['\"]?\s*[:=]\s*['\"]?)[^\s'\",;}]+"), r"\1" + REDACTED),
    (re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{4,}"), r"\1" + REDACTED),
    # well-known key shapes: OpenAI-style sk-..., ragloom's own ragloom-...
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), "sk-" + REDACTED),
    (re.compile(r"\bragloom-[A-Za-z0-9_-]{16,}"), "ragloom-" + REDACTED),
    # scheme://user:password@host (DSNs: postgresql, redis, amqp, https...)
    (re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]*:)[^\s@/]+@"), r"\1" + REDACTED + "@"),
    # api_key=..., "token": "...", password: ... (the value only)
    (
        re.compile(
            r"(?i)(\b(?:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|passwd)"
            r"\b['\"]?\s*[:=]\s*['\"]?)(?!\[REDACTED\])[^\s'\",;&}]+"
        ),
        r"\1" + REDACTED,
    ),
)


def redact(text: str) -> str:
    """``text`` with keys, tokens, header values and URL passwords replaced
    by ``[REDACTED]``."""
    if not text:
        return text
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


# Attributes every LogRecord has: the rest came from ``extra={...}``.
_STANDARD = frozenset(
    logging.LogRecord("", 0, "", 0, "", (), None).__dict__.keys()
    | {"message", "asctime", "taskName"}
)


class TextFormatter(logging.Formatter):
    """``LEVEL logger: message`` (plus the traceback), redacted, then passed
    through ``clean`` (for a terminal: ``ragloom.cli_support.sanitize``)."""

    def __init__(
        self,
        fmt: str = "%(levelname)s %(name)s: %(message)s",
        *,
        clean: Callable[[str], str] | None = None,
    ) -> None:
        super().__init__(fmt)
        self._clean = clean

    def format(self, record: logging.LogRecord) -> str:
        text = redact(super().format(record))
        return self._clean(text) if self._clean is not None else text


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``time``, ``level``, ``logger``, ``message``,
    the record's ``extra`` fields, and ``exception``; every string redacted."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": redact(record.getMessage()),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_") and key not in entry:
                entry[key] = _clean(value)
        if record.exc_info:
            entry["exception"] = redact(self.formatException(record.exc_info))
        elif record.exc_text:
            entry["exception"] = redact(record.exc_text)
        return json.dumps(entry, default=lambda value: redact(repr(value)), ensure_ascii=False)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def configure(
    level: int | str = logging.WARNING,
    fmt: LogFormat | str = "text",
    *,
    stream: IO[str] | None = None,
    clean: Callable[[str], str] | None = None,
) -> logging.Handler:
    """Log to ``stream`` (stderr by default) at ``level``, as text or JSON.

    Replaces the root logger's handlers (so it can be called again, and so
    that libraries that call ``logging.basicConfig`` later change nothing)
    and returns the handler it installed. ``clean`` post-processes text lines
    (not JSON, which escapes control characters itself).
    """
    if fmt not in LOG_FORMATS:
        raise ValueError(f"unknown log format {fmt!r}: use one of {', '.join(LOG_FORMATS)}")
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter(clean=clean))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # pypdf warns about every damaged file it reads ("invalid pdf header"):
    # ragloom reports a file it cannot read itself, once, with what to do and
    # pypdf's warning in it (the reader's handler on the "pypdf" logger takes
    # them, so the logger must let them through); this handler leaves them out
    number = logging.getLevelName(level) if isinstance(level, str) else level
    quiet = isinstance(number, int) and number > logging.INFO
    logging.getLogger("pypdf").setLevel(logging.NOTSET)
    if quiet:
        handler.addFilter(_without_pypdf_warnings)
    return handler


def _without_pypdf_warnings(record: logging.LogRecord) -> bool:
    return not (record.name.split(".")[0] == "pypdf" and record.levelno < logging.ERROR)
