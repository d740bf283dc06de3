"""Test sets: questions with the sources retrieval must (and must not) find.

cases:
  - question: How much does the Team plan cost?
    must_retrieve: [docs/pricing-faq.md]
    top_k: 3
  - question: Can administrators read private memories?
    must_retrieve: [docs/memory-system.md#who-can-see-a-memory]
    must_not_retrieve: [docs/pricing-faq.md]
    filters: {extension: .md}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import ConfigIssue, ConfigValidationError, RagloomError
from ..registry import closest

if TYPE_CHECKING:
    from ..pipeline import Pipeline
    from ..types import Hit

__all__ = ["CaseReport", "CaseResult", "EvalCase", "load_cases", "matches", "run_cases"]


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

    @model_validator(mode="after")
    def _expects_something(self) -> EvalCase:
        if not self.must_retrieve and not self.must_not_retrieve:
            raise ValueError(
                "the case checks nothing: give it `must_retrieve` or `must_not_retrieve`"
            )
        return self


class _CaseFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cases: list[EvalCase] = Field(min_length=1)


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
        data, lines = read_config_file(path)
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
                fields = list(EvalCase.model_fields if len(loc) > 1 else _CaseFile.model_fields)
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

    @property
    def missing(self) -> list[str]:
        return [entry for entry, rank in self.ranks.items() if rank is None]

    @property
    def passed(self) -> bool:
        return not self.missing and not self.forbidden


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "cases": [
                {
                    "question": r.case.question,
                    "passed": r.passed,
                    "ranks": dict(r.ranks),
                    "missing": r.missing,
                    "forbidden": dict(r.forbidden),
                    "hits": list(r.hits),
                }
                for r in self.results
            ],
        }


def run_cases(pipeline: Pipeline, cases: Iterable[EvalCase]) -> CaseReport:
    """Retrieve the top ``top_k`` for each case's question (with its filters
    and principals) and check what was found."""
    results = []
    for case in cases:
        hits = pipeline.retrieve(
            case.question, case.filters, case.top_k, principals=case.principals
        )
        ranks = {
            entry: next((r for r, h in enumerate(hits, 1) if matches(entry, h)), None)
            for entry in case.must_retrieve
        }
        forbidden = {}
        for entry in case.must_not_retrieve:
            rank = next((r for r, h in enumerate(hits, 1) if matches(entry, h)), None)
            if rank is not None:
                forbidden[entry] = rank
        results.append(CaseResult(case, ranks, forbidden, tuple(h.chunk.label for h in hits)))
    return CaseReport(tuple(results))
