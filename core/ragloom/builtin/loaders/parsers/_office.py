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

__all__ = ["MAX_UNPACKED", "OLE", "first_line", "markdown_table", "refused"]

MAX_UNPACKED = 128 * 1024 * 1024
"""The most an Office file's XML parts may unpack to, together, in bytes: a
few megabytes of text unpack to tens; a file that claims more is a zip bomb."""

OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""The signature of an OLE file: an encrypted Office file, or an old one
(``.doc``, ``.ppt``, ``.xls``)."""


def refused(
    data: bytes, *, what: str, extension: str, old: str, report: Callable[[str], None], limit: int
) -> bool:
    """Whether ``data`` is reported and skipped before its library reads it:
    encrypted or old-format (``old`` names the old extension, ``extension``
    the current one), or a zip whose XML parts unpack to more than ``limit``
    bytes. A file that is not a zip at all is left to the library, which
    says why it cannot read it."""
    if data.startswith(OLE):
        report(
            f"an encrypted or old-format {what} ({old}, or a {extension} with a password); "
            f"save it as {extension} without a password; skipped"
        )
        return True
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(
                info.file_size
                for info in archive.infolist()
                if info.filename.endswith((".xml", ".rels"))
            )
    except (zipfile.BadZipFile, ValueError, OSError):
        return False  # the library's own message is the better one
    if unpacked > limit:
        report(
            f"{what} whose parts unpack to {unpacked:,} bytes, over {limit:,} "
            "(a zip bomb?); skipped"
        )
        return True
    return False


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
