"""The MCP server: tools ``search`` and ``ask``, the indexed documents as
resources, on the official ``mcp`` SDK (its ``MCPServer``, formerly FastMCP).

Served over stdio (``ragloom mcp``, the caller fixed by its command line)
or over streamable HTTP at ``/mcp`` under ``ragloom serve`` (the caller is
the request's API key). Whose principals a call runs with comes only from
there: no tool takes principals as an argument, so a model can never
widen what it reads.

Tools return structured content (their output schema is in ``tools/list``)
and the same as JSON text for clients that read only text. Documents are
resources ``ragloom://documents/{document_id}``; ``resources/list`` lists
those the caller may read.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import sys
import uuid
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pydantic import BaseModel, Field, StrictInt, StrictStr

from .documents import DocumentUnreadable, list_documents, read_document
from .errors import ApiError
from .keys import Caller
from .middleware import CALLER, request_id_of
from .service import Service, answer_json

if TYPE_CHECKING:
    from mcp.server import MCPServer

__all__ = ["DOCUMENT_URI", "build_mcp_server"]

log = logging.getLogger("ragloom.server.mcp")

DOCUMENT_URI = "ragloom://documents/{+document_id}"

_caller: contextvars.ContextVar[Caller | None] = contextvars.ContextVar(
    "ragloom_mcp_caller", default=None
)
# the call's request id (an HTTP request's, or one drawn for a call on stdio,
# for the log line and the error to share), and whether it came on stdio
_call: contextvars.ContextVar[tuple[str | None, bool]] = contextvars.ContextVar(
    "ragloom_mcp_call", default=(None, False)
)


class McpHit(BaseModel):
    rank: int
    score: float
    label: str = Field(description="Citable label, e.g. docs/pricing.md#pro-plan.")
    source: str
    document_id: str
    chunk_id: str
    text: str
    uri: str = Field(description="The document, as an MCP resource.")


class SearchResult(BaseModel):
    query: str
    corpus_version: int
    hits: list[McpHit]
    degraded: str | None = Field(
        None, description="Why the order skips a stage that failed (the reranker), if it does."
    )


class McpCitation(BaseModel):
    number: int = Field(description="The [n] marker in the answer text.")
    label: str
    source: str
    chunk_id: str
    quote: str
    uri: str


class AskResult(BaseModel):
    answer: str
    grounded: bool = Field(
        description="True when the answer cites a passage it was given; false for a "
        "refusal, and for an answer that cites none (see uncited)."
    )
    uncited: bool = Field(
        False,
        description="True when a model's answer cites no passage: it may come from the "
        "model's own knowledge, not from the documents.",
    )
    truncated: bool = Field(
        False, description="True when the answer was cut off at the generator's max_tokens."
    )
    degraded: bool = Field(
        description="True when generation failed and the best passages are given."
    )
    corpus_version: int | None
    citations: list[McpCitation]
    retrieval_degraded: str | None = Field(
        None, description="Why the passages skip a stage that failed (the reranker), if so."
    )


def document_uri(document_id: str) -> str:
    return "ragloom://documents/" + quote(document_id, safe="/:@-._~")


def current_caller() -> Caller:
    caller = _caller.get()
    if caller is None:  # pragma: no cover - the middleware always sets one or refuses
        raise PermissionError("no caller")
    return caller


def build_mcp_server(service: Service, *, caller: Caller | None = None) -> MCPServer:
    """An MCP server over ``service``. ``caller`` is who every request is over
    stdio; over HTTP, each request's caller comes from its API key (set on
    the request by the server's authentication) and a request without one is
    refused."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError
    from mcp.server.mcpserver.resources.templates import ResourceSecurity
    from mcp.shared.exceptions import MCPError
    from mcp_types import CallToolResult, Resource, TextContent

    from .. import __version__

    async def in_pool(func: Any, *args: Any) -> Any:
        return await service.limited(
            asyncio.get_running_loop().run_in_executor(service.pipeline.executor, func, *args)
        )

    class RagloomMCP(MCPServer):  # type: ignore[type-arg]
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            """Arguments that do not fit a tool's schema are a ``validation_error``
            result in one line, as the HTTP API says it, not the SDK's text of
            pydantic's error (its type codes and a link to its site)."""
            from mcp.server.mcpserver.exceptions import ToolError
            from pydantic import ValidationError

            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if not isinstance(cause, ValidationError):
                    raise
                said = "; ".join(
                    f"{'.'.join(str(part) for part in error['loc'])}: {error['msg']}"
                    for error in cause.errors(include_url=False)
                )
                text = f"validation_error: {said}"
                return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)

        async def list_resources(self) -> list[Resource]:
            who = current_caller()
            service.require_ready()
            documents = await in_pool(list_documents, service.pipeline, who.principal_list)
            return [
                Resource(
                    uri=document_uri(d.id),
                    name=d.id,
                    description=f"{d.source} ({d.chunks} passage(s) indexed)",
                    mime_type="text/plain",
                )
                for d in documents
            ]

    server = RagloomMCP(
        "ragloom",
        version=__version__,
        instructions=(
            "Search and ask the documents indexed by this ragloom pipeline. `ask` answers "
            "with numbered citations of passages it retrieved; `search` returns the passages. "
            "Each document is a resource ragloom://documents/{id}."
        ),
        log_level="WARNING",
    )

    async def who_is_calling(ctx: Any, call_next: Any) -> Any:
        request = ctx.request
        if request is None:  # stdio: the caller of the command line
            who = caller
            call = (uuid.uuid4().hex[:16], True)
        else:
            scope = getattr(request, "scope", None)
            who = scope.get(CALLER) if isinstance(scope, dict) else None
            call = (request_id_of(scope) if isinstance(scope, dict) else None, False)
        if who is None:
            raise MCPError(code=-32001, message="unauthorized: this server needs an API key")
        token = _caller.set(who)
        call_token = _call.set(call)
        try:
            return await call_next(ctx)
        finally:
            _call.reset(call_token)
            _caller.reset(token)

    server.middleware.append(who_is_calling)

    def tool_error(exc: Exception) -> Any:
        """A failed call, its text starting with the HTTP API's error code. It
        is returned, not raised: the SDK puts "Error executing tool NAME: "
        before the text of a raised ``ToolError``, so a client reading the
        code at its start would find none. On stdio it says why the index
        cannot be queried: the log it would point to is the subprocess's
        stderr, which the agent's host may not keep."""
        if not isinstance(exc, ApiError):
            from .errors import from_exception

            request_id, local = _call.get()
            exc = from_exception(exc, request_id, local=local)
        text = f"{exc.code}: {exc.message}"
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)

    @server.tool(title="Search the documents")
    async def search(
        query: StrictStr, k: StrictInt = 5, filters: dict[str, Any] | None = None
    ) -> SearchResult:
        """The passages of the indexed documents that best match `query`, best first, each
        with its citable label and the URI of its document. `filters` is a metadata filter
        such as {"year": {"$gte": 2024}}."""
        try:
            hits = await service.search(current_caller(), query, k=k, filters=filters)
        except Exception as exc:
            return tool_error(exc)
        return SearchResult(
            query=query,
            corpus_version=hits.corpus_version,
            hits=[
                McpHit(
                    rank=rank,
                    score=float(h.score),
                    label=h.chunk.label,
                    source=h.chunk.source,
                    document_id=h.chunk.document_id,
                    chunk_id=h.chunk.id,
                    text=h.chunk.text,
                    uri=document_uri(h.chunk.document_id),
                )
                for rank, h in enumerate(hits, 1)
            ],
            degraded=hits.degraded or None,
        )

    @server.tool(title="Ask the documents")
    async def ask(
        question: StrictStr, k: StrictInt | None = None, filters: dict[str, Any] | None = None
    ) -> AskResult:
        """An answer to `question` from the indexed documents, with numbered citations ([1])
        of the passages it used. When the documents do not hold the answer, it says so
        (grounded is false)."""
        try:
            answer = await service.ask(current_caller(), question, k=k, filters=filters)
        except Exception as exc:
            return tool_error(exc)
        data = answer_json(answer)
        uris = {
            c.chunk_id: document_uri(h.chunk.document_id)
            for c in answer.citations
            for h in answer.hits
            if h.chunk.id == c.chunk_id
        }
        return AskResult(
            answer=data["answer"],
            grounded=data["grounded"],
            uncited=data["uncited"],
            truncated=data["truncated"],
            degraded=data["degraded"],
            corpus_version=data["corpus_version"],
            citations=[
                McpCitation(**c, uri=uris.get(c["chunk_id"], "")) for c in data["citations"]
            ],
            retrieval_degraded=data.get("retrieval_degraded"),
        )

    @server.resource(
        DOCUMENT_URI,
        name="document",
        description="An indexed document, as its passages were indexed.",
        mime_type="text/plain",
        security=ResourceSecurity(exempt_params={"document_id"}),
    )
    async def document(document_id: str) -> str:
        who = current_caller()
        try:
            service.require_ready()
            found = await in_pool(read_document, service.pipeline, document_id, who.principal_list)
        except DocumentUnreadable as exc:
            raise ResourceError(str(exc)) from exc
        except ApiError as exc:
            raise ResourceError(f"{exc.code}: {exc.message}") from exc
        if found is None:
            raise ResourceError(f"no indexed document {document_id!r}")
        return found[1]

    return server


async def run_stdio(service: Service, caller: Caller) -> None:
    """Open the pipeline and serve MCP on stdin/stdout until the client leaves."""
    server = build_mcp_server(service, caller=caller)
    # what components print while they open goes to stderr, not into the
    # protocol (the SDK diverts stdout itself once it serves)
    with contextlib.redirect_stdout(sys.stderr):
        await service.open()
    try:
        await server.run_stdio_async()
    finally:
        await service.close()
