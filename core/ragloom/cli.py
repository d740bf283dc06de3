"""The ``ragloom`` command.

Exit codes: 0 ok, 1 runtime error, 2 usage or config error.
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import click

from . import __version__
from .cli_eval import eval_command
from .cli_support import (
    PRINCIPAL,
    config_path,
    console,
    escape,
    fail,
    handle_errors,
    load_pipeline,
    parse_filter_json,
    principals_list,
)
from .errors import (
    ConfigError,
    PluginError,
)

EPILOG = """\b
A typical session:
  ragloom init                 write a commented ragloom.yaml
  ragloom config check         validate it (every error, with its path and line)
  ragloom index                load, chunk, embed and store the documents
  ragloom search "pricing"     see what retrieval finds
  ragloom ask "How much is the Pro plan?"
"""


@click.group(epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-c",
    "--config",
    "config",
    type=click.Path(dir_okay=False),
    help="Config file (default: ragloom.yaml, .yml or .toml in this directory).",
)
@click.option("-v", "--verbose", is_flag=True, help="Log each stage with its timing.")
@click.version_option(__version__, prog_name="ragloom")
@click.pass_context
def cli(ctx: click.Context, config: str | None, verbose: bool) -> None:
    """ragloom: retrieval-augmented generation composed from one config file.

    Loaders, chunkers, embedders, stores, rerankers and generators come from
    plugins (`ragloom plugins` lists them); the config picks and wires them.
    """
    import logging

    ctx.ensure_object(dict)
    ctx.obj["config"] = config
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )


@cli.command()
@click.argument("directory", type=click.Path(file_okay=False), default=".")
@click.option("--force", is_flag=True, help="Overwrite an existing ragloom.yaml.")
@handle_errors
def init(directory: str, force: bool) -> None:
    """Write a commented ragloom.yaml with the embedded default stack."""
    target = Path(directory) / "ragloom.yaml"
    if target.exists() and not force:
        raise ConfigError(f"{target} exists; pass --force to overwrite it")
    target.parent.mkdir(parents=True, exist_ok=True)
    text = resources.files("ragloom").joinpath("templates/ragloom.yaml").read_text("utf-8")
    target.write_text(text, "utf-8")
    click.echo(
        f"wrote {target}: put your documents in {target.parent / 'docs'}, then run `ragloom index`"
    )


@cli.command()
@click.argument("sources", nargs=-1, type=click.Path())
@click.option(
    "--dry-run",
    is_flag=True,
    help="Show what would change (+added ~changed -deleted =unchanged) and change nothing.",
)
@click.option("--rebuild", is_flag=True, help="Empty the stores and index everything again.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
@handle_errors
def index(
    ctx: click.Context, sources: tuple[str, ...], dry_run: bool, rebuild: bool, as_json: bool
) -> None:
    """Load, chunk, embed and store documents (incremental; SOURCES limits the run)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    pipeline = load_pipeline(ctx)
    out = console()
    with (
        pipeline,
        Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console(stderr=True),
            transient=True,
            disable=as_json or not sys.stderr.isatty(),
        ) as bar,
    ):
        task = bar.add_task("indexing", total=None)
        report = pipeline.index(
            [str(Path(s).resolve()) for s in sources] or None,
            dry_run=dry_run,
            rebuild=rebuild,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    if as_json:
        click.echo(
            json.dumps(
                {
                    "added": list(report.added),
                    "changed": list(report.changed),
                    "deleted": list(report.deleted),
                    "unchanged": report.unchanged,
                    "chunks": report.chunks,
                    "seconds": round(report.seconds, 3),
                    "corpus_version": report.corpus_version,
                    "embedded": report.embedded,
                    "cached": report.cached,
                    "dry_run": report.dry_run,
                    "problems": [{"source": s, "message": m} for s, m in report.problems],
                },
                indent=2,
            )
        )
        return
    if dry_run:
        for sign, ids in (("+", report.added), ("~", report.changed), ("-", report.deleted)):
            for doc_id in ids:
                out.print(f"{sign} {doc_id}", markup=False)
        out.print(
            f"dry run: +{len(report.added)} ~{len(report.changed)} "
            f"-{len(report.deleted)} ={report.unchanged} (nothing changed)"
        )
    else:
        out.print(
            f"indexed {report.documents} document(s): +{len(report.added)} added, "
            f"~{len(report.changed)} changed, -{len(report.deleted)} deleted, "
            f"={report.unchanged} unchanged; {report.chunks} chunk(s) written "
            f"({report.embedded} embedded, {report.cached} from the embedding cache) in "
            f"{report.seconds:.2f}s (corpus version {report.corpus_version})"
        )
    for source, message in report.problems:
        out.print(f"[yellow]skipped[/] {escape(source)}: {escape(message)}")


@cli.command()
@click.argument("query")
@click.option("-k", "k", type=int, default=None, help="How many hits (default: retrieval.k).")
@click.option(
    "--filter", "filter_", help='Metadata filter as JSON, e.g. \'{"year": {"$gte": 2024}}\'.'
)
@click.option("--json", "as_json", is_flag=True, help="Print hits as JSON.")
@PRINCIPAL
@click.pass_context
@handle_errors
def search(
    ctx: click.Context,
    query: str,
    k: int | None,
    filter_: str | None,
    as_json: bool,
    principals: tuple[str, ...],
) -> None:
    """Show the hits retrieval finds for QUERY (no generation)."""
    from rich.table import Table

    with load_pipeline(ctx) as pipeline:
        hits = pipeline.retrieve(
            query, parse_filter_json(filter_), k, principals=principals_list(principals)
        )
    if as_json:
        click.echo(json.dumps([_hit_json(rank, h) for rank, h in enumerate(hits, 1)], indent=2))
        return
    if not hits:
        click.echo("no hits")
        return
    table = Table(show_lines=False)
    for column in ("rank", "score", "source", "label", "snippet"):
        # labels and sources are what a reader cites: wrap them, never cut them
        table.add_column(column, overflow="ellipsis" if column == "score" else "fold")
    for rank, hit in enumerate(hits, 1):
        snippet = " ".join(hit.chunk.text.split())
        table.add_row(
            str(rank),
            f"{hit.score:.4f}",
            escape(hit.chunk.source),
            escape(hit.chunk.label),
            escape(snippet[:160]),
        )
    console().print(table)


def _hit_json(rank: int, hit: Any) -> dict[str, Any]:
    return {
        "rank": rank,
        "score": hit.score,
        "scores": dict(hit.scores),
        "store": hit.store,
        "id": hit.chunk.id,
        "document_id": hit.chunk.document_id,
        "source": hit.chunk.source,
        "label": hit.chunk.label,
        "text": hit.chunk.text,
        "metadata": dict(hit.chunk.metadata),
    }


@cli.command()
@click.argument("question")
@click.option("--filter", "filter_", help="Metadata filter as JSON.")
@click.option("-k", "k", type=int, default=None, help="How many hits to give the generator.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer and citations as JSON.")
@PRINCIPAL
@click.pass_context
@handle_errors
def ask(
    ctx: click.Context,
    question: str,
    filter_: str | None,
    k: int | None,
    as_json: bool,
    principals: tuple[str, ...],
) -> None:
    """Answer QUESTION from the indexed documents, with numbered citations."""
    with load_pipeline(ctx) as pipeline:
        answer = pipeline.ask(
            question, parse_filter_json(filter_), k=k, principals=principals_list(principals)
        )
    if as_json:
        click.echo(
            json.dumps(
                {
                    "question": answer.question,
                    "answer": answer.text,
                    "grounded": answer.grounded,
                    "degraded": answer.degraded,
                    "citations": [
                        {
                            "number": c.number,
                            "label": c.label,
                            "source": c.source,
                            "chunk_id": c.chunk_id,
                            "quote": c.quote,
                        }
                        for c in answer.citations
                    ],
                },
                indent=2,
            )
        )
        return
    out = console()
    out.print(answer.text, markup=False)
    if answer.citations:
        out.print()
        for c in answer.citations:
            out.print(f"  [{c.number}] {c.label}", markup=False)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@handle_errors
def plugins(as_json: bool) -> None:
    """List installed plugins, their versions and what each registers."""
    from .plugins import get_registry

    grouped: dict[str, dict[str, Any]] = {}
    for entry in get_registry():
        item = grouped.setdefault(
            entry.plugin,
            {
                "plugin": entry.plugin,
                "distribution": entry.distribution,
                "version": entry.version,
                "registers": {},
            },
        )
        item["registers"].setdefault(entry.kind, []).append(entry.name)
    if as_json:
        click.echo(json.dumps(list(grouped.values()), indent=2))
        return
    from rich.table import Table

    table = Table()
    for column in ("plugin", "distribution", "version", "registers"):
        table.add_column(column)
    for item in grouped.values():
        registers = "; ".join(
            f"{kind}: {', '.join(names)}" for kind, names in item["registers"].items()
        )
        table.add_row(item["plugin"], item["distribution"] or "", item["version"] or "", registers)
    console().print(table)


@cli.group()
def config() -> None:
    """Check a config, or print its JSON Schema."""


@config.command("check")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.pass_context
@handle_errors
def config_check(ctx: click.Context, file: str | None) -> None:
    """Validate FILE (default: ragloom.yaml here): every error at once, exit 2 if any."""
    from .config import load_config
    from .plugins import get_registry

    path = Path(file) if file else config_path(ctx)
    cfg = load_config(path, get_registry())
    click.echo(
        f"{path}: ok — {len(cfg.loaders)} loader(s), chunker {cfg.chunker.type}, "
        f"embedder {cfg.embedder.type if cfg.embedder else 'none'}, "
        f"store(s) {', '.join(s.name for s in cfg.stores)}, "
        f"reranker {cfg.reranker.type if cfg.reranker else 'none'}, generator {cfg.generator.type}"
    )


@config.command("schema")
@handle_errors
def config_schema() -> None:
    """Print the JSON Schema of the config file, including every installed component's options."""
    from .plugins import get_registry
    from .schema import config_json_schema

    click.echo(json.dumps(config_json_schema(get_registry()), indent=2))


def _plugin_commands() -> None:
    """Let each plugin add its commands (``register_commands``). A plugin that
    replaces a core command is an error naming it."""
    from .plugins import get_plugin_manager

    pm = get_plugin_manager()
    plugins = pm.get_plugins()
    for impl in pm.hook.register_commands.get_hookimpls():
        others = [p for p in plugins if p is not impl.plugin]
        pm.subset_hook_caller("register_commands", remove_plugins=others)(cli=cli)
        replaced = sorted(n for n, c in CORE_COMMANDS.items() if cli.commands.get(n) is not c)
        if replaced:
            cli.commands.update(CORE_COMMANDS)
            raise PluginError(
                f"plugin {impl.plugin_name!r} tried to replace the core command(s) "
                f"{', '.join(replaced)}; plugin commands need names of their own"
            )


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    try:
        _plugin_commands()
    except PluginError as exc:
        fail(escape(str(exc)), 2)
    try:
        cli.main(args=argv, prog_name="ragloom", standalone_mode=False)
    except click.UsageError as exc:  # includes bad options and missing arguments
        exc.show()
        sys.exit(2)
    except click.Abort:
        sys.exit(1)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)


cli.add_command(eval_command)

CORE_COMMANDS: dict[str, click.Command] = dict(cli.commands)

if __name__ == "__main__":  # pragma: no cover
    main()
