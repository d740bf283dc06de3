"""ASGI middleware of the server, outermost first:

- :class:`RequestLog`: gives each request an id (``X-Request-ID``, taken from
  the request when it is a sane one), logs one access line per request
  (``ragloom.server.access``: method, path, status, milliseconds, the
  caller's name, never its key), and turns anything that escaped into a
  JSON 500 without a stack trace.
- :class:`ConcurrencyLimit`: at most ``max_concurrency`` authenticated
  requests to ``/v1/*`` and ``/mcp`` at once, a streamed response counting
  until its last byte; the next one gets 429 with ``Retry-After`` at once.
  A request without a valid key holds no slot (its route answers 401).
- :class:`BodyLimit`: a body larger than ``max_body_bytes`` gets 413, by its
  ``Content-Length`` before it is read, or as soon as a chunked body
  passes the limit; one that has not arrived whole within the request time
  limit gets 408 (a client that stalls mid-body holds nothing for long).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from .errors import ApiError, error_body, from_exception

__all__ = ["BodyLimit", "BodyTooLarge", "ConcurrencyLimit", "RequestLog", "send_error"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

access_log = logging.getLogger("ragloom.server.access")
log = logging.getLogger("ragloom.server")

REQUEST_ID = "ragloom.request_id"
CALLER = "ragloom.caller"
_SANE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


def request_id_of(scope: Scope) -> str | None:
    return scope.get(REQUEST_ID)


async def send_error(send: Send, scope: Scope, error: ApiError) -> None:
    """Send ``error`` as the whole response."""
    body = json.dumps(error_body(error, request_id_of(scope))).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *((k.lower().encode(), v.encode()) for k, v in error.headers.items()),
    ]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class RequestLog:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = _header(scope, b"x-request-id")
        request_id = given if given and _SANE_ID.match(given) else uuid.uuid4().hex[:16]
        scope[REQUEST_ID] = request_id
        status = 500
        started = False
        began = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                started = True
                status = message["status"]
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-request-id", request_id.encode()),
                ]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception as exc:
            error = from_exception(exc, request_id)
            status = error.status
            if not started:
                await send_error(send_with_id, scope, error)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is None or not task.cancelling():
                raise
            # cancelled from outside: the server stops, and `--shutdown-timeout`
            # ran out before this request ended. A JSON 503, not uvicorn's
            # plain-text 500 and a traceback
            task.uncancel()
            status = 503
            log.warning("request %s cut short: the server is stopping", request_id)
            if not started:
                with contextlib.suppress(Exception):  # the client may be gone
                    await send_error(
                        send_with_id,
                        scope,
                        ApiError(
                            "shutting_down",
                            "the server is stopping; try again when it is back",
                            headers={"Retry-After": "5"},
                        ),
                    )
        finally:
            caller = scope.get(CALLER)
            access_log.info(
                # the caller's name (keys file: 1-64 of letters, digits, _.:@-) and
                # the request id (as sane, or made here) cannot break the line
                "%s %s %d %.1fms caller=%s id=%s",
                scope.get("method"),
                _one_line(scope.get("path")),
                status,
                (time.perf_counter() - began) * 1000,
                caller.name if caller is not None else "-",
                request_id,
                extra={
                    "request_id": request_id,
                    "method": scope.get("method"),
                    "path": _one_line(scope.get("path")),
                    "status": status,
                    "ms": round((time.perf_counter() - began) * 1000, 2),
                    "caller": caller.name if caller is not None else None,
                    "client": (scope.get("client") or ("", 0))[0],
                },
            )


class ConcurrencyLimit:
    def __init__(
        self, app: ASGIApp, *, limit: int, retry_after: int, prefixes: tuple[str, ...]
    ) -> None:
        self.app = app
        self.limit = limit
        self.retry_after = retry_after
        self.prefixes = prefixes
        self.in_flight = 0  # one event loop: no lock needed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self.prefixes):
            await self.app(scope, receive, send)
            return
        authenticator = getattr(getattr(scope.get("app"), "state", None), "authenticator", None)
        if authenticator is not None:
            try:
                authenticator.of_scope(scope)
            except ApiError:
                # no valid key: the route answers 401; such a request holds no
                # slot, or sixteen idle sockets from anyone would lock out all
                await self.app(scope, receive, send)
                return
        if self.in_flight >= self.limit:
            await send_error(
                send,
                scope,
                ApiError(
                    "too_many_requests",
                    f"the server is handling {self.limit} requests, its limit; retry shortly",
                    headers={"Retry-After": str(self.retry_after)},
                ),
            )
            return
        self.in_flight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1


class BodyTooLarge(Exception):
    """A chunked request body passed the limit while it was read."""


class BodyTooSlow(Exception):
    """A request body did not arrive whole within the time limit."""


class BodyLimit:
    def __init__(self, app: ASGIApp, *, limit: int, timeout: float = 60.0) -> None:
        self.app = app
        self.limit = limit
        self.timeout = timeout

    def error(self) -> ApiError:
        return ApiError(
            "body_too_large", f"the request body is larger than {self.limit} bytes, the limit"
        )

    def slow(self) -> ApiError:
        return ApiError(
            "request_timeout",
            f"the request body did not arrive within {self.timeout:g}s (its Content-Length "
            "promised more than was sent?)",
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length")
        if length is not None:
            if not length.isdigit():
                await send_error(
                    send, scope, ApiError("invalid_request", "Content-Length is not a number")
                )
                return
            if int(length) > self.limit:
                await send_error(send, scope, self.error())
                return
        received = 0
        exceeded: ApiError | None = None
        replaced = False
        whole = False  # the body is in: later reads wait for a disconnect, unbounded
        deadline = asyncio.get_running_loop().time() + self.timeout

        async def limited_receive() -> Message:
            nonlocal received, exceeded, whole
            if whole:
                return await receive()
            left = deadline - asyncio.get_running_loop().time()
            try:
                message = await asyncio.wait_for(receive(), max(left, 0.0))
            except (TimeoutError, asyncio.TimeoutError):  # one class from 3.11 on
                exceeded = self.slow()
                raise BodyTooSlow() from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                whole = not message.get("more_body", False)
                if received > self.limit:
                    exceeded = self.error()
                    raise BodyTooLarge()
            return message

        async def watch(message: Message) -> None:
            # whatever the app made of the interrupted read (FastAPI: a 400),
            # the client is told the truth: 413, or 408
            nonlocal replaced
            if exceeded is not None:
                if not replaced and message["type"] == "http.response.start":
                    replaced = True
                    await send_error(send, scope, exceeded)
                return
            await send(message)

        try:
            await self.app(scope, limited_receive, watch)
        except (BodyTooLarge, BodyTooSlow):
            if not replaced and exceeded is not None:
                replaced = True
                await send_error(send, scope, exceeded)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _one_line(path: Any) -> Any:
    """A request path as a log line may hold it: ``%0A`` in a URL arrives as a
    newline, which would start a forged line in a text log; control
    characters are written as ``\\xNN``."""
    if not isinstance(path, str):
        return path
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}", path)
