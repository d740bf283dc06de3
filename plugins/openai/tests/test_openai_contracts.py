"""The openai embedder and generator against ragloom's contracts: on a real
OpenAI-compatible server (llama.cpp with SmolLM2) through the real SDK, and
on the loopback FakeOpenAI (OpenAI's own models, ``dimensions``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from ragloom.testing import EmbedderContract, GeneratorContract
from ragloom.testing.servers import FakeOpenAI

from ragloom_openai import OpenAIEmbedder, OpenAIGenerator

DOWN = "http://127.0.0.1:9/v1"  # the discard port: nothing listens, connections are refused


class TestEmbedderOnLlamaServer(EmbedderContract):
    """SmolLM2's mean-pooled hidden states (576 wide) from llama.cpp's server."""

    @pytest.fixture
    def embedder_factory(self, llama_server: Any) -> Callable[..., OpenAIEmbedder]:
        return lambda **options: OpenAIEmbedder(
            **{"base_url": llama_server.base_url, "model": llama_server.alias, **options}
        )

    @pytest.fixture
    def fingerprint_variants(self) -> list[dict[str, Any]]:
        return [{"model": "another-model"}, {"dimensions": 64}]

    @pytest.fixture
    def fingerprint_invariants(self) -> list[dict[str, Any]]:
        return [{"batch_size": 2}, {"timeout": 5.0}, {"max_retries": 1}, {"api_key": "other"},
                {"max_batch_tokens": 1000}]  # fmt: skip


class TestEmbedderOnFakeOpenAI(EmbedderContract):
    """text-embedding-3-small shortened to 256 dimensions, three texts per request."""

    @pytest.fixture
    def embedder_factory(self, openai_server: FakeOpenAI) -> Callable[..., OpenAIEmbedder]:
        return lambda **options: OpenAIEmbedder(
            **{"base_url": f"{openai_server.url}/v1", "dimensions": 256, "batch_size": 3,
               **options}
        )  # fmt: skip

    @pytest.fixture
    def fingerprint_variants(self) -> list[dict[str, Any]]:
        return [{"dimensions": 512}, {"model": "text-embedding-3-large"}]


class TestGeneratorOnLlamaServer(GeneratorContract):
    """SmolLM2 answering through llama.cpp's server: real tokens, streamed."""

    @pytest.fixture
    def generator_factory(self, llama_server: Any) -> Callable[..., OpenAIGenerator]:
        return lambda **options: OpenAIGenerator(
            **{"base_url": llama_server.base_url, "model": llama_server.alias, "max_tokens": 96,
               **options}
        )  # fmt: skip

    @pytest.fixture
    def broken_generator_factory(self) -> Callable[..., OpenAIGenerator]:
        return lambda **options: OpenAIGenerator(
            base_url=DOWN, model="smollm2", max_retries=1, retry_initial_delay=0.01, **options
        )


class TestGeneratorOnFakeOpenAI(GeneratorContract):
    """A stand-in model that cites its best source and forges a citation."""

    @pytest.fixture
    def generator_factory(self, openai_server: FakeOpenAI) -> Callable[..., OpenAIGenerator]:
        return lambda **options: OpenAIGenerator(base_url=f"{openai_server.url}/v1", **options)

    @pytest.fixture
    def broken_generator_factory(self, openai_server: FakeOpenAI) -> Callable[..., OpenAIGenerator]:
        from ragloom.testing.servers import Fault

        openai_server.fail(Fault.status(503), times=10)

        def make(**options: Any) -> OpenAIGenerator:
            generator = OpenAIGenerator(
                base_url=f"{openai_server.url}/v1", max_retries=2, **options
            )
            generator._sleep = lambda seconds: None
            return generator

        return make
