"""The loopback server: a threaded HTTP server on 127.0.0.1 with scripted faults."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

# -- the server --------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received: ``body`` is the parsed JSON (or None)."""

    method: str
    path: str
    query: Mapping[str, list[str]]
    headers: Mapping[str, str]
    body: Any
    raw: bytes = b""


@dataclass
class Response:
    """What a route answers: a status, a JSON (or raw) body, headers; or a
    stream of raw chunks (``stream``), sent with ``Connection: close``."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    stream: Iterator[bytes] | None = None


@dataclass(frozen=True)
class Fault:
    """A scripted misbehaviour, answered instead of (or before) the normal response.

    Build with the class methods: ``Fault.status(429, retry_after="1")``, ``Fault.ok()``,
    ``Fault.delay(2.0)``, ``Fault.truncated()``, ``Fault.drop()``,
    ``Fault.shuffled()`` and ``Fault.cut_stream(after=2)`` (OpenAI).
    """

    kind: str
    code: int = 0
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    after: int = 0

    @classmethod
    def status(
        cls,
        code: int,
        body: Any = None,
        *,
        retry_after: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Fault:
        """Answer ``code`` with ``body`` (default: the service's error shape)."""
        merged = dict(headers or {})
        if retry_after is not None:
            merged["Retry-After"] = retry_after
        return cls("status", code=code, body=body, headers=merged)

    @classmethod
    def ok(cls) -> Fault:
        """Answer normally: a placeholder, so a script can let requests through
        before its faults (``fail(Fault.ok(), Fault.status(503))``)."""
        return cls("ok")

    @classmethod
    def delay(cls, seconds: float) -> Fault:
        """Wait ``seconds`` before answering normally (longer than a client's timeout:
        the client gives up; the late answer goes nowhere)."""
        return cls("delay", seconds=seconds)

    @classmethod
    def truncated(cls) -> Fault:
        """Answer 200 with the normal JSON cut in half and a Content-Length that
        matches the cut body: a client sees malformed JSON."""
        return cls("truncated")

    @classmethod
    def drop(cls) -> Fault:
        """Close the connection without answering."""
        return cls("drop")

    @classmethod
    def shuffled(cls) -> Fault:
        """OpenAI embeddings: the ``data`` items in reverse order (each keeps its
        ``index``, which is how the API says clients must match them)."""
        return cls("shuffled")

    @classmethod
    def cut_stream(cls, after: int = 1) -> Fault:
        """OpenAI streaming: close the stream after ``after`` chunks, without
        ``finish_reason`` or ``[DONE]``."""
        return cls("cut_stream", after=after)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # ~50 ms per request otherwise
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib name)
        pass

    def _serve(self) -> None:
        owner = self.server.owner
        split = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = _INVALID_JSON
        request = RecordedRequest(
            method=self.command,
            path=unquote(split.path),
            query=parse_qs(split.query, keep_blank_values=True),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            raw=raw,
        )
        owner._record(request)
        fault = owner._next_fault(request.path)
        if fault is not None and fault.kind == "delay":
            time.sleep(fault.seconds)
            fault = None
        if fault is not None and fault.kind == "ok":
            fault = None
        if fault is not None and fault.kind == "drop":
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(2)
            return
        if fault is not None and fault.kind == "status":
            body = fault.body if fault.body is not None else owner.error_body(fault.code, "fault")
            response = Response(fault.code, body, dict(fault.headers))
        elif body is _INVALID_JSON:
            response = owner.error(400, "the request body is not valid JSON")
        else:
            try:
                response = owner.handle(request, fault)
            except Exception as exc:  # noqa: BLE001 (a bug in a fake: answer 500, say why)
                response = owner.error(500, f"fake server error: {type(exc).__name__}: {exc}")
        if fault is not None and fault.kind == "truncated" and response.stream is None:
            payload = _encode(response)
            response = Response(response.status, raw=payload[: max(1, len(payload) // 2)])
            response.headers["Content-Type"] = "application/json"
        self._send(response)

    def _send(self, response: Response) -> None:
        try:
            self.send_response(response.status)
            headers = {"Content-Type": "application/json", **response.headers}
            if response.stream is not None:
                headers["Connection"] = "close"
                self.close_connection = True
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                for piece in response.stream:
                    self.wfile.write(piece)
                    self.wfile.flush()
                return
            payload = response.raw if response.raw is not None else _encode(response)
            headers["Content-Length"] = str(len(payload))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True

    do_GET = do_POST = do_DELETE = do_PATCH = do_PUT = _serve  # noqa: N815


_INVALID_JSON = object()


def _encode(response: Response) -> bytes:
    if response.raw is not None:
        return response.raw
    if response.body is None:
        return b""
    return json.dumps(response.body, separators=(",", ":")).encode()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    owner: LoopbackServer


class LoopbackServer:
    """A threaded HTTP server on ``127.0.0.1`` with a request log and fault injection.

    Subclasses implement ``handle(request, fault)`` (the fault is None, or one
    the service itself interprets, such as ``shuffled``) and ``error_body``
    (the service's error shape). ``url`` is ``http://127.0.0.1:<port>``.
    """

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._faults: deque[tuple[Fault, str | None]] = deque()
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> LoopbackServer:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.owner = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None, "start the server first (use it as a context manager)"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # -- faults and the log ------------------------------------------------------------------
    def fail(self, *faults: Fault, times: int = 1, path: str | None = None) -> None:
        """Queue ``faults`` (``times`` over) for the next requests (to ``path`` only,
        if given, matched as a suffix); each fault is used once, in order."""
        with self._lock:
            for _ in range(times):
                for fault in faults:
                    self._faults.append((fault, path))

    def pending_faults(self) -> int:
        with self._lock:
            return len(self._faults)

    def clear(self) -> None:
        """Forget the log and every queued fault."""
        with self._lock:
            self._faults.clear()
            self.requests.clear()

    def calls(self, path: str | None = None) -> list[RecordedRequest]:
        """The requests received (to paths ending with ``path``, if given)."""
        with self._lock:
            return [r for r in self.requests if path is None or r.path.endswith(path)]

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_fault(self, path: str) -> Fault | None:
        with self._lock:
            for i, (fault, only) in enumerate(self._faults):
                if only is None or path.endswith(only):
                    del self._faults[i]
                    return fault
        return None

    # -- for subclasses ----------------------------------------------------------------------
    def handle(self, request: RecordedRequest, fault: Fault | None) -> Response:
        return self.error(404, f"no route for {request.method} {request.path}")

    def error_body(self, status: int, message: str) -> Any:
        return {"message": message}

    def error(
        self, status: int, message: str, headers: Mapping[str, str] | None = None
    ) -> Response:
        return Response(status, self.error_body(status, message), dict(headers or {}))
