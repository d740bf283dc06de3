"""The one metadata filter language: parse, validate, evaluate.

Shaped like Pinecone's and MongoDB's::

    {"category": "pricing", "year": {"$gte": 2024},
     "$or": [{"tier": "pro"}, {"tier": {"$in": ["team", "enterprise"]}}],
     "$not": {"draft": true}}

Operators: ``$eq $ne $in $nin $gt $gte $lt $lte $exists $and $or $not``.
A bare value means ``$eq``; several keys in one object are ANDed. When the
metadata value is a list, ``$eq``/``$in`` match if any element matches and
``$ne``/``$nin`` if none does. Strings in ISO date form compare as dates.

``parse`` turns a dict into a tree of ``Condition``/``And``/``Or``/``Not``;
errors name the offending path (``$or[1].year.$gte``). Stores either
translate the tree to their native form or call ``evaluate``.

``$and``, ``$or`` and ``$not`` nest at most :data:`MAX_DEPTH` (32) deep: a
deeper filter is a ``FilterError``, not a ``RecursionError`` in ``parse``,
``evaluate`` or a store's translation, all of which recurse once per level.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

from .errors import FilterError, UnsupportedFilterError

__all__ = [
    "ALL_OPERATORS",
    "MAX_DEPTH",
    "And",
    "Condition",
    "Filter",
    "Not",
    "Or",
    "beyond",
    "check_supported",
    "conditions",
    "evaluate",
    "fields",
    "operators",
    "to_spec",
    "parse",
]

FIELD_OPERATORS = frozenset({"$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$exists"})
LOGICAL_OPERATORS = frozenset({"$and", "$or", "$not"})
ALL_OPERATORS = FIELD_OPERATORS | LOGICAL_OPERATORS

MAX_DEPTH = 32
"""How deep ``$and``, ``$or`` and ``$not`` may nest in a filter. A tree built in
code (``And``/``Or``/``Not`` objects) may nest ``2 * MAX_DEPTH + 1`` nodes deep:
the most ``parse`` builds, since an object with several keys adds an ``And``."""
_MAX_TREE_DEPTH = 2 * MAX_DEPTH + 1

Scalar = Union[str, int, float, bool, None]


@dataclass(frozen=True)
class Condition:
    field: str
    op: str
    value: Any


@dataclass(frozen=True)
class And:
    items: tuple[Filter, ...]


@dataclass(frozen=True)
class Or:
    items: tuple[Filter, ...]


@dataclass(frozen=True)
class Not:
    item: Filter


Filter = Union[Condition, And, Or, Not]


def parse(spec: Mapping[str, Any] | Filter | None, path: str = "") -> Filter | None:
    """Parse and validate a filter dict; ``None`` or ``{}`` mean no filter.

    A tree given as is (``Condition``/``And``/``Or``/``Not``) is returned as
    is, once its depth is checked. Raises ``FilterError`` naming the path of
    what is wrong, also for ``$and``/``$or``/``$not`` nested deeper than
    :data:`MAX_DEPTH`.
    """
    if isinstance(spec, (Condition, And, Or, Not)):
        _check_tree_depth(spec)
        return spec
    return _parse(spec, path, 0)


def _parse(spec: Mapping[str, Any] | None, path: str, depth: int) -> Filter | None:
    """``parse`` at ``depth`` logical operators below the top."""
    if spec is None:
        return None
    if not isinstance(spec, Mapping):
        raise FilterError(f"filter{_at(path)} must be an object, got {type(spec).__name__}")
    if not spec:
        return None
    items: list[Filter] = []
    for key, value in spec.items():
        here = f"{path}.{key}" if path else str(key)
        if not isinstance(key, str) or not key:
            raise FilterError(f"filter key {key!r}{_at(path)} must be a non-empty string")
        if key in LOGICAL_OPERATORS and depth >= MAX_DEPTH:
            raise FilterError(
                f"{here}: $and, $or and $not nest more than {MAX_DEPTH} levels deep here; "
                "flatten the filter (keys of one object are ANDed, and $in replaces an $or "
                "of equalities)"
            )
        if key in ("$and", "$or"):
            if not isinstance(value, Sequence) or isinstance(value, (str, bytes)) or not value:
                raise FilterError(f"{here}: {key} takes a non-empty list of filters")
            parts = [_parse(v, f"{here}[{i}]", depth + 1) for i, v in enumerate(value)]
            kids = tuple(p for p in parts if p is not None)
            if key == "$or" and len(kids) < len(parts):
                continue  # an empty alternative matches everything
            if kids:
                items.append(And(kids) if key == "$and" else Or(kids))
        elif key == "$not":
            inner = _parse(value, here, depth + 1)
            if inner is None:
                raise FilterError(f"{here}: $not takes a non-empty filter")
            items.append(Not(inner))
        elif key.startswith("$"):
            raise FilterError(
                f"{here}: unknown operator {key!r} at the top level; use a field name, "
                "or one of $and, $or, $not"
            )
        else:
            items.extend(_parse_field(key, value, here))
    if not items:
        return None
    return items[0] if len(items) == 1 else And(tuple(items))


def _check_tree_depth(node: Filter) -> None:
    """Raise ``FilterError`` when a tree nests ``And``/``Or``/``Not`` more than
    ``2 * MAX_DEPTH + 1`` deep (walked without recursion)."""
    stack: list[tuple[Filter, int]] = [(node, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Condition):
            continue
        if depth >= _MAX_TREE_DEPTH:
            raise FilterError(
                f"filter tree nests And/Or/Not more than {_MAX_TREE_DEPTH} levels deep; "
                f"build a flatter one (a filter dict may nest $and/$or/$not {MAX_DEPTH} deep)"
            )
        kids = (item.item,) if isinstance(item, Not) else item.items
        stack.extend((kid, depth + 1) for kid in kids)


def _parse_field(name: str, value: Any, path: str) -> list[Filter]:
    if not isinstance(value, Mapping):
        return [Condition(name, "$eq", _check_scalar(value, path))]
    if not value:
        raise FilterError(f"{path}: empty operator object; write e.g. {{'$eq': 1}}")
    out: list[Filter] = []
    for op, arg in value.items():
        here = f"{path}.{op}"
        if op not in FIELD_OPERATORS:
            hint = (
                "" if not op.startswith("$") else f"; known: {', '.join(sorted(FIELD_OPERATORS))}"
            )
            raise FilterError(f"{here}: unknown field operator {op!r}{hint}")
        if op in ("$in", "$nin"):
            if not isinstance(arg, Sequence) or isinstance(arg, (str, bytes)):
                raise FilterError(f"{here}: {op} takes a list of values")
            arg = tuple(_check_scalar(v, f"{here}[{i}]") for i, v in enumerate(arg))
        elif op == "$exists":
            if not isinstance(arg, bool):
                raise FilterError(f"{here}: $exists takes true or false")
        elif op in ("$gt", "$gte", "$lt", "$lte"):
            if isinstance(arg, bool) or not isinstance(arg, (int, float, str)):
                raise FilterError(f"{here}: {op} takes a number or a string (ISO date)")
            _check_finite(arg, here)
        else:
            arg = _check_scalar(arg, here)
        out.append(Condition(name, op, arg))
    return out


def _check_scalar(value: Any, path: str) -> Scalar:
    if value is None or isinstance(value, (str, int, float, bool)):
        _check_finite(value, path)
        return value
    raise FilterError(
        f"{path}: filter values must be strings, numbers, booleans or null, "
        f"got {type(value).__name__}"
    )


def _check_finite(value: Any, path: str) -> None:
    """Refuse NaN and the infinities (``NaN`` in a ``--filter``: not JSON,
    though Python's reader takes it): no value equals or orders against NaN,
    so the filter would silently match nothing."""
    if isinstance(value, float) and not math.isfinite(value):
        said = "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
        raise FilterError(
            f"{path}: {said} is not a value a filter can compare (NaN and "
            "Infinity are not JSON, and nothing equals or orders against NaN); "
            "give a finite number"
        )


def _at(path: str) -> str:
    return f" at {path}" if path else ""


def operators(node: Filter | None) -> set[str]:
    """Every operator a filter tree uses."""
    if node is None:
        return set()
    if isinstance(node, Condition):
        return {node.op}
    if isinstance(node, Not):
        return {"$not"} | operators(node.item)
    found = {"$and" if isinstance(node, And) else "$or"}
    for item in node.items:
        found |= operators(item)
    return found


def to_spec(node: Filter | None) -> dict[str, Any] | None:
    """The filter as the JSON-able dict it parses from (for explanations and
    logs): ``parse(to_spec(node)) == node`` up to the order of an ``$and``."""
    if node is None:
        return None
    if isinstance(node, Condition):
        value = list(node.value) if isinstance(node.value, tuple) else node.value
        return {node.field: {node.op: value}}
    if isinstance(node, Not):
        return {"$not": to_spec(node.item)}
    key = "$and" if isinstance(node, And) else "$or"
    return {key: [to_spec(item) for item in node.items]}


def beyond(where: Filter | None, own: Filter | None) -> Filter | None:
    """What ``where`` asks beyond a store's own filter ``own``, which the
    pipeline puts first in it (``ragloom.access.restrict``): None when it asks
    nothing more, ``where`` itself when ``own`` is not part of it."""
    if own is None or where is None:
        return where
    if where == own:
        return None
    if isinstance(where, And) and where.items and where.items[0] == own:
        rest = where.items[1:]
        return None if not rest else rest[0] if len(rest) == 1 else And(rest)
    return where


def conditions(node: Filter | None) -> Iterator[Condition]:
    """Every condition of a filter tree, in order."""
    if node is None:
        return
    if isinstance(node, Condition):
        yield node
    elif isinstance(node, Not):
        yield from conditions(node.item)
    else:
        for item in node.items:
            yield from conditions(item)


def fields(node: Filter | None) -> set[str]:
    """Every metadata field a filter tree reads."""
    return {condition.field for condition in conditions(node)}


def check_supported(node: Filter | None, supported: frozenset[str], store: str) -> None:
    """Raise ``UnsupportedFilterError`` naming the operators ``store`` cannot express."""
    missing = operators(node) - supported - {"$and"}
    if missing:
        raise UnsupportedFilterError(
            f"store {store!r} cannot apply filter operator(s) {', '.join(sorted(missing))}; "
            "rewrite the filter without them or use a store that supports them "
            "(no condition is ever dropped)"
        )


_MISSING = object()


def evaluate(node: Filter | None, metadata: Mapping[str, Any]) -> bool:
    """True if ``metadata`` matches the filter."""
    if node is None:
        return True
    if isinstance(node, And):
        return all(evaluate(item, metadata) for item in node.items)
    if isinstance(node, Or):
        return any(evaluate(item, metadata) for item in node.items)
    if isinstance(node, Not):
        return not evaluate(node.item, metadata)
    value = metadata.get(node.field, _MISSING)
    op, arg = node.op, node.value
    if op == "$exists":
        return (value is not _MISSING) == arg
    if value is _MISSING:
        return op in ("$ne", "$nin")
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if op == "$eq":
        return any(_equal(v, arg) for v in values)
    if op == "$ne":
        return not any(_equal(v, arg) for v in values)
    if op == "$in":
        return any(_equal(v, a) for v in values for a in arg)
    if op == "$nin":
        return not any(_equal(v, a) for v in values for a in arg)
    return any(_compare(v, op, arg) for v in values)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b)
    return bool(a == b)


def _as_date(value: Any) -> _dt.datetime | None:
    if not isinstance(value, str) or len(value) < 10 or value[4:5] != "-":
        return None
    try:
        parsed = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=_dt.timezone.utc)


def _compare(value: Any, op: str, arg: Any) -> bool:
    left, right = value, arg
    if isinstance(arg, str):
        dl, dr = _as_date(value), _as_date(arg)
        if dl is not None and dr is not None:
            left, right = dl, dr
        elif not isinstance(value, str):
            return False
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if op == "$gt":
        return bool(left > right)
    if op == "$gte":
        return bool(left >= right)
    if op == "$lt":
        return bool(left < right)
    return bool(left <= right)


def why_nothing_matched(
    pipeline: Any, query: str, spec: Mapping[str, Any], principals: Sequence[str] | None = None
) -> str:
    """Why the filter ``spec`` may have matched nothing for ``query``, from the
    pipeline's best hits without it: a field none of them has (a typo:
    `udpated`), or one whose values are of another type than the filter's
    (`"2025"` against numbers). Empty when neither."""
    import difflib

    wanted: dict[str, set[str]] = {}  # each field, and the kinds of what it is compared with
    for condition in conditions(parse(spec)):
        kinds = wanted.setdefault(condition.field, set())
        values = condition.value if isinstance(condition.value, list) else [condition.value]
        kinds.update(_kind(v) for v in values if v is not None and not isinstance(v, bool))
    if not wanted:
        return ""
    sample = pipeline.retrieve(query, None, 20, principals=principals)
    held: dict[str, set[str]] = {}
    for hit in sample:
        for name, value in hit.chunk.metadata.items():
            held.setdefault(name, set()).add(_kind(value))
    if not held:
        return ""
    notes = []
    for name, kinds in wanted.items():
        if name not in held:
            close = difflib.get_close_matches(name, list(held), n=1)
            notes.append(
                f"none of the best {len(sample)} chunks without the filter has a field "
                f"`{name}`" + (f" (did you mean `{close[0]}`?)" if close else "")
            )
        elif kinds and held[name] - {"null", "list"} and not kinds & held[name]:
            # (a list field matches a value equal to one of its items)
            notes.append(
                f"`{name}` holds {' or '.join(sorted(held[name] - {'null'}))} values, and the "
                f"filter compares it with {' or '.join(sorted(kinds))}"
            )
    return "; ".join(notes)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    return "string" if isinstance(value, str) else "list" if isinstance(value, list) else "other"
