"""ragloom filters as parameterised SQL over the ``metadata`` JSONB column.

The translation is exact: a row matches the SQL exactly when
``ragloom.filters.evaluate`` accepts its metadata (the contract's filter
cases and a property test check it). Every value, field names included, is a
bound parameter; nothing from a filter is ever formatted into the SQL text.

- ``$eq`` is JSONB containment, ``metadata @> {"f": v} OR metadata @> {"f": [v]}``:
  the field equals ``v`` or is a list holding it. Containment compares by
  JSON type (``true`` is not ``1``, ``"1"`` is not ``1``) and numbers by value
  (``1 == 1.0``), as ``evaluate`` does, and the GIN index answers it.
- ``$ne``, ``$nin``: the negation, so a missing field matches.
- ``$exists``: ``metadata ? field`` (a null value exists).
- ``$gt`` and friends: any element of the field (the value, or each item of a
  list) of the argument's kind: numbers against a number, strings against a
  string, in code point order (``COLLATE "C"``). When the argument is an ISO
  date, a string element that is one too compares as an instant, through
  ``metadata_dates``; other strings still compare as strings.

Stored strings never hold NUL and stored numbers are finite (``rows``
refuses them), so arguments that do are decided here without reaching SQL.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from ragloom.errors import FilterError
from ragloom.filters import And, Condition, Filter, Not, Or

from .rows import date_micros, filter_number

__all__ = ["Params", "where_sql"]

_META = "metadata"
_DATES = "metadata_dates"
_SQL_OPS = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}


class Params(dict[str, Any]):
    """Named query parameters; ``add`` binds a value and returns its placeholder."""

    def add(self, value: Any, prefix: str = "f") -> str:
        name = f"{prefix}{len(self)}"
        self[name] = value
        return f"%({name})s"


def where_sql(node: Filter | None, params: Params) -> str:
    """A boolean SQL expression for ``node`` (``TRUE`` for no filter), never
    NULL, its values bound in ``params`` as named placeholders."""
    if node is None:
        return "TRUE"
    return _node(node, params)


def _node(node: Filter, params: Params) -> str:
    if isinstance(node, And):
        return "(" + " AND ".join(_node(item, params) for item in node.items) + ")"
    if isinstance(node, Or):
        return "(" + " OR ".join(_node(item, params) for item in node.items) + ")"
    if isinstance(node, Not):
        return f"(NOT {_node(node.item, params)})"
    return _condition(node, params)


def _condition(cond: Condition, params: Params) -> str:
    field, op, arg = cond.field, cond.op, cond.value
    if "\x00" in field:  # no stored field name holds NUL: the field is missing
        return "TRUE" if op in ("$ne", "$nin") or (op == "$exists" and not arg) else "FALSE"
    if op == "$exists":
        test = f"({_META} ? {params.add(field)}::text)"
        return test if arg else f"(NOT {test})"
    if op in ("$eq", "$ne"):
        test = _equals_any(field, (arg,), params)
        return test if op == "$eq" else f"(NOT {test})"
    if op in ("$in", "$nin"):
        test = _equals_any(field, tuple(arg), params)
        return test if op == "$in" else f"(NOT {test})"
    return _compare(field, op, arg, params)


def _equals_any(field: str, args: tuple[Any, ...], params: Params) -> str:
    """The field equals one of ``args``, or is a list holding one."""
    docs: list[str] = []
    for arg in args:
        if isinstance(arg, float) and not math.isfinite(arg):
            continue  # NaN equals nothing, and no stored number is infinite
        if isinstance(arg, str) and "\x00" in arg:
            continue  # no stored string holds NUL
        value = filter_number(arg) if isinstance(arg, (int, float)) else arg
        for doc in (json.dumps({field: value}), json.dumps({field: [value]})):
            if doc not in docs:
                docs.append(doc)
    if not docs:
        return "FALSE"
    return "(" + " OR ".join(f"{_META} @> {params.add(doc)}::jsonb" for doc in docs) + ")"


def _compare(field: str, op: str, arg: Any, params: Params) -> str:
    """Some element of the field (its value, or an item of its list) compares
    with ``arg`` as ``op`` says."""
    sql_op = _SQL_OPS[op]
    element: Callable[[str], str]
    if isinstance(arg, bool) or not isinstance(arg, (int, float, str)):
        raise FilterError(f"{field}.{op} takes a number or a string (ISO date), got {arg!r}")
    if isinstance(arg, str):
        text, text_op = arg, sql_op
        if "\x00" in text:
            # against strings without NUL, "ab\0c" orders as "ab" made slightly
            # larger: s > t and s >= t mean s > "ab"; s < t and s <= t mean s <= "ab"
            text = text[: text.index("\x00")]
            text_op = ">" if op in ("$gt", "$gte") else "<="
        bound = params.add(text)
        micros = date_micros(arg)

        def as_text(e: str) -> str:
            return f"({e} #>> '{{}}') COLLATE \"C\" {text_op} {bound}::text"

        if micros is None:

            def element(e: str) -> str:
                return f"jsonb_typeof({e}) = 'string' AND {as_text(e)}"

        else:  # an ISO date: dates compare as instants, other strings as strings
            dates = f"({_DATES} -> {params.add(field)}::text)"
            instant = params.add(micros)

            def element(e: str) -> str:
                key = f"({e} #>> '{{}}')"
                return (
                    f"CASE WHEN jsonb_typeof({e}) <> 'string' THEN FALSE "
                    f"WHEN COALESCE({dates} ? {key}, FALSE) "
                    f"THEN ({dates} ->> {key})::numeric {sql_op} {instant}::numeric "
                    f"ELSE {as_text(e)} END"
                )

    else:  # a number: the parser admits numbers and strings only
        if math.isnan(arg):
            return "FALSE"
        if math.isinf(arg):
            if (arg > 0) == (op in ("$gt", "$gte")):
                return "FALSE"  # nothing stored is infinite, so nothing lies beyond

            def element(e: str) -> str:  # every number lies on this side
                return f"jsonb_typeof({e}) = 'number'"

        else:
            number = params.add(str(filter_number(arg)))

            def element(e: str) -> str:  # CASE: SQL's AND may cast a string first
                return (
                    f"CASE WHEN jsonb_typeof({e}) = 'number' "
                    f"THEN ({e})::numeric {sql_op} {number}::numeric ELSE FALSE END"
                )

    value = f"({_META} -> {params.add(field)}::text)"
    # CASE keeps the list path off scalar rows; COALESCE makes a missing field FALSE
    return (
        f"COALESCE(CASE jsonb_typeof({value}) WHEN 'array' THEN EXISTS "
        f"(SELECT 1 FROM jsonb_array_elements({value}) AS item(value) "
        f"WHERE {element('item.value')}) ELSE ({element(value)}) END, FALSE)"
    )
