"""``ragloom tune split``: a reproducible split of a BEIR folder's judged
queries into a tuning part and a held-out part, written as qrels files that
``ragloom eval --beir`` reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from ragloom.cli import cli
from ragloom.cli_tune import tune
from ragloom.errors import RagloomError
from ragloom.evaluation import load_beir
from ragloom.tuning import split_beir, split_queries


@pytest.fixture(autouse=True)
def tune_in_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ragloom tune`` as cli.py registers it (a no-op once it does)."""
    monkeypatch.setitem(cli.commands, "tune", cli.commands.get("tune", tune))


def write_beir(root: Path, queries: int = 50) -> Path:
    """``queries`` queries; query i is judged relevant to document i // 2 (so
    pairs of queries share a document) and, graded 0, to a document of its own."""
    (root / "qrels").mkdir(parents=True)
    with (
        open(root / "corpus.jsonl", "w", encoding="utf-8") as corpus,
        open(root / "queries.jsonl", "w", encoding="utf-8") as lines,
    ):
        for i in range(queries):
            corpus.write(json.dumps({"_id": f"d{i}", "title": "", "text": f"text {i}"}) + "\n")
            lines.write(json.dumps({"_id": f"q{i}", "text": f"question {i}"}) + "\n")
    rows = "".join(f"q{i}\td{i // 2}\t1\nq{i}\td{i + queries}\t0\n" for i in range(queries))
    (root / "qrels" / "train.tsv").write_text("query-id\tcorpus-id\tscore\n" + rows)
    return root


def test_split_is_disjoint_complete_and_whole_per_query(tmp_path: Path) -> None:
    source = write_beir(tmp_path / "beir")
    report = split_beir(source, tmp_path / "out", fraction=0.2, seed=3)
    assert (report.tune_queries, report.heldout_queries) == (40, 10)
    _, _, everything = load_beir(source, "train")
    _, tune_queries, tune = load_beir(tmp_path / "out", "tune")
    _, held_queries, held = load_beir(tmp_path / "out", "heldout")
    assert not set(tune) & set(held)
    assert set(tune) | set(held) == set(everything)
    for part in (tune, held):  # every judgement of a query goes with it, grades kept
        assert all(part[q] == everything[q] for q in part)
    assert set(held_queries) == set(held) and set(tune_queries) == set(tune)
    assert report.tune_judgements + report.heldout_judgements == 100


def test_split_is_reproducible_and_depends_on_the_seed(tmp_path: Path) -> None:
    source = write_beir(tmp_path / "beir")
    split_beir(source, tmp_path / "a", seed=1)
    split_beir(source, tmp_path / "b", seed=1)
    split_beir(source, tmp_path / "c", seed=2)
    held = {name: (tmp_path / name / "qrels" / "heldout.tsv").read_text() for name in "abc"}
    assert held["a"] == held["b"]
    assert held["a"] != held["c"]
    # the same split again into the same folder is fine; another one is refused
    split_beir(source, tmp_path / "a", seed=1)
    with pytest.raises(RagloomError, match="holds another split"):
        split_beir(source, tmp_path / "a", seed=2)


def test_split_does_not_depend_on_the_order_of_the_qrels() -> None:
    qrels = {f"q{i}": {f"d{i}": 1} for i in range(30)}
    reordered = dict(reversed(list(qrels.items())))
    assert split_queries(qrels, 0.3, 5) == split_queries(reordered, 0.3, 5)


def test_keep_documents_apart(tmp_path: Path) -> None:
    source = write_beir(tmp_path / "beir")
    loose = split_beir(source, tmp_path / "loose", fraction=0.3, seed=0)
    assert loose.shared_documents > 0  # with 50 queries in pairs, some pair is cut
    apart = split_beir(source, tmp_path / "apart", fraction=0.3, seed=0, keep_documents_apart=True)
    assert apart.shared_documents == 0
    _, _, tune = load_beir(tmp_path / "apart", "tune")
    _, _, held = load_beir(tmp_path / "apart", "heldout")
    relevant = {d for q in tune for d, g in tune[q].items() if g > 0}
    assert all(d not in relevant for q in held for d, g in held[q].items() if g > 0)
    assert apart.heldout_queries == 14  # pairs stay whole: 7 of them, not 15 queries


def test_command_writes_a_beir_folder_eval_can_read(tmp_path: Path) -> None:
    source = write_beir(tmp_path / "beir")
    out = tmp_path / "split"
    result = CliRunner().invoke(
        cli,
        ["tune", "split", "--beir", str(source), "--out", str(out), "--holdout", "0.1",
         "--tune-name", "fit", "--heldout-name", "check"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "45 queries" in result.output and "5 queries" in result.output
    assert (out / "corpus.jsonl").read_text() == (source / "corpus.jsonl").read_text()
    _, queries, qrels = load_beir(out, "check")
    assert len(queries) == len(qrels) == 5


def test_command_rejects_a_holdout_of_zero(tmp_path: Path) -> None:
    source = write_beir(tmp_path / "beir")
    args = ["tune", "split", "--beir", str(source), "--out", str(tmp_path / "o")]
    result = CliRunner().invoke(cli, [*args, "--holdout", "0"])
    assert result.exit_code == 2
