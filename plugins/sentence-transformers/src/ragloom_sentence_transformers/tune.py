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
        click.option(
            "--negatives-from",
            type=click.Choice(["pairs", "corpus"]),
            default="pairs",
            show_default=True,
            help="Where --hard-negatives are mined: the passages of the pairs, or (with "
            "--beir) every document of the corpus.",
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


def _negative_pool(
    negatives_from: str, beir: Path | None, train: list[tuple[str, str]]
) -> list[str]:
    """The passages hard negatives are mined from."""
    if negatives_from == "corpus":
        from .training import read_beir_corpus

        if beir is None:
            raise click.UsageError("--negatives-from corpus needs --beir DIR")
        return list(dict.fromkeys(read_beir_corpus(beir).values()))
    return list(dict.fromkeys(p for _, p in train))


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
    started = time.perf_counter()
    every = max(1, total // 20)
    plain = not bar.console.is_terminal  # no live bar in a log: a line every ~5%

    def advance(done: int, loss: float) -> None:
        bar.update(task, completed=done, loss=loss)
        if plain and (done % every == 0 or done == total):
            bar.console.print(
                f"{label}: step {done}/{total}, loss {loss:.4f}, "
                f"{time.perf_counter() - started:.0f}s",
                markup=False,
            )

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
        worse = [name for name in before if after[name] < before[name]]
        if worse and len(worse) == len(before):
            console.print(
                f"[yellow]note[/] the tuned model scores below its base on every metric "
                f"over the {held_out} held-out question(s): keep the base (or train with "
                "other settings, or from a model already trained for the task)"
            )
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
    "--negatives",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="With --hard-negatives: BM25 negatives per question.",
)
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
@click.option(
    "--query-only",
    is_flag=True,
    help="Tune a model for queries only, against the fixed vectors the config's embedder "
    "gives the --beir corpus (from the embedding cache): no re-embedding of the corpus; "
    "use it as the embedder's query_model.",
)
@click.pass_context
def tune_embedder(
    ctx: click.Context,
    pairs: Path | None,
    beir: Path | None,
    split: str,
    out: Path,
    epochs: int,
    learning_rate: float,
    hard_negatives: bool,
    negatives_from: str,
    seed: int,
    holdout: float,
    device: str | None,
    base: str,
    batch_size: int,
    negatives: int,
    max_seq_length: int | None,
    query_prefix: str | None,
    document_prefix: str | None,
    query_only: bool,
) -> None:
    """Fine-tune a sentence-transformers embedder with in-batch negatives
    (MultipleNegativesRankingLoss), and report Recall@10 / MRR@10 of the base
    and the tuned model on held-out pairs.

    With --query-only: tune a query encoder against the config's embedder's
    fixed vectors of the whole --beir corpus (each question against every
    document), and report nDCG@10 / Recall@10 / MRR@10 on held-out questions.
    """
    from . import training
    from .models import load_failure_message, quiet_loading
    from .prefixes import automatic_prefixes

    _check_out(out)
    if query_only:
        given = ctx.get_parameter_source("base") != click.core.ParameterSource.DEFAULT
        _tune_query_encoder(
            ctx,
            beir=beir,
            pairs=pairs,
            split=split,
            out=out,
            epochs=epochs,
            learning_rate=learning_rate,
            seed=seed,
            holdout=holdout,
            base=base if given else None,
            batch_size=batch_size,
        )
        return
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
    mined = None
    if hard_negatives:
        pool = _negative_pool(negatives_from, beir, data.train)
        mined = training.bm25_negatives(data.train, pool, per_question=negatives)
    batches = training.embedder_batches(data.train, mined, batch_size, epochs, seed)
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
    with quiet_loading():  # no "Writing model shards" bar either
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
        "negatives": negatives if hard_negatives else 0,
        "negatives_from": negatives_from,
        "max_seq_length": model.max_seq_length,
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


def _tune_query_encoder(
    ctx: click.Context,
    *,
    beir: Path | None,
    pairs: Path | None,
    split: str,
    out: Path,
    epochs: int,
    learning_rate: float,
    seed: int,
    holdout: float,
    base: str | None,
    batch_size: int,
) -> None:
    """``tune embedder --query-only``: see the command's help."""
    import random

    from ragloom.cli_support import config_path
    from ragloom.evaluation import RELEVANT, load_beir
    from ragloom.pipeline import Pipeline
    from ragloom.plugins import get_plugin_manager
    from ragloom.tuning import corpus_vectors

    from . import training
    from .models import load_failure_message, quiet_loading

    if beir is None or pairs is not None:
        raise click.UsageError("--query-only trains against a corpus: give --beir DIR")
    pipeline = Pipeline.from_config(config_path(ctx))
    spec = pipeline.config.embedder
    if spec is None or spec.type != "sentence-transformers":
        raise click.UsageError(
            "--query-only tunes against the config's embedder, which must be "
            "`type: sentence-transformers`"
        )
    options = spec.config
    if options.query_model:  # type: ignore[attr-defined]
        raise click.UsageError("the config's embedder already has a query_model: remove it first")
    if base is not None and base != options.model:  # type: ignore[attr-defined]
        raise click.UsageError(
            f"--base {base} is not the config's embedder.model {options.model!r}: a query "  # type: ignore[attr-defined]
            "encoder starts from the model that embedded the documents (leave --base out)"
        )
    try:
        _, queries, qrels = load_beir(beir, split)
    except RagloomError as exc:
        raise click.UsageError(str(exc)) from None
    qids = [q for q in queries if any(g >= RELEVANT for g in qrels[q].values())]
    started = time.perf_counter()
    space_data = corpus_vectors(
        pipeline.to_config(),
        beir,
        base_dir=pipeline.config.base_dir,
        plugin_manager=get_plugin_manager(),
    )
    space = training.DocumentSpace(space_data.doc_ids, space_data.vectors)
    shuffled = sorted(qids)
    random.Random(seed).shuffle(shuffled)
    count = round(len(shuffled) * holdout)
    held = set(shuffled[:count])
    train_ids = [q for q in qids if q not in held]
    held_ids = [q for q in qids if q in held]
    if not train_ids:
        raise click.UsageError("no questions left to train on: lower --holdout")

    def relevant(qid: str) -> list[str]:
        return [d for d, g in qrels[qid].items() if g >= RELEVANT]

    resolved = _resolve_at(options.model, pipeline.config.base_dir)  # type: ignore[attr-defined]
    training.seed_everything(seed)
    from sentence_transformers import SentenceTransformer

    try:
        with quiet_loading():
            model = SentenceTransformer(
                resolved.location, device="cpu", local_files_only=resolved.local_files_only
            )
    except Exception as exc:
        _fail(load_failure_message(resolved, exc, "embedder.model"), 1)
    qp = str(space_data.fingerprint.get("query_prefix") or "")

    def measure() -> dict[str, float] | None:
        if not held_ids:
            return None
        return training.evaluate_query_encoder(
            model, [queries[q] for q in held_ids], [relevant(q) for q in held_ids], space,
            query_prefix=qp,
        )  # fmt: skip

    before = measure()
    steps = epochs * -(-len(train_ids) // batch_size)
    bar, advance = _progress(steps, "training query encoder")
    with bar:
        training.train_query_encoder(
            model,
            [queries[q] for q in train_ids],
            [relevant(q) for q in train_ids],
            space,
            epochs=epochs,
            batch_size=batch_size,
            learning_rate=learning_rate,
            seed=seed,
            query_prefix=qp,
            progress=advance,
        )
    after = measure()
    if qp:
        model.prompts = {**getattr(model, "prompts", {}), "query": qp}
    out.mkdir(parents=True, exist_ok=True)
    with quiet_loading():  # no "Writing model shards" bar either
        model.save(str(out))
    summary = {
        "kind": "query_encoder",
        "document_model": space_data.fingerprint.get("model"),
        "base": options.model,  # type: ignore[attr-defined]
        "beir": str(beir),
        "split": split,
        "train_questions": len(train_ids),
        "held_out_questions": len(held_ids),
        "chunks": len(space_data.doc_ids),
        "documents": len(space.docs),
        "embedded_now": space_data.embedded,
        "epochs": epochs,
        "batch_size": batch_size,
        "learning_rate": learning_rate,
        "seed": seed,
        "query_prefix": qp,
        "seconds": round(time.perf_counter() - started, 3),
    }
    _report(
        "query encoder (all documents ranked)",
        before,
        after,
        len(held_ids),
        summary,
        out,
        f"embedder: {{type: sentence-transformers, model: {options.model}, "  # type: ignore[attr-defined]
        f"query_model: {out}}}",
    )


def _resolve_at(model: str, base_dir: Path) -> Any:
    from .models import resolve_model

    try:
        return resolve_model(model, base_dir)
    except FileNotFoundError as exc:
        raise click.UsageError(f"embedder.model: {exc}") from None


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
    negatives_from: str,
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
        training.bm25_negatives(
            data.train, _negative_pool(negatives_from, beir, data.train), per_question=negatives
        )
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
    with quiet_loading():  # no "Writing model shards" bar either
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
        "negatives_from": negatives_from,
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
