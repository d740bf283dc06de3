"""What the Office readers (Word, PowerPoint, Excel) share: the checks made
before a package is handed to its library, Markdown tables, and text that
must not read as Markdown structure.

An Office file is a zip of XML parts that its library parses whole (or,
for a workbook, streams). A file is refused before that (:func:`screened`)
when it is encrypted (Office then saves an OLE file, as the old binary
formats are), when its parts but pictures, video and fonts claim to unpack
to more than :data:`MAX_UNPACKED` bytes or all of them to more than
:data:`MAX_PARTS` (zip bombs), or when it is another Office format.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable, Sequence

from .._files import ZIP_FORMATS, zip_format

__all__ = [
    "MAX_PARTS",
    "MAX_UNPACKED",
    "MEDIA",
    "OLE",
    "first_line",
    "markdown_table",
    "plain",
    "screened",
]

MAX_UNPACKED = 128 * 1024 * 1024
"""The most an Office file's XML parts may unpack to, together, in bytes: a
few megabytes of text unpack to tens; a file that claims more is a zip bomb."""

MAX_PARTS = 256 * 1024 * 1024
"""The most all of an Office file's parts may unpack to, pictures and video
included, in bytes: the libraries hold every part in memory."""

MEDIA = (
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".emf", ".wmf", ".svg",
    ".wdp", ".mp4", ".m4v", ".mov", ".avi", ".wmv", ".mp3", ".m4a", ".wav", ".wma",
    ".ttf", ".otf", ".odttf", ".fntdata",
)  # fmt: skip
"""Parts the readers never parse: only :data:`MAX_PARTS` bounds them."""

OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""The signature of an OLE file: an encrypted Office file, or an old one
(``.doc``, ``.ppt``, ``.xls``)."""


_KINDS = {"docx": ".doc", "pptx": ".ppt", "xlsx": ".xls"}
"""Each Office format's old binary extension."""


def screened(data: bytes, kind: str, report: Callable[[str], None], *, limit: int) -> bool:
    """Whether an Office file (``kind``: ``docx``, ``pptx``, ``xlsx``) is
    reported and skipped before its library opens it: encrypted or
    old-format; a zip whose parts but pictures, video and fonts (whatever
    they are named) unpack to more than ``limit`` bytes, or whose parts
    together unpack to more than :data:`MAX_PARTS` (the libraries hold them
    all in memory); or another Office format under this one's name. Any
    other file that is not a zip is left to the library, which says why it
    cannot read it."""
    _, what, extension = _what(kind)
    if data.startswith(OLE):
        report(
            f"an encrypted or old-format {what} ({_KINDS[kind]}, or a {extension} with a "
            f"password); save it as {extension} without a password; skipped"
        )
        return True
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            parts = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        parts = []  # not a zip: the library's own message says so, unless it is misnamed
    unpacked = sum(p.file_size for p in parts if not p.filename.lower().endswith(MEDIA))
    everything = sum(p.file_size for p in parts)
    for size, most in ((everything, MAX_PARTS), (unpacked, limit)):
        if size > most:
            report(
                f"{what} whose parts unpack to {size:,} bytes, over {most:,} (a zip bomb?); skipped"
            )
            return True
    found = zip_format(data[:8192])
    if found is not None and found != kind:
        article, other, right = _what(found)
        report(f"{article} {other} under another format's name: name it {right}; skipped")
        return True
    return False


def _what(kind: str) -> tuple[str, str, str]:
    """A zip format's article, name and extension (``a``, ``Word document``,
    ``.docx``), as :data:`~.._files.ZIP_FORMATS` says them."""
    named, extension = next((w, e) for _p, k, w, e in ZIP_FORMATS if k == kind)
    article, _, what = named.partition(" ")
    return article, what, extension


_LOOKS_LIKE_MARKUP = re.compile(r"^ {0,3}(?:#{1,6}(?:[ \t]|$)|`{3,}|~{3,})")


def plain(text: str) -> str:
    """A line of a document's text that must not read as Markdown structure:
    a cell or a text box reading ``# Totals`` or a code fence would cut the
    document at a false heading, or swallow the real ones."""
    return "\\" + text.lstrip(" ") if _LOOKS_LIKE_MARKUP.match(text) else text


def first_line(exc: BaseException) -> str:
    """An exception's first line, or its type's name when it says nothing
    (the in-memory file a library was given named as ``the file``)."""
    text = _IN_MEMORY.sub("the file", str(exc))
    return text.splitlines()[0] if text.strip() else type(exc).__name__


_IN_MEMORY = re.compile(r"(?:file )?'?<_io\.BytesIO object at 0x[0-9a-fA-F]+>'?")


def cell(text: str) -> str:
    """A table cell's text on one line, its ``|`` escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def markdown_table(rows: Sequence[Sequence[str]]) -> str:
    """``rows`` (cell texts) as a Markdown table, the first row its header,
    each cell on one line with its ``|`` escaped and short rows padded; one
    row has no rule under it (there is no header to rule off). Rows with no
    text are left out; no row at all gives ``""``."""
    cleaned = [[cell(text) for text in row] for row in rows]
    cleaned = [row for row in cleaned if any(cleaned_cell for cleaned_cell in row)]
    if not cleaned:
        return ""
    width = max(len(row) for row in cleaned)
    lines = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in cleaned]
    if len(lines) > 1:
        lines.insert(1, "|" + " --- |" * width)
    return "\n".join(lines)
