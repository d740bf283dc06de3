"""The pinecone store against a live index: the store contract and a round trip.

Run with ``PINECONE_API_KEY`` and ``PINECONE_TEST_INDEX`` (an existing serverless
index of dimension 16, metric cosine, which the tests write to and empty, in
namespaces of their own) set: ``pytest -m integration plugins/pinecone/tests``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from ragloom.testing import DenseStoreContract

from ragloom_pinecone import PineconeStore

INDEX = os.environ.get("PINECONE_TEST_INDEX")

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not (INDEX and os.environ.get("PINECONE_API_KEY")),
        reason="needs a live Pinecone index: set PINECONE_API_KEY and PINECONE_TEST_INDEX "
        "(dimension 16, cosine), then run `pytest -m integration plugins/pinecone/tests`",
    ),
]


class TestLivePinecone(DenseStoreContract):
    """The contract on the live service. Its stats and listings lag writes by a few
    seconds; the store's ``exact_count`` is False for that reason, and a test that
    counts right after a write may need a rerun there."""

    @pytest.fixture
    def store_factory(self) -> Callable[[Path], PineconeStore]:
        namespace = f"ragloom-test-{uuid.uuid4().hex[:12]}"
        return lambda path: PineconeStore(index=INDEX, namespace=namespace)
