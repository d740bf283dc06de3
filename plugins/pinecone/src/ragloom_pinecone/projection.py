"""The filter projection: metadata written so that Pinecone filters are exact.

Pinecone stores strings, numbers (64-bit floats), booleans and lists of
strings, and compares only numbers. ragloom's filters (``ragloom.filters.evaluate``)
also match null, tell ``true`` from ``1``, treat ``1`` and ``1.0`` as equal,
look into lists of any scalars, and order strings and ISO dates. So next to
the chunk, every top-level metadata field ``f`` is written as:

``_eq.f``
    a list of typed tokens, one per value (one per element of a list):
    ``s:<text>`` (``h:<sha256>`` for texts over 256 bytes), ``n:<number>`` in
    a canonical form (``1`` and ``1.0`` alike), ``b:true``/``b:false``,
    ``z`` for null, ``o`` for anything else (nested objects), and ``e`` for
    the empty list. Equality, ``$in``, ``$exists`` and their negations are
    ``$in``/``$nin``/``$exists`` on it.
``_nx.f`` / ``_nn.f``
    the largest / smallest number (booleans are not numbers); ``$gt 3``
    holds for a list when its largest number is above 3. ``_nn`` is written
    only when it differs from ``_nx``.
``_dx0.f``, ``_dx1.f`` / ``_dn0.f``, ``_dn1.f``
    the latest / earliest ISO date, as UTC seconds and microseconds.
``_sx<j>.f`` / ``_sn<j>.f``, ``_yx<j>.f`` / ``_yn<j>.f``
    the greatest / least string that is not a date (``s``) and that is a
    date (``y``, compared as text against arguments that are not dates),
    encoded for lexicographic comparison: part 0 is 1 (present), part ``j``
    packs code points ``2j-1`` and ``2j`` (each plus one, 21 bits apiece, so
    a missing character sorts first) of the first :data:`STRING_PREFIX`
    characters. A range filter on a string argument of up to
    ``STRING_PREFIX - 1`` characters is therefore exact.

Numbers beyond 2**53 and dates beyond the range of ``datetime`` compare as
Pinecone's floats do; non-finite numbers are written as the largest floats.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import sys
from collections.abc import Mapping
from typing import Any

__all__ = [
    "EMPTY",
    "NULL",
    "OTHER",
    "STRING_PREFIX",
    "as_date",
    "date_parts",
    "key",
    "number_token",
    "project",
    "string_parts",
    "token",
]

STRING_PREFIX = 40
"""Characters of each string kept for range filters; arguments may have one fewer."""
_LONG_TOKEN = 256
NULL, OTHER, EMPTY = "z", "o", "e"
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_MAX = sys.float_info.max


def key(kind: str, field: str, part: int | None = None) -> str:
    """``_eq.year``, ``_nx.year``, ``_sx3.category``..."""
    return f"_{kind}{'' if part is None else part}.{field}"


def number_token(value: float | int) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return OTHER  # NaN equals nothing, itself included
        if math.isinf(value):
            return f"n:{value}"
        if value.is_integer():
            return f"n:{int(value)}"
        return f"n:{value!r}"
    return f"n:{value}"


def token(value: Any) -> str:
    """The equality token of one scalar (see the module docs)."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return "b:true" if value else "b:false"
    if isinstance(value, (int, float)):
        return number_token(value)
    if isinstance(value, str):
        if len(value.encode("utf-8")) > _LONG_TOKEN:
            return "h:" + hashlib.sha256(value.encode("utf-8")).hexdigest()
        return "s:" + value
    return OTHER


def as_date(value: Any) -> dt.datetime | None:
    """``ragloom.filters``' reading of a string as an ISO date (aware, UTC if naive)."""
    if not isinstance(value, str) or len(value) < 10 or value[4:5] != "-":
        return None
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.timezone.utc)


def date_parts(when: dt.datetime) -> tuple[int, int]:
    """(seconds, microseconds) since the Unix epoch, exact."""
    delta = when - _EPOCH
    return delta.days * 86_400 + delta.seconds, delta.microseconds


def string_parts(text: str, *, terminated: bool = False) -> list[int]:
    """``[1, c1, c2, ...]``: the first STRING_PREFIX characters of ``text`` packed two
    code points (each plus one) per part. ``terminated`` adds the end of the text
    as a 0 character (filter arguments: a stored text lacking a part has 0 there)."""
    codes = [ord(c) + 1 for c in text[:STRING_PREFIX]]
    if terminated:
        codes.append(0)
    if len(codes) % 2:
        codes.append(0)
    return [1] + [(codes[i] << 21) | codes[i + 1] for i in range(0, len(codes), 2)]


def _finite(value: float) -> float:
    if math.isinf(value):
        return _MAX if value > 0 else -_MAX
    return float(value)


def project(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The filter fields of a chunk's metadata (see the module docs)."""
    out: dict[str, Any] = {}
    for field, value in metadata.items():
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        tokens = sorted({token(v) for v in values}) if values else [EMPTY]
        out[key("eq", field)] = tokens
        numbers = [
            _finite(v)
            for v in values
            if isinstance(v, (int, float)) and not isinstance(v, bool) and not _nan(v)
        ]
        if numbers:
            high, low = max(numbers), min(numbers)
            out[key("nx", field)] = high
            if low != high:
                out[key("nn", field)] = low
        strings = [v for v in values if isinstance(v, str)]
        dated = [(s, d) for s in strings if (d := as_date(s)) is not None]
        plain = [s for s in strings if as_date(s) is None]
        if dated:
            latest = max(dated, key=lambda pair: pair[1])[1]
            earliest = min(dated, key=lambda pair: pair[1])[1]
            _put_parts(out, "dx", field, list(date_parts(latest)))
            if earliest != latest:
                _put_parts(out, "dn", field, list(date_parts(earliest)))
            _put_strings(out, "y", field, [s for s, _ in dated])
        if plain:
            _put_strings(out, "s", field, plain)
    return out


def _nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _put_strings(out: dict[str, Any], kind: str, field: str, strings: list[str]) -> None:
    high = max(strings, key=lambda s: string_parts(s))
    low = min(strings, key=lambda s: string_parts(s))
    _put_parts(out, kind + "x", field, string_parts(high))
    if string_parts(low) != string_parts(high):
        _put_parts(out, kind + "n", field, string_parts(low))


def _put_parts(out: dict[str, Any], kind: str, field: str, parts: list[int]) -> None:
    for j, part in enumerate(parts):
        out[key(kind, field, j)] = part
