"""What the Office readers (Word, PowerPoint, Excel) share: the checks made
before a package is handed to its library, and Markdown tables.

An Office file is a zip of XML parts that its library parses whole (or,
for a workbook, streams). A file is refused before that when it is
encrypted (Office then saves an OLE file, as the old binary formats are)
or when its XML parts claim to unpack to more than :data:`MAX_UNPACKED`
bytes (a zip bomb); the media it holds (pictures, video) do not count.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable, Sequence

__all__ = [
    "MAX_PARTS",
    "MAX_UNPACKED",
    "OLE",
    "first_line",
    "markdown_table",
    "misnamed",
    "plain",
    "refused",
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


def refused(
    data: bytes, *, what: str, extension: str, old: str, report: Callable[[str], None], limit: int
) -> bool:
    """Whether ``data`` is reported and skipped before its library reads it:
    encrypted or old-format (``old`` names the old extension, ``extension``
    the current one), or a zip whose parts but pictures, video and fonts
    (whatever they are named) unpack to more than ``limit`` bytes, or whose
    parts together unpack to more than :data:`MAX_PARTS` (the libraries hold
    them all in memory). A file that is not a zip at all is left to the
    library, which says why it cannot read it."""
    if data.startswith(OLE):
        report(
            f"an encrypted or old-format {what} ({old}, or a {extension} with a password); "
            f"save it as {extension} without a password; skipped"
        )
        return True
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            parts = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        return False  # the library's own message is the better one
    unpacked = sum(p.file_size for p in parts if not p.filename.lower().endswith(MEDIA))
    everything = sum(p.file_size for p in parts)
    if everything > MAX_PARTS:
        report(
            f"{what} whose parts unpack to {everything:,} bytes, over {MAX_PARTS:,} "
            "(a zip bomb?); skipped"
        )
        return True
    if unpacked > limit:
        report(
            f"{what} whose parts unpack to {unpacked:,} bytes, over {limit:,} "
            "(a zip bomb?); skipped"
        )
        return True
    return False


_KINDS = {
    "docx": ("Word document", ".docx", ".doc"),
    "pptx": ("PowerPoint deck", ".pptx", ".ppt"),
    "xlsx": ("Excel workbook", ".xlsx", ".xls"),
}
"""Each Office format: what it is, its extension, its old binary one."""


def screened(data: bytes, kind: str, report: Callable[[str], None], *, limit: int) -> bool:
    """Whether an Office file (``kind``: ``docx``, ``pptx``, ``xlsx``) is
    reported and skipped before its library opens it: :func:`refused`
    (encrypted, old, a zip bomb over ``limit``) or :func:`misnamed`."""
    what, extension, old = _KINDS[kind]
    return refused(
        data, what=what, extension=extension, old=old, report=report, limit=limit
    ) or misnamed(data, kind, report)


def misnamed(data: bytes, kind: str, report: Callable[[str], None]) -> bool:
    """Whether ``data`` is another zip format than ``kind`` (a deck named
    ``.xlsx``), reported with the name it should have."""
    from .._files import ZIP_FORMATS, zip_format

    found = zip_format(data[:8192])
    if found is None or found == kind:
        return False
    what, extension = next((w, e) for _p, k, w, e in ZIP_FORMATS if k == found)
    report(f"{what} under another format's name: name it {extension}; skipped")
    return True


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
