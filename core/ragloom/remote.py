"""Calling remote services: retries, ``Retry-After``, batching, and no dropped batch.

Every plugin that talks to a hosted API (embedders, stores, rerankers,
generators) follows the same rules, written once here:

- :class:`RetryPolicy`: how many attempts, exponential backoff with jitter
  and a cap, ``Retry-After`` honoured (seconds or an HTTP date, and
  ``retry-after-ms``); what is retried: 408, 425, 429, 5xx (but 501 and
  505), timeouts and connection errors; never other 4xx.
- :func:`retry`: runs one call under a policy. A plugin passes ``classify``,
  which reads an exception of its SDK into a :class:`Failure` (status,
  ``Retry-After``, message); :func:`classify_exception` already reads httpx,
  stdlib and the usual SDK shapes (``status_code`` plus ``headers`` or
  ``response.headers``). A failure that is not retried, or the last one,
  raises the plugin's error class (``EmbedderError``, ``StoreError``,
  ``RerankerError``...) saying what failed, after how many attempts, and what
  to do: a 401/403 names the variable holding the key, a 400/404/422 repeats
  the service's message and the option to check.
- :func:`batches` splits items by count and by serialized size, in order;
  :func:`send_batches` sends each batch under :func:`retry` and returns the
  results in order. A batch that finally fails raises (naming the batch and
  its items); a batch is never skipped, so the caller's ledger stays
  untouched for it and a rerun resumes.

SDKs with retries of their own must have them switched off, or the attempts
multiply and ``Retry-After`` is honoured twice: ``openai.OpenAI(max_retries=0)``,
``cohere.ClientV2(max_retries=0)``, ``pinecone.Pinecone(retry_config=RetryConfig(max_retries=0))``.

Tests inject ``sleep`` (and ``clock``, ``random``) instead of waiting::

    slept = []
    retry(call, RetryPolicy(max_attempts=4), sleep=slept.append, error=EmbedderError)

Nothing here imports an SDK or httpx at import time.
"""

from __future__ import annotations

import email.utils
import json
import math
import random as _random
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import Field, field_validator

from .components import ComponentConfig
from .errors import ComponentError

__all__ = [
    "BatchTooLargeError",
    "Failure",
    "RemoteOptions",
    "RetryPolicy",
    "batches",
    "classify_exception",
    "json_size",
    "parse_retry_after",
    "retry",
    "retry_after_from_headers",
    "send_batches",
]

T = TypeVar("T")
R = TypeVar("R")

FailureKind = Literal["status", "timeout", "connection"]

_REASONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    409: "Conflict",
    413: "Payload Too Large",
    422: "Unprocessable Entity",
    425: "Too Early",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


@dataclass(frozen=True)
class Failure:
    """One failed attempt, as a retry decision needs it.

    ``kind`` is ``"status"`` (the service answered with an error status),
    ``"timeout"`` (no answer in time) or ``"connection"`` (no connection, or
    it broke mid-answer). ``retry_after`` is the wait in seconds the service
    asked for, if it did; ``message`` what it said.
    """

    kind: FailureKind
    status: int | None = None
    retry_after: float | None = None
    message: str = ""

    def describe(self) -> str:
        """``429 Too Many Requests: slow down`` / ``timeout: read timed out``."""
        if self.kind == "status" and self.status is not None:
            head = f"{self.status} {_REASONS.get(self.status, 'error')}".rstrip()
        else:
            head = self.kind
        return f"{head}: {self.message}" if self.message else head


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before trying a failed call again.

    The wait before attempt ``n + 1`` is ``initial_delay * multiplier ** (n - 1)``
    capped at ``max_delay``, with "equal jitter" (between half of it and all
    of it) so that clients throttled together do not come back together. A
    ``Retry-After`` from the service replaces that wait (never shortened);
    one longer than ``max_retry_after`` ends the retries at once, saying how
    long the service asked to wait. ``deadline`` (seconds, optional) bounds
    the whole call: no retry starts that would sleep past it.
    """

    max_attempts: int = 5
    initial_delay: float = 0.5
    multiplier: float = 2.0
    max_delay: float = 20.0
    max_retry_after: float = 120.0
    deadline: float | None = None
    retry_statuses: frozenset[int] = field(default=frozenset({408, 425, 429}))
    """Statuses below 500 that are retried; every 5xx is, but 501 and 505."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("RetryPolicy.max_attempts must be at least 1")
        if self.initial_delay < 0 or self.max_delay < 0 or self.multiplier < 1:
            raise ValueError("RetryPolicy delays must be >= 0 and multiplier >= 1")

    def retryable(self, failure: Failure) -> bool:
        """Whether ``failure`` is worth another attempt (timeouts, connection
        errors, 408/425/429 and 5xx but 501/505; never another 4xx)."""
        if failure.kind != "status":
            return True
        status = failure.status or 0
        if status in self.retry_statuses:
            return True
        return 500 <= status <= 599 and status not in (501, 505)

    def backoff(self, attempt: int, random: Callable[[], float] = _random.random) -> float:
        """The jittered wait after failed attempt ``attempt`` (1-based), no Retry-After."""
        base = min(self.max_delay, self.initial_delay * self.multiplier ** (attempt - 1))
        return base / 2 + random() * base / 2

    def delay(
        self, attempt: int, failure: Failure, random: Callable[[], float] = _random.random
    ) -> float:
        """The wait before the next attempt: the service's ``Retry-After`` when it
        gave one, else :meth:`backoff`."""
        if failure.retry_after is not None:
            return max(0.0, failure.retry_after)
        return self.backoff(attempt, random)


class RemoteOptions(ComponentConfig):
    """Options every remote component shares; subclass it for a component's
    ``Config``. ``TRANSPORT_FIELDS`` name the options that never change results
    (a fingerprint leaves them out)."""

    timeout: float = Field(30.0, gt=0, description="Seconds to wait for one response.")
    max_retries: int = Field(
        4, ge=0, description="Retries after the first attempt (429, 5xx, timeouts)."
    )
    retry_initial_delay: float = Field(
        0.5, ge=0, description="Seconds before the first retry (doubled each time, jittered)."
    )
    retry_max_delay: float = Field(20.0, ge=0, description="Longest wait between two attempts.")

    TRANSPORT_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"timeout", "max_retries", "retry_initial_delay", "retry_max_delay", "api_key", "base_url"}
    )

    @field_validator("base_url", mode="after", check_fields=False)
    @classmethod
    def _a_whole_url(cls, value: Any) -> Any:
        """A ``base_url`` is a whole URL: without ``http://`` the SDKs failed
        every request as a connection error, after all their retries."""
        from urllib.parse import urlsplit

        if isinstance(value, str) and value:
            parts = urlsplit(value)
            if parts.scheme not in ("http", "https") or not parts.netloc or value != value.strip():
                raise ValueError(
                    f"base_url must be a whole URL with http:// or https:// "
                    f"(e.g. http://127.0.0.1:8080/v1), not {value!r}"
                )
        return value

    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(
            max_attempts=self.max_retries + 1,
            initial_delay=self.retry_initial_delay,
            max_delay=self.retry_max_delay,
        )


# -- Retry-After ---------------------------------------------------------------------------


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value: delta-seconds (``"3"``,
    ``"0.5"``) or an HTTP date (``"Wed, 21 Oct 2026 07:28:00 GMT"``, counted
    from ``now``, a Unix time, default the current time). None when absent or
    unreadable; never negative."""
    if value is None:
        return None
    text = str(value).strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if math.isnan(seconds):
        return None
    return max(0.0, seconds) if math.isfinite(seconds) else None


def retry_after_from_headers(headers: Any, now: float | None = None) -> float | None:
    """The wait a response's headers ask for: ``retry-after-ms`` (OpenAI) first,
    then ``retry-after``. ``headers`` is any mapping (case-insensitive or not)."""
    if not headers:
        return None
    try:
        items = {str(k).lower(): v for k, v in dict(headers).items()}
    except (TypeError, ValueError):
        return None
    ms = parse_retry_after(items.get("retry-after-ms"), now)
    if ms is not None:
        return ms / 1000.0
    return parse_retry_after(items.get("retry-after"), now)


# -- classifying exceptions -------------------------------------------------------------------


def classify_exception(exc: BaseException) -> Failure | None:
    """A :class:`Failure` for the exceptions of httpx, the standard library and
    SDKs shaped like the usual ones, or None for anything else (a bug, a bad
    argument), which :func:`retry` re-raises untouched.

    Read: an int ``status_code`` (or ``status``/``code``) with ``headers`` or
    ``response.headers`` (pinecone, cohere, openai's ``APIStatusError``,
    ``httpx.HTTPStatusError``, ``urllib.error.HTTPError``); exceptions whose
    class (or a base) is a timeout (``TimeoutError``, ``httpx.TimeoutException``,
    ``*TimeoutError``, ``*Timeout``) or a connection error
    (``ConnectionError``, ``httpx.TransportError``, ``*ConnectionError``,
    ``*ConnectError``, ``RemoteProtocolError``)."""
    status = _status_of(exc)
    if status is not None:
        headers = _headers_of(exc)
        return Failure(
            "status",
            status=status,
            retry_after=retry_after_from_headers(headers),
            message=_message_of(exc),
        )
    names = [cls.__name__ for cls in type(exc).__mro__]
    if isinstance(exc, TimeoutError) or any(
        n.endswith(("TimeoutError", "Timeout", "TimeoutException")) for n in names
    ):
        return Failure("timeout", message=_short(str(exc)) or type(exc).__name__)
    httpx = sys.modules.get("httpx")
    transport = httpx is not None and isinstance(exc, httpx.TransportError)
    if (
        transport
        or isinstance(exc, ConnectionError)
        or any(
            n.endswith(("ConnectionError", "ConnectError", "RemoteProtocolError", "NetworkError"))
            for n in names
        )
    ):
        return Failure("connection", message=_short(str(exc)) or type(exc).__name__)
    return None


def _status_of(exc: BaseException) -> int | None:
    for attr in ("status_code", "status", "code"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    if isinstance(value, int) and 100 <= value <= 599:
        return value
    return None


def _headers_of(exc: BaseException) -> Any:
    headers = getattr(exc, "headers", None)
    if headers is None or callable(headers):
        headers = getattr(getattr(exc, "response", None), "headers", None)
    return headers


def _message_of(exc: BaseException) -> str:
    """The service's own words, from the error body where one is at hand."""
    body = getattr(exc, "body", None)
    if body is None:
        response = getattr(exc, "response", None)
        try:
            body = response.json() if response is not None else None
        except Exception:  # noqa: BLE001 (a body that is not JSON: fall back to str)
            body = None
    text = _message_in(body)
    if not text:
        text = getattr(exc, "message", None) or str(exc)
    return _short(str(text))


def _message_in(body: Any) -> str:
    if isinstance(body, (bytes, bytearray)):
        try:
            body = json.loads(body)
        except ValueError:
            return body.decode("utf-8", "replace")
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return body
    if isinstance(body, Mapping):
        for key in ("message", "error", "detail"):
            value = body.get(key)
            if isinstance(value, Mapping):
                value = value.get("message") or json.dumps(value)
            if value:
                return str(value)
    return ""


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- retry ---------------------------------------------------------------------------------------


def retry(
    call: Callable[[], R],
    policy: RetryPolicy | None = None,
    *,
    classify: Callable[[BaseException], Failure | None] = classify_exception,
    error: type[ComponentError] = ComponentError,
    what: str = "the request",
    key_variable: str | None = None,
    hint: str | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    random: Callable[[], float] = _random.random,
    on_retry: Callable[[int, Failure, float], None] | None = None,
) -> R:
    """``call()``, tried again under ``policy`` while it fails in a way worth retrying.

    :param call: the request, without arguments (a lambda or ``functools.partial``).
    :param policy: the :class:`RetryPolicy` (default: ``RetryPolicy()``).
    :param classify: reads an exception into a :class:`Failure`; None means "not a
        service failure": the exception propagates unchanged, without retries.
    :param error: the ragloom error raised when the call finally fails
        (``EmbedderError``, ``StoreError``, ``RerankerError``, ``GeneratorError``).
    :param what: names the call in messages (``"cohere rerank (model rerank-v3.5)"``).
    :param key_variable: the environment variable holding the API key, named
        when the service answers 401 or 403.
    :param hint: what to check when the service rejects the request (400, 404,
        413, 422), e.g. ``"the `model` option"``.
    :param sleep, clock, random: injectable for tests.
    :param on_retry: called as ``on_retry(attempt, failure, delay)`` before each wait.
    :returns: what ``call()`` returned.
    :raises error: with ``status``, ``attempts`` and ``failure`` set as attributes,
        chained to the last exception.
    """
    policy = policy or RetryPolicy()
    start = clock()
    attempt = 0
    while True:
        attempt += 1
        try:
            return call()
        except Exception as exc:
            failure = classify(exc)
            if failure is None:
                raise
            give_up = _give_up_reason(policy, attempt, failure, start, clock)
            if give_up is None:
                delay = policy.delay(attempt, failure, random)
                if failure.retry_after is not None and failure.retry_after > policy.max_retry_after:
                    give_up = (
                        f"the service asked to wait {failure.retry_after:.0f}s before trying "
                        f"again, more than the {policy.max_retry_after:.0f}s this client waits; "
                        "try again later"
                    )
                elif policy.deadline is not None and clock() - start + delay > policy.deadline:
                    give_up = f"no time left for a retry within {policy.deadline:.0f}s"
            if give_up is not None:
                raise _final_error(
                    error, what, attempt, failure, give_up, key_variable, hint
                ) from exc
            if on_retry is not None:
                on_retry(attempt, failure, delay)
            sleep(delay)


def _give_up_reason(
    policy: RetryPolicy, attempt: int, failure: Failure, start: float, clock: Callable[[], float]
) -> str | None:
    if not policy.retryable(failure):
        return ""
    if attempt >= policy.max_attempts:
        return f"gave up after {attempt} attempt(s)"
    if policy.deadline is not None and clock() - start >= policy.deadline:
        return f"gave up after {attempt} attempt(s) within {policy.deadline:.0f}s"
    return None


def _final_error(
    error: type[ComponentError],
    what: str,
    attempts: int,
    failure: Failure,
    reason: str,
    key_variable: str | None,
    hint: str | None,
) -> ComponentError:
    status = failure.status
    if failure.kind == "status" and status in (401, 403):
        variable = f"set {key_variable}" if key_variable else "set the service's API key"
        verb = "refused the API key" if status == 401 else "denied access with this API key"
        text = (
            f"{what}: the service {verb} ({failure.describe()}); {variable} to a valid key "
            "(or the component's `api_key` option)"
        )
    elif failure.kind == "status" and reason == "":
        todo = f"; check {hint}" if hint else ""
        said = failure.describe().lower()
        if status == 400 and "context" in said and ("length" in said or "window" in said):
            # the prompt and the answer do not fit the model's window
            todo = (
                "; the prompt and the answer must fit the model's context window: lower "
                "the generator's `max_context_tokens` (the passages) or `max_tokens`"
            )
        if status == 404:  # a missing model, or no such path at all: a base URL without /v1
            todo += (
                " and the service's address (`base_url`: an OpenAI-compatible server's "
                "ends with its API version, such as /v1)"
            )
        text = f"{what} was rejected ({failure.describe()}){todo}"
    else:
        extra = {
            "timeout": "; raise the `timeout` option if the service is slow",
            "connection": "; check the network and the service's address (`base_url`/`host`)",
        }.get(failure.kind, "")
        text = f"{what} failed: {failure.describe()}; {reason}{extra}"
    exc = error(text)
    exc.status = status  # type: ignore[attr-defined]
    exc.attempts = attempts  # type: ignore[attr-defined]
    exc.failure = failure  # type: ignore[attr-defined]
    return exc


# -- batching ------------------------------------------------------------------------------------


class BatchTooLargeError(ValueError):
    """One item is larger than a whole request may be; ``index`` is its position."""

    def __init__(self, index: int, size: int, limit: int) -> None:
        super().__init__(
            f"item {index} takes {size} bytes serialized, more than the {limit} bytes one "
            "request may carry"
        )
        self.index = index
        self.size = size
        self.limit = limit


def json_size(item: Any) -> int:
    """Bytes of ``item`` as compact JSON (UTF-8): what it adds to a JSON request."""
    return len(json.dumps(item, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def batches(
    items: Sequence[T],
    *,
    max_count: int,
    max_bytes: int | None = None,
    size: Callable[[T], int] = json_size,
    overhead: int = 0,
) -> Iterator[tuple[int, list[T]]]:
    """Split ``items`` into consecutive batches of at most ``max_count`` items and,
    when ``max_bytes`` is given, at most ``max_bytes`` bytes: the sum of each
    item's ``size`` plus one byte between items (a JSON comma) plus ``overhead``
    (the rest of the request). Yields ``(start, batch)`` in order, ``start`` being
    the index of the batch's first item. Raises :class:`BatchTooLargeError` for
    an item that cannot fit in any request."""
    if max_count < 1:
        raise ValueError("max_count must be at least 1")
    batch: list[T] = []
    start = 0
    used = overhead
    for index, item in enumerate(items):
        cost = size(item) if max_bytes is not None else 0
        if max_bytes is not None and overhead + cost > max_bytes:
            raise BatchTooLargeError(index, cost, max_bytes - overhead)
        extra = cost + (1 if batch else 0)
        if batch and (
            len(batch) >= max_count or (max_bytes is not None and used + extra > max_bytes)
        ):
            yield start, batch
            batch, start, used = [], index, overhead
            extra = cost
        batch.append(item)
        used += extra
    if batch:
        yield start, batch


def keep_done(exc: BaseException) -> None:
    """For an embedder: the vectors of the batches :func:`send_batches` sent
    before the one that failed (``exc.partial``), stacked into
    ``exc.done`` (see ``EmbedderError``), so that the index run caches them."""
    import numpy as np

    parts = getattr(exc, "partial", None)
    if parts and len({np.shape(p)[1] for p in parts}) == 1:
        exc.done = np.ascontiguousarray(np.vstack(parts), dtype=np.float32)  # type: ignore[attr-defined]


def send_batches(
    items: Sequence[T],
    send: Callable[[list[T]], R],
    *,
    max_count: int,
    max_bytes: int | None = None,
    size: Callable[[T], int] = json_size,
    overhead: int = 0,
    policy: RetryPolicy | None = None,
    classify: Callable[[BaseException], Failure | None] = classify_exception,
    error: type[ComponentError] = ComponentError,
    what: str = "the request",
    key_variable: str | None = None,
    hint: str | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    random: Callable[[], float] = _random.random,
) -> list[R]:
    """Send ``items`` in :func:`batches`, each under :func:`retry`; the results in
    batch order. A batch that finally fails raises ``error`` naming the batch,
    its items and how many batches went through before it: it is never skipped,
    and none after it is sent."""
    parts = list(batches(items, max_count=max_count, max_bytes=max_bytes, size=size,
                         overhead=overhead))  # fmt: skip
    results: list[R] = []
    for number, (start, batch) in enumerate(parts, 1):
        label = what
        if len(parts) > 1:
            label = (
                f"{what}, batch {number} of {len(parts)} (items {start}-{start + len(batch) - 1})"
            )
        try:
            results.append(
                retry(
                    lambda batch=batch: send(batch),  # type: ignore[misc]
                    policy,
                    classify=classify,
                    error=error,
                    what=label,
                    key_variable=key_variable,
                    hint=hint,
                    sleep=sleep,
                    clock=clock,
                    random=random,
                )
            )
        except ComponentError as exc:
            if number > 1:
                exc.args = (
                    f"{exc.args[0]} ({number - 1} earlier batch(es) went through; nothing "
                    "after this one was sent)",
                )
            # what went through, for a caller that keeps it (an embedder's vectors)
            exc.partial = results  # type: ignore[attr-defined]
            raise
    return results
