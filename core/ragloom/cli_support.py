"""Helpers for ``ragloom`` commands, core and plugin-provided (see the
``register_commands`` hook): errors mapped to messages and exit codes, consoles,
the configured pipeline, and the options several commands share.

    import click
    from ragloom.cli_support import PRINCIPAL, console, handle_errors, load_pipeline

    @click.command()
    @PRINCIPAL
    @click.pass_context
    @handle_errors
    def stats(ctx, principals):
        with load_pipeline(ctx) as pipeline:
            console().print(f"{pipeline.index_dir}")
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import signal
import sys
from collections.abc import Callable, Iterator, Mapping
from functools import wraps
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from .errors import (
    AccessError,
    ConfigError,
    ConfigValidationError,
    FilterError,
    IndexDirError,
    IndexStateError,
    PluginError,
    RagloomError,
    Terminated,
)
from .filters import MAX_DEPTH
from .terminal import sanitize
from .types import MAX_K

__all__ = [
    "PRINCIPAL",
    "config_path",
    "console",
    "escape",
    "fail",
    "fail_interrupted",
    "handle_errors",
    "index_dir_hint",
    "load_pipeline",
    "parse_filter_json",
    "principals_list",
    "sanitize",
]

F = TypeVar("F", bound=Callable[..., Any])


@contextlib.contextmanager
def index_dir_hint(given: str | None, command: str) -> Iterator[None]:
    """A benchmark's index folder that cannot be created (a read-only mount,
    say): the error says how to index it elsewhere, unless ``--index-dir``
    was ``given`` already."""
    try:
        yield
    except IndexDirError as exc:
        if given:
            raise
        raise IndexDirError(
            f"{exc}; or index the benchmark corpus in a folder you can write: "
            f"`{command} ... --index-dir DIR`",
            exc.path,
        ) from None
    except IndexStateError as exc:
        if type(exc) is not IndexStateError:  # damaged, being rebuilt: said as they are
            raise
        # its advice is the project's (`ragloom index --rebuild`, a new index_dir):
        # the benchmark's index is the command's own
        raise IndexStateError(
            f"{exc} (this is the benchmark's own index: `{command} ... --index-dir DIR` "
            "indexes the corpus afresh in another folder, or delete the folder it names)"
        ) from None


def console(stderr: bool = False) -> Any:
    return _console_class()(stderr=stderr, highlight=False, soft_wrap=True)


@functools.cache
def _console_class() -> Any:
    from rich.console import Console

    class Quiet(Console):  # type: ignore[misc]
        def on_broken_pipe(self) -> None:  # rich's own exits 1
            stop_quietly()

    return Quiet


def on_sigterm(*_: object) -> None:
    """SIGTERM's handler under the ``ragloom`` command: the first raises
    :class:`Terminated` where the command is; any further one is ignored.
    Two often come close together (a supervisor and ``kill``, ``timeout``
    and systemd): the second must not cut short the first one's cleanup nor
    its ``error:`` line, nor end the process by the signal (exit -15) while
    it exits 143. Ignored, not a flag in a handler: Python puts a handler of
    its own back to the default while it shuts down, an ignored signal stays
    ignored."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Terminated


def fail_interrupted(exc: KeyboardInterrupt) -> NoReturn:
    """Say how ``exc`` ended the command and exit: SIGTERM 143, Ctrl-C 1.
    A further Ctrl-C or SIGTERM while this is said is ignored: the command
    is ending already, and it would end it with a traceback."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(ValueError):  # not the main thread
            signal.signal(signum, signal.SIG_IGN)
    if isinstance(exc, Terminated):
        fail("terminated (SIGTERM)", 143)
    fail("interrupted", 1)


def stop_quietly() -> None:
    """The reader of stdout went away (``ragloom search ... | head -1``):
    exit 141, as a process ended by SIGPIPE does, and nothing more; stdout
    goes to /dev/null so that Python's last flush does not complain."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(141)


def fail(message: str, code: int) -> NoReturn:
    """Print ``error: <message>`` to stderr and exit with ``code``. ``message``
    is rich markup: pass text through :func:`escape` (which also sanitizes it)."""
    console(stderr=True).print(f"[bold red]error:[/] {message}", markup=True)
    sys.exit(code)


_CANNOT_WRITE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT})
"""What an OS says when a file cannot be written: no bug, a thing to fix."""


def _in_output(exc: BaseException) -> bool:
    """Whether ``exc`` was raised writing a command's output (rich's console,
    click's echo)."""
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename.replace(os.sep, "/")
        if name.endswith(("/rich/console.py", "/click/utils.py")):
            return True
        tb = tb.tb_next
    return False


def handle_errors(func: F) -> F:
    """Map ragloom's errors to messages and exit codes (config 2, runtime 1)."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ConfigValidationError as exc:
            err = console(stderr=True)
            err.print(
                f"[bold red]{len(exc.issues)} error(s)[/] in {escape(exc.source or 'config')}:"
            )
            # in the file's order (pydantic reports by field, not by line)
            for issue in sorted(exc.issues, key=lambda i: (i.line is None, i.line or 0)):
                err.print(f"  {sanitize(str(issue))}", markup=False)
            sys.exit(2)
        except (ConfigError, PluginError, FilterError) as exc:
            fail(escape(str(exc)), 2)
        except AccessError as exc:
            fail(escape(f"{exc}; on the command line: --principal ID (repeatable)"), 2)
        except RagloomError as exc:
            fail(escape(str(exc)), 1)
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (Terminated)
            fail_interrupted(exc)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except BrokenPipeError:
            stop_quietly()
        except Exception as exc:  # a bug or an unexpected failure: say so, briefly
            if isinstance(exc, OSError) and not exc.filename and _in_output(exc):
                # stdout on a full disk (`> /dev/full`): the command's output, not a bug
                fail(escape(f"cannot write the output: {exc.strerror or exc}"), 1)
            if isinstance(exc, OSError) and exc.filename and exc.errno in _CANNOT_WRITE:
                # a store's file on a read-only mount, a full disk: no bug of ragloom's
                where = "; ".join(getattr(exc, "__notes__", ())[:1])
                fail(
                    escape(
                        f"cannot write {exc.filename}: {exc.strerror}"
                        + (f" ({where})" if where else "")
                        + "; check that this user may write there, that its file system is "
                        "mounted read-write and has room"
                    ),
                    1,
                )
            import logging

            log = logging.getLogger("ragloom")
            log.debug("unexpected error", exc_info=True)
            shown = log.isEnabledFor(logging.DEBUG)  # -v: the traceback is above
            said = [*getattr(exc, "__notes__", ())[:1]]  # where: the component's stage
            if not shown:
                said.append("run with -v for the traceback")
            hint = f" ({'; '.join(said)})" if said else ""
            fail(escape(f"unexpected {type(exc).__name__}: {exc}{hint}"), 1)

    return wrapper  # type: ignore[return-value]


def escape(text: str) -> str:
    """``text`` made safe to print as rich markup: :func:`sanitize`, then its
    ``[`` escaped so that no part of it is read as a style."""
    from rich.markup import escape

    return escape(sanitize(text))


def config_path(ctx: click.Context) -> Path:
    from .configfile import find_config

    given = ctx.obj.get("config")
    if given:
        return Path(given)
    found = find_config()
    if found is None:
        raise ConfigError(
            "no ragloom.yaml (or .yml/.toml) in this directory: run `ragloom init` "
            "or pass --config FILE"
        )
    return found


def plugin_output_to_stderr() -> contextlib.AbstractContextManager[Any]:
    """What components print while the pipeline works goes to stderr: stdout
    is the command's output (``--json``, TSV for a pipe), which a plugin's
    stray ``print`` would corrupt."""
    return contextlib.redirect_stdout(sys.stderr)


def load_pipeline(ctx: click.Context) -> Any:
    from .pipeline import Pipeline

    return Pipeline.from_config(config_path(ctx))


def parse_filter_json(value: str | None) -> Mapping[str, Any] | None:
    """The ``--filter`` JSON as a dict (validated later by ``filters.parse``)."""
    if not value:
        return None
    try:
        data = json.loads(value)
    except ValueError as exc:
        raise FilterError(
            f"--filter is not valid JSON ({exc}); e.g. --filter '{{\"year\": 2024}}'"
        ) from exc
    except RecursionError:
        raise FilterError(
            "--filter nests too deeply to read; $and, $or and $not may nest "
            f"{MAX_DEPTH} levels at most"
        ) from None
    return data


ANSWER_K = click.option(
    "-k",
    "k",
    type=click.IntRange(1, MAX_K),
    default=None,
    help=f"How many hits to give the generator, 1 to {MAX_K:,} (default: retrieval.k).",
)
"""``ask``'s and ``chat``'s ``-k``."""

PRINCIPAL = click.option(
    "--principal",
    "principals",
    multiple=True,
    metavar="ID",
    help="Search as this user or group (repeatable); required when the config has `access:`.",
)


def principals_list(values: tuple[str, ...]) -> list[str] | None:
    return list(values) if values else None
