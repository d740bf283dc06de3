"""Word (``.docx``): the body's text, in order, as Markdown-like text.

Needs python-docx: ``pip install 'ragloom[docx]'``. Rendered as the ``html``
loader renders a page, so the Markdown-aware chunkers cut it by section
and cite it by heading (``policy.docx#flights``):

- the ``Title`` style and ``Heading 1``–``Heading 9`` as ATX headings
  (``#`` for the title, ``##`` for ``Heading 1`` when there is a title, so a
  document keeps one top heading), other paragraphs separated by blank lines;
- list paragraphs (a ``List`` style, or numbering) as ``- item``, indented by
  their level;
- tables as Markdown tables, the rule under the first row (Word's header
  row), a merged cell in each column it spans (the rows stay as wide as
  the header), a table inside a cell as its text;
- hidden text (Word's *Hidden* font effect, on the run, its character
  style or its paragraph style, or a style either is based on) left out, as
  the ``html`` loader leaves out hidden elements: no reader sees it, and it
  is where instructions meant for machines are hidden;
- what content controls hold (a form's fields, a template's blocks) and
  tracked insertions read as the document shows them; tracked deletions
  do not.

Metadata: ``title`` (the document's own title property, else the text of its
``Title`` paragraph, else the file name, which the reader fills in). Not
read: headers and footers (the same on every page), footnotes, comments
and text boxes. A file that is not a Word document (a renamed file, a
damaged one, an encrypted one, which Word saves as another format) is
reported and skipped, as is a zip bomb (see :func:`._office.screened`: its
parts but pictures over :data:`MAX_UNPACKED` bytes, or all of them over
:data:`._office.MAX_PARTS`), and a deck or a workbook named ``.docx``.
A paragraph's text never reads as a heading or a code fence
(:func:`._office.plain`).
"""

from __future__ import annotations

import io
import re
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ....errors import LoaderError
from .._files import Parsed
from ._office import MAX_UNPACKED, first_line, markdown_table, plain, screened

if TYPE_CHECKING:
    from docx.table import Table
    from docx.text.paragraph import Paragraph

__all__ = ["MAX_UNPACKED", "MISSING_DOCX", "parse_docx"]

MISSING_DOCX = (
    "reading Word documents needs python-docx, which is not installed: pip install 'ragloom[docx]'"
)

_HEADING = re.compile(r"^heading ([1-9])$")


def parse_docx(data: bytes, *, report: Callable[[str], None], **_: Any) -> Parsed | None:
    """The text of a Word document with its ``title``; None after reporting
    one that cannot be read. Raises :class:`LoaderError` when python-docx is
    missing."""
    try:
        import docx
    except ImportError:
        raise LoaderError(MISSING_DOCX) from None
    if screened(data, "docx", report, limit=MAX_UNPACKED):
        return None
    try:
        document = docx.Document(io.BytesIO(data))
        renderer = _Renderer(titled=_has_title(document))
        for block in _blocks(document.element.body, document._body):
            renderer.block(block)
        title = (document.core_properties.title or "").strip() or renderer.title
    except Exception as exc:  # python-docx and zipfile raise many kinds on malformed files
        report(f"not a readable Word document ({first_line(exc)}); skipped")
        return None
    text = renderer.text()
    if not text.strip():
        report("Word document with no text (images only?); skipped")
        return None
    fields: dict[str, Any] = {}
    if title:
        fields["title"] = " ".join(title.split())
    return text, fields


def _has_title(document: Any) -> bool:
    return any(_style(p) == "title" for p in document.paragraphs[:20])


_STYLES: weakref.WeakKeyDictionary[Any, dict[Any, Any]] = weakref.WeakKeyDictionary()
"""What a document's styles say, by style id, per document: python-docx looks
a style up by scanning every style (the default one too) on each access,
which was 90% of reading a document run by run."""


def _of_styles(paragraph: Paragraph, key: Any, read: Callable[[], Any]) -> Any:
    cache = _STYLES.setdefault(paragraph.part, {})
    if key not in cache:
        cache[key] = read()
    return cache[key]


def _style(paragraph: Paragraph) -> str:
    def read() -> str:
        try:
            return (paragraph.style.name or "").lower() if paragraph.style is not None else ""
        except (KeyError, AttributeError):  # a style id the styles part does not define
            return ""

    return str(_of_styles(paragraph, ("name", paragraph._p.style), read))


def _blocks(element: Any, parent: Any) -> Iterator[Paragraph | Table]:
    """The paragraphs and tables of a body or a cell, in order, those inside
    content controls (``w:sdt``) too."""
    from docx.oxml.ns import qn
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    for child in element.iterchildren():
        if child.tag == qn("w:p"):
            yield Paragraph(child, parent)
        elif child.tag == qn("w:tbl"):
            yield Table(child, parent)
        elif child.tag == qn("w:sdt"):
            content = child.find(qn("w:sdtContent"))
            if content is not None:
                yield from _blocks(content, parent)


def _style_hidden(style: Any) -> bool | None:
    """Whether a style, or the style it is based on (and so on), hides text."""
    seen = 0
    while style is not None and seen < 20:
        hidden = getattr(getattr(style, "font", None), "hidden", None)
        if hidden is not None:
            return bool(hidden)
        style, seen = getattr(style, "base_style", None), seen + 1
    return None


def _hidden(run: Any, paragraph: Paragraph) -> bool:
    """Whether Word hides ``run``: its own font, its character style's or
    its paragraph style's (each with the styles it is based on; the first
    that says)."""
    if run.font.hidden is not None:
        return bool(run.font.hidden)

    def read() -> bool:
        for style in (run.style, paragraph.style):
            hidden = _style_hidden(style)
            if hidden is not None:
                return hidden
        return False

    return bool(_of_styles(paragraph, ("hidden", run._r.style, paragraph._p.style), read))


def _visible_text(paragraph: Paragraph) -> str:
    """A paragraph's text without its hidden runs, with the runs inside
    hyperlinks, content controls and tracked insertions (not deletions);
    line breaks and tabs as spaces (the chunkers treat a paragraph as one
    block)."""
    from docx.oxml.ns import qn
    from docx.text.run import Run

    deleted = {qn("w:del"), qn("w:moveFrom")}
    parts: list[str] = []
    for element in paragraph._p.iter(qn("w:r")):
        if any(ancestor.tag in deleted for ancestor in element.iterancestors()):
            continue
        run = Run(element, paragraph)
        if not _hidden(run, paragraph):
            parts.append(run.text)
    return " ".join("".join(parts).split())


def _list_level(paragraph: Paragraph) -> int | None:
    """The list level of a list paragraph (0 for the top), or None."""
    properties = paragraph._p.pPr
    numbered = properties is not None and properties.numPr is not None
    if not numbered and not _style(paragraph).startswith("list"):
        return None
    if numbered and properties.numPr.ilvl is not None:
        return int(properties.numPr.ilvl.val or 0)
    digits = re.search(r"(\d)$", _style(paragraph))
    return int(digits.group(1)) - 1 if digits else 0


class _Renderer:
    def __init__(self, *, titled: bool) -> None:
        self.blocks: list[str] = []
        self.titled = titled  # a Title paragraph is `#`: headings go a level down
        self.title = ""

    def text(self) -> str:
        return "\n\n".join(self.blocks) + "\n" if self.blocks else ""

    def block(self, block: Paragraph | Table) -> None:
        if hasattr(block, "rows"):
            self.table(block)  # type: ignore[arg-type]
        else:
            self.paragraph(block)  # type: ignore[arg-type]

    def paragraph(self, paragraph: Paragraph) -> None:
        text = _visible_text(paragraph)
        if not text:
            return
        style = _style(paragraph)
        heading = _HEADING.match(style)
        if style == "title":
            self.title = self.title or text
            self.blocks.append(f"# {text}")
        elif heading:
            level = min(int(heading.group(1)) + (1 if self.titled else 0), 6)
            self.blocks.append(f"{'#' * level} {text}")
        elif (level := _list_level(paragraph)) is not None:
            item = f"{'  ' * min(level, 8)}- {text}"
            if self.blocks and self.blocks[-1].lstrip().startswith("- "):
                self.blocks[-1] += "\n" + item  # one list, one block
            else:
                self.blocks.append(item)
        else:
            self.blocks.append(plain(text))

    def table(self, table: Table) -> None:
        # a merged cell in each column it spans, as python-docx gives it:
        # every row as wide as the header, its cells under their names
        rows = [[" ".join(_cell_text(cell)) for cell in row.cells] for row in table.rows]
        if text := markdown_table(rows):
            self.blocks.append(text)


def _cell_text(cell: Any) -> Iterator[str]:
    """The visible text of a table cell, tables inside it included."""
    for block in _blocks(cell._tc, cell):
        if hasattr(block, "rows"):
            for row in block.rows:
                for inner in row.cells:
                    yield from _cell_text(inner)
        else:
            text = _visible_text(block)
            if text:
                yield text
