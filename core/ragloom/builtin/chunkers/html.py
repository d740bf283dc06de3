"""The ``html`` chunker: the ``markdown`` chunker for web pages, by heading.

    chunker:
      type: html
      size: 800
      overlap: 100

The ``html`` loader renders a page's ``<h1>``–``<h6>`` as ATX heading lines,
so on its output this chunker cuts exactly as ``markdown`` does, with the
same options. The differences are for HTML that reaches a chunker as markup
(a page loaded by the ``file`` loader, a fragment kept in a Markdown file):

- ``<h1>``–``<h6>`` elements are headings too (outside fenced code), their
  text stripped of tags and entities decoded;
- a heading element's ``id`` attribute is its anchor, as a browser resolves
  ``page.html#id``; other headings get GitHub slugs that avoid those ids.
"""

from __future__ import annotations

import bisect
import html
import re

from ._chunking import Heading, build_headings, clean_title, scan_markdown
from .markdown import MarkdownChunker

__all__ = ["HtmlChunker", "html_headings"]

_ELEMENT = re.compile(r"<h([1-6])\b([^>]*)>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)
_ID = re.compile(r"""\bid\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)


class HtmlChunker(MarkdownChunker):
    """Splits a page by heading: ATX lines and ``<h1>``–``<h6>`` elements."""

    class Config(MarkdownChunker.Config):
        """Options of the ``html`` chunker: those of ``markdown``."""

    config: Config

    def headings(self, text: str) -> list[Heading]:
        return html_headings(text)


def html_headings(text: str) -> list[Heading]:
    """The ATX headings and ``<hN>`` elements of ``text`` outside fenced code,
    in order, an element's ``id`` as its anchor."""
    marks, skipped = scan_markdown(text)
    if "<" in text:
        skipped_starts = [a for a, _ in skipped]
        for match in _ELEMENT.finditer(text):
            i = bisect.bisect_right(skipped_starts, match.start()) - 1
            if i >= 0 and match.start() < skipped[i][1]:
                continue  # inside a code block
            title = " ".join(html.unescape(clean_title(match.group(3))).split())
            if not title:
                continue
            found = _ID.search(match.group(2))
            anchor = next((g for g in found.groups() if g), None) if found else None
            marks.append((match.start(), match.end(), int(match.group(1)), title, anchor))
        marks.sort()
    return build_headings(marks)
