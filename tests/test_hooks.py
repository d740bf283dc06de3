"""One test per hook (the docs meta-test checks that each exists): a plugin
implementing the hook is picked up and used from a config."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pluggy
import pytest
import ragloom
from ragloom import (
    Answer,
    Chunker,
    ComponentConfig,
    Document,
    Embedder,
    Generator,
    Loader,
    QueryTransformer,
    Reranker,
    hookimpl,
)
from ragloom.builtin.chunkers._chunking import make_chunk
from ragloom.builtin.stores.bm25 import BM25Store
from ragloom.events import ProblemReported, RunFinished, RunStarted, StageCall, StageFinished

from .conftest import basic_config


def use(pm: pluggy.PluginManager, plugin: object, root: Path, **overrides: object):
    pm.register(plugin, name=type(plugin).__name__)
    return ragloom.load(basic_config(**overrides), plugin_manager=pm, base_dir=root)


class InlineLoader(Loader):
    class Config(ComponentConfig):
        texts: list[str]

    def load(self) -> Iterator[Document]:
        for i, text in enumerate(self.config.texts):
            yield Document(f"inline-{i}", text, {"source": f"inline-{i}"})


def test_hook_register_loaders(pm, tmp_path: Path) -> None:
    class Plugin:
        @hookimpl
        def register_loaders(self, register):
            register("inline", InlineLoader)

    pipeline = use(
        pm,
        Plugin(),
        tmp_path,
        loaders=[{"type": "inline", "texts": ["zebras are striped", "lions roar"]}],
    )
    with pipeline:
        assert len(pipeline.index().added) == 2
        assert pipeline.retrieve("striped zebras", k=1)[0].chunk.source == "inline-0"


def test_hook_register_chunkers(pm, corpus: Path) -> None:
    class LineChunker(Chunker):
        def split(self, document):
            out, start = [], 0
            for line in document.text.split("\n"):
                if line.strip():
                    out.append(make_chunk(document, line, len(out), start, start + len(line)))
                start += len(line) + 1
            return out

    class Plugin:
        @hookimpl
        def register_chunkers(self, register):
            register("lines", LineChunker)

    with use(pm, Plugin(), corpus, chunker={"type": "lines"}) as pipeline:
        pipeline.index()
        hit = pipeline.retrieve("AES-256", k=1)[0]
    assert hit.chunk.text.startswith("All data is encrypted")


def test_a_chunker_giving_two_chunks_one_id_is_refused_before_anything_is_written(
    pm, corpus: Path
) -> None:
    """A store keeps one chunk per id: the others would be lost while the
    ledger lists them, and `--repair` could not bring them back."""
    from dataclasses import replace

    from ragloom.errors import ComponentError

    class OffByOne(Chunker):
        def split(self, document):  # every chunk <doc>::0
            whole = make_chunk(document, document.text, 0, 0, len(document.text))
            return [whole, replace(whole, index=1, text=whole.text[:10])]

    class Plugin:
        @hookimpl
        def register_chunkers(self, register):
            register("offbyone", OffByOne)

    with use(pm, Plugin(), corpus, chunker={"type": "offbyone"}) as pipeline:
        with pytest.raises(ComponentError, match=r"chunker 'offbyone' gave two chunks the id"):
            pipeline.index()
        assert list(pipeline.retrieve("AES-256", k=5)) == []  # nothing was committed
        for _, store in pipeline.stores:
            assert store.count() == 0


def test_hook_register_embedders(pm, corpus: Path) -> None:
    class Letters(Embedder):
        def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
            out = np.zeros((len(texts), 26), dtype=np.float32)
            for row, text in enumerate(texts):
                for ch in text.lower():
                    if "a" <= ch <= "z":
                        out[row, ord(ch) - 97] += 1
            return out

    class Plugin:
        @hookimpl
        def register_embedders(self, register):
            register("letters", Letters)

    with use(pm, Plugin(), corpus, embedder={"type": "letters"}, stores=[{"type": "memory"}]) as p:
        p.index()
        assert p.embedder.dimension == 26
        assert len(p.retrieve("anything", k=2)) == 2


def test_hook_register_stores(pm, corpus: Path) -> None:
    class Audited(BM25Store):
        writes: list[int] = []

        def upsert(self, chunks, vectors=None):
            Audited.writes.append(len(chunks))
            super().upsert(chunks, vectors)

    class Plugin:
        @hookimpl
        def register_stores(self, register):
            register("audited", Audited)

    with use(pm, Plugin(), corpus, stores=[{"type": "audited"}], embedder=None) as pipeline:
        pipeline.index()
        assert sum(Audited.writes) == pipeline.stores[0][1].count() > 0


def test_hook_register_rerankers(pm, corpus: Path) -> None:
    class Reverse(Reranker):
        class Config(ComponentConfig):
            top_k: int = 2

        def rerank(self, query, hits, top_k=None):
            ranked = list(reversed(hits))[: top_k or self.config.top_k]
            return [h.with_score("rerank", float(i)) for i, h in enumerate(ranked)]

    class Plugin:
        @hookimpl
        def register_rerankers(self, register):
            register("reverse", Reverse)

    with use(pm, Plugin(), corpus, reranker={"type": "reverse"}) as pipeline:
        pipeline.index()
        plain = ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus).open()
        fused = plain.retrieve("plan", k=3)
        plain.close()
        hits = pipeline.retrieve("plan", k=3)
    assert [h.chunk.id for h in hits] == [h.chunk.id for h in reversed(fused)][:2]
    assert "rerank" in hits[0].scores and "fusion" in hits[0].scores


def test_a_reranker_that_fails_leaves_the_fused_order_said_to_be_one(
    pm, corpus: Path, caplog
) -> None:
    """A reranker is an optional stage: its service down after the retries
    failed the whole query (exit 1, 502), where a failing generator degrades.
    By default the fused order answers, marked and logged; `raise` keeps the
    error."""
    import logging

    from ragloom.errors import RagloomError, RerankerError
    from ragloom.evaluation.cases import EvalCase, run_cases
    from ragloom.remote import Failure
    from ragloom.server.service import answer_json

    failure = [Failure("status", status=503)]

    class Down(Reranker):
        def rerank(self, query, hits, top_k=None):
            exc = RerankerError("service unavailable after 5 attempt(s)")
            exc.failure = failure[0]  # as ragloom.remote's retry raises it
            raise exc

    class Plugin:
        @hookimpl
        def register_rerankers(self, register):
            register("down", Down)

    plain = ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus)
    plain.index()
    fused = [h.chunk.id for h in plain.retrieve("plan", k=3)]
    plain.close()
    with use(pm, Plugin(), corpus, reranker={"type": "down"}) as pipeline:
        with caplog.at_level(logging.WARNING, logger="ragloom"):
            hits = pipeline.retrieve("plan", k=3)
        assert [h.chunk.id for h in hits] == fused
        assert hits.degraded == "the reranker failed (RerankerError); fused order"
        assert "reranker failed, answering with the fused order" in caplog.text
        answer = pipeline.ask("How much does the Pro plan cost?")
        assert answer.metadata["retrieval_degraded"] and answer.citations
        assert answer_json(answer)["retrieval_degraded"] == hits.degraded  # /v1/ask, MCP
        explained = pipeline.retrieve("plan", k=3, explain=True).explanation
        assert all(h.rerank_score is None for h in explained.hits)  # no rerank happened
        # an evaluation measures the configured pipeline, or says it cannot
        with pytest.raises(RagloomError, match="the reranker failed.*during the evaluation"):
            run_cases(pipeline, [EvalCase(question="plan", must_retrieve=["docs/pricing.md"])])
        # a refusal a retry would meet again (a revoked key) is the config's: raised
        failure[0] = Failure("status", status=401)
        with pytest.raises(RerankerError):
            pipeline.retrieve("plan", k=3)
        failure[0] = Failure("status", status=503)
    config = basic_config(reranker={"type": "down"}, retrieval={"on_rerank_error": "raise"})
    with (
        ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline,
        pytest.raises(RerankerError, match="service unavailable"),
    ):
        pipeline.retrieve("plan", k=3)


def test_hook_register_generators(pm, corpus: Path) -> None:
    class Echo(Generator):
        class Config(ComponentConfig):
            prefix: str = ">>"

        def generate(self, question, hits, history=()):
            return Answer(question, f"{self.config.prefix} {hits[0].chunk.label}")

    class Plugin:
        @hookimpl
        def register_generators(self, register):
            register("echo", Echo)

    with use(pm, Plugin(), corpus, generator={"type": "echo", "prefix": "!!"}) as pipeline:
        pipeline.index()
        answer = pipeline.ask("AES-256 encryption")
    assert answer.text.startswith("!! docs/security.md#")


def test_hook_register_query_transformers(pm, corpus: Path) -> None:
    class Expand(QueryTransformer):
        def transform(self, question, history=()):
            return [question, "encrypted AES-256"]

    class Plugin:
        @hookimpl
        def register_query_transformers(self, register):
            register("expand", Expand)

    with use(pm, Plugin(), corpus, query_transformers=[{"type": "expand"}]) as pipeline:
        pipeline.index()
        sources = {h.chunk.source for h in pipeline.retrieve("Pro plan price", k=5)}
    assert {"docs/pricing.md", "docs/security.md"} <= sources


def test_hook_run_stage(pm, corpus: Path) -> None:
    seen: list[tuple[str, str]] = []

    class Tracer:
        @hookimpl(wrapper=True)
        def run_stage(self, call: StageCall):
            result = yield
            seen.append((call.stage, call.name))
            return result

    with use(pm, Tracer(), corpus) as pipeline:
        pipeline.index()
        answer = pipeline.ask("How much does the Pro plan cost?")
    stages = [s for s, _ in seen]
    for stage in (
        "load",
        "chunk",
        "embed",
        "upsert",
        "flush",
        "embed_query",
        "retrieve",
        "fuse",
        "generate",
    ):
        assert stage in stages, stage
    assert ("retrieve", "memory") in seen and ("retrieve", "bm25") in seen
    assert answer.grounded and "$29" in answer.text


def test_a_run_stage_wrapper_may_give_the_load_stage_a_list_of_its_own(pm, corpus: Path) -> None:
    """As the hook's docs say, a wrapper returns the result: one that leaves
    a document out by returning another list (not editing the one it got)
    is heard."""

    class Keeper:
        @hookimpl(wrapper=True)
        def run_stage(self, call: StageCall):
            result = yield
            if call.stage == "load":
                return [doc for doc in result if doc.id != "docs/security.md"]
            return result

    with use(pm, Keeper(), corpus) as pipeline:
        report = pipeline.index()
        assert "docs/security.md" not in report.added and "docs/pricing.md" in report.added
        sources = {hit.chunk.document_id for hit in pipeline.retrieve("security plan", k=10)}
        assert "docs/security.md" not in sources


def test_run_stage_wrapper_registered_on_an_open_pipeline_sees_the_next_calls(
    pm, corpus: Path
) -> None:
    """With only core's ``run_stage``, a run calls each stage itself; a plugin
    registered later is asked from the next run on, and the trace still times
    every stage either way."""
    seen: list[str] = []

    class Tracer:
        @hookimpl(wrapper=True)
        def run_stage(self, call: StageCall):
            seen.append(call.stage)
            return (yield)

    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        before = pipeline.retrieve("How much does the Pro plan cost?")
        assert seen == []
        assert [t.stage for t in before.trace] == ["embed_query", "retrieve", "retrieve", "fuse"]
        pm.register(Tracer(), name="late-tracer")
        after = pipeline.retrieve("How much does the Pro plan cost?")
    assert seen == ["embed_query", "retrieve", "retrieve", "fuse"]
    assert [h.chunk.id for h in after] == [h.chunk.id for h in before]


def test_run_stage_impl_can_retry_a_flaky_stage(pm, corpus: Path) -> None:
    calls = {"n": 0}

    class Flaky(Embedder):
        def embed_batch(self, texts):
            calls["n"] += 1
            if calls["n"] == 1:
                raise ConnectionError("transient")
            return np.ones((len(texts), 4), dtype=np.float32)

        @property
        def dimension(self) -> int:
            return 4

    class Plugin:
        @hookimpl
        def register_embedders(self, register):
            register("flaky", Flaky)

    class Retry:
        @hookimpl(tryfirst=True)
        def run_stage(self, call: StageCall):
            if call.stage != "embed":
                return None
            for attempt in range(3):
                try:
                    return call.run()
                except ConnectionError:
                    if attempt == 2:
                        raise
            return None

    pm.register(Retry(), name="retry")
    with use(pm, Plugin(), corpus, embedder={"type": "flaky"}, stores=[{"type": "memory"}]) as p:
        report = p.index()
    assert report.chunks > 0 and calls["n"] >= 2


def test_hook_run_stage_firstresult_overrides(pm, corpus: Path) -> None:
    class NoRetrieval:
        @hookimpl
        def run_stage(self, call: StageCall):
            if call.stage == "retrieve":
                return []
            return None

    with use(pm, NoRetrieval(), corpus) as pipeline:
        pipeline.index()
        assert pipeline.retrieve("plan") == []


def test_hook_on_event(pm, corpus: Path) -> None:
    events: list[object] = []

    class Observer:
        @hookimpl
        def on_event(self, event):
            events.append(event)

    class Broken:
        @hookimpl
        def on_event(self, event):
            raise RuntimeError("observers never break a run")

    pm.register(Broken(), name="broken-observer")
    (corpus / "docs" / "bad.md").write_bytes(b"\x00binary")
    with use(pm, Observer(), corpus) as pipeline:
        pipeline.index()
        pipeline.ask("Pro plan cost")
    kinds = [type(e) for e in events]
    assert kinds[0] is RunStarted and RunFinished in kinds
    finished = [e for e in events if isinstance(e, StageFinished)]
    assert all(e.seconds >= 0 for e in finished)
    embed = next(e for e in finished if e.stage == "embed")
    assert embed.count and embed.count >= 3
    problems = [e for e in events if isinstance(e, ProblemReported)]
    assert [p.source for p in problems] == ["docs/bad.md"]
    runs = [e for e in events if isinstance(e, RunFinished)]
    assert {r.operation for r in runs} == {"index", "ask"}
    index_run = next(r for r in runs if r.operation == "index")
    assert index_run.stats["documents"] == 3
    assert len({e.run_id for e in events if e.run_id}) == 2


def test_run_stage_errors_are_reported(pm, corpus: Path) -> None:
    events: list[object] = []

    class Observer:
        @hookimpl
        def on_event(self, event):
            events.append(event)

    class Failing(Embedder):
        def embed_batch(self, texts):
            raise ConnectionError("embedding service unreachable")

        @property
        def dimension(self) -> int:
            return 8

    class Plugin:
        @hookimpl
        def register_embedders(self, register):
            register("failing", Failing)

    pm.register(Observer(), name="observer")
    with (
        use(pm, Plugin(), corpus, embedder={"type": "failing"}) as pipeline,
        pytest.raises(ConnectionError),
    ):
        pipeline.index()
    failed = [e for e in events if isinstance(e, StageFinished) and e.error]
    assert failed and failed[0].stage == "embed" and "unreachable" in failed[0].error
    assert isinstance(events[-1], RunFinished) and events[-1].error


def run_main(argv: list[str]) -> int:
    import ragloom.cli

    try:
        ragloom.cli.main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def test_hook_register_commands(pm, monkeypatch, capsys) -> None:
    import click
    import ragloom.cli
    import ragloom.plugins

    class Plugin:
        @hookimpl
        def register_commands(self, cli):
            @cli.command(name="hello")
            @click.argument("name")
            def hello(name):
                """Say hello."""
                click.echo(f"hello {name}")

    pm.register(Plugin(), name="hello-plugin")
    monkeypatch.setattr(ragloom.plugins, "_pm", pm)
    try:
        assert run_main(["hello", "world"]) == 0
        assert capsys.readouterr().out == "hello world\n"
        assert run_main(["--help"]) == 0
        assert "hello" in capsys.readouterr().out
    finally:
        ragloom.cli.cli.commands.pop("hello", None)


def test_plugin_cannot_replace_a_core_command(pm, monkeypatch, capsys) -> None:
    import click
    import ragloom.cli
    import ragloom.plugins

    class Hijack:
        @hookimpl
        def register_commands(self, cli):
            @cli.command(name="index")
            def index():
                click.echo("hijacked")

    pm.register(Hijack(), name="hijack")
    monkeypatch.setattr(ragloom.plugins, "_pm", pm)
    assert run_main(["plugins"]) == 2
    assert "'hijack'" in capsys.readouterr().err
    assert ragloom.cli.cli.commands["index"] is ragloom.cli.CORE_COMMANDS["index"]
    # the help needs no plugin: the core command's, with the error as a warning
    assert run_main(["index", "--help"]) == 0
    out, err = capsys.readouterr()
    assert "hijacked" not in out and "Load, chunk, embed and store" in out
    assert err.startswith("warning: plugin 'hijack' tried to replace the core command(s) index")


def test_two_plugins_adding_one_command_is_an_error_naming_both(pm, monkeypatch, capsys) -> None:
    import click
    import ragloom.cli
    import ragloom.plugins

    def adding(word: str) -> object:
        class Plugin:
            @hookimpl
            def register_commands(self, cli):
                @cli.command(name="export")
                def export():
                    click.echo(word)

        return Plugin()

    pm.register(adding("first"), name="exporter-a")
    pm.register(adding("second"), name="exporter-b")
    monkeypatch.setattr(ragloom.plugins, "_pm", pm)
    try:
        assert run_main(["export"]) == 2
        err = capsys.readouterr().err
        assert "'exporter-a'" in err and "'exporter-b'" in err and "'export'" in err
    finally:
        ragloom.cli.cli.commands.pop("export", None)


@pytest.mark.skipif(not hasattr(KeyError(), "add_note"), reason="exception notes: Python 3.11+")
def test_an_error_a_plugin_component_raises_says_which_stage_and_component(
    pm, corpus: Path
) -> None:
    """A plugin's ``KeyError: 'api_url'`` alone names neither the store nor the plugin."""

    class Flaky(BM25Store):
        def query(self, **kwargs):
            raise KeyError("api_url")

    class Plugin:
        @hookimpl
        def register_stores(self, register):
            register("flaky", Flaky)

    with use(pm, Plugin(), corpus, stores=[{"type": "memory"}, {"type": "flaky"}]) as pipeline:
        pipeline.index()
        with pytest.raises(KeyError) as info:
            pipeline.retrieve("AES-256")
    assert info.value.__notes__ == ["in the retrieve stage of 'flaky'"]
