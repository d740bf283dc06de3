"""Fixtures of the pinecone plugin's tests: a loopback Pinecone per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ragloom.testing import CONTRACT_DIMENSION
from ragloom.testing.servers import FakePinecone

API_KEY = "pc-test-key"


@pytest.fixture
def pinecone_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakePinecone]:
    """A loopback Pinecone holding an empty cosine index ``contract`` of the
    contract's dimension; ``PINECONE_API_KEY`` set to its key."""
    monkeypatch.setenv("PINECONE_API_KEY", API_KEY)
    with FakePinecone(api_key=API_KEY) as server:
        server.add_index("contract", CONTRACT_DIMENSION)
        yield server
