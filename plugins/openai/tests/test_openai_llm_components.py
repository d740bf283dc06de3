"""Core's LLM query transformers (``condense``, ``multi-query``, ``hyde``) and
the ``llm`` reranker, with the openai generator as their chat model, on
FakeOpenAI: what each sends through the SDK, and what retrieval does with
the reply (a condensed question searched, rewrites fused, a JSON ranking
applied; malformed JSON keeps the fused order and says so)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pluggy
import pytest
import ragloom
from ragloom.plugins import build_plugin_manager
from ragloom.testing.servers import FakeOpenAI

import ragloom_openai.plugin as openai_plugin

CHAT = "/v1/chat/completions"
EMBED = "/v1/embeddings"

DOCS = {
    "pricing.md": "# Pricing\n\nThe Pro plan costs $29 per user per month.\n",
    "security.md": "# Security\n\nAll data is encrypted at rest with AES-256.\n",
    "memory.md": "# Memory\n\nMemories are kept for 90 days on the Free plan.\n",
}


class Model:
    """A stand-in chat model: a scripted reply per task (told apart by the
    system message core's components send), else the answer model's."""

    def __init__(self, answer: Callable[[list[dict[str, Any]]], str]) -> None:
        self.answer = answer
        self.replies: dict[str, str] = {}

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        system = str(messages[0].get("content", "")) if messages else ""
        for start, reply in self.replies.items():
            if system.startswith(start):
                return reply
        return self.answer(messages)


@pytest.fixture
def server(openai_server: FakeOpenAI) -> FakeOpenAI:
    return openai_server


@pytest.fixture
def model(server: FakeOpenAI) -> Model:
    server.reply = Model(server.reply)
    return server.reply


@pytest.fixture
def make_pipeline(
    server: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., ragloom.Pipeline]]:
    monkeypatch.setenv("RAGLOOM_CACHE_DIR", str(tmp_path / "cache"))
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text)
    opened: list[ragloom.Pipeline] = []

    def make(**sections: Any) -> ragloom.Pipeline:
        url = f"{server.url}/v1"
        config = {
            "loaders": [{"type": "directory", "path": "docs"}],
            "chunker": {"type": "markdown", "size": 800},
            "embedder": {"type": "openai", "base_url": url, "dimensions": 64},
            "stores": [{"type": "memory"}],
            "retrieval": {"k": 3},
            "generator": {"type": "openai", "base_url": url, "model": "chat-model"},
            **sections,
        }
        pipeline = ragloom.load(config, plugin_manager=plugins(), base_dir=tmp_path)
        pipeline.index()
        server.clear()
        opened.append(pipeline)
        return pipeline

    yield make
    for pipeline in opened:
        pipeline.close()


def plugins() -> pluggy.PluginManager:
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(openai_plugin, name="openai")
    return pm


def embedded(server: FakeOpenAI) -> list[str]:
    """Every text sent to the embeddings endpoint, in order."""
    texts: list[str] = []
    for call in server.calls(EMBED):
        value = call.body["input"]
        texts += [value] if isinstance(value, str) else value
    return texts


def chats(server: FakeOpenAI) -> list[dict[str, Any]]:
    return [call.body for call in server.calls(CHAT)]


def test_condense_searches_the_standalone_question(
    make_pipeline: Callable[..., ragloom.Pipeline], model: Model, server: FakeOpenAI
) -> None:
    model.replies["Rewrite the user's last question"] = (
        "Standalone question: How long are memories kept on the Free plan?"
    )
    pipeline = make_pipeline(query_transformers=[{"type": "condense"}])
    history = [
        {"role": "user", "content": "How much does the Pro plan cost?"},
        {"role": "assistant", "content": "$29 per user per month [1]."},
    ]
    hits = pipeline.retrieve("And on the Free plan, how long are they kept?", history=history)
    assert embedded(server) == ["How long are memories kept on the Free plan?"]
    assert hits[0].chunk.source == "docs/memory.md"
    (request,) = chats(server)
    assert request["model"] == "chat-model" and request["temperature"] == 0.0
    assert "user: How much does the Pro plan cost?" in request["messages"][1]["content"]
    server.clear()
    pipeline.retrieve("How much does the Pro plan cost?")  # no history: no call
    assert chats(server) == [] and embedded(server) == ["How much does the Pro plan cost?"]


def test_multi_query_searches_each_rewrite_and_fuses(
    make_pipeline: Callable[..., ragloom.Pipeline], model: Model, server: FakeOpenAI
) -> None:
    model.replies["Write 2 different search queries"] = (
        "1. data encryption at rest\n2. AES-256 security\n3. one too many"
    )
    pipeline = make_pipeline(query_transformers=[{"type": "multi-query", "n": 2}])
    hits = pipeline.retrieve("Is my data safe?")
    assert sorted(embedded(server)) == sorted(
        ["Is my data safe?", "data encryption at rest", "AES-256 security"]
    ), "the question and two rewrites, list markers stripped, the third dropped"
    assert hits[0].chunk.source == "docs/security.md"
    assert len(chats(server)) == 1


def test_hyde_searches_with_the_hypothetical_passage(
    make_pipeline: Callable[..., ragloom.Pipeline], model: Model, server: FakeOpenAI
) -> None:
    passage = "Memories are stored for 90 days before they are deleted."
    model.replies["Write a short passage"] = passage
    pipeline = make_pipeline(query_transformers=[{"type": "hyde", "include_question": False}])
    hits = pipeline.retrieve("retention?")
    assert embedded(server) == [passage]
    assert hits[0].chunk.source == "docs/memory.md"
    (request,) = chats(server)
    assert request["max_tokens"] == 200, "hyde's 2 x words, sent as max_tokens to a server"


def test_the_llm_reranker_applies_the_models_ranking(
    make_pipeline: Callable[..., ragloom.Pipeline], model: Model, server: FakeOpenAI
) -> None:
    pipeline = make_pipeline(reranker={"type": "llm"})
    model.replies["Rank the numbered passages"] = 'Sure: {"ranking": [3, 1]}'
    hits = pipeline.retrieve("What is stored?", explain=True)
    assert hits.explanation is not None
    assert [e.fused_rank for e in hits.explanation.hits] == [3, 1, 2], "3, 1, then the rest"
    assert [h.scores["rerank"] for h in hits] == pytest.approx([1, 2 / 3, 1 / 3])
    (request,) = chats(server)
    assert '<source id="3"' in request["messages"][1]["content"]


@pytest.mark.parametrize("reply", ['{"ranking": [3, 1', '{"ranking": [7]}', "the first one"])
def test_malformed_json_keeps_the_fused_order_and_says_so(
    make_pipeline: Callable[..., ragloom.Pipeline], model: Model, reply: str
) -> None:
    pipeline = make_pipeline(reranker={"type": "llm"})
    model.replies["Rank the numbered passages"] = reply
    hits = pipeline.retrieve("What is stored?", explain=True)
    assert hits.explanation is not None and len(hits) == 3
    assert [e.fused_rank for e in hits.explanation.hits] == [1, 2, 3]
    assert all(h.scores["llm_fallback"] == 1.0 and "rerank" not in h.scores for h in hits)


def test_a_failing_transformer_call_searches_the_question_as_asked(
    make_pipeline: Callable[..., ragloom.Pipeline], server: FakeOpenAI
) -> None:
    from ragloom.testing.servers import Fault

    pipeline = make_pipeline(
        query_transformers=[{"type": "multi-query"}],
        generator={"type": "openai", "base_url": f"{server.url}/v1", "max_retries": 0},
    )
    server.fail(Fault.status(500), path=CHAT)
    hits = pipeline.retrieve("How much does the Pro plan cost?")
    assert embedded(server) == ["How much does the Pro plan cost?"]
    assert hits[0].chunk.source == "docs/pricing.md"
