"""Contract suites that every backend passes: import them in your plugin's tests.

``ragloom.testing`` needs pytest (it is imported only by tests)::

    import pytest
    from ragloom.testing import DenseStoreContract

    class TestMyStore(DenseStoreContract):
        @pytest.fixture
        def store_factory(self):
            return lambda path: MyStore(path=str(path))

Stores subclass ``DenseStoreContract``, ``TextStoreContract`` or
``HybridStoreContract``, as their ``capabilities`` say (``StoreContract``,
their common part, is not used alone); embedders ``EmbedderContract`` and,
as they apply, ``PrefixEmbedderContract`` and ``SemanticEmbedderContract``;
rerankers ``RerankerContract``, or those of ``OrderedRerankerContract``,
``TopKRerankerContract`` and ``SemanticRerankerContract`` that apply;
generators ``GeneratorContract``; chunkers ``ChunkerContract``; loaders
``LoaderContract``, or ``ReportingLoaderContract`` for one of many sources.

See ``ragloom.testing.stores``, ``ragloom.testing.embedders`` and
``ragloom.testing.rerankers``, and the "Testing a store" docs page.

Plugins for hosted services test against loopback fakes of them
(``ragloom.testing.servers``: ``FakePinecone``, ``FakeCohere``,
``FakeOpenAI``, with ``Fault`` injection); see the "Remote services" docs page.
"""

from __future__ import annotations

from .chunkers import CONTRACT_CHUNKER_NAME, CONTRACT_TEXT, ChunkerContract, contract_document
from .embedders import (
    CONTRACT_EMBEDDER_NAME,
    CONTRACT_PASSAGES,
    CONTRACT_QUESTIONS,
    EmbedderContract,
    PrefixEmbedderContract,
    SemanticEmbedderContract,
)
from .generators import CONTRACT_GENERATOR_NAME, CONTRACT_QUESTION, GeneratorContract
from .loaders import CONTRACT_LOADER_NAME, LoaderContract, ReportingLoaderContract
from .rerankers import (
    CONTRACT_QUERY,
    CONTRACT_RERANKER_NAME,
    BaseRerankerContract,
    OrderedRerankerContract,
    RerankerContract,
    SemanticRerankerContract,
    TopKRerankerContract,
    contract_hits,
)
from .servers import (
    FakeCohere,
    FakeOpenAI,
    FakePinecone,
    Fault,
    LoopbackServer,
    RecordedRequest,
    Response,
)
from .stores import (
    CONTRACT_DIMENSION,
    CONTRACT_STORE_NAME,
    FILTER_CASES,
    DenseStoreContract,
    FilterCase,
    HybridStoreContract,
    StoreContract,
    TextStoreContract,
    contract_chunks,
    contract_vectors,
)

__all__ = [
    "CONTRACT_CHUNKER_NAME",
    "CONTRACT_TEXT",
    "ChunkerContract",
    "CONTRACT_LOADER_NAME",
    "LoaderContract",
    "ReportingLoaderContract",
    "contract_document",
    "CONTRACT_GENERATOR_NAME",
    "CONTRACT_QUESTION",
    "GeneratorContract",
    "CONTRACT_DIMENSION",
    "CONTRACT_EMBEDDER_NAME",
    "CONTRACT_PASSAGES",
    "CONTRACT_QUERY",
    "CONTRACT_QUESTIONS",
    "CONTRACT_RERANKER_NAME",
    "BaseRerankerContract",
    "EmbedderContract",
    "OrderedRerankerContract",
    "PrefixEmbedderContract",
    "RerankerContract",
    "SemanticEmbedderContract",
    "SemanticRerankerContract",
    "TopKRerankerContract",
    "contract_hits",
    "CONTRACT_STORE_NAME",
    "FILTER_CASES",
    "DenseStoreContract",
    "FilterCase",
    "HybridStoreContract",
    "StoreContract",
    "TextStoreContract",
    "contract_chunks",
    "contract_vectors",
    "FakeCohere",
    "FakeOpenAI",
    "FakePinecone",
    "Fault",
    "LoopbackServer",
    "RecordedRequest",
    "Response",
]
