"""Answer quality on the blind-probe sets in ``benchmarks/answers``: each
folder is a project (``docs/``, ``ragloom.yaml``, ``eval.yaml``), indexed and
asked every case with its own config, each answer graded mechanically:

- a ``must_refuse`` case: refused is right (CR), an answer is misleading (M);
- any other case: refused is a wrong refusal (WR); holding every
  ``must_contain`` entry and no ``must_not_contain`` string is right (R);
  anything else is misleading (M).

It is a report, not a pass/fail target: the sets hold questions no generator
here answers yet. ``python benchmarks/bench_answers.py [GENERATOR]`` runs it
alone (``GENERATOR`` replaces each config's ``generator.type``, e.g. an LLM
plugin's); ``python benchmarks/bench_answers.py extractive min_relevance=0.5``
sets a generator option too (``NAME=VALUE``, the value read as YAML).
``make bench`` prints it after the speed table.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ANSWERS = Path(__file__).parent / "answers"
GRADES = ("R", "CR", "WR", "M")


def grade(check: object, text: str, grounded: bool) -> str:
    """R, CR, WR or M for one answer against its case's ``answer:`` check."""
    from ragloom.evaluation.cases import AnswerCheck, check_answer

    assert isinstance(check, AnswerCheck)
    if check.must_refuse:
        return "M" if grounded else "CR"
    if not grounded:
        return "WR"
    return "R" if check_answer(check, text, grounded).passed else "M"


def grade_project(
    folder: Path, generator: str | None = None, options: dict[str, object] | None = None
) -> Counter[str]:
    """Index one probe collection and grade its every case (``generator``
    replaces the config's generator type; ``options`` are set on it)."""
    import ragloom
    import yaml
    from ragloom.evaluation import load_cases

    config = yaml.safe_load((folder / "ragloom.yaml").read_text(encoding="utf-8"))
    if generator:
        config["generator"] = {"type": generator}
    if options:
        config["generator"] = {**config.get("generator", {}), **options}
    grades: Counter[str] = Counter()
    with ragloom.load(config, base_dir=folder) as pipeline:
        pipeline.index()
        for case in load_cases(folder / "eval.yaml"):
            if case.answer is None:
                continue
            answer = pipeline.ask(case.question)
            grades[grade(case.answer, answer.text, answer.grounded)] += 1
    return grades


def report_answers(
    generator: str | None = None, options: dict[str, object] | None = None
) -> dict[str, Counter[str]]:
    """The grades of every probe set (``l-dental``, ``l-ferry`` ... make ``l``)."""
    by_probe: dict[str, Counter[str]] = {}
    for folder in sorted(p for p in ANSWERS.iterdir() if (p / "eval.yaml").is_file()):
        probe = folder.name.split("-", 1)[0]
        by_probe.setdefault(probe, Counter()).update(grade_project(folder, generator, options))
    return by_probe


def print_report(by_probe: dict[str, Counter[str]], generator: str = "extractive") -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"answers of {generator} on the probe sets in benchmarks/answers")
    for column in ("set", "cases", *GRADES, "misleading"):
        table.add_column(column)
    total: Counter[str] = Counter()
    for probe, grades in by_probe.items():
        total.update(grades)
        table.add_row(*_cells(probe, grades))
    table.add_row(*_cells("all", total))
    Console(width=120).print(table)


def _cells(name: str, grades: Counter[str]) -> list[str]:
    cases = sum(grades.values())
    share = f"{grades['M'] / cases:.0%}" if cases else "-"
    return [name, str(cases), *(str(grades[g]) for g in GRADES), share]


def _options(arguments: list[str]) -> dict[str, object]:
    """``NAME=VALUE`` arguments as generator options (each value read as YAML)."""
    import yaml

    options: dict[str, object] = {}
    for argument in arguments:
        name, equals, value = argument.partition("=")
        if not equals or not name:
            raise SystemExit(f"{argument!r}: a generator option is NAME=VALUE")
        options[name] = yaml.safe_load(value)
    return options


if __name__ == "__main__":
    chosen = sys.argv[1] if len(sys.argv) > 1 and "=" not in sys.argv[1] else None
    options = _options(sys.argv[2 if chosen else 1 :])
    title = (chosen or "extractive") + "".join(f" {k}={v}" for k, v in options.items())
    print_report(report_answers(chosen, options), title)
