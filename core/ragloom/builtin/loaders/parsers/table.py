"""CSV and TSV files read whole, as one document: a Markdown table.

The first row is the header, under it the rule, then one line per row
(``| Swift | carbon | 22 |``), so the Markdown-aware chunkers keep rows
whole and the ``extractive`` answerer quotes one row with the header as its
context. The delimiter is ``\\t`` for ``.tsv``, else sniffed among ``,``,
``;``, ``\\t`` and ``|``. Cells are put on one line and their ``|`` escaped;
short rows are padded. A file the ``csv`` module cannot read (a field past
its size limit) is reported and read as plain text. For one
document per row, with fields as metadata, use the ``csv`` loader.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import PurePath
from typing import Any

from .._files import Parsed

__all__ = ["parse_table"]

_DELIMITERS = ",;\t|"


def parse_table(
    text: str, *, path: PurePath, report: Callable[[str], None], **_: Any
) -> Parsed | None:
    """``text`` (a CSV or TSV file's) as a Markdown table; see the module docs."""
    delimiter = "\t" if path.suffix.lower() == ".tsv" else _sniff(text)
    try:
        rows = [
            [" ".join(cell.split()).replace("|", "\\|") for cell in row]
            for row in csv.reader(io.StringIO(text), delimiter=delimiter)
        ]
    except csv.Error as exc:
        report(f"not a readable table ({exc}); read as plain text")
        return text, {}
    rows = [row for row in rows if any(row)]
    if not rows:
        report("empty file (no text to index); skipped")
        return None
    width = max(len(row) for row in rows)

    def line(row: list[str]) -> str:
        return "| " + " | ".join(row + [""] * (width - len(row))) + " |"

    lines = [line(rows[0]), "|" + " --- |" * width, *(line(row) for row in rows[1:])]
    return "\n".join(lines) + "\n", {"rows": len(rows) - 1, "columns": width}


def _sniff(text: str) -> str:
    try:
        return csv.Sniffer().sniff(text[:8192], delimiters=_DELIMITERS).delimiter
    except csv.Error:  # one column, or nothing it can tell: commas
        return ","
