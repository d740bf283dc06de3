"""``ragloom tune``: tune a pipeline on judged questions.

    ragloom tune split --beir data/scifact --split train --out data/scifact-split
    ragloom tune fusion --beir data/scifact-split --split tune --out ragloom.tuned.yaml

Core holds the group and the commands that need no model training (``split``,
``fusion``); the sentence-transformers plugin adds ``embedder`` and
``reranker`` to the group through the ``register_commands`` hook.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from .cli_support import config_path, console, escape, handle_errors, index_dir_hint

__all__ = ["tune"]


@click.group()
def tune() -> None:
    """Tune the pipeline on judged questions: split them, learn fusion, train models."""


@tune.command("split")
@click.option(
    "--beir",
    "beir_dir",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The BEIR folder whose judged queries to split.",
)
@click.option("--split", default="train", show_default=True, help="The qrels split to divide.")
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The BEIR folder to write: qrels/<tune-name>.tsv and qrels/<heldout-name>.tsv, "
    "with links to the corpus and queries (may be --beir itself).",
)
@click.option(
    "--holdout",
    default=0.2,
    show_default=True,
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    help="Share of the queries held out.",
)
@click.option("--seed", default=42, show_default=True, type=int)
@click.option("--tune-name", default="tune", show_default=True, help="Name of the tuning split.")
@click.option(
    "--heldout-name", default="heldout", show_default=True, help="Name of the held-out split."
)
@click.option(
    "--keep-documents-apart",
    is_flag=True,
    help="Keep queries that share a relevant document on the same side, so no held-out "
    "question's answer is ever a training target.",
)
@handle_errors
def tune_split(
    beir_dir: Path,
    split: str,
    out: Path,
    holdout: float,
    seed: int,
    tune_name: str,
    heldout_name: str,
    keep_documents_apart: bool,
) -> None:
    """Split a BEIR folder's judged queries into a tuning part and a held-out part.

    The split is by query, random and reproducible (same qrels and --seed, same
    split). Tune on the first (`--split tune`), measure on the second with
    `ragloom eval --beir OUT --split heldout`: those questions were never seen.
    """
    from .tuning import split_beir

    report = split_beir(
        beir_dir,
        out,
        split=split,
        fraction=holdout,
        seed=seed,
        tune_split=tune_name,
        heldout_split=heldout_name,
        keep_documents_apart=keep_documents_apart,
    )
    out_console = console()
    out_console.print(
        f"{escape(str(report.directory))}: {report.tune_queries} queries "
        f"({report.tune_judgements} judgements) in split {escape(report.tune_split)!s}, "
        f"{report.heldout_queries} queries ({report.heldout_judgements} judgements) "
        f"held out in split {escape(report.heldout_split)!s}"
    )
    if report.shared_documents:
        out_console.print(
            f"{report.shared_documents} held-out queries share a relevant document with a "
            "tuning query (--keep-documents-apart avoids that)"
        )


@tune.command("fusion")
@click.option(
    "--beir",
    "beir_dir",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The BEIR folder to tune on (e.g. one written by `ragloom tune split`).",
)
@click.option("--split", default="tune", show_default=True, help="The qrels split to tune on.")
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The YAML config file to write: the config with the best fusion settings.",
)
@click.option(
    "--metric",
    default="nDCG@10",
    show_default=True,
    help="What to maximise: nDCG, MRR, Recall or P at a cutoff.",
)
@click.option(
    "--method",
    "methods",
    multiple=True,
    type=click.Choice(["rrf", "weighted", "dbsf"]),
    help="A fusion method to try (repeatable); default: all three.",
)
@click.option(
    "--depth",
    default=300,
    show_default=True,
    type=click.IntRange(min=10),
    help="Hits asked of each store per query: the largest per-store k tried; never "
    "fewer than a store's own k (300 where the config sets none).",
)
@click.option(
    "--limit-queries",
    type=click.IntRange(min=1),
    default=None,
    help="Tune on the first N queries only.",
)
@click.option(
    "--index-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Where to index the corpus (default: as `ragloom eval --beir`).",
)
@click.option(
    "--bm25/--no-bm25",
    "bm25",
    default=True,
    show_default=True,
    help="Also tune each bm25 store's scope, k1 and b (asked again per value, not re-indexed).",
)
@click.option(
    "--feedback/--no-feedback",
    "feedback",
    default=True,
    show_default=True,
    help="Also try retrieval.feedback (the vector stores asked again with the query moved "
    "towards the first hits) for the best settings.",
)
@click.option(
    "--significance",
    default=1.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Keep a change only when it beats the setting it replaces by more than this many "
    "standard errors of the per-query differences (0: any gain).",
)
@click.option("--force", is_flag=True, help="Overwrite --out if it exists.")
@click.pass_context
@handle_errors
def tune_fusion_command(
    ctx: click.Context,
    beir_dir: Path,
    split: str,
    out: Path,
    metric: str,
    methods: tuple[str, ...],
    depth: int,
    limit_queries: int | None,
    index_dir: str | None,
    bm25: bool,
    feedback: bool,
    significance: float,
    force: bool,
) -> None:
    """Learn the fusion method and unit, rrf_k, store weights and per-store k
    (and each bm25 store's scope, k1 and b, and query feedback) on a split.

    Indexes the corpus with the config (as `ragloom eval --beir` does), asks
    each store once per query, searches the settings on those lists, prints
    the config's own score and the best per method, and writes the config
    with the best settings to --out.
    """
    import yaml

    from .config import load_config
    from .configfile import read_config_file
    from .pipeline import Pipeline
    from .plugins import get_plugin_manager
    from .registry import Registry
    from .tuning import apply_choice, tune_fusion

    source = Path(config_path(ctx))
    if out.exists() and not force:
        raise click.UsageError(f"--out {out} exists: choose a new file, or add --force")
    if out.resolve() == source.resolve():
        raise click.UsageError(
            f"--out {out} is the config itself: write the tuned config to a new file "
            "(rewriting would drop the config's comments)"
        )
    if out.suffix.lower() not in {".yaml", ".yml"}:
        raise click.UsageError(f"--out {out}: the tuned config is written as YAML (.yaml, .yml)")
    pipeline = Pipeline.from_config(source)
    data, _lines = read_config_file(source)
    with index_dir_hint(index_dir, "ragloom tune fusion"):
        report = tune_fusion(
            pipeline.to_config(),
            beir_dir,
            split,
            metric=metric,
            methods=methods or ("rrf", "weighted", "dbsf"),
            depth=depth,
            limit_queries=limit_queries,
            index_dir=Path(index_dir).resolve() if index_dir else None,
            base_dir=pipeline.config.base_dir,
            plugin_manager=get_plugin_manager(),
            progress=_progress_printer(),
            bm25=bm25,
            significance=significance,
            feedback=feedback,
        )
    tuned = apply_choice(data, report.best)
    registry = Registry.from_plugin_manager(get_plugin_manager())
    load_config(tuned, registry, base_dir=out.resolve().parent)  # refuse to write a bad config
    out.write_text(
        f"# {source.name} with fusion tuned by `ragloom tune fusion` on {beir_dir} "
        f"(split {split}, {report.queries} queries, {report.metric} "
        f"{report.before_score:.4f} -> {report.best_score:.4f})\n"
        + yaml.safe_dump(tuned, sort_keys=False, allow_unicode=True),
        "utf-8",
    )
    _print_report(report, out)
    if out.resolve().parent != source.resolve().parent:
        console().print(
            f"[yellow]note[/] {escape(str(out))} is not beside {escape(str(source))}: "
            "relative paths in it (a loader's `path`, `index_dir`, a store's `path`) "
            f"now resolve against {escape(str(out.resolve().parent))}; move it beside "
            "the config, or make them absolute"
        )


def _progress_printer() -> Any:
    """``progress(phase, done, total)`` lines on stderr at each phase's end."""

    def progress(phase: str, done: int, total: int) -> None:
        if done == total and phase != "index":
            print(f"{phase}: {done}/{total}", file=sys.stderr, flush=True)

    return progress


FEW_QUERIES = 50
"""Below this many tuning queries ``tune fusion`` says its choice may be chance."""


def _print_report(report: Any, out: Path) -> None:
    from rich.table import Table

    names = report.stores
    table = Table(
        title=escape(
            f"{report.metric} on {report.queries} tuning queries "
            f"({report.evaluations} settings scored in {report.seconds:.1f}s)"
        )
    )
    table.add_column("settings")
    table.add_column(report.metric, justify="right")
    table.add_row(escape(f"config: {report.before.describe(names)}"), f"{report.before_score:.4f}")
    for method, (choice, value) in report.per_method.items():
        mark = " (best)" if choice == report.best else ""
        table.add_row(escape(f"{method}: {choice.describe(names)}{mark}"), f"{value:.4f}")
    shown_best = report.best == report.before or any(
        choice == report.best for choice, _ in report.per_method.values()
    )
    if not shown_best:  # found by the bm25 or feedback step, not by a method's search
        table.add_row(
            escape(f"written: {report.best.describe(names)} (best)"), f"{report.best_score:.4f}"
        )
    shown = console()
    shown.print(table)
    if report.queries < FEW_QUERIES:
        shown.print(
            f"[yellow]note[/] {report.queries} tuning queries are too few to tell settings "
            f"apart (the standard error of a mean over them is large; tune.md's splits hold "
            f"hundreds): what was chosen may be chance"
        )
    if report.best == report.before:
        shown.print(
            "nothing beat the config's own settings (a step must gain more than "
            "--significance standard errors); written with them, made explicit (each "
            "store's weight and k, the fusion)"
        )
    shown.print(
        f"tuned config written to {escape(str(out))}; measure it on questions it never saw:\n"
        "  ragloom -c OUT eval --beir DIR --split heldout".replace("OUT", escape(str(out)))
    )
