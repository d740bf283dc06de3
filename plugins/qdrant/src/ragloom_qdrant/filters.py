"""ragloom's filter language translated to Qdrant conditions, exactly.

``translate(where)`` turns a parsed filter (``Condition``/``And``/``Or``/
``Not``) into a small engine-neutral tree (``Bool``, ``Match``, ``MatchAny``,
``Range``, ``DateRange``, ``Nested``) over the typed filter index each point
carries (see ``payload.py``); each engine turns that tree into its own
``Filter`` objects. The semantics are those of ``ragloom.filters.evaluate``:

- ``$and`` -> ``must``, ``$or`` -> ``should``, ``$not`` -> ``must_not``.
- ``$eq``: strings ``MatchValue`` on ``.s``; numbers the range ``[x, x]`` on
  ``.n`` (``2023 == 2023.0``, never ``"2023"``); bools ``MatchValue`` 0/1 on
  ``.b`` (``true`` never equals ``1``); ``null`` ``.z``. A list matches when
  an element does: Qdrant's own rule for arrays.
- ``$ne``/``$nin``: ``must_not`` of ``$eq``/``$in``, so a missing field, or
  an empty list, matches (``MatchExcept`` would not).
- ``$in``: ``MatchAny`` on ``.s`` and ``.b``, ranges for numbers, OR-ed.
- ``$exists``: ``MatchValue`` on ``_fields``, which lists ``null`` and ``[]``
  fields too (``IsEmpty``/``IsNull`` cannot tell those from a missing field).
- ``$gt``/``$gte``/``$lt``/``$lte``: a number bound is a ``Range`` on ``.n``;
  a date bound a ``DatetimeRange`` on ``.d`` OR-ed with a text comparison
  of the non-date strings; any other string bound a text comparison of
  every string. A text comparison is a ``Nested`` condition on the packed
  code points (``.w``, ``.v``): lexicographic order written as a ``should``
  of prefix equalities, each within one list element.

What no Qdrant condition can give exactly is refused with
``UnsupportedFilterError``, never approximated: a number bound whose size is
2**53 or more (Qdrant compares numbers as 64-bit floats), a bound that is
not finite, a text bound longer than 64 code points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Union

from ragloom.errors import UnsupportedFilterError
from ragloom.filters import And, Condition, Filter, Not, Or

from .payload import FIELDS, FILTER, STRING_CHUNKS, as_date, encode_field, string_chunks, utc_text

__all__ = [
    "ALWAYS",
    "NEVER",
    "Bool",
    "DateRange",
    "Match",
    "MatchAny",
    "Nested",
    "Node",
    "Range",
    "payload_key",
    "translate",
]

_EXACT = 2.0**53


@dataclass(frozen=True)
class Match:
    """The payload value at ``key`` (or an element of it) equals ``value``."""

    key: str
    value: str | int


@dataclass(frozen=True)
class MatchAny:
    key: str
    values: tuple[str, ...] | tuple[int, ...]


@dataclass(frozen=True)
class Range:
    key: str
    gt: float | None = None
    gte: float | None = None
    lt: float | None = None
    lte: float | None = None


@dataclass(frozen=True)
class DateRange:
    """Bounds are RFC 3339 strings in UTC."""

    key: str
    gt: str | None = None
    gte: str | None = None
    lt: str | None = None
    lte: str | None = None


@dataclass(frozen=True)
class Nested:
    """``filter`` holds for one element of the array of objects at ``key``."""

    key: str
    filter: Bool


@dataclass(frozen=True)
class Bool:
    """Qdrant's ``Filter``: every ``must``, one ``should`` at least (when there
    are any), no ``must_not``. An empty ``Bool`` matches every point."""

    must: tuple[Node, ...] = ()
    should: tuple[Node, ...] = ()
    must_not: tuple[Node, ...] = ()


Node = Union[Match, MatchAny, Range, DateRange, Nested, Bool]

ALWAYS = Bool()
NEVER = Bool(must_not=(ALWAYS,))

_OPS = {"$gt": "gt", "$gte": "gte", "$lt": "lt", "$lte": "lte"}


def payload_key(field: str, kind: str) -> str:
    """The payload path of ``field``'s typed values of ``kind`` (``s``, ``n``...)."""
    return f"{FILTER}.{encode_field(field)}.{kind}"


def translate(where: Filter | None) -> Bool | None:
    """The Qdrant filter for ``where`` (None for no filter). The caller has
    checked the operators with ``ragloom.filters.check_supported``; this raises
    ``UnsupportedFilterError`` for the values no condition can hold exactly."""
    if where is None:
        return None
    node = _node(where)
    return node if isinstance(node, Bool) else Bool(must=(node,))


def _node(where: Filter) -> Node:
    if isinstance(where, And):
        return Bool(must=tuple(_node(item) for item in where.items))
    if isinstance(where, Or):
        return _any([_node(item) for item in where.items])
    if isinstance(where, Not):
        return Bool(must_not=(_node(where.item),))
    return _condition(where)


def _any(nodes: list[Node]) -> Node:
    """OR of ``nodes``: ``NEVER`` for none (an empty ``should`` matches all)."""
    if not nodes:
        return NEVER
    return nodes[0] if len(nodes) == 1 else Bool(should=tuple(nodes))


def _condition(c: Condition) -> Node:
    op, value = c.op, c.value
    if op == "$eq":
        return _equal(c.field, value)
    if op == "$ne":
        return Bool(must_not=(_equal(c.field, value),))
    if op == "$in":
        return _one_of(c.field, value)
    if op == "$nin":
        return Bool(must_not=(_one_of(c.field, value),))
    if op == "$exists":
        present = Match(FIELDS, encode_field(c.field))
        return present if value else Bool(must_not=(present,))
    if op in _OPS:
        return _range(c.field, _OPS[op], value)
    raise UnsupportedFilterError(f"unknown filter operator {op!r}")


def _number(value: float, field: str) -> float:
    if not math.isfinite(value) or abs(value) >= _EXACT:
        raise UnsupportedFilterError(
            f"filter on {field!r}: the qdrant store compares numbers as 64-bit floats, "
            f"exact only below 2**53 in size; {value!r} is not (write a smaller bound, "
            "or keep such numbers as strings)"
        )
    return float(value)


def _equal(field: str, value: Any) -> Node:
    if value is None:
        return Match(payload_key(field, "z"), 1)
    if isinstance(value, bool):
        return Match(payload_key(field, "b"), int(value))
    if isinstance(value, (int, float)):
        if isinstance(value, float) and math.isnan(value):
            return NEVER  # nan equals nothing
        x = _number(value, field)
        return Range(payload_key(field, "n"), gte=x, lte=x)
    return Match(payload_key(field, "s"), str(value))


def _one_of(field: str, values: tuple[Any, ...]) -> Node:
    strings = tuple(dict.fromkeys(v for v in values if isinstance(v, str)))
    bools = tuple(dict.fromkeys(int(v) for v in values if isinstance(v, bool)))
    nodes: list[Node] = []
    if strings:
        key = payload_key(field, "s")
        nodes.append(Match(key, strings[0]) if len(strings) == 1 else MatchAny(key, strings))
    if bools:
        key = payload_key(field, "b")
        nodes.append(Match(key, bools[0]) if len(bools) == 1 else MatchAny(key, bools))
    if any(v is None for v in values):
        nodes.append(_equal(field, None))
    numbers = dict.fromkeys(
        v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)
    )
    nodes.extend(n for n in (_equal(field, v) for v in numbers) if n != NEVER)
    return _any(nodes)


def _range(field: str, op: str, bound: Any) -> Node:
    if not isinstance(bound, str):
        return Range(payload_key(field, "n"), **{op: _number(bound, field)})
    moment = as_date(bound)
    utc = utc_text(moment) if moment is not None else None
    if moment is not None and utc is None:
        raise UnsupportedFilterError(
            f"filter on {field!r}: the date {bound!r} is outside years 1 to 9999 in UTC"
        )
    if utc is not None:
        # a date bound: dates compare as dates, other strings as text
        return _any([DateRange(payload_key(field, "d"), **{op: utc}), _text(field, "w", op, bound)])
    return _any([_text(field, "w", op, bound), _text(field, "v", op, bound)])


def _text(field: str, kind: str, op: str, bound: str) -> Node:
    """Strings of ``field`` (``kind``: ``w`` non-dates, ``v`` dates) that compare
    with ``bound`` by ``op``, as Python compares strings."""
    chunks = string_chunks(bound)
    n = len(chunks)
    if n > STRING_CHUNKS:
        raise UnsupportedFilterError(
            f"filter on {field!r}: the qdrant store compares strings of up to "
            f"{2 * STRING_CHUNKS} characters by range; {bound[:20]!r}... is longer"
        )

    def equal(i: int) -> list[Node]:  # the first i integers equal the bound's
        return [Match(f"c[{j}]", chunks[j]) for j in range(i)]

    def less(i: int) -> Node:  # integer i is below the bound's (a missing one is 0)
        return Bool(should=(Range(f"c[{i}]", lt=chunks[i]), Range("l", lte=i)))

    alternatives: list[Node]
    if op in ("gt", "gte"):
        alternatives = [Bool(must=(*equal(i), Range(f"c[{i}]", gt=chunks[i]))) for i in range(n)]
        tail = (
            Bool(must=tuple(equal(n))) if op == "gte" else Bool(must=(*equal(n), Range("l", gt=n)))
        )
    else:
        alternatives = [Bool(must=(*equal(i), less(i))) for i in range(n)]
        tail = Bool(must=(*equal(n), Range("l", lte=n))) if op == "lte" else NEVER
    if tail != NEVER:
        alternatives.append(tail)
    if not alternatives:
        return NEVER
    inner = alternatives[0] if len(alternatives) == 1 else Bool(should=tuple(alternatives))
    return Nested(
        payload_key(field, kind), inner if isinstance(inner, Bool) else Bool(must=(inner,))
    )
