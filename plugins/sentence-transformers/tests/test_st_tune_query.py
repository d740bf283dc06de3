"""`ragloom tune embedder --query-only`: a query encoder trained against the
fixed vectors the config's embedder gives a BEIR corpus, used as the
embedder's `query_model` on the index that embedder built."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pluggy
import pytest
import ragloom
import yaml
from ragloom import Context
from ragloom.errors import EmbedderError

from ragloom_sentence_transformers import SentenceTransformersEmbedder

TOPICS = ["pro", "free", "team", "annual", "trial", "billing", "support", "storage", "search"]


def write_beir(root: Path) -> Path:
    """Three questions per topic, worded unlike the topic's one document."""
    (root / "qrels").mkdir(parents=True)
    qrels = ["query-id\tcorpus-id\tscore"]
    with (
        open(root / "corpus.jsonl", "w", encoding="utf-8") as corpus,
        open(root / "queries.jsonl", "w", encoding="utf-8") as queries,
    ):
        for i, topic in enumerate(TOPICS):
            text = f"the {topic} plan: price per user per month, refunds within days"
            corpus.write(json.dumps({"_id": f"d{i}", "title": "", "text": text}) + "\n")
            for j, ask in enumerate(("how much is", "can i get money back on", "what about")):
                queries.write(json.dumps({"_id": f"q{i}-{j}", "text": f"{ask} {topic}"}) + "\n")
                qrels.append(f"q{i}-{j}\td{i}\t1")
    (root / "qrels" / "tune.tsv").write_text("\n".join(qrels) + "\n")
    return root


@pytest.fixture
def project(tmp_path: Path, tiny_model: Path) -> Path:
    config = {
        "index_dir": "index",
        "chunker": {"type": "recursive", "size": 400, "overlap": 0},
        "embedder": {"type": "sentence-transformers", "model": str(tiny_model), "device": "cpu"},
        "stores": [{"type": "memory"}, {"type": "bm25"}],
    }
    (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(config), "utf-8")
    write_beir(tmp_path / "beir")
    return tmp_path


def remove_tune_commands() -> None:
    """Undo what the plugin's register_commands did to the global ``ragloom`` group."""
    import ragloom.cli
    from ragloom.cli_tune import tune as core_tune

    from ragloom_sentence_transformers.tune import tune

    for name in ("embedder", "reranker"):
        core_tune.commands.pop(name, None)
    if ragloom.cli.cli.commands.get("tune") is tune:
        del ragloom.cli.cli.commands["tune"]


def run_cli(pm: pluggy.PluginManager, monkeypatch: pytest.MonkeyPatch, *args: str) -> None:
    import ragloom.cli
    import ragloom.plugins

    monkeypatch.setattr(ragloom.plugins, "_pm", pm)
    monkeypatch.setattr(ragloom.plugins, "_registry", None)
    try:
        ragloom.cli.main(list(args))
    finally:
        remove_tune_commands()


def embedder(model: Path, **options: object) -> SentenceTransformersEmbedder:
    e = SentenceTransformersEmbedder(model=str(model), device="cpu", **options)
    e.open(Context())
    return e


def test_query_only_trains_queries_and_leaves_documents_alone(
    pm: pluggy.PluginManager,
    project: Path,
    tiny_model: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = project / "query-model"
    run_cli(
        pm, monkeypatch, "-c", str(project / "ragloom.yaml"), "tune", "embedder",
        "--query-only", "--beir", str(project / "beir"), "--split", "tune", "--out", str(out),
        "--epochs", "8", "--batch-size", "8", "--learning-rate", "5e-3", "--holdout", "0.3",
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert "before (base)" in printed and "nDCG@10" in printed
    report = json.loads((out / "ragloom-tune.json").read_text())
    assert report["kind"] == "query_encoder"
    assert (report["train_questions"], report["held_out_questions"]) == (19, 8)
    assert report["documents"] == len(TOPICS)
    # trained on its own questions: ranks them better than the base did
    base = embedder(tiny_model)
    tuned = embedder(tiny_model, query_model=str(out))
    assert report["document_model"] == base.fingerprint()["model"]

    docs = [f"the {t} plan: price per user per month, refunds within days" for t in TOPICS]
    assert np.allclose(tuned.embed_documents(docs), base.embed_documents(docs))
    assert tuned.fingerprint() == base.fingerprint()  # the index stays valid
    questions = ["how much is pro", "what about storage"]
    assert not np.allclose(tuned.embed_queries(questions), base.embed_queries(questions))
    assert np.allclose(tuned.embed_query(questions[0]), tuned.embed_queries(questions)[0])

    # an index built with the base embedder answers through the query model
    config = yaml.safe_load((project / "ragloom.yaml").read_text())
    config["loaders"] = [{"type": "jsonl", "path": "beir/corpus.jsonl", "id_field": "_id"}]
    with ragloom.load(config, plugin_manager=pm, base_dir=project) as pipeline:
        assert pipeline.index().chunks == len(TOPICS)
    config["embedder"]["query_model"] = str(out)
    with ragloom.load(config, plugin_manager=pm, base_dir=project) as pipeline:
        assert len(pipeline.retrieve("how much is pro", k=3)) == 3


def test_query_model_tuned_for_another_model_is_refused(
    pm: pluggy.PluginManager,
    project: Path,
    tiny_model: Path,
    other_tiny_model: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = project / "query-model"
    run_cli(
        pm, monkeypatch, "-c", str(project / "ragloom.yaml"), "tune", "embedder",
        "--query-only", "--beir", str(project / "beir"), "--split", "tune", "--out", str(out),
        "--holdout", "0",
    )  # fmt: skip
    with pytest.raises(EmbedderError, match="was not tuned against"):
        embedder(other_tiny_model, query_model=str(out))
    with pytest.raises(EmbedderError, match="was not tuned against") as untuned:
        embedder(tiny_model, query_model=str(other_tiny_model))  # no ragloom-tune.json
    assert "it has no ragloom-tune.json" in str(untuned.value) and "None" not in str(untuned.value)
