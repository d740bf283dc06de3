"""Metadata held as numpy columns, so that a filter is a few array operations.

``Columns(rows)`` keeps the metadata mappings of a store's rows and builds a
field's column the first time a filter names that field. A column flattens
the field's values into *elements*: a scalar is one element, a list one
element per item, a missing field none; ``element_row`` says which row each
element belongs to. Each element is typed once, at build time:

- numbers (``int``/``float``, never ``bool``) as float64, NaN elsewhere;
- booleans as int8 (1, 0; -1 elsewhere), ``None`` as a boolean mask;
- strings as codes into the sorted list of the field's distinct strings, so
  that equality is a table lookup and an order comparison a range of codes;
  each distinct string is parsed as an ISO date once (microseconds since
  the epoch, exact).

A condition is evaluated on the elements and reduced to rows: ``$eq``,
``$in`` and the comparisons match a row if any of its elements does,
``$ne``/``$nin`` if none does. That is ``ragloom.filters.evaluate``, row by
row; whatever a column cannot represent exactly (other value types, nested
lists, integers beyond 2**53, conditions a hand-built tree may hold that
``parse`` would reject) is evaluated by ``evaluate`` itself, row by row.
"""

from __future__ import annotations

import datetime as _dt
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...filters import And, Condition, Filter, Not, Or, _as_date, evaluate

__all__ = ["Columns"]

_EXACT = 2**53  # integers up to this magnitude are exact in float64
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_MICROSECOND = _dt.timedelta(microseconds=1)
_MISSING = object()
_NONE, _BOOL, _INT, _FLOAT, _STR, _OTHER = range(6)
_TYPES = {type(None): _NONE, bool: _BOOL, int: _INT, float: _FLOAT, str: _STR}
_COMPARISONS = ("$gt", "$gte", "$lt", "$lte")
_COMPARE = {"$gt": np.greater, "$gte": np.greater_equal, "$lt": np.less, "$lte": np.less_equal}


def _micros(moment: _dt.datetime) -> int:
    return (moment - _EPOCH) // _MICROSECOND


def _plain(value: Any) -> bool:
    """A filter argument the columns compare exactly."""
    kind = _TYPES.get(type(value), _OTHER)
    return kind != _OTHER and (kind != _INT or -_EXACT <= value <= _EXACT)


class _Column:
    """One field's values, flattened into typed element arrays."""

    def __init__(self, rows: Sequence[Mapping[str, Any]], name: str) -> None:
        n = len(rows)
        present_rows: list[int] = []
        element_row: list[int] = []
        values: list[Any] = []
        listed = False
        for i, metadata in enumerate(rows):
            value = metadata.get(name, _MISSING)
            if value is _MISSING:
                continue
            present_rows.append(i)
            if isinstance(value, (list, tuple)):
                listed = True
                element_row.extend([i] * len(value))
                values.extend(value)
            else:
                element_row.append(i)
                values.append(value)
        self.n = n
        self.present = np.zeros(n, dtype=bool)
        self.present[present_rows] = True
        self.element_row = np.asarray(element_row, dtype=np.intp)
        # every row holds exactly one scalar: element i is row i
        self.identity = not listed and len(values) == n
        kinds = np.fromiter(
            (_TYPES.get(type(v), _OTHER) for v in values), dtype=np.int8, count=len(values)
        )
        self.exact = not (kinds == _OTHER).any() and all(
            -_EXACT <= values[j] <= _EXACT for j in np.flatnonzero(kinds == _INT)
        )
        m = len(values)
        self.null = kinds == _NONE
        self.boolean = np.full(m, -1, dtype=np.int8)
        at = np.flatnonzero(kinds == _BOOL)
        self.boolean[at] = [values[j] for j in at]
        self.number = np.full(m, np.nan, dtype=np.float64)
        at = np.flatnonzero((kinds == _INT) | (kinds == _FLOAT))
        if self.exact:
            self.number[at] = [values[j] for j in at]
        at = np.flatnonzero(kinds == _STR)
        codes: dict[str, int] = {}
        first = [codes.setdefault(values[j], len(codes)) for j in at]
        self.strings = sorted(codes)
        self.code_of = {s: c for c, s in enumerate(self.strings)}
        remap = np.empty(len(codes), dtype=np.intp)
        remap[[codes[s] for s in self.strings]] = np.arange(len(codes))
        # codes shifted by one: 0 means "not a string", so a lookup table's slot 0 is False
        self.code = np.zeros(m, dtype=np.intp)
        self.code[at] = remap[np.asarray(first, dtype=np.intp)] + 1
        dates = [_as_date(s) for s in self.strings]
        self.is_date = np.array([d is not None for d in dates], dtype=bool)
        self.date = np.array([0 if d is None else _micros(d) for d in dates], dtype=np.int64)

    # -- element masks -------------------------------------------------------
    def _lookup(self, table: np.ndarray) -> np.ndarray:
        """Elements whose string's code is marked in ``table`` (one slot per string)."""
        return np.concatenate(([False], table))[self.code]

    def _strings_equal(self, wanted: Sequence[str]) -> np.ndarray:
        table = np.zeros(len(self.strings), dtype=bool)
        table[[self.code_of[s] for s in wanted if s in self.code_of]] = True
        return self._lookup(table)

    def equal_any(self, args: Sequence[Any]) -> np.ndarray:
        """Elements equal to any of ``args`` (``ragloom.filters._equal``)."""
        found = np.zeros(len(self.code), dtype=bool)
        strings = [a for a in args if type(a) is str]
        if strings:
            found |= self._strings_equal(strings)
        numbers = [float(a) for a in args if type(a) in (int, float)]
        if numbers:
            found |= np.isin(self.number, numbers)
        for flag in {a for a in args if type(a) is bool}:
            found |= self.boolean == int(flag)
        if any(a is None for a in args):
            found |= self.null
        return found

    def compare(self, op: str, arg: Any) -> np.ndarray:
        """Elements for which ``element <op> arg`` (``ragloom.filters._compare``)."""
        if type(arg) is not str:  # a number: only numbers compare (NaN elsewhere)
            return _COMPARE[op](self.number, float(arg))
        table = np.zeros(len(self.strings), dtype=bool)
        if op == "$gt":
            table[bisect_right(self.strings, arg) :] = True
        elif op == "$gte":
            table[bisect_left(self.strings, arg) :] = True
        elif op == "$lt":
            table[: bisect_left(self.strings, arg)] = True
        else:
            table[: bisect_right(self.strings, arg)] = True
        moment = _as_date(arg)
        if moment is not None:  # dates compare as dates, other strings as strings
            as_dates = _COMPARE[op](self.date, _micros(moment))
            table = np.where(self.is_date, as_dates, table)
        return self._lookup(table)

    def any_row(self, elements: np.ndarray) -> np.ndarray:
        """Rows with at least one element marked in ``elements``."""
        if self.identity:
            return elements
        rows = np.zeros(self.n, dtype=bool)
        rows[self.element_row[elements]] = True
        return rows


class Columns:
    """The metadata of a store's rows, evaluated column-wise against filters.

    ``rows`` is held, not copied: build a new ``Columns`` after any write.
    """

    def __init__(self, rows: Sequence[Mapping[str, Any]]) -> None:
        self._rows = rows
        self._columns: dict[str, _Column] = {}

    def __len__(self) -> int:
        return len(self._rows)

    def column(self, name: str) -> _Column:
        column = self._columns.get(name)
        if column is None:
            column = self._columns[name] = _Column(self._rows, name)
        return column

    def mask(self, where: Filter | None) -> np.ndarray:
        """A fresh boolean array: row ``i`` is True iff ``evaluate(where, rows[i])``."""
        if where is None:
            return np.ones(len(self._rows), dtype=bool)
        if isinstance(where, And):
            result = np.ones(len(self._rows), dtype=bool)
            for item in where.items:
                result &= self.mask(item)
            return result
        if isinstance(where, Or):
            result = np.zeros(len(self._rows), dtype=bool)
            for item in where.items:
                result |= self.mask(item)
            return result
        if isinstance(where, Not):
            return ~self.mask(where.item)
        if isinstance(where, Condition):
            fast = self._condition(where)
            if fast is not None:
                return fast
        return np.fromiter(
            (evaluate(where, metadata) for metadata in self._rows),
            dtype=bool,
            count=len(self._rows),
        )

    def _condition(self, cond: Condition) -> np.ndarray | None:
        """The condition's row mask, or None where only ``evaluate`` is exact."""
        op, arg = cond.op, cond.value
        if op == "$exists":
            if type(arg) is not bool:
                return None
            present = self.column(cond.field).present
            return present.copy() if arg else ~present
        if op in ("$eq", "$ne"):
            args: Any = (arg,)
        elif op in ("$in", "$nin"):
            args = arg
            if type(args) not in (tuple, list):
                return None
        elif op in _COMPARISONS:
            if type(arg) not in (int, float, str):
                return None
            args = (arg,)
        else:
            return None
        if not all(_plain(a) for a in args):
            return None
        column = self.column(cond.field)
        if not column.exact:
            return None
        if op in _COMPARISONS:
            return column.any_row(column.compare(op, arg))
        matched = column.any_row(column.equal_any(args))
        return ~matched if op in ("$ne", "$nin") else matched
