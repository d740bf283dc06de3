"""Chunks to table rows and back, and the values filters compare.

A row keeps the metadata twice: ``metadata_json`` (``json``) exactly as
upserted, key order and number forms included, which is what hits return;
and ``metadata`` (``jsonb``, GIN-indexed), which filters and your own SQL
read. They differ only where PostgreSQL's ``numeric`` would compare a number
differently from Python: a float of magnitude 2**53 or more is written to
``metadata`` as the integer it exactly is (``1e23`` as
``99999999999999991611392``), so ``numeric`` comparisons agree with
``ragloom.filters.evaluate`` for every int and float. Below 2**53 a float's
shortest repr orders and equals exactly as the float does, against ints too.

``metadata_dates`` maps each field to ``{string: microseconds since the
epoch}`` for its values that are ISO dates by ragloom's rule (the rule of
``ragloom.filters``: 10+ characters, ``-`` at index 4, accepted by
``datetime.fromisoformat`` after ``Z`` becomes ``+00:00``; naive means UTC),
so filters compare dates as instants, in SQL, exactly as ``evaluate`` does.

PostgreSQL text cannot hold NUL characters, nor JSON NaN or Infinity: a
chunk carrying one is refused with a ``StoreError`` naming it, never
stored altered.

Vectors travel in pgvector's binary form (``register_numpy_vectors``): numpy
arrays are written and read as such, without pgvector's ``Vector`` objects
in between.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import struct
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ragloom import Chunk
from ragloom.errors import StoreError

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "CHUNK_COLUMNS",
    "EXACT_FLOAT_LIMIT",
    "as_date",
    "chunk_from_row",
    "date_micros",
    "encode_chunk",
    "filter_number",
    "register_numpy_vectors",
]

EXACT_FLOAT_LIMIT = 2.0**53
"""From this magnitude on, floats are integers and are written as such for filters."""

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_MICROSECOND = dt.timedelta(microseconds=1)

CHUNK_COLUMNS = (
    "id",
    "document_id",
    "chunk_index",
    "start_offset",
    "end_offset",
    "label",
    "text",
    "metadata_json",
)
"""The columns a hit's chunk is rebuilt from, in ``chunk_from_row`` order."""


def as_date(value: Any) -> dt.datetime | None:
    """``value`` as an aware datetime if it is a string in ISO date form, else
    None: the rule of ``ragloom.filters`` (naive means UTC)."""
    if not isinstance(value, str) or len(value) < 10 or value[4:5] != "-":
        return None
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.timezone.utc)


def date_micros(value: Any) -> int | None:
    """Microseconds from the epoch to the instant ``value`` names, if it is an ISO date."""
    parsed = as_date(value)
    if parsed is None:
        return None
    return (parsed - _EPOCH) // _MICROSECOND


def filter_number(value: int | float) -> int | float:
    """A number as filters compare it: floats of 2**53 and beyond as their exact
    integer (they are integers), everything else unchanged."""
    if isinstance(value, float) and abs(value) >= EXACT_FLOAT_LIMIT and math.isfinite(value):
        return int(value)
    return value


def _json_default(value: Any) -> Any:
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        return item()
    raise TypeError(f"{type(value).__name__} is not a JSON value")


class _Walk:
    """One pass over a chunk's metadata: checks what PostgreSQL cannot hold,
    collects ISO-date strings per field, notes floats that need rewriting."""

    def __init__(self, chunk_id: str) -> None:
        self.chunk_id = chunk_id
        self.rewrite = False

    def fail(self, where: str, what: str) -> StoreError:
        return StoreError(
            f"chunk {self.chunk_id!r}: metadata {where} {what}, which PostgreSQL cannot "
            "store; clean it in the loader (or a custom chunker) and index again"
        )

    def check(self, value: Any, where: str) -> None:
        if isinstance(value, str):
            _check_text(value, lambda what: self.fail(where, what))
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise self.fail(where, f"holds {value!r}")
            if abs(value) >= EXACT_FLOAT_LIMIT:
                self.rewrite = True
        elif isinstance(value, Mapping):
            for key, item in value.items():
                self.check(str(key), f"{where} key")
                self.check(item, f"{where}.{key}")
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                self.check(item, f"{where}[{i}]")
        elif value is None or isinstance(value, (bool, int)):
            pass
        else:
            item = getattr(value, "item", None)  # numpy scalars
            if not callable(item):
                raise self.fail(where, f"holds a {type(value).__name__}, not a JSON value")
            self.check(item(), where)


def _check_text(text: str, fail: Any) -> None:
    if "\x00" in text:
        raise fail("contains a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise fail(f"is not valid Unicode ({exc.reason})") from None


def _for_filters(value: Any) -> Any:
    """A copy of ``value`` with floats of 2**53 and beyond as exact integers."""
    if isinstance(value, float):
        return filter_number(value)
    if isinstance(value, Mapping):
        return {str(k): _for_filters(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_for_filters(v) for v in value]
    item = getattr(value, "item", None)
    if callable(item):
        return _for_filters(item())
    return value


def encode_chunk(chunk: Chunk) -> tuple[Any, ...]:
    """The row of ``chunk`` without its vector: the ``CHUNK_COLUMNS`` values
    (metadata as JSON text) then ``metadata`` and ``metadata_dates`` as JSON text.
    Raises ``StoreError`` naming the chunk and field PostgreSQL cannot hold."""
    for field, value in (("id", chunk.id), ("document id", chunk.document_id),
                         ("text", chunk.text), ("label", chunk.label)):  # fmt: skip
        _check_text(value, lambda what, field=field: StoreError(
            f"chunk {chunk.id!r}: its {field} {what}, which PostgreSQL cannot store; "
            "clean the text in the loader and index again"
        ))  # fmt: skip
    metadata = chunk.metadata
    scan = _scan(metadata)  # the common case: flat JSON values, in one loop
    if scan is None:  # anything else: the thorough walk, which names what is wrong
        walk = _Walk(chunk.id)
        walk.check(metadata, "")
        scan = (walk.rewrite, _dates(metadata))
    rewrite, dates = scan
    try:
        exact = json.dumps(metadata, ensure_ascii=True, allow_nan=False, default=_json_default)
    except (ValueError, TypeError):  # NaN, infinities, odd types: say which field
        _Walk(chunk.id).check(metadata, "")
        raise
    if "\\u0000" in exact or "\\ud" in exact:  # NUL or a lone surrogate (or look-alikes)
        _Walk(chunk.id).check(metadata, "")
    filtered = (
        json.dumps(_for_filters(metadata), ensure_ascii=True, allow_nan=False) if rewrite else exact
    )
    return (
        chunk.id,
        chunk.document_id,
        chunk.index,
        chunk.start,
        chunk.end,
        chunk.label,
        chunk.text,
        exact,
        filtered,
        json.dumps(dates, ensure_ascii=False) if dates else None,
    )


_SIMPLE = (int, bool, type(None))


def _scan(metadata: Mapping[str, Any]) -> tuple[bool, dict[str, dict[str, int]]] | None:
    """For metadata of plain strings, numbers, booleans, nulls and flat lists of
    them: whether a float needs rewriting for filters, and the ISO dates by
    field. None for anything else (the thorough walk handles it)."""
    rewrite = False
    dates: dict[str, dict[str, int]] = {}
    for key, value in metadata.items():
        if type(key) is not str:
            return None
        kind = type(value)
        items = value if kind is list or kind is tuple else (value,)
        for item in items:
            kind = type(item)
            if kind is str:
                if len(item) >= 10 and item[4] == "-":
                    micros = date_micros(item)
                    if micros is not None:
                        dates.setdefault(key, {})[item] = micros
            elif kind is float:
                if not math.isfinite(item):
                    return None
                if item >= EXACT_FLOAT_LIMIT or item <= -EXACT_FLOAT_LIMIT:
                    rewrite = True
            elif kind not in _SIMPLE:
                return None
    return rewrite, dates


def _dates(metadata: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """The ISO dates of each field (its value, or the items of its list)."""
    dates: dict[str, dict[str, int]] = {}
    for key, value in metadata.items():
        for item in value if isinstance(value, (list, tuple)) else (value,):
            micros = date_micros(item)
            if micros is not None:
                dates.setdefault(str(key), {})[str(item)] = micros
    return dates


def chunk_from_row(row: tuple[Any, ...] | list[Any]) -> Chunk:
    """The chunk of a row whose first columns are ``CHUNK_COLUMNS``."""
    metadata = row[7]
    if isinstance(metadata, (str, bytes)):
        metadata = json.loads(metadata)
    return Chunk(
        id=row[0],
        document_id=row[1],
        text=row[6],
        index=row[2],
        start=row[3],
        end=row[4],
        label=row[5],
        metadata=metadata,
    )


def register_numpy_vectors(conn: psycopg.Connection[Any]) -> None:
    """pgvector's adapters (``register_vector``), then numpy ones in their place
    for the binary form: a 1-d array is sent as a ``vector`` straight from its
    bytes, and ``vector`` and ``halfvec`` values come back as float32 arrays.

    pgvector's own go through a ``Vector`` (an ``array`` copied, byteswapped
    and packed one way, unpacked and copied again the other); these do one
    numpy conversion each way, which counts at every query's ten hits and
    every upserted row."""
    import numpy as np
    from pgvector.psycopg import register_vector
    from psycopg.adapt import Dumper, Loader
    from psycopg.pq import Format

    register_vector(conn)
    adapters = conn.adapters
    vector = adapters.types.get("vector")
    assert vector is not None  # register_vector fails without the type

    class ArrayDumper(Dumper):
        format = Format.BINARY
        oid = vector.oid

        def dump(self, obj: Any) -> bytes:
            array = np.asarray(obj, dtype=">f4")
            if array.ndim != 1:
                raise ValueError(f"a vector is one-dimensional, not of shape {array.shape}")
            return struct.pack(">HH", array.shape[0], 0) + array.tobytes()

    class ArrayLoader(Loader):
        """The binary form: dimension and a reserved word (2 x uint16), then
        big-endian floats (4 bytes for vector, 2 for halfvec)."""

        format = Format.BINARY
        dtype = np.dtype(">f4")

        def load(self, data: Any) -> Any:
            return np.frombuffer(data, dtype=self.dtype, offset=4).astype(np.float32)

    class HalfArrayLoader(ArrayLoader):
        dtype = np.dtype(">f2")

    adapters.register_dumper("numpy.ndarray", ArrayDumper)
    adapters.register_loader(vector.oid, ArrayLoader)
    halfvec = adapters.types.get("halfvec")
    if halfvec is not None:  # pgvector 0.7 and later
        adapters.register_loader(halfvec.oid, HalfArrayLoader)
