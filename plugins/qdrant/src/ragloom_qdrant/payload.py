"""Chunks as Qdrant points: point ids, payloads, and the typed filter index.

A point's payload holds the chunk as upserted (``chunk_id``, ``document_id``,
``text``, ``index``, ``start``, ``end``, ``label`` and ``metadata``, as is),
and beside it ``_filter`` and ``_fields``: the metadata once more, typed the
way ragloom's filter language compares values, so that every filter
translates to plain Qdrant conditions (see ``filters.py``):

``_fields``
    the (encoded) names of the metadata fields present, ``null`` and ``[]``
    included: ``$exists``.
``_filter.<field>.s``
    the field's strings (a scalar, or the elements of a list): ``$eq``,
    ``$in`` on strings (keyword).
``.n``
    its numbers, bools excepted, as floats: ``1 == 1.0``, ranges (float).
``.b``
    its bools as 0/1 (integer; kept apart so that ``true`` never equals ``1``).
``.z``
    1 when it is ``null`` or a list holding ``null``.
``.d``
    its strings in ISO date form, as UTC datetimes (datetime): ranges with a
    date bound compare these as dates.
``.w`` / ``.v``
    its non-date / date strings as code points, for ranges whose bound is a
    string compared as text: ``{"c": [..], "l": n}``, two code points (plus
    one, so that "no character" sorts first) packed in each integer below
    2**42, at most :data:`STRING_CHUNKS` of them, and ``l`` how many the
    whole string has.

Field names made of ``[A-Za-z0-9_-]`` (and not starting with ``__``) keep
their name in ``_filter`` and ``_fields``; others are hashed (``__<hex>``).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import math
import re
import uuid
from collections.abc import Mapping
from typing import Any

from ragloom import Chunk
from ragloom.errors import StoreError

__all__ = [
    "CHUNK_FIELDS",
    "FIELDS",
    "FILTER",
    "POINT_NAMESPACE",
    "STRING_CHUNKS",
    "as_date",
    "chunk_from_payload",
    "encode_field",
    "filter_index",
    "payload_of",
    "point_id",
    "string_chunks",
    "utc_text",
]

POINT_NAMESPACE = uuid.UUID("6f1c54a4-5a0e-5d3c-9a57-1b8f3f3f2a10")
"""Point ids are ``uuid5(POINT_NAMESPACE, chunk_id)``."""

FILTER = "_filter"
FIELDS = "_fields"
CHUNK_FIELDS = ("chunk_id", "document_id", "text", "index", "start", "end", "label", "metadata")
"""The payload keys a hit needs (``_filter`` and ``_fields`` are not fetched)."""

STRING_CHUNKS = 32
"""Integers kept per string for text ranges: 64 code points. A range bound
longer than that is refused (``UnsupportedFilterError``)."""

_SAFE = re.compile(r"[A-Za-z0-9_-]+")
_INT64 = (-(2**63), 2**64 - 1)


def point_id(chunk_id: str) -> str:
    """The point id of a chunk: a UUIDv5 of its id, the same in every process."""
    return str(uuid.uuid5(POINT_NAMESPACE, chunk_id))


def encode_field(name: str) -> str:
    """The key of metadata field ``name`` under ``_filter`` and in ``_fields``."""
    if _SAFE.fullmatch(name) and not name.startswith("__"):
        return name
    return "__" + hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def as_date(value: Any) -> _dt.datetime | None:
    """``value`` as an aware datetime when ragloom's filters compare it as a date
    (a string of at least 10 characters, ``-`` fifth, ``fromisoformat`` after
    ``Z`` -> ``+00:00``, naive meaning UTC), else None. The same rule as
    ``ragloom.filters.evaluate``."""
    if not isinstance(value, str) or len(value) < 10 or value[4:5] != "-":
        return None
    try:
        parsed = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=_dt.timezone.utc)


def utc_text(moment: _dt.datetime) -> str | None:
    """RFC 3339 in UTC with microseconds (what Qdrant's datetime index reads),
    or None for a moment outside years 1 to 9999 in UTC."""
    try:
        utc = moment.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    except (OverflowError, ValueError):
        return None
    return utc.isoformat(timespec="microseconds") + "Z"


def string_chunks(text: str) -> list[int]:
    """Code points of ``text`` plus one, packed two per integer, in order:
    comparing these lists lexicographically (a missing integer counting as
    0) orders strings as Python does."""
    points = [ord(c) + 1 for c in text]
    if len(points) % 2:
        points.append(0)
    return [(points[i] << 21) | points[i + 1] for i in range(0, len(points), 2)]


def _chunk_element(text: str) -> dict[str, Any]:
    chunks = string_chunks(text)
    return {"c": chunks[:STRING_CHUNKS], "l": len(chunks)}


def filter_index(metadata: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``_filter`` and ``_fields`` for a chunk's metadata (see the module docstring)."""
    typed: dict[str, Any] = {}
    present: list[str] = []
    for name, value in metadata.items():
        key = encode_field(str(name))
        present.append(key)
        values = value if isinstance(value, (list, tuple)) else (value,)
        strings: dict[str, None] = {}
        numbers: list[float] = []
        bools: list[int] = []
        dates: list[str] = []
        null = False
        for item in values:
            if item is None:
                null = True
            elif isinstance(item, bool):
                bools.append(int(item))
            elif isinstance(item, (int, float)):
                if isinstance(item, float) and not math.isfinite(item):
                    continue  # never equal, never in range (and no JSON number)
                numbers.append(float(item))
            elif isinstance(item, str):
                strings[item] = None
        entry: dict[str, Any] = {}
        if strings:
            entry["s"] = list(strings)
            plain: list[dict[str, Any]] = []
            dated: list[dict[str, Any]] = []
            for text in strings:
                moment = as_date(text)
                utc = utc_text(moment) if moment is not None else None
                if utc is not None:
                    dates.append(utc)
                    dated.append(_chunk_element(text))
                else:
                    plain.append(_chunk_element(text))
            if plain:
                entry["w"] = plain
            if dated:
                entry["v"] = dated
        if numbers:
            entry["n"] = numbers
        if bools:
            entry["b"] = bools
        if null:
            entry["z"] = 1
        if dates:
            entry["d"] = dates
        if entry:
            typed[key] = entry
    return typed, present


def _check_value(chunk: Chunk, name: str, value: Any) -> None:
    """Refuse what a Qdrant payload cannot hold as given (before anything is written)."""
    values = value if isinstance(value, (list, tuple)) else (value,)
    for item in values:
        bad = ""
        if isinstance(item, float) and not math.isfinite(item):
            bad = f"{item!r} is not a JSON number"
        elif isinstance(item, int) and not _INT64[0] <= item <= _INT64[1]:
            bad = f"{item} does not fit in 64 bits"
        if bad:
            raise StoreError(
                f"chunk {chunk.id!r}: metadata field {name!r}: {bad}, which a Qdrant payload "
                "cannot hold; store it as a string"
            )


def payload_of(chunk: Chunk) -> dict[str, Any]:
    """The payload of ``chunk``: the chunk as is, and its filter index."""
    metadata = dict(chunk.metadata)
    for name, value in metadata.items():
        _check_value(chunk, name, value)
    typed, present = filter_index(metadata)
    return {
        "chunk_id": chunk.id,
        "document_id": chunk.document_id,
        "text": chunk.text,
        "index": chunk.index,
        "start": chunk.start,
        "end": chunk.end,
        "label": chunk.label,
        "metadata": metadata,
        FILTER: typed,
        FIELDS: present,
    }


def chunk_from_payload(payload: Mapping[str, Any] | None, point: object) -> Chunk:
    """The chunk a point holds; ``StoreError`` for a point ragloom did not write."""
    try:
        assert payload is not None
        return Chunk(
            id=payload["chunk_id"],
            document_id=payload["document_id"],
            text=payload["text"],
            index=payload["index"],
            start=payload["start"],
            end=payload["end"],
            label=payload["label"],
            metadata=payload["metadata"],
        )
    except (AssertionError, KeyError, TypeError) as exc:
        raise StoreError(
            f"point {point} holds no ragloom chunk (its payload lacks {exc}): the collection "
            "holds points another program wrote; give ragloom a collection of its own"
        ) from None
