"""The ``html`` loader: the readable text of a web page, as Markdown-like text.

    loaders:
      - type: html
        path: site/guide/install.html

See :mod:`ragloom.builtin.loaders.parsers.html` for how a page is rendered.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from .file import FileLoader
from .parsers.html import DEFAULT_MAX_LINKS

__all__ = ["HtmlLoader"]


class HtmlLoader(FileLoader):
    """Loads one HTML file as one document; see the module docs.

    Metadata, besides the common file fields: ``title`` (``<title>``, else the
    first ``<h1>``, else the file stem) and ``links``: the ``href`` of every
    link in the content, in order, deduplicated, at most ``max_links``;
    resolved against ``<base href>`` when the page has one, else as written.
    Fragment-only, ``javascript:`` and ``data:`` links are left out.
    """

    stamps = True  # files unchanged since they were indexed are not read (ragloom.reads)

    class Config(FileLoader.Config):
        max_links: int = Field(default=DEFAULT_MAX_LINKS, ge=0)

    config: Config
    format: ClassVar[str | None] = "html"

    def parse_options(self) -> dict[str, Any]:
        return {"max_links": self.config.max_links}
