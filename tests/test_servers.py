"""ragloom.testing.servers: the loopback fakes answer as the services document,
limits and errors included, and inject the faults they are asked for."""

from __future__ import annotations

import base64
import json
import struct
import time

import httpx
import pytest
from ragloom.testing.servers import (
    FakeCohere,
    FakeOpenAI,
    FakePinecone,
    Fault,
    check_pinecone_filter,
    pinecone_filter_matches,
    text_embedding,
)
from ragloom.testing.servers import PineconeFilterError as FilterRejected


def test_requests_are_fast_and_logged() -> None:
    with FakeCohere(api_key=None) as server, httpx.Client(base_url=server.url) as client:
        start = time.perf_counter()
        for _ in range(30):
            client.post("/v2/embed", json={"model": "embed-v4.0", "input_type": "search_query",
                                           "texts": ["hi"]})  # fmt: skip
        elapsed = time.perf_counter() - start
        assert elapsed < 1.5, f"30 requests took {elapsed:.2f}s: Nagle's algorithm is on?"
        assert len(server.calls("/v2/embed")) == 30
        assert server.calls()[0].body["texts"] == ["hi"]


def test_faults_come_in_order_per_path_then_normal_answers() -> None:
    with FakeCohere(api_key=None) as server, httpx.Client(base_url=server.url) as client:
        server.fail(Fault.status(429, retry_after="2"), Fault.status(500), path="/v2/rerank")
        body = {"model": "rerank-v3.5", "query": "q", "documents": ["q a", "b"]}
        first = client.post("/v2/rerank", json=body)
        assert first.status_code == 429 and first.headers["retry-after"] == "2"
        assert "message" in first.json()
        assert client.post("/v2/rerank", json=body).status_code == 500
        ok = client.post("/v2/rerank", json=body).json()
        assert [r["index"] for r in ok["results"]] == [0, 1]
        server.fail(Fault.truncated())
        cut = client.post("/v2/rerank", json=body)
        with pytest.raises(ValueError):
            json.loads(cut.content)
        server.fail(Fault.drop())
        with pytest.raises(httpx.RemoteProtocolError):
            client.post("/v2/rerank", json=body)


def test_a_delay_outlasts_the_client_timeout() -> None:
    with FakeCohere(api_key=None) as server:
        server.fail(Fault.delay(0.5))
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{server.url}/v2/rerank", json={}, timeout=0.1)


# -- Cohere -----------------------------------------------------------------------------------


def test_cohere_limits_and_validation() -> None:
    with FakeCohere(api_key="k") as server, httpx.Client(base_url=server.url) as client:
        auth = {"Authorization": "Bearer k"}
        assert client.post("/v2/rerank", json={}).status_code == 401
        embed = {"model": "embed-v4.0", "input_type": "search_document", "texts": ["a"] * 97}
        assert client.post("/v2/embed", json=embed, headers=auth).status_code == 400
        missing = {"model": "embed-v4.0", "texts": ["a"]}
        answer = client.post("/v2/embed", json=missing, headers=auth)
        assert answer.status_code == 400 and "input_type" in answer.json()["message"]
        fixed = {"model": "embed-english-v3.0", "input_type": "search_query", "texts": ["a"],
                 "output_dimension": 256}  # fmt: skip
        assert client.post("/v2/embed", json=fixed, headers=auth).status_code == 400
        rerank = {"model": "rerank-v3.5", "query": "q", "documents": ["d"] * 1001}
        assert client.post("/v2/rerank", json=rerank, headers=auth).status_code == 400
        good = {"model": "embed-v4.0", "input_type": "search_query", "texts": ["a b"],
                "output_dimension": 256, "embedding_types": ["float"]}  # fmt: skip
        body = client.post("/v2/embed", json=good, headers=auth).json()
        assert len(body["embeddings"]["float"][0]) == 256
        assert body["embeddings"]["float"][0] == pytest.approx(text_embedding("a b", 256))


def test_cohere_scores_depend_on_query_and_document_only() -> None:
    with FakeCohere(api_key=None) as server, httpx.Client(base_url=server.url) as client:
        docs = ["The Pro plan costs $29.", "Data is encrypted.", "Plans and pricing of Pro"]
        body = {"model": "rerank-v3.5", "query": "Pro plan cost", "documents": docs, "top_n": 2}
        results = client.post("/v2/rerank", json=body).json()["results"]
        assert [r["index"] for r in results] == [0, 2]
        alone = {**body, "documents": docs[2:], "top_n": None}
        again = client.post("/v2/rerank", json=alone).json()["results"]
        assert again[0]["relevance_score"] == results[1]["relevance_score"]


# -- OpenAI -----------------------------------------------------------------------------------


def test_openai_embeddings_float_base64_and_out_of_order() -> None:
    with FakeOpenAI(api_key="k") as server, httpx.Client(base_url=server.url) as client:
        auth = {"Authorization": "Bearer k"}
        body = {"model": "text-embedding-3-small", "input": ["one", "two"], "dimensions": 8}
        floats = client.post("/v1/embeddings", json=body, headers=auth).json()
        assert [d["index"] for d in floats["data"]] == [0, 1]
        packed = client.post("/v1/embeddings", json={**body, "encoding_format": "base64"},
                             headers=auth).json()  # fmt: skip
        decoded = struct.unpack("<8f", base64.b64decode(packed["data"][1]["embedding"]))
        assert decoded == pytest.approx(floats["data"][1]["embedding"], abs=1e-6)
        server.fail(Fault.shuffled())
        shuffled = client.post("/v1/embeddings", json=body, headers=auth).json()
        assert [d["index"] for d in shuffled["data"]] == [1, 0]
        assert shuffled["data"][0]["embedding"] == floats["data"][1]["embedding"]
        ada = {"model": "text-embedding-ada-002", "input": "x", "dimensions": 8}
        assert client.post("/v1/embeddings", json=ada, headers=auth).status_code == 400
        unknown = client.post("/v1/embeddings", json={"model": "nope", "input": "x"}, headers=auth)
        assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "model_not_found"
        bad_key = client.post("/v1/embeddings", json=body, headers={"Authorization": "Bearer x"})
        assert bad_key.status_code == 401 and bad_key.json()["error"]["code"] == "invalid_api_key"


def _events(text: str) -> list[str]:
    return [line[len("data: ") :] for line in text.splitlines() if line.startswith("data: ")]


def test_openai_chat_plain_streamed_and_cut() -> None:
    reply = lambda messages: "Paris is the capital."  # noqa: E731
    with FakeOpenAI(api_key=None, reply=reply) as server, httpx.Client(base_url=server.url) as c:
        body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Capital?"}]}
        plain = c.post("/v1/chat/completions", json=body).json()
        assert plain["choices"][0]["message"]["content"] == "Paris is the capital."
        streamed = _events(c.post("/v1/chat/completions", json={**body, "stream": True}).text)
        assert streamed[-1] == "[DONE]"
        chunks = [json.loads(e) for e in streamed[:-1]]
        text = "".join(ch["choices"][0]["delta"].get("content", "") for ch in chunks)
        assert (
            text == "Paris is the capital." and chunks[-1]["choices"][0]["finish_reason"] == "stop"
        )
        server.fail(Fault.cut_stream(after=1))
        cut = _events(c.post("/v1/chat/completions", json={**body, "stream": True}).text)
        assert "[DONE]" not in cut and len(cut) == 2
        assert all(json.loads(e)["choices"][0]["finish_reason"] is None for e in cut)


# -- Pinecone ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        {"$not": {"a": 1}},
        {"a": {"$gt": "2024-01-01"}},
        {"a": None},
        {"a": {"$in": []}},
        {"a": {"$regex": "x"}},
        {"$or": []},
        {"a": [1, 2]},
    ],
)
def test_pinecone_rejects_what_it_lacks(spec: dict) -> None:
    with pytest.raises(FilterRejected):
        check_pinecone_filter(spec)


def test_pinecone_filter_semantics() -> None:
    record = {"genre": ["comedy", "drama"], "year": 2020, "flag": True}
    assert pinecone_filter_matches({"genre": "comedy"}, record)
    assert pinecone_filter_matches({"genre": {"$nin": ["horror"]}}, record)
    assert not pinecone_filter_matches({"genre": {"$ne": "drama"}}, record)
    assert pinecone_filter_matches({"year": {"$gte": 2020.0}}, record)
    assert not pinecone_filter_matches({"flag": 1}, record), "booleans equal booleans only"
    assert not pinecone_filter_matches({"missing": {"$gt": 1}}, record)
    assert pinecone_filter_matches({"$or": [{"year": 1}, {"flag": True}]}, record)


def test_pinecone_limits() -> None:
    with FakePinecone(api_key=None) as server, httpx.Client(base_url=server.url) as client:
        server.add_index("docs", 2)
        many = [{"id": str(i), "values": [1.0, 0.0]} for i in range(1001)]
        assert client.post("/vectors/upsert", json={"vectors": many}).status_code == 400
        big = [{"id": "a", "values": [1, 0], "metadata": {"t": "x" * 41_000}}]
        answer = client.post("/vectors/upsert", json={"vectors": big})
        assert answer.status_code == 400 and "40960" in answer.json()["message"]
        huge = [{"id": str(i), "values": [1, 0], "metadata": {"t": "x" * 30_000}}
                for i in range(80)]  # fmt: skip
        assert client.post("/vectors/upsert", json={"vectors": huge}).status_code == 413
        null = [{"id": "a", "values": [1, 0], "metadata": {"t": None}}]
        assert client.post("/vectors/upsert", json={"vectors": null}).status_code == 400
        zero = [{"id": "a", "values": [0, 0]}]
        assert client.post("/vectors/upsert", json={"vectors": zero}).status_code == 400
        query = {"topK": 1001, "vector": [1, 0], "includeMetadata": True}
        assert client.post("/query", json=query).status_code == 400
        filtered = {"describe": 1, "filter": {"a": 1}}
        assert client.post("/describe_index_stats", json=filtered).status_code == 400
        by_filter = {"filter": {"a": 1}, "namespace": ""}
        client.post("/vectors/upsert", json={"vectors": [{"id": "a", "values": [1, 0]}]})
        assert client.post("/vectors/delete", json=by_filter).status_code == 400
        gone = client.post("/vectors/delete", json={"deleteAll": True, "namespace": "none"})
        assert gone.status_code == 404


def test_pinecone_list_pages_and_prefixes() -> None:
    with FakePinecone(api_key=None) as server, httpx.Client(base_url=server.url) as client:
        server.add_index("docs", 2)
        vectors = [{"id": f"doc{i % 2}#{i:03}", "values": [1, 0]} for i in range(150)]
        client.post("/vectors/upsert", json={"vectors": vectors, "namespace": "n"})
        seen, token = [], None
        while True:
            params = {"namespace": "n", "prefix": "doc1#", "limit": 30}
            if token:
                params["paginationToken"] = token
            page = client.get("/vectors/list", params=params).json()
            seen += [v["id"] for v in page["vectors"]]
            token = (page.get("pagination") or {}).get("next")
            if not token:
                break
        assert seen == sorted(v["id"] for v in vectors if v["id"].startswith("doc1#"))
        stats = client.post("/describe_index_stats", json={}).json()
        assert stats["namespaces"] == {"n": {"vectorCount": 150}}


def test_pinecone_index_readiness() -> None:
    with (
        FakePinecone(api_key=None, ready_after=2) as server,
        httpx.Client(base_url=server.url) as c,
    ):
        schema = {
            "fields": {"_values": {"type": "dense_vector", "dimension": 4, "metric": "cosine"}}
        }
        created = c.post("/indexes", json={"name": "new-one", "schema": schema})
        assert created.status_code == 201 and created.json()["status"]["ready"] is False
        states = [c.get("/indexes/new-one").json()["status"]["ready"] for _ in range(3)]
        assert states == [False, False, True]
        assert c.post("/indexes", json={"name": "new-one", "schema": schema}).status_code == 409
        assert c.post("/indexes", json={"name": "Bad_Name", "schema": schema}).status_code == 400
        assert c.get("/indexes/missing").status_code == 404
