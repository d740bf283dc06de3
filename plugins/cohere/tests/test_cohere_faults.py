"""What a user gets when Cohere misbehaves: retried, retried, retried, one clear error."""

from __future__ import annotations

import pytest
from ragloom import Context
from ragloom.errors import EmbedderError, RerankerError
from ragloom.testing import CONTRACT_PASSAGES, CONTRACT_QUERY, contract_hits
from ragloom.testing.servers import FakeCohere, Fault

from ragloom_cohere import CohereEmbedder, CohereReranker


def reranker(server: FakeCohere, slept: list[float], **options: object) -> CohereReranker:
    component = CohereReranker(base_url=server.url, **options)
    component._sleep = slept.append
    component.open(Context(name="cohere"))
    return component


def embedder(server: FakeCohere, slept: list[float], **options: object) -> CohereEmbedder:
    component = CohereEmbedder(base_url=server.url, model="embed-english-light-v3.0", **options)
    component._sleep = slept.append
    component.open(Context(name="cohere"))
    return component


@pytest.mark.parametrize("kind", ["rerank", "embed"])
def test_429_three_times_then_ok_honours_retry_after(cohere_server: FakeCohere, kind: str) -> None:
    slept: list[float] = []
    cohere_server.fail(Fault.status(429, retry_after="3"), times=3)
    if kind == "rerank":
        hits = reranker(cohere_server, slept).rerank(CONTRACT_QUERY, contract_hits())
        assert hits[0].chunk.id == "r2" and hits[0].scores["rerank"] == hits[0].score
    else:
        vectors = embedder(cohere_server, slept).embed_documents(CONTRACT_PASSAGES)
        assert vectors.shape == (6, 384)
    assert len(cohere_server.calls(f"/v2/{kind}")) == 4, "the SDK must not retry too"
    assert slept == [3.0, 3.0, 3.0]


@pytest.mark.parametrize("kind", ["rerank", "embed"])
def test_500_then_ok_backs_off(cohere_server: FakeCohere, kind: str) -> None:
    slept: list[float] = []
    cohere_server.fail(Fault.status(500))
    if kind == "rerank":
        assert len(reranker(cohere_server, slept).rerank(CONTRACT_QUERY, contract_hits())) == 6
    else:
        assert embedder(cohere_server, slept).embed_query("pricing").shape == (384,)
    assert len(cohere_server.calls(f"/v2/{kind}")) == 2
    assert len(slept) == 1 and 0.25 <= slept[0] <= 0.5


@pytest.mark.parametrize("kind", ["rerank", "embed"])
def test_timeout_is_retried(cohere_server: FakeCohere, kind: str) -> None:
    slept: list[float] = []
    cohere_server.fail(Fault.delay(0.6))
    if kind == "rerank":
        component = reranker(cohere_server, slept, timeout=0.2)
        assert len(component.rerank(CONTRACT_QUERY, contract_hits(), top_k=2)) == 2
    else:
        assert embedder(cohere_server, slept, timeout=0.2).embed_documents(["a b"]).shape == (
            1,
            384,
        )
    assert len(cohere_server.calls(f"/v2/{kind}")) == 2 and len(slept) == 1


def test_truncated_json_is_retried(cohere_server: FakeCohere) -> None:
    cohere_server.fail(Fault.truncated())
    assert len(reranker(cohere_server, []).rerank(CONTRACT_QUERY, contract_hits())) == 6
    assert len(cohere_server.calls("/v2/rerank")) == 2


@pytest.mark.parametrize("kind", ["rerank", "embed"])
def test_permanent_401_is_one_clear_error(
    cohere_server: FakeCohere, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setenv("CO_API_KEY", "revoked")
    slept: list[float] = []
    error = RerankerError if kind == "rerank" else EmbedderError
    with pytest.raises(error) as caught:
        if kind == "rerank":
            reranker(cohere_server, slept).rerank(CONTRACT_QUERY, contract_hits())
        else:
            embedder(cohere_server, slept).embed_query("pricing")
    message = str(caught.value)
    assert "CO_API_KEY" in message and "401" in message and "\n" not in message, message
    assert len(cohere_server.calls()) == 1 and slept == [], "a 401 is never retried"


def test_missing_key_names_both_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CO_API_KEY", raising=False)
    monkeypatch.delenv("COHERE_API_KEY", raising=False)
    with pytest.raises(RerankerError, match=r"set CO_API_KEY \(or COHERE_API_KEY"):
        CohereReranker().open(Context(name="cohere"))
    with pytest.raises(EmbedderError, match="CO_API_KEY"):
        CohereEmbedder().open(Context(name="cohere"))


def test_cohere_api_key_is_accepted(
    cohere_server: FakeCohere, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = monkeypatch.delenv("CO_API_KEY")
    monkeypatch.setenv("COHERE_API_KEY", cohere_server.api_key or "")
    assert key is None
    assert len(reranker(cohere_server, []).rerank(CONTRACT_QUERY, contract_hits())) == 6


def test_an_embed_batch_that_keeps_failing_raises_and_names_it(cohere_server: FakeCohere) -> None:
    slept: list[float] = []
    component = embedder(cohere_server, slept, batch_size=2, max_retries=1)
    cohere_server.fail(Fault.ok(), Fault.status(503), Fault.status(503))
    with pytest.raises(EmbedderError) as caught:
        component.embed_documents(CONTRACT_PASSAGES)
    message = str(caught.value)
    assert "batch 2 of 3" in message and "503" in message, message
    assert len(cohere_server.calls("/v2/embed")) == 3, "nothing after the failed batch"
    # the first batch's vectors, for the index run to cache: what a good call gives
    cohere_server.clear()
    whole = embedder(cohere_server, slept, batch_size=2).embed_documents(CONTRACT_PASSAGES)
    assert caught.value.done is not None and caught.value.done.shape == (2, whole.shape[1])
    assert caught.value.done.tobytes() == whole[:2].tobytes()


def test_unknown_model_says_which(cohere_server: FakeCohere) -> None:
    with pytest.raises(RerankerError, match="rejected.*404.*rerank-nope.*`model`"):
        reranker(cohere_server, [], model="rerank-nope").rerank(CONTRACT_QUERY, contract_hits())
