"""End to end: configs naming the sentence-transformers embedder and the
cross-encoder reranker index documents and answer questions."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import ragloom
from ragloom.errors import IndexStateError

DOCS = {
    "pricing.md": "# Pricing\n\nThe Pro plan costs $29 per user per month.\n\n"
    "## Refunds\n\nAnnual plans can be refunded within 30 days of purchase.\n",
    "memory.md": "# Memory\n\nMemories are kept for 90 days on the Free plan.\n"
    "Deleting a meeting deletes its memories within 24 hours.\n",
    "security.md": "# Security\n\nAll data is encrypted at rest with AES-256 "
    "and in transit with TLS 1.3.\n",
}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, "utf-8")
    return tmp_path


def config(**overrides: object) -> dict:
    base: dict = {
        "loaders": [{"type": "directory", "path": "docs"}],
        "chunker": {"type": "recursive", "size": 200, "overlap": 20},
        "embedder": {"type": "sentence-transformers", "model": "all-MiniLM-L6-v2"},
        "stores": [{"type": "memory"}, {"type": "bm25"}],
        "retrieval": {"k": 3},
    }
    base.update(overrides)
    return base


def test_minilm_memory_bm25_indexes_and_answers(pm, corpus: Path, minilm: Path) -> None:
    with ragloom.load(config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        report = pipeline.index()
        assert len(report.added) == 3 and report.chunks >= 3
        answer = pipeline.ask("How much does the Pro plan cost?")
        # no word in common with the answer: only the embedder can find it
        hits = pipeline.retrieve("What is the price of a subscription?", k=3)
        dense = [h for h in hits if "memory" in h.scores]
    assert answer.grounded and "$29" in answer.text
    assert answer.citations[0].source == "docs/pricing.md"
    assert dense and dense[0].chunk.source == "docs/pricing.md"
    fingerprint = pipeline.embedder.fingerprint()
    assert fingerprint["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert fingerprint["dimension"] == 384


def test_reopening_keeps_the_index_and_a_new_prefix_is_refused(
    pm, corpus: Path, minilm: Path
) -> None:
    with ragloom.load(config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
    with ragloom.load(config(), plugin_manager=pm, base_dir=corpus) as again:
        assert again.index().unchanged == 3
        assert again.retrieve("encryption", k=1)[0].chunk.source == "docs/security.md"
    prefixed = config(
        embedder={
            "type": "sentence-transformers",
            "model": "all-MiniLM-L6-v2",
            "query_prefix": "query: ",
        }
    )
    with (
        ragloom.load(prefixed, plugin_manager=pm, base_dir=corpus) as changed,
        pytest.raises(IndexStateError, match="sentence-transformers/all-MiniLM-L6-v2 \\(384-d\\)"),
    ):
        changed.retrieve("encryption")


def test_moving_a_local_model_keeps_the_index(pm, corpus: Path, tiny_model: Path) -> None:
    shutil.copytree(tiny_model, corpus / "models" / "mine")
    local = config(embedder={"type": "sentence-transformers", "model": "models/mine"})
    with ragloom.load(local, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
    shutil.move(corpus / "models" / "mine", corpus / "elsewhere")
    moved = config(embedder={"type": "sentence-transformers", "model": "elsewhere"})
    with ragloom.load(moved, plugin_manager=pm, base_dir=corpus) as pipeline:
        assert pipeline.index().unchanged == 3
        assert pipeline.retrieve("pro plan cost", k=1)


def test_cross_encoder_reranks_in_a_pipeline(
    pm, corpus: Path, tiny_model: Path, tiny_cross_encoder: Path
) -> None:
    cfg = config(
        embedder={"type": "sentence-transformers", "model": str(tiny_model)},
        retrieval={"k": 4},
        reranker={"type": "cross-encoder", "model": str(tiny_cross_encoder), "top_k": 2},
    )
    with ragloom.load(cfg, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve("How much does the Pro plan cost?")
        assert pipeline.ask("How much does the Pro plan cost?").hits
    assert len(hits) == 2
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    for hit in hits:
        assert hit.scores["rerank"] == hit.score and "fusion" in hit.scores


def test_cross_encoder_scores_and_multi_label_models(tmp_path: Path, tiny_model: Path) -> None:
    import torch
    from ragloom import Chunk, Context, Hit
    from sentence_transformers import CrossEncoder

    from ragloom_sentence_transformers import CrossEncoderReranker

    torch.manual_seed(0)
    two = tmp_path / "two-labels"
    CrossEncoder(str(tiny_model), num_labels=2, device="cpu").save(str(two))
    reranker = CrossEncoderReranker(model=str(two), device="cpu", batch_size=2)
    reranker.open(Context(base_dir=tmp_path))
    texts = ["the pro plan costs", "data is encrypted", "memories are kept"]
    scores = reranker.scores("pro plan price", texts)
    assert len(scores) == 3 and all(isinstance(s, float) for s in scores)
    hits = [
        Hit(
            Chunk(f"c{i}", "d", t, i, 0, len(t), f"d#{i}"),
            1.0 / (i + 1),
            scores={"fusion": 1.0 / (i + 1)},
        )
        for i, t in enumerate(texts)
    ]
    ranked = reranker.rerank("pro plan price", hits, top_k=2)
    assert [h.score for h in ranked] == sorted(scores, reverse=True)[:2]
    assert reranker.scores("anything", []) == []


def test_ragloom_command_lists_the_plugin(tmp_path: Path) -> None:
    """The installed distribution's entry point: `ragloom plugins`, `ragloom tune --help`."""
    ragloom_bin = str(Path(sys.executable).parent / "ragloom")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGLOOM_")}
    listed = subprocess.run(
        [ragloom_bin, "plugins", "--json"], capture_output=True, text=True, env=env, timeout=120
    )
    assert listed.returncode == 0, listed.stderr
    plugins = {p["plugin"]: p for p in json.loads(listed.stdout)}
    ours = plugins["sentence-transformers"]
    assert ours["distribution"] == "ragloom-sentence-transformers"
    assert ours["registers"] == {
        "embedder": ["sentence-transformers"],
        "reranker": ["cross-encoder"],
    }
    helped = subprocess.run(
        [ragloom_bin, "tune", "--help"], capture_output=True, text=True, env=env, timeout=120
    )
    assert helped.returncode == 0, helped.stderr
    assert "embedder" in helped.stdout and "reranker" in helped.stdout


def test_a_question_with_bytes_that_are_no_utf8_is_answered(pm, corpus: Path, minilm: Path) -> None:
    """``ragloom ask $'caf\\xe9 ...'`` at a terminal set to UTF-8 gives Python
    a lone surrogate, which the tokenizer refused: "embedding 1 text(s) with
    'all-MiniLM-L6-v2' failed: TypeError: TextEncodeInput must be ...". The
    pipeline takes it as U+FFFD."""
    with ragloom.load(config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        answer = pipeline.ask("How much does the Pro plan cost? caf\udce9")
        (hits,) = pipeline.retrieve_many(["Pro plan price caf\udce9"], k=1)  # eval --beir's way
    assert answer.grounded and "$29" in answer.text
    assert hits[0].chunk.source == "docs/pricing.md"
