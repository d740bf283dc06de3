"""The openai SDK, wired for ragloom: one ``openai.OpenAI`` client with its own
retries off (``ragloom.remote`` retries), the API key from the environment,
and the SDK's exceptions read for the retry policy."""

from __future__ import annotations

import json
import os
from typing import Any

from ragloom.errors import ComponentError
from ragloom.remote import Failure, classify_exception

__all__ = ["KEY_VARIABLE", "NO_KEY", "api_key", "classify", "connect", "is_openai"]

KEY_VARIABLE = "OPENAI_API_KEY"
NO_KEY = "no-key"
"""Sent as the key to an OpenAI-compatible server (``base_url``) when none is
configured: local servers (Ollama, llama.cpp, vLLM, LM Studio) ignore it, and
the SDK refuses to build a client without one."""


def is_openai(base_url: str | None) -> bool:
    """Whether ``base_url`` is OpenAI's own API (unset, or api.openai.com)."""
    return not base_url or "api.openai.com" in base_url


def api_key(configured: Any, base_url: str | None, error: type[ComponentError], what: str) -> str:
    """The key from the config (``api_key:``), else ``OPENAI_API_KEY``. OpenAI's
    API needs one (a one-line ``error`` naming the variable when there is none);
    another server (``base_url``) gets :data:`NO_KEY` when none is set."""
    value = configured.get_secret_value() if configured is not None else ""
    value = value or os.environ.get(KEY_VARIABLE, "")
    if value:
        return value
    if not is_openai(base_url):
        return NO_KEY
    raise error(
        f"{what}: no API key: set {KEY_VARIABLE} (or `api_key: ${{MY_VARIABLE}}` in its "
        "config; for a local OpenAI-compatible server, set `base_url`)"
    )


def connect(key: str, base_url: str | None, timeout: float) -> Any:
    """An ``openai.OpenAI`` client without retries of its own. ``base_url``
    includes the version (``http://localhost:11434/v1``)."""
    import openai

    return openai.OpenAI(api_key=key, base_url=base_url or None, timeout=timeout, max_retries=0)


def classify(exc: BaseException) -> Failure | None:
    """``classify_exception`` (statuses, ``Retry-After``/``retry-after-ms``,
    ``APITimeoutError``, ``APIConnectionError``), plus a body the SDK could not
    read (cut-short or malformed JSON, a response that does not validate):
    retried like a broken connection."""
    if isinstance(exc, json.JSONDecodeError):
        return Failure("connection", message=f"malformed JSON in the response ({exc.msg})")
    if type(exc).__name__ == "APIResponseValidationError":
        return Failure("connection", message="the response does not have the documented shape")
    return classify_exception(exc)
