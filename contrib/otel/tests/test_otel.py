"""ragloom-otel: runs and stages as spans, checked with the OpenTelemetry
SDK's in-memory exporter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import ragloom
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from ragloom import hookimpl
from ragloom.events import SKIP_RUN, RunStarted
from ragloom.plugins import build_plugin_manager
from ragloom_otel import CAPTURE_ENV, SpanObserver

CONFIG = {
    "loaders": [{"type": "directory", "path": "docs"}],
    "chunker": {"type": "recursive", "size": 200, "overlap": 20},
    "embedder": {"type": "hash", "dimension": 64},
    "stores": [{"type": "memory"}, {"type": "bm25"}],
    "retrieval": {"k": 3},
    "generator": {"type": "extractive"},
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RAGLOOM_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "pricing.md").write_text(
        "# Pricing\n\nThe Pro plan costs $29 per user per month.\n", "utf-8"
    )
    (tmp_path / "docs" / "memory.md").write_text(
        "# Memory\n\nMemories are kept for 90 days on the Free plan.\n", "utf-8"
    )
    return tmp_path


def traced(project: Path, **options: object) -> tuple[ragloom.Pipeline, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(SpanObserver(provider, **options), name="otel-test")
    return ragloom.load(CONFIG, plugin_manager=pm, base_dir=project), exporter


def by_name(exporter: InMemorySpanExporter) -> dict[str, list]:
    spans: dict[str, list] = {}
    for span in exporter.get_finished_spans():
        spans.setdefault(span.name, []).append(span)
    return spans


def test_ask_is_a_run_span_with_a_child_per_stage(project: Path) -> None:
    pipeline, exporter = traced(project)
    with pipeline:
        pipeline.index()
        exporter.clear()
        answer = pipeline.ask("How much does the Pro plan cost?")
    spans = by_name(exporter)
    (run,) = spans["ragloom.run.ask"]
    assert run.attributes["ragloom.operation"] == "ask"
    assert run.attributes["ragloom.citations"] == len(answer.citations)
    assert run.status.status_code != StatusCode.ERROR
    stages = [s for s in exporter.get_finished_spans() if s.name.startswith("ragloom.stage.")]
    assert {s.attributes["ragloom.stage"] for s in stages} == {
        "embed_query",
        "retrieve",
        "fuse",
        "generate",
    }
    for span in stages:
        assert span.parent.span_id == run.context.span_id
        assert span.context.trace_id == run.context.trace_id
        assert run.start_time <= span.start_time <= span.end_time <= run.end_time
        assert span.attributes["ragloom.run_id"] == run.attributes["ragloom.run_id"]
    retrieves = spans["ragloom.stage.retrieve"]
    assert {s.attributes["ragloom.component"] for s in retrieves} == {"memory", "bm25"}
    assert all(s.attributes["ragloom.item_count"] >= 1 for s in retrieves)
    # no content unless asked for
    assert not any("ragloom.query" in s.attributes for s in stages)
    assert not any("ragloom.answer" in s.attributes for s in stages)


def test_index_runs_are_traced_too(project: Path) -> None:
    pipeline, exporter = traced(project)
    with pipeline:
        pipeline.index()
    spans = by_name(exporter)
    (run,) = spans["ragloom.run.index"]
    assert run.attributes["ragloom.documents"] == 2
    assert {"ragloom.stage.load", "ragloom.stage.chunk", "ragloom.stage.embed"} <= set(spans)


def test_content_capture_is_opt_in(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGLOOM_OTEL_CAPTURE_CONTENT", "true")
    pipeline, exporter = traced(project)
    with pipeline:
        pipeline.index()
        exporter.clear()
        pipeline.ask("How much does the Pro plan cost?")
    spans = by_name(exporter)
    (generate,) = spans["ragloom.stage.generate"]
    assert "$29" in generate.attributes["ragloom.answer"]
    assert generate.attributes["ragloom.citations"] == ("docs/pricing.md#pricing",)
    assert generate.attributes["ragloom.query"] == "How much does the Pro plan cost?"
    (fuse,) = spans["ragloom.stage.fuse"]
    assert fuse.attributes["ragloom.hits"][0] == "docs/pricing.md#pricing"
    (bm25,) = [
        s for s in spans["ragloom.stage.retrieve"] if s.attributes["ragloom.component"] == "bm25"
    ]
    assert bm25.attributes["ragloom.query"] == "How much does the Pro plan cost?"


def test_failed_runs_and_stages_have_error_status(project: Path) -> None:
    pipeline, exporter = traced(project)
    with pipeline:
        pipeline.index()
        exporter.clear()
        with pytest.raises(ragloom.RagloomError):
            pipeline.retrieve("plan", filters={"year": {"$regex": "x"}})
    (run,) = by_name(exporter)["ragloom.run.retrieve"]
    assert run.status.status_code == StatusCode.ERROR
    assert run.attributes["error.type"] == "FilterError"


def test_streams_and_the_current_span_as_parent(project: Path) -> None:
    pipeline, exporter = traced(project)
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    outer_tracer = provider.get_tracer("app")
    with pipeline:
        pipeline.index()
        exporter.clear()
        with outer_tracer.start_as_current_span("http request") as outer:
            stream = pipeline.stream("How long are memories kept?")
            text = "".join(stream)
    assert "90 days" in text
    spans = by_name(exporter)
    (run,) = spans["ragloom.run.stream"]
    assert run.parent.span_id == outer.get_span_context().span_id
    (generate,) = spans["ragloom.stage.generate"]
    assert generate.attributes["ragloom.item_count"] >= 1


def test_the_plugin_loads_through_its_entry_point() -> None:
    pm = build_plugin_manager(env={"RAGLOOM_LOAD_PLUGINS": "otel"})
    names = {pm.get_name(p) for p in pm.get_plugins()}
    assert "otel" in names
    assert any(impl.plugin_name == "otel" for impl in pm.hook.on_event.get_hookimpls())


@pytest.mark.parametrize("capture", ["", "true"])
def test_the_run_stage_wrapper_is_there_only_to_capture_content(capture: str) -> None:
    """Without content capture the wrapper would do nothing on every stage, so
    the installed plugin registers it only when the environment asks for content
    as it loads (a fresh interpreter: the plugin module is imported once)."""
    script = (
        "from ragloom.plugins import build_plugin_manager\n"
        "pm = build_plugin_manager(env={'RAGLOOM_LOAD_PLUGINS': 'otel'})\n"
        "print(sorted(i.plugin_name for i in pm.hook.run_stage.get_hookimpls()))\n"
    )
    env = {**os.environ, CAPTURE_ENV: capture}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    ).stdout
    expected = ["otel", "ragloom.core"] if capture else ["ragloom.core"]
    assert out.strip() == repr(expected)


def test_the_global_provider_is_used_once_set(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from opentelemetry import trace

    observer = SpanObserver()  # no provider: the global one, when there is one
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(observer, name="otel-test")
    pipeline = ragloom.load(CONFIG, plugin_manager=pm, base_dir=project)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    seen: list[str] = []

    class Counter:  # beside the observer, it sees what runs still send
        @hookimpl(wrapper=True)
        def on_event(self, event):
            seen.append(type(event).__name__)
            return (yield)

    with pipeline:
        pipeline.index()
        monkeypatch.setattr(trace, "get_tracer_provider", trace.ProxyTracerProvider)
        pipeline.retrieve("Pro plan")  # nothing set yet: the observer does nothing
        assert observer._tracer() is None
        # and declines the run: with no other observer, no later event is built
        assert observer.on_event(RunStarted("r1", operation="retrieve")) is SKIP_RUN
        pm.register(Counter(), name="counter")
        pipeline.retrieve("Pro plan")  # a wrapper sees every event, declined or not
        assert seen[0] == "RunStarted" and seen[-1] == "RunFinished"
        pm.unregister(name="counter")
        monkeypatch.setattr(trace, "get_tracer_provider", lambda: provider)
        pipeline.retrieve("Pro plan")  # set now: traced from this run on
    spans = by_name(exporter)
    assert len(spans["ragloom.run.retrieve"]) == 1
    (run,) = spans["ragloom.run.retrieve"]
    assert {s.parent.span_id for s in spans["ragloom.stage.retrieve"]} == {
        run.get_span_context().span_id
    }


def test_stages_of_one_run_on_two_threads_keep_their_own_content() -> None:
    """Two stores of one run asked at once (a remote store on the pipeline's
    pool) finish in the other order than they started: each stage span still
    carries its own query, not the other thread's."""
    import contextlib
    import threading

    from ragloom.events import RunStarted, StageCall, StageFinished

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    observer = SpanObserver(provider, capture_content=True)
    observer.on_event(RunStarted("r1", operation="retrieve"))
    wrapped = threading.Barrier(2, timeout=10)
    first_done = threading.Event()

    def stage(text: str, finish_first: bool) -> None:
        call = StageCall("retrieve", "store", None, lambda: [], (), {"text": text}, "r1")
        wrapper = observer.run_stage(call)
        next(wrapper)
        with contextlib.suppress(StopIteration):  # the wrapper returns the result
            wrapper.send([])
        wrapped.wait()  # both have kept their content before either event
        if not finish_first:
            first_done.wait(10)
        observer.on_event(
            StageFinished("r1", stage="retrieve", name="store", seconds=0.01, count=len(text))
        )
        if finish_first:
            first_done.set()

    threads = [
        threading.Thread(target=stage, args=("alpha question", False)),
        threading.Thread(target=stage, args=("beta, another question", True)),
    ]
    threads[0].start()
    threads[0].join(0.2)  # "alpha" keeps its content first, "beta" finishes first
    threads[1].start()
    for thread in threads:
        thread.join(10)
    spans = [s for s in exporter.get_finished_spans() if s.name == "ragloom.stage.retrieve"]
    assert len(spans) == 2
    for span in spans:  # the event's count is its own query's length
        assert len(span.attributes["ragloom.query"]) == span.attributes["ragloom.item_count"]
