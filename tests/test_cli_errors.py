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
if failure in ("sigint-at-start", "sigterm-at-start"):  # while the plugins load
    import signal
    import time

    import ragloom.plugins

    def interrupted(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT if failure == "sigint-at-start" else signal.SIGTERM)
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
        if failure in ("sigterm-twice", "sigint-twice"):
            first = signal.SIGTERM if failure == "sigterm-twice" else signal.SIGINT
            try:
                os.kill(os.getpid(), first)
                time.sleep(10)
            finally:  # the run's cleanup
                stopping.append(first)
                if first == signal.SIGTERM:  # a supervisor's, after `kill`'s
                    os.kill(os.getpid(), signal.SIGTERM)
                    time.sleep(0.5)
                open("cleanup-done", "w").close()
        raise RuntimeError("the disk is on fire")

    stopping = []
    setattr(Pipeline, os.environ["RAGLOOM_TEST_METHOD"], fail)

    if failure.endswith("-twice"):
        import atexit

        import ragloom.cli_support

        loading = ragloom.cli_support._console_class

        def slowly():  # more signals while the error line's library loads
            for signum in (signal.SIGINT, signal.SIGTERM) if stopping else ():
                os.kill(os.getpid(), signum)
                time.sleep(0.2)
            return loading()

        def at_exit():  # and while the interpreter shuts down
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.2)

        ragloom.cli_support._console_class = slowly
        atexit.register(at_exit)
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


@pytest.mark.parametrize(
    ("failure", "code", "said"),
    [("sigint-at-start", 1, "interrupted"), ("sigterm-at-start", 143, "terminated (SIGTERM)")],
)
def test_a_signal_while_the_plugins_load_ends_as_in_a_command(
    project: Path, failure: str, code: int, said: str
) -> None:
    """SIGTERM while the plugins loaded said ``interrupted`` with exit 1, as
    Ctrl-C: a supervisor could not tell its stop from a failure."""
    result = run(project, "ask", "Pro plan?", method="ask", failure=failure)
    assert result.returncode == code, result.stderr
    assert result.stderr.strip() == f"error: {said}" and result.stdout == ""


@pytest.mark.parametrize(
    ("failure", "code", "said"),
    [("sigterm-twice", 143, "terminated (SIGTERM)"), ("sigint-twice", 1, "interrupted")],
)
def test_more_signals_while_a_run_stops_change_nothing(
    project: Path, failure: str, code: int, said: str
) -> None:
    """Two SIGTERMs close together (a supervisor and ``kill``) printed a
    traceback and exited 1 or -15: the second raised again in the first's
    cleanup, or while the error line's library loaded, or in the
    interpreter's shutdown. It is ignored: the cleanup runs to its end, and
    the run ends as after one. A SIGTERM or Ctrl-C while the line is said
    changes nothing either."""
    result = run(project, "index", method="index", failure=failure)
    assert result.returncode == code, result.stderr
    assert result.stderr.strip() == f"error: {said}"
    assert (project / "cleanup-done").exists()


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
