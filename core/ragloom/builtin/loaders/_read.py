"""Reading one file into a :class:`~ragloom.Document`: the format is chosen
(:func:`file_format`), the bytes decoded, the format's parser run, and the
common metadata added. Every file-based loader (``file``, ``directory``,
``markdown``, ``html``, ``pdf``, ``code``) reads through :func:`read_document`,
so they agree on ids, metadata, decoding and what counts as a bad file.
"""

from __future__ import annotations

import logging
import stat
import time
from collections.abc import Callable, Mapping
from pathlib import Path, PurePath
from typing import Any

from ...components import Context
from ...errors import LoaderError
from ...reads import file_stamp
from ...types import Document, content_hash
from ._deprecated import deprecated
from ._files import (
    BINARY_SNIFF_BYTES,
    HTML_EXTENSIONS,
    MARKDOWN_EXTENSIONS,
    PPTX_EXTENSIONS,
    RST_EXTENSIONS,
    TABLE_EXTENSIONS,
    TEXT_EXTENSIONS,
    XLSX_EXTENSIONS,
    Parsed,
    absolute,
    decode_text,
    path_text,
    source_id,
    zip_format,
)
from .parsers.code import code_language, parse_code
from .parsers.docx import parse_docx
from .parsers.eml import parse_eml
from .parsers.epub import parse_epub
from .parsers.html import parse_html
from .parsers.markdown import parse_markdown
from .parsers.notebook import parse_notebook
from .parsers.pdf import parse_pdf
from .parsers.pptx import parse_pptx
from .parsers.rst import parse_rst
from .parsers.table import parse_table
from .parsers.xlsx import parse_xlsx

__all__ = ["file_format", "read_document"]

log = logging.getLogger(__name__)


def file_format(path: PurePath, head: bytes = b"") -> str:
    """The format a file is read as: ``markdown``, ``html``, ``pdf``, ``docx``,
    ``pptx``, ``xlsx``, ``epub``, ``eml``, ``notebook`` (``.ipynb``), ``code``,
    ``table`` (``.csv``, ``.tsv``), ``rst`` (``.rst``, ``.rest``) or ``text``.

    By extension first (see the ``directory`` loader's docs for the table); a
    file with no or an unknown extension is sniffed from ``head``, its first
    bytes: ``%PDF-`` is a PDF, a zip holding ``word/``, ``ppt/`` or ``xl/``
    a Word document, a PowerPoint deck or an Excel workbook, one starting
    with an EPUB's ``mimetype`` an EPUB book, ``#!`` (a shebang) is code,
    ``<!doctype html`` or ``<html`` is HTML, anything else text.
    """
    extension = path.suffix.lower()
    if extension in MARKDOWN_EXTENSIONS:
        return "markdown"
    if extension in HTML_EXTENSIONS:
        return "html"
    if extension == ".pdf":
        return "pdf"
    if extension == ".docx":
        return "docx"
    if extension in PPTX_EXTENSIONS:
        return "pptx"
    if extension in XLSX_EXTENSIONS:
        return "xlsx"
    if extension == ".eml":
        return "eml"
    if extension == ".epub":
        return "epub"
    if extension == ".ipynb":
        return "notebook"
    if extension in RST_EXTENSIONS:
        return "rst"
    if extension in TEXT_EXTENSIONS:
        return "text"
    if extension in TABLE_EXTENSIONS:
        return "table"
    if code_language(path) is not None:
        return "code"
    start = head.lstrip()[:64].lower()
    if head.startswith(b"%PDF-"):
        return "pdf"
    if (packaged := zip_format(head)) is not None:
        return packaged
    if head.startswith(b"#!"):
        return "code"
    if start.startswith((b"<!doctype html", b"<html")):
        return "html"
    return "text"


def _not_found(path: Path, source: str, context: Context) -> None:
    """A file listed but gone when read: deleted (its document goes with it),
    or its whole folder gone meanwhile (an unmounted volume, a folder moved
    during the run), which says nothing of the file: its indexed version is
    kept until a run finds the folder again, or finds it without the file."""
    if path.parent.exists():
        context.report(source, "file not found; check the path (it may have been moved or deleted)")
        return
    context.report_unreadable(
        source,
        f"its folder {path.parent} is gone (an unmounted volume, a folder moved during the "
        "run?); the indexed version is kept",
    )


def read_document(
    path: Path,
    *,
    context: Context,
    encoding: str = "auto",
    metadata: Mapping[str, Any] | None = None,
    max_size: int | None = None,
    format: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> Document | None:
    """Read one file into a :class:`Document`, or report why not and return None.

    :param path: the file; made absolute against the working directory if relative
        (callers pass ``context.resolve(...)``).
    :param context: gives ``base_dir`` for the id and ``report`` for problems.
    :param encoding: ``auto`` or the codec the bytes are decoded with (see :func:`decode_text`).
    :param metadata: extra fields merged over the computed ones.
    :param max_size: files bigger than this many bytes are reported and skipped,
        judged from their size alone (they are never read).
    :param format: one of :func:`file_format`'s formats; None: :func:`file_format` chooses.
    :param options: keyword options for the format's parser.
    :returns: the document, or None when the file was reported and skipped.
    :raises LoaderError: only when the format needs a package that is not
        installed (pypdf, python-docx, python-pptx, openpyxl); callers report it.

    The id and ``source`` are the path relative to ``context.base_dir`` (forward
    slashes), or the absolute path outside it. Metadata: ``source``, ``path``
    (absolute), ``mtime`` (float seconds), ``size`` (bytes), ``content_hash``
    (of the text), ``extension`` (lowercase suffix with its dot, ``".md"``; ``""``
    for none), ``title`` (the format's, else the file stem) and the format's own
    fields (front matter, ``links``, ``pages``/``page_starts``, ``language``).
    Line endings become ``\\n``, so a checkout with CRLF endings hashes the same.

    Reported and skipped, never raised: a missing path, something that is not a
    regular file, a file that cannot be read (through ``context.report_unreadable``,
    so the index keeps the version it holds), one over ``max_size``, a binary
    file (a NUL byte in the first 8 KB), bytes that do not decode, an empty file
    (nothing but whitespace), and whatever the format's parser rejects (a PDF
    with no text layer). Each gets one line through ``context.report``.
    """
    path = absolute(path)
    source = source_id(path, context)
    reported = False

    def report(message: str) -> None:
        nonlocal reported
        reported = True
        context.report(source, message)

    now = time.time()  # before the stat: a file changed after it is not trusted
    try:
        info = path.stat()
    except FileNotFoundError:
        _not_found(path, source, context)
        return None
    except OSError as exc:  # it exists but cannot be read now: keep what was indexed
        context.report_unreadable(
            source,
            f"cannot read file: {exc.strerror or exc}; check its permissions (the indexed "
            "version is kept)",
        )
        return None
    if stat.S_ISDIR(info.st_mode):  # a file that became a folder since it was listed
        report("a folder now, no longer a file; skipped")
        return None
    if not stat.S_ISREG(info.st_mode):
        report("not a regular file (a device, socket or pipe); skipped")
        return None
    if max_size is not None and info.st_size > max_size:
        # a file that grew past the limit (a runbook, a log) is kept as it was
        # indexed, as an unreadable one is: dropped, it would leave the index
        # quietly, one document at a time, past the mass-delete guard
        context.report_unreadable(
            source,
            f"file is {info.st_size} bytes, over max_file_size ({max_size}); raise "
            "max_file_size or exclude it (a version indexed before is kept until then)",
        )
        return None
    stamp = file_stamp(path, info, now)
    if context.unchanged(source, stamp):  # indexed from this very file: not read again
        return None
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        _not_found(path, source, context)
        return None
    except OSError as exc:
        context.report_unreadable(
            source,
            f"cannot read file: {exc.strerror or exc}; check its permissions (the indexed "
            "version is kept)",
        )
        return None

    kind = format or file_format(path, data[:BINARY_SNIFF_BYTES])
    parsed = _parsed(kind, data, path=path, encoding=encoding, report=report, options=options)
    if parsed is None:
        return None
    text, fields = parsed

    title = fields.pop("title", None)
    document_metadata: dict[str, Any] = {
        "source": source,
        "path": path_text(path),
        "mtime": float(info.st_mtime),
        "size": int(info.st_size),
        "content_hash": content_hash(text),
        "extension": path.suffix.lower(),
        "title": title or path_text(path.stem),
        **fields,
    }
    marked = deprecated(text, fields, kind)  # it says it no longer holds (``_deprecated``)
    if marked is not None:
        document_metadata["deprecated"] = marked
    document_metadata.update(metadata or {})
    # a file whose reading said something is read (and says it) on every run
    context.read(source, None if reported else stamp)
    return Document(id=source, text=text, metadata=document_metadata)


def _parsed(
    kind: str,
    data: bytes,
    *,
    path: Path,
    encoding: str,
    report: Callable[[str], None],
    options: Mapping[str, Any] | None,
) -> Parsed | None:
    """A file's text and format metadata by its format's parser; None after
    reporting why not. Whatever a parser (or the library under it) raises on
    a damaged file, a zlib error in a zip, a recursion limit on deep JSON, is
    reported for that file and skipped: one file never stops the run.
    :class:`LoaderError` (a package not installed) is raised to the loader."""
    try:
        if kind in _BINARY_PARSERS:
            if not data.strip():
                report("empty file (no text to index); skipped")
                return None
            return _BINARY_PARSERS[kind](data, report=report, **(options or {}))
        text = decode_text(data, encoding, report=report, html=kind == "html")
        if text is None:
            return None
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if not text.strip():
            report("empty file (no text to index); skipped")
            return None
        return _parser(kind)(text, path=path, report=report, **(options or {}))
    except LoaderError:
        raise
    except Exception as exc:  # a parser's library on a file it cannot read (MemoryError too)
        log.debug("reading %s as %s failed", path, kind, exc_info=True)
        detail = str(exc).splitlines()[0][:200] if str(exc).strip() else ""
        report(f"could not be read as {kind} ({type(exc).__name__}: {detail}); skipped")
        return None


def _parser(kind: str) -> Callable[..., Parsed | None]:
    """The text parser of a format."""
    return _PARSERS.get(kind, _parse_text)


def _parse_text(text: str, **_: Any) -> Parsed:
    return text, {}


_BINARY_PARSERS: dict[str, Callable[..., Parsed | None]] = {
    "pdf": parse_pdf,
    "docx": parse_docx,
    "pptx": parse_pptx,
    "xlsx": parse_xlsx,
    "epub": parse_epub,
    "eml": parse_eml,  # each part decoded by the charset it declares
}
"""The formats read from the file's bytes, not from decoded text."""

_PARSERS: dict[str, Callable[..., Parsed | None]] = {
    "markdown": parse_markdown,
    "rst": parse_rst,
    "html": parse_html,
    "code": parse_code,
    "table": parse_table,
    "notebook": parse_notebook,
}
