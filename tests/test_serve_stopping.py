"""How ``ragloom serve`` stops when told twice: a second Ctrl-C or SIGTERM
while it waits for the requests in progress stops it at once, in one line:
no traceback, each request cut short answered 503 ``shutting_down``, the
exit code that of the signals (0 for Ctrl-C, the signal for SIGTERM).

The request in progress is one whose answer never comes: a ``sitecustomize``
module on ``PYTHONPATH`` makes ``Pipeline.ask`` say ``asked`` on stderr and
then sleep; each signal is sent once the server's log shows it is due."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
import yaml

from .conftest import basic_config
from .test_serve_keys import RAGLOOM, _free_port, _ready

SITECUSTOMIZE = """
import os
import sys
import time

if os.environ.get("RAGLOOM_TEST_SLOW_ASK"):
    from ragloom.pipeline import Pipeline

    def ask(self, *args, **kwargs):
        print("asked", file=sys.stderr, flush=True)
        time.sleep(60)
        raise RuntimeError("not cut short")

    Pipeline.ask = ask
"""


@pytest.mark.parametrize(
    ("first", "second", "code"),
    [("SIGINT", "SIGINT", 0), ("SIGTERM", "SIGTERM", -15), ("SIGINT", "SIGTERM", -15)],
)
def test_a_second_signal_stops_the_server_now_in_one_line(
    corpus: Path, tmp_path: Path, first: str, second: str, code: int
) -> None:
    """uvicorn's answer to a second Ctrl-C logged two tracebacks, skipped the
    pipeline's close, and reset the connections of the requests in progress."""
    import httpx

    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()), "utf-8")
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE, "utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
        "RAGLOOM_TEST_SLOW_ASK": "1",
    }
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [RAGLOOM, "serve", "--no-auth", "--no-mcp", "--port", str(port)],
        cwd=corpus, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as at a terminal
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    said: list[str] = []

    def read() -> None:
        assert server.stderr is not None
        for line in server.stderr:
            lines.put(line)
        lines.put("")  # the end

    def wait_for(text: str) -> None:
        while True:
            line = lines.get(timeout=60)
            said.append(line)
            assert line, f"the server ended before saying {text!r}: {''.join(said)}"
            if text in line:
                return

    answers: list[httpx.Response] = []
    try:
        _ready(server, url)
        threading.Thread(target=read, daemon=True).start()
        asking = threading.Thread(
            target=lambda: answers.append(
                httpx.post(f"{url}/v1/ask", json={"question": "Pro plan?"}, timeout=60)
            )
        )
        asking.start()
        wait_for("asked")
        server.send_signal(getattr(signal, first))
        wait_for("stopping; waiting")  # the first: it waits for the request
        began = time.monotonic()
        server.send_signal(getattr(signal, second))
        assert server.wait(timeout=60) == code
        stopped_in = time.monotonic() - began
        asking.join(timeout=60)
        while (line := lines.get(timeout=60)) != "":
            said.append(line)
    finally:
        server.kill()
    log = "".join(said)
    assert "Traceback" not in log and "ERROR" not in log, log
    assert f"{second}, a second signal: stopping now; 1 request(s) in progress" in log, log
    assert stopped_in < 8, log  # not the 10 s of --shutdown-timeout, nor the 60 s ask
    assert len(answers) == 1 and answers[0].status_code == 503, log
    assert answers[0].json()["error"]["code"] == "shutting_down"


class _StuckPipeline:
    """A pipeline whose close waits on a call that does not return."""

    async_workers = 0
    config = type("Config", (), {"access": None})()

    def __init__(self) -> None:
        self.release = threading.Event()

    def close(self) -> None:
        self.release.wait(30)


@pytest.mark.parametrize("hurried", [False, True])
def test_closing_gives_up_on_a_stuck_pipeline_sooner_once_hurried(hurried: bool) -> None:
    """``--shutdown-timeout`` bounds the wait for the pipeline's close; a
    second signal (``hurried``, here while it waits) cuts it to a moment."""
    import asyncio

    from ragloom.server.service import HURRIED_CLOSE, Service
    from ragloom.server.settings import ServerSettings

    pipeline = _StuckPipeline()
    timeout = 2.0 if not hurried else 60.0
    service = Service(pipeline, ServerSettings(shutdown_timeout=timeout))  # type: ignore[arg-type]

    async def close() -> float:
        if hurried:
            asyncio.get_running_loop().call_later(0.2, setattr, service, "hurried", True)
        began = time.monotonic()
        await service.close()
        return time.monotonic() - began

    try:
        took = asyncio.run(close())
    finally:
        pipeline.release.set()
    assert service.abandoned
    limit = HURRIED_CLOSE if hurried else timeout
    assert limit <= took < limit + 3
