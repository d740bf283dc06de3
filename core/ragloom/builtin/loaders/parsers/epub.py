"""EPUB books (``.epub``, versions 2 and 3): the chapters in reading order.

An EPUB is a zip of XHTML pages; its package file (found through
``META-INF/container.xml``) lists them in the order they are read (the
*spine*). Each page is read as the ``html`` loader reads one (headings,
lists, tables; scripts, navigation and hidden elements left out), so the
Markdown-aware chunkers cut the book by its headings and cite it by them
(``guide.epub#installing``). Pages the spine marks as not part of the
reading order (``linear="no"``: pop-ups, answer keys) come after the rest;
a page the spine lists twice is read once.

Metadata: ``title`` (the book's ``dc:title``; else the loader uses the file
name) and ``author`` (its first ``dc:creator``). A file that is not an
EPUB, a damaged one, one protected by DRM (its pages are encrypted), one
with no text, and one whose pages would unpack to more than
:data:`~._office.MAX_UNPACKED` bytes, or to more than 16 MB and 100 times
the book's size (a zip bomb) are reported and skipped.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote
from xml.etree import ElementTree

from .._files import Parsed, decode_text
from ._office import MAX_UNPACKED, first_line
from .html import parse_html

__all__ = ["parse_epub"]

_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_PAGES = ("application/xhtml+xml", "text/html", "application/x-dtbook+xml")
_MAX_RATIO = 100
_RATIO_FROM = 16 * 1024 * 1024
"""A book that unpacks to more than 16 MB and to more than 100 times its own
size is a zip bomb too: real text compresses about 3 to 10 times, and a
408 KB book of 120 MB of pages gave 158,732 chunks and 2.1 GB."""


class _Unreadable(Exception):
    """Why a book cannot be read, in words for the report."""


def parse_epub(data: bytes, *, report: Callable[[str], None], **_: Any) -> Parsed | None:
    """The text of a book with its ``title`` and ``author``; see the module docs."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as book:
            unpacked = sum(info.file_size for info in book.infolist())
            if unpacked > MAX_UNPACKED:
                report(
                    f"EPUB book whose parts unpack to {unpacked:,} bytes, over "
                    f"{MAX_UNPACKED:,} (a zip bomb?); skipped"
                )
                return None
            if unpacked > _RATIO_FROM and unpacked > _MAX_RATIO * len(data):
                report(
                    f"EPUB book whose parts unpack to {unpacked:,} bytes, over "
                    f"{_MAX_RATIO} times its own size (a zip bomb?); skipped"
                )
                return None
            if "META-INF/encryption.xml" in book.namelist() and _encrypted_pages(book):
                report("a DRM-protected EPUB book (its pages are encrypted); skipped")
                return None
            package_path = _package_path(book)
            package = _xml(book, package_path)
            # each page once: a spine may list one page a thousand times
            pages = list(dict.fromkeys(_reading_order(package, posixpath.dirname(package_path))))
            texts = [text for path in pages if (text := _page_text(book, path))]
    except (_Unreadable, zipfile.BadZipFile, KeyError, ElementTree.ParseError, OSError) as exc:
        report(f"not a readable EPUB book ({first_line(exc)}); skipped")
        return None
    if not texts:
        report("EPUB book with no text (pictures only?); skipped")
        return None
    fields: dict[str, Any] = {}
    for key, tag in (("title", "title"), ("author", "creator")):
        element = package.find(f"{_OPF}metadata/{_DC}{tag}")
        if element is not None and (element.text or "").strip():
            fields[key] = " ".join((element.text or "").split())
    return "\n\n".join(texts) + "\n", fields


def _xml(book: zipfile.ZipFile, path: str) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(book.read(path))
    except KeyError:
        raise _Unreadable(f"{path} is missing") from None


def _package_path(book: zipfile.ZipFile) -> str:
    """Where the package file is: what ``META-INF/container.xml`` names."""
    container = _xml(book, "META-INF/container.xml")
    rootfile = container.find(f"{_CONTAINER}rootfiles/{_CONTAINER}rootfile")
    path = rootfile.get("full-path") if rootfile is not None else None
    if not path:
        raise _Unreadable("META-INF/container.xml names no package file")
    return path


def _reading_order(package: ElementTree.Element, folder: str) -> list[str]:
    """The pages of the spine, in order, those not in the reading order last."""
    manifest = {
        item.get("id"): item
        for item in package.iterfind(f"{_OPF}manifest/{_OPF}item")
        if item.get("id")
    }
    linear: list[str] = []
    aside: list[str] = []
    for reference in package.iterfind(f"{_OPF}spine/{_OPF}itemref"):
        item = manifest.get(reference.get("idref"))
        if item is None or item.get("media-type") not in _PAGES or not item.get("href"):
            continue
        path = posixpath.normpath(posixpath.join(folder, unquote(item.get("href") or "")))
        (aside if reference.get("linear") == "no" else linear).append(path)
    if not linear and not aside:
        raise _Unreadable("its spine lists no pages")
    return linear + aside


def _page_text(book: zipfile.ZipFile, path: str) -> str:
    try:
        data = book.read(path)
    except KeyError:
        raise _Unreadable(f"the page {path} is missing") from None
    text = decode_text(data, "auto", report=lambda _message: None, html=True)
    if not text:
        return ""
    parsed = parse_html(text, report=lambda _message: None, max_links=0, heading_ids=False)
    return parsed[0].strip() if parsed is not None else ""


def _encrypted_pages(book: zipfile.ZipFile) -> bool:
    """Whether ``META-INF/encryption.xml`` encrypts a page (fonts alone are
    obfuscated in many books that are not protected)."""
    try:
        root = ElementTree.fromstring(book.read("META-INF/encryption.xml"))
    except ElementTree.ParseError:
        return False
    uris = [
        reference.get("URI") or ""
        for reference in root.iter()
        if reference.tag.endswith("CipherReference")
    ]
    return any(uri.lower().endswith((".xhtml", ".html", ".htm", ".xml")) for uri in uris)
