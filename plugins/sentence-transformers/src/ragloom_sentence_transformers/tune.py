"""``ragloom tune embedder`` and ``ragloom tune reranker``: fine-tune a model
on your own (question, passage) pairs and see whether it retrieves better.

Both hold out part of the questions, measure the base model on them, train
on the rest, measure the tuned model on the same held-out pairs, print
before and after, and write a model directory that ``model:`` can name.
Heavy imports happen when a command runs, never when ``ragloom`` starts.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click
from ragloom.errors import RagloomError

__all__ = ["tune"]

PAIRS_HELP = (
    "(question, passage) pairs: a TSV file (question<TAB>passage per line) or a "
    'JSON Lines file ({"question": ..., "passage": ...} per line).'
)


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def _fail(message: str, code: int) -> NoReturn:
    from rich.markup import escape

    _console(stderr=True).print(f"[bold red]error:[/] {escape(message)}")
    sys.exit(code)


def _source_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The options every tune command shares: where the pairs come from, where
    the model goes, and how the run is seeded and measured."""
    options = [
        click.option(
            "--pairs",
            type=click.Path(exists=True, dir_okay=False, path_type=Path),
            help=PAIRS_HELP,
        ),
        click.option(
            "--beir",
            type=click.Path(exists=True, file_okay=False, path_type=Path),
            help="A BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv), "
            "instead of --pairs.",
        ),
        click.option(
            "--split", default="train", show_default=True, help="The qrels split of --beir."
        ),
        click.option(
            "--out",
            required=True,
            type=click.Path(file_okay=False, path_type=Path),
            help="Directory to write the tuned model to (new or empty).",
        ),
        click.option("--epochs", default=1, show_default=True, type=click.IntRange(min=1)),
        click.option(
            "--learning-rate", default=2e-5, show_default=True, type=click.FloatRange(min=0)
        ),
        click.option(
            "--hard-negatives/--no-hard-negatives",
            default=False,
            show_default=True,
            help="Also train against the passages BM25 ranks highest that are not the answer.",
        ),
        click.option("--seed", default=42, show_default=True, type=int),
        click.option(
            "--holdout",
            default=0.2,
            show_default=True,
            type=click.FloatRange(0, 1, max_open=True),
            help="Share of the questions held out to measure the models before and after.",
        ),
        click.option(
            "--device", default=None, help="cpu, cuda, mps...; default: the best available."
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _read(pairs: Path | None, beir: Path | None, split: str) -> list[tuple[str, str]]:
    from .training import read_beir_pairs, read_pairs

    if (pairs is None) == (beir is None):
        raise click.UsageError("give either --pairs FILE or --beir DIR")
    try:
        return read_pairs(pairs) if pairs is not None else read_beir_pairs(beir, split)  # type: ignore[arg-type]
    except (RagloomError, OSError, UnicodeDecodeError) as exc:
        raise click.UsageError(str(exc)) from None


def _check_out(out: Path) -> None:
    if out.exists() and any(out.iterdir()):
        raise click.UsageError(f"--out {out} is not empty: choose a new directory, or empty it")


def _resolve(base: str) -> Any:
    from .models import resolve_model

    try:
        return resolve_model(base, Path.cwd())
    except FileNotFoundError as exc:
        raise click.UsageError(f"--base: {exc}") from None


def _progress(total: int, label: str) -> tuple[Any, Callable[[int, float], None]]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("loss {task.fields[loss]:.4f}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=_console(stderr=True),
        transient=False,
    )
    task = bar.add_task(label, total=total, loss=float("nan"))

    def advance(done: int, loss: float) -> None:
        bar.update(task, completed=done, loss=loss)

    return bar, advance


def _report(
    title: str,
    before: dict[str, float] | None,
    after: dict[str, float] | None,
    held_out: int,
    summary: dict[str, Any],
    out: Path,
    snippet: str,
) -> None:
    from rich.table import Table

    console = _console()
    if before is not None and after is not None:
        table = Table(title=f"{title}: {held_out} held-out question(s)")
        for column in ("metric", "before (base)", "after (tuned)", "change"):
            table.add_column(column)
        for name in before:
            delta = after[name] - before[name]
            table.add_row(name, f"{before[name]:.4f}", f"{after[name]:.4f}", f"{delta:+.4f}")
        console.print(table)
    else:
        console.print("no questions held out (--holdout 0): nothing was measured")
    (out / "ragloom-tune.json").write_text(
        json.dumps({**summary, "before": before, "after": after}, indent=2) + "\n", "utf-8"
    )
    console.print(f"tuned model written to {out}; use it with:\n  {snippet}", markup=False)


@click.group()
def tune() -> None:
    """Fine-tune an embedder or a reranker on your own question-passage pairs."""


@tune.command("embedder")
@_source_options
@click.option(
    "--base",
    default="all-MiniLM-L6-v2",
    show_default=True,
    help="The model to start from: a Hub name, a directory, or a packaged model.",
)
@click.option("--batch-size", default=32, show_default=True, type=click.IntRange(min=2))
@click.option(
    "--max-seq-length",
    default=None,
    type=click.IntRange(min=1),
    help="Truncate texts to this many tokens while training (faster); default: the model's.",
)
@click.option(
    "--query-prefix",
    default=None,
    help="Prefix of questions; default: chosen by model, as the embedder does.",
)
@click.option(
    "--document-prefix", default=None, help="Prefix of passages; default: chosen by model."
)
def tune_embedder(
    pairs: Path | None,
    beir: Path | None,
    split: str,
    out: Path,
    epochs: int,
    learning_rate: float,
    hard_negatives: bool,
    seed: int,
    holdout: float,
    device: str | None,
    base: str,
    batch_size: int,
    max_seq_length: int | None,
    query_prefix: str | None,
    document_prefix: str | None,
) -> None:
    """Fine-tune a sentence-transformers embedder with in-batch negatives
    (MultipleNegativesRankingLoss), and report Recall@10 / MRR@10 of the base
    and the tuned model on held-out pairs."""
    from . import training
    from .models import load_failure_message, quiet_loading
    from .prefixes import automatic_prefixes

    _check_out(out)
    data = training.split_holdout(_read(pairs, beir, split), holdout, seed)
    if len(data.train) < 2:
        raise click.UsageError(f"only {len(data.train)} pair(s) left to train on: give more")
    resolved = _resolve(base)
    started = time.perf_counter()
    training.seed_everything(seed)
    from sentence_transformers import SentenceTransformer

    try:
        with quiet_loading():
            model = SentenceTransformer(
                resolved.location, device=device, local_files_only=resolved.local_files_only
            )
    except Exception as exc:
        _fail(load_failure_message(resolved, exc, "--base"), 1)
    if max_seq_length is not None:
        model.max_seq_length = max_seq_length
    auto_query, auto_document = automatic_prefixes(base, getattr(model, "prompts", None))
    qp = auto_query if query_prefix is None else query_prefix
    dp = auto_document if document_prefix is None else document_prefix

    def measure() -> dict[str, float] | None:
        if not data.held_out:
            return None
        return training.evaluate_embedder(
            model, data.held_out, query_prefix=qp, document_prefix=dp, batch_size=batch_size
        )

    before = measure()
    negatives = None
    if hard_negatives:
        passages = list(dict.fromkeys(p for _, p in data.train))
        negatives = training.bm25_negatives(data.train, passages)
    batches = training.embedder_batches(data.train, negatives, batch_size, epochs, seed)
    bar, advance = _progress(len(batches), "training embedder")
    with bar:
        training.train_embedder(
            model,
            batches,
            learning_rate=learning_rate,
            steps=len(batches),
            query_prefix=qp,
            document_prefix=dp,
            progress=advance,
        )
    after = measure()
    if qp or dp:
        model.prompts = {**getattr(model, "prompts", {}), "query": qp, "document": dp}
    out.mkdir(parents=True, exist_ok=True)
    model.save(str(out))
    summary = {
        "kind": "embedder",
        "base": base,
        "pairs": len(data.train) + len(data.held_out),
        "train_pairs": len(data.train),
        "held_out_pairs": len(data.held_out),
        "epochs": epochs,
        "batch_size": batch_size,
        "learning_rate": learning_rate,
        "hard_negatives": hard_negatives,
        "seed": seed,
        "query_prefix": qp,
        "document_prefix": dp,
        "seconds": round(time.perf_counter() - started, 3),
    }
    _report(
        "embedder",
        before,
        after,
        len({q for q, _ in data.held_out}),
        summary,
        out,
        f"embedder: {{type: sentence-transformers, model: {out}}}",
    )


@tune.command("reranker")
@_source_options
@click.option(
    "--base",
    required=True,
    help="The model to start from: a cross-encoder, or an encoder (a fresh scoring head is added).",
)
@click.option("--batch-size", default=16, show_default=True, type=click.IntRange(min=1))
@click.option(
    "--negatives",
    default=3,
    show_default=True,
    type=click.IntRange(min=1),
    help="Negative passages per positive pair.",
)
@click.option(
    "--max-length",
    default=None,
    type=click.IntRange(min=1),
    help="Truncate (question, passage) pairs to this many tokens; default: the model's.",
)
def tune_reranker(
    pairs: Path | None,
    beir: Path | None,
    split: str,
    out: Path,
    epochs: int,
    learning_rate: float,
    hard_negatives: bool,
    seed: int,
    holdout: float,
    device: str | None,
    base: str,
    batch_size: int,
    negatives: int,
    max_length: int | None,
) -> None:
    """Fine-tune a cross-encoder reranker on positive pairs and sampled
    negatives (binary cross-entropy), and report MRR@10 of reranking BM25's
    top 20 held-out passages with the base and the tuned model."""
    from . import training
    from .models import load_failure_message, quiet_loading

    _check_out(out)
    data = training.split_holdout(_read(pairs, beir, split), holdout, seed)
    passages = list(dict.fromkeys(p for _, p in data.train))
    if len(passages) < 2:
        raise click.UsageError("fewer than 2 distinct passages to train on: give more pairs")
    resolved = _resolve(base)
    started = time.perf_counter()
    training.seed_everything(seed)
    from sentence_transformers import CrossEncoder

    try:
        with quiet_loading():
            model = CrossEncoder(
                resolved.location,
                num_labels=1,
                max_length=max_length,
                device=device,
                local_files_only=resolved.local_files_only,
            )
    except Exception as exc:
        _fail(load_failure_message(resolved, exc, "--base"), 1)

    candidates: dict[str, list[str]] = {}
    if data.held_out:
        held_passages = list(dict.fromkeys(p for _, p in data.held_out))
        held_questions = list(dict.fromkeys(q for q, _ in data.held_out))
        candidates = training.bm25_ranking(held_questions, held_passages, 20)

    def measure() -> dict[str, float] | None:
        if not data.held_out:
            return None
        return training.evaluate_reranker(model, data.held_out, candidates, batch_size=batch_size)

    before = measure()
    mined = (
        training.bm25_negatives(data.train, passages, per_question=negatives)
        if hard_negatives
        else None
    )
    examples = training.reranker_examples(data.train, passages, mined, negatives, seed)
    batches = training.reranker_batches(examples, batch_size, epochs, seed)
    bar, advance = _progress(len(batches), "training reranker")
    with bar:
        training.train_reranker(
            model, batches, learning_rate=learning_rate, steps=len(batches), progress=advance
        )
    after = measure()
    out.mkdir(parents=True, exist_ok=True)
    model.save(str(out))
    summary = {
        "kind": "reranker",
        "base": base,
        "pairs": len(data.train) + len(data.held_out),
        "train_pairs": len(data.train),
        "held_out_pairs": len(data.held_out),
        "examples": len(examples),
        "epochs": epochs,
        "batch_size": batch_size,
        "learning_rate": learning_rate,
        "negatives": negatives,
        "hard_negatives": hard_negatives,
        "seed": seed,
        "seconds": round(time.perf_counter() - started, 3),
    }
    _report(
        "reranker (BM25 top 20 reranked)",
        before,
        after,
        len({q for q, _ in data.held_out}),
        summary,
        out,
        f"reranker: {{type: cross-encoder, model: {out}}}",
    )
