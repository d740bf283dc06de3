"""ragloom filters -> Pinecone filters, exactly.

A filter tree is translated over the projection :mod:`ragloom_pinecone.projection`
writes, into Pinecone's own language (``$in``, ``$nin``, ``$exists`` on the
token lists; ``$eq``, ``$gt``... on the numbers; ``$and``, ``$or``). Pinecone
has no ``$not``: a negation is pushed down to the conditions (De Morgan), and
each condition has an exact complement there, so every operator of ragloom's
language is supported.

The translation relies on these documented Pinecone rules only: a condition
on a field a record lacks is false (``$exists: false`` aside), ``$in``
matches a list when one element is in the set and ``$nin`` when none is,
numbers compare as numbers. It never relies on what ``$ne``/``$nin`` do on a
missing field: every negation is ORed with ``$exists: false``.

Refused (``UnsupportedFilterError``): a range on a string of
``STRING_PREFIX`` (40) characters or more, and on a non-finite number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Union

from ragloom.errors import UnsupportedFilterError
from ragloom.filters import And, Condition, Filter, Not, Or

from .projection import STRING_PREFIX, as_date, date_parts, key, string_parts, token

__all__ = ["translate"]

ALWAYS_KEY = "_rl"
"""A field every record holds: ``$exists`` on it is the constant true/false."""


@dataclass(frozen=True)
class _Leaf:
    field: str
    op: str
    arg: Any


@dataclass(frozen=True)
class _All:
    items: tuple[_Node, ...]


@dataclass(frozen=True)
class _Any:
    items: tuple[_Node, ...]


_Node = Union[_Leaf, _All, _Any]
TRUE = _Leaf(ALWAYS_KEY, "$exists", True)
FALSE = _Leaf(ALWAYS_KEY, "$exists", False)


def translate(node: Filter | None, store: str = "pinecone") -> dict[str, Any] | None:
    """The Pinecone filter matching exactly what ``ragloom.filters.evaluate`` matches
    on records written by this plugin; None for no filter."""
    if node is None:
        return None
    tree = _simplify(_translate(node, store))
    if tree == TRUE:
        return None
    return _render(tree)


def _translate(node: Filter, store: str) -> _Node:
    if isinstance(node, And):
        return _All(tuple(_translate(item, store) for item in node.items))
    if isinstance(node, Or):
        return _Any(tuple(_translate(item, store) for item in node.items))
    if isinstance(node, Not):
        return _negate(_translate(node.item, store))
    return _condition(node, store)


def _negate(node: _Node) -> _Node:
    if isinstance(node, _All):
        return _Any(tuple(_negate(item) for item in node.items))
    if isinstance(node, _Any):
        return _All(tuple(_negate(item) for item in node.items))
    field, op, arg = node.field, node.op, node.arg
    if op == "$exists":
        return _Leaf(field, "$exists", not arg)
    if op == "$nin":  # only ever ORed with "field missing": its negation has the field
        return _Leaf(field, "$in", arg)
    missing = _Leaf(field, "$exists", False)
    if op == "$in":  # a token list: none of them, or no field at all
        return _Any((missing, _Leaf(field, "$nin", arg)))
    # a number: the complement among numbers, or no number at all
    complement = {
        "$gt": (("$lte", arg),),
        "$gte": (("$lt", arg),),
        "$lt": (("$gte", arg),),
        "$lte": (("$gt", arg),),
        "$eq": (("$lt", arg), ("$gt", arg)),
    }[op]
    return _Any((missing, *(_Leaf(field, o, a) for o, a in complement)))


def _condition(node: Condition, store: str) -> _Node:
    field, op, arg = node.field, node.op, node.value
    eq = key("eq", field)
    if op == "$exists":
        return _Leaf(eq, "$exists", bool(arg))
    if op in ("$eq", "$ne"):
        leaf = _Leaf(eq, "$in", [token(arg)])
        return leaf if op == "$eq" else _negate(leaf)
    if op in ("$in", "$nin"):
        tokens = sorted({token(a) for a in arg})
        leaf: _Node = _Leaf(eq, "$in", tokens) if tokens else FALSE
        return leaf if op == "$in" else _negate(leaf)
    return _range(field, op, arg, store)


# -- ranges ------------------------------------------------------------------------------------


def _range(field: str, op: str, arg: Any, store: str) -> _Node:
    if isinstance(arg, (int, float)) and not isinstance(arg, bool):
        if not math.isfinite(arg):
            raise UnsupportedFilterError(
                f"store {store!r} (Pinecone) compares finite numbers only: {op} {arg!r}"
            )
        return _ordered(op, lambda kind: [key(kind, field)], [float(arg)], missing_is_zero=False,
                        kinds=("nx", "nn"))  # fmt: skip
    text = str(arg)
    if len(text) >= STRING_PREFIX:
        raise UnsupportedFilterError(
            f"store {store!r} (Pinecone) compares strings of at most {STRING_PREFIX - 1} "
            f"characters in range filters; {op} {text[:20]!r}... has {len(text)}"
        )
    parts = string_parts(text, terminated=True)

    def string_keys(kind: str) -> list[str]:
        return [key(kind, field, j) for j in range(len(parts))]

    def strings(prefix: str) -> _Node:
        return _ordered(op, string_keys, parts, missing_is_zero=True,
                        kinds=(prefix + "x", prefix + "n"))  # fmt: skip

    when = as_date(text)
    if when is None:  # every string compares as text, dates included
        return _Any((strings("s"), strings("y")))
    try:
        moment = list(date_parts(when))
    except OverflowError:
        raise UnsupportedFilterError(
            f"store {store!r} (Pinecone) cannot compare the date {text!r}"
        ) from None

    def date_keys(kind: str) -> list[str]:
        return [key(kind, field, j) for j in range(2)]

    dates = _ordered(op, date_keys, moment, missing_is_zero=False, kinds=("dx", "dn"))
    return _Any((dates, strings("s")))


def _ordered(
    op: str,
    keys_of: Any,
    arg: list[float] | list[int],
    *,
    missing_is_zero: bool,
    kinds: tuple[str, str],
) -> _Node:
    """``max op arg`` (``$gt``/``$gte``) or ``min op arg`` (``$lt``/``$lte``) for the
    values a record holds, compared as tuples (numbers: one part)."""
    high, low = kinds
    if op in ("$gt", "$gte"):
        return _compare(keys_of(high), op, arg, missing_is_zero)
    lows, highs = keys_of(low), keys_of(high)
    return _Any(
        (
            _compare(lows, op, arg, missing_is_zero),
            _All((_Leaf(lows[0], "$exists", False), _compare(highs, op, arg, missing_is_zero))),
        )
    )


def _compare(keys: list[str], op: str, arg: list[Any], missing_is_zero: bool) -> _Node:
    """The stored tuple at ``keys`` compared with ``arg``, lexicographically. With
    ``missing_is_zero`` (strings) a part the record lacks counts as 0, and part 0
    (always 1) says the tuple is there."""
    if len(keys) == 1:  # a plain number
        return _Leaf(keys[0], op, arg[0])
    start = 1 if missing_is_zero else 0

    def eq(j: int) -> _Node:
        if missing_is_zero and arg[j] == 0:
            return _Leaf(keys[j], "$exists", False)
        return _Leaf(keys[j], "$eq", arg[j])

    def beyond(j: int, greater: bool) -> _Node:
        if missing_is_zero and arg[j] == 0:
            return _Leaf(keys[j], "$exists", True) if greater else FALSE
        if greater:
            return _Leaf(keys[j], "$gt", arg[j])
        if missing_is_zero:
            return _Any((_Leaf(keys[j], "$exists", False), _Leaf(keys[j], "$lt", arg[j])))
        return _Leaf(keys[j], "$lt", arg[j])

    greater = op in ("$gt", "$gte")
    options: list[_Node] = []
    for j in range(start, len(keys)):
        options.append(_All((*(eq(i) for i in range(start, j)), beyond(j, greater))))
    if op in ("$gte", "$lte"):
        options.append(_All(tuple(eq(i) for i in range(start, len(keys)))))
    found = _Any(tuple(options))
    if missing_is_zero:
        return _All((_Leaf(keys[0], "$exists", True), found))
    return found


# -- simplify and render ---------------------------------------------------------------------------


def _simplify(node: _Node) -> _Node:
    if isinstance(node, _Leaf):
        return node
    kids = [_simplify(item) for item in node.items]
    flat: list[_Node] = []
    for kid in kids:
        if type(kid) is type(node):
            flat.extend(kid.items)  # type: ignore[union-attr]
        else:
            flat.append(kid)
    if isinstance(node, _All):
        if FALSE in flat:
            return FALSE
        flat = [k for k in flat if k != TRUE]
        if not flat:
            return TRUE
        return flat[0] if len(flat) == 1 else _All(tuple(flat))
    if TRUE in flat:
        return TRUE
    flat = [k for k in flat if k != FALSE]
    if not flat:
        return FALSE
    return flat[0] if len(flat) == 1 else _Any(tuple(flat))


def _render(node: _Node) -> dict[str, Any]:
    if isinstance(node, _Leaf):
        return {node.field: {node.op: node.arg}}
    name = "$and" if isinstance(node, _All) else "$or"
    return {name: [_render(item) for item in node.items]}
