"""Measures and their bounds: whether a sentence's limit is of another measure
than the one a question asks.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterator, Sequence

from ._text import content_terms, stem

__all__ = [
    "as_measured",
    "band_of",
    "holds_measure",
    "leaves_out_measure",
    "measure_words",
    "measured_values",
    "measures_another",
    "prices_another_period",
    "without_measures",
]

_MEASURE = re.compile(r"(?<![\w.,£$€])(\d+(?:[.,]\d+)?)[\s-]*([a-z]+(?:/[a-z]+)?)\b", re.IGNORECASE)
_BOUNDS = frozenset(
    {"under", "over", "up", "to", "least", "most", "than", "within", "first", "after",
     "before", "from", "minimum", "maximum", "min", "max", "each", "every", "per", "extra",
     "additional", "another", "above", "below", "until", "till", "by", "last", "next",
     "about", "around", "approximately", "between", "and", "or", "plus", "x", "of"}
)  # fmt: skip
"""Words before a figure that make it a bound or a share, not what a thing is
("less than 24 hours", "up to 10 days", "a minimum stay of 3 nights")."""


_UNIT_WORDS = {
    "min": "minute", "mins": "minutes", "hr": "hour", "hrs": "hours", "yr": "year",
    "yrs": "years", "sec": "second", "secs": "seconds", "wk": "week", "wks": "weeks",
    "m": "metres",
}  # fmt: skip


def _measures(text: str) -> Iterator[tuple[str, str, bool]]:
    """Each figure with a unit after it ("90 minute", "30 minutes"): the
    figure, the unit's stem, and whether a bound comes just before it."""
    for value, unit, _ in _bounded_measures(text):
        yield value, unit, _ is not None


def _bounded_measures(text: str) -> Iterator[tuple[str, str, str | None]]:
    """``_measures`` with the bound itself: ``"upper"`` ("up to 10 m", "2 kg
    or less"), ``"upper strict"`` ("under 2 kg"), ``"lower"`` ("at least 3
    nights", "10 m and over"), ``"lower strict"`` ("over 10 m"), ``""`` for
    another ("per", "each", "between") and None for no bound."""
    low: tuple[str, str, int] | None = None  # a lower bound a range may start from
    # ("60 sq m", "60 m²": one unit, "sqm", not the "sq" of "500 sq ft")
    text = _SQUARE.sub(lambda m: f" sq{(m.group(1) or m.group(2))[0].lower()}", text)
    for match in _MEASURE.finditer(text):
        written = match.group(2).lower()
        # ("g/km": one unit, "gperkm"; "km" alone is another)
        unit = content_terms(_UNIT_WORDS.get(written, written.replace("/", "per")))
        if not unit:
            continue
        value = match.group(1).replace(",", "")
        lead = text[max(0, match.start() - 24) : match.start()].lower()
        # (the words, not what opens before them: "Dog castration (*under* 20 kg)")
        before = [w.lstrip("([{'\"") for w in lead.split()[-2:]]
        bound = None
        ranged = _RANGE_FROM.search(lead)
        if ranged is not None:  # "boats 8-12 m", "between 8 and 12 m": from its low end
            bound = f"range {ranged.group(1).replace(',', '')}"
        elif set(before) & _BOUNDS:
            way = _BOUND_WAY.search(lead)
            bound = "" if way is None else ("upper" if way.group(1) else "lower")
            if way is not None and _STRICT.match(way.group(1) or way.group(2)):
                bound += " strict"  # "under 10 m" holds no 10 m boat
            if unit[0].startswith(_DEADLINE_UNITS) and _DEADLINE.match(text, match.end()):
                bound = ""  # "up to 48 hours before check-in" is a deadline, not a size
        elif (after := _BOUND_AFTER.match(text, match.end())) is not None:
            # "10 m and over", "5 kg or more", "20 kg+", "2 kg or less"
            bound = "lower" if after.group(1) else "upper"
        if (
            bound is not None
            and bound.startswith("upper")
            and low is not None
            and low[1] == unit[0]
            and _JOINS_BOUNDS.fullmatch(text[low[2] : match.start()])
        ):
            # "over 2 kg and up to 10 kg": one range (the lower bound said none)
            bound = f"range {low[0]}"
        low = (value, unit[0], match.end()) if bound and bound.startswith("lower") else None
        yield value, unit[0], bound


_SQUARE = re.compile(
    r"\s*(?:\b(?:sq\.?|square)\s+(m|metres?|meters?|ft|feet|foot)\b|(m|ft)(?:²|2\b))",
    re.IGNORECASE,
)
"""An area's unit ("sq m", "square feet", "m²"), read as one word."""
_STRICT = re.compile(r"under|below|less than|over|above|more than")
"""Bounds that leave their own figure out ("under 10 m", "over 20 kg")."""
_BOUND_AFTER = re.compile(
    r"\s*(?:(\+|(?:and|or)\s+(?:over|above|more|longer|heavier|larger|greater|upwards)\b)"
    r"|(?:and|or)\s+(?:under|below|less|shorter|lighter|smaller|fewer)\b)",
    re.IGNORECASE,
)
"""A bound said after its figure: at least ("10 m and over", "20 kg+") or at
most ("2 kg or less")."""
_DEADLINE_UNITS = ("second", "minut", "hour", "day", "night", "week", "month", "year")
"""Units of time, as their terms begin (a deadline is a bound of time)."""
_JOINS_BOUNDS = re.compile(
    r"\s*(?:and|but|to|,)?\s*(?:up to|under|below|no more than|not more than|less than|at most)\s*",
    re.IGNORECASE,
)
"""What joins a range's two bounds ("over 2 kg *and up to* 10 kg")."""


_BOUND_WAY = re.compile(
    r"(?<![\w-])(?:(up to|under|below|no more than|not more than|less than|at most|maximum of"
    r"|maximum|max)|(over|above|no less than|not less than|more than|at least|minimum of"
    r"|minimum|min))\s+$"
)
"""A bound's way: at most (its first group) or at least (its second)."""
_DEADLINE = re.compile(r"\s+(?:before|after|prior|in advance|ahead|ago|of (?:the|your)\b)", re.I)
"""What makes a bound of time a deadline ("up to 48 hours *before* check-in")."""
_ASKS_LIMIT = re.compile(
    r"\b(?:minimum|maximum|min|max|limit|limits|at least|at most|longest|shortest|largest"
    r"|smallest)\b",
    re.IGNORECASE,
)
"""A question about a limit itself ("What is the minimum stay ...?")."""
_ASKS_PRICE = re.compile(r"\b(?:price|prices|cost|costs|fee|fees|charge|pay|much)\b", re.I)
"""(a limit of a price is no limit of the figure: "the maximum lift out price for a 12 m boat")"""


def _left_out_by(bound: str | None, value: str, asked: str) -> bool:
    """Whether a bound of ``value`` leaves out the ``asked`` figure ("up to 10
    m" a 12 m boat; "over 20 kg" a 5 kg parcel; "8-12 m" a 15 m boat)."""
    try:
        bound_value, asked_value = float(value), float(asked)
        low = float(bound.split()[1]) if bound and bound.startswith("range ") else None
    except ValueError:
        return False
    if low is not None:
        return not low <= asked_value <= bound_value
    if bound == "upper":
        return asked_value > bound_value
    if bound == "upper strict":
        return asked_value >= bound_value
    if bound == "lower":
        return asked_value < bound_value
    if bound == "lower strict":
        return asked_value <= bound_value
    return False


_RANGE_FROM = re.compile(
    r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?)\s*(?:[a-z]{1,6}\s*)?(?:-|–|to|and)\s*$", re.IGNORECASE
)
"""A range's low end just before its high one ("8-12 m", "between 8 and 12 m",
"10 m - 15 m")."""
_BEYOND = re.compile(
    r"\b(?:longer|larger|bigger|heavier|taller|wider|older|over that|above that|beyond that)\b",
    re.IGNORECASE,
)
"""What a sentence says of the figures past its bound ("£220 for *longer* boats")."""


@functools.lru_cache(maxsize=256)
def _asked_measures(question: str) -> frozenset[tuple[str, str]]:
    """The question's figures with their units, read once (every passage's
    unit is checked against them)."""
    return frozenset((v, u) for v, u, _ in _measures(_AN_AGE.sub(" ", question)))


_AN_AGE = re.compile(r"\b\d{1,3}[\s-]*(?:years?|yrs?|months?|weeks?)[\s-]*olds?\b", re.IGNORECASE)
"""An age ("my 4-year-old", "18 months old"): no measure of a thing (its band
is read as an age: ``_people.holds_age``)."""


def measures_another(text: str, question: str) -> bool:
    """Whether ``text`` gives another figure of a unit the question gives one
    of ("a 90 minute sports massage" and "Duration: 30 minutes"), and never
    the question's: it is about another thing. A bound ("less than 24 hours")
    is no other figure, unless it leaves the question's out ("up to 10 m" to
    "a 12 m boat")."""
    asked = _asked_measures(question)
    if not asked:
        return False
    units = {u for _, u in asked}
    # (a bound that leaves the asked figure out is another's: "Lift out, up to
    # 10 m" is no price for a 12 m boat; but not where the question asks the
    # limit, or bounds its own figure: "parcels under 5 kg")
    bounds_count = not (_ASKS_LIMIT.search(question) and not _ASKS_PRICE.search(question)) and all(
        not (b or "").startswith(("upper", "lower")) for _, _, b in _bounded_measures(question)
    )
    other = covered = False
    measures = list(_bounded_measures(text))
    for i, (value, unit, bound) in enumerate(measures):
        if unit not in units:
            continue
        if (value, unit) in asked and not (bound and _left_out_by(bound, value, value)):
            return False  # (but "Under 10 m" is no 10 m boat's)
        if (
            (bound or "").startswith("lower")
            and i + 1 < len(measures)
            and measures[i + 1][2] == f"range {value}"
        ):
            continue  # (the low end of "over 2 kg and up to 10 kg": its range says it)
        if bound is None:
            other = True
        elif bound and bounds_count:
            if all(_left_out_by(bound, value, v) for v, u in asked if u == unit):
                # ("... up to 10 metres and £220 for longer boats": both)
                other = other or _BEYOND.search(text) is None
            else:
                covered = True  # ("... and £220 for boats over 10 m")
    return other and not covered


def measured_values(question: str, units: Collection[str] = ()) -> set[str]:
    """The figures of the question's measures ("a 12 m boat": ``12``), of
    those ``units`` only where given (their stems, "metr", "kg")."""
    return {value for value, unit in _asked_measures(question) if not units or unit in units}


_CLAUSE_WORDS = re.compile(r"[^,;:?!()]*")


def measure_words(question: str) -> set[str]:
    """The words beside each of the question's measures, two either side
    within its clause ("if I *live* 10 miles *away*", "if I *cancel* 10 days
    before *arrival*"): what a band holding the figure says of it."""
    words: set[str] = set()
    if len(_asked_measures(question)) != 1:
        return words  # (a band holds one of two measures: "3 miles away and 40 kg")
    for match in _MEASURE.finditer(question):
        start = question.rfind(",", 0, match.start()) + 1
        end = _CLAUSE_WORDS.match(question, match.end()).end()  # type: ignore[union-attr]
        before = question[start : match.start()].split()[-2:]
        after = question[match.end() : end].split()[:2]
        words.update(content_terms(" ".join([*before, *after])))
    return words


def measured_units(question: str) -> set[str]:
    """The units of the question's measures (their stems: "mil", "kg")."""
    return {unit for _, unit in _asked_measures(question)}


_BAND_VALUES = frozenset(
    content_terms(
        "free included include extra charge charged charges pay paid cost costs fee fees price "
        "prices"
    )
)
"""What a yes/no question asks of a band's row ("Is delivery *free* ...?"),
which its value cell says, not what the row is of."""
_BAND_COLUMNS = frozenset(
    content_terms(
        "distance charge charges price prices fee fees cost costs weight length age notice "
        "refund size band rate amount time duration per night day week month year"
    )
)
"""Column names that say what a table measures, not what it is of."""


def band_of(
    columns: Sequence[str],
    cells: Sequence[str],
    holding: Collection[int],
    heading: str,
    asked: Collection[str],
    question: str,
) -> bool:
    """Whether a table's row whose cells ``holding`` are bands holding the
    question's figure is of what the question asks (``asked``, its terms):
    its columns or other cells say a word of it, beyond the measure and what
    is asked of the row ("Is delivery *free*?"); or, where its columns name
    no thing ("Distance | Charge"), its heading does ("## Installation")."""
    wanted = set(asked) - measured_values(question) - measured_units(question) - _BAND_VALUES
    named = set(content_terms(" ".join(columns)))
    about = named | {
        t for i, cell in enumerate(cells) if i not in holding for t in content_terms(cell)
    }
    if about & wanted:
        return True
    return not named - _BAND_COLUMNS and bool(set(content_terms(heading)) & wanted)


def holds_measure(label: str, question: str) -> bool:
    """Whether a row's label is a band of a measure the question gives a
    figure of, and holds it ("10 m to 14 m" a 12 m boat, "121–180 g/km" a car
    that emits 150 g/km, "over 20 m" a 24 m one)."""
    asked = _asked_measures(question)
    if not asked:
        return False
    for value, unit, bound in _bounded_measures(label):
        if bound and any(u == unit and not _left_out_by(bound, value, v) for v, u in asked):
            return True
    return False


def leaves_out_measure(cell: str, question: str) -> bool:
    """Whether a table cell is a band of a measure the question gives a
    figure of, and leaves it out ("Up to 5 miles" for 10 miles away)."""
    asked = _asked_measures(question)
    return any(
        bound
        and any(u == unit for _, u in asked)
        and all(_left_out_by(bound, value, v) for v, u in asked if u == unit)
        for value, unit, bound in _bounded_measures(cell)
    ) and not holds_measure(cell, question)


def without_measures(label: str) -> str:
    """``label`` without its figures of measures and their bounds ("Swinging
    mooring up to 14 m": "Swinging mooring"), what it names besides."""
    return _BAND.sub(" ", _SQUARE.sub(lambda m: f" sq{(m.group(1) or m.group(2))[0]}", label))


_BAND = re.compile(
    r"(?:\b(?:up to|under|over|below|above|less than|more than|at least|at most|from|between"
    r"|to|and|or)\s+)?(?<![\w.,£$€])\d+(?:[.,]\d+)?\s*(?:[a-z]+(?:/[a-z]+)?\b)?"
    r"(?:\s*(?:-|–|to|and|or)\s*(?=\d))?",
    re.IGNORECASE,
)


_PERIODS = {
    word: period
    for period, words in (
        ("minute", ("minute", "minutes")),
        ("hour", ("hour", "hours", "hourly")),
        ("day", ("day", "days", "daily")),
        ("night", ("night", "nights", "nightly")),
        ("week", ("week", "weeks", "weekly")),
        ("month", ("month", "months", "monthly")),
        ("year", ("year", "years", "yearly", "annual", "annually")),
    )
    for word in words
}
"""Words of a period a price is for ("per hour", "Daily rate", "Annual fee")."""


def _periods(text: str) -> set[str]:
    lowered = text.lower()
    said = {_PERIODS[w] for w in re.findall(r"[a-z]+", lowered) if w in _PERIODS}
    return said | {period for pattern, period in _SAME_PERIOD if pattern.search(lowered)}


_SAME_PERIOD = tuple(
    (re.compile(pattern), period)
    for pattern, period in (
        (r"\b(?:4|four)\s+weeks?\b|\b(?:28|30|31)\s+days?\b", "month"),
        (r"\b(?:7|seven)\s+days?\b", "week"),
        (r"\b(?:12|twelve)\s+months?\b|\b52\s+weeks?\b|\b36[56]\s+days?\b", "year"),
        (r"\b24\s+hours?\b", "day"),
    )
)
"""Periods said as a number of others ("4 weeks" is a month's ticket)."""


_UNIT = r"(?:minute|hour|day|night|week|month|year)"
_NO_PERIOD = re.compile(
    rf"\b\d+[\s-]*(?:years?|months?)[\s-]*olds?\b|\baged?\s+\d+"
    rf"|\b(?:this|next|last|rest\s+of(?:\s+the)?)\s+{_UNIT}\b",
    re.IGNORECASE,
)
"""A question's words of a period that is not what a price is for: an age
("my 12-year-old"), a time ("this year", "next month")."""
_PRICED_PERIOD = re.compile(
    rf"\b(?:per|a|an|each|every)\s+{_UNIT}\b"
    r"|\b(?:hourly|daily|nightly|weekly|monthly|yearly|annual|annually)\b"
    rf"|\b(?:half|full|all)[\s-]+day\b|\b\d+[\s-]*{_UNIT}s?\b|(?<!\bof\s){_UNIT}\s*$",
    re.IGNORECASE,
)
"""A column's name that prices a period ("Per hour", "Half day", "Annual
fee", "Peak night"), not "Opening hours" nor "Rest of year"."""


def _priced_periods(name: str) -> set[str]:
    bare = re.sub(r"\([^)]*\)", " ", name).strip()
    return {p for found in _PRICED_PERIOD.finditer(bare) for p in _periods(found.group(0))}


def prices_another_period(columns: tuple[str, ...], text: str, question: str) -> bool:
    """Whether a table row whose ``columns`` price periods ("Half day",
    "Full day") prices none of those a price question asks of ("for an
    hour"), nor names them in its column names or its cells (``text``)."""
    asked = _periods(_NO_PERIOD.sub(" ", question))
    # (and its cells': "£9 per hour" prices no month)
    named = set().union(*(_priced_periods(part) for part in (*columns, *text.split("|"))))
    # (a period a column names otherwise is the question's word for it:
    # "the membership with off-peak hours")
    return bool(asked and named) and not asked & _periods(" ".join((*columns, text)))


def as_measured(terms: list[str], question: str, texts: Sequence[str]) -> list[str]:
    """``terms`` with each figure of a size as one term, as a band of it is
    read ("a 12m boat": ``12``, where no passage writes "12m"; "1.5 kg":
    ``1.5``, not ``1`` and ``5``; "3,100 kWh": ``3100``); not a version
    ("Python 3.8")."""
    out = list(terms)
    for value in measured_values(question, units=_SIZES):
        if value in out:
            continue
        digits = value.replace(".", "")
        for i, term in enumerate(out):
            if term.startswith(value) and term[len(value) :].isalpha():
                written = re.compile(rf"(?<![\w.,]){re.escape(term)}\b", re.IGNORECASE)
                if not any(written.search(text) for text in texts):
                    out[i] = value  # "12m" (where a page writes "12m", as it is)
                break
            ends = range(i + 2, min(i + 4, len(out)) + 1)
            joined = next((j for j in ends if "".join(out[i:j]) == digits), None)
            if joined is not None and all(t.isdigit() for t in out[i:joined]):
                out[i:joined] = [value]  # "1.5", "3,100"
                break
    return out


_SIZES = frozenset(
    stem(unit)
    for unit in (
        "metres", "m", "cm", "mm", "km", "miles", "kg", "g", "lb", "lbs", "tonnes", "tons",
        "gb", "mb", "tb", "kwh", "ft", "feet", "inches", "litres", "ml", "mph", "sqm", "sqf",
        "gperkm",
    )
)  # fmt: skip
"""Units of size, weight, distance, data and energy, whose figures a band holds."""
