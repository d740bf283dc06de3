"""The ``openai`` embedder: OpenAI's embeddings API, or any server that speaks it.

    embedder: {type: openai, model: text-embedding-3-small, dimensions: 512}
    embedder: {type: openai, model: nomic-embed-text, base_url: "http://localhost:11434/v1"}

Texts go in batches of at most ``batch_size`` (the API takes 2,048 inputs)
whose estimated tokens stay under ``max_batch_tokens`` (the API's 300,000
per request), in order, each under ``ragloom.remote``'s retry policy (429
honouring ``Retry-After``, 5xx, timeouts, cut-short or malformed answers); a
batch that still fails raises ``EmbedderError`` naming it, and none after it
is sent. Vectors are placed by each item's ``index`` in the answer, which the
API does not promise to keep in input order; an answer missing an index,
repeating one, or with vectors of the wrong width is an error, never a
silently shifted vector.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import Field, SecretStr, model_validator
from ragloom import Embedder
from ragloom.errors import EmbedderError
from ragloom.remote import BatchTooLargeError, RemoteOptions, keep_done, send_batches

from .client import KEY_VARIABLE, api_key, classify, connect

if TYPE_CHECKING:
    import numpy as np

__all__ = ["MAX_INPUTS", "MAX_REQUEST_TOKENS", "MODELS", "OpenAIEmbedder", "token_bound"]

MAX_INPUTS = 2048
"""Inputs one embeddings request may carry (OpenAI's limit)."""
MAX_REQUEST_TOKENS = 300_000
"""Tokens one embeddings request may carry, all inputs together (OpenAI's limit)."""

MODELS: dict[str, tuple[int, bool]] = {
    "text-embedding-3-small": (1536, True),
    "text-embedding-3-large": (3072, True),
    "text-embedding-ada-002": (1536, False),
}
"""OpenAI's embedding models: (default width, whether ``dimensions`` may shorten it)."""


def token_bound(text: str) -> int:
    """A safe estimate of ``text``'s tokens for batching without the tokenizer:
    half its UTF-8 bytes (English prose runs ~4.5 bytes a token under OpenAI's
    tokenizers, CJK ~2.5), at least 1."""
    return max(1, math.ceil(len(text.encode("utf-8")) / 2))


class OpenAIEmbedder(Embedder):
    """OpenAI embeddings (``text-embedding-3-small`` by default); see the module docs."""

    batch_size = MAX_INPUTS

    class Config(RemoteOptions):
        model: str = Field("text-embedding-3-small", description="An embedding model.")
        dimensions: int | None = Field(
            None, ge=1, description="Shorter vectors (text-embedding-3 models); default full."
        )
        batch_size: int = Field(MAX_INPUTS, ge=1, le=MAX_INPUTS)
        max_batch_tokens: int = Field(
            MAX_REQUEST_TOKENS, ge=1, description="Estimated tokens per request, at most."
        )
        api_key: SecretStr | None = Field(None, description="Default: $OPENAI_API_KEY.")
        base_url: str | None = Field(
            None, description="An OpenAI-compatible server, e.g. http://localhost:11434/v1."
        )

        @model_validator(mode="after")
        def _dimensions_supported(self) -> OpenAIEmbedder.Config:
            known = MODELS.get(self.model)
            if known is None or self.dimensions is None:
                return self
            if not known[1]:
                raise ValueError(
                    f"{self.model} has a fixed width of {known[0]}: drop `dimensions` "
                    "(or use a text-embedding-3 model)"
                )
            if self.dimensions > known[0]:
                raise ValueError(f"{self.model} makes at most {known[0]} dimensions")
            return self

    config: Config

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._client: Any = None
        self._sleep: Callable[[float], None] = time.sleep

    def open(self, context: Any = None) -> None:
        super().open(context)
        key = api_key(self.config.api_key, self.config.base_url, EmbedderError, "openai embedder")
        self._client = connect(key, self.config.base_url, self.config.timeout)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        self._client = None

    @classmethod
    def declared_dimension(cls, config: Any) -> int | None:
        if config.dimensions is not None:
            return int(config.dimensions)
        known = MODELS.get(config.model)
        return known[0] if known is not None else None

    def fingerprint(self) -> dict[str, Any]:
        """Model and width: what decides the vectors (not the key, address,
        timeout, retries or batching)."""
        options = self.config.model_dump(
            mode="json",
            exclude={"batch_size", "max_batch_tokens", *self.config.TRANSPORT_FIELDS},
        )
        return {"type": self.type_name or type(self).__name__, "dimension": self.dimension,
                **options}  # fmt: skip

    # -- embedding ----------------------------------------------------------------------
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Queries and documents embed alike here: batched like documents
        (``ragloom eval --beir`` and ``Pipeline.retrieve_many`` send them all)."""
        return self.embed_documents(texts)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if self._client is None:
            self.open(self.context)
        # The API rejects empty inputs; a blank text is embedded as one space.
        inputs = [text if text else " " for text in texts]
        what = f"openai embed of {len(inputs)} text(s) (model {self.config.model!r})"
        try:
            parts = send_batches(
                inputs,
                self._request,
                max_count=min(self.config.batch_size, MAX_INPUTS),
                max_bytes=self.config.max_batch_tokens,
                size=token_bound,
                policy=self.config.retry_policy(),
                classify=classify,
                error=EmbedderError,
                what=what,
                key_variable=KEY_VARIABLE,
                hint="the `model` and `dimensions` options (and texts over the model's input "
                "limit, 8,192 tokens for OpenAI's: a smaller chunker `size`)",
                sleep=self._sleep,
            )
        except BatchTooLargeError as exc:
            raise EmbedderError(
                f"{what}: text {exc.index} alone takes about {exc.size} tokens, more than "
                f"`max_batch_tokens` ({self.config.max_batch_tokens}): split it smaller"
            ) from None
        except EmbedderError as exc:
            keep_done(exc)  # the batches that went through: the index run caches them
            raise
        width = {part.shape[1] for part in parts}
        if len(width) > 1:
            raise EmbedderError(f"{what}: the batches came back with widths {sorted(width)}")
        return np.ascontiguousarray(np.vstack(parts), dtype=np.float32)

    def _request(self, batch: list[str]) -> np.ndarray:
        import numpy as np

        options: dict[str, Any] = {}
        if self.config.dimensions is not None:
            options["dimensions"] = self.config.dimensions
        response = self._client.embeddings.create(model=self.config.model, input=batch, **options)
        data = list(getattr(response, "data", None) or [])
        rows: list[Any] = [None] * len(batch)
        for item in data:
            index = getattr(item, "index", None)
            if not isinstance(index, int) or not 0 <= index < len(batch) or rows[index] is not None:
                raise EmbedderError(
                    f"openai embed (model {self.config.model!r}) answered an item with index "
                    f"{index!r} for {len(batch)} text(s) (out of range or repeated): the "
                    "response is malformed"
                )
            rows[index] = item.embedding
        missing = [i for i, row in enumerate(rows) if row is None]
        if missing:
            raise EmbedderError(
                f"openai embed (model {self.config.model!r}) answered {len(data)} vector(s) for "
                f"{len(batch)} text(s) (no vector for index {missing[0]}): the response is "
                "malformed"
            )
        try:
            matrix = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError):  # ragged: per-token vectors of texts of other lengths
            matrix = np.zeros((0,), dtype=np.float32)
        expected = self.config.dimensions or MODELS.get(self.config.model, (None,))[0]
        width = matrix.shape[1] if matrix.ndim == 2 else 0
        if width < 1 or (expected is not None and width != expected):
            got = f"{matrix.shape[1]} wide" if matrix.ndim == 2 else "not one flat vector per text"
            raise EmbedderError(
                f"openai embed (model {self.config.model!r}) answered vectors {got}"
                + (f", expected {expected}" if expected is not None else "")
                + ": check `dimensions` against the model (a server answering one vector "
                "per token needs mean pooling, e.g. llama.cpp's `--pooling mean`)"
            )
        return matrix
