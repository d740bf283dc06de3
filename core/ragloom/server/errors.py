"""Errors as JSON with a stable code, never a stack trace.

Every error response has one shape, the one OpenAI's API uses, so that its
SDKs read ours too::

    {"error": {"code": "unauthorized", "type": "authentication_error",
               "message": "...", "param": null, "request_id": "3f9c..."}}

``code`` is stable (clients branch on it); ``message`` is for people. A
failure on the server's side (a component, the index, a bug) says only what
kind it was and the request id; the details go to the server's log under
that id. ``ragloom mcp`` on stdio, whose log is its host's to keep or drop,
is also told why the index cannot be queried (``from_exception(local=True)``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..errors import (
    AccessError,
    ComponentError,
    ConfigError,
    FilterError,
    IndexRebuildingError,
    IndexStateError,
    InvalidRequestError,
    PluginError,
    RagloomError,
)
from ..logs import redact

__all__ = ["CODES", "ApiError", "error_body", "from_exception"]

log = logging.getLogger("ragloom.server")

CODES: dict[str, tuple[int, str]] = {
    # code: (HTTP status, OpenAI-style type)
    "invalid_request": (400, "invalid_request_error"),
    "invalid_json": (400, "invalid_request_error"),
    "invalid_filter": (400, "invalid_request_error"),
    "unsupported": (400, "invalid_request_error"),
    "unauthorized": (401, "authentication_error"),
    "forbidden": (403, "permission_error"),
    "not_found": (404, "not_found_error"),
    "model_not_found": (404, "not_found_error"),
    "method_not_allowed": (405, "invalid_request_error"),
    "request_timeout": (408, "timeout_error"),
    "index_busy": (409, "conflict_error"),
    "body_too_large": (413, "invalid_request_error"),
    "unsupported_media_type": (415, "invalid_request_error"),
    "validation_error": (422, "invalid_request_error"),
    "too_many_requests": (429, "rate_limit_error"),
    "internal_error": (500, "server_error"),
    "component_error": (502, "server_error"),
    "not_ready": (503, "server_error"),
    "index_unavailable": (503, "server_error"),
    "shutting_down": (503, "server_error"),
    "timeout": (504, "timeout_error"),
}


class ApiError(Exception):
    """An error response: ``code`` (a key of ``CODES``) sets the status."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        details: Any = None,
        param: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.status = CODES[code][0]
        self.message = message
        self.headers = headers or {}
        self.details = details
        self.param = param


def error_body(error: ApiError, request_id: str | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "code": error.code,
        "type": CODES[error.code][1],
        "message": error.message,
        "param": error.param,
        "request_id": request_id,
    }
    if error.details is not None:
        body["details"] = error.details
    return {"error": body}


def from_exception(
    exc: BaseException, request_id: str | None, *, admin: bool = False, local: bool = False
) -> ApiError:
    """The response for an exception raised while handling a request. Only
    what the caller did wrong is described in full; for an admin (index
    runs), ragloom's own messages are passed on too. ``local`` (``ragloom
    mcp`` on stdio: its one caller is who started it, on the same machine)
    passes on why the index cannot be queried, redacted as the log is: it
    names the fix (rebuild, restart) and no secret, and the "server log" is
    a subprocess's stderr, which agent hosts often drop. ``request_id`` None
    (no request has one) is left out of the messages."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, FilterError):
        return ApiError("invalid_filter", str(exc), param="filters")
    if isinstance(exc, InvalidRequestError):
        return ApiError("invalid_request", str(exc))
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return ApiError("timeout", "the request took longer than the server's time limit")
    if isinstance(exc, AccessError):
        return ApiError("forbidden", "this server enforces access control: use an API key")
    if isinstance(exc, IndexRebuildingError):  # nothing to hide, and worth a retry
        return ApiError("index_unavailable", str(exc))
    if isinstance(exc, IndexStateError):
        message = str(exc)
        if admin and "lock" in message:
            return ApiError("index_busy", message)
        # its message says what is wrong and what to do: no traceback with it
        _log_failure(exc, request_id, traceback=False)
        if admin:
            return ApiError("index_unavailable", message)
        if local:
            return ApiError("index_unavailable", redact(message))
        # over HTTP it names the index's path on the server: the log has it
        return ApiError(
            "index_unavailable",
            f"the index cannot be queried right now; the server log says why{_under(request_id)}",
        )
    if admin and (isinstance(exc, (ConfigError, PluginError)) or type(exc) is RagloomError):
        # a source no loader covers, a bad option: the admin's request was wrong
        return ApiError("invalid_request", str(exc))
    if isinstance(exc, ComponentError):
        _log_failure(exc, request_id)
        return ApiError(
            "component_error",
            f"a component of the pipeline failed ({type(exc).__name__}); "
            f"the server log has the details{_under(request_id)}",
        )
    _log_failure(exc, request_id)
    kind = "ragloom error" if isinstance(exc, RagloomError) else "unexpected error"
    return ApiError("internal_error", f"{kind}; the server log has the details{_under(request_id)}")


def _under(request_id: str | None) -> str:
    """`` (request ID)``, for a message that sends its reader to the log; ""
    for no id: "(request None)" finds nothing there."""
    return f" (request {request_id})" if request_id is not None else ""


def _log_failure(exc: BaseException, request_id: str | None, *, traceback: bool = True) -> None:
    log.error(
        "%s failed: %s: %s",
        f"request {request_id}" if request_id is not None else "a request",
        type(exc).__name__,
        exc,
        exc_info=(type(exc), exc, exc.__traceback__) if traceback else None,
        extra={"request_id": request_id},
    )
