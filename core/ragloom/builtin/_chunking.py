"""Helpers shared by the built-in chunkers."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from typing import Any

from ..types import Chunk, Document

__all__ = ["make_chunk", "section_finder"]

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
_FENCE = re.compile(r"^(```|~~~)", re.MULTILINE)


def section_finder(text: str) -> Callable[[int], tuple[str, str] | None]:
    """For Markdown text: a function from a character offset to the section it
    lies in, as ``(path, anchor)`` — ``("Pricing FAQ > Refunds", "refunds")`` —
    or None before the first heading. Headings inside code fences don't count."""
    fences = [m.start() for m in _FENCE.finditer(text)]
    starts: list[int] = []
    paths: list[tuple[str, str]] = []
    trail: list[tuple[int, str]] = []
    for match in _HEADING.finditer(text):
        if bisect.bisect_right(fences, match.start()) % 2:  # inside a fence
            continue
        level, title = len(match.group(1)), match.group(2).strip()
        trail = [(lvl, t) for lvl, t in trail if lvl < level] + [(level, title)]
        starts.append(match.start())
        paths.append((" > ".join(t for _, t in trail), _slug(title)))

    def find(offset: int) -> tuple[str, str] | None:
        i = bisect.bisect_right(starts, offset) - 1
        return paths[i] if i >= 0 else None

    return find


def make_chunk(
    document: Document,
    text: str,
    index: int,
    start: int,
    end: int,
    *,
    section: tuple[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> Chunk:
    """A chunk of ``document`` with its metadata, offsets and a citable label.

    The id is ``<document id>::<index>``, stable across runs for the same text
    and chunker config. ``section`` is ``(path, anchor)`` as ``section_finder``
    gives it; the label is ``<source>#<anchor>``, or ``<source>#chunk-<index>``
    outside any section.
    """
    source = document.source
    anchor = section[1] if section else f"chunk-{index}"
    metadata = {
        **document.metadata,
        "document_id": document.id,
        "chunk_index": index,
        "start": start,
        "end": end,
        **({"section": section[0]} if section else {}),
        **(extra or {}),
    }
    return Chunk(
        id=f"{document.id}::{index}",
        document_id=document.id,
        text=text,
        index=index,
        start=start,
        end=end,
        label=f"{source}#{anchor}",
        metadata=metadata,
    )


def _slug(text: str) -> str:
    out = []
    for ch in text.lower():
        if ch.isalnum():
            out.append(ch)
        elif out and out[-1] != "-":
            out.append("-")
    return "".join(out).strip("-") or "section"
