"""What a user gets when an OpenAI-compatible service misbehaves, on FakeOpenAI:
a retry (honouring Retry-After), one clear error, or a degraded answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pluggy
import pytest
import ragloom
from ragloom import Answer, Context
from ragloom.errors import EmbedderError, GeneratorError
from ragloom.plugins import build_plugin_manager
from ragloom.testing import CONTRACT_PASSAGES, CONTRACT_QUESTION, contract_hits
from ragloom.testing.servers import FakeOpenAI, Fault, text_embedding

import ragloom_openai.plugin as openai_plugin
from ragloom_openai import OpenAIEmbedder, OpenAIGenerator

CHAT = "/v1/chat/completions"
EMBED = "/v1/embeddings"


def embedder(server: FakeOpenAI, slept: list[float], **options: Any) -> OpenAIEmbedder:
    component = OpenAIEmbedder(base_url=f"{server.url}/v1", dimensions=64, **options)
    component._sleep = slept.append
    component.open(Context(name="openai"))
    return component


def generator(server: FakeOpenAI, slept: list[float], **options: Any) -> OpenAIGenerator:
    component = OpenAIGenerator(base_url=f"{server.url}/v1", **options)
    component._sleep = slept.append
    component.open(Context(name="openai"))
    return component


def call(kind: str, server: FakeOpenAI, slept: list[float], **options: Any) -> Any:
    """One embed, chat or streamed chat; what the caller gets."""
    if kind == "embed":
        return embedder(server, slept, **options).embed_documents(CONTRACT_PASSAGES)
    component = generator(server, slept, **options)
    if kind == "chat":
        return component.generate(CONTRACT_QUESTION, contract_hits())
    items = list(component.stream(CONTRACT_QUESTION, contract_hits()))
    assert isinstance(items[-1], Answer)
    assert "".join(items[:-1]) == items[-1].text
    return items[-1]


def check(kind: str, result: Any) -> None:
    """The result a healthy call gives: every vector, or the cited answer."""
    if kind == "embed":
        expected = np.array([text_embedding(t, 64) for t in CONTRACT_PASSAGES], dtype=np.float32)
        assert result.shape == (6, 64) and np.allclose(result, expected, atol=1e-6)
    else:
        assert result.text == "The Pro plan costs $29 per user per month [1]. See also."
        assert [c.chunk_id for c in result.citations] == ["r2"]
        assert result.metadata["dropped_citations"] == [42] and not result.degraded


def path(kind: str) -> str:
    return EMBED if kind == "embed" else CHAT


KINDS = ["embed", "chat", "stream"]


@pytest.mark.parametrize("kind", KINDS)
def test_429_with_retry_after_is_waited_then_answered(openai_server: FakeOpenAI, kind: str) -> None:
    slept: list[float] = []
    openai_server.fail(Fault.status(429, retry_after="3"), times=3)
    check(kind, call(kind, openai_server, slept))
    assert len(openai_server.calls(path(kind))) == 4, "the SDK must not retry on its own"
    assert slept == [3.0, 3.0, 3.0]


def test_retry_after_ms_is_read(openai_server: FakeOpenAI) -> None:
    slept: list[float] = []
    openai_server.fail(Fault.status(429, headers={"retry-after-ms": "1500"}))
    check("chat", call("chat", openai_server, slept))
    assert slept == [1.5]


@pytest.mark.parametrize("kind", KINDS)
def test_500_is_retried_with_jittered_backoff(openai_server: FakeOpenAI, kind: str) -> None:
    slept: list[float] = []
    openai_server.fail(Fault.status(500), Fault.status(502))
    check(kind, call(kind, openai_server, slept))
    assert len(openai_server.calls(path(kind))) == 3
    assert 0.25 <= slept[0] <= 0.5 and 0.5 <= slept[1] <= 1.0, slept


@pytest.mark.parametrize("kind", KINDS)
def test_a_timeout_is_retried(openai_server: FakeOpenAI, kind: str) -> None:
    slept: list[float] = []
    openai_server.fail(Fault.delay(0.8))
    check(kind, call(kind, openai_server, slept, timeout=0.3))
    assert len(openai_server.calls(path(kind))) == 2 and len(slept) == 1


@pytest.mark.parametrize("kind", ["embed", "chat"])
@pytest.mark.parametrize("fault", [Fault.truncated(), Fault.drop()], ids=["truncated", "dropped"])
def test_malformed_json_and_a_dropped_connection_are_retried(
    openai_server: FakeOpenAI, kind: str, fault: Fault
) -> None:
    slept: list[float] = []
    openai_server.fail(fault)
    check(kind, call(kind, openai_server, slept))
    assert len(openai_server.calls(path(kind))) == 2 and len(slept) == 1


def test_malformed_json_every_time_is_one_clear_error(openai_server: FakeOpenAI) -> None:
    openai_server.fail(Fault.truncated(), times=3)
    with pytest.raises(EmbedderError) as caught:
        call("embed", openai_server, [], max_retries=2)
    message = str(caught.value)
    assert "malformed JSON" in message and "gave up after 3 attempt(s)" in message, message


def test_embeddings_out_of_order_are_placed_by_index(openai_server: FakeOpenAI) -> None:
    openai_server.fail(Fault.shuffled())
    vectors = call("embed", openai_server, [])
    check("embed", vectors)  # each row is its own text's vector, not the reversed order's
    assert len(openai_server.calls(EMBED)) == 1


def test_an_answer_missing_a_vector_is_an_error(
    openai_server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = openai_server._embeddings

    def short(body: Any, fault: Any) -> Any:
        response = original(body, fault)
        response.body["data"] = response.body["data"][1:]
        return response

    monkeypatch.setattr(openai_server, "_embeddings", short)
    with pytest.raises(EmbedderError, match=r"answered 5 vector\(s\) for 6 text\(s\).*index 0"):
        call("embed", openai_server, [])


def test_a_stream_cut_midway_degrades_the_answer(
    openai_server: FakeOpenAI, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    openai_server.fail(Fault.cut_stream(after=3), path=CHAT)
    with pipeline(openai_server, tmp_path) as p, caplog.at_level("WARNING", logger="ragloom"):
        stream = p.stream("How much does the Pro plan cost?")
        text = "".join(stream)
    answer = stream.answer
    assert answer is not None and answer.degraded, answer
    shown, _, degraded = text.partition("\nThe answer could not be generated (GeneratorError; ")
    assert shown == "# Pricing\n\nThe", "the three pieces streamed before the cut were shown"
    assert degraded, text
    # the message is the operator's: in the log, not in the answer
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "the stream ended after 3 piece(s) of text without the model finishing" in logged
    assert answer.citations and answer.citations[0].label == "docs/pricing.md#pricing"
    assert len(openai_server.calls(CHAT)) == 1, "text was shown: the stream is not retried"


def test_a_stream_cut_before_any_text_is_retried(openai_server: FakeOpenAI) -> None:
    slept: list[float] = []
    openai_server.fail(Fault.cut_stream(after=0))
    check("stream", call("stream", openai_server, slept))
    assert len(openai_server.calls(CHAT)) == 2 and len(slept) == 1


def test_a_chat_that_keeps_failing_degrades_or_raises(
    openai_server: FakeOpenAI, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    openai_server.fail(Fault.status(503), times=3, path=CHAT)
    with pipeline(openai_server, tmp_path, max_retries=2) as p, caplog.at_level("WARNING"):
        answer = p.ask("How much does the Pro plan cost?")
    assert answer.degraded and "(GeneratorError; the log has the details)" in answer.text
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "503 Service Unavailable" in logged and "gave up after 3 attempt(s)" in logged
    assert answer.citations[0].label == "docs/pricing.md#pricing"
    openai_server.fail(Fault.status(503), times=3, path=CHAT)
    with (
        pipeline(openai_server, tmp_path, max_retries=2, on_error="raise") as p,
        pytest.raises(GeneratorError, match="openai chat .*503"),
    ):
        p.ask("How much does the Pro plan cost?")


@pytest.mark.parametrize("kind", KINDS)
def test_a_revoked_key_is_one_clear_error_never_retried(
    openai_server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "revoked")
    slept: list[float] = []
    with pytest.raises((EmbedderError, GeneratorError)) as caught:
        call(kind, openai_server, slept)
    message = str(caught.value)
    assert "OPENAI_API_KEY" in message and "401" in message and "\n" not in message, message
    assert len(openai_server.calls()) == 1 and slept == []


def test_a_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(EmbedderError, match=r"^openai embedder: no API key: set OPENAI_API_KEY"):
        OpenAIEmbedder().open(Context(name="openai"))
    with pytest.raises(GeneratorError, match=r"^openai generator: no API key: set OPENAI_API_KEY"):
        OpenAIGenerator().open(Context(name="openai"))


def test_a_local_server_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAI(api_key=None) as server:
        component = generator(server, [])
        assert component.chat([{"role": "user", "content": "hi"}], max_tokens=8,
                              temperature=0.0) == "You said: hi"  # fmt: skip
        assert server.calls(CHAT)[0].headers["authorization"] == "Bearer no-key"


def test_unknown_model_is_rejected_with_the_option_to_check(openai_server: FakeOpenAI) -> None:
    with pytest.raises(EmbedderError, match=r"rejected \(404 .*text-embedding-9.*`model`"):
        OpenAIEmbedder(base_url=f"{openai_server.url}/v1", model="text-embedding-9").embed_query(
            "pricing"
        )
    assert len(openai_server.calls(EMBED)) == 1, "a 404 is never retried"


def test_a_batch_that_keeps_failing_is_named_and_nothing_after_is_sent(
    openai_server: FakeOpenAI,
) -> None:
    slept: list[float] = []
    openai_server.fail(Fault.ok(), Fault.status(503), Fault.status(503))
    with pytest.raises(EmbedderError) as caught:
        call("embed", openai_server, slept, batch_size=2, max_retries=1)
    message = str(caught.value)
    assert "batch 2 of 3 (items 2-3)" in message and "503" in message, message
    assert "1 earlier batch(es) went through; nothing after this one was sent" in message
    assert len(openai_server.calls(EMBED)) == 3


def test_an_index_run_that_fails_resumes_from_the_embedding_cache(
    openai_server: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """80 documents: the first index round (64 documents) is embedded; the
    second batch of the second keeps failing, so the run fails naming it. The
    rerun sends only the texts of the batch that failed: the rest, the batch
    before it in the same round included, come from the embedding cache."""
    monkeypatch.setenv("RAGLOOM_CACHE_DIR", str(tmp_path / "cache"))
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(80):
        (docs / f"note-{i:02d}.md").write_text(f"# Note {i}\n\nTopic number {i} of eighty.\n")
    config = {
        "loaders": [{"type": "directory", "path": "docs"}],
        "chunker": {"type": "markdown", "size": 800},
        "embedder": {"type": "openai", "base_url": f"{openai_server.url}/v1", "dimensions": 64,
                     "batch_size": 10, "max_retries": 0},
        "stores": [{"type": "memory"}],
        "generator": {"type": "extractive"},
    }  # fmt: skip
    openai_server.fail(*[Fault.ok()] * 8, Fault.status(503), path=EMBED)
    with (
        ragloom.load(config, plugin_manager=plugins(), base_dir=tmp_path) as p,
        pytest.raises(EmbedderError) as caught,
    ):
        p.index()
    message = str(caught.value)
    assert "openai embed of 16 text(s)" in message and "batch 2 of 2 (items 10-15)" in message
    assert "503" in message, message
    first = [t for c in openai_server.calls(EMBED) for t in c.body["input"]]
    assert len(first) == 64 + 10 + 6  # round 1; round 2's first batch, and the failed one
    openai_server.clear()
    with ragloom.load(config, plugin_manager=plugins(), base_dir=tmp_path) as p:
        report = p.index()
        again = [t for c in openai_server.calls(EMBED) for t in c.body["input"]]
        assert p.retrieve("Topic number 70")[0].chunk.source == "docs/note-70.md"
    assert sorted(again) == sorted(first[74:]), "only the failed batch is embedded again"
    assert report.embedded == 6 and report.chunks == 80


# -- a pipeline on FakeOpenAI ---------------------------------------------------------------


def plugins() -> pluggy.PluginManager:
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(openai_plugin, name="openai")
    return pm


def pipeline(server: FakeOpenAI, tmp_path: Path, **generator: Any) -> ragloom.Pipeline:
    """Three small documents, FakeOpenAI's embeddings and chat, memory + bm25."""
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "pricing.md").write_text(
        "# Pricing\n\nThe Pro plan costs $29 per user per month. Annual billing saves 20%.\n"
    )
    (docs / "security.md").write_text("# Security\n\nAll data is encrypted at rest with AES-256.\n")
    (docs / "memory.md").write_text("# Memory\n\nMemories are kept for 90 days on the Free plan.\n")
    url = f"{server.url}/v1"
    config = {
        "loaders": [{"type": "directory", "path": "docs"}],
        "chunker": {"type": "markdown", "size": 800},
        "embedder": {"type": "openai", "base_url": url, "dimensions": 64},
        "stores": [{"type": "memory"}, {"type": "bm25"}],
        "retrieval": {"k": 3},
        "generator": {"type": "openai", "base_url": url, "retry_initial_delay": 0.01,
                      **generator},
    }  # fmt: skip
    p = ragloom.load(config, plugin_manager=plugins(), base_dir=tmp_path)
    p.index()
    return p
