"""``FakeOpenAI``: the OpenAI embeddings and chat completions endpoints."""

from __future__ import annotations

import base64
import json
import re
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ._text import _WORD, _bearer_ok, text_embedding
from .base import Fault, LoopbackServer, RecordedRequest, Response


class FakeOpenAI(LoopbackServer):
    """The OpenAI API's ``/v1/embeddings`` and ``/v1/chat/completions``.

    Embeddings: ``input`` a string or a list of up to 2,048 non-empty strings;
    ``encoding_format`` ``float`` or ``base64`` (little-endian float32, what the
    SDK asks for); ``dimensions`` for the ``text-embedding-3`` models only.
    Chat: a reply from ``reply(messages)`` (default: it repeats the last user
    message), plain or as SSE chunks (``stream: true``) ending in ``[DONE]``.
    Faults ``shuffled`` and ``cut_stream`` apply here.
    """

    EMBED_MODELS: Mapping[str, tuple[int, bool]] = {
        "text-embedding-3-small": (1536, True),
        "text-embedding-3-large": (3072, True),
        "text-embedding-ada-002": (1536, False),
    }
    max_inputs = 2048

    def __init__(
        self,
        api_key: str | None = "test-key",
        reply: Callable[[list[dict[str, Any]]], str] | None = None,
        chat_models: frozenset[str] | None = None,
    ) -> None:
        super().__init__()
        self.api_key = api_key
        self.reply = reply or (lambda messages: f"You said: {_last_user(messages)}")
        self.chat_models = chat_models

    def error_body(self, status: int, message: str) -> Any:
        kind = {401: "invalid_request_error", 429: "requests", 500: "server_error"}.get(
            status, "invalid_request_error"
        )
        code = {401: "invalid_api_key", 429: "rate_limit_exceeded"}.get(status)
        return {"error": {"message": message, "type": kind, "param": None, "code": code}}

    def handle(self, request: RecordedRequest, fault: Fault | None) -> Response:
        if not _bearer_ok(request, self.api_key):
            return self.error(401, "Incorrect API key provided.")
        if request.method == "POST" and request.path == "/v1/embeddings":
            return self._embeddings(request.body, fault)
        if request.method == "POST" and request.path == "/v1/chat/completions":
            return self._chat(request.body, fault)
        return self.error(404, f"Invalid URL ({request.method} {request.path})")

    def _no_model(self, model: Any) -> Response:
        message = f"The model `{model}` does not exist or you do not have access to it."
        error = {"message": message, "type": "invalid_request_error", "param": None}
        return Response(404, {"error": {**error, "code": "model_not_found"}})

    def _embeddings(self, body: Any, fault: Fault | None) -> Response:
        if not isinstance(body, dict):
            return self.error(400, "body must be an object")
        model, raw = body.get("model"), body.get("input")
        if model not in self.EMBED_MODELS:
            return self._no_model(model)
        inputs = [raw] if isinstance(raw, str) else raw
        if not isinstance(inputs, list) or not inputs:
            return self.error(400, "'$.input' is invalid: it must be a string or a list")
        if len(inputs) > self.max_inputs:
            return self.error(400, f"'$.input' is invalid: at most {self.max_inputs} inputs")
        if not all(isinstance(t, str) and t for t in inputs):
            return self.error(400, "'$.input' is invalid: inputs must be non-empty strings")
        default, resizable = self.EMBED_MODELS[model]
        dimension = body.get("dimensions", default)
        if "dimensions" in body and not resizable:
            return self.error(400, "This model does not support specifying dimensions.")
        if not isinstance(dimension, int) or not 1 <= dimension <= default:
            return self.error(400, f"'dimensions' must be between 1 and {default}")
        fmt = body.get("encoding_format", "float")
        if fmt not in ("float", "base64"):
            return self.error(400, "'encoding_format' must be 'float' or 'base64'")
        data = []
        for i, text in enumerate(inputs):
            vector = text_embedding(text, dimension)
            if fmt == "base64":
                import struct

                packed = struct.pack(f"<{dimension}f", *vector)
                embedding: Any = base64.b64encode(packed).decode()
            else:
                embedding = vector
            data.append({"object": "embedding", "index": i, "embedding": embedding})
        if fault is not None and fault.kind == "shuffled":
            data.reverse()
        tokens = sum(len(_WORD.findall(t)) for t in inputs)
        return Response(
            200,
            {
                "object": "list",
                "data": data,
                "model": model,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _chat(self, body: Any, fault: Fault | None) -> Response:
        if not isinstance(body, dict):
            return self.error(400, "body must be an object")
        model, messages = body.get("model"), body.get("messages")
        if not model or (self.chat_models is not None and model not in self.chat_models):
            return self._no_model(model)
        if not isinstance(messages, list) or not messages:
            return self.error(400, "'messages' must be a non-empty list")
        text = self.reply(messages)
        ident, created = f"chatcmpl-{uuid.uuid4().hex[:12]}", int(time.time())
        if not body.get("stream"):
            return Response(
                200,
                {
                    "id": ident,
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {
                        "prompt_tokens": 1,
                        "completion_tokens": len(text.split()),
                        "total_tokens": 1 + len(text.split()),
                    },
                },
            )
        cut = fault.after if fault is not None and fault.kind == "cut_stream" else None
        return Response(
            200,
            headers={"Content-Type": "text/event-stream"},
            stream=_sse(ident, created, model, text, cut),
        )


def _last_user(messages: list[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return ""


def _sse(ident: str, created: int, model: str, text: str, cut: int | None) -> Iterator[bytes]:
    def event(delta: dict[str, Any], finish: str | None) -> bytes:
        chunk = {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return f"data: {json.dumps(chunk)}\n\n".encode()

    pieces = re.findall(r"\S+\s*", text) or [""]
    yield event({"role": "assistant", "content": ""}, None)
    for i, piece in enumerate(pieces):
        if cut is not None and i >= cut:
            return
        yield event({"content": piece}, None)
    yield event({}, "stop")
    yield b"data: [DONE]\n\n"
