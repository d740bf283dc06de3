"""The ``pdf`` loader: the text layer of every page, with page offsets.

    loaders:
      - type: pdf
        path: manuals/manual.pdf

Needs pypdf: ``pip install 'ragloom[pdf]'``. See
:mod:`ragloom.builtin.loaders.parsers.pdf` for pages and their offsets.
"""

from __future__ import annotations

import importlib.util
from typing import ClassVar

from pydantic import model_validator

from ...components import Context
from ...errors import LoaderError
from ._files import FileOptions
from .file import FileLoader
from .parsers.pdf import MISSING_PYPDF

__all__ = ["PdfLoader"]


class PdfLoader(FileLoader):
    """Loads one PDF as one document; see the module docs.

    Metadata, besides the common file fields: ``title`` (the PDF's own title
    when it has one, else the file stem), ``pages`` (the page count) and
    ``page_starts`` (the offset in the text where each page starts, page 1
    first). A page with images but no text layer (a scanned page) is
    reported, in one line per file, and the rest loads; a PDF with no text at
    all is reported and skipped. An encrypted PDF is opened with the empty
    password when that works, else reported.
    """

    stamps = True  # files unchanged since they were indexed are not read (ragloom.reads)

    class Config(FileOptions):
        path: str

        @model_validator(mode="after")
        def _pypdf_installed(self) -> PdfLoader.Config:
            if importlib.util.find_spec("pypdf") is None:
                raise ValueError(MISSING_PYPDF)
            return self

    config: Config  # type: ignore[assignment]
    format: ClassVar[str | None] = "pdf"

    def open(self, context: Context | None = None) -> None:
        super().open(context)
        if importlib.util.find_spec("pypdf") is None:
            raise LoaderError(MISSING_PYPDF)
