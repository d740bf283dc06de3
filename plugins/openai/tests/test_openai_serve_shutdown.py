"""``ragloom serve`` stops on SIGTERM while a model call hangs.

The generator (the real openai SDK) talks to a server on 127.0.0.1 that
accepts the connection and never answers, with a ten-minute timeout: the
request gets its 504 after ``--timeout``, but the call goes on in the
pipeline's thread pool, which ``Pipeline.close`` (and Python's exit) waited
for. The server now waits ``--shutdown-timeout``, says so, and stops.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml


def _ragloom() -> str:
    found = Path(sys.executable).with_name("ragloom")
    return str(found) if found.exists() else shutil.which("ragloom") or "ragloom"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A base URL whose server takes connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)  # the kernel completes each handshake: nothing is read
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        listener.close()


def _serve(
    project: Path, env: dict[str, str], *, timeout: float, shutdown_timeout: float
) -> tuple[subprocess.Popen[str], str]:
    """`ragloom serve --no-auth` over ``project`` on a free port: the process
    (stderr piped) and its base URL."""
    port = _free_port()
    server = subprocess.Popen(
        [_ragloom(), "serve", "--no-auth", "--port", str(port), "--timeout", str(timeout),
         "--shutdown-timeout", str(shutdown_timeout), "--no-mcp"],
        cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    return server, f"http://127.0.0.1:{port}"


def _wait_ready(server: subprocess.Popen[str], url: str) -> None:
    """Until ``/readyz`` answers 200 (the process must not exit meanwhile)."""
    deadline = time.monotonic() + 120
    while True:
        assert server.poll() is None, server.communicate()[1]
        assert time.monotonic() < deadline, "ragloom serve did not become ready"
        try:
            if httpx.get(f"{url}/readyz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)


def _project(tmp_path: Path, base_url: str) -> dict[str, str]:
    """An indexed project whose generator asks ``base_url``; the environment."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guild.md").write_text("# Guild\n\nThe zorblat guild meets weekly.\n")
    config = {
        "loaders": [{"type": "directory", "path": "docs"}],
        "chunker": {"type": "recursive", "size": 500, "overlap": 0},
        "embedder": {"type": "hash", "dimension": 64},
        "stores": [{"type": "memory"}],
        "generator": {
            "type": "openai",
            "base_url": base_url,
            "api_key": "sk-test",
            "model": "m",
            "timeout": 600,
            "max_retries": 0,
        },
    }
    (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(config))
    env = {**os.environ, "RAGLOOM_CACHE_DIR": str(tmp_path / "cache")}
    indexed = subprocess.run(
        [_ragloom(), "index"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert indexed.returncode == 0, indexed.stderr
    return env


def test_serve_stops_while_a_model_call_hangs(tmp_path: Path, silent_server: str) -> None:
    env = _project(tmp_path, silent_server)
    server, url = _serve(tmp_path, env, timeout=1, shutdown_timeout=2)
    try:
        _wait_ready(server, url)
        asked = httpx.post(f"{url}/v1/ask", json={"question": "When does it meet?"}, timeout=30)
        assert asked.status_code == 504, asked.text
        assert asked.json()["error"]["code"] == "timeout"
        server.send_signal(signal.SIGTERM)
        started = time.monotonic()
        _, stderr = server.communicate(timeout=60)  # it waited for the call: 600 s
        took = time.monotonic() - started
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    # uvicorn raises the signal again once it has stopped: ended by it, as
    # without a hung call
    assert server.returncode == -signal.SIGTERM, stderr
    assert took < 30, took
    assert "stopping without closing the pipeline: a call still running after 2s" in stderr


def test_mcp_exits_when_its_client_leaves_while_a_model_call_hangs(
    tmp_path: Path, silent_server: str
) -> None:
    """``ragloom mcp``: the tool call ends with its timeout; when the client
    closes stdin, the server stops within its shutdown time (10 s)."""
    env = _project(tmp_path, silent_server)
    server = subprocess.Popen(
        [_ragloom(), "mcp", "--timeout", "1"],
        cwd=tmp_path, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None

    def send(message: dict[str, object]) -> None:
        server.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")  # type: ignore[union-attr]
        server.stdin.flush()  # type: ignore[union-attr]

    try:
        send({"id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}})  # fmt: skip
        assert json.loads(server.stdout.readline())["id"] == 1
        send({"method": "notifications/initialized"})
        send({"id": 2, "method": "tools/call", "params": {
            "name": "ask", "arguments": {"question": "When does the guild meet?"}}})  # fmt: skip
        answer = json.loads(server.stdout.readline())
        assert answer["id"] == 2 and answer["result"]["isError"], answer
        assert "longer than 1s" in json.dumps(answer)
        server.stdin.close()
        started = time.monotonic()
        server.wait(timeout=60)  # it waited for the call: 600 s
        took = time.monotonic() - started
        stderr = server.stderr.read()  # type: ignore[union-attr]
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == 0, stderr
    assert took < 30, took
    assert "stopping without closing the pipeline: a call still running after 10s" in stderr


def test_a_request_cut_short_by_the_stop_gets_a_json_503(
    tmp_path: Path, silent_server: str
) -> None:
    """In flight when SIGTERM comes and still running after --shutdown-timeout:
    uvicorn cancelled it with a plain-text 500 and logged a traceback."""
    import threading

    env = _project(tmp_path, silent_server)
    server, url = _serve(tmp_path, env, timeout=60, shutdown_timeout=1)
    answers: list[httpx.Response] = []
    try:
        _wait_ready(server, url)

        def ask(body: dict[str, object]) -> None:
            answers.append(httpx.post(f"{url}/v1/ask", json=body, timeout=60))

        asking = [
            threading.Thread(target=ask, args=({"question": "When does it meet?"},)),
            threading.Thread(target=ask, args=({"question": "Where?", "stream": True},)),
        ]
        for thread in asking:
            thread.start()
        time.sleep(1.5)  # both wait on the model
        server.send_signal(signal.SIGTERM)
        for thread in asking:
            thread.join(60)
        _, stderr = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert len(answers) == 2
    for answer in answers:
        assert answer.status_code == 503, answer.text
        assert answer.json()["error"]["code"] == "shutting_down"
        assert answer.headers["retry-after"]
    assert "Traceback" not in stderr and "Exception in ASGI application" not in stderr
    assert stderr.count("cut short: the server is stopping") == 2
