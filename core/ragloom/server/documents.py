"""The indexed documents a caller may read, and their text as indexed (the
MCP server's resources).

Both answer from the committed corpus version the pipeline is at (moving to
a newer one first, as a query does), through the caller's access filter
inside the stores: a document the caller may not read is not listed, and
reading it is "not found", never "forbidden" (which would confirm it exists).

A document's text is put back together from its chunks, in order, using
their offsets so that overlapping chunks are not repeated. Chunks are
fetched from a dense store (filtered on ``document_id``); a pipeline whose
stores are all keyword-only can list its documents but not read them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..access import caller_filter, restrict
from ..filters import Condition, check_supported
from ..ledger import Ledger

if TYPE_CHECKING:
    from ..pipeline import Pipeline
    from ..types import Chunk

__all__ = ["DocumentInfo", "DocumentUnreadable", "list_documents", "read_document"]


@dataclass(frozen=True)
class DocumentInfo:
    id: str
    source: str
    chunks: int


class DocumentUnreadable(Exception):
    """No store can give back this pipeline's chunks (keyword-only stores)."""


def _entries(pipeline: Pipeline) -> tuple[Any, dict[str, Any]]:
    """The pinned view, and the ledger entries of the documents it holds."""
    pipeline.open()
    view = pipeline.retriever.sync()
    if not view.exists:
        return view, {}
    ledger = Ledger(pipeline.state.ledger_path).open(read_only=pipeline.state.read_only)
    try:
        entries = ledger.entries()
    finally:
        ledger.close()
    return view, {
        doc: entry for doc, entry in entries.items() if view.stamps.get(doc) == entry.stamp
    }


def list_documents(pipeline: Pipeline, principals: list[str] | None) -> list[DocumentInfo]:
    """The committed documents ``principals`` may read (all when no access
    control applies), by id."""
    acl = caller_filter(pipeline.config.access, principals)
    view, entries = _entries(pipeline)
    if acl is None:
        readable = set(entries)
    else:
        readable = set()
        with pipeline.state.lock.read():
            owner = {cid: doc for doc, e in entries.items() for cid in e.chunk_ids}
            for name, store in pipeline.stores:
                check_supported(acl, type(store).filter_operators, name)
                try:
                    readable = {owner[cid] for cid in store.ids(where=acl) if cid in owner}
                    break
                except NotImplementedError:
                    continue
            else:  # no store lists ids: ask, document by document
                _, store = pipeline.stores[0]
                readable = {
                    doc
                    for doc in entries
                    if store.count(where=restrict(_of_document(doc), acl)) > 0
                }
    return [
        DocumentInfo(id=doc, source=entries[doc].source, chunks=len(entries[doc].chunk_ids))
        for doc in sorted(readable)
    ]


def read_document(
    pipeline: Pipeline, document_id: str, principals: list[str] | None
) -> tuple[DocumentInfo, str, dict[str, Any]] | None:
    """The document's info, text and metadata (the first chunk's), or None
    when it is not indexed or ``principals`` may not read it."""
    acl = caller_filter(pipeline.config.access, principals)
    view, entries = _entries(pipeline)
    entry = entries.get(document_id)
    if entry is None:
        return None
    where = restrict(_of_document(document_id), acl)
    # a store with a filter of its own answers only within it (one layer, say):
    # stores without one first, then the others, until the first chunk is found
    dense = sorted(
        (
            (spec.filter is not None, n, s)
            for spec, (n, s) in zip(pipeline.config.stores, pipeline.stores)
            if "dense" in s.capabilities
        ),
        key=lambda t: t[0],
    )
    if not dense or pipeline.embedder is None:
        raise DocumentUnreadable(
            "reading whole documents needs a dense store (one that answers vector queries)"
        )
    import numpy as np

    dimension = pipeline.embedder.dimension
    probe = np.full(dimension, 1.0 / math.sqrt(dimension), dtype=np.float32)
    found: dict[str, Chunk] = {}
    for _, name, store in dense:
        check_supported(where, type(store).filter_operators, name)
        with pipeline.state.lock.read():
            hits = store.query(vector=probe, k=max(len(entry.chunk_ids), 1) * 2, where=where)
        for h in hits:
            if view.visible(h.chunk.document_id, h.chunk.id):
                found.setdefault(h.chunk.id, h.chunk)
        if any(c.index == 0 for c in found.values()):
            break
    chunks = sorted(found.values(), key=lambda c: (c.index, c.start))
    if not chunks:
        return None
    # cut several ways (the `layers` chunker): the first layer alone is the text
    first = chunks[0].metadata.get("layer")
    chunks = [c for c in chunks if c.metadata.get("layer") == first]
    info = DocumentInfo(id=document_id, source=entry.source, chunks=len(entry.chunk_ids))
    return info, assemble(chunks), dict(chunks[0].metadata)


def _of_document(document_id: str) -> Condition:
    return Condition("document_id", "$eq", document_id)


def assemble(chunks: list[Chunk]) -> str:
    """The text of consecutive chunks of one document, overlaps once (and a
    table header a chunker repeated before a chunk's rows, once)."""
    texts = [c.own_text for c in chunks]
    exact = all(c.end - c.start == len(text) for c, text in zip(chunks, texts, strict=True))
    if not exact:
        return "\n\n".join(c.text for c in chunks)
    out: list[str] = []
    pos: int | None = None
    for c, text in zip(chunks, texts, strict=True):
        if pos is None or c.start >= pos:
            if out and pos is not None and c.start > pos:
                out.append("\n\n")
            out.append(text)
            pos = c.end
        elif c.end > pos:
            out.append(text[pos - c.start :])
            pos = c.end
    return "".join(out)
