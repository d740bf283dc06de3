"""The ``file`` loader: one file becomes one document, read by its format.

The format is chosen by :func:`~ragloom.builtin.loaders._read.file_format`
from the extension (and, for unknown extensions, from the first bytes); the
parsers in ``parsers/`` turn text (or, for PDF and Office files, bytes) into the document text
and its metadata.

    loader:
      - type: file
        path: docs/handbook.md
        metadata: {team: support}
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from ...components import Loader
from ...errors import LoaderError, SourceUnavailableError
from ...types import Document
from ._files import TextFileOptions, absolute, covered, source_id
from ._read import read_document

__all__ = ["FileLoader"]


class FileLoader(Loader):
    """Loads one file as one document, read by its format: Markdown, HTML, PDF,
    Word, PowerPoint, Excel, source code, reStructuredText or plain text,
    chosen by :func:`file_format`.

    The document id (also ``metadata["source"]``) is the path relative to
    ``context.base_dir`` with forward slashes, or the absolute path when the
    file lies outside it. See :func:`read_document` for the metadata and for
    which files are reported and skipped instead of loaded. A missing path or a
    directory raises :class:`~ragloom.errors.SourceUnavailableError`: the
    config names this file, so its absence is an error, and the index keeps
    the document until the loader is removed from the config.

    Subclasses fix the format (``format = "markdown"``) and may pass options to
    its parser through ``parse_options()``.
    """

    stamps = True  # files unchanged since they were indexed are not read (ragloom.reads)

    class Config(TextFileOptions):
        path: str

    config: Config
    format: ClassVar[str | None] = None
    """The format every file is read as; None: chosen per file by :func:`file_format`."""

    def parse_options(self) -> dict[str, Any]:
        """Keyword options for the format's parser (``max_links`` for HTML)."""
        return {}

    def load(self) -> Iterator[Document]:
        path = absolute(self.context.resolve(self.config.path))
        source = source_id(path, self.context)
        if path.is_dir():
            raise SourceUnavailableError(
                f"{source} is a directory, not a file; use `type: directory` to load a folder"
            )
        if not path.exists() and not path.is_symlink():
            raise SourceUnavailableError(
                f"{source}: file not found; check `path:` (relative paths resolve against "
                f"{absolute(self.context.base_dir)}), or remove the loader if the file is gone"
            )
        try:
            document = read_document(
                path,
                context=self.context,
                encoding=getattr(self.config, "encoding", "auto"),
                metadata=self.config.metadata,
                format=self.format,
                options=self.parse_options(),
            )
        except LoaderError as exc:  # a missing optional dependency (pypdf)
            self.context.report_unreadable(source, f"{exc} (the indexed version is kept)")
            return
        if document is not None:
            yield document

    def with_sources(self, sources: Sequence[str]) -> FileLoader | None:
        """This loader if its file is one of ``sources`` or lies under one of
        them (a directory); else None."""
        return self if covered(self.config.path, sources, self.context) else None
