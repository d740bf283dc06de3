"""How a chosen unit is said in the answer: a changelog line with its
release, a record's field with the rest of its record, a twin with what
tells its document apart, a table row with its columns, a command in
backticks, a step with its number, a sentence with the heading that names
what the question names, and a FAQ's "Yes," before its reason.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence, Set

from ...terminal import clean
from ._columns import _asked_columns, _with_columns
from ._lists import clause_asked
from ._releases import _change_type
from ._structure import _heading_names, _is_line_of, _plain_heading
from ._units import _record_fields, _Unit

__all__ = ["unit_said"]


def unit_said(
    unit: _Unit,
    *,
    told: MutableMapping[str, str],
    years: set[str],
    names: Sequence[str],
    replied: bool,
    asked: Set[str] = frozenset(),
    kind: str | None = None,
    months: Set[int] = frozenset(),
) -> tuple[str, list[str]]:
    """What the answer says of ``unit`` (free of terminal control: a quote is
    verbatim as the document reads, without the escape sequences), and the
    lines of its chunk it quotes besides the unit's own pieces. ``told``:
    what tells each chunk's document apart from its twins' (said once, then
    taken out); ``replied``: the unit's FAQ reply answers this question;
    ``asked``, ``kind``, ``months``: the question's content terms, the kind
    of answer it asks and the months it names (a row is said with the
    columns it names; a sentence that prices several things, with the
    clause of the one asked of, and quoted whole)."""
    quotes: list[str] = []
    # each piece verbatim in the quote; a heading joined by a colon in the answer
    said = unit.text
    if kind in ("money", "much") and asked and unit.kind in ("sentence", "bullet"):
        said = _clause_asked(unit, asked)
    if unit.lead:  # a heading from the section metadata is said, not quoted
        label = [unit.release]
        if unit.released and unit.released != unit.text:
            label.append(unit.released)
        if _change_type(unit.heading):
            label.append(unit.heading.rstrip(": "))  # "[1.2.0] - 2026-02-02, Fixed: ..."
        quotes.extend(p for p in label if _is_line_of(p, unit.chunk.text))
        said = f"{', '.join(label)}: {said}"
    elif record := _record_fields(unit):
        # "Canada: method: Express; delivery_time: 3-4 business days; cost:
        # CA$29.95": a record's field is said with the rest of its record
        head, fields = record
        if head:
            quotes.append(head)
        quotes.extend(f for f in fields if f != unit.text)
        said = "; ".join(fields) if not head else f"{head}: {'; '.join(fields)}"
    elif unit.chunk.id in told:  # "Berlin (office): Employees receive 14 weeks ..."
        said = f"{told.pop(unit.chunk.id)}: {said}"
    elif unit.columns:  # "Plan: Basic; Joining fee: £20", not "Basic | £24.99 | £20"
        said = _with_columns(unit, _asked_columns(unit, years, asked, kind, months))
    elif unit.kind == "code" and "`" not in said:
        said = f"`{said}`"  # a command, as written: no sentence's period inside it
    elif unit.step:  # "2. Choose the order ...": the procedure's own numbers
        said = f"{unit.step} {said}"
    elif _heading_names(unit, [*names, *sorted(years)]):
        # "Hollin Island – Tarrow: Crossing time: 40 minutes.": the
        # heading says which of the things the question names it is of
        if _is_line_of(unit.heading, unit.chunk.text):
            quotes.append(unit.heading)
        said = f"{_plain_heading(unit.heading)}: {said}"
    if replied:
        quotes.append(unit.reply)
        said = f"{unit.reply} {said}"
    return clean(said), quotes


def _clause_asked(unit: _Unit, asked: Set[str]) -> str:
    """The unit as said where one of its sentences prices several things and
    the question names one of them: that sentence's clause of it ("The Loft
    £1,200"), the rest of the unit as written."""
    pieces = unit.pieces or (unit.text,)
    clauses = [clause_asked(piece, asked) for piece in pieces]
    if sum(c is not None for c in clauses) != 1:
        return unit.text
    said = [
        p if c is None else c + ("." if p.rstrip()[-1:] in ".!?" else "")
        for c, p in zip(clauses, pieces)
    ]
    return " ".join(said)
