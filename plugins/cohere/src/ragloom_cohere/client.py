"""The cohere SDK, wired for ragloom: one ``ClientV2`` with its own retries off
(``ragloom.remote`` retries), the API key from the environment, errors read for
the retry policy."""

from __future__ import annotations

import os
from typing import Any

from ragloom.errors import ComponentError
from ragloom.remote import Failure, classify_exception

__all__ = ["KEY_VARIABLE", "KEY_VARIABLES", "api_key", "classify", "connect"]

KEY_VARIABLES = ("CO_API_KEY", "COHERE_API_KEY")
KEY_VARIABLE = "CO_API_KEY"


def api_key(configured: Any, error: type[ComponentError], what: str) -> str:
    """The key from the config (``api_key:``), else ``CO_API_KEY``, else
    ``COHERE_API_KEY``; a one-line ``error`` when none is set."""
    value = configured.get_secret_value() if configured is not None else ""
    for variable in KEY_VARIABLES:
        value = value or os.environ.get(variable, "")
    if not value:
        raise error(
            f"{what}: no API key: set CO_API_KEY (or COHERE_API_KEY, or "
            "`api_key: ${MY_VARIABLE}` in its config)"
        )
    return value


def connect(key: str, base_url: str | None, timeout: float) -> Any:
    """A ``cohere.ClientV2`` without retries of its own. ``base_url`` is the
    service root (``https://api.cohere.com``; no ``/v2``)."""
    import cohere

    return cohere.ClientV2(api_key=key, base_url=base_url or None, timeout=timeout, max_retries=0)


def classify(exc: BaseException) -> Failure | None:
    """``classify_exception``, plus the SDK's way of reporting a body that is not
    JSON (an ``ApiError`` with a 2xx status, e.g. a response cut short): retried
    like a broken connection."""
    failure = classify_exception(exc)
    if failure is not None and failure.kind == "status" and (failure.status or 0) < 300:
        return Failure("connection", message="malformed response body")
    return failure
