"""Fixtures of the cohere plugin's tests: a loopback Cohere per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ragloom.testing.servers import FakeCohere

API_KEY = "co-test-key"


@pytest.fixture
def cohere_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeCohere]:
    """A loopback Cohere; ``CO_API_KEY`` holds its key, ``COHERE_API_KEY`` is unset."""
    monkeypatch.setenv("CO_API_KEY", API_KEY)
    monkeypatch.delenv("COHERE_API_KEY", raising=False)
    with FakeCohere(api_key=API_KEY) as server:
        yield server
