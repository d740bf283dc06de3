"""Fixtures of the openai plugin's tests.

- ``openai_server``: a loopback ``FakeOpenAI`` per test (fault injection),
  whose chat "model" answers from the sources of its prompt with a citation
  (:func:`cite_best_source`), and ``OPENAI_API_KEY`` set to its key.
- ``llama_server``: one real llama.cpp OpenAI-compatible server
  (``python -m llama_cpp.server``) with the SmolLM2-135M-Instruct GGUF, on
  127.0.0.1, for the whole session.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from ragloom.testing.servers import FakeOpenAI, text_relevance

API_KEY = "sk-test-key"
LLAMA_MODEL = "smollm2"

_SOURCE = re.compile(r'<source id="(\d+)" label="[^"]*">\n(.*?)\n</source>', re.S)
_QUESTION = re.compile(r"Question: (.*)\Z", re.S)


def cite_best_source(messages: list[dict[str, Any]]) -> str:
    """A stand-in chat model: the sentence of the source that shares the most
    words with the question, cited with the source's number, plus a forged
    citation of a source that was not given ([42]); the refusal sentence when
    no source shares a word with the question."""
    prompt = str(messages[-1].get("content", ""))
    sources = _SOURCE.findall(prompt)
    question = _QUESTION.search(prompt)
    best = max(
        sources,
        key=lambda s: text_relevance(question.group(1) if question else "", s[1]),
        default=None,
    )
    if best is None or not text_relevance(question.group(1) if question else "", best[1]):
        return "I could not find information about this in the indexed documents."
    return f"{best[1].split('. ')[0].rstrip('.')} [{best[0]}]. See also [42]."


@pytest.fixture
def openai_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    with FakeOpenAI(api_key=API_KEY, reply=cite_best_source) as server:
        yield server


@pytest.fixture(scope="session")
def llama_server() -> Iterator[Any]:
    """llama.cpp's OpenAI-compatible server with SmolLM2 (chat and mean-pooled
    embeddings), started once for the session; ``.base_url`` ends in ``/v1``."""
    from ragloom_llamacpp.server import LlamaServer

    with LlamaServer("smollm2", alias=LLAMA_MODEL, embedding=True) as server:
        yield server
