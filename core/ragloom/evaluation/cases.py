"""Test sets: questions with the sources retrieval must (and must not) find,
and what the answer must (and must not) say.

cases:
  - question: How much does the Team plan cost?
    must_retrieve: [docs/pricing-faq.md]
    top_k: 3
    answer: {must_contain: ["$12"], must_not_contain: ["Enterprise"]}
  - question: Can administrators read private memories?
    must_retrieve: [docs/memory-system.md#who-can-see-a-memory]
    must_not_retrieve: [docs/pricing-faq.md]
    filters: {extension: .md}
  - question: Who is the CEO?
    answer: {must_refuse: true}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import ConfigError, ConfigIssue, ConfigValidationError, RagloomError
from ..registry import closest

if TYPE_CHECKING:
    from ..pipeline import Pipeline
    from ..types import Hit

__all__ = [
    "AnswerCheck",
    "AnswerResult",
    "CaseReport",
    "CaseResult",
    "EvalCase",
    "load_cases",
    "matches",
    "run_cases",
]


class AnswerCheck(BaseModel):
    """What the generated answer must (not) say. Text is compared with case,
    Unicode form and spacing folded. A ``must_contain`` entry that is a list
    passes when any of its strings is there (``["$199", "199 dollars"]``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    must_contain: list[str | list[str]] = Field(default_factory=list)
    must_not_contain: list[str] = Field(default_factory=list)
    must_refuse: bool = False
    """The answer must say the documents hold nothing about it (``grounded`` False)."""

    @model_validator(mode="after")
    def _consistent(self) -> AnswerCheck:
        if self.must_refuse and self.must_contain:
            raise ValueError("an answer cannot both refuse and contain text: drop one")
        if not (self.must_contain or self.must_not_contain or self.must_refuse):
            raise ValueError(
                "the answer check checks nothing: give must_contain, must_not_contain or "
                "must_refuse"
            )
        return self


@dataclass(frozen=True)
class AnswerResult:
    """How the answer went: its text, and what it lacked or should not have said."""

    text: str
    grounded: bool
    missing: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    refusal: str | None = None
    """Why refusing (or not) was wrong, when it was."""

    @property
    def passed(self) -> bool:
        return not self.missing and not self.forbidden and self.refusal is None


def _fold(text: str) -> str:
    import unicodedata

    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def check_answer(
    check: AnswerCheck, text: str, grounded: bool, *, uncited: bool = False
) -> AnswerResult:
    """Compare an answer with a case's ``answer:`` check. An answer that
    cites nothing (``uncited``: a model's own words) is no refusal, and no
    answer from the documents either."""
    folded = _fold(text)
    missing = []
    for entry in check.must_contain:
        options = [entry] if isinstance(entry, str) else list(entry)
        if not any(_fold(option) in folded for option in options):
            missing.append(" | ".join(options))
    forbidden = [entry for entry in check.must_not_contain if _fold(entry) in folded]
    refusal = None
    if check.must_refuse and (grounded or uncited):
        refusal = "answered instead of saying the documents do not hold it"
    elif uncited and (check.must_contain or check.must_not_contain):
        refusal = "answered without citing any passage: it may not come from the documents"
    elif not check.must_refuse and not grounded and (check.must_contain or check.must_not_contain):
        refusal = "refused, but the documents hold the answer"
    return AnswerResult(text, grounded, tuple(missing), tuple(forbidden), refusal)


class EvalCase(BaseModel):
    """One question of a test set and what retrieval must (not) find for it.

    An entry of ``must_retrieve`` or ``must_not_retrieve`` matches a hit when
    it equals the hit's chunk label (``docs/pricing.md#refunds``), its
    document id, or its source path (``docs/pricing.md``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str = Field(min_length=1)
    must_retrieve: list[str] = Field(default_factory=list)
    must_not_retrieve: list[str] = Field(default_factory=list)
    top_k: int = Field(5, gt=0)
    filters: dict[str, Any] | None = None
    principals: list[str] | None = None
    answer: AnswerCheck | None = None

    @model_validator(mode="after")
    def _expects_something(self) -> EvalCase:
        if not self.must_retrieve and not self.must_not_retrieve and self.answer is None:
            raise ValueError(
                "the case checks nothing: give it `must_retrieve`, `must_not_retrieve` or `answer`"
            )
        return self

    @property
    def checks_retrieval(self) -> bool:
        return bool(self.must_retrieve or self.must_not_retrieve)


class _CaseFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cases: list[EvalCase] = Field(min_length=1)


_TEST_SET_SHAPE = (
    "a test set is a mapping whose `cases:` lists the cases "
    "(`cases:` on its own line, then `  - question: ...`)",
    "see examples/quickstart/eval.yaml for one to start from",
)


def load_cases(source: str | Path | Mapping[str, Any]) -> list[EvalCase]:
    """Read and validate a test set (a YAML or TOML file, or a dict).

    Raises ``ConfigValidationError`` listing every problem with its path
    (``cases[2].top_k``) and, for a file, its line.
    """
    from ..config import read_config_file

    lines: Mapping[tuple[str | int, ...], int] = {}
    name = None
    if isinstance(source, Mapping):
        data: Any = dict(source)
    else:
        path = Path(source)
        if not path.is_file():
            raise RagloomError(f"test set {path} does not exist")
        data, lines = read_config_file(path, _TEST_SET_SHAPE)
        name = str(path)
    try:
        return list(_CaseFile.model_validate(data).cases)
    except ValidationError as exc:
        issues = []
        for err in exc.errors():
            loc = tuple(p for p in err["loc"] if not str(p).startswith("function-after"))
            line = next((lines[loc[:n]] for n in range(len(loc), 0, -1) if loc[:n] in lines), None)
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
            message, hint = err["msg"].removeprefix("Value error, "), None
            if err["type"] == "extra_forbidden":
                fields = list(
                    AnswerCheck.model_fields
                    if "answer" in loc[:-1]
                    else EvalCase.model_fields
                    if len(loc) > 1
                    else _CaseFile.model_fields
                )
                guess = closest(str(loc[-1]), fields)
                message = f"unknown key {loc[-1]!r}"
                hint = f"did you mean {guess!r}?" if guess else f"allowed: {', '.join(fields)}"
            issues.append(ConfigIssue(where, message, line, hint))
        raise ConfigValidationError(issues, source=name) from None


def matches(entry: str, hit: Hit) -> bool:
    """Whether a test-set entry names this hit: its label, document id or source."""
    chunk = hit.chunk
    return entry in (chunk.label, chunk.document_id, chunk.source)


@dataclass(frozen=True)
class CaseResult:
    """How one case went: the rank (1-based) of each ``must_retrieve`` entry
    (None when not in the top ``top_k``), the ``must_not_retrieve`` entries that
    were found with their rank, and the labels of the hits."""

    case: EvalCase
    ranks: Mapping[str, int | None]
    forbidden: Mapping[str, int]
    hits: tuple[str, ...] = ()
    answer: AnswerResult | None = None
    hint: str = ""
    """Why the case's ``filters`` may have matched nothing, when they did
    (a field no chunk has: `sourc`), as ``ragloom search`` says it."""

    @property
    def missing(self) -> list[str]:
        return [entry for entry, rank in self.ranks.items() if rank is None]

    @property
    def retrieval_passed(self) -> bool:
        return not self.missing and not self.forbidden

    @property
    def passed(self) -> bool:
        return self.retrieval_passed and (self.answer is None or self.answer.passed)


@dataclass(frozen=True)
class CaseReport:
    """Every case's result; ``passed`` when all passed."""

    results: tuple[CaseResult, ...]

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def failures(self) -> list[CaseResult]:
        return [r for r in self.results if not r.passed]

    def score(self, kind: str) -> tuple[int, int]:
        """(passed, total) of the ``retrieval`` or ``answer`` checks."""
        if kind == "answer":
            checked = [r.answer.passed for r in self.results if r.answer is not None]
        else:
            checked = [r.retrieval_passed for r in self.results if r.case.checks_retrieval]
        return sum(checked), len(checked)

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "retrieval": dict(zip(("passed", "total"), self.score("retrieval"))),
            "answers": dict(zip(("passed", "total"), self.score("answer"))),
            "cases": [
                {
                    "question": r.case.question,
                    "passed": r.passed,
                    "ranks": dict(r.ranks),
                    "missing": r.missing,
                    "forbidden": dict(r.forbidden),
                    "hits": list(r.hits),
                    **({"hint": r.hint} if r.hint else {}),
                    **({"answer": _answer_dict(r.answer)} if r.answer is not None else {}),
                }
                for r in self.results
            ],
        }


def _answer_dict(result: AnswerResult) -> dict[str, Any]:
    return {
        "passed": result.passed,
        "text": result.text,
        "grounded": result.grounded,
        "missing": list(result.missing),
        "forbidden": list(result.forbidden),
        "refusal": result.refusal,
    }


def run_cases(pipeline: Pipeline, cases: Iterable[EvalCase]) -> CaseReport:
    """Retrieve the top ``top_k`` for each case's question (with its filters
    and principals) and check what was found.

    Raises ``ConfigError`` first when an entry of ``must_retrieve`` or
    ``must_not_retrieve`` names no indexed document: a misspelt
    ``must_not_retrieve`` entry would pass every time."""
    from ..filters import why_nothing_matched

    cases = list(cases)
    _check_entries(pipeline, cases)
    results = []
    for case in cases:
        ranks: dict[str, int | None] = {}
        forbidden: dict[str, int] = {}
        labels: tuple[str, ...] = ()
        hint = ""
        if case.checks_retrieval:
            hits = pipeline.retrieve(
                case.question, case.filters, case.top_k, principals=case.principals
            )
            measured_whole(hits.degraded)
            if not hits and case.filters:
                hint = why_nothing_matched(pipeline, case.question, case.filters, case.principals)
            labels = tuple(h.chunk.label for h in hits)
            ranks = {
                entry: next((r for r, h in enumerate(hits, 1) if matches(entry, h)), None)
                for entry in case.must_retrieve
            }
            for entry in case.must_not_retrieve:
                rank = next((r for r, h in enumerate(hits, 1) if matches(entry, h)), None)
                if rank is not None:
                    forbidden[entry] = rank
        answer = None
        if case.answer is not None:
            answered = pipeline.ask(
                case.question, case.filters, k=case.top_k, principals=case.principals
            )
            measured_whole(answered.metadata.get("retrieval_degraded", ""))
            answer = check_answer(
                case.answer,
                answered.text,
                answered.grounded,
                uncited=bool(answered.metadata.get("uncited")),
            )
            labels = labels or tuple(h.chunk.label for h in answered.hits)
        results.append(CaseResult(case, ranks, forbidden, labels, answer, hint))
    return CaseReport(tuple(results))


def _check_entries(pipeline: Pipeline, cases: list[EvalCase]) -> None:
    """Every entry names an indexed document: its id or source, or, for a
    chunk label (``docs/pricing.md#refunds``), the part before the ``#``."""
    entries = [
        (number, case, field, entry)
        for number, case in enumerate(cases, 1)
        for field in ("must_retrieve", "must_not_retrieve")
        for entry in getattr(case, field)
    ]
    if not entries:
        return
    pipeline.open()
    ids = set(pipeline.retriever.sync().stamps)
    if not ids:
        return  # nothing indexed: the run says so
    known = ids | {i.partition("#")[0] for i in ids}
    unknown = [
        (number, case, field, entry)
        for number, case, field, entry in entries
        if entry not in known and entry.partition("#")[0] not in known
    ]
    if unknown:
        choices = sorted(known)

        def said(number: int, case: EvalCase, field: str, entry: str) -> str:
            guess = closest(entry.partition("#")[0], choices)
            return f"case {number} ({case.question[:60]!r}): {field} {entry!r}" + (
                f" (did you mean {guess!r}?)" if guess else ""
            )

        lines = "; ".join(said(*wrong) for wrong in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise ConfigError(
            f"{len(unknown)} "
            f"{'entry names' if len(unknown) == 1 else 'entries name'} no indexed "
            f"document: {lines}{more}. An entry is a document id or source path "
            "(docs/pricing.md) or a chunk label (docs/pricing.md#refunds)"
        )
    _check_labels(pipeline, [e for e in entries if "#" in e[3] and e[3] not in ids], ids)


def _check_labels(
    pipeline: Pipeline, entries: list[tuple[int, EvalCase, str, str]], ids: set[str]
) -> None:
    """Every chunk label (``docs/pricing.md#refunds``) whose document is
    indexed is one of that document's labels: a misspelt section in
    ``must_not_retrieve`` would pass every time. A document's labels are
    read back from the stores (its every chunk, by a filter on its id);
    when they cannot all be (a store caps ``k``, a reranker keeps fewer,
    access rules), its entries are not checked."""
    from ..ledger import LEDGER_FILE, Ledger

    documents = {entry.partition("#")[0] for _, _, _, entry in entries} & ids
    if not documents:
        return
    ledger = Ledger(pipeline.index_dir / LEDGER_FILE).open(read_only=True)
    try:
        counts = {
            doc_id: len(entry.chunk_ids)
            for doc_id, entry in ledger.entries().items()
            if doc_id in documents
        }
    finally:
        ledger.close()
    labels: dict[str, set[str]] = {}
    for doc_id, count in counts.items():
        try:
            hits = pipeline.retrieve(doc_id, {"document_id": doc_id}, k=max(count, 1))
        except RagloomError:
            continue
        if len({hit.chunk.id for hit in hits}) == count:
            labels[doc_id] = {hit.chunk.label for hit in hits}
    wrong = [
        (number, case, field, entry)
        for number, case, field, entry in entries
        if entry.partition("#")[0] in labels and entry not in labels[entry.partition("#")[0]]
    ]
    if wrong:
        number, case, field, entry = wrong[0]
        doc = entry.partition("#")[0]
        count = counts[doc]
        guess = closest(entry, sorted(labels[doc]))
        more = f" (and {len(wrong) - 1} more entries)" if len(wrong) > 1 else ""
        raise ConfigError(
            f"case {number} ({case.question[:60]!r}): {field} {entry!r} names no chunk "
            f"of {doc}{more}, so it would never be found"
            + (f"; did you mean {guess!r}?" if guess else "")
            + f' (`ragloom search --filter \'{{"document_id": "{doc}"}}\' -k {count} '
            f"{doc}` lists its labels)"
        )


def measured_whole(degraded: str) -> None:
    """An evaluation measures the configured pipeline or nothing: a query that
    skipped a failed stage (``hits.degraded``: the reranker down, under
    ``retrieval.on_rerank_error: fuse``) stops it, or its scores would be
    another pipeline's, unsaid."""
    if degraded:
        raise RagloomError(
            f"{degraded} during the evaluation: its scores would be of the fused order, not "
            "of the configured pipeline; run it again when the reranker answers"
        )
