"""OpenAI-compatible chat: ``POST /v1/chat/completions`` and ``GET /v1/models`` (and
``/v1/models/{id}``).

The last message, a user's, is the question; the user and assistant
messages before it are the history; system and developer messages are
ignored (the pipeline's generator config has its own instructions). The
answer is the message's content, followed by its sources::

    The Pro plan costs $29 per user per month [1].

    Sources:
    [1] docs/pricing.md#pro-plan

and the citations come in full in the response's extra field ``citations``
(in a stream: on the last chunk), next to ``ragloom`` (``grounded``,
``degraded``, ``corpus_version``). ``usage`` counts words, not tokens.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from .. import __version__
from .api import ERRORS, JSON, first_piece, pieces, service_of, sse
from .auth import caller
from .errors import ApiError, error_body, from_exception
from .keys import Caller
from .middleware import request_id_of
from .models import MAX_TEXT, ChatCompletionRequest, ChatMessage
from .service import Service, citations_json

__all__ = ["router", "sources_footer"]

router = APIRouter(tags=["openai"])

_UNSUPPORTED = ("tools", "functions", "tool_choice", "function_call")


def _model(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "ragloom"}


@router.get("/v1/models", summary="The one model this server offers (OpenAI-compatible)")
async def models(request: Request, who: Annotated[Caller, Depends(caller)]) -> Response:
    service = service_of(request)
    return JSON({"object": "list", "data": [_model(service.settings.model)]})


@router.get(
    "/v1/models/{model_id}",
    summary="The model, by its id (OpenAI-compatible: the SDK's models.retrieve)",
    responses={404: ERRORS[400]},
)
async def model(
    request: Request, model_id: str, who: Annotated[Caller, Depends(caller)]
) -> Response:
    name = service_of(request).settings.model
    if model_id != name:
        raise ApiError(
            "model_not_found", f"this server offers one model, {name!r}, not {model_id!r}"
        )
    return JSON(_model(name))


@router.post(
    "/v1/chat/completions",
    summary="Chat with the pipeline (OpenAI-compatible; stream: true for chunks)",
    responses={
        **ERRORS,
        404: ERRORS[400],
        200: {
            "description": "A `chat.completion`, or with `stream: true` `chat.completion.chunk` "
            "server-sent events ending in `data: [DONE]`. Extra fields: `citations` and `ragloom`.",
            "content": {
                "application/json": {"schema": {"type": "object"}},
                "text/event-stream": {"schema": {"type": "string"}},
            },
        },
    },
)
async def chat_completions(
    body: ChatCompletionRequest, request: Request, who: Annotated[Caller, Depends(caller)]
) -> Response:
    service = service_of(request)
    if body.model != service.settings.model:
        raise ApiError(
            "model_not_found",
            f"this server offers one model, {service.settings.model!r}, not {body.model!r}",
            param="model",
        )
    extra = body.model_extra or {}
    for name in _UNSUPPORTED:
        if extra.get(name):
            raise ApiError("unsupported", f"{name} are not supported by ragloom", param=name)
    if body.n is not None and body.n > 1:
        raise ApiError("unsupported", "n above 1 is not supported: one answer each", param="n")
    response_format = extra.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") not in (None, "text"):
        raise ApiError("unsupported", "only text responses are supported", param="response_format")
    question, history = _conversation(body.messages)
    options = body.ragloom
    k = options.k if options else None
    filters = options.filters if options else None
    completion_id = "chatcmpl-" + uuid.uuid4().hex
    created = int(time.time())
    if not body.stream:
        answer = await service.ask(who, question, k=k, filters=filters, history=history)
        content = answer.text + sources_footer(answer)
        return JSON(
            {
                "id": completion_id,
                "object": "chat.completion",
                "created": created,
                "model": body.model,
                "system_fingerprint": f"ragloom-{__version__}",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content, "refusal": None},
                        "logprobs": None,
                        "finish_reason": _finish(answer),
                    }
                ],
                "usage": _usage(question, history, content),
                "citations": citations_json(answer),
                "ragloom": _extra(answer),
            }
        )
    deadline = asyncio.get_running_loop().time() + service.settings.request_timeout
    stream = service.stream(who, question, k=k, filters=filters, history=history)
    first = await first_piece(service, stream)
    include_usage = bool(body.stream_options and body.stream_options.include_usage)
    chunk = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": body.model,
        "system_fingerprint": f"ragloom-{__version__}",
    }
    return sse(
        _chunks(
            service,
            stream,
            first,
            deadline,
            chunk,
            include_usage,
            (question, history),
            request_id_of(request.scope),
        )
    )


async def _chunks(
    service: Service,
    stream: Any,
    first: str | None,
    deadline: float,
    chunk: dict[str, Any],
    include_usage: bool,
    asked: tuple[str, list[dict[str, str]]],
    request_id: str | None,
) -> AsyncIterator[str]:
    def data(choices: list[dict[str, Any]], **extra: Any) -> str:
        return f"data: {json.dumps({**chunk, 'choices': choices, **extra}, default=str)}\n\n"

    def delta(content: str | None = None, role: str | None = None) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if role:
            d["role"] = role
        if content is not None:
            d["content"] = content
        return {"index": 0, "delta": d, "logprobs": None, "finish_reason": None}

    written: list[str] = []
    try:
        yield data([delta("", role="assistant")])
        async for piece in pieces(service, stream, first, deadline):
            written.append(piece)
            yield data([delta(piece)])
        answer = stream.answer
        extra: dict[str, Any] = {}
        if answer is not None:
            footer = sources_footer(answer)
            if footer:
                written.append(footer)
                yield data([delta(footer)])
            extra = {"citations": citations_json(answer), "ragloom": _extra(answer)}
        finish = _finish(answer) if answer is not None else "stop"
        yield data([{"index": 0, "delta": {}, "logprobs": None, "finish_reason": finish}], **extra)
        if include_usage:
            yield data([], usage=_usage(asked[0], asked[1], "".join(written)))
        yield "data: [DONE]\n\n"
    except Exception as exc:
        error = from_exception(exc, request_id)
        yield f"data: {json.dumps(error_body(error, request_id))}\n\n"


def sources_footer(answer: Any) -> str:
    """What the message says after the answer: ``Sources:`` and one ``[n] label`` a line."""
    if not answer.citations:
        return ""
    lines = "\n".join(f"[{c.number}] {c.label}" for c in answer.citations)
    return f"\n\nSources:\n{lines}"


def _finish(answer: Any) -> str:
    """OpenAI's ``finish_reason``: ``length`` for an answer ``max_tokens`` cut off."""
    return "length" if answer.metadata.get("truncated") else "stop"


def _extra(answer: Any) -> dict[str, Any]:
    out = {
        "grounded": answer.grounded,
        "uncited": bool(answer.metadata.get("uncited")),
        "truncated": bool(answer.metadata.get("truncated")),
        "degraded": answer.degraded,
        "cached": bool(answer.metadata.get("cached")),
        "corpus_version": answer.metadata.get("corpus_version"),
    }
    if answer.metadata.get("retrieval_degraded"):
        out["retrieval_degraded"] = answer.metadata["retrieval_degraded"]
    return out


def _text(message: ChatMessage) -> str:
    content = message.content
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if part.type != "text" or part.text is None:
            raise ApiError(
                "unsupported",
                f"content parts of type {part.type!r} are not supported (only text)",
                param="messages",
            )
        parts.append(part.text)
    return "\n".join(parts)


def _conversation(messages: list[ChatMessage]) -> tuple[str, list[dict[str, str]]]:
    """The question (the last message, a user's) and the history before it."""
    if messages[-1].role != "user":
        raise ApiError("invalid_request", "the last message must be the user's", param="messages")
    history: list[dict[str, str]] = []
    for message in messages[:-1]:
        if message.role == "tool":
            raise ApiError("unsupported", "tool messages are not supported", param="messages")
        if message.role in ("user", "assistant"):
            text = _text(message)
            if len(text) > MAX_TEXT:  # as /v1/ask's history
                raise ApiError(
                    "invalid_request",
                    f"a {message.role} message has {len(text):,} characters; at most {MAX_TEXT:,}",
                    param="messages",
                )
            if text.strip():
                history.append({"role": message.role, "content": text})
    question = _text(messages[-1])
    if not question.strip() or "\x00" in question:
        raise ApiError("invalid_request", "the last user message is empty", param="messages")
    if len(question) > MAX_TEXT:
        raise ApiError("invalid_request", "the last user message is too long", param="messages")
    return question, history


def _usage(question: str, history: list[dict[str, str]], content: str) -> dict[str, int]:
    prompt = len(question.split()) + sum(len(m["content"].split()) for m in history)
    completion = len(content.split())
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
