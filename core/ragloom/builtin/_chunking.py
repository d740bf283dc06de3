"""Helpers shared by the built-in chunkers."""

from __future__ import annotations

from typing import Any

from ..types import Chunk, Document

__all__ = ["make_chunk"]


def make_chunk(
    document: Document,
    text: str,
    index: int,
    start: int,
    end: int,
    *,
    section: str | None = None,
    anchor: str | None = None,
    extra: dict[str, Any] | None = None,
) -> Chunk:
    """A chunk of ``document`` with its metadata, offsets and a citable label.

    The id is ``<document id>::<index>``, stable across runs for the same text
    and chunker config. The label is ``<source>#<anchor>`` where ``anchor``
    defaults to a slug of ``section`` or ``chunk-<index>``.
    """
    source = document.source
    if anchor is None:
        anchor = _slug(section) if section else f"chunk-{index}"
    metadata = {
        **document.metadata,
        "document_id": document.id,
        "chunk_index": index,
        "start": start,
        "end": end,
        **({"section": section} if section else {}),
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
