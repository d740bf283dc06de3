"""The pinecone SDK, wired for ragloom: its retries off (``ragloom.remote`` retries),
its errors read for the retry policy, an index found or created and waited for."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ragloom.errors import StoreError
from ragloom.remote import Failure, classify_exception

__all__ = ["KEY_VARIABLE", "api_key", "classify", "connect", "data_plane"]

KEY_VARIABLE = "PINECONE_API_KEY"


def api_key(configured: Any) -> str:
    """The key from the config (``api_key:``) or ``PINECONE_API_KEY``; a one-line
    ``StoreError`` when neither is set."""
    value = configured.get_secret_value() if configured is not None else ""
    value = value or os.environ.get(KEY_VARIABLE, "")
    if not value:
        raise StoreError(
            f"pinecone: no API key: set {KEY_VARIABLE} (or `api_key: ${{MY_VARIABLE}}` "
            "in the store's config)"
        )
    return value


def classify(exc: BaseException) -> Failure | None:
    """``classify_exception``, plus the SDK's "could not parse the response" (a
    body cut short), which is retried like a broken connection."""
    from pinecone.errors.exceptions import ResponseParsingError

    if isinstance(exc, ResponseParsingError):
        return Failure("connection", message=f"malformed response: {exc}")
    return classify_exception(exc)


def connect(key: str, controller_host: str | None, timeout: float) -> Any:
    """A control-plane client with the SDK's own retries switched off."""
    from pinecone import Pinecone
    from pinecone._internal.config import RetryConfig

    return Pinecone(
        api_key=key,
        host=controller_host or None,
        timeout=timeout,
        retry_config=RetryConfig(max_retries=0),
        source_tag="ragloom",
        ssl_verify=_tls(controller_host),
    )


def _tls(host: str | None) -> bool:
    """Whether a host is reached over TLS: ``http://`` is cleartext, where loading
    the certificate store (~70 ms per client) buys nothing."""
    return not (host or "").startswith("http://")


def data_plane(key: str, host: str, timeout: float) -> Any:
    """The index's data-plane client, its built-in retries switched off.

    The SDK gives ``Index`` no ``retry_config`` (its REST transport always
    retries 408/429/5xx three times); the retrying transport's policy is
    replaced here. Should a future SDK move it, the index still works, with
    retries counted twice: the plugin's fault tests notice."""
    from pinecone import Index
    from pinecone._internal.config import RetryConfig

    index = Index(
        host=host, api_key=key, timeout=timeout, source_tag="ragloom", ssl_verify=_tls(host)
    )
    transport = getattr(getattr(getattr(index, "_http", None), "_client", None), "_transport", None)
    config = getattr(transport, "_config", None)
    if isinstance(config, RetryConfig):
        transport._config = replace(config, max_retries=0)
    return index


def wait_until_ready(
    describe: Callable[[], Any], timeout: float, sleep: Callable[[float], None], name: str
) -> Any:
    """Poll ``describe()`` until the index says it is ready (every second at most)."""
    deadline = time.monotonic() + timeout
    delay = 0.25
    while True:
        model = describe()
        if model.status.ready:
            return model
        if time.monotonic() >= deadline:
            raise StoreError(
                f"pinecone index {name!r} is not ready after {timeout:.0f}s (state "
                f"{model.status.state!r}); try again later or raise `create_timeout`"
            )
        sleep(delay)
        delay = min(1.0, delay * 2)


def dense_field(model: Any) -> tuple[int, str]:
    """(dimension, metric) of an index description's one dense vector field."""
    fields = getattr(getattr(model, "schema", None), "fields", None) or {}
    for field in fields.values():
        dimension = getattr(field, "dimension", None)
        if dimension is not None:
            return int(dimension), str(getattr(field, "metric", "cosine") or "cosine")
    raise StoreError(
        f"pinecone index {getattr(model, 'name', '?')!r} has no dense vector field: "
        "this store needs an index created with a dimension and a metric"
    )
