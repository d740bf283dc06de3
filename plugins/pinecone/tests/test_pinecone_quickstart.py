"""The demo (examples/quickstart) with Pinecone and BM25 as stores and Cohere's
reranker, all against loopback servers: it indexes the demo docs and passes
examples/quickstart/eval.yaml. An upsert that keeps failing stops the run with
the ledger untouched; the next run resumes and completes."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pluggy
import pytest
import ragloom
import ragloom_cohere.plugin as cohere_plugin
import ragloom_sentence_transformers.plugin as st_plugin
import yaml
from ragloom.errors import StoreError
from ragloom.evaluation.cases import load_cases, run_cases
from ragloom.plugins import build_plugin_manager
from ragloom.testing.servers import FakeCohere, FakePinecone, Fault

import ragloom_pinecone.plugin as pinecone_plugin

QUICKSTART = Path(__file__).resolve().parents[3] / "examples" / "quickstart"


@pytest.fixture
def pm() -> pluggy.PluginManager:
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(st_plugin, name="sentence-transformers")
    pm.register(pinecone_plugin, name="pinecone")
    pm.register(cohere_plugin, name="cohere")
    return pm


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One embedding cache for the module: the demo's chunks are embedded once."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def services(monkeypatch: pytest.MonkeyPatch, cache: Path) -> Iterator[tuple[Any, Any]]:
    monkeypatch.setenv("PINECONE_API_KEY", "pc-key")
    monkeypatch.setenv("CO_API_KEY", "co-key")
    monkeypatch.setenv("RAGLOOM_CACHE_DIR", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with FakePinecone(api_key="pc-key") as pinecone, FakeCohere(api_key="co-key") as cohere:
        yield pinecone, cohere


def demo(tmp_path: Path, pinecone: FakePinecone, cohere: FakeCohere) -> dict[str, Any]:
    """The quickstart's config with the stores and reranker of this test."""
    shutil.copytree(QUICKSTART / "docs", tmp_path / "docs")
    config = yaml.safe_load((QUICKSTART / "ragloom.yaml").read_text("utf-8"))
    config["stores"] = [
        {"type": "pinecone", "index": "quickstart", "create": True,
         "controller_host": pinecone.url, "namespace": "demo", "retry_initial_delay": 0.01},
        {"type": "bm25"},
    ]  # fmt: skip
    config["reranker"] = {"type": "cohere", "base_url": cohere.url, "top_k": 5}
    return config


def test_quickstart_on_pinecone_and_cohere_passes_its_eval(
    pm: pluggy.PluginManager, services: tuple[Any, Any], tmp_path: Path
) -> None:
    pinecone, cohere = services
    with ragloom.load(demo(tmp_path, pinecone, cohere), plugin_manager=pm,
                      base_dir=tmp_path) as pipeline:  # fmt: skip
        report = pipeline.index()
        assert len(report.added) == 5 and report.chunks > 5
        held = pinecone.vectors("quickstart", "demo")
        assert len(held) == report.chunks
        result = run_cases(pipeline, load_cases(QUICKSTART / "eval.yaml"))
        hits = pipeline.retrieve("How much does the Team plan cost?")
    assert result.passed, [r.to_dict() if hasattr(r, "to_dict") else r for r in result.failures]
    assert hits[0].chunk.source == "docs/pricing-faq.md"
    assert "rerank" in hits[0].scores and "quickstart" not in hits[0].scores
    assert cohere.calls("/v2/rerank") and pinecone.calls("/query")
    filtered = [c for c in pinecone.calls("/query") if c.body.get("filter")]
    assert filtered, "the eval's filter case reached Pinecone as a Pinecone filter"


def test_a_failed_upsert_stops_the_run_and_the_next_run_resumes(
    pm: pluggy.PluginManager, services: tuple[Any, Any], tmp_path: Path
) -> None:
    pinecone, cohere = services
    config = demo(tmp_path, pinecone, cohere)
    config["stores"][0]["max_retries"] = 1
    pinecone.fail(Fault.status(503), times=2, path="/vectors/upsert")
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        with pytest.raises(StoreError, match="pinecone upsert.*503.*gave up after 2"):
            pipeline.index()
        assert pipeline.retrieve("How much does the Team plan cost?") == []
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        report = pipeline.index()
        assert len(report.added) == 5, "nothing was committed by the failed run"
        assert len(pinecone.vectors("quickstart", "demo")) == report.chunks
        hits = pipeline.retrieve("How much does the Team plan cost?")
    assert hits and hits[0].chunk.source == "docs/pricing-faq.md"


def test_a_namespace_changed_in_the_config_is_said_and_repaired(
    pm: pluggy.PluginManager, services: tuple[Any, Any], tmp_path: Path
) -> None:
    """Pinecone's count lags writes, so it is not held to the ledger on every
    run: a config pointed at another namespace wrote nothing there, said
    nothing, and `--repair` did nothing either; a document deleted meanwhile
    kept its text in the first namespace for good."""
    pinecone, cohere = services
    config = demo(tmp_path, pinecone, cohere)
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        chunks = pipeline.index().chunks
    moved = yaml.safe_load(yaml.safe_dump(config))
    moved["stores"][0]["namespace"] = "elsewhere"
    with ragloom.load(moved, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        problems = dict(pipeline.index().problems)
        said = problems["pinecone"]
        assert "the config moved it: it was index 'quickstart', namespace 'demo'" in said
        assert "is index 'quickstart', namespace 'elsewhere' now" in said and "--repair" in said
        (tmp_path / "docs" / "security.md").unlink()
        assert "the config moved it" in dict(pipeline.index().problems)["pinecone"]  # again
        report = pipeline.index(repair=True)
        assert any(line.startswith("pinecone:") for line in report.repaired), report.repaired
        held = pinecone.vectors("quickstart", "elsewhere")
        assert len(held) == report.chunks and report.chunks < chunks
        assert not pipeline.index().problems
    # back to the first namespace: --repair deletes what the deleted document left there
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        pipeline.index(repair=True)
        left = pinecone.vectors("quickstart", "demo")
        assert not [m for _, m in left.values() if "security.md" in str(m)], "deleted text"
        assert [m for _, m in left.values() if "pricing-faq.md" in str(m)]
        assert len(left) == len(held)
