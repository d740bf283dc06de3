"""``FakeCohere``: the Cohere v2 rerank and embed endpoints."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from ._text import _bearer_ok, _terms, text_embedding, text_relevance
from .base import Fault, LoopbackServer, RecordedRequest, Response


class FakeCohere(LoopbackServer):
    """Cohere's v2 API: ``/v2/rerank`` and ``/v2/embed``.

    Documented limits enforced: 96 texts per embed call; ``input_type``
    required for v3 and later embed models; ``output_dimension`` only for
    ``embed-v4.0`` (256, 512, 1024, 1536). Assumed where the docs only
    recommend: at most 1,000 documents per rerank call (``max_documents``),
    answered with 400 beyond. Unknown models answer 404. Tokens are counted
    as words (``max_tokens_per_doc`` cuts documents at that many words).
    """

    EMBED_MODELS: Mapping[str, tuple[int, tuple[int, ...]]] = {
        "embed-v4.0": (1536, (256, 512, 1024, 1536)),
        "embed-english-v3.0": (1024, ()),
        "embed-multilingual-v3.0": (1024, ()),
        "embed-english-light-v3.0": (384, ()),
        "embed-multilingual-light-v3.0": (384, ()),
    }
    RERANK_MODELS = frozenset(
        {"rerank-v3.5", "rerank-english-v3.0", "rerank-multilingual-v3.0", "rerank-v4.0-pro"}
    )
    INPUT_TYPES = frozenset(
        {"search_document", "search_query", "classification", "clustering", "image"}
    )
    max_texts = 96
    max_documents = 1000

    def __init__(self, api_key: str | None = "test-key") -> None:
        super().__init__()
        self.api_key = api_key

    def error_body(self, status: int, message: str) -> Any:
        return {"id": str(uuid.uuid4()), "message": message}

    def handle(self, request: RecordedRequest, fault: Fault | None) -> Response:
        if not _bearer_ok(request, self.api_key):
            return self.error(401, "invalid api token")
        if request.method == "POST" and request.path == "/v2/rerank":
            return self._rerank(request.body)
        if request.method == "POST" and request.path == "/v2/embed":
            return self._embed(request.body)
        return self.error(404, f"no route for {request.method} {request.path}")

    def _meta(self, **units: int) -> dict[str, Any]:
        return {"api_version": {"version": "2"}, "billed_units": units}

    def _rerank(self, body: Any) -> Response:
        if not isinstance(body, dict):
            return self.error(400, "invalid request: body must be an object")
        model, query, documents = body.get("model"), body.get("query"), body.get("documents")
        if not model:
            return self.error(400, "invalid request: model is required")
        if model not in self.RERANK_MODELS:
            return self.error(
                404, f"model '{model}' not found, make sure the model name is correct"
            )
        if not isinstance(query, str) or not query.strip():
            return self.error(400, "invalid request: query must be a non-empty string")
        if not isinstance(documents, list) or not documents:
            return self.error(400, "invalid request: documents must be a non-empty list")
        if len(documents) > self.max_documents:
            return self.error(
                400,
                f"invalid request: too many documents: {len(documents)} documents given, "
                f"the maximum is {self.max_documents}",
            )
        if not all(isinstance(d, str) for d in documents):
            return self.error(400, "invalid request: documents must be strings")
        top_n = body.get("top_n")
        if top_n is not None and (not isinstance(top_n, int) or top_n < 1):
            return self.error(400, "invalid request: top_n must be a positive integer")
        max_tokens = body.get("max_tokens_per_doc")
        if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 1):
            return self.error(400, "invalid request: max_tokens_per_doc must be positive")
        scored = [(text_relevance(query, d, max_tokens), i) for i, d in enumerate(documents)]
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        if top_n is not None:
            scored = scored[:top_n]
        results = [{"index": i, "relevance_score": s} for s, i in scored]
        return Response(
            200,
            {"id": str(uuid.uuid4()), "results": results, "meta": self._meta(search_units=1)},
        )

    def _embed(self, body: Any) -> Response:
        if not isinstance(body, dict):
            return self.error(400, "invalid request: body must be an object")
        model, texts = body.get("model"), body.get("texts")
        if model not in self.EMBED_MODELS:
            return self.error(
                404, f"model '{model}' not found, make sure the model name is correct"
            )
        input_type = body.get("input_type")
        if input_type is None:
            return self.error(
                400, "invalid request: input_type is required for embed models v3 and higher"
            )
        if input_type not in self.INPUT_TYPES:
            return self.error(400, f"invalid request: input_type '{input_type}' is not valid")
        if not isinstance(texts, list) or not texts:
            return self.error(400, "invalid request: texts must be a non-empty list")
        if len(texts) > self.max_texts:
            return self.error(
                400,
                f"invalid request: total number of texts must be at most {self.max_texts} - "
                f"received {len(texts)}",
            )
        default, allowed = self.EMBED_MODELS[model]
        dimension = body.get("output_dimension")
        if dimension is None:
            dimension = default
        elif dimension not in allowed:
            return self.error(
                400,
                f"invalid request: output_dimension {dimension} is not supported by {model}"
                + (f"; use one of {list(allowed)}" if allowed else ""),
            )
        types = body.get("embedding_types") or ["float"]
        unknown = [t for t in types if t not in ("float", "int8", "uint8", "binary", "ubinary")]
        if unknown:
            return self.error(400, f"invalid request: embedding type {unknown[0]!r} is not valid")
        vectors = [text_embedding(t, dimension) for t in texts]
        embeddings: dict[str, Any] = {}
        for kind in types:
            if kind == "float":
                embeddings["float"] = vectors
            else:  # scaled as Cohere describes int8: the fake only needs the shape right
                embeddings[kind] = [
                    [max(-128, min(127, round(v * 127))) for v in vec] for vec in vectors
                ]
        return Response(
            200,
            {
                "id": str(uuid.uuid4()),
                "embeddings": embeddings,
                "texts": texts,
                "meta": self._meta(input_tokens=sum(len(_terms(t)) for t in texts)),
                "response_type": "embeddings_by_type",
            },
        )


# -- OpenAI ------------------------------------------------------------------------------
