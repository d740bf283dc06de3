"""The ``code`` loader: a source file, whole, with its language.

    loaders:
      - type: code
        path: src/billing/client.py

The whole file is one document (the ``code`` chunker splits it by function
and class); ``metadata["language"]`` comes from the extension
(:data:`~ragloom.builtin._languages.LANGUAGES`), a well-known file name
(``Dockerfile``) or, for a file with neither, its shebang line
(``#!/usr/bin/env python3``).
"""

from __future__ import annotations

from typing import ClassVar

from .file import FileLoader

__all__ = ["CodeLoader"]


class CodeLoader(FileLoader):
    """Loads one source file as one document; see the module docs.

    Metadata, besides the common file fields: ``language`` (``python``,
    ``typescript``...; ``text`` when none is known) and ``title``: for
    Python, the first line of the module docstring; else the file name.
    """

    stamps = True  # files unchanged since they were indexed are not read (ragloom.reads)

    format: ClassVar[str | None] = "code"
