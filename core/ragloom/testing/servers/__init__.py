"""Loopback fakes of hosted APIs, for testing remote plugins without a network.

``LoopbackServer`` is a threaded stdlib HTTP server on ``127.0.0.1`` (an
ephemeral port) used as a context manager. It records every request
(``server.requests``) and answers from a queue of scripted faults before
it answers normally (``server.fail(...)``)::

    with FakeCohere(api_key="test-key") as server:
        server.fail(Fault.status(429, retry_after="0"), times=3)
        client = cohere.ClientV2(api_key="test-key", base_url=server.url, max_retries=0)
        ...
        assert len(server.calls("/v2/rerank")) == 4

The fakes speak the documented HTTP APIs, limits and errors included, as
far as the public documentation says (where it is silent, a comment says
what was assumed):

- ``FakePinecone``: control plane (``/indexes``: create, describe with a
  readiness delay, list, delete) and data plane (upsert, query, fetch,
  delete, list, describe_index_stats), camelCase JSON, 1,000 vectors or 2 MB
  per upsert, 40 KB metadata per vector, the metadata filter language
  evaluated and validated as Pinecone documents it.
- ``FakeCohere``: ``/v2/rerank`` (1,000 documents per request) and
  ``/v2/embed`` (96 texts, ``input_type``, ``embedding_types``,
  ``output_dimension``), with deterministic embeddings and relevance scores
  computed from the words of the texts, so rankings mean something.
- ``FakeOpenAI``: ``/v1/embeddings`` (float or base64, the ``index`` field)
  and ``/v1/chat/completions`` (plain and SSE streaming).

Faults (:class:`Fault`): an error status with a body and ``Retry-After``; a
delay longer than the client's timeout; truncated JSON; a dropped
connection; for OpenAI, embeddings out of order and a stream cut midway.
"""

from __future__ import annotations

from ._text import text_embedding, text_relevance
from .base import Fault, LoopbackServer, RecordedRequest, Response
from .cohere import FakeCohere
from .openai import FakeOpenAI
from .pinecone import (
    PINECONE_MAX_METADATA_BYTES,
    PINECONE_MAX_REQUEST_BYTES,
    PINECONE_MAX_UPSERT_VECTORS,
    FakePinecone,
    PineconeFilterError,
    check_pinecone_filter,
    pinecone_filter_matches,
)

__all__ = [
    "PINECONE_MAX_METADATA_BYTES",
    "PINECONE_MAX_REQUEST_BYTES",
    "PINECONE_MAX_UPSERT_VECTORS",
    "FakeCohere",
    "FakeOpenAI",
    "FakePinecone",
    "Fault",
    "LoopbackServer",
    "PineconeFilterError",
    "RecordedRequest",
    "Response",
    "check_pinecone_filter",
    "pinecone_filter_matches",
    "text_embedding",
    "text_relevance",
]
