"""Runs and events: ``on_event`` goes through pluggy (ordering, wrappers,
argument subsets), a streamed answer is a ``generate`` stage and finishes its
own run even when the caller stops early, components open in dependency
order, and fingerprints name the registered type."""

from __future__ import annotations

from pathlib import Path

import pluggy
import pytest
import ragloom
from ragloom import Chunker, hookimpl
from ragloom.builtin.chunkers.recursive import RecursiveChunker
from ragloom.builtin.embedders.hash import HashEmbedder
from ragloom.events import SKIP_RUN, RunFinished, RunStarted, StageCall, StageFinished

from .conftest import basic_config


def test_on_event_follows_pluggy_ordering_and_argument_subsets(
    pm: pluggy.PluginManager, corpus: Path
) -> None:
    order: list[str] = []

    class First:
        @hookimpl(tryfirst=True)
        def on_event(self, event):
            order.append("first")

    class Last:
        @hookimpl(trylast=True)
        def on_event(self):  # takes none of the hook's arguments: allowed by pluggy
            order.append("last")

    class Middle:
        @hookimpl
        def on_event(self, event):
            order.append("middle")

    class Broken:
        @hookimpl
        def on_event(self, event):
            raise RuntimeError("an observer never breaks a run, nor the observers after it")

    for plugin in (Last(), Broken(), First(), Middle()):
        pm.register(plugin)
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.retrieve("refund")
    assert order and len(order) % 3 == 0
    assert order[:3] == ["first", "middle", "last"]


class Declining:
    """An observer with no use for some runs: it declines their RunStarted."""

    def __init__(self, decline: bool = True) -> None:
        self.decline = decline
        self.seen: list[str] = []

    @hookimpl
    def on_event(self, event):
        self.seen.append(type(event).__name__)
        return SKIP_RUN if self.decline and isinstance(event, RunStarted) else None


@pytest.mark.parametrize("declined", [False, True])
def test_on_event_wrappers_see_every_event(
    pm: pluggy.PluginManager, corpus: Path, declined: bool
) -> None:
    """Also of a run every plain observer declined: a wrapper keeps it observed."""
    wrapped: list[str] = []

    class Wrapper:
        @hookimpl(wrapper=True)
        def on_event(self, event):
            wrapped.append(type(event).__name__)
            return (yield)

    if declined:
        pm.register(Declining())
    pm.register(Wrapper())
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.retrieve("refund")
    assert wrapped[0] == "RunStarted" and wrapped[-1] == "RunFinished"
    assert "StageFinished" in wrapped


def test_a_run_every_observer_declines_sends_no_later_event(
    pm: pluggy.PluginManager, corpus: Path
) -> None:
    first, second = Declining(), Declining()
    pm.register(first)
    pm.register(second)
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        report = pipeline.index()
        hits = pipeline.retrieve("refund")
        answer = pipeline.ask("How are refunds made?")
    assert report.added and hits and answer.citations
    assert [t.stage for t in hits.trace][-1] == "fuse"  # the trace does not depend on events
    # each run (index, retrieve, ask) started, and nothing after that
    assert first.seen == second.seen == ["RunStarted"] * 3


def test_an_observer_that_does_not_decline_gets_every_event(
    pm: pluggy.PluginManager, corpus: Path
) -> None:
    declining, watching = Declining(), Declining(decline=False)
    pm.register(declining)
    pm.register(watching)
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.retrieve("refund")
    for observer in (declining, watching):
        assert observer.seen[0] == "RunStarted" and observer.seen[-1] == "RunFinished"
        assert "StageFinished" in observer.seen
    assert declining.seen == watching.seen


def test_a_wrapper_that_returns_nothing_is_no_error(
    pm: pluggy.PluginManager, corpus: Path, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[str] = []

    class Quiet:
        @hookimpl(wrapper=True)
        def on_event(self, event):
            seen.append(type(event).__name__)
            yield  # no `return (yield)`: the hook call answers None

    pm.register(Quiet())
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        pipeline.retrieve("refund")
    assert seen.count("RunFinished") == 2 and "StageFinished" in seen
    assert "observer failed" not in caplog.text


def test_an_observer_registered_during_a_run_gets_its_later_events(
    pm: pluggy.PluginManager, corpus: Path
) -> None:
    late = Declining(decline=False)

    def progress(*_: object) -> None:
        if pm.get_name(late) is None:
            pm.register(late)

    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index(progress=progress)  # no observer when it started
    assert "RunStarted" not in late.seen and late.seen[-1] == "RunFinished"
    assert "StageFinished" in late.seen


def test_stream_generation_is_a_stage_and_finishes_its_own_run(
    pm: pluggy.PluginManager, corpus: Path
) -> None:
    events: list[object] = []
    stages: list[StageCall] = []

    class Observer:
        @hookimpl
        def on_event(self, event):
            events.append(event)

        @hookimpl(wrapper=True)
        def run_stage(self, call):
            stages.append(call)
            return (yield)

    pm.register(Observer())
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        events.clear()
        stream = pipeline.stream("How much does the Pro plan cost?")
        for _piece in stream:
            break  # the caller stops after the first piece
        del stream
        other = pipeline.stream("How long are memories kept?")
        text = "".join(other)
    assert "90 days" in text and other.answer is not None
    assert other.answer.metadata["corpus_version"] == 1
    runs = [e for e in events if isinstance(e, RunStarted) and e.operation == "stream"]
    ends = [e for e in events if isinstance(e, RunFinished) and e.operation == "stream"]
    assert len(runs) == 2 and [e.run_id for e in ends] == [r.run_id for r in runs]
    generate = [c for c in stages if c.stage == "generate"]
    assert [c.run_id for c in generate] == [r.run_id for r in runs]
    assert any(
        isinstance(e, StageFinished) and e.stage == "generate" and e.run_id == runs[1].run_id
        for e in events
    )


class NeedsEmbedderAtOpen(Chunker):
    """A chunker that reads the embedder's dimension when it opens."""

    needs = frozenset({"embedder"})

    def open(self, context=None):
        super().open(context)
        self.width = self.context.services["embedder"].dimension

    def split(self, document):
        return RecursiveChunker(size=200, overlap=0).split(document)


class CountingEmbedder(HashEmbedder):
    opened = False

    def open(self, context=None):
        super().open(context)
        type(self).opened = True

    def embed_batch(self, texts):
        assert type(self).opened, "the embedder was used before it was opened"
        return super().embed_batch(texts)


def test_components_open_in_dependency_order(pm: pluggy.PluginManager, corpus: Path) -> None:
    class Plugin:
        @hookimpl
        def register_chunkers(self, register):
            register("needy", NeedsEmbedderAtOpen)

        @hookimpl
        def register_embedders(self, register):
            register("counting", CountingEmbedder)

    pm.register(Plugin())
    config = basic_config(chunker={"type": "needy"}, embedder={"type": "counting", "dimension": 32})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        assert pipeline.chunker.width == 32
        assert pipeline.index().chunks >= 3


def test_fingerprints_name_the_registered_type(pm: pluggy.PluginManager, corpus: Path) -> None:
    class Plugin:
        @hookimpl
        def register_embedders(self, register):
            register("my-hash", HashEmbedder)

    pm.register(Plugin())
    config = basic_config(embedder={"type": "my-hash", "dimension": 64})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        assert pipeline.embedder.fingerprint()["type"] == "my-hash"
        assert pipeline.chunker.fingerprint()["type"] == "recursive"
        pipeline.index()
    # the same class under another name is another embedder: the index refuses to mix them
    renamed = basic_config(embedder={"type": "hash", "dimension": 64})
    with (
        ragloom.load(renamed, plugin_manager=pm, base_dir=corpus) as pipeline,
        pytest.raises(ragloom.RagloomError, match="--rebuild"),
    ):
        pipeline.index()


def test_a_ledger_from_before_type_names_still_matches(
    pm: pluggy.PluginManager, corpus: Path
) -> None:
    from ragloom.ledger import Ledger

    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        ledger = Ledger(pipeline.index_dir / "ledger.sqlite").open()
        for key, cls in (("embedder", "HashEmbedder"), ("chunker", "RecursiveChunker")):
            old = {**ledger.get_meta(key), "type": cls}  # what 0.1 recorded
            ledger.set_meta(key, old)
        ledger.close()
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        report = pipeline.index()
        assert report.unchanged == 3 and report.chunks == 0
        assert pipeline.retrieve("AES-256", k=1)[0].chunk.source == "docs/security.md"


def test_python_api_rejects_bad_arguments_clearly(pm: pluggy.PluginManager, corpus: Path) -> None:
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        with pytest.raises(TypeError, match="question must be a string"):
            pipeline.ask(None)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="question is empty"):
            pipeline.retrieve("   ")
        with pytest.raises(TypeError, match="k must be a whole number"):
            pipeline.retrieve("refund", k="5")  # type: ignore[arg-type]
        for bad in (0, -1, 10**9):
            with pytest.raises(ValueError, match="k must be between 1 and"):
                pipeline.retrieve("refund", k=bad)
        assert len(pipeline.retrieve("plan", k=1)) == 1
        # and each is in the documented tree: an app that turns RagloomError
        # into a 4xx answer does not answer 500 to a caller's mistake
        from ragloom.errors import InvalidRequestError, RagloomError

        for call in (
            lambda: pipeline.ask(None),  # type: ignore[arg-type]
            lambda: pipeline.retrieve("   "),
            lambda: pipeline.retrieve("refund", k=0),
            lambda: pipeline.retrieve("refund", principals="alice"),  # type: ignore[arg-type]
        ):
            with pytest.raises(InvalidRequestError) as info:
                call()
            assert isinstance(info.value, RagloomError)


def test_history_is_checked_before_anything_runs(pm: pluggy.PluginManager, corpus: Path) -> None:
    """A malformed chat history is the caller's mistake, named, on every
    entry point; a well-formed one (any iterable of messages) is used."""
    from ragloom.errors import InvalidRequestError

    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        cases = [
            ("hello", "history must be a list of messages"),
            (["x"], "history message 1 must be a dict"),
            ([{"role": "user", "content": "a"}, {"role": "user"}], 'message 2 has no "content"'),
            ([{"role": "user", "content": 5}], '"content" must be text, not int'),
            ([{"role": "bot", "content": "a"}], "role must be one of user, assistant"),
        ]
        for history, message in cases:
            for call in (pipeline.ask, pipeline.retrieve, pipeline.stream):
                with pytest.raises(InvalidRequestError, match=message):
                    call("What does the plan cost?", history=history)  # type: ignore[arg-type]
        parts = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
        tool_call = {"role": "assistant", "content": None, "tool_calls": []}
        assert pipeline.ask("What does the plan cost?", history=[parts, tool_call]).text
        turns = iter([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}])
        assert pipeline.ask("What does the plan cost?", history=turns).text
        assert pipeline.ask("What does the plan cost?", history=None).text  # type: ignore[arg-type]


def test_bytes_that_are_no_utf8_in_a_question_are_replaced_not_fatal(
    pm: pluggy.PluginManager, corpus: Path
) -> None:
    """``ragloom ask $'caf\\xe9 ...'`` at a terminal set to UTF-8 (or a JSON
    body escaping ``\\udce9``) gave the pipeline a lone surrogate, and the
    embedder failed on it (``TypeError`` from the tokenizer); the bm25
    analyzer and stores may fail alike. It is now U+FFFD, in the history too."""
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        history = [{"role": "user", "content": "caf\udce9?"}, {"role": "assistant", "content": "?"}]
        answer = pipeline.ask("How much does the Pro plan cost? caf\udce9", history=history)
        assert "$29" in answer.text and answer.question.endswith("caf\ufffd")
        (hits,) = pipeline.retrieve_many(["AES-256 \udcff"], k=1)
        assert hits[0].chunk.source == "docs/security.md"
        with pipeline.stream("Pro plan \ud800 price?") as stream:
            assert "$29" in "".join(stream)


def test_an_index_run_opens_no_reranker_and_a_query_opens_it_once(
    pm: pluggy.PluginManager, corpus: Path
) -> None:
    """A trial's `ragloom index` failed because the cross-encoder's model
    could not be loaded, and every cron run loaded it: no index run uses a
    reranker (nor a query transformer)."""
    from ragloom import ComponentConfig, Reranker
    from ragloom.errors import RerankerError

    class Heavy(Reranker):
        class Config(ComponentConfig):
            model: str = "gone"

        opened = 0

        def open(self, context=None):  # type: ignore[no-untyped-def]
            super().open(context)
            if self.config.model == "gone":
                raise RerankerError("cross-encoder: model 'gone' is not available offline")
            type(self).opened += 1

        def rerank(self, query, hits, top_k=None):  # type: ignore[no-untyped-def]
            return list(hits)[: top_k or len(hits)]

    class Plugin:
        @hookimpl
        def register_rerankers(self, register):  # type: ignore[no-untyped-def]
            register("heavy", Heavy)

    pm.register(Plugin())
    pipeline = ragloom.load(
        basic_config(reranker={"type": "heavy"}), plugin_manager=pm, base_dir=corpus
    )
    try:
        assert pipeline.index().added  # the reranker's model is not needed to index
        with pytest.raises(RerankerError, match="not available offline"):
            pipeline.retrieve("plan")  # the first query needs it, and says so
        with pytest.raises(RerankerError, match="not available offline"):
            pipeline.status()  # whether queries can be answered: they cannot
        assert pipeline.index().unchanged == 3  # what is open stays open
    finally:
        pipeline.close()
    config = basic_config(reranker={"type": "heavy", "model": "here"})
    pipeline = ragloom.load(config, plugin_manager=pm, base_dir=corpus)
    try:
        pipeline.index()
        assert Heavy.opened == 0
        pipeline.retrieve("plan")
        pipeline.ask("How much is the Pro plan?")
        assert Heavy.opened == 1
    finally:
        pipeline.close()
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus):
        assert Heavy.opened == 2  # opening a pipeline for queries opens everything


def test_an_index_run_opens_the_generator_only_when_it_chunks_with_it(
    pm: pluggy.PluginManager, corpus: Path
) -> None:
    """A review found every cron run still loading the LLM generator (a
    llama.cpp model of gigabytes): no index run uses it, unless a component
    of the run declares it in ``needs``."""
    from ragloom.errors import GeneratorError
    from ragloom.generation import ChatGenerator

    class Model(ChatGenerator):
        class Config(ChatGenerator.Config):
            model_path: str = "gone.gguf"

        def open(self, context=None):  # type: ignore[no-untyped-def]
            super().open(context)
            if self.config.model_path == "gone.gguf":
                raise GeneratorError("llamacpp: model_path 'gone.gguf' is not a file")

        def chat(self, messages, *, max_tokens, temperature):  # type: ignore[no-untyped-def]
            return "The Pro plan costs $29 per user per month [1]."

    class Asking(NeedsEmbedderAtOpen):
        needs = frozenset({"embedder", "generator"})

    class Plugin:
        @hookimpl
        def register_generators(self, register):  # type: ignore[no-untyped-def]
            register("model", Model)

        @hookimpl
        def register_chunkers(self, register):  # type: ignore[no-untyped-def]
            register("asking", Asking)

    pm.register(Plugin())
    pipeline = ragloom.load(
        basic_config(generator={"type": "model"}), plugin_manager=pm, base_dir=corpus
    )
    try:
        assert pipeline.index().added  # the model is not needed to index
        with pytest.raises(GeneratorError, match="gone.gguf"):
            pipeline.ask("How much is the Pro plan?")  # an answer needs it, and says so
    finally:
        pipeline.close()
    asking = basic_config(generator={"type": "model"}, chunker={"type": "asking"})
    with pytest.raises(GeneratorError, match="gone.gguf"):  # the chunker asks it: opened
        ragloom.load(asking, plugin_manager=pm, base_dir=corpus).index()
