"""The pipeline-level sections of a config: ``retrieval:``, ``access:`` and
``cache:``. (Component sections are validated by each component's own
``Config``.)"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .filters import parse as parse_filter
from .globs import compile_glob

__all__ = [
    "AccessRule",
    "AccessSettings",
    "CacheSettings",
    "FeedbackSettings",
    "IndexingSettings",
    "RetrievalSettings",
]


class FeedbackSettings(BaseModel):
    """``retrieval.feedback:``: pseudo-relevance feedback for the vector stores
    (Rocchio). The best ``docs`` hits of a first fusion move the query vector
    towards them; the vector stores are asked again with it, and their new
    lists fused with the others'. Costs a second search of every vector store."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    docs: int = Field(3, ge=1, le=50, description="how many of the first fused hits feed back")
    weight: float = Field(
        0.5,
        gt=0,
        le=10,
        description="the weight of their mean vector beside the question's (both unit length)",
    )


class RetrievalSettings(BaseModel):
    """``retrieval:``: how many hits, and how the stores' lists are fused."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    k: int = Field(10, gt=0, description="hits returned after fusion (and passed to the reranker)")
    fusion: Literal["rrf", "weighted", "dbsf"] = "rrf"
    fuse_by: Literal["chunk", "document"] = Field(
        "chunk",
        description="what fusion adds up: each chunk's scores, or each document's (each "
        "store's best chunk of it; one hit per document, the chunk that contributed most)",
    )
    rrf_k: int = Field(60, gt=0, description="the k constant of reciprocal rank fusion")
    candidates: int | None = Field(
        None, gt=0, description="hits asked of each store before fusion; default max(3 * k, 20)"
    )
    filter: dict[str, Any] | None = Field(
        None, description="a metadata filter ANDed into every query (checked against every store)"
    )
    feedback: FeedbackSettings | None = Field(
        None,
        description="pseudo-relevance feedback: the vector stores asked again with the query "
        "moved towards the first fused hits (off by default; `ragloom tune fusion` tries it)",
    )
    order: Literal["relevance", "lost-in-the-middle"] = Field(
        "relevance",
        description="order of the passages given to the generator: best first, or the "
        "strongest at both edges of the context (lost in the middle)",
    )
    exact_ids: bool = Field(
        True,
        description="records whose id the question names (a csv or jsonl record's "
        "`record_id`, such as INC-1006) come first, from any store's candidates",
    )
    deprecated: Literal["demote", "keep", "exclude"] = Field(
        "demote",
        description="hits of documents marked `deprecated: true` (their front matter, or a "
        "page that says at its top that it is superseded): after the others among the k "
        "returned, ranked as found, or left out of every query",
    )
    on_rerank_error: Literal["fuse", "raise"] = Field(
        "fuse",
        description="when the reranker fails (a service down after its retries): answer "
        "with the fused order, logged and marked (`hits.degraded`), or raise",
    )


class AccessRule(BaseModel):
    """Labels documents at index time: those matching ``path`` (a glob on the
    document's source) or ``match`` (a metadata filter) get ``principals``."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    path: str | None = None
    match: dict[str, Any] | None = None
    principals: list[str] = Field(min_length=1)

    @model_validator(mode="after")
    def _one_selector(self) -> AccessRule:
        if (self.path is None) == (self.match is None):
            raise ValueError("give exactly one of `path` (a glob) or `match` (a metadata filter)")
        if self.path is not None:
            compile_glob(self.path)  # checks it, and that it compiles
        if self.match is not None:
            parse_filter(self.match)
        return self


class AccessSettings(BaseModel):
    """``access:``: permission-aware retrieval. With this section, every query
    must say whose it is (``principals=[...]``); chunks are filtered inside
    every store before anything else sees them."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    field: str = Field("principals", description="metadata field listing who may read a chunk")
    unlabeled: Literal["deny", "public"] = Field(
        "deny", description="what chunks without the field are: readable by nobody, or by all"
    )
    rules: list[AccessRule] = Field(default_factory=list)
    trust_document_labels: bool | None = Field(
        None,
        description="whether a document may name its own readers (front matter, record "
        "fields): by default yes without `rules`, no with them, so a file in hr/ cannot "
        "grant itself to everyone. The loader's own `metadata:` in the config is always trusted",
    )

    @property
    def trusts_documents(self) -> bool:
        """``trust_document_labels``, or its default: trusted unless ``rules`` label documents."""
        if self.trust_document_labels is not None:
            return self.trust_document_labels
        return not self.rules


class CacheSettings(BaseModel):
    """``cache:``: the embedding cache (on by default) and the answer cache (opt-in)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    embeddings: bool = Field(True, description="reuse vectors of texts already embedded")
    path: str | None = Field(
        None,
        description="the embedding cache file; default $RAGLOOM_CACHE_DIR/embeddings.sqlite, "
        "shared by every index on the machine",
    )
    answers: bool = Field(
        False,
        description="cache answers (keyed by question, corpus "
        "version, filters, principals and config)",
    )
    answer_ttl: float = Field(3600.0, gt=0, description="seconds an answer stays fresh")
    answer_max_entries: int = Field(
        1000, gt=0, description="answers kept, least recently used dropped first"
    )


class IndexingSettings(BaseModel):
    """``indexing:``: guards on what an index run may do."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    max_delete_share: float = Field(
        0.5,
        ge=0,
        le=1,
        description="refuse a run that would delete more than this share of the indexed "
        "documents (an unmounted or emptied folder) unless `--allow-mass-delete` is given; "
        "1 turns the guard off. A run deleting a single document is never refused",
    )
    secrets: Literal["skip", "redact", "allow"] = Field(
        "skip",
        description="documents holding credentials (keys, tokens, private keys): `skip` "
        "leaves them out, `redact` indexes them with each secret replaced, `allow` indexes "
        "them as they are; skipped and redacted documents are reported",
    )
    personal_data: Literal["keep", "redact"] = Field(
        "keep",
        description="email addresses and phone numbers in documents: `keep` indexes them as "
        "they are, `redact` replaces each with `[REDACTED: email]` or `[REDACTED: phone]` "
        "before chunking and reports how many per document (names and postal addresses "
        "are not found)",
    )
