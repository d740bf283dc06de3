"""Fixtures: a plugin manager with this plugin only, a private embedding
cache per test, and no network (a Qdrant server is reached only by the
integration tests, at $QDRANT_URL)."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pluggy
import pytest
from ragloom.plugins import build_plugin_manager

import ragloom_qdrant.plugin as qdrant_plugin

pytest.register_assert_rewrite("ragloom.testing")

QDRANT_URL = os.environ.get("QDRANT_URL")


@pytest.fixture
def pm() -> pluggy.PluginManager:
    """The built-ins and this plugin, whatever else is installed."""
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(qdrant_plugin, name="qdrant")
    return pm


@pytest.fixture(autouse=True)
def private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Each test gets its own embedding cache, never the user's."""
    path = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("RAGLOOM_CACHE_DIR", str(path))
    monkeypatch.delenv("QDRANT_API_KEY", raising=False)
    return path


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Hermetic tests: a connection off this machine fails at once."""
    local = {"127.0.0.1", "::1", "localhost", None}
    if QDRANT_URL:
        from urllib.parse import urlparse

        local.add(urlparse(QDRANT_URL).hostname)
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: object) -> object:
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and host not in local and self.family != socket.AF_UNIX:
            raise OSError(f"tests may not reach the network (tried {address})")
        return real_connect(self, address)

    def getaddrinfo(host: object, *args: object, **kwargs: object) -> object:
        if host not in local:
            raise socket.gaierror(socket.EAI_NONAME, f"tests may not resolve {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield
