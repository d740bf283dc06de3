"""The pinecone store against ragloom's store contract, on a loopback Pinecone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from ragloom.testing import DenseStoreContract
from ragloom.testing.servers import FakePinecone

from ragloom_pinecone import PineconeStore


def factory(server: FakePinecone, **options: Any) -> Callable[[Path], PineconeStore]:
    def make(path: Path) -> PineconeStore:
        store = PineconeStore(
            index="contract", controller_host=server.url, namespace="ns", **options
        )
        store._sleep = lambda seconds: None
        return store

    return make


class TestPineconeStore(DenseStoreContract):
    """Text kept in the record's metadata (the default)."""

    @pytest.fixture
    def store_factory(self, pinecone_server: FakePinecone) -> Callable[[Path], PineconeStore]:
        return factory(pinecone_server)


class TestPineconeStoreByHostTextInFolder(DenseStoreContract):
    """Addressed by host, in the default namespace, vectors returned with hits, and
    ``store_text: none``: texts in texts.sqlite under the index folder."""

    @pytest.fixture
    def store_factory(self, pinecone_server: FakePinecone) -> Callable[[Path], PineconeStore]:
        host = pinecone_server.index_host("contract")
        return lambda path: PineconeStore(host=host, return_vectors=True, store_text="none")
