"""``LlamaServer``: llama.cpp's OpenAI-compatible server (``python -m
llama_cpp.server``) on 127.0.0.1, started and stopped from Python, for tests
and benchmarks of OpenAI-compatible clients without a network::

    from ragloom_llamacpp.server import LlamaServer

    with LlamaServer("smollm2") as server:     # ready when the block starts
        client = openai.OpenAI(base_url=server.base_url, api_key="none")

It serves chat completions (streaming too) and, with ``embedding=True``,
mean-pooled embeddings. Needs ``llama-cpp-python[server]``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from .loading import default_threads
from .models import DEFAULT_MODEL, resolve_model

__all__ = ["LlamaServer"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LlamaServer:
    """One ``llama_cpp.server`` process serving ``model_path`` (a .gguf file or a
    packaged name, as the components' ``model_path``) under the name ``alias``."""

    def __init__(
        self,
        model_path: str = DEFAULT_MODEL,
        *,
        alias: str = "smollm2",
        n_ctx: int = 2048,
        n_threads: int | None = None,
        embedding: bool = True,
        port: int | None = None,
        python: str = sys.executable,
        startup_timeout: float = 120.0,
        base_dir: Path | None = None,
    ) -> None:
        self.model = resolve_model(model_path, base_dir or Path.cwd()).path
        self.alias = alias
        self.n_ctx = n_ctx
        self.n_threads = n_threads or default_threads()
        self.embedding = embedding
        self.port = port or _free_port()
        self.python = python
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen[bytes] | None = None
        self._log: Path | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """What an OpenAI client takes: ``http://127.0.0.1:<port>/v1``."""
        return f"{self.url}/v1"

    def command(self) -> list[str]:
        command = [
            self.python, "-m", "llama_cpp.server",
            "--model", str(self.model), "--model_alias", self.alias,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(self.n_threads), "--n_threads_batch", str(self.n_threads),
            "--verbose", "false",
        ]  # fmt: skip
        if self.embedding:
            # One vector per text (mean pooling), not one per token.
            command += ["--embedding", "true", "--kv_overrides", "llama.pooling_type=int:1"]
        return command

    def start(self) -> LlamaServer:
        handle, name = tempfile.mkstemp(prefix="llama-server-", suffix=".log")
        os.close(handle)
        self._log = Path(name)
        with self._log.open("ab") as out:  # appended to: read back while it runs
            self.process = subprocess.Popen(
                self.command(), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )  # fmt: skip
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no proxy
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code, log = self.process.returncode, self.log()
                self.stop()
                raise RuntimeError(f"llama_cpp.server exited ({code}):\n{log}")
            try:
                with direct.open(f"{self.base_url}/models", timeout=2) as response:
                    if response.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.1)
        log = self.log()
        self.stop()
        raise RuntimeError(f"llama_cpp.server not ready in {self.startup_timeout:.0f}s:\n{log}")

    def log(self, limit: int | None = 4000) -> str:
        """What the server printed so far (the last ``limit`` characters)."""
        if self._log is None or not self._log.exists():
            return ""
        text = self._log.read_bytes().decode("utf-8", "replace")
        return text[-limit:] if limit else text

    def requests(self, path: str = "/v1/chat/completions") -> int:
        """How many POST requests to ``path`` the server has answered (from its access
        log): a test can check that something was, or was not, asked of the model."""
        return self.log(None).count(f'"POST {path} HTTP/1.1"')

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log is not None:
            self._log.unlink(missing_ok=True)
            self._log = None

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
