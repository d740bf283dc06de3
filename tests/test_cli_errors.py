"""The ``ragloom`` command's last-resort error paths, run as a user runs it:
an unexpected exception (a bug in a plugin, say) and Ctrl-C each exit 1 with
one ``error:`` line and no traceback; ``-v`` shows the traceback.

The failures are planted by a ``sitecustomize`` module on ``PYTHONPATH``
that replaces one pipeline method in the subprocess."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import basic_config

RAGLOOM = str(Path(sys.executable).parent / "ragloom")

SITECUSTOMIZE = """
import os

failure = os.environ.get("RAGLOOM_TEST_FAILURE")
if failure == "sigint-at-start":  # Ctrl-C while the plugins load, before any command
    import signal
    import time

    import ragloom.plugins

    def interrupted(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(10)

    ragloom.plugins.get_plugin_manager = interrupted
elif failure:
    import signal
    import time

    from ragloom.pipeline import Pipeline

    def fail(self, *args, **kwargs):
        if failure == "sigint":  # Ctrl-C: the signal itself, mid-command
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(10)
        if failure == "sigterm":  # `kill`, systemd, a container's stop
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(10)
        raise RuntimeError("the disk is on fire")

    setattr(Pipeline, os.environ["RAGLOOM_TEST_METHOD"], fail)
"""


@pytest.fixture
def project(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    site = tmp_path_factory.mktemp("site")
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    (corpus / ".site").symlink_to(site)
    return corpus


def run(project: Path, *args: str, method: str, failure: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "COLUMNS": "200",
        "PYTHONPATH": os.pathsep.join([str(project / ".site"), os.environ.get("PYTHONPATH", "")]),
        "RAGLOOM_TEST_FAILURE": failure,
        "RAGLOOM_TEST_METHOD": method,
    }
    return subprocess.run(
        [RAGLOOM, *args],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        preexec_fn=_sigint_as_in_a_terminal,
    )


def _sigint_as_in_a_terminal() -> None:
    """A command started in the background of a script (``make test &``)
    inherits SIGINT ignored, and Python then never turns it into
    KeyboardInterrupt: give the child the default, as a terminal does."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_an_unexpected_error_exits_1_with_one_line(project: Path) -> None:
    result = run(project, "index", method="index", failure="error")
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip() == (
        "error: unexpected RuntimeError: the disk is on fire (run with -v for the traceback)"
    )
    verbose = run(project, "-v", "index", method="index", failure="error")
    assert verbose.returncode == 1
    assert "Traceback" in verbose.stderr and "the disk is on fire" in verbose.stderr
    assert "run with -v" not in verbose.stderr  # it was


@pytest.mark.parametrize(
    ("command", "method"),
    [(("index",), "index"), (("search", "plan"), "retrieve"), (("ask", "Pro plan?"), "ask")],
)
def test_ctrl_c_exits_1_with_one_line(project: Path, command: tuple[str, ...], method: str) -> None:
    result = run(project, *command, method=method, failure="sigint")
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip() == "error: interrupted"
    assert result.stdout == ""


def test_sigterm_ends_a_run_as_ctrl_c_does_and_says_so(project: Path) -> None:
    """It ended the process at once with nothing said (exit -15)."""
    result = run(project, "index", method="index", failure="sigterm")
    assert result.returncode == 143, result.stderr
    assert result.stderr.strip() == "error: terminated (SIGTERM)"


def test_ctrl_c_while_the_plugins_load_exits_1_with_one_line(project: Path) -> None:
    result = run(project, "ask", "Pro plan?", method="ask", failure="sigint-at-start")
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip() == "error: interrupted" and result.stdout == ""


@pytest.mark.parametrize(
    "command", [("search", "plan", "--json"), ("search", "plan"), ("index", "--dry-run")]
)
def test_a_reader_that_goes_away_ends_the_command_quietly(
    project: Path, command: tuple[str, ...]
) -> None:
    """`ragloom search ... | head -1`: the exit code was 0, 1 or "unexpected
    BrokenPipeError" by the way the output was written; it is 141, as for a
    process ended by SIGPIPE, with nothing on stderr."""
    assert subprocess.run([RAGLOOM, "index"], cwd=project, capture_output=True).returncode == 0
    process = subprocess.Popen(
        [RAGLOOM, *command], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # gone before the command writes a byte
    err = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141, err
    assert err == ""


@pytest.mark.parametrize("code", [errno.EROFS, errno.ENOSPC, errno.EACCES])
def test_a_file_that_cannot_be_written_is_named_not_called_unexpected(
    code: int, capsys: pytest.CaptureFixture
) -> None:
    """A store's folder mounted read-only under a writable index_dir, a full
    disk: "unexpected OSError", as for a bug."""
    from ragloom.cli_support import handle_errors

    @handle_errors
    def command() -> None:
        raise OSError(code, os.strerror(code), "/srv/index/memory/memory.ann")

    with pytest.raises(SystemExit) as stopped:
        command()
    assert stopped.value.code == 1
    said = " ".join(capsys.readouterr().err.split())
    assert f"cannot write /srv/index/memory/memory.ann: {os.strerror(code)}" in said
    assert "unexpected" not in said
