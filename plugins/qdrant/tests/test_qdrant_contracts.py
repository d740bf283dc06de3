"""The qdrant store passes ragloom's store contract on both embedded engines,
dense only and with ``sparse: bm25`` (then as a hybrid store), and against a
live Qdrant server when ``QDRANT_URL`` is set (``integration``).

(The contract queries one half at a time, so ``server_fusion`` changes
nothing here: ``test_qdrant_store.py`` compares it with the store's own fusion.)"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from ragloom.testing import DenseStoreContract, HybridStoreContract

from ragloom_qdrant import QdrantStore

QDRANT_URL = os.environ.get("QDRANT_URL")
NO_SERVER = (
    "no Qdrant server: start one (docker run -p 6333:6333 qdrant/qdrant) and set "
    "QDRANT_URL=http://localhost:6333 (and QDRANT_API_KEY for Qdrant Cloud), then run "
    "`pytest -m integration plugins/qdrant/tests`"
)


class TestEdge(DenseStoreContract):
    @pytest.fixture
    def store_factory(self) -> Callable[[Path], QdrantStore]:
        return lambda path: QdrantStore()


class TestEdgeHybrid(HybridStoreContract):
    @pytest.fixture
    def store_factory(self) -> Callable[[Path], QdrantStore]:
        return lambda path: QdrantStore(sparse="bm25")


class TestLocal(DenseStoreContract):
    @pytest.fixture
    def store_factory(self) -> Callable[[Path], QdrantStore]:
        return lambda path: QdrantStore(engine="local", return_vectors=True)


class TestLocalHybrid(HybridStoreContract):
    @pytest.fixture
    def store_factory(self) -> Callable[[Path], QdrantStore]:
        return lambda path: QdrantStore(engine="local", sparse="bm25")


def _server_store(path: Path, **options: Any) -> QdrantStore:
    # one collection per test directory: two instances on one path share it
    name = "ragloom-contract-" + uuid.uuid5(uuid.NAMESPACE_URL, str(path)).hex[:12]
    return QdrantStore(url=QDRANT_URL, collection=name, **options)


@pytest.mark.integration
@pytest.mark.skipif(not QDRANT_URL, reason=NO_SERVER)
class TestServer(DenseStoreContract):
    @pytest.fixture
    def store_factory(self) -> Callable[[Path], QdrantStore]:
        return _server_store


@pytest.mark.integration
@pytest.mark.skipif(not QDRANT_URL, reason=NO_SERVER)
class TestServerHybrid(HybridStoreContract):
    @pytest.fixture
    def store_factory(self) -> Callable[[Path], QdrantStore]:
        return lambda path: _server_store(path, sparse="bm25", server_fusion=True)


class _DropsTheText(QdrantStore):
    """A hybrid store with a bug: given both, it searches by the vector alone."""

    def query(self, *, vector: Any = None, text: Any = None, **kwargs: Any) -> list:
        return (
            super().query(vector=vector, **kwargs)
            if vector is not None
            else super().query(text=text, **kwargs)
        )


def test_the_hybrid_contract_catches_a_store_that_drops_the_text(tmp_path: Path) -> None:
    """The pipeline asks a hybrid store with the vector and the text at once:
    a store that passes every single-mode test but drops one half fails."""
    contract = HybridStoreContract()
    store = contract.open_store(lambda path: _DropsTheText(sparse="bm25"), tmp_path)
    try:
        with pytest.raises(AssertionError, match="a hybrid store fuses both"):
            contract.test_a_query_with_both_vector_and_text_answers_from_both(store)
    finally:
        store.close()
