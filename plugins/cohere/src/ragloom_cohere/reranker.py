"""The ``cohere`` reranker: Cohere's Rerank v2 API.

    reranker: {type: cohere, model: rerank-v3.5, top_k: 5}

Each hit is sent as its chunk's text under its section heading. More hits
than one request may carry (``max_documents_per_request``, 1,000) go in
several requests; Cohere scores each document against the query alone, so
the scores of all requests are merged into one ranking. The relevance score
becomes ``hit.score`` and ``hit.scores["rerank"]``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import AliasChoices, Field, SecretStr, model_validator
from ragloom import Hit, Reranker
from ragloom.errors import RerankerError
from ragloom.remote import RemoteOptions, retry

from .client import KEY_VARIABLE, api_key, classify, connect

__all__ = ["CohereReranker"]


class CohereReranker(Reranker):
    """Rerank v2 (``rerank-v3.5`` by default); see the module docs."""

    class Config(RemoteOptions):
        model: str = Field("rerank-v3.5", description="A Cohere rerank model.")
        top_k: int | None = Field(
            None,
            ge=1,
            validation_alias=AliasChoices("top_k", "top_n"),
            description="Hits kept (Cohere's top_n); default all.",
        )
        max_tokens_per_doc: int | None = Field(
            None, ge=1, description="Tokens of each document scored (Cohere's default: 4096)."
        )
        max_documents_per_request: int = Field(1000, ge=1, le=10_000)
        with_heading: bool = Field(True, description="Send the section heading with the text.")
        api_key: SecretStr | None = Field(None, description="Default: $CO_API_KEY.")
        base_url: str | None = Field(None, description="Default: https://api.cohere.com.")

        @model_validator(mode="before")
        @classmethod
        def _one_name_for_top_k(cls, data: Any) -> Any:
            if isinstance(data, dict) and "top_k" in data and "top_n" in data:
                raise ValueError(
                    "top_k and top_n are the same option (Cohere calls it top_n): give one"
                )
            return data

    config: Config

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._client: Any = None
        self._sleep: Callable[[float], None] = time.sleep

    def open(self, context: Any = None) -> None:
        super().open(context)
        key = api_key(self.config.api_key, RerankerError, "cohere reranker")
        self._client = connect(key, self.config.base_url, self.config.timeout)

    def close(self) -> None:
        self._client = None

    def _document(self, hit: Hit) -> str:
        text = hit.chunk.text
        heading = hit.chunk.metadata.get("section") if self.config.with_heading else None
        if isinstance(heading, str) and heading.strip():
            lines = text.lstrip().splitlines()
            first = lines[0].lstrip("# ").strip() if lines else ""
            if first != heading.strip():
                return f"{heading.strip()}\n\n{text}"
        return text

    def rerank(self, query: str, hits: Sequence[Hit], top_k: int | None = None) -> list[Hit]:
        hits = list(hits)
        if not hits:
            return []
        if self._client is None:
            self.open(self.context)
        limit = top_k if top_k is not None else self.config.top_k
        documents = [self._document(h) for h in hits]
        scores: list[float | None] = [None] * len(hits)
        size = self.config.max_documents_per_request
        parts = range(0, len(documents), size)
        for number, start in enumerate(parts, 1):
            part = documents[start : start + size]
            top_n = min(limit, len(part)) if limit is not None else None
            label = f"cohere rerank (model {self.config.model!r}"
            label += f", request {number} of {len(parts)})" if len(parts) > 1 else ")"
            response = retry(
                lambda part=part, top_n=top_n: self._client.rerank(
                    model=self.config.model,
                    query=query,
                    documents=part,
                    top_n=top_n,
                    max_tokens_per_doc=self.config.max_tokens_per_doc,
                ),
                self.config.retry_policy(),
                classify=classify,
                error=RerankerError,
                what=label,
                key_variable=KEY_VARIABLE,
                hint="the `model` option and the query",
                sleep=self._sleep,
            )
            self._merge(response, start, len(part), top_n, scores, label)
        ranked = sorted(
            (i for i, s in enumerate(scores) if s is not None), key=lambda i: (-scores[i], i)
        )
        if limit is not None:
            ranked = ranked[:limit]
        return [hits[i].with_score("rerank", float(scores[i])) for i in ranked]  # type: ignore[arg-type]

    @staticmethod
    def _merge(
        response: Any,
        start: int,
        count: int,
        top_n: int | None,
        scores: list[float | None],
        label: str,
    ) -> None:
        results = list(getattr(response, "results", None) or [])
        expected = count if top_n is None else min(top_n, count)
        seen = {r.index for r in results}
        if len(results) != expected or len(seen) != len(results) or not seen <= set(range(count)):
            raise RerankerError(
                f"{label} answered {len(results)} result(s) for {count} document(s) "
                f"(expected {expected}, each index once): the response is malformed"
            )
        for result in results:
            scores[start + result.index] = float(result.relevance_score)
