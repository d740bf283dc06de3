"""The cohere components' own behaviour: what they send, how they split and merge."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pydantic import ValidationError
from ragloom import Context
from ragloom.testing import CONTRACT_QUERY, contract_hits
from ragloom.testing.servers import FakeCohere, text_relevance

from ragloom_cohere import CohereEmbedder, CohereReranker


def test_rerank_sends_text_under_its_heading_and_the_options(cohere_server: FakeCohere) -> None:
    hits = contract_hits()
    hits[0] = replace(hits[0], chunk=replace(hits[0].chunk, metadata={"section": "Security"}))
    component = CohereReranker(base_url=cohere_server.url, max_tokens_per_doc=512, top_n=2)
    component.open(Context(name="cohere"))
    ranked = component.rerank(CONTRACT_QUERY, hits)
    body = cohere_server.calls("/v2/rerank")[0].body
    assert body["model"] == "rerank-v3.5" and body["top_n"] == 2
    assert body["max_tokens_per_doc"] == 512 and body["query"] == CONTRACT_QUERY
    assert body["documents"][0] == f"Security\n\n{hits[0].chunk.text}"
    assert body["documents"][1] == hits[1].chunk.text
    scores = [text_relevance(CONTRACT_QUERY, d) for d in body["documents"]]
    best = sorted(range(6), key=lambda i: (-scores[i], i))[:2]
    assert [h.chunk.id for h in ranked] == [f"r{i}" for i in best] and best[0] == 2
    assert [h.scores["rerank"] for h in ranked] == [scores[i] for i in best]
    assert all(h.scores["fusion"] == hits[int(h.chunk.id[1])].scores["fusion"] for h in ranked)


def test_split_requests_merge_into_the_single_request_ranking(cohere_server: FakeCohere) -> None:
    hits = contract_hits()  # six hits: three requests of two
    whole = CohereReranker(base_url=cohere_server.url)
    split = CohereReranker(base_url=cohere_server.url, max_documents_per_request=2)
    for component in (whole, split):
        component.open(Context(name="cohere"))
    for top_k in (None, 1, 3):
        one = whole.rerank(CONTRACT_QUERY, hits, top_k=top_k)
        many = split.rerank(CONTRACT_QUERY, hits, top_k=top_k)
        assert [(h.chunk.id, h.score) for h in many] == [(h.chunk.id, h.score) for h in one]
    sizes = [len(c.body["documents"]) for c in cohere_server.calls("/v2/rerank")]
    assert sizes[:1] == [6] and sizes[1:4] == [2, 2, 2]
    expected = sorted(hits, key=lambda h: -text_relevance(CONTRACT_QUERY, h.chunk.text))
    assert [h.chunk.id for h in whole.rerank(CONTRACT_QUERY, hits)] == [
        h.chunk.id for h in expected
    ]


def test_more_hits_than_the_document_limit(cohere_server: FakeCohere) -> None:
    base = contract_hits()
    hits = [
        replace(h, chunk=replace(h.chunk, id=f"{h.chunk.id}-{n}")) for n in range(200) for h in base
    ]  # 1,200 documents: over the API's 1,000
    component = CohereReranker(base_url=cohere_server.url, top_k=5)
    component.open(Context(name="cohere"))
    ranked = component.rerank(CONTRACT_QUERY, hits)
    assert [len(c.body["documents"]) for c in cohere_server.calls("/v2/rerank")] == [1000, 200]
    assert len(ranked) == 5 and all(h.chunk.id.startswith("r2-") for h in ranked)


def test_embed_sends_input_types_and_float(cohere_server: FakeCohere) -> None:
    component = CohereEmbedder(base_url=cohere_server.url, output_dimension=512)
    component.open(Context(name="cohere"))
    docs = component.embed_documents(["alpha beta"] * 100)
    query = component.embed_query("alpha beta")
    calls = cohere_server.calls("/v2/embed")
    assert [len(c.body["texts"]) for c in calls] == [96, 4, 1]
    assert [c.body["input_type"] for c in calls] == ["search_document"] * 2 + ["search_query"]
    assert all(c.body["embedding_types"] == ["float"] for c in calls)
    assert all(c.body["output_dimension"] == 512 for c in calls)
    assert docs.shape == (100, 512) and query.shape == (512,)
    assert component.dimension == 512 and len(calls) == 3, "the width is known, not probed"


def test_output_dimension_is_checked_against_the_model() -> None:
    with pytest.raises(ValidationError, match="does not take output_dimension 512"):
        CohereEmbedder(model="embed-english-v3.0", output_dimension=512)
    assert CohereEmbedder(model="embed-v4.0", output_dimension=256).dimension == 256


def test_a_short_answer_is_an_error(cohere_server: FakeCohere, monkeypatch) -> None:  # noqa: ANN001
    from ragloom.errors import EmbedderError

    component = CohereEmbedder(base_url=cohere_server.url, model="embed-english-light-v3.0")
    component.open(Context(name="cohere"))
    original = cohere_server._embed

    def short(body):  # noqa: ANN001, ANN202
        response = original(body)
        response.body["embeddings"]["float"] = response.body["embeddings"]["float"][:-1]
        return response

    monkeypatch.setattr(cohere_server, "_embed", short)
    with pytest.raises(EmbedderError, match="1 float vector.*2 text"):
        component.embed_documents(["a", "b"])


def test_top_k_and_top_n_together_are_one_option_given_twice() -> None:
    """It said `top_n` was an unknown option, though the docs accept it."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="top_k and top_n are the same option"):
        CohereReranker(top_k=3, top_n=4)
    assert CohereReranker(top_n=4).config.top_k == 4
