"""``ragloom serve``: a pipeline behind an HTTP API, an OpenAI-compatible
chat endpoint and an MCP server (the extras ``ragloom[server]`` and
``ragloom[mcp]``).

    import ragloom
    from ragloom.server import Caller, KeyRing, ServerSettings, create_app

    pipeline = ragloom.load("ragloom.yaml")
    keys = KeyRing.of({"ragloom-...": Caller("alice", principals=("group:eng",))})
    app = create_app(pipeline, settings=ServerSettings(), keys=keys)  # any ASGI server

Importing this package imports neither FastAPI nor the MCP SDK;
``create_app`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .keys import Caller, KeyRing, generate_key, hash_key, load_keys
from .settings import ServerSettings

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = [
    "Caller",
    "KeyRing",
    "ServerSettings",
    "create_app",
    "generate_key",
    "hash_key",
    "load_keys",
]


def create_app(*args: Any, **kwargs: Any) -> FastAPI:
    """The ASGI app (see :func:`ragloom.server.app.create_app`)."""
    from .app import create_app as create

    return create(*args, **kwargs)
