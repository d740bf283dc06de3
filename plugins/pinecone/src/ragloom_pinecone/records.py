"""How a chunk becomes a Pinecone record and back.

Vector ids: Pinecone takes 1-512 ASCII characters. A chunk id is
percent-encoded (every byte outside printable ASCII, and ``%``, as ``%XX``),
which keeps prefixes: the chunks of document ``d`` (ids ``d::0@...``) are
listed with the prefix ``encode_id("d::")``. An encoded id longer than 512
characters keeps its first 440 and ends with ``%~`` and a SHA-256 of the
chunk id (``%~`` never appears otherwise); the full id is in the metadata.

Metadata of a record:

- ``text``: the chunk text (``store_text: full``), cut to fit with
  ``_rl_cut: true`` (``truncate``), or absent (``none``: the text lives in
  ``texts.sqlite`` in the store's folder).
- ``_rl``: the rest of the chunk as JSON (id, document id, offsets, label,
  metadata exactly as given: null, nested values, int vs float survive).
- the filter projection, written by :mod:`ragloom_pinecone.projection`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ragloom import Chunk

from .projection import project

__all__ = [
    "MAX_METADATA_BYTES",
    "TEXT_CUT",
    "TEXT_KEY",
    "build_metadata",
    "chunk_from_metadata",
    "decode_id",
    "encode_id",
    "metadata_size",
]

MAX_METADATA_BYTES = 40 * 1024
"""Pinecone's limit on one record's metadata (40 KB), as compact UTF-8 JSON."""
MAX_ID_LENGTH = 512
_KEEP = 440
_HASHED = "%~"
TEXT_KEY = "text"
TEXT_CUT = "_rl_cut"
CHUNK_KEY = "_rl"
TRUNCATED_FLAG = "text_truncated"
"""Set (True) in the metadata of a chunk whose text came back cut (``store_text: truncate``)."""


def encode_id(chunk_id: str) -> str:
    """The Pinecone vector id of ``chunk_id`` (ASCII, at most 512 characters)."""
    out = []
    for ch in chunk_id:
        if ("!" <= ch <= "~" and ch != "%") or ch == " ":
            out.append(ch)
        else:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8"))
    encoded = "".join(out)
    if len(encoded) <= MAX_ID_LENGTH:
        return encoded
    digest = hashlib.sha256(chunk_id.encode("utf-8")).hexdigest()
    return encoded[:_KEEP] + _HASHED + digest


def encode_prefix(prefix: str) -> str | None:
    """The id prefix listing the chunk ids starting with ``prefix``, or None when
    the prefix is too long to survive in hashed ids."""
    encoded = encode_id(prefix)
    return encoded if len(encoded) <= _KEEP else None


def decode_id(vector_id: str) -> str | None:
    """The chunk id of a vector id; None for a hashed one (read its metadata)."""
    if _HASHED in vector_id:
        return None
    data = bytearray()
    i = 0
    while i < len(vector_id):
        ch = vector_id[i]
        if ch == "%":
            data.extend(bytes.fromhex(vector_id[i + 1 : i + 3]))
            i += 3
        else:
            data.extend(ch.encode("ascii"))
            i += 1
    return data.decode("utf-8")


def metadata_size(metadata: dict[str, Any]) -> int:
    return len(json.dumps(metadata, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def build_metadata(
    chunk: Chunk, store_text: str, limit: int = MAX_METADATA_BYTES
) -> dict[str, Any]:
    """The record metadata of ``chunk``. With ``store_text: truncate`` the text is
    cut (at a character boundary) until the whole fits in ``limit`` bytes; the
    caller checks the size for ``full`` and ``none``."""
    payload = {
        "id": chunk.id,
        "doc": chunk.document_id,
        "i": chunk.index,
        "s": chunk.start,
        "e": chunk.end,
        "l": chunk.label,
        "m": dict(chunk.metadata),
    }
    metadata: dict[str, Any] = {CHUNK_KEY: json.dumps(payload, separators=(",", ":"))}
    metadata.update(project(chunk.metadata))
    if store_text == "none":
        return metadata
    metadata[TEXT_KEY] = chunk.text
    if store_text == "full":
        return metadata
    over = metadata_size(metadata) - limit
    if over <= 0:
        return metadata
    metadata[TEXT_CUT] = True
    text = chunk.text
    # drop characters from the end: each costs 1-4 bytes (more when JSON escapes it)
    low, high = 0, len(text)
    while low < high:
        mid = (low + high + 1) // 2
        metadata[TEXT_KEY] = text[:mid]
        if metadata_size(metadata) <= limit:
            low = mid
        else:
            high = mid - 1
    metadata[TEXT_KEY] = text[:low]
    return metadata


def chunk_from_metadata(metadata: dict[str, Any], text: str | None = None) -> Chunk:
    """The chunk a record's metadata holds (``text`` given when it is kept elsewhere)."""
    payload = json.loads(metadata[CHUNK_KEY])
    chunk_metadata = payload["m"]
    if text is None:
        text = metadata.get(TEXT_KEY, "")
        if metadata.get(TEXT_CUT):
            chunk_metadata = {**chunk_metadata, TRUNCATED_FLAG: True}
    return Chunk(
        id=payload["id"],
        document_id=payload["doc"],
        text=text,
        index=payload["i"],
        start=payload["s"],
        end=payload["e"],
        label=payload["l"],
        metadata=chunk_metadata,
    )
