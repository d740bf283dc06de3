"""The ``file`` loader: one file becomes one document, read by its format.

Also home of :func:`read_document`, the per-file reading code shared by every
file-based loader (``file``, ``directory``, ``markdown``, ``html``, ``pdf``,
``code``), so they agree on ids, metadata, decoding and what counts as a bad
file. The format is chosen by :func:`file_format` from the extension (and, for
unknown extensions, from the first bytes); the format modules only turn text
(or, for PDF, bytes) into the document text and its metadata.

    loader:
      - type: file
        path: docs/handbook.md
        metadata: {team: support}
"""

from __future__ import annotations

import codecs
import logging
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any, ClassVar

from pydantic import field_validator

from ..components import ComponentConfig, Context, Loader
from ..errors import LoaderError
from ..types import Document, content_hash

__all__ = [
    "HTML_EXTENSIONS",
    "MARKDOWN_EXTENSIONS",
    "RESERVED_METADATA",
    "TEXT_EXTENSIONS",
    "FileLoader",
    "FileOptions",
    "Parsed",
    "TextFileOptions",
    "absolute",
    "decode_text",
    "file_format",
    "is_within",
    "read_document",
    "source_id",
]

log = logging.getLogger(__name__)

RESERVED_METADATA = frozenset({"source", "path", "mtime", "size", "content_hash", "relative_path"})
"""Metadata keys the loaders set themselves; a config's ``metadata:`` may not set them."""

BINARY_SNIFF_BYTES = 8192
"""A NUL byte among this many leading bytes marks a file as binary."""

MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown", ".mdx"})
HTML_EXTENSIONS = frozenset({".html", ".htm", ".xhtml"})
TEXT_EXTENSIONS = frozenset({".txt", ".text", ".rst"})

Parsed = tuple[str, dict[str, Any]]
"""What a format parser returns: the document text and its format metadata."""

_JSON_SCALARS = (str, int, float, bool, type(None))
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16 LE, whose BOM is its prefix
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_DECLARED_CHARSET = re.compile(
    rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)"""
    rb"""|<\?xml[^>]{0,200}?encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""",
    re.IGNORECASE,
)


class FileOptions(ComponentConfig):
    """Options shared by every file loader: ``metadata`` is added to each
    document (JSON-compatible values: str, int, float, bool, None or lists of
    those) and may override ``title`` or ``extension`` but not the keys in
    :data:`RESERVED_METADATA`."""

    metadata: dict[str, Any] = {}

    @field_validator("metadata")
    @classmethod
    def _plain_metadata(cls, value: dict[str, Any]) -> dict[str, Any]:
        reserved = sorted(RESERVED_METADATA.intersection(value))
        if reserved:
            raise ValueError(
                f"metadata key(s) {', '.join(reserved)} are set by the loader itself; "
                "rename them (for example 'origin' instead of 'source')"
            )
        for key, item in value.items():
            items = item if isinstance(item, list) else [item]
            if not all(isinstance(x, _JSON_SCALARS) for x in items):
                raise ValueError(
                    f"metadata value for {key!r} must be a string, number, boolean, null "
                    f"or a list of those, not {type(item).__name__}"
                )
        return value


class TextFileOptions(FileOptions):
    """Options of the loaders that read text: ``encoding`` is ``auto`` (UTF-8,
    else a confident guess) or any Python codec name."""

    encoding: str = "auto"

    @field_validator("encoding")
    @classmethod
    def _known_encoding(cls, value: str) -> str:
        if value == "auto":
            return value
        try:
            codecs.lookup(value)
        except LookupError:
            raise ValueError(
                f"unknown encoding {value!r}; use 'auto' or a Python codec name such as "
                "'utf-8', 'latin-1' or 'cp1252'"
            ) from None
        return value


class FileLoader(Loader):
    """Loads one file as one document, read by its format: Markdown, HTML, PDF,
    source code or plain text, chosen by :func:`file_format`.

    The document id (also ``metadata["source"]``) is the path relative to
    ``context.base_dir`` with forward slashes, or the absolute path when the
    file lies outside it. See :func:`read_document` for the metadata and for
    which files are reported and skipped instead of loaded; a missing path or a
    directory is reported too. ``load()`` never raises for a bad file.

    Subclasses fix the format (``format = "markdown"``) and may pass options to
    its parser through ``parse_options()``.
    """

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
            self.context.report(
                source, "is a directory, not a file; use `type: directory` to load a folder"
            )
            return
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
            self.context.report(source, str(exc))
            return
        if document is not None:
            yield document

    def with_sources(self, sources: Sequence[str]) -> FileLoader | None:
        """This loader if its file is one of ``sources`` or lies under one of
        them (a directory); else None."""
        path = absolute(self.context.resolve(self.config.path))
        for source in sources:
            if is_within(path, absolute(self.context.resolve(source))):
                return self
        return None


def file_format(path: PurePath, head: bytes = b"") -> str:
    """The format a file is read as: ``markdown``, ``html``, ``pdf``, ``code`` or ``text``.

    By extension first (see the ``directory`` loader's docs for the table); a
    file with no or an unknown extension is sniffed from ``head``, its first
    bytes: ``%PDF-`` is a PDF, ``#!`` (a shebang) is code, ``<!doctype html`` or
    ``<html`` is HTML, anything else text.
    """
    from .code_loader import code_language

    extension = path.suffix.lower()
    if extension in MARKDOWN_EXTENSIONS:
        return "markdown"
    if extension in HTML_EXTENSIONS:
        return "html"
    if extension == ".pdf":
        return "pdf"
    if extension in TEXT_EXTENSIONS:
        return "text"
    if code_language(path) is not None:
        return "code"
    start = head.lstrip()[:64].lower()
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"#!"):
        return "code"
    if start.startswith((b"<!doctype html", b"<html")):
        return "html"
    return "text"


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
    :param format: ``markdown``, ``html``, ``pdf``, ``code`` or ``text``; None:
        :func:`file_format` chooses.
    :param options: keyword options for the format's parser.
    :returns: the document, or None when the file was reported and skipped.
    :raises LoaderError: only when the format needs a package that is not
        installed (pypdf); callers report it.

    The id and ``source`` are the path relative to ``context.base_dir`` (forward
    slashes), or the absolute path outside it. Metadata: ``source``, ``path``
    (absolute), ``mtime`` (float seconds), ``size`` (bytes), ``content_hash``
    (of the text), ``extension`` (lowercase suffix with its dot, ``".md"``; ``""``
    for none), ``title`` (the format's, else the file stem) and the format's own
    fields (front matter, ``links``, ``pages``/``page_starts``, ``language``).
    Line endings become ``\\n``, so a checkout with CRLF endings hashes the same.

    Reported and skipped, never raised: a missing path, something that is not a
    regular file, a file that cannot be read, one over ``max_size``, a binary
    file (a NUL byte in the first 8 KB), bytes that do not decode, an empty file
    (nothing but whitespace), and whatever the format's parser rejects (a PDF
    with no text layer). Each gets one line through ``context.report``.
    """
    path = absolute(path)
    source = source_id(path, context)

    def report(message: str) -> None:
        context.report(source, message)

    try:
        info = path.stat()
    except FileNotFoundError:
        report("file not found; check the path (it may have been moved or deleted)")
        return None
    except OSError as exc:
        report(f"cannot read file: {exc.strerror or exc}; check its permissions")
        return None
    if not stat.S_ISREG(info.st_mode):
        report("not a regular file (a device, socket or pipe); skipped")
        return None
    if max_size is not None and info.st_size > max_size:
        report(
            f"file is {info.st_size} bytes, over max_file_size ({max_size}); "
            "raise max_file_size or exclude it"
        )
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        report(f"cannot read file: {exc.strerror or exc}; check its permissions")
        return None

    kind = format or file_format(path, data[:512])
    parsed: Parsed | None
    if kind == "pdf":
        from .pdf_loader import parse_pdf

        if not data.strip():
            report("empty file (no text to index); skipped")
            return None
        parsed = parse_pdf(data, report=report, **(options or {}))
    else:
        text = decode_text(data, encoding, report=report, html=kind == "html")
        if text is None:
            return None
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if not text.strip():
            report("empty file (no text to index); skipped")
            return None
        parsed = _parser(kind)(text, path=path, report=report, **(options or {}))
    if parsed is None:
        return None
    text, fields = parsed

    title = fields.pop("title", None)
    document_metadata: dict[str, Any] = {
        "source": source,
        "path": str(path),
        "mtime": float(info.st_mtime),
        "size": int(info.st_size),
        "content_hash": content_hash(text),
        "extension": path.suffix.lower(),
        "title": title or path.stem,
        **fields,
    }
    document_metadata.update(metadata or {})
    return Document(id=source, text=text, metadata=document_metadata)


def decode_text(
    data: bytes,
    encoding: str,
    *,
    report: Callable[[str], None],
    html: bool = False,
) -> str | None:
    """The text of ``data``, or None after reporting why it cannot be decoded.

    ``encoding`` names a codec, used strictly; or it is ``auto``: a byte-order
    mark decides (UTF-8, UTF-16, UTF-32); else UTF-8; else, for HTML, the
    charset its ``<meta>`` or XML declaration names; else the best guess of
    charset-normalizer when it is confident (the bytes decode with little
    noise into a recognisable language; among equally good guesses
    ``cp1252`` wins, as in browsers). Bytes that are nearly UTF-8 but for a
    few broken sequences are reported, not guessed. A NUL byte in the first
    8 KB (outside UTF-16/32) marks a binary file, which is reported.
    """
    if encoding == "auto":
        for bom, codec in _BOMS:
            if data.startswith(bom):
                return _decode_strict(data, codec, report)
        if b"\x00" in data[:BINARY_SNIFF_BYTES]:
            report("binary file (NUL byte in the first 8 KB), not text; skipped")
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            utf8_error = exc
        where = f"byte 0x{data[utf8_error.start]:02x} at offset {utf8_error.start}"
        if any(ord(ch) > 127 for ch in data[: utf8_error.start].decode("utf-8")):
            report(
                f"could not decode: UTF-8 but for {where} (a damaged or mixed file); "
                "repair it or set `encoding:` on the loader"
            )
            return None
        declared = _declared_charset(data) if html else None
        if declared is not None:
            try:
                return data.decode(declared)
            except UnicodeDecodeError:
                pass
        guessed = _guess(data)
        if guessed is None:
            report(
                f"could not decode: not UTF-8 ({where}) and no confident guess of its "
                "encoding; set `encoding:` on the loader (e.g. `encoding: latin-1`)"
            )
            return None
        log.debug("decoded as %s (guessed)", guessed[0])
        return guessed[1]

    codec = codecs.lookup(encoding).name
    wide = codec.startswith(("utf-16", "utf-32"))
    if not wide and b"\x00" in data[:BINARY_SNIFF_BYTES]:
        report("binary file (NUL byte in the first 8 KB), not text; skipped")
        return None
    text = _decode_strict(data, encoding, report)
    if text is not None and wide and "\x00" in text[:BINARY_SNIFF_BYTES]:
        report("binary file (NUL character near the start), not text; skipped")
        return None
    return text


def _decode_strict(data: bytes, encoding: str, report: Callable[[str], None]) -> str | None:
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        report(
            f"not valid {encoding} text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            f"re-save the file as {encoding} or set `encoding:` on the loader"
        )
        return None
    return text.removeprefix("\ufeff")


def _declared_charset(data: bytes) -> str | None:
    """The codec an HTML ``<meta charset>`` or XML declaration names in the first 2 KB."""
    match = _DECLARED_CHARSET.search(data[:2048])
    if match is None:
        return None
    name = (match.group(1) or match.group(2)).decode("ascii").lower()
    try:
        codec = codecs.lookup("cp1252" if name in ("iso-8859-1", "latin1", "us-ascii") else name)
    except LookupError:
        return None
    return None if codec.name.startswith(("utf-16", "utf-32")) else codec.name


def _guess(data: bytes) -> tuple[str, str] | None:
    """charset-normalizer's confident guess: ``(codec, text)``, or None."""
    from charset_normalizer import from_bytes

    matches = from_bytes(data[:1_000_000])
    best = matches.best()
    if best is None or best.coherence <= 0.0 or best.chaos > 0.1:
        return None
    codec = best.encoding
    if codec.startswith(("utf_16", "utf_32")):  # without a BOM: not trusted
        return None
    tied = {
        m.encoding
        for m in matches
        if m.chaos == best.chaos and abs(m.coherence - best.coherence) < 1e-9
    }
    if "cp1252" in tied:
        codec = "cp1252"
    try:
        return codec, data.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


def _parser(kind: str) -> Callable[..., Parsed | None]:
    """The text parser of a format (imported here: the format modules import this one)."""
    if kind == "markdown":
        from .markdown_loader import parse_markdown

        return parse_markdown
    if kind == "html":
        from .html_loader import parse_html

        return parse_html
    if kind == "code":
        from .code_loader import parse_code

        return parse_code
    return _parse_text


def _parse_text(text: str, **_: Any) -> Parsed:
    return text, {}


def absolute(path: str | os.PathLike[str]) -> Path:
    """``path`` made absolute and normalised (``..`` folded) without resolving symlinks,
    so a file reached through a link keeps the link's path."""
    return Path(os.path.abspath(path))


def is_within(path: PurePath, directory: PurePath) -> bool:
    """Whether ``path`` is ``directory`` or lies under it (both absolute; compared lexically)."""
    return path == directory or path.is_relative_to(directory)


def source_id(path: str | os.PathLike[str], context: Context) -> str:
    """The stable id of a file: relative to ``context.base_dir`` with forward
    slashes, or the absolute path (forward slashes) when it lies outside."""
    path = absolute(path)
    base = absolute(context.base_dir)
    if is_within(path, base):
        return path.relative_to(base).as_posix()
    # base_dir given through a symlink (macOS /tmp -> /private/tmp): compare real paths
    real_base = Path(os.path.realpath(base))
    real_parent = Path(os.path.realpath(path.parent))
    if real_base != base or real_parent != path.parent:
        candidate = real_parent / path.name
        if is_within(candidate, real_base):
            return candidate.relative_to(real_base).as_posix()
    return path.as_posix()
