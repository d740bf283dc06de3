"""The ``markdown`` loader: a Markdown file, its front matter as metadata.

    loaders:
      - type: markdown
        path: docs/manual.md

See :mod:`ragloom.builtin.loaders.parsers.markdown` for what is done to the text.
"""

from __future__ import annotations

from typing import ClassVar

from .file import FileLoader

__all__ = ["MarkdownLoader"]


class MarkdownLoader(FileLoader):
    """Loads one Markdown file as one document; see the module docs.

    Metadata, besides the common file fields: ``title`` (front matter
    ``title``, else the first ``# `` heading, else the file stem) and every
    front-matter key. Values that are strings, numbers, booleans, null or
    lists of those are kept; dates become ISO strings; nested mappings are
    flattened with dots (``author: {name: Ada}`` becomes ``author.name``);
    anything else (a list of mappings) is left out and reported. A key the
    loader sets itself (``source``, ``path``...) is kept as
    ``front_matter.<key>``. The config's ``metadata:`` wins over front matter.
    """

    stamps = True  # files unchanged since they were indexed are not read (ragloom.reads)

    format: ClassVar[str | None] = "markdown"
