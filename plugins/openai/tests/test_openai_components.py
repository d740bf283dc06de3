"""The openai components' own behaviour: what they send, how they batch, options."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import ValidationError
from ragloom import Context
from ragloom.plugins import build_plugin_manager
from ragloom.registry import Registry
from ragloom.testing.servers import FakeOpenAI

import ragloom_openai.plugin as openai_plugin
from ragloom_openai import OpenAIEmbedder, OpenAIGenerator
from ragloom_openai.embedder import token_bound


def url(server: FakeOpenAI) -> str:
    return f"{server.url}/v1"


def test_embed_sends_model_and_dimensions_and_batches_by_count(openai_server: FakeOpenAI) -> None:
    component = OpenAIEmbedder(base_url=url(openai_server), dimensions=32, batch_size=4)
    component.open(Context(name="openai"))
    vectors = component.embed_documents([f"text {i}" for i in range(10)])
    calls = openai_server.calls("/v1/embeddings")
    assert [len(c.body["input"]) for c in calls] == [4, 4, 2]
    assert all(c.body["model"] == "text-embedding-3-small" and c.body["dimensions"] == 32
               for c in calls)  # fmt: skip
    assert vectors.shape == (10, 32) and component.dimension == 32


def test_queries_are_embedded_in_batches_like_documents(openai_server: FakeOpenAI) -> None:
    component = OpenAIEmbedder(base_url=url(openai_server), dimensions=32, batch_size=4)
    component.open(Context(name="openai"))
    questions = [f"question {i}?" for i in range(6)]
    vectors = component.embed_queries(questions)
    calls = openai_server.calls("/v1/embeddings")
    assert [c.body["input"] for c in calls] == [questions[:4], questions[4:]]
    for question, row in zip(questions, vectors):
        assert (row == component.embed_query(question)).all()


def test_batches_stay_under_the_request_token_limit(openai_server: FakeOpenAI) -> None:
    texts = ["x" * 400] * 10  # about 200 tokens each, by the byte bound
    assert token_bound(texts[0]) == 200
    component = OpenAIEmbedder(base_url=url(openai_server), dimensions=8, max_batch_tokens=700)
    component.embed_documents(texts)
    sizes = [len(c.body["input"]) for c in openai_server.calls("/v1/embeddings")]
    assert sizes == [3, 3, 3, 1]


def test_a_text_over_the_request_limit_alone_is_one_clear_error(openai_server: FakeOpenAI) -> None:
    from ragloom.errors import EmbedderError

    component = OpenAIEmbedder(base_url=url(openai_server), dimensions=8, max_batch_tokens=100)
    with pytest.raises(EmbedderError, match=r"text 1 alone takes about 150 tokens.*100"):
        component.embed_documents(["short", "y" * 300])
    assert openai_server.calls() == [], "nothing is sent"


def test_a_blank_text_is_sent_as_a_space(openai_server: FakeOpenAI) -> None:
    component = OpenAIEmbedder(base_url=url(openai_server), dimensions=8)
    assert component.embed_documents(["", "a"]).shape == (2, 8)
    assert openai_server.calls("/v1/embeddings")[0].body["input"] == [" ", "a"]


def test_dimensions_are_checked_against_openais_models() -> None:
    with pytest.raises(ValidationError, match="fixed width of 1536"):
        OpenAIEmbedder(model="text-embedding-ada-002", dimensions=256)
    with pytest.raises(ValidationError, match="at most 1536"):
        OpenAIEmbedder(dimensions=2048)
    assert OpenAIEmbedder(model="text-embedding-3-large").dimension == 3072
    assert OpenAIEmbedder(model="nomic-embed-text", dimensions=768).dimension == 768


def test_the_width_of_another_servers_model_is_probed_once(openai_server: FakeOpenAI) -> None:
    openai_server.EMBED_MODELS = {**FakeOpenAI.EMBED_MODELS, "nomic-embed-text": (768, False)}
    component = OpenAIEmbedder(base_url=url(openai_server), model="nomic-embed-text")
    assert component.dimension == 768 and component.dimension == 768
    assert len(openai_server.calls("/v1/embeddings")) == 1


def test_chat_sends_the_messages_and_the_options(openai_server: FakeOpenAI) -> None:
    component = OpenAIGenerator(base_url=url(openai_server), model="my-model", temperature=0.3,
                                max_tokens=99)  # fmt: skip
    component.open(Context(name="openai"))
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    reply = component.chat(messages, max_tokens=99, temperature=0.3)
    assert reply.startswith("I could not find"), "the stand-in model's reply: no sources"
    body = openai_server.calls("/v1/chat/completions")[0].body
    assert body == {"model": "my-model", "messages": messages, "temperature": 0.3,
                    "max_tokens": 99}  # fmt: skip


@pytest.mark.parametrize(
    ("base_url", "option", "sent"),
    [
        (None, "auto", "max_completion_tokens"),  # OpenAI's API
        ("https://api.openai.com/v1", "auto", "max_completion_tokens"),
        ("http://localhost:11434/v1", "auto", "max_tokens"),  # another server
        ("http://localhost:11434/v1", "max_completion_tokens", "max_completion_tokens"),
    ],
)
def test_how_max_tokens_is_sent(
    base_url: str | None, option: str, sent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unused")
    component = OpenAIGenerator(base_url=base_url, max_tokens_parameter=option)
    request = component._request([{"role": "user", "content": "hi"}], 64, 0.0)
    assert request[sent] == 64 and len({"max_tokens", "max_completion_tokens"} & set(request)) == 1


def test_the_key_is_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    component = OpenAIGenerator(api_key="sk-secret-123")
    assert "sk-secret-123" not in repr(component) and "sk-secret-123" not in str(component.config)


def test_both_components_are_registered_and_their_options_validated() -> None:
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(openai_plugin, name="openai")
    registry = Registry.from_plugin_manager(pm)
    assert registry.get("embedder", "openai").cls is OpenAIEmbedder  # type: ignore[attr-defined]
    assert registry.get("generator", "openai").cls is OpenAIGenerator  # type: ignore[attr-defined]
    with pytest.raises(ValidationError):
        OpenAIEmbedder(batch_size=4096)  # the API takes 2,048 inputs
    with pytest.raises(ValidationError, match="temperature"):
        OpenAIGenerator(temperature=3)


def test_importing_the_plugin_loads_no_sdk() -> None:
    code = (
        "import sys, ragloom_openai.plugin\n"
        "from ragloom.plugins import build_plugin_manager\n"
        "from ragloom.registry import Registry\n"
        "Registry.from_plugin_manager(build_plugin_manager())\n"
        "print(sorted(m for m in ('openai', 'httpx', 'llama_cpp') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


@pytest.mark.parametrize("given", ["127.0.0.1:18101/v1", "localhost/v1", "ftp://host/v1"])
def test_a_base_url_without_its_scheme_is_a_config_error(given: str) -> None:
    """It passed config check, and every request then failed as a connection
    error after all retries: a degraded answer, exit 0."""
    for component in (OpenAIEmbedder, OpenAIGenerator):
        with pytest.raises(ValidationError, match="base_url must be a whole URL with http://"):
            component(base_url=given)
    assert OpenAIGenerator(base_url="http://127.0.0.1:8080/v1").config.base_url
