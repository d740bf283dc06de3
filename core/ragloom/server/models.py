"""The HTTP API's request and response bodies (its OpenAPI schema).

Requests are strict (``extra="forbid"``: a misspelt field is an error, not
silently ignored), except chat completions, which accept and ignore the
sampling options OpenAI clients send.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "AnswerOut",
    "AskRequest",
    "ChatCompletionRequest",
    "CitationOut",
    "ErrorOut",
    "EvalCaseOut",
    "EvalFilesOut",
    "EvalOut",
    "EvalRequest",
    "HitOut",
    "IndexOut",
    "IndexRequest",
    "SearchOut",
    "SearchRequest",
]

MAX_TEXT = 8_000
"""Longest question, query or chat message, in characters."""
MAX_HISTORY = 50
"""Most earlier turns in ``history`` (or chat messages)."""


class _Strict(BaseModel):
    """A request body: no unknown field, and no value of another JSON type
    taken for what it is not (``"k": "5"``, ``"k": true``, ``"explain": "yes"``)."""

    model_config = ConfigDict(extra="forbid", strict=True)


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must contain some words, not only whitespace")
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    return value


class Message(_Strict):
    """One earlier turn of the conversation."""

    role: Literal["user", "assistant"]
    content: str = Field(max_length=MAX_TEXT)


class SearchRequest(_Strict):
    query: str = Field(min_length=1, max_length=MAX_TEXT, description="What to search for.")
    k: int | None = Field(
        default=None, ge=1, description="How many hits (default: the config's retrieval.k)."
    )
    filters: dict[str, Any] | None = Field(
        default=None,
        description='Metadata filter, e.g. {"year": {"$gte": 2024}}. ANDed with the '
        "access filter of the key's principals, which no filter can widen. It may not "
        "test `path` or the access field, which hits leave out (400 invalid_filter).",
    )
    explain: bool = Field(
        default=False,
        description="Add each hit's rank and score in every store, after fusion and "
        "after reranking, and the filters that applied.",
    )

    _check_query = field_validator("query")(_not_blank)


class AskRequest(_Strict):
    question: str = Field(min_length=1, max_length=MAX_TEXT)
    k: int | None = Field(default=None, ge=1, description="How many hits the generator gets.")
    filters: dict[str, Any] | None = None
    history: list[Message] = Field(default_factory=list, max_length=MAX_HISTORY)
    stream: bool = Field(
        default=False,
        description="Answer as server-sent events: `delta` events with text pieces, then "
        "one `answer` event with the checked answer and its citations.",
    )
    trace: bool = Field(default=False, description="Add every stage's timing.")

    _check_question = field_validator("question")(_not_blank)


class IndexRequest(_Strict):
    sources: list[Annotated[str, Field(min_length=1, max_length=4096)]] | None = Field(
        default=None,
        min_length=1,
        max_length=10_000,
        description="Limit the run to these paths (relative to the config file's folder).",
    )
    dry_run: bool = False
    rebuild: bool = False
    repair: bool = False
    allow_mass_delete: bool = False
    reread: bool = False

    @field_validator("sources")
    @classmethod
    def _paths(cls, value: list[str] | None) -> list[str] | None:
        for path in value or ():
            _not_blank(path)
        return value

    @model_validator(mode="after")
    def _rebuild_takes_no_sources(self) -> IndexRequest:
        # (a request's mistake, said as one: the run would refuse it as a 5xx)
        if self.rebuild and self.sources is not None:
            raise ValueError(
                "`rebuild` empties the stores and indexes everything: it takes no "
                "`sources`; send it without them (or `sources` alone to index just those again)"
            )
        return self


class HitExplain(BaseModel):
    stores: dict[str, dict[str, float]]
    fused_rank: int
    fused_score: float
    reranked_rank: int | None = None
    rerank_score: float | None = None
    movement: int | None = None


class HitOut(BaseModel):
    rank: int
    score: float
    scores: dict[str, float]
    store: str | None = None
    id: str
    document_id: str
    source: str
    label: str
    text: str
    metadata: dict[str, Any]
    explain: HitExplain | None = None


class SearchOut(BaseModel):
    query: str
    corpus_version: int
    hits: list[HitOut]
    degraded: str | None = None
    """Why the hits skip a stage that failed (the reranker, under
    ``retrieval.on_rerank_error: fuse``); absent otherwise."""
    queries: list[str] | None = None
    filter: dict[str, Any] | None = None
    retrieval_filter: dict[str, Any] | None = None
    access_filter: dict[str, Any] | None = None
    store_filters: dict[str, dict[str, Any]] | None = None
    feedback: dict[str, Any] | None = None


class CitationOut(BaseModel):
    number: int
    label: str
    source: str
    chunk_id: str
    quote: str


class StageOut(BaseModel):
    stage: str
    name: str
    seconds: float
    count: int | None = None


class AnswerOut(BaseModel):
    question: str
    answer: str
    grounded: bool
    """True when the answer cites a passage it was given; false for a refusal,
    and for an answer that cites none (``uncited``)."""
    uncited: bool = False
    """A model's answer that cites no passage: it may come from the model's
    own knowledge, not from the documents."""
    truncated: bool = False
    """The answer was cut off at the generator's ``max_tokens``."""
    dropped_citations: list[int] = []
    """Passage numbers the model cited that it was not given (removed from the text)."""
    degraded: bool
    cached: bool
    corpus_version: int | None = None
    citations: list[CitationOut]
    retrieval_degraded: str | None = None
    """Why the passages skip a stage that failed (the reranker, under
    ``retrieval.on_rerank_error: fuse``); absent otherwise."""
    trace: list[StageOut] | None = None


class IndexOut(BaseModel):
    added: list[str]
    changed: list[str]
    rewritten: list[str] = []
    deleted: list[str]
    unchanged: int
    unread: int = 0
    chunks: int
    seconds: float
    corpus_version: int
    embedded: int
    cached: int
    dry_run: bool
    problems: list[dict[str, str]]
    kept: list[str]
    repaired: list[str]
    errors: list[dict[str, str]]
    ok: bool


class EvalRequest(_Strict):
    file: str = Field(
        min_length=1,
        max_length=255,
        description="The name of one of the eval files the server allows "
        "(`GET /v1/playground/evals`); never a path.",
    )


class EvalFileOut(BaseModel):
    name: str
    cases: int | None = None
    error: str | None = None


class EvalFilesOut(BaseModel):
    files: list[EvalFileOut]


class EvalAnswerOut(BaseModel):
    passed: bool
    text: str
    grounded: bool
    missing: list[str]
    forbidden: list[str]
    refusal: str | None = None


class EvalCaseOut(BaseModel):
    number: int
    question: str
    passed: bool
    retrieval_passed: bool | None = None
    answer_passed: bool | None = None
    top_k: int
    ndcg: float | None = None
    recall: float | None = None
    ranks: dict[str, int | None]
    missing: list[str]
    forbidden: dict[str, int]
    hits: list[str]
    answer: EvalAnswerOut | None = None
    error: str | None = None


class Tally(BaseModel):
    passed: int
    total: int


class EvalOut(BaseModel):
    file: str
    passed: bool
    retrieval: Tally
    answers: Tally
    ndcg: float | None = None
    recall: float | None = None
    cases: list[EvalCaseOut]


class ErrorDetail(BaseModel):
    code: str
    type: str
    message: str
    param: str | None = None
    request_id: str | None = None
    details: Any = None


class ErrorOut(BaseModel):
    error: ErrorDetail


# -- OpenAI-compatible chat ---------------------------------------------------


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[ContentPart] | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")

    include_usage: bool = False


class RagloomOptions(_Strict):
    """ragloom's own options on a chat request (``extra_body={"ragloom": {...}}``
    with the OpenAI SDK)."""

    filters: dict[str, Any] | None = None
    k: int | None = Field(default=None, ge=1)


class ChatCompletionRequest(BaseModel):
    """OpenAI's chat completion request. Sampling options (``temperature``,
    ``max_tokens``...) are accepted and ignored: the pipeline's generator
    config decides them."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1, max_length=200)
    messages: list[ChatMessage] = Field(min_length=1, max_length=MAX_HISTORY + 1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    n: int | None = Field(default=None, ge=1, description="Only 1 is supported.")
    ragloom: RagloomOptions | None = None
