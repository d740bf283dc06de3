"""Conversation history reaches every component that takes it: the query
transformers on ``retrieve``, ``ask`` and ``stream``, and the generator's
``stream``; and an answer given with history never comes from, nor goes
into, the answer cache (a follow-up means something else in another
conversation)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pluggy
import pytest
import ragloom
from ragloom import Answer, Generator, Hit, Message, QueryTransformer, hookimpl

from .conftest import basic_config

HISTORY: list[Message] = [
    {"role": "user", "content": "How long are memories kept?"},
    {"role": "assistant", "content": "90 days on the Free plan."},
]

seen: dict[str, list[list[Message]]] = {}


def record(where: str, history: Sequence[Message]) -> None:
    seen.setdefault(where, []).append([dict(m) for m in history])


class Remember(QueryTransformer):
    """Searches for the question as asked; records the history it was given."""

    def transform(self, question: str, history: Sequence[Message] = ()) -> list[str]:
        record("transform", history)
        return [question]


class Turns(Generator):
    """Answers with how many turns came before, and the best passage."""

    def generate(self, question: str, hits: Sequence[Hit], history: Sequence[Message] = ()):
        record("generate", history)
        return Answer(question, f"after {len(history)} turn(s): {hits[0].chunk.text}")

    def stream(
        self, question: str, hits: Sequence[Hit], history: Sequence[Message] = ()
    ) -> Iterator[str | Answer]:
        record("stream", history)
        text = f"after {len(history)} turn(s): {hits[0].chunk.text}"
        yield from text.split(" ")
        yield Answer(question, text)


class Plugin:
    @hookimpl
    def register_query_transformers(self, register):
        register("remember", Remember)

    @hookimpl
    def register_generators(self, register):
        register("turns", Turns)


@pytest.fixture
def pipeline(corpus: Path, pm: pluggy.PluginManager) -> Iterator[ragloom.Pipeline]:
    pm.register(Plugin(), name="history-spies")
    seen.clear()
    config = basic_config(
        query_transformers=[{"type": "remember"}],
        generator={"type": "turns"},
        cache={"answers": True},
    )
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        yield pipeline


def test_retrieve_passes_the_history_to_the_query_transformers(
    pipeline: ragloom.Pipeline,
) -> None:
    hits = pipeline.retrieve("And on the Pro plan?", history=HISTORY, k=2)
    assert hits and seen["transform"] == [HISTORY]
    pipeline.retrieve("And on the Pro plan?", k=2)
    assert seen["transform"] == [HISTORY, []]


def test_stream_passes_the_history_to_the_transformers_and_the_generator(
    pipeline: ragloom.Pipeline,
) -> None:
    with pipeline.stream("And on the Pro plan?", history=HISTORY) as stream:
        text = " ".join(stream)
    assert seen["transform"] == [HISTORY] and seen["stream"] == [HISTORY]
    assert text.startswith("after 2 turn(s):") and stream.answer is not None
    assert stream.answer.text.startswith("after 2 turn(s):")


def test_an_answer_with_history_bypasses_the_answer_cache(pipeline: ragloom.Pipeline) -> None:
    question = "How much does the Pro plan cost?"
    first = pipeline.ask(question)
    cached = pipeline.ask(question)
    assert not first.metadata.get("cached") and cached.metadata.get("cached")
    assert cached.text == first.text and first.text.startswith("after 0 turn(s):")
    assert seen["generate"] == [[]]

    # not served from the cache: the history changes what the question means
    for _ in range(2):
        followed = pipeline.ask(question, history=HISTORY)
        assert not followed.metadata.get("cached")
        assert followed.text.startswith("after 2 turn(s):")
    assert seen["generate"] == [[], HISTORY, HISTORY]
    assert seen["transform"] == [[], HISTORY, HISTORY]

    # nor written to it: the answer without history is still the cached one
    again = pipeline.ask(question)
    assert again.metadata.get("cached") and again.text == first.text
    assert len(seen["generate"]) == 3
