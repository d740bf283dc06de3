"""How the CLI shows an answer: as text with its citations and notes, as
JSON, streamed, and its stages' timings. ``ragloom ask`` and ``ragloom
chat`` print answers alike through these."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .cli_support import console, escape, sanitize

__all__ = [
    "answer_json",
    "empty_index",
    "print_answer",
    "print_stream",
    "print_trace",
]


def empty_index(index_dir: Path, indexed: Any, documents: Any) -> str | None:
    """What to say when a query found nothing because the index holds
    nothing (``indexed``: its corpus version, 0 until a run commits;
    ``documents``: how many it holds); None when it holds documents."""
    if not indexed:
        return f"nothing is indexed yet in {index_dir}; run `ragloom index`"
    if not documents:
        return (
            f"the index in {index_dir} holds no documents (the last `ragloom index` "
            "found none): check the loaders' paths, then run `ragloom index`"
        )
    return None


def answer_json(answer: Any, *, trace: bool = False) -> dict[str, Any]:
    """``answer`` as ``ask --json`` prints it (``trace``: with its stages): the
    server's ``/v1/ask`` fields but those only a server has (``cached``,
    ``corpus_version``)."""
    from .server.service import answer_json as served

    out = served(answer, trace=trace)
    del out["cached"], out["corpus_version"]
    return out


def print_answer(answer: Any) -> None:
    """The answer's text (sanitised), its citations, and its notes (stderr)."""
    out = console()
    out.print(sanitize(answer.text), markup=False)
    _print_citations(answer)
    _answer_notes(answer)


def print_stream(stream: Any) -> Any:
    """The pieces as they come (sanitised), then the checked answer's
    citations; returns that answer (None when the stream gave none)."""
    with stream:
        for piece in stream:
            click.echo(sanitize(piece), nl=False)
    click.echo()
    answer = stream.answer
    if answer is not None:
        _print_citations(answer)
        _answer_notes(answer)
    return answer


def print_trace(answer: Any) -> None:
    from rich.table import Table

    timings = answer.metadata.get("trace", ())
    table = Table(title="stages", show_lines=False)
    for column in ("stage", "component", "ms", "items"):
        table.add_column(column, justify="right" if column in ("ms", "items") else "left")
    for t in timings:
        count = "" if t.count is None else str(t.count)
        table.add_row(t.stage, escape(t.name), f"{t.seconds * 1000:.1f}", count)
    total = sum(t.seconds for t in timings)
    table.add_row("total", "", f"{total * 1000:.1f}", "")
    console().print()
    console().print(table)
    if answer.metadata.get("cached"):
        console().print("(answered from the answer cache: no stage ran)")


def _print_citations(answer: Any) -> None:
    if answer.citations:
        out = console()
        out.print()
        for c in answer.citations:
            out.print(f"  [{c.number}] {sanitize(c.label)}", markup=False)


def _answer_notes(answer: Any) -> None:
    """What a person must know of an answer that its text does not say."""
    if answer.metadata.get("uncited"):
        click.echo(
            "note: the answer cites no passage: it may come from the model, not the documents",
            err=True,
        )
    if answer.metadata.get("truncated"):
        click.echo(
            "note: the answer was cut off at the generator's max_tokens; raise it for a "
            "whole answer",
            err=True,
        )
