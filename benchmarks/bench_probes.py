"""The ``extractive`` generator on the case sets in ``benchmarks/generator_probes``.

Each set is a JSON file of Markdown pages and cases written, expectations
first, by the reviews of the generator's rules. A case is a question asked
over some of the pages (chunked as an indexed Markdown folder chunks them,
ranked in the order given) with what a right answer holds:

- ``must``: every string; ``must_any``: one of them; ``count``: each string
  at least so many times;
- ``must_not``: none of them (an answer that holds one is misleading);
- ``refuse``: only a refusal is right; ``refuse_ok``: a refusal is right too.

A string matches whole ("£7" is not in "£70", "5 minutes" not in "15
minutes"), case-blind unless it starts with a capital; ``^`` anchors it at
the start of the answer. Each set records ``met``: how many cases its
generator met when the set last changed, a floor that
``tests/test_bench_probes.py`` holds the generator to.

It is a report, not a target: the sets hold cases no rule meets yet.
``python benchmarks/bench_probes.py`` prints it; ``make bench`` prints it
after the answer grades.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROBES = Path(__file__).parent / "generator_probes"


@dataclass(frozen=True)
class Result:
    met: int
    misleading: int
    cases: int
    floor: int


def _pattern(text: str) -> re.Pattern[str]:
    before = r"(?<!\w)" if text[:1].isalnum() else ""
    after = r"(?![\w]|[.,][0-9])" if text[-1:].isalnum() else ""
    flags = 0 if text[:1].isupper() else re.IGNORECASE
    return re.compile(before + re.escape(text) + after, flags)


def holds(answer: str, text: str) -> bool:
    """Whether ``answer`` holds ``text`` whole (``^``: at its start)."""
    if text.startswith("^"):
        return answer.lstrip().startswith(text[1:])
    return _pattern(text).search(answer) is not None


def judge(case: dict[str, Any], grounded: bool, text: str) -> tuple[bool, bool]:
    """(met, misleading) for one answer to ``case``."""
    said = text if grounded else ""
    wrong = any(holds(said, s) for s in case.get("must_not", ()))
    misleading = grounded and wrong
    if case.get("refuse"):
        return not grounded, grounded
    wanted = case.get("must") or case.get("must_any") or case.get("count")
    if not grounded:
        return bool(case.get("refuse_ok")) or not wanted, False
    met = all(holds(said, s) for s in case.get("must", ()))
    if case.get("must_any"):
        met = met and any(holds(said, s) for s in case["must_any"])
    met = met and all(len(_pattern(s).findall(said)) >= n for s, n in case.get("count", {}).items())
    return met and not wrong, misleading


def _chunks(name: str, markdown: str) -> list[Any]:
    from ragloom.builtin.chunkers.markdown import MarkdownChunker
    from ragloom.builtin.loaders.parsers.markdown import parse_markdown
    from ragloom.types import Document

    body, meta = parse_markdown(markdown, report=lambda message: None)
    source = f"docs/{name}.md"
    document = Document(id=source, text=body, metadata={"source": source, **meta})
    return MarkdownChunker(size=800, overlap=100).split(document)


def run_set(path: Path) -> tuple[Result, dict[str, dict[str, Any]]]:
    """Every case of one set asked and judged: the counts, and each answer."""
    from ragloom.builtin.generators.extractive import ExtractiveGenerator
    from ragloom.types import Hit

    probe = json.loads(path.read_text(encoding="utf-8"))
    generator = ExtractiveGenerator()
    answers: dict[str, dict[str, Any]] = {}
    for case in probe["cases"]:
        chunks = [c for page in case["pages"] for c in _chunks(page, probe["pages"][page])]
        hits = [Hit(c, score=1.0 - i / 10) for i, c in enumerate(chunks)]
        answer = generator.generate(case["question"], hits)
        met, misleading = judge(case, answer.grounded, answer.text)
        answers[case["id"]] = {"text": answer.text, "met": met, "misleading": misleading}
    result = Result(
        met=sum(a["met"] for a in answers.values()),
        misleading=sum(a["misleading"] for a in answers.values()),
        cases=len(answers),
        floor=int(probe.get("met", 0)),
    )
    return result, answers


def report_probes() -> dict[str, Result]:
    return {path.stem: run_set(path)[0] for path in sorted(PROBES.glob("*.json"))}


def print_report(results: dict[str, Result]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="extractive on the case sets in benchmarks/generator_probes")
    for column in ("set", "cases", "met", "recorded", "misleading"):
        table.add_column(column)
    for name, result in results.items():
        table.add_row(
            name, str(result.cases), str(result.met), str(result.floor), str(result.misleading)
        )
    Console(width=120).print(table)


if __name__ == "__main__":
    print_report(report_probes())
