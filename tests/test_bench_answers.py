"""The probe sets ``make bench`` grades answers on (``benchmarks/answers``):
each is a loadable project whose cases check strings its documents hold,
and an answer is graded right, rightly refused, wrongly refused or misleading."""

from __future__ import annotations

from pathlib import Path

import pytest
from ragloom.evaluation import load_cases
from ragloom.evaluation.cases import AnswerCheck, _fold

from .benchmark_modules import benchmark_module

ROOT = Path(__file__).resolve().parent.parent
ANSWERS = ROOT / "benchmarks" / "answers"
SETS = sorted(p for p in ANSWERS.iterdir() if (p / "eval.yaml").is_file())


@pytest.mark.parametrize(
    ("check", "text", "grounded", "expected"),
    [
        (AnswerCheck(must_refuse=True), "I could not find ...", False, "CR"),
        (AnswerCheck(must_refuse=True), "Half board costs €41.", True, "M"),
        (AnswerCheck(must_contain=["€38"]), "I could not find ...", False, "WR"),
        (
            AnswerCheck(must_contain=["€38"], must_not_contain=["€41"]),
            "Non-members: €38",
            True,
            "R",
        ),
        (AnswerCheck(must_contain=["€38"], must_not_contain=["€41"]), "€38, or €41", True, "M"),
        (AnswerCheck(must_contain=[["€38", "38 euros"]]), "It costs 38 euros.", True, "R"),
        (AnswerCheck(must_contain=["€38"]), "Half board costs €41.", True, "M"),
    ],
)
def test_an_answer_is_graded(check: AnswerCheck, text: str, grounded: bool, expected: str) -> None:
    assert benchmark_module("bench_answers").grade(check, text, grounded) == expected


def test_there_are_probe_sets() -> None:
    assert len(SETS) >= 15
    assert {p.name.split("-", 1)[0] for p in SETS} >= {"l", "m", "n", "o"}


@pytest.mark.parametrize("folder", SETS, ids=[p.name for p in SETS])
def test_a_probe_set_checks_what_its_documents_say(folder: Path) -> None:
    assert (folder / "ragloom.yaml").is_file()
    docs = _fold(" ".join(p.read_text(encoding="utf-8") for p in (folder / "docs").rglob("*.md")))
    cases = load_cases(folder / "eval.yaml")
    assert cases and all(case.answer is not None for case in cases)
    for case in cases:
        assert case.answer is not None
        for entry in case.answer.must_contain:
            options = [entry] if isinstance(entry, str) else entry
            assert any(_fold(o) in docs for o in options), (case.question, options)
        for entry in case.answer.must_not_contain:
            assert _fold(entry) in docs, (case.question, entry)


def test_generator_options_come_from_the_command_line() -> None:
    bench = benchmark_module("bench_answers")
    assert bench._options(["min_relevance=0.5", "max_sentences=2"]) == {
        "min_relevance": 0.5,
        "max_sentences": 2,
    }
    with pytest.raises(SystemExit, match="NAME=VALUE"):
        bench._options(["min_relevance"])


def test_a_generator_option_changes_the_grades(tmp_path: Path) -> None:
    # the smallest set, with the hash embedder (no model): nothing the
    # documents hold covers every word of every question, so min_relevance 1
    # refuses what the default answers
    folder = min(SETS, key=lambda p: sum(1 for _ in (p / "docs").rglob("*.md")))
    project = tmp_path / folder.name
    (project / "docs").mkdir(parents=True)
    for doc in (folder / "docs").rglob("*.md"):
        (project / "docs" / doc.name).write_text(doc.read_text(encoding="utf-8"), "utf-8")
    (project / "eval.yaml").write_text((folder / "eval.yaml").read_text(encoding="utf-8"), "utf-8")
    config = (folder / "ragloom.yaml").read_text(encoding="utf-8")
    config = config.replace("type: sentence-transformers", "type: hash")
    config = config.replace("model: all-MiniLM-L6-v2", "dimension: 64")
    (project / "ragloom.yaml").write_text(config, "utf-8")
    bench = benchmark_module("bench_answers")
    default = bench.grade_project(project)
    strict = bench.grade_project(project, None, {"min_relevance": 1.0})
    assert sum(strict.values()) == sum(default.values())
    assert default["R"] > 0
    assert strict["R"] + strict["M"] < default["R"] + default["M"]
