"""Markdown tables cut between rows: their header repeated in each later piece.

A long table (a ``.csv`` or spreadsheet read whole, an HTML or Word table)
is cut between rows by the size-bound chunkers. A piece that starts among
the rows would hold values without column names, so
:func:`with_table_headers` puts the table's header row and the rule under
it (``| Model | Price |`` then ``| --- | --- |``, as the document writes
them) before such a piece's text, as LlamaIndex's and Unstructured's
table-aware splitters do. The offsets still cover the piece's own rows:
its text is the header passage (:func:`table_lead`, verbatim in the
document, just not at those offsets) followed by ``text[start:end]``.

A table is a line that starts and ends with ``|``, a rule under it
(``| --- | :---: |``) and the ``|`` lines after that; lines of pipes with
no rule are no table, and neither is one inside a fenced code block (an
example of a table in a ``` fence is code, left as written).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable

__all__ = ["Piece", "table_header", "table_lead", "with_table_headers"]

Piece = tuple[int, int, str]
"""A chunk to be: ``(start, end, text)``, offsets into the document text."""

_TABLE_HEAD = re.compile(
    r"^(\|[^\n]*\|)[ \t]*\r?\n"
    r"\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*\r?$",
    re.MULTILINE,
)
"""A Markdown table's header row and the rule under it (CRLF line ends too:
a document a plugin's loader gives as it read it)."""


@functools.lru_cache(maxsize=4)
def _tables(text: str) -> tuple[list[int], list[int], list[int], list[str]]:
    """Where each Markdown table of ``text`` has its body (after the rule)
    and where it ends, where its header row starts, and the header row.
    Cached for the few documents being chunked (a string's hash is kept)."""
    starts: list[int] = []
    ends: list[int] = []
    heads: list[int] = []
    headers: list[str] = []
    if "|" not in text:
        return starts, ends, heads, headers
    fenced = _fenced(text)
    for match in _TABLE_HEAD.finditer(text):
        if fenced and _inside(fenced, match.start()):
            continue  # an example table in a code fence is code, left as written
        body = match.end() + 1
        end = body
        while end < len(text) and text.startswith("|", end):  # the rows, up to a non-row line
            line_end = text.find("\n", end)
            end = len(text) if line_end < 0 else line_end + 1
        starts.append(body)
        ends.append(end)
        heads.append(match.start())
        headers.append(match.group(1))
    return starts, ends, heads, headers


def _fenced(text: str) -> list[tuple[int, int]]:
    """The spans of ``text``'s fenced code blocks (and front matter), as the
    Markdown chunker finds them; none where no fence can be."""
    if "```" not in text and "~~~" not in text and not text.startswith("---"):
        return []
    from ._chunking import scan_markdown  # (it imports this module)

    return scan_markdown(text)[1]


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    at = bisect.bisect_right(spans, (offset, float("inf"))) - 1  # the last span from before it
    return at >= 0 and spans[at][0] <= offset < spans[at][1]


def _table_at(text: str, offset: int) -> int:
    """The index of the table whose rows ``offset`` falls among, or -1."""
    starts, ends, _, _ = _tables(text)
    at = bisect.bisect_right(starts, offset) - 1
    return at if at >= 0 and offset < ends[at] else -1


def table_header(text: str, offset: int) -> str | None:
    """The header row of the Markdown table whose rows ``offset`` falls
    among, past the rule under the header; else None. A chunk that starts
    deep in a long table (a spreadsheet, a CSV file) carries it as
    ``table_header`` metadata: its rows are read under their column names."""
    at = _table_at(text, offset)
    return None if at < 0 else _tables(text)[3][at]


def table_lead(text: str, offset: int) -> str:
    """The header row and rule of the table one of whose rows starts at
    ``offset`` (``"| Model | Price |\\n| --- | --- |\\n"``, verbatim), or
    ``""`` where no row starts there (outside a table, in its header, in the
    middle of a row)."""
    if not text.startswith("|", offset) or (offset and text[offset - 1] != "\n"):
        return ""
    at = _table_at(text, offset)
    if at < 0:
        return ""
    starts, _, heads, _ = _tables(text)
    return text[heads[at] : starts[at]]


def with_table_headers(
    text: str,
    pieces: list[Piece],
    size: int,
    length: Callable[[str], int],
    resplit: Callable[[int, int, int], list[Piece]],
) -> list[Piece]:
    """``pieces`` of ``text`` (in order), each one that starts at a table's
    row led by that table's :func:`table_lead`; the rest as they are.

    Where such a piece would not fit in ``size`` with the header (measured
    together, by ``length``), the passage from its start to the end of the
    last piece that starts in the same table is cut again by
    ``resplit(start, end, room)``, the chunker's own splitter with ``room``
    (``size`` less the header) as its size, and each new piece that starts at
    a row gets the header when it fits with it. A header that takes more than
    half of ``size`` is not repeated: the rows under it would be cut to
    shreds (the chunks still carry it as ``table_header`` metadata).
    """
    out: list[Piece] = []
    i = 0
    while i < len(pieces):
        start, end, piece = pieces[i]
        i += 1
        lead = table_lead(text, start)
        if not lead:
            out.append((start, end, piece))
            continue
        if length(lead + piece) <= size:
            out.append((start, end, lead + piece))
            continue
        room = size - length(lead)
        if room < size - size // 2:
            out.append((start, end, piece))
            continue
        stop = _tables(text)[1][_table_at(text, start)]  # where the table ends
        while i < len(pieces) and pieces[i][0] < stop:
            end = max(end, pieces[i][1])
            i += 1
        for begin, finish, part in resplit(start, end, room):
            lead = table_lead(text, begin)
            fits = bool(lead) and length(lead + part) <= size
            out.append((begin, finish, lead + part if fits else part))
    return out
