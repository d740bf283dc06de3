"""The ASGI application of ``ragloom serve``: :func:`create_app`.

One pipeline per process: opened when the app starts (``/readyz`` answers
503 until it is open), closed when it stops. Every route of ``/v1`` and
``/mcp`` needs an API key; ``/healthz``, ``/readyz``, ``/openapi.json`` and
``/docs`` do not. ``/`` serves the playground page (``playground.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from .auth import Authenticator
from .errors import ApiError, error_body, from_exception
from .evals import EvalFiles
from .keys import Caller, KeyRing
from .middleware import (
    BodyLimit,
    BodyTooLarge,
    ConcurrencyLimit,
    RequestLog,
    request_id_of,
    send_error,
)
from .service import Service
from .settings import ServerSettings

if TYPE_CHECKING:
    from ..pipeline import Pipeline

__all__ = ["create_app"]

log = logging.getLogger("ragloom.server")

LIMITED = ("/v1/", "/mcp")


def create_app(
    pipeline: Pipeline,
    *,
    settings: ServerSettings | None = None,
    keys: KeyRing | None = None,
    anonymous: Caller | None = None,
    on_open_failure: Callable[[BaseException], None] | None = None,
) -> FastAPI:
    """The HTTP API over ``pipeline``.

    :param keys: the API keys and their callers. Required unless ``anonymous``.
    :param anonymous: serve without keys, every request as this caller
        (``ragloom serve --no-auth``).
    :param on_open_failure: called when the pipeline fails to open (the
        command line stops the server); the app keeps answering 503.

    Raises ``ValueError`` when two of ``settings.eval_files`` share a name,
    and ``ConfigValidationError`` when one is not a valid test set.
    """
    settings = settings or ServerSettings()
    if keys is None and anonymous is None:
        raise ValueError("give keys=KeyRing(...) or anonymous=Caller(...)")
    evals = EvalFiles.of(settings.eval_files)
    service = Service(pipeline, settings)
    mcp_server = _mcp(service, settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async def open_pipeline() -> None:
            try:
                await service.open()
            except Exception as exc:
                if on_open_failure is not None:
                    on_open_failure(exc)

        opening = asyncio.create_task(open_pipeline())
        async with contextlib.AsyncExitStack() as stack:
            if mcp_server is not None:
                await stack.enter_async_context(mcp_server.session_manager.run())
            try:
                yield
            finally:
                opening.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await opening
                await service.close()

    docs_assets = _docs_assets()
    app = FastAPI(
        title="ragloom",
        version=__version__,
        description="Search and ask the documents indexed by a ragloom pipeline, with "
        "citations. Authenticate with `Authorization: Bearer KEY` or `X-API-Key: KEY`.",
        lifespan=lifespan,
        docs_url=None if docs_assets is not None else "/docs",  # else from a CDN
        redoc_url=None,
        openapi_url="/openapi.json",
        # "/v1/search/" is no route (404 JSON), not a redirect built from the
        # client's Host header, with an empty body
        redirect_slashes=False,
    )
    app.state.service = service
    app.state.authenticator = Authenticator(keys or KeyRing(), anonymous)
    app.state.settings = settings
    app.state.evals = evals

    from .api import router as api_router
    from .chat import router as chat_router

    app.include_router(api_router)
    app.include_router(chat_router)
    from .playground import install as install_playground

    install_playground(app)
    if docs_assets is not None:
        _install_docs(app, docs_assets)
    if mcp_server is not None:
        _mount_mcp(app, mcp_server, settings)
    _install_error_handlers(app)
    _complete_schema(app)
    # added last = outermost: RequestLog, then ConcurrencyLimit, then BodyLimit
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes, timeout=settings.request_timeout)
    app.add_middleware(
        ConcurrencyLimit,
        limit=settings.max_concurrency,
        retry_after=settings.retry_after,
        prefixes=LIMITED,
    )
    app.add_middleware(RequestLog)
    return app


def _complete_schema(app: FastAPI) -> None:
    """``/openapi.json`` with the statuses the layers around the routes answer
    on each operation: 401 where a key is required, 429 on the limited paths
    (``--max-concurrency``), 408 and 413 where a body is read (``--timeout``,
    ``--max-body``). A route declares only what it raises itself."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = generate()
        error = {
            "description": "An error (see `code`)",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}},
        }
        for path, operations in schema.get("paths", {}).items():
            for operation in operations.values():
                responses = operation.setdefault("responses", {})
                added = []
                if operation.get("security"):
                    added.append("401")
                if path.startswith(LIMITED):
                    added.append("429")
                if "requestBody" in operation:
                    added += ["408", "413"]
                for code in added:
                    responses.setdefault(code, error)
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def _docs_assets() -> Path | None:
    """Swagger UI's script and style as the ``fastapi-offline`` package ships
    them (``ragloom[server]`` installs it), so that ``/docs`` works on a
    machine that reaches no CDN; None without it (FastAPI's page, which
    loads them from a CDN)."""
    try:
        spec = importlib.util.find_spec("fastapi_offline")
    except ValueError:  # pragma: no cover - a broken install
        return None
    folders = [] if spec is None else list(spec.submodule_search_locations or ())
    for folder in folders:
        static = Path(folder) / "static"
        if (static / "swagger-ui-bundle.js").is_file() and (static / "swagger-ui.css").is_file():
            return static
    return None


def _install_docs(app: FastAPI, assets: Path) -> None:
    """``/docs``: Swagger UI over ``/openapi.json``, its files served from
    ``/docs/assets`` (no CDN)."""
    from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
    from fastapi.staticfiles import StaticFiles

    app.mount("/docs/assets", StaticFiles(directory=assets), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=f"{root}/docs/oauth2-redirect",
            swagger_js_url=f"{root}/docs/assets/swagger-ui-bundle.js",
            swagger_css_url=f"{root}/docs/assets/swagger-ui.css",
            swagger_favicon_url=f"{root}/docs/assets/favicon.png",
        )

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    async def oauth2_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()


def _mcp(service: Service, settings: ServerSettings) -> Any:
    if not settings.mcp:
        return None
    try:
        import mcp  # noqa: F401
    except ImportError:
        log.info("MCP is not served at /mcp: install ragloom[mcp]")
        return None
    from .mcp import build_mcp_server

    return build_mcp_server(service)


def _mount_mcp(app: FastAPI, server: Any, settings: ServerSettings) -> None:
    """Streamable HTTP at ``/mcp``, behind the API keys."""
    from mcp.server.transport_security import TransportSecuritySettings

    local = settings.host in ("127.0.0.1", "localhost", "::1")
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=local,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"] if local else [],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
        if local
        else [],
    )
    sub = server.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        transport_security=security,
        max_request_body_size=settings.max_body_bytes,
        host=settings.host,
    )
    authenticator: Authenticator = app.state.authenticator
    for route in sub.routes:
        endpoint = route.app  # the SDK's ASGI app for the path

        async def guarded(scope: Any, receive: Any, send: Any, _inner: Any = endpoint) -> None:
            try:
                authenticator.of_scope(scope)
                if scope.get("method") == "GET":
                    # the SDK answers GET with an event stream for messages the
                    # server starts, which a stateless server never sends: the
                    # stream would only hold a slot of --max-concurrency, past
                    # --timeout. The MCP spec lets a server answer 405 instead.
                    raise ApiError(
                        "method_not_allowed",
                        "this MCP endpoint is stateless: POST requests to it",
                        headers={"Allow": "POST, DELETE"},
                    )
            except ApiError as error:
                await send_error(send, scope, error)
                return
            await _inner(scope, receive, send)

        route.app = guarded
        app.router.routes.append(route)


def _install_error_handlers(app: FastAPI) -> None:
    def respond(request: Request, error: ApiError) -> JSONResponse:
        return JSONResponse(
            error_body(error, request_id_of(request.scope)),
            status_code=error.status,
            headers=error.headers,
        )

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return respond(request, exc)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [
            {
                "loc": [str(p) for p in e.get("loc", ())],
                "msg": e.get("msg", ""),
                "type": e.get("type", ""),
            }
            for e in exc.errors()
        ]
        if any(p["type"] == "json_invalid" for p in problems):
            return respond(request, ApiError("invalid_json", "the body is not valid JSON"))
        sent = request.headers.get("content-type", "")
        if any(p["loc"] == ["body"] for p in problems) and "json" not in sent.lower():
            # `curl -d '{...}'` sends form data: the JSON was never read as JSON
            said = f"as {sent.split(';')[0]}" if sent else "without a Content-Type"
            return respond(
                request,
                ApiError(
                    "unsupported_media_type",
                    f"the body was sent {said}: send it as JSON, with "
                    "`Content-Type: application/json` (curl: -H 'Content-Type: application/json')",
                ),
            )
        first = problems[0] if problems else {"loc": [], "msg": "invalid"}
        where = ".".join(first["loc"][1:] if first["loc"][:1] == ["body"] else first["loc"])
        message = f"{where}: {first['msg']}" if where else first["msg"]
        return respond(request, ApiError("validation_error", message, details=problems))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            error = ApiError("not_found", f"no route {request.url.path}")
        elif exc.status_code == 405:
            error = ApiError("method_not_allowed", f"{request.method} is not allowed here")
        elif exc.status_code == 415:
            error = ApiError("unsupported_media_type", "send application/json")
        elif exc.status_code < 500:
            error = ApiError("invalid_request", str(exc.detail))
        else:
            error = from_exception(exc, request_id_of(request.scope))
        return respond(request, error)

    @app.exception_handler(BodyTooLarge)
    async def too_large(request: Request, exc: BodyTooLarge) -> JSONResponse:
        limit = request.app.state.settings.max_body_bytes
        return respond(
            request, ApiError("body_too_large", f"the request body is larger than {limit} bytes")
        )

    @app.exception_handler(RecursionError)
    async def too_deep(request: Request, exc: RecursionError) -> JSONResponse:
        return respond(request, ApiError("invalid_json", "the body nests too deeply"))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        return respond(request, from_exception(exc, request_id_of(request.scope)))
