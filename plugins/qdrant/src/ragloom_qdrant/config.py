"""The options of the ``qdrant`` store (``stores: [{type: qdrant, ...}]``)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from ragloom import ComponentConfig
from ragloom.analysis import AnalyzerConfig

__all__ = ["QdrantConfig"]

_COLLECTION = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}")
_SPARSE_OPTIONS = ("analyzer", "k1", "b", "avg_len", "fusion", "server_fusion", "rrf_k")
_SERVER_ONLY = ("api_key", "prefer_grpc", "grpc_port", "timeout")


class QdrantConfig(ComponentConfig):
    """Where the collection lives, how its vectors are indexed, and hybrid search."""

    # -- where -----------------------------------------------------------------------
    url: str | None = None
    """A Qdrant server or Qdrant Cloud cluster, ``http(s)://host:6333``. Without
    it the store is embedded, in ``path``."""
    api_key: SecretStr | None = None
    """Qdrant Cloud's API key: write ``${QDRANT_API_KEY}``. When unset with a
    ``url``, the ``QDRANT_API_KEY`` environment variable is used if set."""
    prefer_grpc: bool = False
    """Talk gRPC (port ``grpc_port``) instead of REST: faster for large upserts."""
    grpc_port: int = Field(6334, ge=1, le=65535)
    timeout: int = Field(30, ge=1)
    """Seconds before a request to the server fails."""
    path: str | None = None
    """Embedded: the folder holding the collections, relative to the config
    file; default ``<index_dir>/<store name>``."""
    engine: Literal["edge", "local"] = "edge"
    """Embedded engine: ``edge``, Qdrant's own engine in the process
    (qdrant-edge-py; payload indexes, HNSW); ``local``, qdrant-client's
    pure-Python local mode (what a server would answer, slowly)."""
    collection: str = "ragloom"
    """The collection's name (embedded: its folder under ``path``)."""

    # -- vectors ---------------------------------------------------------------------
    dimension: int | None = Field(None, ge=1)
    """The vectors' width; default the embedder's (checked by `ragloom config check`)."""
    distance: Literal["cosine", "dot", "euclid", "manhattan"] | None = None
    """Default: what the embedder says its vectors are compared with, else cosine."""
    vector_name: str = Field("dense", min_length=1)
    """The name of the dense vector in the collection."""
    on_disk: bool = False
    """Keep the original vectors on disk (memory-mapped) instead of in memory."""
    quantization: Literal["int8"] | None = None
    """Scalar quantization: int8 copies of the vectors searched in memory,
    the best candidates rescored with the originals. Not in local mode."""
    hnsw_m: int | None = Field(None, ge=0)
    """Edges per node of the HNSW graph (Qdrant's default 16; 0 turns HNSW off)."""
    hnsw_ef_construct: int | None = Field(None, ge=4)
    """Candidates while building the graph (Qdrant's default 100)."""
    ef: int | None = Field(None, ge=1)
    """Candidates while searching the graph; default Qdrant's (its ``ef_construct``)."""
    exact: bool = False
    """Search every vector (no HNSW): exact results, slower past ~100k chunks."""
    index_fields: tuple[str, ...] = ()
    """Metadata fields to give payload indexes, besides those the config always
    filters on (``retrieval.filter``, the access field, ``document_id``)."""
    batch_size: int = Field(256, ge=1)
    """Points per write request."""
    return_vectors: bool = False
    """Return each hit's stored vector (``Hit.vector``): the ``mmr`` reranker
    then needs no embedding of the hits; costs a little per query."""

    # -- hybrid --------------------------------------------------------------------------
    sparse: Literal["bm25"] | None = None
    """``bm25``: also store a BM25 sparse vector per chunk, so that the store
    answers keyword queries too, and fuses both for the pipeline."""
    analyzer: AnalyzerConfig = AnalyzerConfig()
    """Text analysis for ``sparse: bm25``: the ``bm25`` store's options."""
    k1: float = Field(1.5, ge=0)
    b: float = Field(0.75, ge=0, le=1)
    avg_len: float = Field(256.0, gt=0)
    """The average chunk length, in terms, BM25 normalises lengths by."""
    fusion: Literal["rrf", "dbsf"] = "rrf"
    """How the dense and the BM25 hits of one query are fused: reciprocal rank
    (as the pipeline's ``rrf``) or distribution-based score fusion."""
    server_fusion: bool = False
    """Fuse in Qdrant (Query API prefetches) instead of in the store: one
    request per query instead of a batch of two."""
    rrf_k: int = Field(60, ge=1)
    """The ``k`` of reciprocal rank fusion: 1 / (k + rank)."""

    @field_validator("collection")
    @classmethod
    def _collection_name(cls, value: str) -> str:
        if not _COLLECTION.fullmatch(value) or value in {".", ".."}:
            raise ValueError(
                f"collection {value!r}: use letters, digits, '_', '-' and '.', "
                "starting with a letter, digit or '_'"
            )
        return value

    @field_validator("url")
    @classmethod
    def _url_scheme(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(
                f"url {value!r} needs a scheme: http://{value} (a server on your network) "
                f"or https://{value} (Qdrant Cloud)"
            )
        return value

    @model_validator(mode="after")
    def _consistent(self) -> QdrantConfig:
        given = self.model_fields_set
        if self.url is not None:
            if "path" in given:
                raise ValueError(
                    "set either `url` (a Qdrant server) or `path` (embedded), not both"
                )
            if "engine" in given:
                raise ValueError("`engine` chooses the embedded engine; remove it with `url`")
        else:
            wrong = [o for o in _SERVER_ONLY if o in given]
            if wrong:
                raise ValueError(
                    f"{', '.join(wrong)} only apply to a Qdrant server: set `url` too, "
                    "or remove them"
                )
        if self.sparse is None:
            wrong = [o for o in _SPARSE_OPTIONS if o in given]
            if wrong:
                raise ValueError(
                    f"{', '.join(wrong)} only apply with `sparse: bm25`; set it, or remove them"
                )
        if self.exact and "ef" in given:
            raise ValueError("`exact: true` searches without HNSW: `ef` does not apply")
        return self

    @property
    def embedded(self) -> bool:
        return self.url is None
