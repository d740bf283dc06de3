"""Excel (``.xlsx``, ``.xlsm``): every visible sheet, as Markdown.

Needs openpyxl: ``pip install 'ragloom[xlsx]'``. The workbook is streamed
(openpyxl's read-only mode), so a large sheet is never held as cell
objects. Rendered so that the Markdown-aware chunkers cut it by sheet and
cite it by sheet name (``prices.xlsx#2026``), and the ``extractive``
answerer quotes one row with its header:

- each sheet a ``#`` heading with its name, in the workbook's order;
  hidden sheets left out, as the ``html`` loader leaves out hidden
  elements (no reader sees them);
- a sheet's rows split at empty rows into blocks; in a block, rows with
  one cell above a wider table (a title, a note) are paragraphs, the
  rest a Markdown table, its first row the header; empty columns are left
  out; a block one column wide is paragraphs;
- each cell as Excel shows it, as far as its number format says how:
  ``12.5`` formatted ``"£"#,##0.00`` is ``£12.50``, ``0.125`` formatted
  ``0.0%`` is ``12.5%``, dates and times ISO 8601 (``2026-03-01``,
  ``2026-03-01 14:30``), ``TRUE``/``FALSE``; a formula is its value as last
  calculated (a workbook saved by a program that does not calculate, not
  Excel, has none: the cell is empty).

Metadata: ``title`` (the workbook's title property; else the loader uses
the file name) and ``sheets`` (the names of the sheets read). Not read:
charts, pictures, comments. Hidden rows and columns are read as the others
(a filter hides rows that are data all the same). A file that is not a
workbook, a damaged or encrypted one, one with no visible text, or one
whose XML parts would unpack to more than :data:`MAX_UNPACKED` bytes (a
zip bomb) is reported and skipped.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ....errors import LoaderError
from .._files import Parsed
from ._office import MAX_UNPACKED, first_line, markdown_table, refused

__all__ = ["MAX_UNPACKED", "MISSING_OPENPYXL", "cell_text", "parse_xlsx"]

MISSING_OPENPYXL = (
    "reading Excel workbooks needs openpyxl, which is not installed: pip install 'ragloom[xlsx]'"
)

Row = dict[int, str]
"""One row's cells with text, by column number."""


def parse_xlsx(data: bytes, *, report: Callable[[str], None], **_: Any) -> Parsed | None:
    """The text of a workbook with its ``title`` and ``sheets``; None after
    reporting one that cannot be read. Raises :class:`LoaderError` when
    openpyxl is missing."""
    try:
        import openpyxl
    except ImportError:
        raise LoaderError(MISSING_OPENPYXL) from None
    if refused(
        data,
        what="Excel workbook",
        extension=".xlsx",
        old=".xls",
        report=report,
        limit=MAX_UNPACKED,
    ):
        return None
    blocks: list[str] = []
    sheets: list[str] = []
    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        try:
            for sheet in workbook.worksheets:
                if sheet.sheet_state != "visible":
                    continue
                sheet.reset_dimensions()  # a sheet's stated size is not trusted: its cells are
                rendered = [render(block) for block in _blocks(_rows(sheet.iter_rows()))]
                if rendered:
                    sheets.append(str(sheet.title))
                    blocks.append(f"# {' '.join(str(sheet.title).split())}")
                    blocks.extend(rendered)
            title = (workbook.properties.title or "").strip()
        finally:
            workbook.close()
    except Exception as exc:  # openpyxl and zipfile raise many kinds on malformed files
        report(f"not a readable Excel workbook ({first_line(exc)}); skipped")
        return None
    if not sheets:
        report("Excel workbook with no text in a visible sheet; skipped")
        return None
    fields: dict[str, Any] = {"sheets": sheets}
    if title:
        fields["title"] = " ".join(title.split())
    return "\n\n".join(blocks) + "\n", fields


def _rows(rows: Iterable[tuple[Any, ...]]) -> Iterator[Row]:
    """Each row's cells that have text, by column (an empty row is ``{}``)."""
    for row in rows:
        cells: Row = {}
        for column, item in enumerate(row, 1):
            value = getattr(item, "value", None)
            if value is None:
                continue
            text = " ".join(cell_text(value, getattr(item, "number_format", "General")).split())
            if text:
                cells[column] = text
        yield cells


def _blocks(rows: Iterable[Row]) -> Iterator[list[Row]]:
    """The runs of rows between empty rows."""
    block: list[Row] = []
    for row in rows:
        if row:
            block.append(row)
        elif block:
            yield block
            block = []
    if block:
        yield block


def render(block: list[Row]) -> str:
    """A block of rows as text: leading one-cell rows above a wider table as
    paragraphs, then the table (its empty columns left out); a block one
    column wide as paragraphs."""
    columns = sorted({column for row in block for column in row})
    if len(columns) == 1:
        return "\n\n".join(text for row in block for text in row.values())
    lead = 0
    while lead < len(block) - 1 and len(block[lead]) == 1:
        lead += 1
    paragraphs = [text for row in block[:lead] for text in row.values()]
    table = markdown_table([[row.get(column, "") for column in columns] for row in block[lead:]])
    return "\n\n".join([*paragraphs, table])


# --- a cell as Excel shows it --------------------------------------------------

_SECTION_SPLIT = re.compile(r'("(?:[^"]|"")*"|\\.|\[[^\]]*\])|;')
_FORMAT_TOKEN = re.compile(r'"((?:[^"]|"")*)"|\\(.)|\[([^\]]*)\]|_.|\*.|([0#?.,])|([eE][+-])|(.)')
_CURRENCY = re.compile(r"^\$([^-]*)(?:-[0-9A-Fa-f]+)?$")  # [$€-407], [$USD]


def cell_text(value: Any, number_format: str | None = "General") -> str:
    """A cell's value as Excel shows it, as far as its number format says
    (see the module docs): currency and other text around the number,
    decimals, thousands separators, percentages, scientific notation; dates
    and times in ISO 8601."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime):
        if (value.hour, value.minute, value.second) == (0, 0, 0):
            return value.date().isoformat()
        if value.date() in (dt.date(1899, 12, 30), dt.date(1899, 12, 31)):  # a time of day
            return _clock(value.time())
        return f"{value.date().isoformat()} {_clock(value.time())}"
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.time):
        return _clock(value)
    if isinstance(value, (int, float)):
        return _number(value, number_format or "General")
    return str(value)


def _clock(time: dt.time) -> str:
    return time.strftime("%H:%M:%S" if time.second else "%H:%M")


def _general(value: float) -> str:
    if isinstance(value, int) or (value.is_integer() and abs(value) < 1e15):
        return str(int(value))
    return format(value, ".15g")


def _number(value: float, number_format: str) -> str:
    sections = _sections(number_format)
    section, sign = sections[0], "-" if value < 0 else ""
    if value < 0 and len(sections) > 1 and sections[1].strip():
        section, sign = sections[1], ""  # the negative section writes its own sign: (1,234)
    value = abs(value)
    if section.strip().lower() in ("", "general", "@"):
        return sign + _general(value)
    prefix: list[str] = []
    suffix: list[str] = []
    pattern: list[str] = []
    percent = False
    for quoted, escaped, bracket, digit, exponent, other in (
        match.groups() for match in _FORMAT_TOKEN.finditer(section)
    ):
        literal = ""
        if quoted is not None:
            literal = quoted.replace('""', '"')
        elif escaped is not None:
            literal = escaped
        elif bracket is not None:
            currency = _CURRENCY.match(bracket)
            literal = currency.group(1) if currency else ""  # [Red], [>=100], [$-409]
        elif digit is not None or exponent is not None:
            if suffix:  # text between placeholders (1 234,5): the pattern goes on
                pattern.extend(suffix)
                suffix = []
            pattern.append(digit or exponent)
            continue
        elif other is not None:
            literal = other
            percent = percent or other == "%"
        (suffix if pattern else prefix).append(literal)
    if not any(token in "0#?" for token in pattern):
        return sign + _general(value) if not pattern else sign + "".join(prefix) + _general(value)
    if percent:
        value *= 100
    body = "".join(pattern)
    mantissa = body.split("E")[0].split("e")[0]
    decimals = sum(1 for c in mantissa.partition(".")[2] if c in "0#?")
    whole = mantissa.partition(".")[0]
    if any(token in ("E+", "E-", "e+", "e-") for token in pattern):
        number = f"{value:.{decimals}E}"
    else:
        grouping = "," if "," in whole.strip(",") else ""
        number = f"{value:{grouping}.{decimals}f}"
        digits = whole.count("0")  # 00000: a ZIP code keeps its leading zeros
        if len(number.partition(".")[0]) < digits:
            number = number.zfill(digits + len(number) - len(number.partition(".")[0]))
    return f"{sign}{''.join(prefix)}{number}{''.join(suffix)}"


def _sections(number_format: str) -> list[str]:
    """A number format's ``;``-separated sections (positive; negative; zero; text)."""
    sections: list[str] = []
    start = 0
    for match in _SECTION_SPLIT.finditer(number_format):
        if match.group(1) is None:
            sections.append(number_format[start : match.start()])
            start = match.end()
    sections.append(number_format[start:])
    return sections
