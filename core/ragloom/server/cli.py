"""``ragloom serve`` and ``ragloom mcp``: the commands' bodies (``ragloom.cli``
declares them, so that ``ragloom --help`` imports nothing of this)."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import signal
import socket
import sys
from typing import Any

import click

from ..cli_support import console, escape, fail, load_pipeline, sanitize
from .evals import EvalFiles
from .keys import Caller, KeyRing, generate_key, hash_key, load_keys
from .settings import ServerSettings

__all__ = ["run_mcp", "run_serve"]

log = logging.getLogger("ragloom.server")


def _need(module: str, extra: str) -> None:
    try:
        __import__(module)
    except ImportError:
        fail(escape(f"this needs {module}: pip install 'ragloom[{extra}]'"), 2)


def print_new_key() -> None:
    key = generate_key()
    click.echo(
        f"key:    {key}\n"
        f"sha256: {hash_key(key)}\n\n"
        "Give the key to the client; put the hash in your keys file:\n\n"
        "keys:\n"
        "  - name: my-client\n"
        f"    sha256: {hash_key(key)}\n"
        "    principals: [group:example]"
    )


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` for the server, or a one-line error
    (exit 1) when it cannot be: uvicorn would log the error after the banner
    and exit 3."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        hint = (
            "; another server listens there: stop it, or pick another --port"
            if exc.errno == errno.EADDRINUSE
            else ""
        )
        fail(escape(f"cannot listen on {host}:{port}: {reason}{hint}"), 1)
    sock.set_inheritable(True)
    return sock


def _anonymous(principals: tuple[str, ...]) -> Caller:
    from .auth import ANONYMOUS

    return Caller(ANONYMOUS, tuple(principals) if principals else None)


def run_serve(
    ctx: click.Context,
    *,
    keys_file: str | None,
    no_auth: bool,
    principals: tuple[str, ...],
    settings: ServerSettings,
) -> None:
    _need("fastapi", "server")
    _need("uvicorn", "server")
    import uvicorn

    from .app import create_app
    from .stopping import StoppingServer

    if keys_file and no_auth:
        raise click.UsageError("--keys and --no-auth exclude each other", ctx=ctx)
    if principals and not no_auth:
        raise click.UsageError(
            "--principal is for --no-auth; with --keys, each key names its principals", ctx=ctx
        )
    if not keys_file and not no_auth:
        raise click.UsageError(
            "no API keys: pass --keys keys.yaml (see `ragloom serve --generate-key`), or "
            "--no-auth to serve without keys",
            ctx=ctx,
        )
    keys: KeyRing | None = load_keys(keys_file) if keys_file else None
    try:
        EvalFiles.of(settings.eval_files)  # read now: a broken test set stops the start
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param_hint="--eval-file") from None
    pipeline = load_pipeline(ctx)
    if no_auth and pipeline.config.access is not None and not principals:
        # every request would be no one's: only unlabelled documents, and no hint why
        raise click.UsageError(
            "this pipeline enforces access control (`access:` in its config): with "
            "--no-auth, say whose the server is with --principal ID (repeatable)",
            ctx=ctx,
        )
    anonymous = _anonymous(principals) if no_auth else None
    if no_auth and settings.host not in ("127.0.0.1", "localhost", "::1"):
        log.warning(
            "serving without API keys on %s: anyone who reaches it can query", settings.host
        )
    failed: list[BaseException] = []
    server: Any = None

    def stop(exc: BaseException) -> None:
        failed.append(exc)
        if server is not None:
            server.should_exit = True

    app = create_app(
        pipeline, settings=settings, keys=keys, anonymous=anonymous, on_open_failure=stop
    )
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,  # our handlers (text or JSON, redacted)
        access_log=False,  # ragloom.server.access logs each request instead
        lifespan="on",
        timeout_graceful_shutdown=max(1, round(settings.shutdown_timeout)),
        server_header=False,
    )
    service = app.state.service
    # a second signal: stop at once, in one line
    server = StoppingServer(config, on_hurry=lambda: setattr(service, "hurried", True))
    logging.getLogger("ragloom.server").setLevel(
        min(logging.INFO, logging.getLogger().getEffectiveLevel())
    )
    mcp = " · MCP /mcp" if settings.mcp and "ragloom.server.mcp" in sys.modules else ""
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    listening = _listen(settings.host, settings.port)  # before the banner says it serves
    port = listening.getsockname()[1]  # --port 0: the one the system chose
    console(stderr=True).print(
        sanitize(f"ragloom serving http://{host}:{port} · API docs /docs{mcp}"),
        markup=False,
    )
    # uvicorn handles SIGTERM while it serves, then restores the handler it
    # found and raises the signal again: the default ends the process by it
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # Ctrl-C: uvicorn stops serving, restores Python's handler and raises
    # the signal again; stopping is a server's normal end (exit 0). A second
    # signal while it stops: see .stopping
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[listening])
    if failed:
        exc = failed[0]
        fail(escape(f"the pipeline failed to open: {type(exc).__name__}: {exc}"), 1)
    _leave_if_abandoned(app.state.service)


def run_mcp(ctx: click.Context, *, principals: tuple[str, ...], timeout: float) -> None:
    _need("mcp", "mcp")
    import anyio

    from .mcp import run_stdio
    from .service import Service

    pipeline = load_pipeline(ctx)
    if pipeline.config.access is not None and not principals:
        raise click.UsageError(
            "this pipeline enforces access control (`access:` in its config): say whose "
            "the MCP server is with --principal ID (repeatable)",
            ctx=ctx,
        )
    caller = Caller("mcp-stdio", tuple(principals) if principals else None)
    service = Service(pipeline, ServerSettings(request_timeout=timeout))
    # a client stops it by closing stdin; SIGTERM ends it at once, as before,
    # rather than wait on a pool thread a hung model call holds
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    anyio.run(run_stdio, service, caller)
    _leave_if_abandoned(service)


def _leave_if_abandoned(service: Any) -> None:
    """Exit now when ``service.close`` left a call that does not return
    behind: its thread would hold the exit (Python joins a pool's threads),
    and nothing is left to write."""
    if service.abandoned:
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
