"""Excel (``.xlsx``, ``.xlsm``): every visible sheet, as Markdown.

Needs openpyxl: ``pip install 'ragloom[xlsx]'``. Each sheet is streamed
through openpyxl's own sheet parser, cell by cell as the file holds them,
so a large sheet is never held as cell objects, and a stray cell far off
(``XFD1``, row 1,000,000,000) costs nothing for the rows and columns in
between. Rendered so that the Markdown-aware chunkers cut it by sheet and
cite it by sheet name (``prices.xlsx#2026``), and the ``extractive``
answerer quotes one row with its header:

- each sheet a ``#`` heading with its name, in the workbook's order;
- a sheet's rows split at empty rows into blocks; in a block, rows with
  one cell above a wider table (a title, a note) are paragraphs, the
  rest a Markdown table, its first row the header; empty columns are left
  out; a block one column wide is paragraphs; a merged cell's text is in
  each cell it covers, but for a merged cell alone on its row (a title);
- each cell as Excel shows it, as far as its number format says how:
  ``12.5`` formatted ``"£"#,##0.00`` is ``£12.50``, ``0.125`` formatted
  ``0.0%`` is ``12.5%``, ``1234567`` formatted ``#,##0,"K"`` is ``1,235K``
  (rounded half away from zero, as Excel rounds), a negative number keeps
  its sign even where Excel shows it only in red; dates and times ISO 8601
  (``2026-03-01``, ``2026-03-01 14:30``), durations as hours
  (``36:00``), ``TRUE``/``FALSE``; a formula is its value as last
  calculated (a workbook saved by a program that does not calculate, not
  Excel, has none: the cell is empty);
- what Excel does not show is left out, as the ``html`` loader leaves out
  hidden elements: hidden sheets, hidden rows and columns (a filter's
  hidden rows too; the run says how many), and cells formatted ``;;;``.

Metadata: ``title`` (the workbook's title property; else the loader uses
the file name) and ``sheets`` (the names of the sheets read). Not read:
charts, pictures, comments; rows past Excel's last (1,048,576), which the
run reports. A file that is not a workbook, a damaged or encrypted one,
one with no visible text, or one whose parts would unpack to more than
:data:`~._office.MAX_UNPACKED` bytes (a zip bomb) is reported and skipped.
"""

from __future__ import annotations

import bisect
import datetime as dt
import io
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any

from ....errors import LoaderError
from .._files import Parsed
from ._office import MAX_UNPACKED, first_line, markdown_table, plain, screened

__all__ = ["EXCEL_ROWS", "MAX_UNPACKED", "MISSING_OPENPYXL", "cell_text", "parse_xlsx"]

MISSING_OPENPYXL = (
    "reading Excel workbooks needs openpyxl, which is not installed: pip install 'ragloom[xlsx]'"
)

EXCEL_ROWS = 1_048_576
"""Excel's last row: a row numbered past it is no row Excel shows."""

_LOCALE_DATES = frozenset({*range(27, 37), *range(50, 59)})
"""Built-in number formats that East Asian Excel saves dates and times
with, and that openpyxl does not know as dates."""

_MERGE_SPREAD_LIMIT = 10_000
"""Merged ranges with more cells than this are decoration: not spread."""

_MERGE_SPREAD_BUDGET = 1_000_000
"""The most cells a sheet's merged ranges are spread over, together."""

Row = dict[int, str]
"""One row's cells with text, by column number."""


@dataclass
class _Sheet:
    """What a sheet holds: its rows with text, by row number, what it hides
    and merges."""

    rows: dict[int, Row] = field(default_factory=dict)
    hidden_rows: set[int] = field(default_factory=set)
    hidden_columns: set[int] = field(default_factory=set)
    merges: list[tuple[int, int, int, int]] = field(default_factory=list)  # rows, columns
    past_last_row: bool = False

    def hidden_with_text(self) -> tuple[int, int]:
        """How many hidden rows and hidden columns hold text."""
        columns = {column for row in self.rows.values() for column in row}
        return len(self.hidden_rows & self.rows.keys()), len(self.hidden_columns & columns)


def parse_xlsx(data: bytes, *, report: Callable[[str], None], **_: Any) -> Parsed | None:
    """The text of a workbook with its ``title`` and ``sheets``; None after
    reporting one that cannot be read. Raises :class:`LoaderError` when
    openpyxl is missing."""
    try:
        import openpyxl
    except ImportError:
        raise LoaderError(MISSING_OPENPYXL) from None
    if screened(data, "xlsx", report, limit=MAX_UNPACKED):
        return None
    blocks: list[str] = []
    sheets: list[str] = []
    hidden = [0, 0]
    past_last_row = False
    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        try:
            for worksheet in workbook.worksheets:
                if worksheet.sheet_state != "visible":
                    continue
                sheet = _read_sheet(workbook, worksheet)
                past_last_row = past_last_row or sheet.past_last_row
                rows, columns = sheet.hidden_with_text()
                hidden = [hidden[0] + rows, hidden[1] + columns]
                rendered = [render(block) for block in _blocks(sheet)]
                if rendered:
                    sheets.append(str(worksheet.title))
                    blocks.append(f"# {plain(' '.join(str(worksheet.title).split()))}")
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
    if past_last_row:
        report(f"rows numbered past Excel's last row ({EXCEL_ROWS:,}) are not read")
    if any(hidden):
        report(
            f"{hidden[0]} hidden row(s) and {hidden[1]} hidden column(s) with text left out "
            "(hidden in Excel, or by a filter): show them and save to index them"
        )
    fields: dict[str, Any] = {"sheets": sheets}
    if title:
        fields["title"] = " ".join(title.split())
    return "\n\n".join(blocks) + "\n", fields


def _read_sheet(workbook: Any, worksheet: Any) -> _Sheet:
    """A sheet's cells with text, its hidden rows and columns and its merged
    ranges, streamed by openpyxl's sheet parser: the read-only sheet's own
    rows are padded to the widest row and filled in between row numbers,
    which a cell in ``XFD`` or a row numbered 10**12 turns into hours."""
    from openpyxl.cell.read_only import ReadOnlyCell
    from openpyxl.utils.cell import column_index_from_string, range_boundaries
    from openpyxl.utils.datetime import from_excel
    from openpyxl.worksheet._reader import WorkSheetParser

    sheet = _Sheet()
    formats: dict[int, tuple[str, int]] = {}  # style id: number format, its id

    def number_format(cell: dict[str, Any]) -> tuple[str, int]:
        style = cell.get("style_id") or 0
        if style not in formats:
            probe = ReadOnlyCell(worksheet, cell["row"], cell["column"], None, "n", style)
            formats[style] = (probe.number_format or "General", probe.style_array.numFmtId)
        return formats[style]

    with workbook._archive.open(worksheet._worksheet_path) as source:
        parser = WorkSheetParser(
            source,
            worksheet._shared_strings,
            data_only=True,
            epoch=workbook.epoch,
            date_formats=workbook._date_formats,
            timedelta_formats=workbook._timedelta_formats,
        )
        for number, cells in parser.parse():
            if number > EXCEL_ROWS:
                sheet.past_last_row = True
                break
            row: Row = {}
            for cell in cells:
                value = cell.get("value")
                if value is None:
                    continue
                fmt, fmt_id = number_format(cell)
                # a value its format cannot show (1e30 in #,##0, a date past
                # 9999) reads as General: one cell never loses the workbook
                try:
                    if fmt_id in _LOCALE_DATES and isinstance(value, (int, float)):
                        value = from_excel(value, workbook.epoch)
                    text = " ".join(cell_text(value, fmt).split())
                except (ArithmeticError, ValueError):
                    text = _general(value) if isinstance(value, (int, float)) else str(value)
                if text:
                    row[int(cell["column"])] = text
            if row:
                sheet.rows[number] = row
        for number, attributes in parser.row_dimensions.items():
            if _true(attributes.get("hidden")):
                sheet.hidden_rows.add(int(number))
        for attributes in parser.column_dimensions.values():
            if _true(attributes.get("hidden")):
                low = int(attributes.get("min") or column_index_from_string(attributes["index"]))
                high = int(attributes.get("max") or low)
                sheet.hidden_columns.update(range(low, min(high, 16_384) + 1))
        merged = getattr(parser.merged_cells, "mergeCell", None) or []
        for merge in merged:
            try:
                low_col, low_row, high_col, high_row = range_boundaries(merge.ref)
            except (TypeError, ValueError):
                continue
            sheet.merges.append((low_row, high_row, low_col, high_col))
    _spread_merges(sheet)
    return sheet


def _true(value: Any) -> bool:
    return str(value).lower() in ("1", "true")


def _spread_merges(sheet: _Sheet) -> None:
    """A merged cell's text into each cell it covers, in rows that hold
    text, but along a row only where that row holds other text (a title
    merged across the table stays one paragraph)."""
    numbers = sorted(sheet.rows)
    budget = _MERGE_SPREAD_BUDGET  # overlapping ranges (Excel writes none) must not cost hours
    for low_row, high_row, low_col, high_col in dict.fromkeys(sheet.merges):
        area = (high_row - low_row + 1) * (high_col - low_col + 1)
        if area > _MERGE_SPREAD_LIMIT:
            continue
        budget -= area
        if budget < 0:
            break
        text = sheet.rows.get(low_row, {}).get(low_col)
        if text is None:
            continue
        start = bisect.bisect_left(numbers, low_row)
        for number in numbers[start : bisect.bisect_right(numbers, high_row)]:
            row = sheet.rows[number]
            across = any(not low_col <= column <= high_col for column in row)
            for column in range(low_col, high_col + 1) if across else (low_col,):
                row.setdefault(column, text)


def _blocks(sheet: _Sheet) -> Iterator[list[Row]]:
    """The runs of rows between empty rows (a hidden row does not end a
    run), without hidden rows and columns."""
    block: list[Row] = []
    last = None
    for number in sorted(sheet.rows):
        if last is not None and number != last + 1 and not _all_hidden(sheet, last + 1, number):
            if block:
                yield block
            block = []
        last = number
        if number in sheet.hidden_rows:
            continue
        row = {c: t for c, t in sheet.rows[number].items() if c not in sheet.hidden_columns}
        if row:
            block.append(row)
    if block:
        yield block


def _all_hidden(sheet: _Sheet, low: int, high: int) -> bool:
    """Whether every row from ``low`` up to ``high`` (not included) is hidden."""
    return high - low <= len(sheet.hidden_rows) and all(
        number in sheet.hidden_rows for number in range(low, high)
    )


def render(block: list[Row]) -> str:
    """A block of rows as text: leading one-cell rows above a wider table as
    paragraphs, then the table (its empty columns left out); a block one
    column wide as paragraphs."""
    columns = sorted({column for row in block for column in row})
    if len(columns) == 1:
        return "\n\n".join(plain(text) for row in block for text in row.values())
    lead = 0
    while lead < len(block) - 1 and len(block[lead]) == 1:
        lead += 1
    paragraphs = [plain(text) for row in block[:lead] for text in row.values()]
    table = markdown_table([[row.get(column, "") for column in columns] for row in block[lead:]])
    return "\n\n".join([*paragraphs, table])


# --- a cell as Excel shows it --------------------------------------------------

_SECTION_SPLIT = re.compile(r'("(?:[^"]|"")*"|\\.|\[[^\]]*\])|;')
_FORMAT_TOKEN = re.compile(
    r'"((?:[^"]|"")*)"|\\(.)|\[([^\]]*)\]|_.|\*.|([0#?])|([.,])|([eE][+-])|(/)|(.)'
)
_CURRENCY = re.compile(r"^\$([^-]*)(?:-[0-9A-Fa-f]+)?$")  # [$€-407], [$USD]
_CONDITION = re.compile(r"^(<=|>=|<>|<|>|=)\s*(-?\d+(?:\.\d+)?)$")
_GENERAL = re.compile(r"general", re.IGNORECASE)
_UNQUOTED = re.compile(r'"(?:[^"]|"")*"|\\.|\[[^\]]*\]')
"""What in a number format is text or a bracket, not format codes."""
_ESCAPED = re.compile(r"_x([0-9A-Fa-f]{4})_")


def cell_text(value: Any, number_format: str | None = "General") -> str:
    """A cell's value as Excel shows it, as far as its number format says
    (see the module docs): currency and other text around the number,
    decimals, thousands separators and scaling, percentages, scientific
    notation, conditions and the negative and zero sections; dates and
    times in ISO 8601, durations as hours. A fraction format reads as the
    decimal number: never a rounded whole one."""
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
    if isinstance(value, dt.timedelta):
        return _duration(value)
    if isinstance(value, (int, float)):
        return _number(value, number_format or "General")
    if number_format and ";" in number_format:
        sections = _sections(number_format)
        if len(sections) >= 4 and not sections[3].strip():  # ;;; hides text too
            return ""
    return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), str(value))  # _x000D_: a CR


def _clock(time: dt.time) -> str:
    return time.strftime("%H:%M:%S" if time.second else "%H:%M")


def _duration(value: dt.timedelta) -> str:
    """A duration as ``[h]:mm`` shows it: hours past 24 not made days."""
    seconds = round(value.total_seconds())
    sign, seconds = ("-", -seconds) if seconds < 0 else ("", seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{sign}{hours}:{minutes:02d}" + (f":{seconds:02d}" if seconds else "")


def _general(value: float) -> str:
    if isinstance(value, int) or (value.is_integer() and abs(value) < 1e15):
        return str(int(value))
    return format(value, ".15g")


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


def _condition(section: str) -> tuple[str, float] | None:
    for bracket in re.findall(r"\[([^\]]*)\]", section):
        match = _CONDITION.match(bracket.strip())
        if match:
            return match.group(1), float(match.group(2))
    return None


def _holds(value: float, condition: tuple[str, float]) -> bool:
    operator, bound = condition
    return {
        "<": value < bound,
        "<=": value <= bound,
        ">": value > bound,
        ">=": value >= bound,
        "=": value == bound,
        "<>": value != bound,
    }[operator]


def _number(value: float, number_format: str) -> str:
    if not math.isfinite(value) or abs(value) >= 1e20:  # no format writes 400 digits
        return _general(value)
    sections = _sections(number_format)[:3]  # the fourth is for text
    conditions = [_condition(section) for section in sections]
    if any(conditions):
        # [>=1000]0.0,"K";[<0]...: the first section whose condition holds,
        # else the next section without one; the sign is the number's own
        chosen = next(
            (s for s, c in zip(sections, conditions, strict=True) if c and _holds(value, c)),
            next((s for s, c in zip(sections, conditions, strict=True) if not c), None),
        )
        if chosen is None:
            return _general(value)
        return _section(value, chosen)
    if value < 0 and len(sections) >= 2:
        shown = _section(-value, sections[1])
        # Excel shows a negative section as written: "(1,234)", "CR 1,234";
        # one with no sign of its own ("1,234" in red, which text cannot
        # show) gets its minus sign
        own = _literals(sections[1])
        signed = any(c in "-(−" or c.isalpha() for c in own)
        if not signed and any(c.isdigit() for c in shown):
            shown = f"-{shown}"
        return shown
    if value == 0 and len(sections) >= 3:
        return _section(value, sections[2])
    return _section(value, sections[0])


def _section(value: float, section: str) -> str:
    """``value`` in one section of a number format; ``""`` for an empty one
    (``;;;`` hides a cell)."""
    if not section.strip():
        return ""
    if section.strip() == "@":  # the text format: a number in it reads as General
        return _general(value)
    general = _GENERAL.search(_UNQUOTED.sub(lambda m: " " * len(m.group()), section))
    if general:  # "Qty: "General: the number as General writes it, with its text
        before, after = section[: general.start()], section[general.end() :]
        return f"{_literals(before)}{_general(value)}{_literals(after)}"
    prefix: list[str] = []
    suffix: list[str] = []
    whole: list[str] = []  # the integer part's placeholders and the literals among them
    fraction: list[str] = []  # the placeholders after the decimal point
    exponent = False
    point = grouping = percent = slash = False
    pending_commas = 0
    for match in _FORMAT_TOKEN.finditer(section):
        quoted, escaped, bracket, digit, separator, exp, fraction_bar, other = match.groups()
        literal = None
        if quoted is not None:
            literal = quoted.replace('""', '"')
        elif escaped is not None:
            literal = escaped
        elif bracket is not None:
            currency = _CURRENCY.match(bracket)
            literal = currency.group(1) if currency else ""  # [Red], [>=100], [$-409]
        elif digit is not None:
            if exponent:
                continue
            if pending_commas and not point:
                grouping = True  # 1,234: a comma between digits
            pending_commas = 0
            (fraction if point else whole).append(digit)
            continue
        elif separator == ".":
            point = True
            continue
        elif separator == ",":
            pending_commas += 1
            continue
        elif exp is not None:
            exponent = True
            continue
        elif fraction_bar is not None:
            slash = True
            continue
        elif other is not None:
            literal = other
            percent = percent or other == "%"
        if literal is None:
            continue
        between = whole and not point and not exponent and not suffix and literal != "%"
        if between and _placeholders_follow(section, match.end()):
            whole.append(literal)  # among the digits: 000-00-0000, (000) 000-0000
            continue
        (suffix if (whole or fraction) else prefix).append(literal)
    scale = pending_commas  # commas after the last digit: thousands each
    if slash:  # a fraction (# ?/?, # ?/8): its decimal, never a whole number, no denominator
        return f"{''.join(prefix)}{_general(value)}"
    if not any(t in "0#?" for t in whole + fraction):  # text alone: "zero", "-"
        return "".join(prefix + suffix) or _general(value)
    amount = abs(Decimal(repr(float(value))))
    if percent:
        amount *= 100
    amount /= Decimal(1000) ** scale
    if exponent and amount == 0:
        number = format(0.0, f".{len(fraction)}E")
    elif exponent:
        with localcontext() as context:
            context.rounding = ROUND_HALF_UP
            number = format(amount, f".{len(fraction)}E")
        number = re.sub(r"E([+-])(\d)$", r"E\g<1>0\2", number)  # E-4: E-04, as Excel writes
    else:
        number = _fixed(amount, whole, fraction, grouping)
    mantissa = number.partition("E")[0]
    sign = "-" if value < 0 and any(c in "123456789" for c in mantissa) else ""  # never -0.00
    return f"{sign}{''.join(prefix)}{number}{''.join(suffix)}"


def _literals(fragment: str) -> str:
    """The text a piece of a number format writes as it is."""
    out: list[str] = []
    for match in _FORMAT_TOKEN.finditer(fragment):
        quoted, escaped, bracket, digit, separator, exp, bar, other = match.groups()
        if quoted is not None:
            out.append(quoted.replace('""', '"'))
        elif escaped is not None:
            out.append(escaped)
        elif bracket is not None and (currency := _CURRENCY.match(bracket)):
            out.append(currency.group(1))
        elif other is not None or separator is not None:
            out.append(other or separator or "")
    return "".join(out)


def _placeholders_follow(section: str, start: int) -> bool:
    """Whether a digit placeholder comes later in the section (before a
    decimal point ends the integer part)."""
    rest = _UNQUOTED.sub("", section[start:])
    head = rest.split(".", 1)[0]
    return any(c in "0#?" for c in head)


def _fixed(amount: Decimal, whole: list[str], fraction: list[str], grouping: bool) -> str:
    """``amount`` (not negative) rounded half away from zero to the fraction's places, its
    integer digits put into the integer placeholders (and the literals
    among them), optional decimal places (``#``) dropped when zero."""
    places = len(fraction)
    with localcontext() as context:
        context.prec = 400  # quantize needs every digit: 1.989e30 in #,##0
        rounded = amount.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    digits, _, decimals = f"{rounded:f}".partition(".")
    required = sum(1 for t in fraction if t == "0")
    decimals = decimals.rstrip("0").ljust(required, "0") if places else ""
    placeholders = [t for t in whole if t in "0#?"]
    if len(placeholders) != len(whole):  # literals among the digits: fill from the right
        integer = _fill(whole, digits)
    else:
        minimum = sum(1 for t in placeholders if t == "0")
        integer = digits.lstrip("0")  # "#" shows no 0 of its own, as in Excel
        if grouping and integer:
            integer = f"{int(integer):,}"
        integer = integer.rjust(minimum, "0")
    return f"{integer}.{decimals}" if decimals else integer


def _fill(tokens: list[str], digits: str) -> str:
    """Digits into placeholders among literals, from the right: the first
    placeholder takes every digit left over, as Excel fills (000) 000-0000."""
    out: list[str] = []
    remaining = digits.lstrip("0")
    first = next((i for i, t in enumerate(tokens) if t in "0#?"), -1)
    for index in range(len(tokens) - 1, -1, -1):
        token = tokens[index]
        if token not in "0#?":
            out.append(token)
            continue
        if index == first:
            out.append(remaining or ("0" if token == "0" else ""))
            remaining = ""
        elif remaining:
            out.append(remaining[-1])
            remaining = remaining[:-1]
        else:
            out.append("0" if token == "0" else "")
    return "".join(reversed(out))
