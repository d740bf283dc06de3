"""``ragloom cache``: what the embedding cache holds, and pruning it.

    ragloom cache info
    ragloom cache prune --older-than 90
    ragloom cache prune --max-size 2GB --dry-run

The file is the config's (``cache.path``, else ``$RAGLOOM_CACHE_DIR``),
or, with no config here, the default one. Pruning loses nothing but the
time to embed those texts again.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import click

from .cli_support import console, escape, handle_errors

__all__ = ["cache"]

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:([kmgt])(?:i?b)?|b)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def parse_size(text: str) -> int:
    """``500MB``, ``2G``, ``1.5GiB`` or a number of bytes, in bytes (binary units)."""
    found = _SIZE.match(text)
    if not found:
        raise click.BadParameter(f"{text!r} is no size: write e.g. 500MB, 2GB or 1048576")
    number, unit = found.groups()
    return int(float(number) * _UNITS[(unit or "").lower()])


def _shown_bytes(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    size = n / 1024
    for unit in ("KB", "MB"):
        if size < 1024:
            return f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def _when(stamp: float | None) -> str:
    if not stamp:
        return "-"
    days = (time.time() - stamp) / 86_400
    shown = time.strftime("%Y-%m-%d", time.gmtime(stamp))
    return f"{shown} ({days:.0f} days ago)" if days >= 1 else f"{shown} (today)"


def _cache_of(ctx: click.Context) -> tuple[Any, str | None]:
    """The embedding cache of the config (given, or in this folder), else the
    default file; with the key of the config's embedder (None without one)."""
    from .cache import EmbeddingCache, default_cache_dir, fingerprint_key
    from .configfile import find_config
    from .errors import ConfigError
    from .pipeline import Pipeline

    given = ctx.obj.get("config")
    found = Path(given) if given else find_config()
    if found is None:
        return EmbeddingCache(default_cache_dir() / "embeddings.sqlite"), None
    pipeline = Pipeline.from_config(found)
    if not pipeline.config.cache.embeddings:
        raise ConfigError(
            f"{found} turns the embedding cache off (`cache: {{embeddings: false}}`): "
            "there is none to show or prune"
        )
    cache = EmbeddingCache.configured(pipeline.config.cache, pipeline.config.base_dir)
    key = None if pipeline.embedder is None else fingerprint_key(pipeline.embedder.fingerprint())
    return cache, key


@click.group()
def cache() -> None:
    """The embedding cache: what it holds, and pruning it."""


@cache.command("info")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.pass_context
@handle_errors
def cache_info(ctx: click.Context, as_json: bool) -> None:
    """Where the embedding cache is, its size, its entries and their last use."""
    store, key = _cache_of(ctx)
    try:
        info = store.info()
    finally:
        store.close()
    mine = info.by_embedder.get(key, 0) if key else None
    if as_json:
        click.echo(
            json.dumps(
                {
                    "path": str(info.path),
                    "entries": info.entries,
                    "bytes": info.bytes,
                    "oldest_use": info.oldest_use,
                    "latest_use": info.latest_use,
                    "embedders": len(info.by_embedder),
                    "this_embedder_entries": mine,
                    "compact": info.compact,
                },
                indent=2,
            )
        )
        return
    out = console()
    out.print(f"embedding cache: {escape(str(info.path))}")
    if not info.entries:
        out.print("empty" if info.path.exists() else "no file yet (nothing embedded)")
        return
    out.print(f"{info.entries:,} vector(s), {_shown_bytes(info.bytes)} on disk")
    out.print(f"last used: oldest {_when(info.oldest_use)}, latest {_when(info.latest_use)}")
    embedders = f"{len(info.by_embedder)} embedder(s)"
    if mine is not None:
        embedders += f"; this config's embedder: {mine:,} vector(s)"
    out.print(embedders)
    if not info.compact:
        out.print(
            "stored in the older layout, about twice the bytes a vector: any "
            "`ragloom cache prune` rewrites it compact"
        )


@cache.command("prune")
@click.option(
    "--older-than",
    "older_than",
    type=click.FloatRange(min=0),
    default=None,
    help="Drop vectors no index run has written or read for this many days.",
)
@click.option(
    "--max-size",
    "max_size",
    default=None,
    help="Then drop the least recently used until the file is about this size (500MB, 2GB, bytes).",
)
@click.option("--dry-run", is_flag=True, help="Say what would go; change nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.pass_context
@handle_errors
def cache_prune(
    ctx: click.Context,
    older_than: float | None,
    max_size: str | None,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Drop vectors the indexes have not used lately, or down to a size.

    Each vector keeps its last use (to the day). Nothing is lost but time: a
    text whose vector was dropped is embedded again when an index needs it.
    The file is compacted afterwards; an index run at the same time waits.
    """
    if older_than is None and max_size is None:
        raise click.UsageError("say what to prune: --older-than DAYS, --max-size SIZE, or both")
    limit = parse_size(max_size) if max_size is not None else None
    store, _ = _cache_of(ctx)
    try:
        report = store.prune(
            older_than=None if older_than is None else older_than * 86_400,
            max_bytes=limit,
            dry_run=dry_run,
        )
    finally:
        store.close()
    if as_json:
        click.echo(
            json.dumps(
                {
                    "path": str(store.path),
                    "entries_before": report.entries_before,
                    "entries_removed": report.entries_removed,
                    "bytes_before": report.bytes_before,
                    "bytes_after": report.bytes_after,
                    "dry_run": report.dry_run,
                },
                indent=2,
            )
        )
        return
    verb = "would drop" if dry_run else "dropped"
    after = "about " if dry_run else ""
    console().print(
        f"{escape(str(store.path))}: {verb} {report.entries_removed:,} of "
        f"{report.entries_before:,} vector(s); {_shown_bytes(report.bytes_before)} → "
        f"{after}{_shown_bytes(report.bytes_after)}"
    )
