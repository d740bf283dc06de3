"""``ragloom eval``: run a test set of questions, or a BEIR evaluation, against
the configured pipeline.

    ragloom eval eval.yaml                           # exit 1 if a case fails
    ragloom eval --beir data/scifact --split train   # nDCG@10, Recall@100, MRR@10...
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from .cli_support import (
    console,
    escape,
    handle_errors,
    index_dir_hint,
    load_pipeline,
    sanitize,
)
from .errors import RagloomError

__all__ = ["eval_command"]


@click.command("eval")
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--beir",
    "beir_dir",
    type=click.Path(file_okay=False),
    help="Evaluate on a BEIR dataset folder (corpus.jsonl, queries.jsonl, qrels/) instead.",
)
@click.option("--split", default=None, help="With --beir: the qrels split to use (default: test).")
@click.option(
    "--limit-queries",
    type=click.IntRange(min=1),
    default=None,
    help="With --beir: evaluate only the first N queries.",
)
@click.option(
    "--index-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="With --beir: where to index the corpus (default: <index_dir>/beir/<dataset>-<hash>).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.pass_context
@handle_errors
def eval_command(
    ctx: click.Context,
    file: str | None,
    beir_dir: str | None,
    split: str | None,
    limit_queries: int | None,
    index_dir: str | None,
    as_json: bool,
) -> None:
    """Check retrieval and answers: run the test set FILE, or a BEIR evaluation with --beir.

    FILE lists questions with the sources each must (and must not) retrieve
    and what the answer must (not) say; the exit code is 1 when any case
    fails. --beir indexes the dataset's corpus with this config's chunker,
    embedder and stores (in a separate index) and prints nDCG, MRR, recall
    and precision at 10 and 100, with timings.
    """
    if (file is None) == (beir_dir is None):
        raise click.UsageError("give either a test-set FILE or --beir DIR (not both)")
    if beir_dir is None:
        given = [name for name, v in (("--split", split), ("--index-dir", index_dir)) if v]
        given += ["--limit-queries"] if limit_queries is not None else []
        if given:
            verb = "applies" if len(given) == 1 else "apply"
            raise click.UsageError(f"{', '.join(given)} only {verb} with --beir DIR")
        _run_cases(ctx, Path(file), as_json)  # type: ignore[arg-type]
    else:
        _run_beir(ctx, Path(beir_dir), split or "test", limit_queries, index_dir, as_json)


def _run_cases(ctx: click.Context, file: Path, as_json: bool) -> None:
    from .evaluation import load_cases, run_cases

    cases = load_cases(file)
    with load_pipeline(ctx) as pipeline:
        if not (pipeline.index_dir / "ledger.sqlite").exists():
            raise RagloomError(
                f"nothing is indexed yet in {pipeline.index_dir}: run `ragloom index` first"
            )
        report = run_cases(pipeline, cases)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        _print_cases(report)
    if not report.passed:
        sys.exit(1)


def _print_cases(report: Any) -> None:
    answers = any(r.answer is not None for r in report.results)
    columns = ["#", "question", "status", "must retrieve (rank)", "missing", "forbidden found"]
    if answers:
        columns.append("answer")
    if not sys.stdout.isatty():  # piped (| grep, a CI log): one line a case, nothing wrapped
        _print_cases_piped(report, columns, answers)
    else:
        _print_cases_table(report, columns, answers)
    _print_summary(report, console())


def _print_cases_piped(report: Any, columns: list[str], answers: bool) -> None:
    click.echo("\t".join(columns))
    for number, result in enumerate(report.results, start=1):
        ranks = [
            f"{entry}: {rank if rank is not None else '—'}" for entry, rank in result.ranks.items()
        ]
        forbidden = [f"{entry} (rank {rank})" for entry, rank in result.forbidden.items()]
        fields = [
            str(number),
            result.case.question,
            "PASS" if result.passed else "FAIL",
            "; ".join(ranks) or "—",
            "; ".join(result.missing),
            "; ".join(forbidden),
        ]
        if answers:
            fields.append(_answer_line(result.answer))
        click.echo("\t".join(" ".join(sanitize(f).split()) for f in fields))


def _answer_line(answer: Any) -> str:
    if answer is None:
        return "—"
    if answer.passed:
        return "PASS"
    text = " ".join(answer.text.split())[:160]
    return "FAIL: " + "; ".join(_answer_reasons(answer)) + f": {text}"


def _answer_reasons(answer: Any) -> list[str]:
    reasons = [f"lacks {m}" for m in answer.missing]
    reasons += [f"says {f}" for f in answer.forbidden]
    if answer.refusal:
        reasons.append(answer.refusal)
    return reasons


def _print_cases_table(report: Any, columns: list[str], answers: bool) -> None:
    from rich.table import Table

    table = Table(show_lines=True)
    for column in columns:
        table.add_column(column, overflow="fold")
    for number, result in enumerate(report.results, start=1):
        ranks = "\n".join(
            f"{escape(entry)}: {rank if rank is not None else '—'}"
            for entry, rank in result.ranks.items()
        )
        forbidden = "\n".join(
            f"{escape(entry)} (rank {rank})" for entry, rank in result.forbidden.items()
        )
        row = [
            str(number),
            escape(result.case.question),
            "[green]PASS[/]" if result.passed else "[bold red]FAIL[/]",
            ranks or "—",
            "\n".join(escape(m) for m in result.missing),
            forbidden,
        ]
        if answers:
            row.append(_answer_cell(result.answer))
        table.add_row(*row)
    console().print(table)


def _print_summary(report: Any, out: Any) -> None:
    for number, result in enumerate(report.results, start=1):
        if result.hint:  # its filters matched nothing: why they may not have
            out.print(f"[yellow]note[/] case {number}: no hits under its filters: "
                      + escape(result.hint))  # fmt: skip
    failed = len(report.failures)
    total = len(report.results)
    scores = []
    for kind, label in (("retrieval", "retrieval"), ("answer", "answers")):
        passed, checked = report.score(kind)
        if checked:
            scores.append(f"{label} {passed}/{checked}")
    summary = f" ({', '.join(scores)})" if scores else ""
    if failed:
        out.print(f"[bold red]{failed} of {total} case(s) failed[/]{summary}")
    else:
        out.print(f"[green]all {total} case(s) passed[/]{summary}")


def _answer_cell(answer: Any) -> str:
    if answer is None:
        return "—"
    if answer.passed:
        return "[green]PASS[/]"
    reasons = [escape(reason) for reason in _answer_reasons(answer)]
    text = escape(" ".join(answer.text.split())[:160])
    return "[bold red]FAIL[/]: " + "; ".join(reasons) + f"\n[dim]{text}[/]"


def _run_beir(
    ctx: click.Context,
    directory: Path,
    split: str,
    limit_queries: int | None,
    index_dir: str | None,
    as_json: bool,
) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .evaluation import evaluate_beir
    from .plugins import get_plugin_manager

    pipeline = load_pipeline(ctx)
    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console(stderr=True),
        transient=True,
        disable=as_json or not sys.stderr.isatty(),
    ) as bar:
        tasks: dict[str, Any] = {}

        def progress(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task("indexing" if phase == "index" else "querying")
            bar.update(tasks[phase], completed=done, total=total)

        with index_dir_hint(index_dir, "ragloom eval --beir"):
            report = evaluate_beir(
                pipeline.to_config(),
                directory,
                split,
                limit_queries=limit_queries,
                index_dir=Path(index_dir).resolve() if index_dir else None,
                base_dir=pipeline.config.base_dir,
                plugin_manager=get_plugin_manager(),
                progress=progress,
            )
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
        return
    _print_beir(report)


def _print_beir(report: Any) -> None:
    from rich.table import Table

    out = console()
    cutoffs = sorted({int(name.split("@")[1]) for name in report.metrics})
    families = list(dict.fromkeys(name.split("@")[0] for name in report.metrics))
    table = Table(title=escape(f"{report.dataset} ({report.split}, {report.queries} queries)"))
    table.add_column("metric")
    for k in cutoffs:
        table.add_column(f"@{k}", justify="right")
    errors = report.standard_errors

    def cell(name: str) -> str:
        error = errors.get(name)
        return f"{report.metrics[name]:.4f}" + (f" ±{error:.4f}" if error is not None else "")

    for family in families:
        table.add_row(escape(family), *(cell(f"{family}@{k}") for k in cutoffs))
    out.print(table)
    if errors:
        out.print(
            f"± is the standard error over the {report.queries} queries: configs whose "
            "means differ by less than about twice it are not told apart by this split"
        )
    out.print(
        f"corpus: {report.documents} document(s), {report.indexed} (re)indexed, "
        f"{report.chunks_written} chunk(s) written in {report.index_seconds:.2f}s "
        f"(index: {escape(report.index_dir)})"
    )
    out.print(
        f"queries: mean {report.mean_query_ms:.2f} ms, p50 {report.percentile_ms(50):.2f} ms, "
        f"p95 {report.percentile_ms(95):.2f} ms"
    )
    if report.stage_seconds:
        stages = Table(title="time per stage")
        stages.add_column("stage")
        stages.add_column("seconds", justify="right")
        for stage, seconds in report.stage_seconds.items():
            stages.add_row(escape(stage), f"{seconds:.3f}")
        out.print(stages)
    shown = 20
    for source, message in report.problems[:shown]:
        out.print(f"[yellow]note[/] {escape(source)}: {escape(message)}")
    if len(report.problems) > shown:
        out.print(f"[yellow]... and {len(report.problems) - shown} more problem(s)[/]")
