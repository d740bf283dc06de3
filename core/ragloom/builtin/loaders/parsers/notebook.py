"""Jupyter notebooks (``.ipynb``): the cells in order, as Markdown.

A notebook is JSON (nbformat 4, and the ``worksheets`` of nbformat 3).
Its Markdown cells are kept as written, so the Markdown-aware chunkers cut
it by their headings; each code cell becomes a fenced block in the
kernel's language; a code cell's text outputs (what it printed, its
result, an error's name and message) follow it in a fenced ``output``
block as the notebook shows it (a progress bar in its last state, colours
dropped), cut to :data:`MAX_OUTPUT` characters with a line saying how much
was left out (a training log runs to megabytes); images and other rich
outputs are left out; raw cells are kept as text.

Metadata: ``title`` (the notebook's ``title`` metadata, else its first
Markdown heading; else the loader uses the file name), ``kernel_language``
and ``cells``. A file that is not a notebook's JSON is reported
and skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from ....terminal import clean
from ...chunkers._chunking import markdown_headings
from .._files import Parsed

__all__ = ["MAX_OUTPUT", "parse_notebook"]

MAX_OUTPUT = 2000
"""The most characters of one cell's text output that are read."""

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
_RICH = ("image/", "application/vnd.jupyter.widget", "application/vnd.plotly")
"""Rich outputs whose ``text/plain`` is only a placeholder: left out with them."""


def parse_notebook(text: str, *, report: Callable[[str], None], **_: Any) -> Parsed | None:
    """A notebook's cells as Markdown with its ``title``, ``kernel_language``
    and ``cells``; None after reporting a file that is not a notebook."""
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as exc:
        report(f"not a readable notebook (JSON error at line {exc.lineno}: {exc.msg}); skipped")
        return None
    if not isinstance(notebook, dict) or not isinstance(_cells_of(notebook), list):
        report("not a readable notebook (no list of cells in its JSON); skipped")
        return None
    metadata = notebook.get("metadata") if isinstance(notebook.get("metadata"), dict) else {}
    language = _language(metadata) or next(  # nbformat 3 names it on each code cell
        (
            str(c["language"]).strip().lower()
            for c in _cells_of(notebook)
            if isinstance(c, dict) and isinstance(c.get("language"), str) and c["language"].strip()
        ),
        "",
    )
    cells = [cell for cell in _cells_of(notebook) if isinstance(cell, dict)]
    blocks = [block for cell in cells for block in _cell(cell, language)]
    if not blocks:
        report("notebook with no text in its cells; skipped")
        return None
    title = metadata.get("title") if isinstance(metadata.get("title"), str) else ""
    if not title.strip():
        title = next((heading for c in cells if (heading := _cell_title(c))), "")
    fields: dict[str, Any] = {"cells": len(cells)}
    if title.strip():
        fields["title"] = " ".join(title.split())
    if language:
        fields["kernel_language"] = language  # not `language`: that makes a file source code
    return "\n\n".join(blocks) + "\n", fields


def _cell_title(cell: dict[str, Any]) -> str:
    """A cell's heading: a Markdown cell's first, or nbformat 3's heading cell."""
    if cell.get("cell_type") == "heading":
        return " ".join(_source(cell).split())
    if cell.get("cell_type") != "markdown":
        return ""
    headings = markdown_headings(_source(cell))  # as the chunkers find them: not in code
    return headings[0].title if headings else ""


def _cells_of(notebook: dict[str, Any]) -> Any:
    if "cells" in notebook:
        return notebook["cells"]
    worksheets = notebook.get("worksheets")  # nbformat 3
    if isinstance(worksheets, list):
        return [
            cell
            for sheet in worksheets
            if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list)
            for cell in sheet["cells"]
        ]
    return None


def _language(metadata: dict[str, Any]) -> str:
    for key in ("kernelspec", "language_info"):
        section = metadata.get(key)
        if isinstance(section, dict):
            value = section.get("language") or (
                section.get("name") if key == "language_info" else ""
            )
            if isinstance(value, str) and value.strip():
                return value.strip().lower()
    return ""


def _source(cell: dict[str, Any], key: str = "source") -> str:
    """A cell's text: nbformat keeps it as one string or a list of lines."""
    value = cell.get(key, cell.get("input", "")) if key == "source" else cell.get(key, "")
    if isinstance(value, list):
        return "".join(str(line) for line in value)
    return value if isinstance(value, str) else ""


def _cell(cell: dict[str, Any], language: str) -> Iterator[str]:
    kind = cell.get("cell_type")
    source = _source(cell).strip("\n")
    if kind == "code":
        if source.strip():
            yield _fenced(source, language)
        output = _as_shown(_joined(_outputs(cell))).strip("\n")
        if output.strip():
            if len(output) > MAX_OUTPUT:
                left = len(output) - MAX_OUTPUT
                output = f"{output[:MAX_OUTPUT]}\n… ({left:,} more characters of output left out)"
            yield _fenced(output, "output")
    elif source.strip():  # markdown, raw, and the headings of nbformat 3
        if kind == "heading":
            level = cell.get("level") if isinstance(cell.get("level"), int) else 1
            yield f"{'#' * min(max(level, 1), 6)} {' '.join(source.split())}"
        else:
            yield _closed(source)


def _joined(outputs: Iterator[str]) -> str:
    """Outputs one after another, each from a new line (a stream's pieces
    run on)."""
    text = ""
    for piece in outputs:
        if text and not text.endswith("\n"):
            text += "\n"
        text += piece
    return text


def _outputs(cell: dict[str, Any]) -> Iterator[str]:
    """A code cell's text outputs: streams, plain-text results, errors."""
    outputs = cell.get("outputs")
    for output in outputs if isinstance(outputs, list) else []:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            yield _source(output, "text")
        elif kind in ("execute_result", "display_data", "pyout"):
            data = output.get("data") if isinstance(output.get("data"), dict) else output
            if any(key.startswith(_RICH) for key in data):
                continue  # a plot or a widget: its text/plain is "<Figure size 640x480 ...>"
            plain = data.get("text/plain", data.get("text", ""))
            yield "".join(plain) if isinstance(plain, list) else str(plain or "")
        elif kind in ("error", "pyerr"):
            yield f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"


def _as_shown(output: str) -> str:
    """An output as the notebook shows it: a carriage return overwrites its
    line (a progress bar shows its last state), colours and other escape
    sequences are dropped."""
    lines = output.replace("\r\n", "\n").split("\n")
    return clean("\n".join(line.rsplit("\r", 1)[-1] for line in lines))


def _closed(markdown: str) -> str:
    """A Markdown cell with a code fence it leaves open closed at its end:
    Jupyter renders each cell alone, and an open fence would swallow the
    cells after it (their headings too)."""
    opened: str | None = None
    for match in _FENCE.finditer(markdown):
        fence = match.group(1)
        if opened is None:
            opened = fence
        elif fence[0] == opened[0] and len(fence) >= len(opened):
            opened = None
    return f"{markdown}\n{opened}" if opened else markdown


def _fenced(text: str, info: str) -> str:
    """``text`` in a code fence longer than any fence inside it."""
    longest = max((len(match.group(1)) for match in _FENCE.finditer(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"
