"""Fingerprints and stamps: what decides whether indexed data is still valid.

An index is built under an embedder fingerprint and a chunker fingerprint
(recorded in the ledger); each document version gets a *stamp* derived from
its state (text and metadata) and the chunker, which every chunk id of that
version carries (``docs/a.md::0@3f9c2e1a7b4d``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .cache import fingerprint_key
from .types import Chunk, Document, content_hash

__all__ = [
    "VOLATILE_METADATA",
    "describe_fingerprint",
    "document_stamp",
    "fingerprints_match",
    "loader_key",
    "stamped",
    "state_hash",
]

VOLATILE_METADATA = frozenset({"mtime", "path", "size"})
"""Metadata that says where a file sits or when it was touched: not part of its state."""


def loader_key(spec: Any) -> str:
    """A short stable key for a configured loader (its type and options), recorded
    with each document so a loader whose source is unavailable keeps its documents."""
    return fingerprint_key({"type": spec.type, **spec.config.model_dump(mode="json")})[:16]


def describe_fingerprint(fingerprint: Any) -> str:
    """``model (384-d)`` for an embedder fingerprint, for messages."""
    if not isinstance(fingerprint, Mapping):
        return "none" if fingerprint is None else str(fingerprint)
    model = fingerprint.get("model") or fingerprint.get("type")
    return f"{model} ({fingerprint.get('dimension')}-d)"


def fingerprints_match(stored: Any, current: Any, component: Any = None) -> bool:
    """Whether a fingerprint recorded in the ledger equals the current one.
    Ledgers written before fingerprints named the registered type (``hash``)
    recorded the class name (``HashEmbedder``); those still match."""
    if stored is None or stored == current:
        return True
    if (
        component is not None
        and isinstance(stored, Mapping)
        and isinstance(current, Mapping)
        and stored.get("type") == type(component).__name__
    ):
        return {**stored, "type": current.get("type")} == dict(current)
    return False


def state_hash(doc: Document) -> str:
    """What decides whether a document must be re-indexed: its text and its
    metadata (but not where the file sits or when it was touched)."""
    meta = {k: v for k, v in doc.metadata.items() if k not in VOLATILE_METADATA}
    return content_hash(doc.hash + json.dumps(meta, sort_keys=True, default=str))


def document_stamp(state: str, chunker_key: str) -> str:
    """The stamp of one document version under one chunker config."""
    return content_hash(state + chunker_key)[:12]


def stamped(
    doc: Document, chunks: list[Chunk], chunker_key: str, state: str | None = None
) -> list[Chunk]:
    """``chunks`` with ids that name the document version and chunker config they
    came from (``docs/a.md::0@3f9c2e1a7b4d``): a changed document or chunker never
    reuses an id, so an interrupted run can never leave a chunk of one version
    filed under another's ledger entry; its leftovers are orphans the journal
    names."""
    stamp = document_stamp(state or state_hash(doc), chunker_key)
    return [replace(c, id=f"{c.id}@{stamp}") for c in chunks]
