"""``ragloom eval``: the quickstart's test set through the installed command, and
the command's modes and errors through click's runner."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from ragloom.cli_eval import eval_command

ROOT = Path(__file__).resolve().parent.parent
QUICKSTART = ROOT / "examples" / "quickstart"
ANSWERS = ROOT / "examples" / "answers"
RAGLOOM = str(Path(sys.executable).parent / "ragloom")

FAILING = """\
cases:
  - question: How much does the Team plan cost?
    must_retrieve: [docs/pricing-faq.md]
  - question: Is my data used to train AI models?
    must_retrieve: [docs/pricing-faq.md]
    must_not_retrieve: [docs/security.md]
    top_k: 1
"""


def on_terminal(*args: str, cwd: Path) -> str:
    """What the command prints with its stdout on a terminal (a pty, 200
    columns), not piped."""
    import fcntl
    import pty
    import struct
    import termios

    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGLOOM_")}
    env.update(TERM="xterm", NO_COLOR="1", COLUMNS="200")  # a COLUMNS in the env wins
    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    try:
        process = subprocess.Popen(
            [RAGLOOM, *args], cwd=cwd, stdout=secondary, stderr=subprocess.DEVNULL, env=env
        )
        os.close(secondary)
        chunks = []
        while True:
            try:
                data = os.read(primary, 65536)
            except OSError:  # the pty is closed once the command has ended
                break
            if not data:
                break
            chunks.append(data)
        process.wait(timeout=120)
    finally:
        os.close(primary)
    text = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
    return re.sub(r"\x1b\[[0-9;]*m", "", text)  # bold headers, styles


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGLOOM_")}
    env["COLUMNS"] = "200"
    return subprocess.run(
        [RAGLOOM, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


@pytest.fixture
def quickstart(tmp_path: Path) -> Path:
    """A copy of examples/quickstart (without any index) under tmp_path."""
    project = tmp_path / "quickstart"
    shutil.copytree(QUICKSTART, project, ignore=shutil.ignore_patterns(".ragloom"))
    return project


@pytest.fixture
def indexed(quickstart: Path, tmp_path: Path) -> Path:
    result = run("--config", str(quickstart / "ragloom.yaml"), "index", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return quickstart


def test_quickstart_test_set_passes(indexed: Path, tmp_path: Path) -> None:
    config = str(indexed / "ragloom.yaml")
    result = run("--config", config, "eval", str(indexed / "eval.yaml"), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS" in result.stdout and "FAIL" not in result.stdout
    assert "all 10 case(s) passed (retrieval 8/8, answers 4/4)" in result.stdout


def test_answer_set_scores_the_extractive_generator(tmp_path: Path) -> None:
    """examples/answers: 88 questions over product docs whose plans, zones,
    editions and model codes share sentence shapes, with unanswerable ones. The default stack
    answers every one: a generator that quotes the wrong plan, answers what it
    cannot, or announces "two editions" without naming them fails it."""
    project = tmp_path / "answers"
    shutil.copytree(ANSWERS, project, ignore=shutil.ignore_patterns(".ragloom"))
    config = str(project / "ragloom.yaml")
    assert run("--config", config, "index", cwd=tmp_path).returncode == 0
    result = run("--config", config, "eval", str(project / "eval.yaml"), "--json", cwd=tmp_path)
    report = json.loads(result.stdout)
    answers = [case["answer"] for case in report["cases"]]
    assert len(answers) == 88 and all(answer is not None for answer in answers)
    failed = [case["question"] for case in report["cases"] if not case["answer"]["passed"]]
    assert failed == []
    assert result.returncode == 0, result.stderr


def test_a_failing_case_exits_1(indexed: Path, tmp_path: Path) -> None:
    cases = tmp_path / "failing.yaml"
    cases.write_text(FAILING, "utf-8")
    config = str(indexed / "ragloom.yaml")
    result = run("--config", config, "eval", str(cases), cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "FAIL" in result.stdout and "1 of 2 case(s) failed" in result.stdout
    # piped (a CI log, | grep): a header, then one tab-separated line a case
    lines = result.stdout.splitlines()
    header = "#\tquestion\tstatus\tmust retrieve (rank)\tmissing\tforbidden found"
    assert lines[0] == header
    assert lines[1].split("\t") == [
        "1", "How much does the Team plan cost?", "PASS", "docs/pricing-faq.md: 1", "", ""
    ]  # fmt: skip
    assert lines[2].split("\t") == [
        "2", "Is my data used to train AI models?", "FAIL", "docs/pricing-faq.md: —",
        "docs/pricing-faq.md", "docs/security.md (rank 1)",
    ]  # fmt: skip
    assert lines[3] == "1 of 2 case(s) failed (retrieval 1/2)"

    # on a terminal: the table, every cell whole
    table = on_terminal("--config", config, "eval", str(cases), cwd=tmp_path)
    assert "┃ must retrieve (rank)" in table and "\t" not in table
    assert "docs/security.md (rank 1)" in table and "1 of 2 case(s) failed" in table

    as_json = run("--config", config, "eval", str(cases), "--json", cwd=tmp_path)
    assert as_json.returncode == 1
    data = json.loads(as_json.stdout)
    assert data["passed"] is False
    assert [c["passed"] for c in data["cases"]] == [True, False]
    assert data["cases"][1]["missing"] == ["docs/pricing-faq.md"]
    assert data["cases"][1]["forbidden"] == {"docs/security.md": 1}

    # an entry naming no indexed document: the test set is wrong (exit 2)
    cases.write_text(FAILING.replace("must_not_retrieve: [docs/security.md]",
                                     "must_not_retrieve: [docs/securty.md]"), "utf-8")  # fmt: skip
    misspelt = run("--config", config, "eval", str(cases), cwd=tmp_path)
    assert misspelt.returncode == 2, misspelt.stdout + misspelt.stderr
    assert "must_not_retrieve 'docs/securty.md'" in misspelt.stderr
    assert "did you mean 'docs/security.md'?" in misspelt.stderr

    # a chunk label of an indexed document with its section misspelt: the same
    trail = "must_not_retrieve: [docs/pricing-faq.md#is-there-a-free-trail]"
    cases.write_text(FAILING.replace("must_not_retrieve: [docs/security.md]", trail), "utf-8")
    section = run("--config", config, "eval", str(cases), cwd=tmp_path)
    assert section.returncode == 2, section.stdout + section.stderr
    assert "must_not_retrieve 'docs/pricing-faq.md#is-there-a-free-trail' names no chunk" in (
        section.stderr
    )
    assert "did you mean 'docs/pricing-faq.md#is-there-a-free-trial'?" in section.stderr
    # spelt right, it is a label the run checks (and finds at rank 1: the case fails)
    cases.write_text(section_case := FAILING.replace(
        "must_not_retrieve: [docs/security.md]",
        "must_not_retrieve: [docs/pricing-faq.md#is-there-a-free-trial]").replace(
        "Is my data used to train AI models?", "Is there a free trial?"), "utf-8")  # fmt: skip
    assert "free-trial]" in section_case
    right = run("--config", config, "eval", str(cases), cwd=tmp_path)
    assert right.returncode == 1, right.stdout + right.stderr
    assert "docs/pricing-faq.md#is-there-a-free-trial (rank 1)" in right.stdout


# -- through click's runner, on a group like the `ragloom` one ------------------


@click.group()
@click.option("-c", "--config", "config")
@click.pass_context
def group(ctx: click.Context, config: str | None) -> None:
    ctx.ensure_object(dict)
    ctx.obj["config"] = config


group.add_command(eval_command)


def invoke(*args: str) -> click.testing.Result:
    return CliRunner().invoke(group, list(args), env={"COLUMNS": "200"})


def test_usage_errors(quickstart: Path) -> None:
    config = str(quickstart / "ragloom.yaml")
    neither = invoke("--config", config, "eval")
    assert neither.exit_code == 2 and "either a test-set FILE or --beir DIR" in neither.output
    cases = str(quickstart / "eval.yaml")
    both = invoke("--config", config, "eval", cases, "--beir", "data")
    assert both.exit_code == 2
    stray = invoke("--config", config, "eval", cases, "--split", "train")
    assert stray.exit_code == 2 and "--split only applies with --beir" in stray.output
    missing = invoke("--config", config, "eval", str(quickstart / "nope.yaml"))
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_nothing_indexed_yet(quickstart: Path) -> None:
    result = invoke(
        "--config", str(quickstart / "ragloom.yaml"), "eval", str(quickstart / "eval.yaml")
    )
    assert result.exit_code == 1
    assert "run `ragloom index` first" in result.output


def test_an_invalid_test_set_exits_2_with_its_line(quickstart: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("cases:\n  - question: Hello\n    must_retrieve: [a]\n    top_k: many\n")
    result = invoke("--config", str(quickstart / "ragloom.yaml"), "eval", str(bad))
    assert result.exit_code == 2
    assert "cases[0].top_k (line 4)" in result.output


def test_beir(quickstart: Path, tmp_path: Path) -> None:
    data = tmp_path / "tiny"
    (data / "qrels").mkdir(parents=True)
    corpus = [
        ("d1", "Aspirin", "Low-dose aspirin lowers the risk of myocardial infarction."),
        ("d2", "Vitamin D", "Vitamin D supplements did not reduce hip fractures."),
        ("d3", "Sleep", "Slow-wave sleep consolidates declarative memory."),
    ]
    (data / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, t, x in corpus)
    )
    (data / "queries.jsonl").write_text(
        '{"_id": "q1", "text": "aspirin and heart attacks"}\n'
        '{"_id": "q2", "text": "does sleep help memory"}\n'
        '{"_id": "q3", "text": "vitamin D fractures"}\n'
    )
    (data / "qrels" / "dev.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\nq3\td2\t1\n"
    )
    index_dir = tmp_path / "beir-index"
    config = str(quickstart / "ragloom.yaml")
    args = ["--config", config, "eval", "--beir", str(data), "--split", "dev"]
    result = invoke(*args, "--limit-queries", "2", "--index-dir", str(index_dir), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["queries"] == 2 and report["documents"] == 3 and report["split"] == "dev"
    assert report["metrics"]["Recall@10"] == 1.0 and "nDCG@10" in report["metrics"]
    assert set(report["standard_errors"]) == set(report["metrics"])
    assert report["standard_errors"]["Recall@10"] == 0.0  # both queries found everything
    assert report["timings"]["mean_query_ms"] > 0
    assert (index_dir / "ledger.sqlite").exists()
    assert not (quickstart / ".ragloom").exists()  # the project's own index is untouched

    table = invoke(*args, "--index-dir", str(index_dir))
    assert table.exit_code == 0, table.output
    for text in ("nDCG", "Recall", "MRR", "@10", "@100", "3 queries", "0 (re)indexed", "mean"):
        assert text in table.output
    assert "±" in table.output and "standard error over the 3 queries" in table.output
    missing = invoke("--config", config, "eval", "--beir", str(data), "--split", "test")
    assert missing.exit_code == 1 and "splits here: dev" in missing.output


def test_the_beir_index_kept_in_the_index_dir_is_no_stray_store(
    quickstart: Path, tmp_path: Path
) -> None:
    """``eval --beir`` keeps its index in ``<index_dir>/beir/`` on purpose;
    ``ragloom index`` told the user to delete it on every run."""
    data = tmp_path / "tiny"
    (data / "qrels").mkdir(parents=True)
    (data / "corpus.jsonl").write_text('{"_id": "d1", "title": "Aspirin", "text": "Aspirin."}\n')
    (data / "queries.jsonl").write_text('{"_id": "q1", "text": "aspirin"}\n')
    (data / "qrels" / "dev.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    config = str(quickstart / "ragloom.yaml")
    result = invoke("--config", config, "eval", "--beir", str(data), "--split", "dev")
    assert result.exit_code == 0, result.output
    assert any((quickstart / ".ragloom" / "beir").iterdir())
    indexed = run("--config", config, "index", cwd=tmp_path)
    assert indexed.returncode == 0, indexed.stderr
    assert "a folder of no store" not in indexed.stderr + indexed.stdout
    # a store folder the config dropped still is named
    (quickstart / ".ragloom" / "old-store").mkdir()
    (quickstart / ".ragloom" / "old-store" / "chunks.json").write_text("[]")
    again = run("--config", config, "index", cwd=tmp_path)
    assert "old-store: a folder of no store" in again.stderr + again.stdout


def test_beir_on_a_folder_it_cannot_write_says_where_else(tmp_path: Path) -> None:
    # an index folder that cannot be created (here a file is in its way; on a
    # read-only mount, the same error) names --index-dir, unless it was given
    data = tmp_path / "tiny"
    (data / "qrels").mkdir(parents=True)
    (data / "corpus.jsonl").write_text('{"_id": "d1", "title": "T", "text": "Aspirin."}\n')
    (data / "queries.jsonl").write_text('{"_id": "q1", "text": "aspirin"}\n')
    (data / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    (tmp_path / "blocker").write_text("not a folder")
    config = tmp_path / "ragloom.yaml"
    config.write_text(
        "index_dir: blocker/index\nembedder: {type: hash, dimension: 32}\n"
        "stores: [{type: memory}, {type: bm25}]\n"
    )
    failed = invoke("--config", str(config), "eval", "--beir", str(data))
    assert failed.exit_code == 1
    assert "cannot create index_dir" in failed.output
    assert "`ragloom eval --beir ... --index-dir DIR`" in failed.output
    given = tmp_path / "blocker" / "given"
    told = invoke("--config", str(config), "eval", "--beir", str(data), "--index-dir", str(given))
    assert told.exit_code == 1 and "cannot create index_dir" in told.output
    assert "--index-dir DIR" not in told.output  # it was given: no advice to give it
    elsewhere = tmp_path / "elsewhere"
    works = invoke(
        "--config", str(config), "eval", "--beir", str(data), "--index-dir", str(elsewhere)
    )
    assert works.exit_code == 0, works.output
    assert (elsewhere / "ledger.sqlite").exists()
    # that index with another embedder: the way out is the benchmark's, not `ragloom index`'s
    config.write_text(config.read_text().replace("dimension: 32", "dimension: 48"))
    other = invoke(
        "--config", str(config), "eval", "--beir", str(data), "--index-dir", str(elsewhere)
    )
    assert other.exit_code == 1, other.output
    assert "this is the benchmark's own index: `ragloom eval --beir ... --index-dir DIR`" in (
        other.output
    )
