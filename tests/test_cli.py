"""The `ragloom` command, run as a user runs it: a subprocess of the installed script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import basic_config

RAGLOOM = str(Path(sys.executable).parent / "ragloom")


def run(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    return subprocess.run(
        [RAGLOOM, *args], cwd=cwd, capture_output=True, text=True, env=full_env, timeout=120
    )


@pytest.fixture
def project(corpus: Path) -> Path:
    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    return corpus


def test_help_tells_the_story(tmp_path: Path) -> None:
    result = run("--help", cwd=tmp_path)
    assert result.returncode == 0
    for command in ("init", "index", "search", "ask", "plugins", "config"):
        assert command in result.stdout
    assert "ragloom init" in result.stdout


def test_init_then_index_and_ask(tmp_path: Path) -> None:
    assert run("init", cwd=tmp_path).returncode == 0
    assert (tmp_path / "ragloom.yaml").read_text().startswith("# ragloom pipeline config")
    again = run("init", cwd=tmp_path)
    assert again.returncode == 2 and "--force" in again.stderr
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "faq.md").write_text("# FAQ\n\nThe office is open from 9am to 5pm on weekdays.\n")
    assert run("config", "check", cwd=tmp_path).returncode == 0
    indexed = run("index", cwd=tmp_path)
    assert indexed.returncode == 0, indexed.stderr
    assert "+1 added" in indexed.stdout
    asked = run("ask", "When is the office open?", "--json", cwd=tmp_path)
    data = json.loads(asked.stdout)
    assert data["grounded"] and "9am" in data["answer"]
    assert data["citations"][0]["source"] == "docs/faq.md"


def test_init_says_when_the_default_embedder_is_not_installed(tmp_path: Path) -> None:
    """A plain `pip install ragloom` has no sentence-transformers embedder:
    the config init wrote then failed `config check` with nothing said before."""
    blocked = {"RAGLOOM_DISABLE_PLUGINS": "ragloom-sentence-transformers"}
    result = run("init", cwd=tmp_path, env=blocked)
    assert result.returncode == 0
    said = " ".join(result.stderr.split())
    assert "note: unknown embedder type 'sentence-transformers' in the config written" in said
    assert "pip install ragloom-sentence-transformers" in said
    installed = run("init", "--force", cwd=tmp_path)
    assert "note:" not in installed.stderr


def test_init_names_the_folder_the_documents_are_in(tmp_path: Path) -> None:
    """Documents kept elsewhere than docs/: init says where they are and how
    to point the config there (`--docs`), and that config indexes them."""
    notes = tmp_path / "notes" / "team"
    notes.mkdir(parents=True)
    (notes / "oncall.md").write_text("# On call\n\nPages are answered within 15 minutes.\n")
    (tmp_path / "node_modules" / "x").mkdir(parents=True)  # never a suggestion
    for i in range(3):
        (tmp_path / "node_modules" / "x" / f"README{i}.md").write_text("# x\n")
    first = run("init", cwd=tmp_path)
    assert first.returncode == 0
    said = " ".join(first.stderr.split())
    assert "docs does not exist; documents are in notes" in said, said
    assert "`ragloom init --force --docs notes`" in said and "node_modules" not in said
    pointed = run("init", "--force", "--docs", "notes", cwd=tmp_path)
    assert pointed.returncode == 0 and pointed.stderr == ""
    assert "it indexes notes" in pointed.stdout
    indexed = run("index", cwd=tmp_path)
    assert indexed.returncode == 0 and "+1 added" in indexed.stdout, indexed.stderr
    hits = json.loads(run("search", "pages answered", "--json", cwd=tmp_path).stdout)
    assert hits[0]["source"] == "notes/team/oncall.md"


def test_init_does_not_suggest_a_built_site(tmp_path: Path) -> None:
    """A MkDocs `site/` holds more pages than the sources; suggested, its
    stale copies would be all that is indexed."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# A\n\nThe aardvark eats ants.\n")
    site = tmp_path / "site"
    (site / "search").mkdir(parents=True)
    (site / "search" / "search_index.json").write_text('{"docs": []}')
    for i in range(3):
        (site / f"page{i}.html").write_text("<p>Old copy.</p>")
    (site / "index.html").write_text("<p>Old copy.</p>")
    said = " ".join(run("init", cwd=tmp_path).stderr.split())
    assert "documents are in notes:" in said and "site" not in said, said


def test_the_command_init_suggests_works_pasted(tmp_path: Path) -> None:
    """For a DIRECTORY and a folder with a space in its name, the suggested
    command names both, quoted; `--docs` is written as typed (a `${...}` is
    not filled in from the environment) and checked as the loader reads it."""
    import shlex

    notes = tmp_path / "proj" / "My Notes"
    notes.mkdir(parents=True)
    (notes / "a.md").write_text("# A\n\nThe aardvark eats ants.\n")
    first = run("init", "proj", cwd=tmp_path)
    said = first.stderr.strip()
    command = said[said.index("`") + 1 : said.rindex("`")]
    assert shlex.split(command) == ["ragloom", "init", "--force", "--docs", "My Notes", "proj"]
    again = run(*shlex.split(command)[1:], cwd=tmp_path)
    assert again.returncode == 0 and "it indexes proj/My Notes" in again.stdout, again.stdout
    assert run("index", cwd=tmp_path / "proj").returncode == 0
    literal = tmp_path / "proj" / "${HOME}"
    literal.mkdir()
    (literal / "b.md").write_text("# B\n\nBadgers dig.\n")
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "c.md").write_text("# C\n\nCats sleep.\n")
    env = {"HOME": str(home)}
    assert (
        run("init", "--force", "--docs", "${HOME}", "proj", cwd=tmp_path, env=env).returncode == 0
    )
    dry = run("index", "--dry-run", cwd=tmp_path / "proj", env=env)
    assert "${HOME}/b.md" in dry.stdout and "c.md" not in dry.stdout, dry.stdout
    tilde = run("init", "--force", "--docs", "~/notes", "proj", cwd=tmp_path, env=env)
    assert f"it indexes {home / 'notes'}" in tilde.stdout, tilde.stdout


def test_index_search_ask(project: Path) -> None:
    result = run("index", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "3 document(s)" in result.stdout
    dry = run("index", "--dry-run", cwd=project)
    assert "=3" in dry.stdout and "nothing written" in dry.stdout
    search = run("search", "AES-256", "-k", "2", cwd=project)
    assert search.returncode == 0 and "docs/security.md" in search.stdout
    # piped: one tab-separated line a hit, not a table wrapped at 80 columns
    lines = search.stdout.splitlines()
    assert len(lines) == 2 and all(len(line.split("\t")) == 5 for line in lines), lines
    rank, score, source, label, snippet = lines[0].split("\t")
    assert (rank, source) == ("1", "docs/security.md") and label.startswith(source)
    assert "AES-256" in snippet and float(score) > 0
    hits = json.loads(run("search", "refunded", "--json", cwd=project).stdout)
    assert hits[0]["source"] == "docs/pricing.md" and hits[0]["rank"] == 1
    filtered = json.loads(
        run(
            "search", "plan", "--json", "--filter", '{"source": "docs/memory.md"}', cwd=project
        ).stdout
    )
    assert filtered and {h["source"] for h in filtered} == {"docs/memory.md"}
    answer = run("ask", "How much does the Pro plan cost?", cwd=project)
    assert (
        answer.returncode == 0 and "$29" in answer.stdout and "[1] docs/pricing.md" in answer.stdout
    )
    unknown = json.loads(
        run("ask", "Who won the football world cup?", "--json", cwd=project).stdout
    )
    assert unknown["grounded"] is False and unknown["citations"] == []


def test_config_check_reports_three_errors_and_exits_2(tmp_path: Path) -> None:
    config = basic_config(
        embedder={"type": "hsah"},
        stores=[{"type": "memory"}, {"type": "bm25", "varaint": "okapi"}],
        generator={"type": "extractive", "max_sentences": "${RAGLOOM_UNSET_FOR_TEST}"},
    )
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    result = run("config", "check", str(path), cwd=tmp_path)
    assert result.returncode == 2
    err = result.stderr
    assert "3 error(s)" in err
    assert "embedder.type" in err and "did you mean 'hash'" in err
    assert "stores[1].varaint" in err and "did you mean 'variant'" in err
    assert "generator.max_sentences" in err and "RAGLOOM_UNSET_FOR_TEST" in err
    assert "(line " in err


def test_runtime_and_usage_exit_codes(project: Path) -> None:
    assert run("index", "--no-such-flag", cwd=project).returncode == 2
    empty = project / "elsewhere"
    empty.mkdir()
    missing = run("ask", "hello", cwd=empty)
    assert missing.returncode == 2 and "ragloom init" in missing.stderr
    bad_filter = run("search", "x", "--filter", "{not json", cwd=project)
    assert bad_filter.returncode == 2 and "--filter" in bad_filter.stderr
    run("index", cwd=project)
    config = yaml.safe_load((project / "ragloom.yaml").read_text())
    config["embedder"]["dimension"] = 64
    (project / "ragloom.yaml").write_text(yaml.safe_dump(config))
    mismatch = run("index", cwd=project)
    assert mismatch.returncode == 1 and "--rebuild" in mismatch.stderr


def test_plugins_lists_builtins(tmp_path: Path) -> None:
    result = run("plugins", "--json", cwd=tmp_path)
    assert result.returncode == 0
    plugins = {p["plugin"]: p for p in json.loads(result.stdout)}
    builtin = plugins["ragloom.builtin.plugin"]
    assert builtin["distribution"] == "ragloom"
    assert builtin["registers"]["store"] == ["bm25", "memory"]


def test_plugins_piped_is_one_line_a_plugin(tmp_path: Path) -> None:
    """Piped, rich drew 80 columns: the module name was cut to
    `ragloom.builtin.plu…`, then wrapped mid-word, so `| grep` missed it."""
    result = run("plugins", cwd=tmp_path)
    assert result.returncode == 0 and "…" not in result.stdout
    lines = {line.split("\t")[0]: line.split("\t") for line in result.stdout.splitlines()}
    plugin, distribution, _version, registers = lines["ragloom.builtin.plugin"]
    assert distribution == "ragloom" and "store: bm25, memory" in registers
    assert "chunker: code, fixed, html, layers, markdown" in registers


def test_config_schema_is_json_schema(tmp_path: Path) -> None:
    result = run("config", "schema", cwd=tmp_path)
    schema = json.loads(result.stdout)
    assert schema["required"] == ["stores"]
    store_types = {
        s["properties"]["type"]["const"] for s in schema["properties"]["stores"]["items"]["anyOf"]
    }
    assert {"memory", "bm25"} <= store_types


def test_an_index_run_whose_report_cannot_be_written_says_it_committed(project: Path) -> None:
    """`ragloom index > /dev/full` said only "unexpected OSError: No space left
    on device" after the run had committed: a cron job would take it for a
    failed run."""
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [RAGLOOM, "index"], cwd=project, stdout=full, stderr=subprocess.PIPE, text=True
        )
    assert result.returncode == 1
    assert "the index run committed corpus version 1 (+3 ~0 -0)" in result.stderr
    assert "No space left on device" in result.stderr and "unexpected" not in result.stderr
    assert "Exception ignored" not in result.stderr  # nothing left for the last flush
    again = run("index", "--dry-run", cwd=project)
    assert again.returncode == 0 and "+0 ~0 -0 =3" in again.stdout


def test_a_closed_stdout_is_said_and_the_run_committed(project: Path) -> None:
    def index_without_stdout() -> str:
        result = subprocess.run(
            [RAGLOOM, "index"],
            cwd=project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: os.close(1),  # `ragloom index >&-`
        )
        assert result.returncode == 1
        return result.stderr

    said = index_without_stdout()
    assert "the index run committed corpus version 1 (+3 ~0 -0)" in said
    again = index_without_stdout()
    assert "the index run found nothing to change (corpus version 1)" in again
    assert "Traceback" not in said + again


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_serve_refuses_a_watch_interval_that_is_no_number_of_seconds(
    project: Path, value: str
) -> None:
    result = run("serve", "--no-auth", "--watch-interval", value, cwd=project)
    assert result.returncode == 2 and "--watch-interval" in result.stderr


@pytest.mark.parametrize("args", [("search", "refund"), ("index", "--dry-run")])
def test_output_that_cannot_be_written_is_said_not_called_unexpected(
    project: Path, args: tuple[str, ...]
) -> None:
    assert run("index", cwd=project).returncode == 0
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [RAGLOOM, *args], cwd=project, stdout=full, stderr=subprocess.PIPE, text=True
        )
    assert result.returncode == 1
    assert "cannot write the output: No space left on device" in result.stderr
    assert "unexpected" not in result.stderr


def test_the_index_report_says_what_opening_the_pipeline_took(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report's seconds are the run's own: a first `ragloom index` said
    7.1 s of a 15 s command, the rest spent loading the model."""
    import ragloom
    from ragloom.cli import _print_index_report
    from ragloom.cli_support import console

    with ragloom.load(project / "ragloom.yaml") as pipeline:
        report = pipeline.index()
    for opening, said in ((2.5, True), (0.4, False)):
        _print_index_report(report, as_json=False, out=console(), opening=opening)
        out = capsys.readouterr().out
        assert ("opening the pipeline (models, stores): 2.5s more" in out) is said, out
    _print_index_report(report, as_json=True, out=console(), opening=2.5)
    data = json.loads(capsys.readouterr().out)
    assert data["opening_seconds"] == 2.5 and data["seconds"] == round(report.seconds, 3)


def test_a_damaged_pdf_is_reported_with_pypdfs_warning_and_nothing_bare(tmp_path: Path) -> None:
    """pypdf's warning names no file: it goes into ragloom's note about the
    file, as docs/config.md says. The command's logging setup kept it from
    the reader (the note said less than on a Ray worker), and must still keep
    it off stderr."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "half.pdf").write_bytes(b"%PDF-1.4\n garbage\n")
    (docs / "a.md").write_text("# A\n\nText.\n")
    (tmp_path / "ragloom.yaml").write_text(
        yaml.safe_dump(
            {
                "loaders": [{"type": "directory", "path": "docs"}],
                "embedder": {"type": "hash"},
                "stores": [{"type": "memory"}],
            }
        )
    )
    result = run("index", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (
        "note docs/half.pdf: not a readable PDF (Stream has ended unexpectedly; "
        "pypdf: EOF marker not found); skipped"
    ) in result.stdout
    assert "EOF marker" not in result.stderr
