"""`ragloom tune embedder` and `ragloom tune reranker`, end to end on the tiny
model: seconds, seeded, and the output loads as `model:` in a pipeline."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import ragloom
from click.testing import CliRunner

from ragloom_sentence_transformers.training import (
    no_duplicate_batches,
    read_pairs,
    split_holdout,
)
from ragloom_sentence_transformers.tune import tune

PLANS = ["pro", "free", "team", "annual", "trial", "billing", "support", "storage", "search", "sso"]


def make_pairs() -> list[tuple[str, str]]:
    rng = random.Random(0)
    pairs = []
    for plan in PLANS:
        pairs.append(
            (
                f"how much does the {plan} plan cost",
                f"the {plan} plan costs {rng.randint(2, 99)} per user per month",
            )
        )
        pairs.append(
            (
                f"can i get a refund on the {plan} plan",
                f"refunds on the {plan} plan are possible within {rng.randint(2, 60)} days",
            )
        )
        pairs.append(
            (
                f"how long are memories kept on the {plan} plan",
                f"memories are kept for {rng.randint(2, 99)} days on the {plan} plan",
            )
        )
    return pairs


@pytest.fixture
def pairs_tsv(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.tsv"
    path.write_text(
        "question\tpassage\n" + "".join(f"{q}\t{p}\n" for q, p in make_pairs()), "utf-8"
    )
    return path


@pytest.fixture
def beir_dir(tmp_path: Path) -> Path:
    root = tmp_path / "beir"
    (root / "qrels").mkdir(parents=True)
    pairs = make_pairs()
    with (
        open(root / "corpus.jsonl", "w", encoding="utf-8") as corpus,
        open(root / "queries.jsonl", "w", encoding="utf-8") as queries,
    ):
        for i, (question, passage) in enumerate(pairs):
            corpus.write(json.dumps({"_id": f"d{i}", "title": "", "text": passage}) + "\n")
            queries.write(json.dumps({"_id": f"q{i}", "text": question}) + "\n")
    (root / "qrels" / "train.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i}\t1\n" for i in range(len(pairs)))
    )
    return root


def remove_tune_commands() -> None:
    """Undo what the plugin's register_commands did to the global ``ragloom`` group:
    its commands in core's ``tune`` group, or its own ``tune`` group."""
    import ragloom.cli
    from ragloom.cli_tune import tune as core_tune

    for name in ("embedder", "reranker"):
        core_tune.commands.pop(name, None)
    if ragloom.cli.cli.commands.get("tune") is tune:
        del ragloom.cli.cli.commands["tune"]


def invoke(*args: str) -> object:
    result = CliRunner().invoke(tune, list(args), catch_exceptions=False)
    return result


def embed(model_dir: Path, texts: list[str]) -> np.ndarray:
    from ragloom import Context

    from ragloom_sentence_transformers import SentenceTransformersEmbedder

    embedder = SentenceTransformersEmbedder(model=str(model_dir), device="cpu")
    embedder.open(Context())
    return embedder.embed_documents(texts)


def test_tune_embedder_end_to_end(
    pm,
    tiny_model: Path,
    pairs_tsv: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Through `ragloom` itself (the register_commands hook), then used as `model:`."""
    import ragloom.cli
    import ragloom.plugins

    monkeypatch.setattr(ragloom.plugins, "_pm", pm)
    out = tmp_path / "tuned"
    try:
        ragloom.cli.main([
            "tune", "embedder", "--pairs", str(pairs_tsv), "--base", str(tiny_model),
            "--out", str(out), "--batch-size", "4", "--epochs", "2",
            "--learning-rate", "1e-3", "--seed", "7",
        ])  # fmt: skip
    finally:
        remove_tune_commands()
    printed = capsys.readouterr().out
    assert "before (base)" in printed and "after (tuned)" in printed
    assert "Recall@10" in printed and "MRR@10" in printed
    report = json.loads((out / "ragloom-tune.json").read_text())
    assert report["train_pairs"] + report["held_out_pairs"] == 30
    assert set(report["before"]) == set(report["after"]) == {"Recall@10", "MRR@10"}
    assert report["after"] != report["before"]

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pricing.md").write_text("The pro plan costs 29 per user per month.\n")
    (docs / "memory.md").write_text("Memories are kept for 90 days on the free plan.\n")
    config = {
        "loaders": [{"type": "directory", "path": "docs"}],
        "embedder": {"type": "sentence-transformers", "model": "tuned"},
        "stores": [{"type": "memory"}],
    }
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        assert pipeline.index().chunks == 2
        assert len(pipeline.retrieve("how much does the pro plan cost", k=2)) == 2
    assert not np.allclose(embed(out, ["pro plan"]), embed(tiny_model, ["pro plan"]))


def test_tune_embedder_is_seeded(tiny_model: Path, pairs_tsv: Path, tmp_path: Path) -> None:
    args = ["embedder", "--pairs", str(pairs_tsv), "--base", str(tiny_model),
            "--batch-size", "4", "--learning-rate", "1e-3"]  # fmt: skip
    for name in ("a", "b"):
        result = invoke(*args, "--out", str(tmp_path / name))
        assert result.exit_code == 0, result.output
    texts = ["how much does the pro plan cost", "memories are kept"]
    assert np.allclose(embed(tmp_path / "a", texts), embed(tmp_path / "b", texts), atol=1e-6)


def test_tune_embedder_from_beir_with_hard_negatives_and_prefixes(
    tiny_model: Path, beir_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "tuned"
    result = invoke(
        "embedder", "--beir", str(beir_dir), "--split", "train", "--base", str(tiny_model),
        "--out", str(out), "--batch-size", "4", "--hard-negatives", "--holdout", "0.3",
        "--query-prefix", "query: ",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads((out / "ragloom-tune.json").read_text())
    assert report["hard_negatives"] and report["query_prefix"] == "query: "
    assert report["held_out_pairs"] == 9  # 30% of 30 questions

    from ragloom import Context

    from ragloom_sentence_transformers import SentenceTransformersEmbedder

    embedder = SentenceTransformersEmbedder(model=str(out), device="cpu")
    embedder.open(Context())
    assert embedder.query_prefix == "query: "  # saved with the model, found automatically


def test_tune_reranker_end_to_end(pm, tiny_model: Path, pairs_tsv: Path, tmp_path: Path) -> None:
    out = tmp_path / "reranker"
    result = invoke(
        "reranker", "--pairs", str(pairs_tsv), "--base", str(tiny_model), "--out", str(out),
        "--batch-size", "8", "--negatives", "2", "--hard-negatives", "--learning-rate", "1e-3",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "before (base)" in result.output and "MRR@10" in result.output
    report = json.loads((out / "ragloom-tune.json").read_text())
    assert report["examples"] == report["train_pairs"] * 3

    docs = tmp_path / "docs"
    docs.mkdir()
    for i, (_, passage) in enumerate(make_pairs()[:6]):
        (docs / f"{i}.md").write_text(passage + "\n")
    config = {
        "loaders": [{"type": "directory", "path": "docs"}],
        "stores": [{"type": "bm25"}],
        "reranker": {"type": "cross-encoder", "model": "reranker", "top_k": 2},
    }
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve("how much does the pro plan cost")
    assert len(hits) == 2 and all("rerank" in h.scores for h in hits)


def test_usage_errors(tiny_model: Path, pairs_tsv: Path, tmp_path: Path, beir_dir: Path) -> None:
    base = ["embedder", "--base", str(tiny_model), "--out", str(tmp_path / "out")]
    neither = invoke(*base)
    assert neither.exit_code == 2 and "give either --pairs FILE or --beir DIR" in neither.output
    both = invoke(*base, "--pairs", str(pairs_tsv), "--beir", str(beir_dir))
    assert both.exit_code == 2
    bad = tmp_path / "bad.tsv"
    bad.write_text("a question\ta passage\nno tab on this line\n")
    malformed = invoke(*base, "--pairs", str(bad))
    assert malformed.exit_code == 2 and "bad.tsv, line 2" in malformed.output
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "something").write_text("x")
    taken = invoke("embedder", "--pairs", str(pairs_tsv), "--base", str(tiny_model),
                   "--out", str(tmp_path / "full"))  # fmt: skip
    assert taken.exit_code == 2 and "is not empty" in taken.output
    missing = invoke("embedder", "--pairs", str(pairs_tsv), "--base", "./no-such-dir",
                     "--out", str(tmp_path / "o2"))  # fmt: skip
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_commands_join_cores_tune_group() -> None:
    """Under a ragloom whose `tune` group holds split and fusion, the plugin adds
    embedder and reranker to it; under one without, it adds a `tune` of its own."""
    import click
    from ragloom.cli_tune import tune as core_tune

    import ragloom_sentence_transformers.plugin as st_plugin

    with_core = click.Group("ragloom", commands={"tune": click.Group("tune")})
    st_plugin.register_commands(cli=with_core)
    group = with_core.commands["tune"]
    assert isinstance(group, click.Group) and group is not tune
    assert set(group.commands) == {"embedder", "reranker"}
    without = click.Group("ragloom")
    st_plugin.register_commands(cli=without)
    assert without.commands["tune"] is tune
    assert {"split", "fusion"} <= set(core_tune.commands)


def test_pairs_files(tmp_path: Path) -> None:
    jsonl = tmp_path / "pairs.jsonl"
    jsonl.write_text('{"question": "q1", "passage": "p1"}\n\n{"question": "q2", "passage": "p2"}\n')
    assert read_pairs(jsonl) == [("q1", "p1"), ("q2", "p2")]
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"question": "q1"}\n')
    with pytest.raises(Exception, match=r"broken.jsonl, line 1"):
        read_pairs(broken)


def test_holdout_splits_by_question() -> None:
    pairs = [("q1", "a"), ("q1", "b"), ("q2", "c"), ("q3", "d"), ("q4", "e")]
    data = split_holdout(pairs, 0.25, seed=1)
    held = {q for q, _ in data.held_out}
    assert len(held) == 1 and not held & {q for q, _ in data.train}
    assert split_holdout(pairs, 0.25, seed=1) == data
    assert split_holdout(pairs, 0.0, seed=1).held_out == []


def test_batches_never_repeat_a_text() -> None:
    rows = [("q1", "p1"), ("q2", "p1"), ("q3", "p2"), ("q1", "p3"), ("q4", "p4")]
    batches = no_duplicate_batches(rows, 3, random.Random(0))
    assert sorted(r for b in batches for r in b) == sorted(rows)
    for batch in batches:
        texts = [t for row in batch for t in row]
        assert len(texts) == len(set(texts))


def test_a_tuned_model_worse_than_its_base_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The table shows the change; a model that lost on every metric also
    gets a note to keep the base (a cross-encoder trained from a bi-encoder
    on a few hundred questions does: tune.md)."""
    from ragloom_sentence_transformers.tune import _report

    def report(after: dict[str, float], out: Path) -> str:
        out.mkdir()
        before = {"nDCG@10": 0.60, "MRR@10": 0.55}
        _report("reranker", before, after, 40, {}, out, "reranker: {...}")
        return capsys.readouterr().out

    worse = report({"nDCG@10": 0.20, "MRR@10": 0.15}, tmp_path / "worse")
    assert "scores below its base on every metric over the 40 held-out question(s)" in worse
    mixed = report({"nDCG@10": 0.65, "MRR@10": 0.50}, tmp_path / "mixed")
    assert "below its base" not in mixed and "+0.0500" in mixed
