"""PDF: the text layer of every page, with page offsets.

A page's running header and footer (a line at the top or bottom of most
pages, such as "Acme Guide - Rev. B" or "Confidential - Page 4") are left
out but where they first appear: see :func:`without_running_lines`.

Needs pypdf: ``pip install 'ragloom[pdf]'``. Pages are joined with
:data:`PAGE_BREAK` (a blank line, then a form feed), so a page boundary is a
paragraph boundary to the chunkers; ``metadata["page_starts"]`` holds the
character offset where each page's text starts, so the page of any offset
is ``bisect.bisect_right(page_starts, offset)`` (1-based).
"""

from __future__ import annotations

import io
import logging
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ....errors import LoaderError
from .._files import Parsed

__all__ = ["MISSING_PYPDF", "PAGE_BREAK", "page_of", "parse_pdf", "without_running_lines"]

log = logging.getLogger(__name__)

PAGE_BREAK = "\n\n\f"
"""Between the text of two pages: a paragraph break, then a form feed."""

MISSING_PYPDF = "reading PDFs needs pypdf, which is not installed: pip install 'ragloom[pdf]'"


def page_of(page_starts: list[int], offset: int) -> int:
    """The 1-based page holding character ``offset`` of a PDF document's text."""
    import bisect

    return max(bisect.bisect_right(page_starts, offset), 1)


def parse_pdf(data: bytes, *, report: Callable[[str], None], **_: Any) -> Parsed | None:
    """The text of every page joined by :data:`PAGE_BREAK`, with ``pages``,
    ``page_starts`` and ``title``; None after reporting a PDF that has no text
    or cannot be read. Raises :class:`LoaderError` when pypdf is missing."""
    try:
        import pypdf  # noqa: F401
    except ImportError:
        raise LoaderError(MISSING_PYPDF) from None
    with _pypdf_warnings() as warned:
        return _read(data, report, warned)


def _read(data: bytes, report: Callable[[str], None], warned: list[str]) -> Parsed | None:
    """``parse_pdf``'s work, with pypdf's warnings so far in ``warned``."""
    from pypdf import PasswordType, PdfReader
    from pypdf.errors import DependencyError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("") != PasswordType.NOT_DECRYPTED
            except DependencyError as exc:
                report(f"encrypted PDF that needs a crypto package to open ({exc}); skipped")
                return None
            if not opened:
                report(
                    "encrypted PDF with a password; remove the password "
                    "(e.g. `qpdf --decrypt`) and index the copy; skipped"
                )
                return None
        pages: list[str] = []
        scanned: list[int] = []
        for number, page in enumerate(reader.pages, start=1):
            text = _clean(page.extract_text() or "")
            if not text.strip() and _has_images(page):
                scanned.append(number)
            pages.append(text)
        title = _title(reader)
    except Exception as exc:  # pypdf raises many kinds on malformed files
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        said = f"; pypdf: {warned[0]}" if warned else ""
        report(f"not a readable PDF ({detail}{said}); skipped")
        return None
    for message in warned:  # read all the same: what pypdf repaired
        log.debug("pypdf: %s", message)

    if not any(text.strip() for text in pages):
        report(
            f"no text layer on any of its {len(pages)} page(s) (scanned?); "
            "OCR it first (e.g. `ocrmypdf`); skipped"
        )
        return None
    if scanned:
        report(f"{_pages(scanned)} no text layer (scanned?); OCR it first; loaded the other pages")

    pages = without_running_lines(pages)
    starts: list[int] = []
    offset = 0
    for text in pages:
        starts.append(offset)
        offset += len(text) + len(PAGE_BREAK)
    metadata: dict[str, Any] = {"title": title, "pages": len(pages), "page_starts": starts}
    return PAGE_BREAK.join(pages), metadata


class _Warnings(logging.Handler):
    """pypdf's warnings on the thread that reads one PDF. They name no file,
    so the reader says them with its own line about the file (or logs them
    at DEBUG), and Python's last-resort handler no longer prints them bare
    on stderr in an application that never configured logging. Handlers the
    application did configure still get them: nothing stops their way up.
    A warning from another thread goes where it went before."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.thread = threading.get_ident()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread:
            self.messages.append(record.getMessage())
            return
        readers = [h for h in logging.getLogger("pypdf").handlers if isinstance(h, _Warnings)]
        if readers and readers[0] is self and not _handled_elsewhere(record, readers):
            last = logging.lastResort  # once, by the first reader's handler
            if last is not None and record.levelno >= last.level:
                last.handle(record)


def _handled_elsewhere(record: logging.LogRecord, readers: list[_Warnings]) -> bool:
    """Whether ``record`` is a reader's (its thread reads a PDF), or another
    handler than the readers' takes it on its way up."""
    if any(h.thread == record.thread for h in readers):
        return True
    logger: logging.Logger | None = logging.getLogger(record.name)
    while logger is not None:
        if any(not isinstance(h, _Warnings) for h in logger.handlers):
            return True
        logger = logger.parent if logger.propagate else None
    return False


@contextmanager
def _pypdf_warnings() -> Iterator[list[str]]:
    """The messages pypdf logs while this thread reads one PDF."""
    handler = _Warnings()
    logger = logging.getLogger("pypdf")
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)


RUNNING_EDGE = 3
"""How many lines at the top and at the bottom of a page may be its running
header or footer (pypdf gives them in the order they were drawn: a footer
drawn first leads the page's text)."""

_PAGE_NUMBER = re.compile(
    r"\b(?:page|seite|p[aá]gina|pg|p)\.?\s*\d+(?:\s*(?:of|/|von|de|di|sur)\s*\d+)?\b"
    r"|\b\d+\s*(?:of|/)\s*\d+\s*$"
    r"|^[^\w]*\d+[^\w]*$"
)
"""A page number as running lines write it: ``Page 4``, ``Seite 4 von 12``,
``4 of 12`` or ``4 / 12`` at a line's end, or a line of nothing but the
number (``- 4 -``). The only numbers a running line may differ by."""


def without_running_lines(pages: list[str]) -> list[str]:
    """``pages`` without their running headers and footers: a line among the
    first or last :data:`RUNNING_EDGE` lines of at least half the pages (and
    of three or more) with more text than that, the same on each but for
    its page number ("Acme Guide - Rev. B", "Confidential. Page 4", "- 4 -").
    It stays where it first appears (a title, a letterhead, once) and goes
    from the other pages: there it says nothing of the page, and an answer
    quoting the page's first sentence quoted it too ("Page 4 4 Maintenance
    Replace the air filter..."). Lines that differ otherwise (an invoice's
    number, a dated heading) stay, and so does every line of a short page
    (a form, an invoice, a slide: there every line is at an edge)."""
    lines = [text.split("\n") for text in pages]
    edges = [_edge_lines(page) for page in lines]
    voting = sum(1 for at in edges if at)
    if voting < 3:
        return pages
    seen: Counter[str] = Counter()
    for page, at in zip(lines, edges):
        seen.update({_running_key(page[i]) for i in at})
    needed = max(3, -(-voting // 2))
    running = {key for key, count in seen.items() if count >= needed}
    if not running:
        return pages
    kept, met = [], set()
    for page, at in zip(lines, edges):
        gone = set()
        for i in sorted(at):
            key = _running_key(page[i])
            if key in running:
                if key in met:
                    gone.add(i)
                met.add(key)
        kept.append("\n".join(line for i, line in enumerate(page) if i not in gone).strip("\n"))
    return kept


def _edge_lines(page: list[str]) -> set[int]:
    """The indexes of a page's first and last :data:`RUNNING_EDGE` lines with
    text; none on a page of no more lines than those (all its lines are at
    an edge there: an invoice's, a slide's)."""
    filled = [i for i, line in enumerate(page) if line.strip()]
    if len(filled) <= 2 * RUNNING_EDGE:
        return set()
    return set(filled[:RUNNING_EDGE]) | set(filled[-RUNNING_EDGE:])


def _running_key(line: str) -> str:
    """A line as its repetitions on other pages read: spaces collapsed, case
    folded, its page number a ``#`` (see :data:`_PAGE_NUMBER`)."""
    return _PAGE_NUMBER.sub("#", " ".join(line.split()).casefold())


def _clean(text: str) -> str:
    """One page's text: newlines normalised, no form feeds or NULs, no trailing space."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n").replace("\x00", "")
    return "\n".join(line.rstrip() for line in text.split("\n")).strip("\n")


def _has_images(page: Any) -> bool:
    """Whether a page draws an image (directly or in a form XObject one level down)."""
    try:
        resources = page.get("/Resources")
        resources = resources.get_object() if resources is not None else None
        xobjects = resources.get("/XObject") if resources is not None else None
        if xobjects is None:
            return False
        for ref in xobjects.get_object().values():
            xobject = ref.get_object()
            if xobject.get("/Subtype") == "/Image":
                return True
            inner = xobject.get("/Resources")
            inner_x = inner.get_object().get("/XObject") if inner is not None else None
            if inner_x is not None and any(
                r.get_object().get("/Subtype") == "/Image" for r in inner_x.get_object().values()
            ):
                return True
    except Exception:  # a malformed resource dictionary: treat as image-free
        return False
    return False


def _title(reader: Any) -> str | None:
    try:
        info = reader.metadata
        title = info.title if info is not None else None
    except Exception:
        return None
    title = str(title).strip() if title else ""
    return title or None


def _pages(numbers: list[int]) -> str:
    if len(numbers) == 1:
        return f"page {numbers[0]} has"
    shown = ", ".join(map(str, numbers[:10])) + (", ..." if len(numbers) > 10 else "")
    return f"{len(numbers)} pages ({shown}) have"
