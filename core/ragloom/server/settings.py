"""What a server is allowed to do: its address and its limits."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["ServerSettings"]


@dataclass(frozen=True)
class ServerSettings:
    """The options of ``ragloom serve`` (each has a command-line flag).

    :param host: address to listen on; ``127.0.0.1`` (this machine only) by default.
    :param port: TCP port.
    :param max_body_bytes: largest request body accepted (413 above it).
    :param request_timeout: seconds a search or an answer may take (504
        after it; a streamed answer must finish within it). Index runs
        (``POST /v1/index``) are not limited.
    :param max_concurrency: requests to ``/v1/*`` and ``/mcp`` handled at
        once; more are refused at once with 429 and ``Retry-After``. It is
        also the size of the pipeline's thread pool.
    :param retry_after: seconds a 429 or 503 tells the client to wait.
    :param shutdown_timeout: seconds a stopping server waits for the requests
        in progress, and then for the pipeline to close; a call that still
        runs after it (a model or a store that does not answer) is left
        behind, and the server stops without it.
    :param watch_interval: seconds between two looks at the index: a version
        another process committed (``ragloom index`` from cron) is moved to,
        and the stores' lazy indexes built, before a query asks; 0 leaves
        that to the first query.
    :param max_k: the most hits one request may ask for.
    :param model: the model name ``/v1/models`` lists and chat requests name.
    :param mcp: serve MCP (streamable HTTP) at ``/mcp``.
    :param eval_files: the test sets (``ragloom eval`` files) the playground
        may run, named by their file name; none by default. Clients choose
        among these names and never send a path.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    max_body_bytes: int = 1_048_576
    request_timeout: float = 60.0
    max_concurrency: int = 16
    retry_after: int = 1
    shutdown_timeout: float = 10.0
    watch_interval: float = 2.0
    max_k: int = 100
    model: str = "ragloom"
    mcp: bool = True
    eval_files: tuple[str | Path, ...] = ()

    def __post_init__(self) -> None:
        if self.max_body_bytes < 1024:
            raise ValueError("max_body_bytes must be at least 1024")
        if self.request_timeout <= 0:
            raise ValueError("request_timeout must be positive")
        if self.shutdown_timeout <= 0:
            raise ValueError("shutdown_timeout must be positive")
        if not 0 <= self.watch_interval < float("inf"):  # NaN fails too
            raise ValueError("watch_interval must be 0 (off) or positive")
        if self.max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        if not 1 <= self.max_k <= 10_000:
            raise ValueError("max_k must be between 1 and 10000")
