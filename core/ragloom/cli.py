"""The ``ragloom`` command.

Exit codes: 0 ok, 1 runtime error, 2 usage or config error.

Everything printed for a person goes through ``cli_support.sanitize`` (or
``escape``, which includes it): file names, document texts, answers and error
messages come from outside and must not reach the terminal as escape
sequences. ``--json`` output is exact: ``json.dumps`` escapes control characters.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import logging
import os
import shlex
import signal
import sys
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from . import __version__
from .cli_answers import answer_json, empty_index, print_answer, print_stream, print_trace
from .cli_cache import cache
from .cli_chat import chat
from .cli_eval import eval_command
from .cli_support import (
    ANSWER_K,
    PRINCIPAL,
    config_path,
    console,
    escape,
    fail,
    fail_interrupted,
    handle_errors,
    load_pipeline,
    on_sigterm,
    parse_filter_json,
    plugin_output_to_stderr,
    principals_list,
    sanitize,
    stop_quietly,
)
from .cli_tune import tune
from .errors import (
    ConfigError,
    PluginError,
)
from .types import MAX_K

if TYPE_CHECKING:
    from .status import IndexStatus

EPILOG = """\b
A typical session:
  ragloom init                 write a commented ragloom.yaml
  ragloom config check         validate it (every error, with its path and line)
  ragloom index                load, chunk, embed and store the documents
  ragloom search "pricing"     see what retrieval finds
  ragloom ask "How much is the Pro plan?"
  ragloom chat                 ask many questions, the pipeline loaded once
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
@click.option(
    "--log-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    envvar="RAGLOOM_LOG_FORMAT",
    help="Log lines as text, or as one JSON object a line (for log pipelines); "
    "secrets are redacted either way. Env: RAGLOOM_LOG_FORMAT.",
)
@click.version_option(__version__, prog_name="ragloom")
@click.pass_context
def cli(ctx: click.Context, config: str | None, verbose: bool, log_format: str) -> None:
    """ragloom: retrieval-augmented generation composed from one config file.

    Loaders, chunkers, embedders, stores, rerankers and generators come from
    plugins (`ragloom plugins` lists them); the config picks and wires them.
    """
    from .logs import configure

    ctx.ensure_object(dict)
    ctx.obj["config"] = config
    # log lines name files and quote texts: sanitized like all other output
    configure(logging.DEBUG if verbose else logging.WARNING, log_format, clean=sanitize)


@cli.command()
@click.argument("directory", type=click.Path(file_okay=False), default=".")
@click.option(
    "--docs",
    "docs_path",
    default="docs",
    show_default=True,
    help="The folder of documents the config's `directory` loader reads (relative "
    "to DIRECTORY, or absolute).",
)
@click.option("--force", is_flag=True, help="Overwrite an existing ragloom.yaml.")
@handle_errors
def init(directory: str, docs_path: str, force: bool) -> None:
    """Write a commented ragloom.yaml with the embedded default stack."""
    target = Path(directory) / "ragloom.yaml"
    if target.exists() and not force:
        raise ConfigError(f"{target} exists; pass --force to overwrite it")
    if not docs_path.strip() or any(c in docs_path for c in "\n\r\0"):
        raise click.BadParameter("give the folder of your documents", param_hint="--docs")
    target.parent.mkdir(parents=True, exist_ok=True)
    text = resources.files("ragloom").joinpath("templates/ragloom.yaml").read_text("utf-8")
    # the folder as written, not a ${VAR} for the config to fill in ($${ is a literal ${)
    written = json.dumps(docs_path.replace("${", "$${"))
    text = text.replace("    path: docs\n", f"    path: {written}\n", 1)
    target.write_text(text, "utf-8")
    folder = target.parent / Path(docs_path).expanduser()  # as the directory loader reads it
    _say_uninstalled(text)
    if folder.is_dir():
        click.echo(sanitize(f"wrote {target}: it indexes {folder}; run `ragloom index`"))
        return
    click.echo(
        sanitize(f"wrote {target}: put your documents in {folder}, then run `ragloom index`")
    )
    found = _document_folders(target.parent)
    if found:
        where = ", ".join(found)
        command = ["ragloom", "init", "--force", "--docs", found[0]]
        if Path(directory) != Path("."):
            command.append(directory)
        click.echo(
            sanitize(
                f"note: {folder} does not exist; documents are in {where}: "
                f"`{shlex.join(command)}` indexes {found[0]}"
            ),
            err=True,
        )


def _say_uninstalled(text: str) -> None:
    """A note for each component type of the written config that no installed
    plugin registers (a plain ``pip install ragloom`` has no
    ``sentence-transformers`` embedder): `ragloom index` would stop on it."""
    import yaml

    from .plugins import get_registry

    try:
        config = yaml.safe_load(text)
        registry = get_registry()
    except Exception:  # a broken plugin: every other command says so
        return
    for kind in ("embedder", "reranker", "generator"):
        spec = config.get(kind)
        name = spec.get("type") if isinstance(spec, dict) else None
        if name and (kind, name) not in registry:
            message, hint = registry.unknown_parts(kind, name)
            click.echo(
                sanitize(f"note: {message} in the config written; {hint or 'install its plugin'}"),
                err=True,
            )


_DOCUMENT_SUFFIXES = frozenset(
    {".md", ".rst", ".txt", ".html", ".pdf", ".docx", ".pptx", ".epub", ".eml", ".ipynb"}
)
"""What the template's loader includes: the files ``ragloom init`` looks for."""
_NOT_DOCUMENTS = frozenset({"venv", "site-packages"})
"""Folders not looked in beyond those the directory loader never reads."""


def _document_folders(root: Path, limit: int = 3) -> list[str]:
    """Folders under ``root`` (itself as ``.``) that hold documents the
    template would index, most first: at most ``limit``, from a bounded walk."""
    from .builtin.loaders._generated import generated_output
    from .builtin.loaders.directory import DENIED_DIRECTORIES

    skipped = DENIED_DIRECTORIES | _NOT_DOCUMENTS
    counts: dict[str, int] = {}
    for seen, (parent, dirs, files) in enumerate(os.walk(root)):
        if seen >= 2_000:  # a home folder: stop looking
            break
        if seen and generated_output(Path(parent), [*dirs, *files]):
            dirs[:] = []  # a built site's pages: the directory loader skips them
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in skipped)
        here = Path(parent).relative_to(root)
        top = here.parts[0] if here.parts else "."
        hits = sum(1 for f in files if Path(f).suffix.lower() in _DOCUMENT_SUFFIXES)
        if hits:
            counts[top] = counts.get(top, 0) + hits
    ranked = sorted(counts, key=lambda name: (-counts[name], name))
    return ranked[:limit]


@cli.command()
@click.argument("sources", nargs=-1, type=click.Path())
@click.option(
    "--dry-run",
    is_flag=True,
    help="Show what would change (+added ~changed -deleted =unchanged) and change nothing.",
)
@click.option(
    "--rebuild",
    is_flag=True,
    help="Start over: a new ledger and empty stores, whatever state they are in "
    "(a damaged ledger is moved aside), then index everything (no SOURCES). Refused "
    "where indexed documents cannot be read now (an unmounted folder), unless "
    "--allow-mass-delete.",
)
@click.option(
    "--repair",
    is_flag=True,
    help="Bring stores that disagree with the ledger back in line: delete chunks no "
    "document owns, write again documents whose chunks are missing.",
)
@click.option(
    "--allow-mass-delete",
    is_flag=True,
    help="Let this run delete more than `indexing.max_delete_share` of the indexed documents, "
    "and the documents of a folder that is there but empty (an unmounted share's mount point).",
)
@click.option(
    "--reread",
    is_flag=True,
    help="Read every file again, even those unchanged since they were indexed (by "
    "default, on a local filesystem, a file whose size, times and inode are as when it "
    "was indexed is not read).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
@handle_errors
def index(
    ctx: click.Context,
    sources: tuple[str, ...],
    dry_run: bool,
    rebuild: bool,
    repair: bool,
    allow_mass_delete: bool,
    reread: bool,
    as_json: bool,
) -> None:
    """Load, chunk, embed and store documents (incremental; SOURCES limits the run).

    Exits 1 when a loader's whole source is missing or unreadable, or a folder
    that held documents is there but empty (their documents are kept), or when
    the run is refused: the stores disagree with the ledger (--repair), or it
    would delete too much (--allow-mass-delete)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    pipeline = load_pipeline(ctx)
    out = console()
    began = time.perf_counter()
    with plugin_output_to_stderr():
        pipeline.open(query=False)  # no reranker nor query transformer: no index run uses them
    with (
        plugin_output_to_stderr(),
        contextlib.closing(pipeline),
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
            # absolute like the loaders make paths (``_files.absolute``): symlinks kept,
            # so a source given through a linked folder lies under that folder
            [os.path.abspath(s) for s in sources] or None,
            dry_run=dry_run,
            rebuild=rebuild,
            repair=repair,
            allow_mass_delete=allow_mass_delete,
            reread=reread,
            progress=lambda done, total, chunks: bar.update(
                task, completed=done, total=total, description=f"indexing ({chunks:,} chunks)"
            ),
        )
    # what the run's own seconds leave out: loading the models, reading the stores
    opening = max(0.0, time.perf_counter() - began - report.seconds)
    try:
        _print_index_report(report, as_json=as_json, out=out, opening=opening)
    except OSError as exc:
        if isinstance(exc, BrokenPipeError) or report.dry_run:
            raise
        # /dev/full, a full disk under a log file: the run itself is done
        with contextlib.suppress(OSError):  # (a closed stdout has no file to point away)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        counts = f"+{len(report.added)} ~{len(report.changed)} -{len(report.deleted)}"
        done = (
            f"the index run committed corpus version {report.corpus_version} ({counts})"
            if report.added or report.changed or report.deleted or report.rewritten
            else f"the index run found nothing to change (corpus version {report.corpus_version})"
        )
        fail(
            escape(f"{done}, but its report could not be written to stdout: {exc.strerror or exc}"),
            1,
        )


class _ClosedOutput(io.TextIOBase):
    """What stdout is when the shell closed it (``>&-``): every write fails
    with EBADF, which a command reports as it reports a full disk."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "stdout is closed")

    def fileno(self) -> int:
        raise OSError(errno.EBADF, "stdout is closed")

    def isatty(self) -> bool:
        return False


def _finite(value: float, option: str) -> float:
    """``value``, unless it is NaN, which passes every range check."""
    if value != value:
        raise click.BadParameter(f"{option} takes a number of seconds, not nan")
    return value


def _print_index_report(report: Any, *, as_json: bool, out: Any, opening: float = 0.0) -> None:
    """What ``ragloom index`` prints of its run, and its exit status.
    ``opening``: the seconds the command spent opening the pipeline (models
    loaded, stores read), said beside the run's own when they count."""
    if as_json:
        click.echo(
            json.dumps(
                {
                    "added": list(report.added),
                    "changed": list(report.changed),
                    "rewritten": list(report.rewritten),
                    "deleted": list(report.deleted),
                    "unchanged": report.unchanged,
                    "unread": report.unread,
                    "chunks": report.chunks,
                    "seconds": round(report.seconds, 3),
                    "opening_seconds": round(opening, 3),
                    "corpus_version": report.corpus_version,
                    "embedded": report.embedded,
                    "cached": report.cached,
                    "dry_run": report.dry_run,
                    "problems": [{"source": s, "message": m} for s, m in report.problems],
                    "kept": list(report.kept),
                    "repaired": list(report.repaired),
                    "errors": [{"loader": n, "message": m} for n, m in report.errors],
                },
                indent=2,
            )
        )
        if not report.ok:
            sys.exit(1)
        return
    if report.dry_run:
        for sign, ids in (
            ("+", report.added),
            ("~", report.changed),
            ("^", report.rewritten),
            ("-", report.deleted),
        ):
            for doc_id in ids:
                out.print(f"{sign} {sanitize(doc_id)}", markup=False)
        again = f" ^{len(report.rewritten)}" if report.rewritten else ""
        out.print(
            f"dry run: +{len(report.added)} ~{len(report.changed)}{again} "
            f"-{len(report.deleted)} ={report.unchanged} (nothing written)"
        )
    else:
        again = f", ^{len(report.rewritten)} written again" if report.rewritten else ""
        out.print(
            f"indexed {report.documents} document(s): +{len(report.added)} added, "
            f"~{len(report.changed)} changed{again}, -{len(report.deleted)} deleted, "
            f"={report.unchanged} unchanged"
            + (f" ({report.unread} not read again)" if report.unread else "")
            + (f", {len(report.kept)} kept unread" if report.kept else "")
            + f"; {report.chunks} chunk(s) written "
            f"({report.embedded} embedded, {report.cached} from the embedding cache) in "
            f"{report.seconds:.2f}s (corpus version {report.corpus_version})"
            + (
                f"; opening the pipeline (models, stores): {opening:.1f}s more"
                if opening >= 1
                else ""
            )
        )
    for line in report.repaired:
        out.print(f"[green]repaired[/] {escape(sanitize(line))}")
    for source, message in report.problems:
        out.print(f"[yellow]note[/] {escape(sanitize(source))}: {escape(sanitize(message))}")
    if report.kept:
        out.print(
            f"[yellow]kept[/] {len(report.kept)} indexed document(s) that could not be read "
            "this run (the notes and errors say why)"
        )
    for _loader, message in report.errors:
        console(stderr=True).print(f"[bold red]error:[/] {escape(sanitize(message))}", markup=True)
    if not report.ok:
        sys.exit(1)


@cli.command()
@click.argument("query")
@click.option(
    "-k",
    "k",
    type=click.IntRange(1, MAX_K),
    default=None,
    help=f"How many hits, 1 to {MAX_K:,} (default: retrieval.k).",
)
@click.option(
    "--filter", "filter_", help='Metadata filter as JSON, e.g. \'{"year": {"$gte": 2024}}\'.'
)
@click.option("--json", "as_json", is_flag=True, help="Print hits as JSON.")
@click.option(
    "--explain",
    is_flag=True,
    help="Show each hit's rank and score in every store, after fusion and after "
    "reranking, and the filters that applied.",
)
@PRINCIPAL
@click.pass_context
@handle_errors
def search(
    ctx: click.Context,
    query: str,
    k: int | None,
    filter_: str | None,
    as_json: bool,
    explain: bool,
    principals: tuple[str, ...],
) -> None:
    """Show the hits retrieval finds for QUERY (no generation)."""
    from rich.table import Table

    from .filters import why_nothing_matched

    _check_not_empty(ctx, query, "QUERY", 'ragloom search "refund policy"')
    spec = parse_filter_json(filter_)
    with plugin_output_to_stderr(), load_pipeline(ctx) as pipeline:
        hits = pipeline.retrieve(
            query, spec, k, principals=principals_list(principals), explain=explain
        )
        hint = (
            ""
            if hits or not spec
            else why_nothing_matched(pipeline, query, spec, principals_list(principals))
        )
    if as_json:
        rows = [_hit_json(rank, h) for rank, h in enumerate(hits, 1)]
        if explain and hits.explanation is not None:
            for row, why in zip(rows, hits.explanation.hits):
                row["explain"] = explanation_json(why)
            click.echo(json.dumps({**_filters_json(hits.explanation), "hits": rows}, indent=2))
            return
        click.echo(json.dumps(rows, indent=2))
        return
    if explain and hits.explanation is not None:
        _print_explanation(hits)
        return
    if not hits:
        empty = empty_index(pipeline.index_dir, hits.corpus_version, hits.documents)
        said = empty or hint
        click.echo(sanitize(f"no hits: {said}") if said else "no hits")
        return
    if not sys.stdout.isatty():  # piped (| grep, a log): one line a hit, nothing wrapped
        for rank, hit in enumerate(hits, 1):
            snippet = " ".join(hit.chunk.own_text.split())[:160]
            fields = (str(rank), f"{hit.score:.4f}", hit.chunk.source, hit.chunk.label, snippet)
            click.echo("\t".join(sanitize(f) for f in fields))
        return
    table = Table(show_lines=False)
    for column in ("rank", "score", "source", "label", "snippet"):
        # labels and sources are what a reader cites: wrap them, never cut them
        table.add_column(column, overflow="ellipsis" if column == "score" else "fold")
    for rank, hit in enumerate(hits, 1):
        snippet = " ".join(hit.chunk.own_text.split())
        table.add_row(
            str(rank),
            f"{hit.score:.4f}",
            escape(hit.chunk.source),
            escape(hit.chunk.label),
            escape(snippet[:160]),
        )
    console().print(table)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.pass_context
@handle_errors
def status(ctx: click.Context, as_json: bool) -> None:
    """Show what the index holds and whether queries can use it.

    \b
    The committed version, its documents and chunks, each store's count and
    location, an index run under way or stopped, the last run that ended
    (what it changed, or why it failed), what a query would be told if it
    is refused (exit code 1), and what the next `ragloom index` will do.
    A store another process holds (an embedded Qdrant beside a running
    server) is said not checked, which is no refusal: for a server's own
    health, ask its /readyz. Writes nothing.
    """
    with plugin_output_to_stderr(), contextlib.closing(load_pipeline(ctx)) as pipeline:
        found = pipeline.status()
    if as_json:
        click.echo(json.dumps(found.to_dict(), indent=2))
    else:
        for name, value in _status_lines(found):
            click.echo(sanitize(f"{name + ':':<11}{value}"))
    if not found.ready:
        sys.exit(1)


def _status_lines(found: IndexStatus) -> list[tuple[str, str]]:
    from .ledger import utc_time

    if not found.exists:
        lines = [("index", f"{found.index_dir} (nothing indexed yet: run `ragloom index`)")]
    else:
        when = f" {utc_time(found.committed_at)}" if found.committed_at is not None else ""
        by = f" by ragloom {found.written_by}" if found.written_by else " by an older ragloom"
        lines = [
            ("index", found.index_dir),
            ("version", f"{found.version}, committed{when}{by}" if found.version else "0"),
            ("documents", f"{found.documents:,} ({found.chunks:,} chunk(s))"),
            ("embedder", found.embedder or "none"),
        ]
    # who holds a store another process holds: an index run under way, else a server
    holder = "the index run under way?" if found.run == "running" else "a running server?"
    for store in found.stores:
        held = (
            f"held by another process ({holder}): not checked"
            if store.held
            else f"cannot be read: {store.error}"
            if store.chunks is None
            else f"{'' if store.exact else 'about '}{store.chunks:,} chunk(s)"
        )
        where = f", {store.location}" if store.location else ""
        lines.append(("store", f"{store.name} ({store.type}): {held}{where}"))
    if found.run == "running":
        pid = f" (process {found.run_pid})" if found.run_pid is not None else ""
        lines.append(("index run", f"under way{pid}"))
    elif found.run == "stopped":
        lines.append(("index run", "one stopped before it ended (killed, or it failed)"))
    if found.last_run is not None:
        lines.append(("last run", _last_run_line(found.last_run)))
    if found.rebuilding is not None:
        started = utc_time(found.rebuilding)
        lines.append(("rebuild", f"started {started}, not committed yet"))
    if found.ready and found.held:
        names = ", ".join(repr(name) for name in found.held)
        lines.append(
            (
                "queries",
                f"not checked: store {names} is held by another process ({holder}), "
                "and only that process can query it (a server: ask its /readyz); the "
                "checks that need no store pass",
            )
        )
    elif found.ready:
        answered = (
            f"answered from version {found.version}"
            if found.version
            else "answered, with no hits until an index run commits"
        )
        lines.append(("queries", answered))
    else:
        lines.append(("queries", f"refused: {found.problem}"))
    lines.extend(("next run", said) for said in found.next_run)
    return lines


def _last_run_line(last: dict[str, Any]) -> str:
    """The ledger's ``last_run`` record in one line of ``ragloom status``."""
    from .ledger import utc_time

    ended = last.get("ended")
    when = utc_time(ended) if isinstance(ended, (int, float)) else "at an unknown time"
    seconds = last.get("seconds")
    took = f" after {seconds:.1f} s" if isinstance(seconds, (int, float)) else ""
    what = "a --rebuild" if last.get("rebuild") else "a run"
    if last.get("sources"):
        what += " of " + ", ".join(str(s) for s in last["sources"])
    outcome = last.get("outcome")
    if outcome in ("failed", "interrupted"):
        said = f"{what} {outcome} {when}{took}: {last.get('error') or 'no message'}"
    else:
        counts = ", ".join(
            f"{last[key]:,} {key}" for key in ("added", "changed", "deleted") if last.get(key)
        )
        said = f"{what} ended {when}{took}: {counts or 'nothing changed'}"
    errors = last.get("errors") or []
    if errors:
        first = errors[0]
        said += f"; {len(errors)} loader(s) failed ({first.get('loader')}: {first.get('message')})"
    if last.get("error") and outcome not in ("failed", "interrupted"):
        said += f"; {last['error']}"  # what failed after the commit: its changes are in
    problems = last.get("problems") or 0
    if problems:
        example = (last.get("problem_examples") or [{}])[0]
        said += f"; {problems:,} problem(s) reported" + (
            f", the first: {example.get('source')}: {example.get('message')}" if example else ""
        )
    return said


def explanation_json(why: Any) -> dict[str, Any]:
    """One hit's explanation as JSON (also the HTTP API's ``explain``)."""
    return {
        "stores": {name: {"rank": r, "score": sc} for name, (r, sc) in why.stores.items()},
        "fused_rank": why.fused_rank,
        "fused_score": why.fused_score,
        "reranked_rank": why.reranked_rank,
        "rerank_score": why.rerank_score,
        "movement": why.movement,
    }


def _filters_json(explanation: Any) -> dict[str, Any]:
    return {
        "queries": list(explanation.queries),
        "filter": explanation.filter,
        "retrieval_filter": explanation.retrieval_filter,
        "access_filter": explanation.access_filter,
        "store_filters": dict(explanation.store_filters),
        "feedback": None if explanation.feedback is None else dict(explanation.feedback),
    }


def _print_explanation(hits: Any) -> None:
    from rich.table import Table

    explanation = hits.explanation
    out = console()
    stores = list(dict.fromkeys(n for why in explanation.hits for n in why.stores))
    reranked = any(why.reranked_rank is not None for why in explanation.hits)
    table = Table(show_lines=False)
    columns = ("rank", "label", *stores, "fused", *(("rerank", "moved") if reranked else ()))
    for column in columns:
        table.add_column(column, overflow="fold")
    piped = not sys.stdout.isatty()  # one tab-separated line a hit, as search prints
    if piped:
        click.echo("\t".join(columns))
    for rank, (hit, why) in enumerate(zip(hits, explanation.hits), 1):
        cells = [
            f"#{why.stores[n][0]} {why.stores[n][1]:.4f}" if n in why.stores else "—"
            for n in stores
        ]
        if reranked:
            moved = "" if why.movement is None else f"{why.movement:+d}"
            cells += [f"#{why.fused_rank} {why.fused_score:.4f}", f"{why.rerank_score:.4f}", moved]
        else:
            cells.append(f"#{why.fused_rank} {why.fused_score:.4f}")
        if piped:
            click.echo("\t".join(sanitize(c) for c in (str(rank), hit.chunk.label, *cells)))
        else:
            table.add_row(str(rank), escape(hit.chunk.label), *cells)
    if not piped:
        out.print(table)
    if len(explanation.queries) > 1:
        queries = "; ".join(explanation.queries)
        out.print(f"queries: {escape(queries)}", markup=False)
    for name, value in (
        ("filter", explanation.filter),
        ("retrieval.filter", explanation.retrieval_filter),
        ("access filter", explanation.access_filter),
    ):
        if value is not None:
            out.print(f"{name}: {escape(json.dumps(value))}", markup=False)
    for store, value in explanation.store_filters.items():
        out.print(f"store {escape(store)} filter: {escape(json.dumps(value))}", markup=False)
    if explanation.feedback is not None:
        fed = explanation.feedback
        out.print(
            f"feedback (weight {fed['weight']:g}): the vector stores asked again, their ranks "
            f"above from that search, moved towards {escape(', '.join(fed['from']))}",
            markup=False,
        )


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
@ANSWER_K
@click.option("--json", "as_json", is_flag=True, help="Print the answer and citations as JSON.")
@click.option(
    "--stream",
    is_flag=True,
    help="Print the answer as the generator writes it (an LLM's tokens as they come).",
)
@click.option(
    "--trace", is_flag=True, help="After the answer, a table of every stage and its timing."
)
@PRINCIPAL
@click.pass_context
@handle_errors
def ask(
    ctx: click.Context,
    question: str,
    filter_: str | None,
    k: int | None,
    as_json: bool,
    stream: bool,
    trace: bool,
    principals: tuple[str, ...],
) -> None:
    """Answer QUESTION from the indexed documents, with numbered citations."""
    _check_not_empty(ctx, question, "QUESTION", 'ragloom ask "How much is the Pro plan?"')
    if stream and as_json:
        raise click.UsageError("--stream prints text as it comes; drop it with --json", ctx=ctx)
    filters, who = parse_filter_json(filter_), principals_list(principals)
    pipeline = load_pipeline(ctx)
    with plugin_output_to_stderr():
        pipeline.open()  # before `with`, whose entering opens it otherwise
    with pipeline:
        if stream:
            print_stream(pipeline.stream(question, filters, k=k, principals=who))
            return
        with plugin_output_to_stderr():
            answer = pipeline.ask(question, filters, k=k, principals=who, trace=trace)
        empty = empty_index(
            pipeline.index_dir,
            answer.metadata.get("corpus_version"),
            answer.metadata.get("documents", 1),
        )
        if not answer.hits and empty:
            # the refusal alone would read as "the documents do not say"
            click.echo(sanitize(f"note: {empty}"), err=True)
    if as_json:
        click.echo(json.dumps(answer_json(answer, trace=trace), indent=2))
        return
    print_answer(answer)
    if trace:
        print_trace(answer)


def _check_not_empty(ctx: click.Context, text: str, name: str, example: str) -> None:
    """A usage error for a query of nothing but whitespace: retrieval would
    return arbitrary hits for it."""
    if not text.strip():
        raise click.UsageError(f"{name} is empty; give some words, e.g. {example}", ctx=ctx)


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

    def registered(item: dict[str, Any]) -> list[str]:
        return [f"{kind}: {', '.join(names)}" for kind, names in item["registers"].items()]

    if not sys.stdout.isatty():  # piped (| grep): one line a plugin, nothing wrapped
        for item in grouped.values():
            fields = (item["plugin"], item["distribution"] or "", item["version"] or "")
            click.echo("\t".join(sanitize(str(f)) for f in (*fields, "; ".join(registered(item)))))
        return
    from rich.table import Table

    table = Table()
    for column in ("plugin", "distribution", "version", "registers"):
        # a narrow terminal folds a long module name onto more lines, never cuts it
        table.add_column(column, overflow="fold")
    for item in grouped.values():
        table.add_row(
            escape(item["plugin"]),
            escape(item["distribution"] or ""),
            escape(item["version"] or ""),
            escape("\n".join(registered(item))),
        )
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
        sanitize(
            f"{path}: ok — {len(cfg.loaders)} loader(s), chunker {cfg.chunker.type}, "
            f"embedder {cfg.embedder.type if cfg.embedder else 'none'}, "
            f"store(s) {', '.join(s.name for s in cfg.stores)}, "
            f"reranker {cfg.reranker.type if cfg.reranker else 'none'}, "
            f"generator {cfg.generator.type}"
        )
    )


@config.command("schema")
@handle_errors
def config_schema() -> None:
    """Print the JSON Schema of the config file, including every installed component's options."""
    from .plugins import get_registry
    from .schema import config_json_schema

    click.echo(json.dumps(config_json_schema(get_registry()), indent=2))


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="TCP port to listen on; 0 takes a free one (the banner shows it).",
)
@click.option(
    "--keys",
    "keys_file",
    type=click.Path(dir_okay=False),
    envvar="RAGLOOM_KEYS_FILE",
    help="The API keys file: each key's hash, principals and admin flag (see docs/serve.md). "
    "Env: RAGLOOM_KEYS_FILE.",
)
@click.option(
    "--no-auth", is_flag=True, help="Serve without API keys, every request as --principal."
)
@PRINCIPAL
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    help="Seconds a search or an answer may take (504 after), and a request body "
    "may take to arrive (408 after).",
)
@click.option(
    "--max-concurrency",
    type=click.IntRange(min=1),
    default=16,
    show_default=True,
    help="Requests with a valid key handled at once; more get 429 with Retry-After.",
)
@click.option(
    "--shutdown-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=10.0,
    show_default=True,
    help="Seconds a stopping server waits for requests in progress, then for the "
    "pipeline to close; a call still running after it is left behind.",
)
@click.option(
    "--watch-interval",
    type=click.FloatRange(min=0, max=86_400),
    callback=lambda _ctx, _param, value: _finite(value, "--watch-interval"),
    default=2.0,
    show_default=True,
    help="Seconds between looks at the index: a version another process committed is "
    "loaded before a query asks for it; 0: by the first query after it.",
)
@click.option(
    "--max-body",
    type=click.IntRange(min=1024),
    default=1_048_576,
    show_default=True,
    help="Largest request body in bytes (413 above).",
)
@click.option(
    "--max-k",
    type=click.IntRange(1, 10_000),
    default=100,
    show_default=True,
    help="The most hits one request may ask for.",
)
@click.option(
    "--model", default="ragloom", show_default=True, help="The model name chat clients use."
)
@click.option("--no-mcp", is_flag=True, help="Do not serve MCP at /mcp.")
@click.option(
    "--eval-file",
    "eval_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    help="A test set (`ragloom eval` format) the playground may run, named by its file "
    "name (repeatable; default: none).",
)
@click.option(
    "--generate-key",
    is_flag=True,
    help="Print a new API key and its hash for the keys file, and exit.",
)
@click.pass_context
@handle_errors
def serve(
    ctx: click.Context,
    host: str,
    port: int,
    keys_file: str | None,
    no_auth: bool,
    principals: tuple[str, ...],
    timeout: float,
    max_concurrency: int,
    shutdown_timeout: float,
    watch_interval: float,
    max_body: int,
    max_k: int,
    model: str,
    no_mcp: bool,
    eval_files: tuple[str, ...],
    generate_key: bool,
) -> None:
    """Serve the pipeline over HTTP: search, ask, OpenAI-compatible chat, MCP (ragloom[server])."""
    from .server.cli import print_new_key, run_serve
    from .server.settings import ServerSettings

    if generate_key:
        print_new_key()
        return
    settings = ServerSettings(
        host=host,
        port=port,
        max_body_bytes=max_body,
        request_timeout=timeout,
        max_concurrency=max_concurrency,
        shutdown_timeout=shutdown_timeout,
        watch_interval=watch_interval,
        max_k=max_k,
        model=model,
        mcp=not no_mcp,
        eval_files=eval_files,
    )
    run_serve(ctx, keys_file=keys_file, no_auth=no_auth, principals=principals, settings=settings)


@cli.command()
@PRINCIPAL
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    help="Seconds a tool call may take.",
)
@click.pass_context
@handle_errors
def mcp(ctx: click.Context, principals: tuple[str, ...], timeout: float) -> None:
    """Serve the pipeline to an agent over MCP on stdin/stdout (ragloom[mcp])."""
    from .server.cli import run_mcp

    run_mcp(ctx, principals=principals, timeout=timeout)


def _plugin_commands() -> None:
    """Let each plugin add its commands (``register_commands``). A plugin that
    replaces a core command is an error naming it."""
    from .plugins import get_plugin_manager

    pm = get_plugin_manager()
    plugins = pm.get_plugins()
    owner: dict[str, str] = {}  # a plugin command's name -> the plugin that added it
    for impl in pm.hook.register_commands.get_hookimpls():
        others = [p for p in plugins if p is not impl.plugin]
        before = dict(cli.commands)
        pm.subset_hook_caller("register_commands", remove_plugins=others)(cli=cli)
        replaced = sorted(n for n, c in CORE_COMMANDS.items() if cli.commands.get(n) is not c)
        if replaced:
            cli.commands.update(CORE_COMMANDS)
            raise PluginError(
                f"plugin {impl.plugin_name!r} tried to replace the core command(s) "
                f"{', '.join(replaced)}; plugin commands need names of their own"
            )
        for name, command in cli.commands.items():
            if before.get(name) is command:
                continue
            if name in owner:  # another plugin's command, replaced
                raise PluginError(
                    f"plugins {owner[name]!r} and {impl.plugin_name!r} both add the command "
                    f"{name!r}; uninstall one, or skip one with RAGLOOM_DISABLE_PLUGINS=NAME"
                )
            owner[name] = impl.plugin_name


_NO_ARGS_IS_HELP: Any = getattr(click.exceptions, "NoArgsIsHelpError", ())  # click >= 8.2


def _only_help(args: Sequence[str]) -> bool:
    """The command line asks only for help or the version (or nothing)."""
    return not args or bool({"-h", "--help", "--version"} & set(args))


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    if sys.stdout is None:  # `ragloom index >&-`: a write fails as on a full disk
        sys.stdout = _ClosedOutput()
    # a locale that cannot show every character (LANG=en_US.ISO-8859-1): the
    # rest is written as escapes, not a UnicodeEncodeError halfway through
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    # SIGTERM (systemd, a container's stop, `kill`) ends a command as Ctrl-C
    # does, with a line; `ragloom serve` puts uvicorn's own handler in place
    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        _plugin_commands()
    except PluginError as exc:
        args = sys.argv[1:] if argv is None else argv
        if {"-v", "--verbose"} & set(args):  # before the options are parsed: look for it
            import traceback

            traceback.print_exception(exc.__cause__ or exc, file=sys.stderr)
        if not _only_help(args):
            fail(escape(str(exc)), 2)
        # the help and the version need no plugin: shown, with what is broken
        print(f"warning: {escape(str(exc))}; plugin commands are not shown", file=sys.stderr)
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM while the plugins load: as in a command
        fail_interrupted(exc)
    try:
        cli.main(args=argv, prog_name="ragloom", standalone_mode=False)
    except _NO_ARGS_IS_HELP as exc:  # `ragloom` alone: the help
        exc.show()
        sys.exit(2)
    except click.UsageError as exc:  # bad options and arguments: one line, like other errors
        command = exc.ctx.command_path if exc.ctx is not None else "ragloom"
        fail(escape(f"{exc.format_message()} (see `{command} --help`)"), 2)
    except click.Abort:
        sys.exit(1)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt as exc:  # outside a command's own handling (parsing, --help)
        fail_interrupted(exc)
    except BrokenPipeError:  # the help or a usage line, piped into `head`
        stop_quietly()
    except OSError as exc:
        if not isinstance(sys.stdout, _ClosedOutput):
            raise
        fail(escape(f"cannot write the output: {exc.strerror}"), 1)
    try:  # what is still buffered, written before the reader left
        sys.stdout.flush()
    except BrokenPipeError:
        stop_quietly()


cli.add_command(cache)
cli.add_command(chat)
cli.add_command(eval_command)
cli.add_command(tune)

CORE_COMMANDS: dict[str, click.Command] = dict(cli.commands)

if __name__ == "__main__":  # pragma: no cover
    main()
