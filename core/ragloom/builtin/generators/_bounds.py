"""What a sentence after a rule says of the asker's case: the other side
of a bound in time ("up to 48 hours before departure" holds for changes
made 48 hours or more before, and "Changes made later cost £12" says the
rest), or an exception ("The discount does not apply to the Safety Check").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._figures import fits_kind
from ._text import SMALL_NUMBERS, content_terms
from ._units import _Unit

_BOUND = re.compile(
    r"\b(?P<word>less than|fewer than|under|within|inside|more than|over|at least"
    r"|no less than|up to|until|no later than|after|beyond)\s+(?P<figure>\d+|"
    + "|".join(SMALL_NUMBERS)
    + r")\s*(?P<unit>minute|hour|day|week|month|year)s?\b"
    r"(?P<before>\s+(?:before|in advance|prior|ahead)\b)?",
    re.IGNORECASE,
)
_NEAR = frozenset({"less than", "fewer than", "under", "within", "inside"})
_FAR = frozenset({"more than", "over", "at least", "no less than", "after", "beyond"})
_OPEN = frozenset({"less than", "fewer than", "under", "more than", "over", "after", "beyond"})
"""The bounds that leave their own figure out ("less than 48 hours", "after 30 days")."""
_LENGTH = re.compile(
    r"\b(?P<figure>\d+|"
    + "|".join(SMALL_NUMBERS)
    + r")[\s-]*(?P<unit>minute|hour|day|week|month|year)s?\b",
    re.IGNORECASE,
)
"""A length of time a question gives ("45 days after purchase", "after two months")."""
_DAYS = {"minute": 1 / 1440, "hour": 1 / 24, "day": 1.0, "week": 7.0, "month": 30.0, "year": 365.0}
_PAST_THE_BOUND = re.compile(
    r"\b(?:later|late|after that|after this|after then|afterwards|thereafter|otherwise"
    r"|beyond that|outside (?:that|this)(?: time| period)?)\b",
    re.IGNORECASE,
)
"""Words of a sentence that says the case past the bound the one before
sets ("Changes made later cost £12", "After that, ...")."""


def bounds(text: str) -> dict[tuple[str, str], str]:
    """The lengths of time ``text`` bounds a case by, each (figure, unit) with
    its side: ``near`` ("less than 48 hours", "within 14 days") or ``far``
    ("more than 48 hours", "at least 7 days", "up to 48 hours before", which
    holds until 48 hours before). "Up to 5 days" alone is a length, no side."""
    found: dict[tuple[str, str], str] = {}
    for match in _BOUND.finditer(text):
        word = match.group("word").lower()
        if word in _NEAR:
            side = "near"
        elif word in _FAR or match.group("before"):
            side = "far"
        else:
            continue
        found[(_figure(match.group("figure")), match.group("unit").lower())] = side
    return found


def _figure(word: str) -> str:
    """A figure as digits ("two": "2")."""
    return str(SMALL_NUMBERS.get(word.lower(), word))


_Span = tuple[float, float, bool]
"""Lengths of time in days, from the first to the second; with True, the
second is left out ("less than 48 hours")."""


def _spans(text: str) -> list[_Span]:
    """The lengths of time ``text`` bounds a case by, as spans of days:
    "within 30 days" is 0 to 30, "after 30 days" past 30 (30 itself left out)."""
    spans: list[_Span] = []
    for match in _BOUND.finditer(text):
        word = match.group("word").lower()
        days = int(_figure(match.group("figure"))) * _DAYS[match.group("unit").lower()]
        if word in _NEAR:
            spans.append((0.0, days, word in _OPEN))
        elif word in _FAR or match.group("before"):
            # (past it: "after 30 days" leaves 30 out, a hair past it)
            spans.append((days + (1e-6 if word in _OPEN else 0.0), float("inf"), False))
    return spans


def _asked_spans(question: str) -> list[_Span]:
    """The lengths of time a question asks about: its bounds ("less than 48
    hours before") and, outside them, the lengths it gives ("45 days after
    purchase", "after two months", each a span of one point)."""
    spans = _spans(question)
    inside = [m.span() for m in _BOUND.finditer(question)]
    for match in _LENGTH.finditer(question):
        if any(start <= match.start() < end for start, end in inside):
            continue
        days = int(_figure(match.group("figure"))) * _DAYS[match.group("unit").lower()]
        spans.append((days, days, False))
    return spans


def _holds(span: _Span, asked: _Span) -> bool:
    """Whether ``span`` holds all of the lengths ``asked``."""
    first, last, open_end = span
    low, high, _ = asked
    return first <= low and (high < last or (high == last and not open_end))


def _apart(span: _Span, asked: _Span) -> bool:
    """Whether ``span`` holds none of the lengths ``asked``."""
    first, last, open_end = span
    low, high, asked_open = asked
    return (
        high < first or (high == first and asked_open) or low > last or (low == last and open_end)
    )


def with_other_side(
    chosen: list[_Unit],
    units: Sequence[_Unit],
    question: str,
    kind: str | None,
    doing: set[str],
) -> list[_Unit]:
    """``chosen``, each unit that bounds its case on the side of a bound the
    question does not ask ("free of charge up to 48 hours before" to "How
    much does it cost to change a booking less than 48 hours before?")
    followed by the next sentence of its paragraph where that says the other
    side (it leans back, "Changes made later cost £12", or names the side
    asked) and what the question asks (``kind``), of what the sentence
    speaks of ("Later changes to your vehicle details" follow no rule of
    pet places) and, for a yes/no question, its verb (``doing``: "Classes
    made later in the evening are quieter" says nothing of cancelling)."""
    asked = _asked_spans(question)
    if not asked:
        return chosen
    out = list(chosen)
    asked_terms = set(content_terms(question))
    for unit in chosen:
        said = _spans(unit.text)
        if not any(_apart(span, wanted) for span in said for wanted in asked):
            continue
        after = _next(unit, units)
        if (
            after is None
            or after.kind not in {"sentence", "bullet"}
            or any(after.text in c.text or c.text in after.text for c in out)
            or not _one_paragraph(unit, after)
            or not fits_kind(kind, after.text)
            or not after.terms & unit.terms
            or not doing <= after.terms
            or _of_another_kind(after.text, unit, asked_terms)
        ):
            continue
        if _PAST_THE_BOUND.search(after.text) is not None or any(
            _holds(span, wanted) for span in _spans(after.text) for wanted in asked
        ):
            out.insert(out.index(unit) + 1, after)
    return out


_PAIR = re.compile(r"(?=\b([A-Za-z][\w'’-]*) ([A-Za-z][\w'’-]*)\b)")
"""Two words side by side, with nothing between them but a space."""


def _of_another_kind(text: str, first: _Unit, asked: set[str]) -> bool:
    """Whether a sentence names another kind of a thing the question and the
    sentence before it name: a word before its noun that neither says
    ("Standard items can be returned within 30 days" after "Sale items ..."
    to a question about a sale item; "Business tickets" after "Economy
    tickets")."""
    for match in _PAIR.finditer(text):
        modifier, term = content_terms(match.group(1)), content_terms(match.group(2))
        if (
            term
            and modifier
            and term[0] in asked & first.terms
            and modifier[0] not in asked | first.terms
            and _PAST_THE_BOUND.fullmatch(match.group(1)) is None
        ):
            return True
    return False


_EXCEPTION = re.compile(
    r"\b(?:does|do|is|are|will)\s+not\s+(?:apply|count|cover)\b|\bnot\s+(?:valid|available|included)"
    r"\s+(?:on|for|with|to|in)\b|\b(?:except|excluding|excludes)\b",
    re.IGNORECASE,
)
"""An exception to a rule ("The discount does not apply to the Safety Check")."""


_POINTS_BACK = re.compile(r"\s*(?:the|this|that|these|those|it|they|such)\b", re.IGNORECASE)
"""An exception's opening that points at what the sentence before said."""


def with_exceptions(chosen: list[_Unit], units: Sequence[_Unit], asked: set[str]) -> list[_Unit]:
    """``chosen``, each sentence followed by the next one of its paragraph
    where that makes an exception of something the question names and the
    sentence does not ("Students get 10% off all service packages." then
    "The discount does not apply to the Safety Check.", to a student's
    question about the Safety Check)."""
    out = list(chosen)
    for unit in chosen:
        if unit.kind not in {"sentence", "bullet"}:
            continue
        after = _next(unit, units)
        excepted = _EXCEPTION.search(after.text) if after is not None else None
        if (
            after is not None
            and after.kind == "sentence"
            and excepted is not None
            # (what it excepts is asked: "... to the Safety Check", not "except
            # on medical grounds")
            and set(content_terms(after.text[excepted.end() :])) & asked - unit.terms - unit.context
            # (of what the sentence before says: "The discount ...", or a word of it;
            # "Off-peak fares are not valid on Saturdays" excepts nothing of child tickets)
            and (
                _POINTS_BACK.match(after.text) is not None
                or bool(set(content_terms(after.text[: excepted.start()])) & unit.terms)
            )
            and not any(after.text in c.text or c.text in after.text for c in out)
            and _one_paragraph(unit, after)
        ):
            out.insert(out.index(unit) + 1, after)
    return out


def _next(unit: _Unit, units: Sequence[_Unit], step: int = 1) -> _Unit | None:
    """The unit right after ``unit`` in its chunk (``step`` -1: right before), if any."""
    return next(
        (
            other
            for other in units
            if other.chunk.id == unit.chunk.id and other.position == unit.position + step
        ),
        None,
    )


def _one_paragraph(first: _Unit, second: _Unit) -> bool:
    """Whether ``second`` follows ``first`` in one paragraph of their chunk."""
    text = first.chunk.text
    start = text.find(first.text)
    end = text.find(second.text, start + 1)
    return start >= 0 and end > start and "\n\n" not in text[start + len(first.text) : end]
