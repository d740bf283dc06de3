"""Who is calling: the caller of a request, from its API key.

A request presents its key as ``Authorization: Bearer KEY`` (what OpenAI
SDKs send) or ``X-API-Key: KEY``. No key, or a key the server does not
know, is 401 ``unauthorized``, whatever the route (``/healthz``,
``/readyz`` and the OpenAPI schema excepted). A path that is no route is
404 ``not_found`` with or without a key: the routes are no secret (the
OpenAPI schema lists them), and a client with a typo learns that first. The caller's principals feed
the pipeline's access filter; nothing in a request body can change them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from .errors import ApiError
from .keys import Caller, KeyRing, parse_key_header
from .middleware import CALLER

__all__ = ["ANONYMOUS", "Authenticator", "admin_caller", "caller", "not_admin"]

ANONYMOUS = "anonymous"
"""The caller's name of every request to ``ragloom serve --no-auth``."""

_bearer = HTTPBearer(auto_error=False, description="An API key from the server's keys file.")
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False, description="The same, as a header.")


@dataclass(frozen=True)
class Authenticator:
    """The server's keys; or, with ``anonymous`` (``ragloom serve --no-auth``),
    no keys at all and one caller for every request."""

    keys: KeyRing
    anonymous: Caller | None = None

    def authenticate(self, authorization: str | None, api_key: str | None) -> Caller:
        if self.anonymous is not None:
            return self.anonymous
        if not authorization and not api_key:
            raise _unauthorized("no API key: send `Authorization: Bearer KEY` or `X-API-Key: KEY`")
        caller = self.keys.authenticate(parse_key_header(authorization, api_key))
        if caller is None:
            raise _unauthorized("the API key is not valid")
        return caller

    def of_scope(self, scope: Any) -> Caller:
        """Authenticate an ASGI request (for routes outside FastAPI: ``/mcp``),
        once: the concurrency limit authenticates it before its route does."""
        found = scope.get(CALLER)
        if found is not None:
            return found  # type: ignore[no-any-return]
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", ())}
        caller = self.authenticate(headers.get("authorization"), headers.get("x-api-key"))
        scope[CALLER] = caller
        return caller


def _unauthorized(message: str) -> ApiError:
    return ApiError("unauthorized", message, headers={"WWW-Authenticate": "Bearer"})


async def caller(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    api_key: Annotated[str | None, Depends(_api_key)],
) -> Caller:
    """FastAPI dependency: the request's caller (401 without a valid key)."""
    authenticator: Authenticator = request.app.state.authenticator
    return authenticator.of_scope(request.scope)


async def admin_caller(found: Annotated[Caller, Depends(caller)]) -> Caller:
    """FastAPI dependency: the caller, who must be an admin (403 otherwise)."""
    if not found.admin:
        raise not_admin(found)
    return found


def not_admin(caller: Caller) -> ApiError:
    """The 403 for an index run asked by a caller who is no admin."""
    if caller.name == ANONYMOUS:  # `serve --no-auth`: no key could be given
        return ApiError(
            "forbidden",
            "index runs over HTTP need an admin key, and this server runs with --no-auth: "
            "run `ragloom index` where the server runs (with a store one process holds at "
            "a time, such as an embedded Qdrant, stop the server for the run), or serve "
            "with --keys and a key with admin: true",
        )
    return ApiError("forbidden", f"the key {caller.name!r} may not index: it needs admin: true")
