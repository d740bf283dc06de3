"""The playground's eval view: test sets (``ragloom eval`` files) the server
allows, run on behalf of an API key.

The server names the files (``ragloom serve --eval-file PATH``, repeatable);
a client picks one by that name, from :meth:`EvalFiles.names`, and never
sends a path. Each case runs through :func:`ragloom.evaluation.run_cases`,
one case at a time in the pipeline's thread pool, with the key's principals:
a case that names ``principals:`` of its own runs as them only when the key
has every one of them, and is reported as an error otherwise, so a test set
never widens what a key may read.

Beside pass/fail, each case that lists ``must_retrieve`` gets nDCG@k and
Recall@k (``k`` its ``top_k``), computed by :mod:`ragloom.evaluation.metrics`
with each ``must_retrieve`` entry as one relevant document (gain 1) found at
the rank of the first hit it matches (entries first matched by one hit take
that rank and the ones just after it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, FilterError, RagloomError
from ..evaluation import CaseReport, CaseResult, EvalCase, load_cases, ndcg_at_k, recall_at_k
from .errors import ApiError
from .keys import Caller

if TYPE_CHECKING:
    from .service import Service

__all__ = ["EvalFiles", "case_metrics", "case_principals", "run_eval"]


@dataclass(frozen=True)
class EvalFiles:
    """The test sets a server allows, by name (the file's name, unique)."""

    paths: Mapping[str, Path]

    @classmethod
    def of(cls, paths: Sequence[str | Path], *, check: bool = True) -> EvalFiles:
        """Name each file by its file name; two files with one name are an
        error. With ``check``, each file is read and validated now (a
        ``ConfigValidationError`` lists every problem), so a broken test set
        stops the server from starting instead of failing in the page."""
        named: dict[str, Path] = {}
        for given in paths:
            path = Path(given).resolve()
            if path.name in named and named[path.name] != path:
                raise ValueError(
                    f"two eval files are named {path.name!r} ({named[path.name]} and {path}): "
                    "the page names files by their name, so rename one"
                )
            named[path.name] = path
        if check:
            for path in named.values():
                load_cases(path)
        return cls(named)

    @property
    def names(self) -> list[str]:
        return list(self.paths)

    def cases(self, name: str) -> list[EvalCase]:
        """The cases of the file called ``name``, read now (so an edit shows
        without a restart). A name the server does not allow is 404."""
        path = self.paths.get(name)
        if path is None:
            allowed = ", ".join(self.paths) or "none (start the server with --eval-file FILE)"
            raise ApiError(
                "not_found",
                f"no eval file {name!r} on this server; allowed: {allowed}",
                param="file",
            )
        try:
            return load_cases(path)
        except RagloomError as exc:
            raise ApiError(
                "invalid_request",
                f"the eval file {name!r} cannot be read now: {_named(exc, path, name)}",
                param="file",
            ) from None

    def describe(self) -> list[dict[str, Any]]:
        """Each file's name and number of cases (or why it cannot be read now)."""
        out: list[dict[str, Any]] = []
        for name, path in self.paths.items():
            try:
                out.append({"name": name, "cases": len(load_cases(path)), "error": None})
            except RagloomError as exc:
                out.append({"name": name, "cases": None, "error": _named(exc, path, name)})
        return out


def _named(exc: Exception, path: Path, name: str) -> str:
    """``exc``'s message with the file's path (the server's business) as its name."""
    return str(exc).replace(str(path), name)


class CaseRefused(Exception):
    """A case this key may not run as written."""


def case_principals(case: EvalCase, who: Caller) -> list[str] | None:
    """The principals ``case`` runs as for ``who``: the key's own, or the
    case's ``principals:`` when the key has every one of them."""
    if who.principals is None:
        return case.principals
    if case.principals is None:
        return list(who.principals)
    foreign = [p for p in case.principals if p not in who.principals]
    if foreign:
        raise CaseRefused(f"the case runs as {foreign[0]!r}, which this key may not act as")
    return list(case.principals)


def case_metrics(result: CaseResult) -> tuple[float, float] | None:
    """(nDCG@k, Recall@k) of a case with ``must_retrieve`` entries, else None."""
    case = result.case
    if not case.must_retrieve:
        return None
    first: dict[int, list[str]] = {}
    for entry, rank in result.ranks.items():
        if rank is not None:
            first.setdefault(rank, []).append(entry)
    order: list[str] = []
    for rank in range(1, len(result.hits) + 1):
        order.extend(first.get(rank, [f"\x00hit{rank}"]))
    run = {"case": {doc: float(len(order) - i) for i, doc in enumerate(order)}}
    qrels = {"case": dict.fromkeys(result.ranks, 1)}
    k = max(case.top_k, len(order))  # entries that share a hit all count as found
    return ndcg_at_k(run, qrels, k).per_query["case"], recall_at_k(run, qrels, k).per_query["case"]


async def run_eval(service: Service, files: EvalFiles, name: str, who: Caller) -> dict[str, Any]:
    """Run the file ``name`` as ``who``, within the server's time limit."""
    from ..evaluation import run_cases

    service.require_ready()
    cases = files.cases(name)
    pipeline = service.pipeline
    if not (pipeline.index_dir / "ledger.sqlite").exists():
        raise ApiError("index_unavailable", "nothing is indexed yet: run `ragloom index` first")
    loop = asyncio.get_running_loop()

    async def one(case: EvalCase) -> CaseResult | str:
        if case.top_k > service.settings.max_k:
            return f"top_k is {case.top_k}; this server allows at most {service.settings.max_k}"
        try:
            narrowed = case.model_copy(update={"principals": case_principals(case, who)})
        except CaseRefused as exc:
            return str(exc)
        try:
            report = await loop.run_in_executor(pipeline.executor, run_cases, pipeline, [narrowed])
        except FilterError as exc:
            return f"filters: {exc}"
        except ConfigError as exc:  # an entry that names no indexed document
            return str(exc)
        return report.results[0]

    async def every() -> list[CaseResult | str]:
        # one case after another: past the time limit, no further case starts
        return [await one(case) for case in cases]

    outcomes = await service.limited(every())
    return _report(name, cases, outcomes)


def _report(name: str, cases: list[EvalCase], outcomes: list[CaseResult | str]) -> dict[str, Any]:
    results = [o for o in outcomes if isinstance(o, CaseResult)]
    shaped = iter(CaseReport(tuple(results)).to_dict()["cases"])
    rows: list[dict[str, Any]] = []
    retrieval = [0, 0]
    answers = [0, 0]
    for number, (case, outcome) in enumerate(zip(cases, outcomes), start=1):
        row: dict[str, Any] = {"number": number, "top_k": case.top_k, "error": None}
        if isinstance(outcome, str):
            row |= {
                "question": case.question,
                "passed": False,
                "ranks": {},
                "missing": [],
                "forbidden": {},
                "hits": [],
                "error": outcome,
            }
            retrieval_passed: bool | None = False if case.checks_retrieval else None
            answer_passed: bool | None = False if case.answer is not None else None
            metrics = None
        else:
            row |= next(shaped)
            retrieval_passed = outcome.retrieval_passed if case.checks_retrieval else None
            answer_passed = outcome.answer.passed if outcome.answer is not None else None
            metrics = case_metrics(outcome)
        row["retrieval_passed"] = retrieval_passed
        row["answer_passed"] = answer_passed
        row["ndcg"], row["recall"] = metrics if metrics is not None else (None, None)
        for tally, passed in ((retrieval, retrieval_passed), (answers, answer_passed)):
            if passed is not None:
                tally[0] += passed
                tally[1] += 1
        rows.append(row)
    scored = [r for r in rows if r["ndcg"] is not None]
    return {
        "file": name,
        "passed": all(r["passed"] for r in rows),
        "retrieval": {"passed": retrieval[0], "total": retrieval[1]},
        "answers": {"passed": answers[0], "total": answers[1]},
        "ndcg": _mean([r["ndcg"] for r in scored]),
        "recall": _mean([r["recall"] for r in scored]),
        "cases": rows,
    }


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None
