"""What every file loader shares: options, the parsed-file shape, decoding,
and the stable id of a file.

The format parsers (``parsers/``) and the loaders both import from here;
nothing here imports a parser or a loader class.
"""

from __future__ import annotations

import codecs
import functools
import logging
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path, PurePath
from typing import Any

from pydantic import field_validator

from ...components import ComponentConfig, Context

__all__ = [
    "BINARY_SNIFF_BYTES",
    "HTML_EXTENSIONS",
    "MARKDOWN_EXTENSIONS",
    "PPTX_EXTENSIONS",
    "RESERVED_METADATA",
    "RST_EXTENSIONS",
    "SHORT_TEXT",
    "TABLE_EXTENSIONS",
    "TEXT_EXTENSIONS",
    "WORD_PART",
    "XLSX_EXTENSIONS",
    "ZIP_FORMATS",
    "FileOptions",
    "Parsed",
    "TextFileOptions",
    "absolute",
    "covered",
    "decode_text",
    "is_within",
    "source_id",
    "zip_format",
]

log = logging.getLogger(__name__)

RESERVED_METADATA = frozenset({"source", "path", "mtime", "size", "content_hash", "relative_path"})
"""Metadata keys the loaders set themselves; a config's ``metadata:`` may not set them."""

BINARY_SNIFF_BYTES = 8192
"""A NUL byte among this many leading bytes marks a file as binary."""

SHORT_TEXT = 256
"""Texts shorter than this many bytes that are not UTF-8 are decoded as cp1252
when they read as a Latin-script language, before charset-normalizer is asked."""

_MIN_GUESS = 16  # fewer bytes than this are too few to guess an encoding from

MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown", ".mdx"})
HTML_EXTENSIONS = frozenset({".html", ".htm", ".xhtml"})
TEXT_EXTENSIONS = frozenset({".txt", ".text"})
RST_EXTENSIONS = frozenset({".rst", ".rest"})
TABLE_EXTENSIONS = frozenset({".csv", ".tsv"})
"""Read as a table when an ``include`` selects them (not in the default one)."""

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


PPTX_EXTENSIONS = frozenset({".pptx", ".pptm"})
XLSX_EXTENSIONS = frozenset({".xlsx", ".xlsm"})

WORD_PART = re.compile(rb"(?<![A-Za-z0-9_])word/")
"""A zip entry of a Word document's (``word/document.xml``), not ``password/``."""

ZIP_FORMATS = (
    (re.compile(rb"mimetypeapplication/epub\+zip"), "epub", "an EPUB book", ".epub"),
    (WORD_PART, "docx", "a Word document", ".docx"),
    (re.compile(rb"(?<![A-Za-z0-9_])ppt/"), "pptx", "a PowerPoint deck", ".pptx"),
    (re.compile(rb"(?<![A-Za-z0-9_])xl/"), "xlsx", "an Excel workbook", ".xlsx"),
)
"""Formats that are zips, by a first entry (an EPUB's ``mimetype``, an Office
file's folder): format, what it is, its extension."""


def zip_format(head: bytes) -> str | None:
    """``epub``, ``docx``, ``pptx`` or ``xlsx`` when ``head`` (a file's first
    bytes) starts a zip whose first entries are that format's, else None."""
    if head.startswith(b"PK\x03\x04"):
        for part, kind, _what, _extension in ZIP_FORMATS:
            if part.search(head):
                return kind
    return None


def _binary(data: bytes) -> str:
    """Why a file with a NUL byte near its start is skipped: a known office
    format by its signature (what to name it, or save it as, instead), else
    binary."""
    head = data[:BINARY_SNIFF_BYTES]
    if (kind := zip_format(head)) is not None:
        what, extension = next((w, e) for _p, k, w, e in ZIP_FORMATS if k == kind)
        return f"{what} under a text format's name: name it {extension}; skipped"
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return (
            "a Microsoft Office file (.doc, .xls or .ppt, or one with a password), which "
            "ragloom cannot read: save it as .docx, .xlsx, .pptx or PDF without a password; "
            "skipped"
        )
    return "binary file (NUL byte in the first 8 KB), not text; skipped"


_FEW_BYTES = 16
"""Fewer bytes outside ASCII than this make a guessed code page a guess
that is reported."""


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
    charset its ``<meta>`` or XML declaration names; else a guess. For a
    short text (under :data:`SHORT_TEXT` bytes, where charset-normalizer
    picks among look-alike code pages by chance: ``Café crème`` came out as
    cp775 or cp1250, ``è`` as ``č``) and wherever charset-normalizer is not
    confident, the guess is ``cp1252`` (windows-1252, a superset of
    latin-1's printable range; latin-1 for the five bytes it leaves
    undefined) when the text reads as a Latin-script language, and this
    guess is reported (``decoded as cp1252 (guessed ...)``) so that the
    index summary shows it. Otherwise the guess is charset-normalizer's when
    it is confident (the bytes decode with little noise into a recognisable
    language; among equally good guesses ``cp1252`` wins, as in browsers),
    as for a Cyrillic cp1251 text. Fewer than 16 bytes are too few to guess
    from. Bytes that are nearly UTF-8 but for a few broken sequences are
    reported, not guessed. A NUL byte in the first 8 KB (outside UTF-16/32)
    marks a binary file, which is reported.
    """
    if encoding == "auto":
        for bom, codec in _BOMS:
            if data.startswith(bom):
                return _decode_strict(data, codec, report)
        if b"\x00" in data[:BINARY_SNIFF_BYTES]:
            report(_binary(data))
            return None
        if data.lstrip()[:5] == b"{\\rtf":
            report(
                "an RTF document, which ragloom has no reader for (its text would be read "
                "with the RTF control words): save it as .txt, .md, .html or .pdf; skipped"
            )
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
        short = len(data) < SHORT_TEXT
        guessed = None if short or len(data) < _MIN_GUESS else _guess(data)
        if guessed is None and len(data) >= _MIN_GUESS:
            latin = _latin_text(data)
            if latin is not None:
                report(
                    "decoded as cp1252 (guessed: not UTF-8, and "
                    f"{'too short for a reliable guess' if short else 'no confident guess'}); "
                    "set `encoding:` on the loader if its accented letters look wrong"
                )
                return latin
            if short:
                guessed = _guess(data)  # a short text in another script, such as cp1251
        if guessed is None:
            report(
                f"could not decode: not UTF-8 ({where}) and no confident guess of its "
                "encoding; set `encoding:` on the loader (e.g. `encoding: latin-1`)"
            )
            return None
        high = sum(byte > 127 for byte in data)
        if high < _FEW_BYTES:
            # a few bytes out of ASCII are too few to tell a code page by (nor
            # from stray bytes in a damaged UTF-8 file): the guess is said
            report(
                f"decoded as {guessed[0]} (guessed from {high} byte(s) outside ASCII, the "
                f"first {where}: not UTF-8); set `encoding:` on the loader if they look wrong"
            )
        else:
            log.debug("decoded as %s (guessed)", guessed[0])
        return guessed[1]

    codec = codecs.lookup(encoding).name
    wide = codec.startswith(("utf-16", "utf-32"))
    if not wide and b"\x00" in data[:BINARY_SNIFF_BYTES]:
        report(_binary(data))
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


def _latin_text(data: bytes) -> str | None:
    """``data`` decoded as windows-1252 (cp1252, with latin-1's code points for
    the five bytes cp1252 leaves undefined, as browsers do), or None when that
    does not read as a Latin-script text. Bytes of other scripts read as
    cp1252 give what Latin-script text never has: a control character (other
    than whitespace and ESC), a word of three or more letters none of which
    is ASCII (Cyrillic, Greek: ``Ïðèâåò``), or a symbol squeezed between two
    letters (Shift-JIS, Big5: ``ƒeƒLƒXƒg‚Ì``, ``³o¬O``; an apostrophe, a
    dash or a middle dot may be)."""
    if _CONTROL_BYTES.search(data):
        return None
    text = data.decode("latin-1").translate(_cp1252_table())
    if _IN_WORD_SYMBOL.search(text):
        return None
    for word in _WORD.findall(text):
        if len(word) > 2 and not word.isascii() and not any(c.isascii() for c in word):
            return None
    return text


_CONTROL_BYTES = re.compile(rb"[\x01-\x08\x0e-\x1a\x1c-\x1f\x7f]")
_WORD = re.compile(r"[^\W\d_]+")
_IN_WORD_SYMBOL = re.compile(
    r"(?<=[^\W\d_])[^\x00-\x7f\w\u2018\u2019\u00b7\u00ad\u2013\u2014](?=[^\W\d_])"
)


@functools.cache
def _cp1252_table() -> dict[int, str]:
    """U+0080..U+009F (what latin-1 makes of bytes 0x80..0x9F) -> cp1252's
    characters for those bytes, where cp1252 defines one."""
    defined = [b for b in range(0x80, 0xA0) if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)]
    return {b: bytes([b]).decode("cp1252") for b in defined}


def absolute(path: str | os.PathLike[str]) -> Path:
    """``path`` made absolute and normalised (``..`` folded) without resolving symlinks,
    so a file reached through a link keeps the link's path."""
    return Path(os.path.abspath(path))


def is_within(path: PurePath, directory: PurePath) -> bool:
    """Whether ``path`` is ``directory`` or lies under it (both absolute; compared lexically)."""
    return path == directory or path.is_relative_to(directory)


def covered(path: str, sources: Sequence[str], context: Context) -> bool:
    """Whether the file at ``path`` (as a config gives it) is one of ``sources``
    or lies under one of them (a folder); all resolved against ``context``."""
    target = absolute(context.resolve(path))
    return any(is_within(target, absolute(context.resolve(s))) for s in sources)


def source_id(path: str | os.PathLike[str], context: Context) -> str:
    """The stable id of a file: relative to ``context.base_dir`` with forward
    slashes, or the absolute path (forward slashes) when it lies outside;
    written as ``path_text`` writes it."""
    path = absolute(path)
    base = absolute(context.base_dir)
    if is_within(path, base):
        return path_text(path.relative_to(base).as_posix())
    # base_dir given through a symlink (macOS /tmp -> /private/tmp): compare real paths
    real_base = Path(os.path.realpath(base))
    real_parent = Path(os.path.realpath(path.parent))
    if real_base != base or real_parent != path.parent:
        candidate = real_parent / path.name
        if is_within(candidate, real_base):
            return path_text(candidate.relative_to(real_base).as_posix())
    return path_text(path.as_posix())


_UNSAFE = re.compile(r"[\x00-\x1f\x7f\udc80-\udcff]")
_LOOKS_ESCAPED = re.compile(r"\\(?=x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})")
"""A backslash followed by what ``path_text`` (or Python's ``backslashreplace``)
writes for a character: it is written ``\\x5c`` itself."""


def path_text(path: str | os.PathLike[str]) -> str:
    """A file name as ids and metadata hold it: read as UTF-8 whatever the
    locale, with the bytes of a name that are not UTF-8 and control characters
    (a newline, a tab) written as ``\\xff``, ``\\x0a``. The ledger, the stores
    and JSON take only valid UTF-8 (one such name stopped every index run),
    and a newline in a name printed as it is could fake a line of a report."""
    text = os.fspath(path)
    if text.isascii() and text.isprintable() and "\\" not in text:
        return text
    # the name's bytes read as UTF-8 whatever the locale: under LANG=...ISO-8859-1
    # Python decodes "café.md" as "cafÃ©.md", and every document with such a
    # name would be deleted and added again whenever the locale changes
    text = os.fsencode(text).decode("utf-8", "surrogateescape")
    # a backslash that reads as an escape ("new\x0aline.txt", written so) is one
    # too, or two files (that one and "new<LF>line.txt") would get one id
    text = _LOOKS_ESCAPED.sub(r"\\x5c", text)
    text = _UNSAFE.sub(_escaped, text)
    # any other lone surrogate (not from a file name): escaped as Python writes it
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00 if code >= 0xDC80 else code:02x}"
