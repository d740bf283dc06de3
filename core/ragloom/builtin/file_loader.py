"""The ``file`` loader: one text file becomes one document.

Also home of :func:`read_text_document`, the per-file reading code shared with
the ``directory`` loader, so both agree on ids, metadata and what counts as a
bad file.

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
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any

from pydantic import field_validator

from ..components import ComponentConfig, Context, Loader
from ..types import Document, content_hash

__all__ = [
    "RESERVED_METADATA",
    "FileLoader",
    "TextFileOptions",
    "absolute",
    "is_within",
    "read_text_document",
    "source_id",
]

log = logging.getLogger(__name__)

RESERVED_METADATA = frozenset({"source", "path", "mtime", "size", "content_hash", "relative_path"})
"""Metadata keys the loaders set themselves; a config's ``metadata:`` may not set them."""

BINARY_SNIFF_BYTES = 8192
"""A NUL byte among this many leading bytes marks a file as binary."""

MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown"})

_JSON_SCALARS = (str, int, float, bool, type(None))
_CLOSING_HASHES = re.compile(r"(?:^|\s+)#+$")


class TextFileOptions(ComponentConfig):
    """Options shared by the file-reading loaders.

    ``encoding`` is any Python codec name; ``metadata`` is added to every
    document (JSON-compatible values: str, int, float, bool, None or lists of
    those) and may override ``title`` or ``extension`` but not the keys in
    :data:`RESERVED_METADATA`.
    """

    encoding: str = "utf-8"
    metadata: dict[str, Any] = {}

    @field_validator("encoding")
    @classmethod
    def _known_encoding(cls, value: str) -> str:
        try:
            codecs.lookup(value)
        except LookupError:
            raise ValueError(
                f"unknown encoding {value!r}; use a Python codec name such as "
                "'utf-8', 'latin-1' or 'cp1252'"
            ) from None
        return value

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


class FileLoader(Loader):
    """Loads one text file (``.txt``, ``.md`` or any other text) as one document.

    The document id (also ``metadata["source"]``) is the path relative to
    ``context.base_dir`` with forward slashes, or the absolute path when the
    file lies outside it. See :func:`read_text_document` for the metadata and
    for which files are reported and skipped instead of loaded; a missing path
    or a directory is reported too. ``load()`` never raises for a bad file.
    """

    class Config(TextFileOptions):
        path: str

    config: Config

    def load(self) -> Iterator[Document]:
        path = absolute(self.context.resolve(self.config.path))
        source = source_id(path, self.context)
        if path.is_dir():
            self.context.report(
                source, "is a directory, not a file; use `type: directory` to load a folder"
            )
            return
        document = read_text_document(
            path,
            context=self.context,
            encoding=self.config.encoding,
            metadata=self.config.metadata,
        )
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


def read_text_document(
    path: Path,
    *,
    context: Context,
    encoding: str = "utf-8",
    metadata: Mapping[str, Any] | None = None,
    max_size: int | None = None,
) -> Document | None:
    """Read one text file into a :class:`Document`, or report why not and return None.

    :param path: the file; made absolute against the working directory if relative
        (callers pass ``context.resolve(...)``).
    :param context: gives ``base_dir`` for the id and ``report`` for problems.
    :param encoding: the codec the bytes are decoded with (strictly).
    :param metadata: extra fields merged over the computed ones.
    :param max_size: files bigger than this many bytes are reported and skipped.
    :returns: the document, or None when the file was reported and skipped.

    The id and ``source`` are the path relative to ``context.base_dir`` (forward
    slashes), or the absolute path outside it. Metadata: ``source``, ``path``
    (absolute), ``mtime`` (float seconds), ``size`` (bytes), ``content_hash``
    (of the text), ``extension`` (lowercase suffix with its dot, ``".md"``; ``""``
    for none) and ``title`` (the first ``# `` heading of a Markdown file outside
    front matter and code fences, else the file stem).

    The text is decoded strictly, a leading byte-order mark is dropped and line
    endings become ``\\n`` (so a checkout with CRLF endings hashes the same).

    Reported and skipped, never raised: a missing path, something that is not a
    regular file, a file that cannot be read, one over ``max_size``, a binary
    file (a NUL byte in the first 8 KB), bytes that do not decode with
    ``encoding``, and an empty file (nothing but whitespace): an empty document
    has nothing to chunk or cite, so it is skipped with the report "empty file".
    """
    path = absolute(path)
    source = source_id(path, context)
    try:
        info = path.stat()
    except FileNotFoundError:
        context.report(source, "file not found; check the path (it may have been moved or deleted)")
        return None
    except OSError as exc:
        context.report(source, f"cannot read file: {exc.strerror or exc}; check its permissions")
        return None
    if not stat.S_ISREG(info.st_mode):
        context.report(source, "not a regular file (a device, socket or pipe); skipped")
        return None
    if max_size is not None and info.st_size > max_size:
        context.report(
            source,
            f"file is {info.st_size} bytes, over max_file_size ({max_size}); "
            "raise max_file_size or exclude it",
        )
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        context.report(source, f"cannot read file: {exc.strerror or exc}; check its permissions")
        return None

    codec = codecs.lookup(encoding).name
    wide = codec.startswith(("utf-16", "utf-32"))
    if not wide and b"\x00" in data[:BINARY_SNIFF_BYTES]:
        context.report(source, "binary file (NUL byte in the first 8 KB), not text; skipped")
        return None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        context.report(
            source,
            f"not valid {encoding} text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            f"re-save the file as {encoding} or set `encoding:` on the loader",
        )
        return None
    if wide and "\x00" in text[:BINARY_SNIFF_BYTES]:
        context.report(source, "binary file (NUL character near the start), not text; skipped")
        return None
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        context.report(source, "empty file (no text to index); skipped")
        return None

    extension = path.suffix.lower()
    title = _markdown_title(text) if extension in MARKDOWN_EXTENSIONS else None
    fields: dict[str, Any] = {
        "source": source,
        "path": str(path),
        "mtime": float(info.st_mtime),
        "size": int(info.st_size),
        "content_hash": content_hash(text),
        "extension": extension,
        "title": title or path.stem,
    }
    fields.update(metadata or {})
    return Document(id=source, text=text, metadata=fields)


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


def _markdown_title(text: str) -> str | None:
    """The first level-one ATX heading (``# Title``), skipping front matter and fences."""
    lines = text.split("\n")
    start = 0
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                start = i + 1
                break
    fence: str | None = None
    for line in lines[start:]:
        stripped = line.lstrip(" ")
        if len(line) - len(stripped) > 3:
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            continue
        if stripped.startswith(("# ", "#\t")):
            title = _CLOSING_HASHES.sub("", stripped[2:].strip()).strip()
            if title:
                return title
    return None
