"""PowerPoint (``.pptx``, ``.pptm``): every shown slide's text, in order.

Needs python-pptx: ``pip install 'ragloom[pptx]'``. Each slide is a section
under its title, and a chunk is cited by its slide's number
(``deck.pptx#page=3``, as a PDF's by page):

- the slide's title as a ``#`` heading (``Slide N`` for a slide without
  one), then its shapes top to bottom, left to right (those in a group
  with the group): the body placeholder's paragraphs as a list, indented
  by level; other text as paragraphs (a line break in a paragraph as a
  space; a line reading ``# ...`` or a code fence escaped, so it cannot cut
  the deck at a false heading); tables as Markdown tables (a merged cell's
  text in each cell it spans); a chart as its title and a table of its
  categories and series, or of an XY chart's points, each value in the
  chart's number format;
- the slide's speaker notes last, as ``Notes: ...``;
- hidden slides and hidden shapes (PowerPoint's *Hide slide*, the
  selection pane's eye) left out, as the ``html`` loader leaves out hidden
  elements: they are not shown, and are where text meant for machines
  hides.

Metadata: ``title`` (the deck's title property, else the first slide's
title, else the file name, which the reader fills in), ``slides`` (how
many the deck has) and ``page_starts`` (where each slide starts in the
text: a hidden slide starts where the next does). Not read: pictures,
SmartArt, the masters' and layouts' text (footers, slide numbers). A file
that is not a deck, a damaged or encrypted one, one with no text, a zip
bomb (see :func:`._office.screened`) and a Word document or a workbook
named ``.pptx`` are reported and skipped.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ....errors import LoaderError
from .._files import Parsed
from ._office import MAX_UNPACKED, first_line, markdown_table, plain, screened
from .xlsx import cell_text

__all__ = ["MAX_UNPACKED", "MISSING_PPTX", "parse_pptx"]

MISSING_PPTX = (
    "reading PowerPoint decks needs python-pptx, which is not installed: "
    "pip install 'ragloom[pptx]'"
)

_UNTITLED = "PowerPoint Presentation"
"""The title property of a deck made from python-pptx's default template:
no title of the deck's own."""

_BODY_PLACEHOLDERS = frozenset({"BODY", "OBJECT", "VERTICAL_BODY", "VERTICAL_OBJECT"})
_TITLE_PLACEHOLDERS = frozenset({"TITLE", "CENTER_TITLE", "VERTICAL_TITLE"})


def parse_pptx(data: bytes, *, report: Callable[[str], None], **_: Any) -> Parsed | None:
    """The text of a deck with its ``title``, ``slides`` and
    ``page_starts``; None after reporting one that cannot be read. Raises
    :class:`LoaderError` when python-pptx is missing."""
    try:
        import pptx
    except ImportError:
        raise LoaderError(MISSING_PPTX) from None
    if screened(data, "pptx", report, limit=MAX_UNPACKED):
        return None
    text = ""
    starts: list[int] = []
    first_title = ""
    try:
        deck = pptx.Presentation(io.BytesIO(data))
        slides = list(deck.slides)
        for number, slide in enumerate(slides, 1):
            starts.append(len(text))
            if slide._element.get("show") in ("0", "false"):
                continue
            title, blocks = _slide(slide)
            if not blocks and not title:
                continue
            first_title = first_title or title
            text += "\n\n".join([f"# {title or f'Slide {number}'}", *blocks]) + "\n\n"
        title = (deck.core_properties.title or "").strip()
        if title == _UNTITLED:
            title = ""
        title = title or first_title
    except Exception as exc:  # python-pptx and zipfile raise many kinds on malformed files
        report(f"not a readable PowerPoint deck ({first_line(exc)}); skipped")
        return None
    if not text.strip():
        report("PowerPoint deck with no text (pictures only?); skipped")
        return None
    fields: dict[str, Any] = {"slides": len(slides), "page_starts": starts}
    if title:
        fields["title"] = " ".join(title.split())
    return text.rstrip("\n") + "\n", fields


def _slide(slide: Any) -> tuple[str, list[str]]:
    """A slide's title and its blocks of text (the notes last)."""
    title = ""
    blocks: list[str] = []
    for shape in _in_order(slide.shapes):
        kind = _placeholder(shape)
        if kind in _TITLE_PLACEHOLDERS and not title:
            title = _one_line(shape.text_frame.text) if shape.has_text_frame else ""
            continue
        blocks.extend(_shape(shape, bulleted=kind in _BODY_PLACEHOLDERS))
    if slide.has_notes_slide:
        frame = slide.notes_slide.notes_text_frame
        notes = _one_line(frame.text) if frame is not None else ""
        if notes:
            blocks.append(f"Notes: {notes}")
    return title, blocks


def _in_order(shapes: Iterable[Any]) -> list[Any]:
    """The shown shapes, top to bottom, then left to right."""
    shown = [shape for shape in shapes if not _hidden(shape)]
    return sorted(shown, key=lambda shape: (shape.top or 0, shape.left or 0))


def _hidden(shape: Any) -> bool:
    return any(value in ("1", "true") for value in shape._element.xpath("./*[1]/p:cNvPr/@hidden"))


def _placeholder(shape: Any) -> str | None:
    if not shape.is_placeholder:
        return None
    try:
        return str(shape.placeholder_format.type.name)
    except (AttributeError, ValueError):  # a placeholder type python-pptx does not know
        return None


def _shape(shape: Any, *, bulleted: bool) -> Iterator[str]:
    """A shape's blocks of text: a group's shapes in order, a table, a
    chart, or a text frame's paragraphs."""
    if getattr(shape, "shapes", None) is not None and not shape.is_placeholder:  # a group
        for inner in _in_order(shape.shapes):
            yield from _shape(inner, bulleted=False)
    elif getattr(shape, "has_table", False):
        if table := markdown_table(_table_rows(shape.table)):
            yield table
    elif getattr(shape, "has_chart", False):
        yield from _chart(shape.chart)
    elif shape.has_text_frame:
        yield from _paragraphs(shape.text_frame, bulleted=bulleted)


def _paragraphs(frame: Any, *, bulleted: bool) -> Iterator[str]:
    """A text frame's paragraphs: list items indented by level in a body
    placeholder (one block), else one block each."""
    items = []
    for paragraph in frame.paragraphs:
        line = _one_line(paragraph.text)  # a line break (Shift+Enter) as a space
        if not line:
            continue
        if bulleted:
            items.append(f"{'  ' * min(paragraph.level, 8)}- {line}")
        else:
            yield plain(line)
    if items:
        yield "\n".join(items)


def _table_rows(table: Any) -> list[list[str]]:
    """A table's rows of cell texts, a merged cell's text in each cell it spans."""
    rows: list[list[str]] = []
    for r, row in enumerate(table.rows):
        cells: list[str] = []
        for c, cell in enumerate(row.cells):
            if cell.is_spanned:  # covered by a merge: the text of the cell it merges into
                cells.append(_merge_origin_text(table, r, c))
            else:
                cells.append(_one_line(cell.text))
        rows.append(cells)
    return rows


def _merge_origin_text(table: Any, row: int, column: int) -> str:
    for r in range(row, -1, -1):
        for c in range(column, -1, -1):
            cell = table.cell(r, c)
            if cell.is_merge_origin and r + cell.span_height > row and c + cell.span_width > column:
                return _one_line(cell.text)
    return ""


def _chart(chart: Any) -> Iterator[str]:
    """A chart's title, then its data: a row per category and a column per
    series, or, for an XY (scatter) chart, a row per point; each value as
    the chart's number format shows it."""
    if chart.has_title and chart.chart_title.has_text_frame:
        title = _one_line(chart.chart_title.text_frame.text)
        if title:
            yield plain(title)
    try:
        plot = chart.plots[0]
        series = list(plot.series)
    except (IndexError, KeyError, AttributeError, ValueError):  # no plot python-pptx knows
        return
    if not series:
        return
    names = [_one_line(s.name or "") for s in series]
    if any(s._element.find(qn("c:xVal")) is not None for s in series):  # scatter, bubble
        for name, one in zip(names, series, strict=True):
            xs = _cached(one._element, "c:xVal")
            ys = _cached(one._element, "c:yVal")
            rows = [[x, y] for x, y in zip(xs, ys, strict=False)]
            if table := markdown_table([["x", name or "y"], *rows]):
                yield table
        return
    try:
        categories = [str(category) for category in plot.categories]
    except (IndexError, KeyError, AttributeError, ValueError):
        return
    values = [_cached(one._element, "c:val") for one in series]
    rows = [
        [category, *(column[i] if i < len(column) else "" for column in values)]
        for i, category in enumerate(categories)
    ]
    if table := markdown_table([["", *names], *rows]):
        yield table


def _cached(series: Any, tag: str) -> list[str]:
    """The values a chart's series caches for ``tag`` (``c:val``, ``c:xVal``,
    ``c:yVal``), by point index, as its format code shows them."""
    element = series.find(qn(tag))
    if element is None:
        return []
    cache = element.find(".//" + qn("c:numCache"))
    if cache is None:
        cache = element.find(".//" + qn("c:strCache"))
    if cache is None:
        return []
    code = cache.findtext(qn("c:formatCode")) or "General"
    count_element = cache.find(qn("c:ptCount"))
    points: dict[int, str] = {}
    for point in cache.iterfind(qn("c:pt")):
        text = point.findtext(qn("c:v")) or ""
        try:
            shown = cell_text(float(text), code)
        except ValueError:
            shown = _one_line(text)
        points[int(point.get("idx", len(points)))] = shown
    count = int(count_element.get("val", 0)) if count_element is not None else 0
    count = min(max(count, max(points, default=-1) + 1), 100_000)
    return [points.get(i, "") for i in range(count)]


def qn(tag: str) -> str:
    """``c:val`` as lxml names it: python-pptx's namespace map."""
    from pptx.oxml.ns import qn as namespaced

    return str(namespaced(tag))


def _one_line(text: str) -> str:
    return " ".join(text.split())
