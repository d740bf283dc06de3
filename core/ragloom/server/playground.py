"""The retrieval playground: one page at ``/``, its assets at ``/static``
(shipped in the package, no build step, no CDN), and two small routes it
needs beside ``/v1/search`` and ``/v1/ask``:

- ``GET /v1/playground/me``: the caller of the key (name, principals,
  admin), for the page's "search as" choice;
- ``POST /v1/playground/filter``: checks a filter typed as JSON text and
  answers ``{"ok": true, "filter": ...}`` or ``{"ok": false, "error": ...}``
  with the command line's own messages (``--filter``), as a 200, so the page
  shows the problem inline before it sends anything;
- ``POST /v1/playground/search`` and ``POST /v1/playground/ask``: the same
  bodies and answers as ``/v1/search`` and ``/v1/ask``, with ``?as=PRINCIPAL``
  to run as one of the key's own principals (never a wider set: a principal
  the key does not have is refused with 403);
- ``GET /v1/playground/evals`` and ``POST /v1/playground/eval``: the eval
  files the server allows (``--eval-file``), and one of them run by name
  with the key's principals (``evals.py``), also with ``?as=``.

The page itself needs no key (it holds no data); every data route does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from ..cli_support import parse_filter_json
from ..errors import FilterError
from . import api
from .auth import caller
from .errors import ApiError
from .evals import EvalFiles, run_eval
from .keys import Caller
from .models import (
    MAX_TEXT,
    AnswerOut,
    AskRequest,
    ErrorOut,
    EvalFilesOut,
    EvalOut,
    EvalRequest,
    SearchOut,
    SearchRequest,
)

__all__ = ["STATIC", "install", "router"]

STATIC = Path(__file__).parent / "static"

router = APIRouter()

AS_ERRORS = {**api.ERRORS, 403: {"model": ErrorOut}}
ASK_200 = {
    "description": "As /v1/ask: JSON, or with `stream: true` server-sent events.",
    "content": {"text/event-stream": {"schema": {"type": "string"}}},
}

AsPrincipal = Annotated[
    str | None,
    Query(alias="as", max_length=200, description="Run as this one principal of the key."),
]


def acting_as(who: Caller, principal: str | None) -> Caller:
    """``who`` narrowed to ``principal`` (one of its own), or ``who`` itself."""
    if not principal:
        return who
    if who.principals is not None and principal not in who.principals:
        raise ApiError("forbidden", f"this key may not act as {principal!r}", param="as")
    return Caller(who.name, (principal,), admin=False)


@router.get("/", include_in_schema=False)
async def page() -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


@router.get(
    "/v1/playground/me", tags=["playground"], summary="Who the key is", responses=api.ERRORS
)
async def me(who: Annotated[Caller, Depends(caller)]) -> dict[str, object]:
    return {"name": who.name, "principals": who.principal_list, "admin": who.admin}


class FilterText(BaseModel):
    text: str = Field(max_length=MAX_TEXT, description="The filter as JSON text.")


@router.post(
    "/v1/playground/filter", tags=["playground"], summary="Check a filter", responses=api.ERRORS
)
async def check_filter(
    body: FilterText, request: Request, who: Annotated[Caller, Depends(caller)]
) -> dict[str, object]:
    try:
        data = parse_filter_json(body.text.strip())
        # as /v1/search would: a field it may not test is said here too
        api.service_of(request).check_filters(data)
    except FilterError as exc:
        return {"ok": False, "error": str(exc)}
    return {"ok": True, "filter": data}


@router.post(
    "/v1/playground/search",
    tags=["playground"],
    summary="/v1/search, optionally as one of the key's principals",
    response_model=SearchOut,
    responses=AS_ERRORS,
)
async def search_as(
    body: SearchRequest,
    request: Request,
    who: Annotated[Caller, Depends(caller)],
    principal: AsPrincipal = None,
) -> Response:
    return await api.search(body, request, acting_as(who, principal))


@router.post(
    "/v1/playground/ask",
    tags=["playground"],
    summary="/v1/ask, optionally as one of the key's principals",
    response_model=AnswerOut,
    responses={**AS_ERRORS, 200: ASK_200},
)
async def ask_as(
    body: AskRequest,
    request: Request,
    who: Annotated[Caller, Depends(caller)],
    principal: AsPrincipal = None,
) -> Response:
    return await api.ask(body, request, acting_as(who, principal))


def evals_of(request: Request) -> EvalFiles:
    return request.app.state.evals  # type: ignore[no-any-return]


@router.get(
    "/v1/playground/evals",
    tags=["playground"],
    summary="The eval files this server allows",
    response_model=EvalFilesOut,
    responses=api.ERRORS,
)
async def eval_files(request: Request, who: Annotated[Caller, Depends(caller)]) -> Response:
    return api.JSON({"files": evals_of(request).describe()})


@router.post(
    "/v1/playground/eval",
    tags=["playground"],
    summary="Run an allowed eval file, optionally as one of the key's principals",
    response_model=EvalOut,
    responses={**AS_ERRORS, 404: {"model": ErrorOut}},
)
async def run_eval_file(
    body: EvalRequest,
    request: Request,
    who: Annotated[Caller, Depends(caller)],
    principal: AsPrincipal = None,
) -> Response:
    narrowed = acting_as(who, principal)
    report = await run_eval(api.service_of(request), evals_of(request), body.file, narrowed)
    return api.JSON(report)


def install(app: FastAPI) -> None:
    """Add the playground's routes and static assets to ``app``."""
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
