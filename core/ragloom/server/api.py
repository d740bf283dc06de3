"""ragloom's own routes: ``/v1/search``, ``/v1/ask`` (JSON or server-sent
events), ``/v1/index`` (admin), ``/healthz`` and ``/readyz``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from .auth import admin_caller, caller
from .errors import ApiError, error_body, from_exception
from .keys import Caller
from .middleware import request_id_of
from .models import (
    AnswerOut,
    AskRequest,
    ErrorOut,
    IndexOut,
    IndexRequest,
    SearchOut,
    SearchRequest,
)
from .service import Service, answer_json, index_json

__all__ = ["ERRORS", "JSON", "router", "service_of"]

router = APIRouter()


class JSON(JSONResponse):
    """JSON with non-JSON metadata values (dates) written as strings."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, default=str).encode("utf-8")


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorOut} for code in codes}


ERRORS = _errors(400, 401, 408, 413, 415, 422, 429, 500, 502, 503, 504)


def service_of(request: Request) -> Service:
    return request.app.state.service  # type: ignore[no-any-return]


@router.get("/healthz", tags=["health"], summary="Liveness: the process answers")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get(
    "/readyz",
    tags=["health"],
    summary="Readiness: the pipeline is open and its index can be queried",
    responses=_errors(503),
)
async def readyz(request: Request) -> dict[str, str]:
    service = service_of(request)
    service.require_ready()
    problem = await asyncio.get_running_loop().run_in_executor(None, service.index_problem)
    if problem is not None:
        raise ApiError(
            "not_ready",
            f"not ready: {problem}",
            headers={"Retry-After": str(service.settings.retry_after)},
        )
    return {"status": "ready"}


@router.post(
    "/v1/search",
    tags=["query"],
    summary="The hits retrieval finds (no generation)",
    response_model=SearchOut,
    responses=ERRORS,
)
async def search(
    body: SearchRequest, request: Request, who: Annotated[Caller, Depends(caller)]
) -> Response:
    service = service_of(request)
    hits = await service.search(
        who, body.query, k=body.k, filters=body.filters, explain=body.explain
    )
    return JSON(service.search_json(body.query, hits))


@router.post(
    "/v1/ask",
    tags=["query"],
    summary="An answer with citations (JSON, or server-sent events with stream: true)",
    response_model=AnswerOut,
    responses={
        **ERRORS,
        200: {
            "description": "The answer; with `stream: true`, `text/event-stream`: `delta` "
            'events ({"text": ...}), then one `answer` event (the body documented here), '
            "or an `error` event.",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
    },
)
async def ask(
    body: AskRequest, request: Request, who: Annotated[Caller, Depends(caller)]
) -> Response:
    service = service_of(request)
    history = [m.model_dump() for m in body.history]
    if not body.stream:
        answer = await service.ask(
            who, body.question, k=body.k, filters=body.filters, history=history, trace=body.trace
        )
        return JSON(answer_json(answer, trace=body.trace))
    deadline = asyncio.get_running_loop().time() + service.settings.request_timeout
    stream = service.stream(who, body.question, k=body.k, filters=body.filters, history=history)
    first = await first_piece(service, stream)  # retrieval errors are plain JSON errors
    return sse(_ask_events(service, stream, first, deadline, request_id_of(request.scope)))


_closing: set[asyncio.Task[None]] = set()


def stop_stream(stream: Any) -> None:
    """Stop ``stream`` without waiting for it: a generator call still at work
    in the thread pool (past the time limit, or the client gone) finishes
    there, as a timed-out search does, while the response ends now."""
    task = asyncio.ensure_future(stream.aclose())
    _closing.add(task)
    task.add_done_callback(_closing.discard)


async def first_piece(service: Service, stream: Any) -> str | None:
    """The first piece of a stream (None if it has none), within the time
    limit; errors before the first piece become ordinary error responses."""
    try:
        return await service.limited(stream.__anext__())
    except StopAsyncIteration:
        return None
    except BaseException:
        stop_stream(stream)
        raise


async def pieces(
    service: Service, stream: Any, first: str | None, deadline: float
) -> AsyncIterator[str]:
    """The stream's pieces, the first one included, until the deadline
    (then ``ApiError("timeout")``); the stream is closed whatever happens."""
    loop = asyncio.get_running_loop()
    ended = first is None
    try:
        if first is None:
            return
        yield first
        while True:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise asyncio.TimeoutError
            try:
                yield await asyncio.wait_for(stream.__anext__(), remaining)
            except StopAsyncIteration:
                ended = True
                return
    except asyncio.TimeoutError:
        raise ApiError(
            "timeout",
            f"the answer took longer than {service.settings.request_timeout:g}s, "
            "the server's time limit",
        ) from None
    finally:
        if ended:
            await stream.aclose()  # its thread is done: nothing to wait for
        else:
            stop_stream(stream)


async def _ask_events(
    service: Service, stream: Any, first: str | None, deadline: float, request_id: str | None
) -> AsyncIterator[str]:
    try:
        async for piece in pieces(service, stream, first, deadline):
            yield _event("delta", {"text": piece})
        if stream.answer is not None:
            yield _event("answer", answer_json(stream.answer))
    except Exception as exc:
        error = from_exception(exc, request_id)
        yield _event("error", error_body(error, request_id))


def _event(name: str, data: Any) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def sse(events: AsyncIterator[str]) -> StreamingResponse:
    return StreamingResponse(
        events,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@router.post(
    "/v1/index",
    tags=["admin"],
    summary="Run an index (admin keys only)",
    response_model=IndexOut,
    responses={**ERRORS, **_errors(403, 409)},
)
async def index(
    body: IndexRequest, request: Request, who: Annotated[Caller, Depends(admin_caller)]
) -> Response:
    service = service_of(request)
    try:
        report = await service.index(who, **body.model_dump())
    except ApiError:
        raise
    except Exception as exc:
        raise from_exception(exc, request_id_of(request.scope), admin=True) from exc
    return JSON(index_json(report))
