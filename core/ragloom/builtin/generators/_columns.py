"""How a table row is said: cell by cell after its columns' names, with the
columns the question asks (those it names, of the years and months it names,
with a range's other end), or all of them.
"""

from __future__ import annotations

import re
from collections.abc import Set

from ._figures import fits_kind
from ._groups import _groups_in
from ._text import GENERIC_STEMS, TOKEN, content_terms, stem
from ._units import _column_terms, _Unit
from ._versions import YEAR as _YEAR


def _with_columns(unit: _Unit, only: set[int] | None = None) -> str:
    """A table row said cell by cell after its column's name ("Room type:
    Harbour Suite; Rate (high season): €295"): a row's bare figures do not
    say which is which. An empty cell is left out, its column with it; the
    row is said as it is when its cells do not line up with the names.
    ``only``: the columns said besides the label (the first), all when None."""
    cells, names = unit.cells, unit.columns
    if len(cells) != len(names) or len(cells) < 2:
        return unit.text
    return "; ".join(
        f"{name}: {cell}" if name and name != cell else cell
        for number, (name, cell) in enumerate(zip(names, cells))
        if cell and (only is None or number == 0 or number in only)
    )


def _asked_columns(
    unit: _Unit,
    years: set[str],
    asked: Set[str] = frozenset(),
    kind: str | None = None,
    months: Set[int] = frozenset(),
) -> set[int] | None:
    """The columns of a row to say besides its label (None: all of them):
    of a row whose columns are of years, those of the years the question
    names, or of no year ("the per-diem in Austin in 2025": another year's
    cell answers another question); of a row whose columns are of spans of
    months, those of the months it names (``months``, 1 to 12); of those, the
    columns the question names the most of (``asked``, its content terms):
    "how many can the Wheelhouse seat for dinner?" is answered by "Dinner
    capacity: 50", not with the evening's 70 beside it."""
    if len(unit.cells) != len(unit.columns):
        return None
    kept = set(range(1, len(unit.columns)))
    if years:
        of_years = {number: set(_YEAR.findall(name)) for number, name in enumerate(unit.columns)}
        if any(said & years for said in of_years.values()):
            kept = {number for number in kept if not of_years[number] or of_years[number] & years}
    if months:
        # "a Friday wedding in November": the "Off-peak (October – April)"
        # column, not "Peak season (May – September)"
        spans = {number: _month_span(unit.columns[number]) for number in kept}
        if any(months & span and unit.cells[n] for n, span in spans.items()):
            # (of a month column with a value: an empty one says the row is not then)
            kept = {number for number in kept if not spans[number] or months & spans[number]}
            # (its months name no column then: "from May to October" keeps
            # both seasons, not the one whose name says "October")
            asked = set(asked) - _MONTH_TERMS
    named = _named_columns(unit, kept, asked, kind)
    # "per hour for a charity": the column of the group asked ("Charities: £9")
    # is its price, not the one for everyone beside it ("Per hour: £18")
    of_group = {
        number
        for number in kept
        if {stem(group) for group in _groups_in(unit.columns[number])} & set(asked)
    }
    if of_group and len(of_group) < len(kept):
        narrower = of_group & named if named else of_group
        if narrower and (not named or len(narrower) < len(named)):
            named = narrower
    if named:
        # the cell that names the row where its label does not ("Which
        # semester is Distributed Systems in?" under "Credits | Module | ...")
        named |= {
            number
            for number in kept
            if (said := set(content_terms(unit.cells[number])))
            and said <= asked
            and not all(term.isdigit() for term in said)
        }
    kept = named or kept
    return None if len(kept) == len(unit.columns) - 1 else kept


_MONTH_NUMBER = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}  # fmt: skip


_MONTH_NAME = "|".join(sorted(_MONTH_NUMBER, key=len, reverse=True))


_MONTH_RANGE = re.compile(
    rf"\b({_MONTH_NAME})\b\.?\s*(?:-|–|—|to|until|till)\s*\b({_MONTH_NAME})\b", re.IGNORECASE
)


_MONTHS_BETWEEN = re.compile(
    rf"\bbetween\s+({_MONTH_NAME})\b\.?\s+and\s+({_MONTH_NAME})\b", re.IGNORECASE
)


def asked_months(question: str) -> frozenset[int]:
    """The months a question names ("in November": 11; "from October to
    April": each between); not "may" nor "mar" alone."""
    spans = frozenset().union(
        *(
            _spanned(found)
            for pattern in (_MONTH_RANGE, _MONTHS_BETWEEN)
            for found in pattern.finditer(question)
        )
    )
    return spans | frozenset(
        _MONTH_NUMBER[word.lower()]
        for word in TOKEN.findall(question)
        if word.lower() in _MONTH_NUMBER and word.lower() not in {"may", "mar"}
    )


_MONTH_TERMS = frozenset(stem(name) for name in _MONTH_NUMBER)
"""The words of months (their stems)."""


def _month_span(name: str) -> frozenset[int]:
    """The months a column's name spans ("Off-peak (October – April)":
    10, 11, 12, 1, 2, 3, 4; "High season (1 May – 30 Sep)" as a row's label
    would); none where it names no span of months."""
    found = _MONTH_RANGE.search(name)
    return _spanned(found) if found else label_months(name)


def _spanned(found: re.Match[str]) -> frozenset[int]:
    """The months from one month to another ("October – April"), both ends too."""
    first, last = (_MONTH_NUMBER[found.group(i).lower()] for i in (1, 2))
    return frozenset((first - 1 + step) % 12 + 1 for step in range((last - first) % 12 + 1))


def _named_columns(unit: _Unit, among: set[int], asked: Set[str], kind: str | None) -> set[int]:
    """Of the row's columns ``among``, those whose names say the most of the
    question's terms ``asked`` (not the words of its cells: "Saturday" names
    the row, not a column; nor of its headings), when that is fewer than all
    of them; none where the question names no column, where a column named
    holds only under a
    condition ("Early bird (sign up by 31 January)"), or where the question
    asks a figure (``kind``) that only a column left out holds (``fits_kind``)."""
    cells = {t for cell in unit.cells for t in content_terms(cell)}
    # (nor those of its headings: "the limits for /v1/webhooks" under "Rate
    # limits by endpoint" asks the whole row, not a "burst_limit")
    words = {t for t in asked if t not in cells | unit.outer and t not in GENERIC_STEMS}
    named = {
        number: len(words & _column_terms(unit.columns[number]))
        for number in among
        if unit.cells[number]
    }
    most = max(named.values(), default=0)
    if not most:
        return set()
    kept = {number for number, count in named.items() if count == most}
    if len(kept) == len(named):
        return set()
    if any(_CONDITION.search(unit.columns[number]) for number in kept):
        # "Early bird (sign up by 31 January)": whether the asker meets it
        # is theirs to see, beside the price without it
        return set()
    fits = {number for number in named if fits_kind(kind, unit.cells[number])}
    if fits and not fits & kept:
        return set()  # "how long can I borrow a DVD?": the figure is in a column not named
    # a range's other end with its one ("Opens: 9am; Closes: 5pm" for the
    # hours the library is open)
    ends = {end for number in kept for end in _ends(unit.columns[number])}
    return kept | {number for number in named if _ends(unit.columns[number]) & ends}


_CONDITION = re.compile(r"\b(?:by|if|until|till|before|after|when|unless|only)\b", re.IGNORECASE)
"""A word of a column's name that says when its cells apply."""


def _ends(name: str) -> set[str]:
    """The ranges whose one end a column's name says ("Opens": the opening
    hours'; "To", a name of that one word: a span's)."""
    lowered = name.lower()
    words = set(TOKEN.findall(lowered.replace("check-", "check")))
    if len(words) == 1:
        words |= {f"={word}" for word in words}
    return {pair for pair, (one, other) in _RANGE_ENDS.items() if words & (one | other)}


_RANGE_ENDS = {
    "open": (frozenset({"open", "opens", "opening"}), frozenset({"close", "closes", "closing"})),
    "start": (
        frozenset({"start", "starts", "begin", "begins", "=from"}),
        frozenset({"end", "ends", "finish", "finishes", "=to", "=until"}),
    ),
    "most": (
        frozenset({"min", "minimum", "lowest", "earliest"}),
        frozenset({"max", "maximum", "highest", "latest"}),
    ),
    "arrive": (
        frozenset({"arrive", "arrives", "arrival"}),
        frozenset({"depart", "departs", "departure"}),
    ),
    "check": (frozenset({"checkin"}), frozenset({"checkout"})),
}
"""Words of column names that say the two ends of one range: "Opens" and
"Closes", "Minimum" and "Maximum", "From" and "To" (as the whole name)."""


_LABEL_MONTH = re.compile(
    r"\b(?:(?P<month>january|february|march|april|may|june|july|august|september|october"
    r"|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?|(?P<easter>easter)"
    r"|(?P<christmas>christmas))\b"
    # (not a name: "April Jones", "May Chen")
    r"(?!\s+(?-i:(?!(?:January|February|March|April|May|June|July|August|September|October"
    r"|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Bank|Day|Eve|Holidays?|Week|Weekend|Period|Season|Term)\b)"
    r"[A-Z][a-z]))",
    re.IGNORECASE,
)
_SPAN_BETWEEN = re.compile(
    r"^\s*(?:\d{1,2}(?:st|nd|rd|th)?\s*)?(?:-|–|—|to|until|till|through)\s*"
    r"(?:(?:early|mid|late|the end of|end of|\d{1,2}(?:st|nd|rd|th)?)\s*)?$",
    re.IGNORECASE,
)
_DATE_DAY = re.compile(
    r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[a-z]{3,9}\b(?!\s*(?:-|–|—|to|until|till)\b)"
    r"|\b[a-z]{3,9}\s+\d{1,2}(?:st|nd|rd|th)?\b(?!\s*(?:-|–|—|to|until|till)\b)",
    re.IGNORECASE,
)


def label_months(label: str) -> frozenset[int]:
    """The months a row's label names as a season: a span ("September to
    October", "1 November to 28 February", "Late May to early September",
    "Easter to June": Easter falls in March or April), a list ("July and
    August", "Jan, Feb, Mar"), or Easter (March and April) or Christmas
    (December and January) alone; none for a label that is a day ("31
    January": a date, not a season), nor for a name ("April Jones")."""
    # ("May" and "Mar" in capitals only: "Guests may stay" names no month)
    found = [
        match
        for match in _LABEL_MONTH.finditer(label)
        if not match.group("month") or match.group()[0].isupper() or len(match.group("month")) > 3
    ]
    if not found:
        return frozenset()
    if len(found) == 1 and _DATE_DAY.search(label) and found[0].group("month"):
        return frozenset()  # ("31 January", "Deadline: March 15")
    months: set[int] = set()
    spanned: set[int] = set()
    for i, match in enumerate(found):
        if match.group("easter"):
            months |= {3, 4}
        elif match.group("christmas"):
            months |= {12, 1}
        else:
            months.add(_MONTH_NUMBER[match.group("month").lower().rstrip(".")])
        if i and _SPAN_BETWEEN.match(label[found[i - 1].end() : match.start()]):
            first, last = (_month_of(found[i - 1], end=False), _month_of(match, end=True))
            spanned |= {(first - 1 + step) % 12 + 1 for step in range((last - first) % 12 + 1)}
    return frozenset(months | spanned)


def _month_of(match: re.Match[str], *, end: bool) -> int:
    """A label's month as a span's end (Easter: from March, until April;
    Christmas: from December, until January)."""
    if match.group("easter"):
        return 4 if end else 3
    if match.group("christmas"):
        return 1 if end else 12
    return _MONTH_NUMBER[match.group("month").lower().rstrip(".")]


_WEEKDAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_DAY_WORD = (
    r"(?:(mon|tue|wed|thu|fri|sat|sun)(?:days?|sdays?|nesdays?|rsdays?|urdays?)"
    # (a short form only where a schedule writes it: "Mon–Sat", "Sun 11am", "Tues,";
    # not "Sun Inn", "Sat beside the harbour")
    r"|(mon|tues?|weds?|thur?s?|fri|sat|sun)\.?(?=\s*(?:[-–—,:;/&|)]|to\b|and\b|until\b|till\b"
    r"|through\b|\d|$)))"
)
_DAY_NAME = re.compile(rf"\b{_DAY_WORD}", re.IGNORECASE)
_DAY_SPAN = re.compile(
    rf"\b(?:between\s+)?{_DAY_WORD}\s*(?:-|–|—|to|through|until|till|and)\s*{_DAY_WORD}",
    re.IGNORECASE,
)
_EVERY_DAY = re.compile(
    r"\b(?:daily|every day|everyday|7 days a week|seven days a week|all week|any day)\b",
    re.IGNORECASE,
)


def _day_index(full: str | None, short: str | None) -> int:
    return _WEEKDAY_NAMES.index((full or short or "")[:3].lower())


def days_said(text: str) -> frozenset[int] | None:
    """The days of the week a text names (0 for Monday), from names, spans
    ("Mon–Sat", "Friday to Monday"), "weekdays" and "weekends"; every day
    for "daily"; None where it names no day."""
    if _EVERY_DAY.search(text):
        return frozenset(range(7))
    days: set[int] = set()
    for match in _DAY_SPAN.finditer(text):
        first, last = _day_index(*match.group(1, 2)), _day_index(*match.group(3, 4))
        if match.group().lower().startswith("between") or re.search(
            r"(?:-|–|—|to|through|until|till)", match.group()
        ):
            days |= {(first + step) % 7 for step in range((last - first) % 7 + 1)}
    for match in _DAY_NAME.finditer(text):
        if match.group(2) and not match.group()[0].isupper():
            continue  # ("the dog sat in the sun.": a short form in capitals only)
        days.add(_day_index(*match.group(1, 2)))
    if re.search(r"\bweekdays?\b|\bworking days?\b", text, re.IGNORECASE):
        days |= set(range(5))
    if re.search(r"\bweekends?\b", text, re.IGNORECASE):
        days |= {5, 6}
    return frozenset(days) if days else None
