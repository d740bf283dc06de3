"""ragloom.remote: the retry policy, Retry-After, batching, and no dropped batch.
No test sleeps: ``sleep``, ``clock`` and ``random`` are injected."""

from __future__ import annotations

import email.utils
import urllib.error
from typing import Any

import httpx
import pytest
from ragloom.errors import EmbedderError, StoreError
from ragloom.remote import (
    BatchTooLargeError,
    Failure,
    RemoteOptions,
    RetryPolicy,
    batches,
    classify_exception,
    json_size,
    parse_retry_after,
    retry,
    retry_after_from_headers,
    send_batches,
)


class ApiError(Exception):
    """Shaped like the pinecone and cohere SDKs' errors."""

    def __init__(self, status: int, headers: dict[str, str] | None = None, body: Any = None):
        super().__init__(f"status {status}")
        self.status_code = status
        self.headers = headers or {}
        self.body = body


def script(*outcomes: Any) -> Any:
    """A call that raises or returns each outcome in turn; counts its calls."""
    queue = list(outcomes)

    def call() -> Any:
        call.count += 1  # type: ignore[attr-defined]
        outcome = queue.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    call.count = 0  # type: ignore[attr-defined]
    return call


def test_retry_after_seconds_and_http_date() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 0.5 ") == 0.5
    assert parse_retry_after("-4") == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert parse_retry_after(date, now=1_000_000) == 30.0
    assert parse_retry_after(date, now=1_000_100) == 0.0
    assert retry_after_from_headers({"Retry-After": "2", "retry-after-ms": "250"}) == 0.25
    assert retry_after_from_headers(httpx.Headers({"retry-after": "7"})) == 7.0


def test_429_three_times_then_ok_honours_retry_after() -> None:
    call = script(*[ApiError(429, {"Retry-After": "2"})] * 3, "done")
    slept: list[float] = []
    assert retry(call, RetryPolicy(max_attempts=4), sleep=slept.append) == "done"
    assert call.count == 4 and slept == [2.0, 2.0, 2.0]


def test_backoff_is_exponential_jittered_and_capped() -> None:
    policy = RetryPolicy(max_attempts=6, initial_delay=1.0, multiplier=2.0, max_delay=5.0)
    call = script(*[ApiError(503)] * 5, "ok")
    slept: list[float] = []
    retry(call, policy, sleep=slept.append, random=lambda: 1.0)
    assert slept == [1.0, 2.0, 4.0, 5.0, 5.0]
    low: list[float] = []
    retry(script(*[ApiError(500)] * 3, "ok"), policy, sleep=low.append, random=lambda: 0.0)
    assert low == [0.5, 1.0, 2.0], "equal jitter: never below half the backoff"


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422, 501])
def test_client_errors_are_never_retried(status: int) -> None:
    call = script(ApiError(status, body={"message": "nope"}), "never")
    slept: list[float] = []
    with pytest.raises(StoreError) as caught:
        retry(call, sleep=slept.append, error=StoreError, what="pinecone upsert",
              key_variable="PINECONE_API_KEY", hint="the `index` option")  # fmt: skip
    assert call.count == 1 and slept == []
    message = str(caught.value)
    assert caught.value.status == status and caught.value.attempts == 1  # type: ignore[attr-defined]
    if status in (401, 403):
        assert "set PINECONE_API_KEY" in message and f"{status}" in message
    else:
        assert "rejected" in message and "nope" in message and "the `index` option" in message


def test_timeouts_and_connection_errors_are_retried_then_reported() -> None:
    request = httpx.Request("POST", "http://127.0.0.1:1/x")
    call = script(
        httpx.ReadTimeout("timed out", request=request),
        httpx.ConnectError("refused", request=request),
        TimeoutError("slow"),
    )
    with pytest.raises(EmbedderError) as caught:
        retry(call, RetryPolicy(max_attempts=3), sleep=lambda s: None, error=EmbedderError,
              what="cohere embed")  # fmt: skip
    message = str(caught.value)
    assert call.count == 3 and "gave up after 3 attempt(s)" in message
    assert "timeout" in message and "raise the `timeout` option" in message
    assert isinstance(caught.value.__cause__, TimeoutError)


def test_unclassified_exceptions_propagate_untouched() -> None:
    call = script(ValueError("a bug"), "never")
    with pytest.raises(ValueError, match="a bug"):
        retry(call, sleep=lambda s: None)
    assert call.count == 1


def test_a_retry_after_longer_than_the_policy_waits_gives_up_at_once() -> None:
    call = script(ApiError(429, {"Retry-After": "3600"}), "never")
    slept: list[float] = []
    with pytest.raises(StoreError, match="asked to wait 3600s.*try again later"):
        retry(call, RetryPolicy(max_retry_after=60), sleep=slept.append, error=StoreError)
    assert slept == []


def test_deadline_bounds_the_whole_call() -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    call = script(*[ApiError(503)] * 10)
    policy = RetryPolicy(max_attempts=10, initial_delay=4, multiplier=1, deadline=10)
    with pytest.raises(StoreError, match="within 10s"):
        retry(call, policy, sleep=sleep, clock=lambda: now[0], random=lambda: 1.0,
              error=StoreError)  # fmt: skip
    assert slept == [4.0, 4.0] and call.count == 3


def test_classify_reads_the_usual_shapes() -> None:
    response = httpx.Response(429, headers={"retry-after": "5"}, json={"error": {"message": "x"}},
                              request=httpx.Request("GET", "http://h"))  # fmt: skip
    failure = classify_exception(httpx.HTTPStatusError("429", request=response.request,
                                                       response=response))  # fmt: skip
    assert failure == Failure("status", status=429, retry_after=5.0, message="x")
    http_error = urllib.error.HTTPError("http://h", 503, "busy", {"Retry-After": "1"}, None)  # type: ignore[arg-type]
    assert classify_exception(http_error) == Failure("status", 503, 1.0, "HTTP Error 503: busy")

    class APITimeoutError(Exception):  # openai's name
        pass

    class APIConnectionError(Exception):
        pass

    assert classify_exception(APITimeoutError("t")).kind == "timeout"  # type: ignore[union-attr]
    assert classify_exception(APIConnectionError("c")).kind == "connection"  # type: ignore[union-attr]
    assert classify_exception(KeyError("k")) is None


def test_batches_split_by_count_and_bytes_in_order() -> None:
    items = [{"id": i, "text": "x" * 10} for i in range(10)]
    size = json_size(items[0])
    by_count = list(batches(items, max_count=4))
    assert [start for start, _ in by_count] == [0, 4, 8]
    assert [item for _, batch in by_count for item in batch] == items
    by_bytes = list(batches(items, max_count=100, max_bytes=3 * size + 2 + 10, overhead=10))
    assert [len(b) for _, b in by_bytes] == [3, 3, 3, 1]
    for _, batch in by_bytes:
        assert json_size(batch) + 10 - 2 <= 3 * size + 2 + 10
    with pytest.raises(BatchTooLargeError) as caught:
        list(batches([{"t": "y" * 100}], max_count=5, max_bytes=50))
    assert caught.value.index == 0
    assert list(batches([], max_count=3)) == []


def test_send_batches_never_drops_a_batch() -> None:
    sent: list[list[int]] = []
    failures = iter([None, ApiError(503), ApiError(503), None])

    def send(batch: list[int]) -> int:
        failure = next(failures)
        if failure is not None:
            raise failure
        sent.append(batch)
        return sum(batch)

    with pytest.raises(EmbedderError) as caught:
        send_batches(list(range(9)), send, max_count=3, policy=RetryPolicy(max_attempts=2),
                     error=EmbedderError, what="embed", sleep=lambda s: None)  # fmt: skip
    message = str(caught.value)
    assert "batch 2 of 3 (items 3-5)" in message and "1 earlier batch(es) went through" in message
    assert sent == [[0, 1, 2]], "the third batch is never sent after the second failed"
    ok = send_batches(list(range(5)), lambda b: b, max_count=2, sleep=lambda s: None)
    assert ok == [[0, 1], [2, 3], [4]]


def test_remote_options_make_the_policy() -> None:
    options = RemoteOptions(max_retries=2, retry_initial_delay=0.1, retry_max_delay=3)
    assert options.retry_policy() == RetryPolicy(max_attempts=3, initial_delay=0.1, max_delay=3)
    assert "timeout" in RemoteOptions.TRANSPORT_FIELDS
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
