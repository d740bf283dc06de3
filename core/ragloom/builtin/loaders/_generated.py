"""What a documentation tool generated: build output folders and minified files.

A built docs site holds a copy of every page, as it was when it was last
built: indexed beside the sources, the stale copy answers as often as the
page itself. A folder is taken for build output by the files a tool writes
into it (or beside it), never by its name alone, so a user's own ``site/`` or
``build/`` folder of documents is loaded as before.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

__all__ = ["GENERATED_SUFFIXES", "generated_output"]

GENERATED_SUFFIXES = (".min.js", ".min.css", ".map")
"""Files that are built, never written, and never prose: minified bundles and
source maps. Skipped unless an ``include`` pattern ends in the same suffix."""

_MKDOCS_PAGES = ("sitemap.xml", "sitemap.xml.gz", "index.html", "404.html")

_BESIDE = {
    "_site": ("Jekyll", ("_config.yml", "_config.yaml")),
    "public": ("Hugo", ("hugo.toml", "hugo.yaml", "hugo.json")),
    "build": ("Docusaurus", ("docusaurus.config.js", "docusaurus.config.ts")),
}
"""A folder of this name is a tool's output when the folder above it holds
that tool's own config file (the name alone is too common to go by)."""


def generated_output(directory: Path, names: Collection[str]) -> str | None:
    """Which tool built ``directory`` (whose entries are ``names``), with the
    evidence, as in ``MkDocs: sitemap.xml and search/search_index.json``;
    None for a folder no tool is known to have built."""
    if ".buildinfo" in names:
        return "Sphinx: .buildinfo"
    # MkDocs writes all of these; a site copied without its sitemap still has a page
    page = next((n for n in _MKDOCS_PAGES if n in names), None)
    if page and "search" in names and (directory / "search" / "search_index.json").is_file():
        return f"MkDocs: {page} and search/search_index.json"
    if directory.name in _BESIDE:
        tool, configs = _BESIDE[directory.name]
        config = next((c for c in configs if (directory.parent / c).is_file()), None)
        if config is not None:
            return f"{tool}: {config} beside it"
    return None
