"""What a user gets when Pinecone misbehaves: retried, retried, retried, one clear error."""

from __future__ import annotations

import numpy as np
import pytest
from ragloom import Context
from ragloom.errors import StoreError
from ragloom.testing import contract_chunks, contract_vectors
from ragloom.testing.servers import FakePinecone, Fault

from ragloom_pinecone import PineconeStore


def opened(server: FakePinecone, slept: list[float], **options: object) -> PineconeStore:
    store = PineconeStore(index="contract", controller_host=server.url, **options)
    store._sleep = slept.append
    store.open(Context(name="contract"))
    return store


def test_429_three_times_then_ok_honours_retry_after(pinecone_server: FakePinecone) -> None:
    slept: list[float] = []
    store = opened(pinecone_server, slept)
    pinecone_server.clear()
    pinecone_server.fail(Fault.status(429, retry_after="2"), times=3, path="/vectors/upsert")
    store.upsert(contract_chunks(), contract_vectors())
    assert len(pinecone_server.calls("/vectors/upsert")) == 4, "the SDK must not retry too"
    assert slept == [2.0, 2.0, 2.0], "Retry-After is honoured, not shortened"
    assert store.count() == 10


def test_500_then_ok_backs_off(pinecone_server: FakePinecone) -> None:
    slept: list[float] = []
    store = opened(pinecone_server, slept, retry_initial_delay=0.5)
    pinecone_server.clear()
    pinecone_server.fail(Fault.status(500), path="/query")
    store.upsert(contract_chunks(), contract_vectors())
    hits = store.query(vector=contract_vectors()[0], k=3)
    assert [h.chunk.id for h in hits] == ["c01", "c02", "c03"]
    assert len(pinecone_server.calls("/query")) == 2
    assert len(slept) == 1 and 0.25 <= slept[0] <= 0.5, slept


def test_timeout_is_retried(pinecone_server: FakePinecone) -> None:
    slept: list[float] = []
    store = opened(pinecone_server, slept, timeout=0.2)
    store.upsert(contract_chunks(), contract_vectors())
    pinecone_server.fail(Fault.delay(0.6), path="/describe_index_stats")
    assert store.count() == 10
    assert len(pinecone_server.calls("/describe_index_stats")) == 2
    assert len(slept) == 1


def test_truncated_json_is_retried(pinecone_server: FakePinecone) -> None:
    store = opened(pinecone_server, [])
    store.upsert(contract_chunks(), contract_vectors())
    pinecone_server.fail(Fault.truncated(), path="/query")
    assert len(store.query(vector=contract_vectors()[0], k=10)) == 10


def test_permanent_401_is_one_clear_error(
    pinecone_server: FakePinecone, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PINECONE_API_KEY", "wrong-key")
    slept: list[float] = []
    with pytest.raises(StoreError) as caught:
        opened(pinecone_server, slept)
    message = str(caught.value)
    assert "PINECONE_API_KEY" in message and "401" in message, message
    assert "\n" not in message
    assert len(pinecone_server.calls()) == 1 and slept == [], "a 401 is never retried"


def test_missing_key_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PINECONE_API_KEY", raising=False)
    with pytest.raises(StoreError, match=r"^pinecone: no API key: set PINECONE_API_KEY") as caught:
        PineconeStore(index="docs").open(Context(name="docs"))
    assert "\n" not in str(caught.value)


def test_a_batch_that_keeps_failing_raises_and_names_it(pinecone_server: FakePinecone) -> None:
    slept: list[float] = []
    store = opened(pinecone_server, slept, batch_size=4, max_retries=2)
    pinecone_server.clear()
    # batch 1 goes through; batch 2 fails on every attempt (three)
    faults = [Fault.ok(), Fault.status(503), Fault.status(503), Fault.status(503)]
    pinecone_server.fail(*faults, path="/vectors/upsert")
    with pytest.raises(StoreError) as caught:
        store.upsert(contract_chunks(), contract_vectors())
    message = str(caught.value)
    assert "batch 2 of 3" in message and "503" in message and "1 earlier batch" in message
    assert len(slept) == 2
    assert set(pinecone_server.vectors("contract")) == {"c01", "c02", "c03", "c04"}
    assert len(pinecone_server.calls("/vectors/upsert")) == 4, "nothing after the failed batch"


def test_bad_request_is_not_retried(pinecone_server: FakePinecone) -> None:
    slept: list[float] = []
    store = opened(pinecone_server, slept)
    pinecone_server.fail(Fault.status(400, {"code": 3, "message": "bad vector"}))
    with pytest.raises(StoreError, match="rejected.*400.*bad vector"):
        store.upsert(contract_chunks()[:1], np.ones((1, 16), np.float32))
    assert slept == []
