"""The ``cohere`` embedder: Cohere's Embed v2 API.

    embedder: {type: cohere, model: embed-v4.0, output_dimension: 1024}

Chunks are embedded with ``input_type: search_document``, queries with
``search_query``, as float vectors. Texts go in batches of at most 96 (the
API's limit), in order, each under ``ragloom.remote``'s retry policy; a batch
that still fails raises ``EmbedderError`` (the index run stops, nothing is
skipped). Each answer is checked: one vector per text, of the right width.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, SecretStr, model_validator
from ragloom import Embedder
from ragloom.errors import EmbedderError
from ragloom.remote import RemoteOptions, keep_done, send_batches

from .client import KEY_VARIABLE, api_key, classify, connect

if TYPE_CHECKING:
    import numpy as np

__all__ = ["MODELS", "CohereEmbedder"]

MAX_TEXTS = 96

MODELS: dict[str, tuple[int, tuple[int, ...]]] = {
    "embed-v4.0": (1536, (256, 512, 1024, 1536)),
    "embed-english-v3.0": (1024, ()),
    "embed-multilingual-v3.0": (1024, ()),
    "embed-english-light-v3.0": (384, ()),
    "embed-multilingual-light-v3.0": (384, ()),
}
"""Known models: (default dimension, the output_dimension values they accept)."""


class CohereEmbedder(Embedder):
    """Embed v2 (``embed-v4.0`` by default); see the module docs."""

    batch_size = MAX_TEXTS

    class Config(RemoteOptions):
        model: str = Field("embed-v4.0", description="A Cohere embed model.")
        output_dimension: int | None = Field(
            None, description="embed-v4.0: 256, 512, 1024 or 1536 (default 1536)."
        )
        truncate: Literal["NONE", "START", "END"] | None = Field(
            None, description="Texts over the model's limit: cut the start or the end, or fail."
        )
        batch_size: int = Field(MAX_TEXTS, ge=1, le=MAX_TEXTS)
        api_key: SecretStr | None = Field(None, description="Default: $CO_API_KEY.")
        base_url: str | None = Field(None, description="Default: https://api.cohere.com.")

        @model_validator(mode="after")
        def _dimension_supported(self) -> CohereEmbedder.Config:
            known = MODELS.get(self.model)
            dimension = self.output_dimension
            if dimension is not None and known is not None and dimension not in known[1]:
                allowed = ", ".join(map(str, known[1])) or "none: it has a fixed width"
                raise ValueError(
                    f"{self.model} does not take output_dimension {dimension} (it takes {allowed})"
                )
            return self

    config: Config

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._client: Any = None
        self._sleep: Callable[[float], None] = time.sleep

    def open(self, context: Any = None) -> None:
        super().open(context)
        key = api_key(self.config.api_key, EmbedderError, "cohere embedder")
        self._client = connect(key, self.config.base_url, self.config.timeout)

    def close(self) -> None:
        self._client = None

    @classmethod
    def declared_dimension(cls, config: Any) -> int | None:
        if config.output_dimension is not None:
            return int(config.output_dimension)
        known = MODELS.get(config.model)
        return known[0] if known is not None else None

    def fingerprint(self) -> dict[str, Any]:
        """Model, width and input types: what decides the vectors (not the key,
        address, timeout, retries or batch size)."""
        options = self.config.model_dump(
            mode="json", exclude={"batch_size", *self.config.TRANSPORT_FIELDS}
        )
        return {
            "type": self.type_name or type(self).__name__,
            "dimension": self.dimension,
            "input_types": ["search_document", "search_query"],
            **options,
        }

    # -- embedding ----------------------------------------------------------------------
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "search_document")

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "search_document")

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([text], "search_query")[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "search_query")

    def _embed(self, texts: Sequence[str], input_type: str) -> np.ndarray:
        import numpy as np

        width = self.dimension
        if not texts:
            return np.zeros((0, width), dtype=np.float32)
        if self._client is None:
            self.open(self.context)
        try:
            parts = send_batches(
                list(texts),
                lambda batch: self._request(batch, input_type, width),
                max_count=min(self.config.batch_size, MAX_TEXTS),
                policy=self.config.retry_policy(),
                classify=classify,
                error=EmbedderError,
                what=f"cohere embed of {len(texts)} text(s) (model {self.config.model!r})",
                key_variable=KEY_VARIABLE,
                hint="the `model` and `output_dimension` options",
                sleep=self._sleep,
            )
        except EmbedderError as exc:
            keep_done(exc)  # the batches that went through: the index run caches them
            raise
        return np.ascontiguousarray(np.vstack(parts), dtype=np.float32)

    def _request(self, batch: list[str], input_type: str, width: int) -> np.ndarray:
        import numpy as np

        options: dict[str, Any] = {}
        if self.config.output_dimension is not None:
            options["output_dimension"] = self.config.output_dimension
        if self.config.truncate is not None:
            options["truncate"] = self.config.truncate
        response = self._client.embed(
            model=self.config.model,
            input_type=input_type,
            texts=batch,
            embedding_types=["float"],
            **options,
        )
        vectors = getattr(getattr(response, "embeddings", None), "float_", None)
        if vectors is None or len(vectors) != len(batch):
            got = "none" if vectors is None else len(vectors)
            raise EmbedderError(
                f"cohere embed answered {got} float vector(s) for {len(batch)} text(s): "
                "the response is malformed"
            )
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[1] != width:
            raise EmbedderError(
                f"cohere embed (model {self.config.model!r}) answered vectors of shape "
                f"{matrix.shape}, expected {width} wide: set `output_dimension` to the width "
                "the model makes"
            )
        return matrix
