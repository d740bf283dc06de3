"""Explain, trace and the async API: what retrieval did per hit, the stages'
timings, and the pipeline's methods run from an event loop."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pluggy
import pytest
import ragloom
import yaml

from .conftest import basic_config

RAGLOOM = str(Path(sys.executable).parent / "ragloom")


def test_explain_gives_each_hits_place_in_every_store(
    corpus: Path, pm: pluggy.PluginManager
) -> None:
    config = basic_config(
        access={"unlabeled": "public"},
        retrieval={"k": 3, "filter": {"source": {"$ne": "nowhere.md"}}},
        reranker={"type": "mmr", "lambda_mult": 0.3},
    )
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        plain = pipeline.retrieve("refund plan", principals=["alice"], k=3)
        hits = pipeline.retrieve(
            "refund plan", {"source": {"$ne": "x.md"}}, principals=["alice"], k=3, explain=True
        )
        lists = {
            name: [
                h.chunk.id
                for h in store.query(
                    **(
                        {"text": "refund plan"}
                        if name == "bm25"
                        else {"vector": pipeline.embedder.embed_query("refund plan")}
                    ),
                    k=20,
                )
            ]
            for name, store in pipeline.stores
        }
    assert plain.explanation is None and [h.chunk.id for h in plain] == [h.chunk.id for h in hits]
    why = hits.explanation
    assert why is not None and why.queries == ("refund plan",)
    assert why.filter == {"source": {"$ne": "x.md"}}
    assert why.retrieval_filter == {"source": {"$ne": "nowhere.md"}}
    assert why.access_filter == {
        "$or": [{"principals": {"$in": ["alice"]}}, {"principals": {"$exists": False}}]
    }
    assert [w.chunk_id for w in why.hits] == [h.chunk.id for h in hits]
    for hit, w in zip(hits, why.hits):
        for name, (rank, score) in w.stores.items():
            assert lists[name][rank - 1] == hit.chunk.id
            assert score == pytest.approx(hit.scores[name])
        assert w.fused_score == pytest.approx(hit.scores["fusion"])
        assert w.reranked_rank is not None and w.movement == w.fused_rank - w.reranked_rank
    assert {w.fused_rank for w in why.hits} <= {1, 2, 3}


def test_explain_names_each_stores_own_filter(corpus: Path, pm: pluggy.PluginManager) -> None:
    own = {"source": {"$ne": "docs/security.md"}}
    config = basic_config(stores=[{"type": "memory", "filter": own}, {"type": "bm25"}])
    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(config))
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve("security keys", explain=True)
    assert hits.explanation is not None and hits.explanation.store_filters == {"memory": own}
    from_memory = [h for h, why in zip(hits, hits.explanation.hits) if "memory" in why.stores]
    assert from_memory and all(h.chunk.source != "docs/security.md" for h in from_memory)
    env = {**os.environ, "COLUMNS": "200"}
    out = subprocess.run(
        [RAGLOOM, "search", "--explain", "security keys"],
        cwd=corpus, capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert 'store memory filter: {"source": {"$ne": "docs/security.md"}}' in out.stdout
    assert "store bm25 filter" not in out.stdout


def test_explain_by_document_gives_each_stores_place_of_the_document(
    corpus: Path, pm: pluggy.PluginManager
) -> None:
    from ragloom.fusion import best_per_document

    config = basic_config(
        chunker={"type": "recursive", "size": 60, "overlap": 10},
        retrieval={"k": 4, "fuse_by": "document", "candidates": 40},
    )
    query = "refund plan price encrypted"
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve(query, explain=True)
        vector = pipeline.embedder.embed_query(query)
        lists = {
            name: best_per_document(
                store.query(**({"text": query} if name == "bm25" else {"vector": vector}), k=40)
            )
            for name, store in pipeline.stores
        }
    assert len({h.chunk.document_id for h in hits}) == len(hits) > 1
    assert hits.explanation is not None
    split = 0  # documents whose two stores' best chunks differ
    for hit, why in zip(hits, hits.explanation.hits):
        assert set(why.stores) == {"memory", "bm25"}  # each store found the document
        for name, (rank, score) in why.stores.items():
            chunk = lists[name][rank - 1].chunk
            assert chunk.document_id == hit.chunk.document_id
            assert score == pytest.approx(hit.scores[name])
        split += lists["memory"][why.stores["memory"][0] - 1].chunk.id != (
            lists["bm25"][why.stores["bm25"][0] - 1].chunk.id
        )
    assert split  # the case a chunk-keyed explanation would get wrong


def test_trace_lists_every_stage(corpus: Path, pm: pluggy.PluginManager) -> None:
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        answer = pipeline.ask("How much does the Pro plan cost?", trace=True)
        plain = pipeline.ask("How much does the Pro plan cost?")
        hits = pipeline.retrieve("refunds")
    stages = [(t.stage, t.name) for t in answer.metadata["trace"]]
    assert stages == [
        ("embed_query", "hash"),
        ("retrieve", "memory"),
        ("retrieve", "bm25"),
        ("fuse", "rrf"),
        ("generate", "extractive"),
    ]
    assert all(t.seconds >= 0 for t in answer.metadata["trace"])
    assert "trace" not in plain.metadata
    assert [t.stage for t in hits.trace] == ["embed_query", "retrieve", "retrieve", "fuse"]


def test_cli_explain_and_trace(corpus: Path) -> None:
    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    env = {**os.environ, "COLUMNS": "200"}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [RAGLOOM, *args], cwd=corpus, capture_output=True, text=True, env=env, timeout=120
        )

    assert cli("index").returncode == 0
    table = cli("search", "--explain", "refund", "-k", "2")  # piped: tab-separated lines
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split("\t")[:2] == ["rank", "label"] and "fused" in lines[0]
    assert {"memory", "bm25"} <= set(lines[0].split("\t"))
    assert len(lines) == 3 and all(
        len(line.split("\t")) == len(lines[0].split("\t")) for line in lines
    )
    assert "#1" in table.stdout and "│" not in table.stdout and "┃" not in table.stdout
    data = json.loads(cli("search", "--explain", "--json", "refund", "-k", "2").stdout)
    assert set(data) == {
        "queries",
        "filter",
        "retrieval_filter",
        "access_filter",
        "store_filters",
        "feedback",
        "hits",
    }
    assert data["store_filters"] == {}
    assert data["feedback"] is None  # not configured
    assert data["hits"][0]["explain"]["fused_rank"] == 1
    assert set(data["hits"][0]["explain"]["stores"]) <= {"memory", "bm25"}
    traced = cli("ask", "--trace", "How much does the Pro plan cost?")
    assert traced.returncode == 0 and "embed_query" in traced.stdout and "total" in traced.stdout
    traced_json = json.loads(cli("ask", "--json", "--trace", "Pro plan cost?").stdout)
    assert [t["stage"] for t in traced_json["trace"]][-1] == "generate"


def test_async_methods_do_not_block_the_event_loop(corpus: Path, pm: pluggy.PluginManager) -> None:
    main_thread = threading.get_ident()
    seen: set[int] = set()

    class Spy:
        @ragloom.hookimpl(wrapper=True)
        def run_stage(self, call):
            seen.add(threading.get_ident())
            return (yield)

    pm.register(Spy())

    async def scenario(pipeline: ragloom.Pipeline) -> tuple:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        report = await pipeline.aindex()
        hits, answer = await asyncio.gather(
            pipeline.aretrieve("refund", k=2),
            pipeline.aask("How much does the Pro plan cost?"),
        )
        stream = pipeline.astream("How long are memories kept?")
        pieces = [piece async for piece in stream]
        task.cancel()
        return report, hits, answer, pieces, stream.answer, ticks

    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        report, hits, answer, pieces, streamed, ticks = asyncio.run(scenario(pipeline))
    assert len(report.added) == 3 and len(hits) == 2 and "$29" in answer.text
    assert "".join(pieces) and streamed is not None and "90 days" in streamed.text
    assert main_thread not in seen and ticks > 0


def test_async_errors_reach_the_caller(corpus: Path, pm: pluggy.PluginManager) -> None:
    config = basic_config(access={})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        with pytest.raises(ragloom.errors.AccessError):
            asyncio.run(pipeline.aretrieve("refund"))

        async def stream() -> list[str]:
            return [p async for p in pipeline.astream("refund")]

        with pytest.raises(ragloom.errors.AccessError):
            asyncio.run(stream())
