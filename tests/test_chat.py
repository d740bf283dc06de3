"""`ragloom chat`: questions a line, one pipeline, run as a user runs it."""

from __future__ import annotations

import json
import os
import queue
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from ragloom.cli import cli
from ragloom.errors import GeneratorError

from .conftest import basic_config

RAGLOOM = str(Path(sys.executable).parent / "ragloom")
FOLLOW_UP = "ask it in full"
"""What extractive says of a question that leans on the turns before it."""


def chat(*args: str, cwd: Path, questions: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(
        [RAGLOOM, "chat", *args],
        cwd=cwd,
        input=questions,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.fixture
def project(corpus: Path) -> Path:
    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    indexed = subprocess.run(
        [RAGLOOM, "index"], cwd=corpus, capture_output=True, text=True, timeout=120
    )
    assert indexed.returncode == 0, indexed.stderr
    return corpus


def test_each_line_is_answered_in_order_until_exit(project: Path) -> None:
    result = chat(
        cwd=project,
        questions="How much does the Pro plan cost?\n\n   \n"
        "How is data encrypted at rest?\nexit\nHow long are memories kept?\n",
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "$29" in out and "[1] docs/pricing.md" in out
    assert "AES-256" in out and "docs/security.md" in out
    assert out.index("$29") < out.index("AES-256")  # in the order asked
    assert "90 days" not in out  # asked after `exit`
    assert "Ask about the indexed documents" not in result.stderr  # no banner when piped


def test_the_turns_before_are_the_history_until_new(project: Path) -> None:
    follow_up = "When does it renew?"
    asked = f"How much does the Pro plan cost?\n{follow_up}\n/new\n{follow_up}\n"
    answers = chat("--json", cwd=project, questions=asked).stdout.splitlines()
    assert len(answers) == 3  # `/new` is no question
    first, leaning, fresh = (json.loads(line) for line in answers)
    assert first["grounded"] and "$29" in first["answer"]
    # with the first question before it, "it" points back: extractive asks for it in full
    assert leaning["question"] == follow_up and FOLLOW_UP in leaning["answer"]
    assert leaning["grounded"] is False
    # after /new there is nothing to point back to
    assert FOLLOW_UP not in fresh["answer"]
    alone = chat("--json", "--no-history", cwd=project, questions=asked).stdout.splitlines()
    assert not any(FOLLOW_UP in json.loads(line)["answer"] for line in alone)


def test_json_lines_are_what_ask_json_prints(project: Path) -> None:
    result = chat("--json", cwd=project, questions="How much does the Pro plan cost?\n")
    (line,) = result.stdout.splitlines()
    answered = json.loads(line)
    asked = subprocess.run(
        [RAGLOOM, "ask", "--json", "How much does the Pro plan cost?"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answered == json.loads(asked.stdout)


def test_a_failing_question_is_said_and_the_chat_goes_on(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragloom.pipeline import Pipeline

    real = Pipeline.ask

    def ask(self, question, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "boom" in question:
            raise GeneratorError("the generator is out of reach (connection refused)")
        return real(self, question, *args, **kwargs)

    monkeypatch.setattr(Pipeline, "ask", ask)
    monkeypatch.chdir(project)
    result = CliRunner().invoke(
        cli, ["chat"], input="boom?\nHow much does the Pro plan cost?\n", catch_exceptions=False
    )
    assert result.exit_code == 1  # a question failed
    assert "error: the generator is out of reach" in result.stderr
    assert "$29" in result.stdout  # the next question was answered
    as_json = CliRunner().invoke(cli, ["chat", "--json"], input="boom?\n")
    assert json.loads(as_json.stdout) == {
        "question": "boom?",
        "error": "the generator is out of reach (connection refused)",
    }


def test_a_wrong_filter_stops_the_chat_at_once(project: Path) -> None:
    result = chat("--filter", "{not json", cwd=project, questions="How much is Pro?\n")
    assert result.returncode == 2 and "error" in result.stderr
    assert not result.stdout


def test_an_index_run_between_two_questions_is_answered_from(project: Path) -> None:
    """A chat holds its pipeline open while another process indexes (cron):
    the next question is answered from the version that run committed."""
    process = subprocess.Popen(
        [RAGLOOM, "chat"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in process.stdout])
    reader.start()
    try:
        process.stdin.write("How much does the Pro plan cost?\n")
        process.stdin.flush()
        first = _until(lines, "docs/pricing.md")
        assert "$29" in first
        (project / "docs" / "parking.md").write_text(
            "# Parking\n\nVisitors park in the Larkspur garage on level 3.\n"
        )
        indexed = subprocess.run(
            [RAGLOOM, "index"], cwd=project, capture_output=True, text=True, timeout=120
        )
        assert indexed.returncode == 0 and "+1 added" in indexed.stdout, indexed.stdout
        process.stdin.write("Where do visitors park?\n")
        process.stdin.close()
        assert process.wait(timeout=60) == 0
        reader.join(timeout=60)
    finally:
        process.kill()
    rest = "".join(lines.queue)
    assert "Larkspur garage" in rest and "docs/parking.md" in rest


def _until(lines: queue.Queue[str], marker: str, timeout: float = 60) -> str:
    """What the chat printed, line by line, up to the line holding ``marker``."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while marker not in (seen or [""])[-1]:
        seen.append(lines.get(timeout=max(0.1, deadline - time.monotonic())))
    return "".join(seen)


@pytest.mark.skipif(sys.platform == "win32", reason="a pty is POSIX")
def test_at_a_terminal_it_prompts_and_ctrl_d_ends(project: Path) -> None:
    import pty

    primary, secondary = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "NO_COLOR": "1", "COLUMNS": "200"}
    process = subprocess.Popen(
        [RAGLOOM, "chat"], cwd=project, stdin=secondary, stdout=secondary, stderr=secondary, env=env
    )
    os.close(secondary)
    seen = b""
    try:
        seen += _read_until(primary, b"> ")
        assert b"Ask about the indexed documents" in seen  # the banner, at a terminal
        os.write(primary, b"How much does the Pro plan cost?\n")
        seen += _read_until(primary, b"> ")
        assert b"$29" in seen and b"[1] docs/pricing.md" in seen
        os.write(primary, b"\x04")  # Ctrl-D at the prompt
        assert process.wait(timeout=60) == 0
    finally:
        process.kill()
        os.close(primary)


def _read_until(fd: int, marker: bytes, timeout: float = 60) -> bytes:
    data = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if ready:
            piece = os.read(fd, 65536)
            if not piece:
                break
            data += piece
            if data.rstrip(b" ").endswith(b">") and data.endswith(marker):
                return data
    raise AssertionError(f"no {marker!r} at the end of {data!r}")


def test_a_question_that_is_no_utf8_is_asked_and_stdin_closed_is_no_question(
    project: Path,
) -> None:
    """A review found a piped chat dead at one Latin-1 byte (stdin decodes
    strictly under a UTF-8 locale) and `ragloom chat <&-` an unexpected
    AttributeError; `EXIT` was asked as a question."""
    env = {**os.environ, "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8:strict"}
    latin = subprocess.run(
        [RAGLOOM, "chat"],
        cwd=project,
        input=b"caf\xe9 Pro plan price?\nEXIT\nHow is data encrypted at rest?\n",
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert latin.returncode == 0, latin.stderr
    assert b"$29" in latin.stdout and b"AES-256" not in latin.stdout
    closed = subprocess.run(
        [RAGLOOM, "chat"], cwd=project, stdin=subprocess.DEVNULL, capture_output=True, timeout=120
    )
    assert closed.returncode == 0 and not closed.stdout
    shut = subprocess.run(
        f"{RAGLOOM} chat <&-", shell=True, cwd=project, capture_output=True, timeout=120
    )
    assert shut.returncode == 0, shut.stderr
