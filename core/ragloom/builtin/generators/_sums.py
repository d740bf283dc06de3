"""Sums in place of others and sums added to prices: an exception said
*instead* for one case, with or without the rule it replaces; a "+£60"
supplement, which is no price; and the words a row's sums say without
writing them ("cost", a month, a period).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._columns import _MONTH_TERMS
from ._figures import MONEY_FIGURE
from ._measures import _PERIODS
from ._prices import _PAY
from ._text import GENERIC_STEMS, content_terms, stem
from ._units import _Unit

_PRICE_WORDS = frozenset({stem("cost"), stem("costs"), stem("price"), stem("prices")})
"""A question's words for a price, which a sum says without them (a "rate",
a "fare"): not a fee's or a charge's, which may name a sum of its own kind."""


_INSTEAD = re.compile(r"\d[^.;:!?]{0,30}?\b(?:instead|rather than|in place of)\b", re.IGNORECASE)
"""A figure said in place of another ("charged £15 instead", "a fixed £46
per metre instead"); not a thing ("they use Comfort+ instead")."""


def _instead_of(exception: _Unit, rule: _Unit, asked: set[str]) -> bool:
    """Whether ``exception`` says what holds *instead* of ``rule`` (the
    sentence before it in the same passage) for a case the question names
    and the rule does not ("Hygiene appointments cancelled late are charged
    £15 instead" after "... are charged a fee of £25")."""
    return (
        exception.chunk.id == rule.chunk.id
        and exception.position > rule.position
        and _INSTEAD.search(exception.text) is not None
        # (its own words, not the unit of a figure: "lasts 3 hours" names no case)
        and bool(
            (exception.terms - rule.terms)
            & asked - GENERIC_STEMS - _MONEY_VERBS - _figure_units(exception.text)
        )
        and any(ch.isdigit() for ch in rule.text)
    )


def _figure_units(text: str) -> set[str]:
    """The words of the units a text's figures are in ("3 hours": ``hour``)."""
    return {stem(unit.lower()) for unit in re.findall(r"\d[\d.,]*\s*([A-Za-z]+)", text)}


_WHEN_WORDS = _MONTH_TERMS | frozenset(stem(word) for word in _PERIODS)
"""Words of when or for how long, which a row's columns may say apart from its words."""


_ADDED_SUM = re.compile(r"\+\s?[£$€]\s?\d[\d.,]*")
"""A sum added to a price ("+£60 per day"), which is no price itself."""


_ADDED_WORDS = frozenset(
    stem(word)
    for word in ("extra", "more", "additional", "supplement", "surcharge", "add", "added", "plus")
)
"""A question's words for a sum added to a price ("How much extra per day ...?")."""


def _with_rules(chosen: list[_Unit], units: Sequence[_Unit], asked: set[str]) -> list[_Unit]:
    """``chosen``, each sum said *instead* for a case the question does not
    name ("If you pay within 14 days, you are charged £10 instead" to "How
    much is the penalty fare?") with the sentence before it in its passage
    that it replaces (the £20 fare): an exception alone reads as the rule."""
    out: list[_Unit] = []
    for unit in chosen:
        if _SUM_INSTEAD.search(unit.text):
            before = [
                u
                for u in units
                if u.chunk.id == unit.chunk.id
                and u.position < unit.position
                and u.kind == "sentence"
                and not unit.text.startswith(u.text)
            ]
            rule = before[-1] if before else None
            if (
                rule is not None
                and MONEY_FIGURE.search(rule.text) is not None  # (a sum it replaces)
                and not _instead_of(unit, rule, asked)
                and all(rule is not u and rule.text not in u.text for u in (*chosen, *out))
            ):
                out.append(rule)
        out.append(unit)
    return out


_SUM_INSTEAD = re.compile(
    r"(?:[£$€]\s?\d|\d\s?%)[^.;:!?]{0,30}?\b(?:instead|rather than|in place of)\b", re.IGNORECASE
)
"""A sum said in place of another ("charged £10 instead"; not "over 30 days
old get store credit instead")."""


def _prices_outright(text: str) -> bool:
    """Whether ``text`` says a sum that is not added to a price ("£120; +£30
    per extra surface" does; "+£10" alone does not)."""
    return MONEY_FIGURE.search(_ADDED_SUM.sub(" ", text)) is not None


def _priced_elsewhere(unit: _Unit, units: Sequence[_Unit]) -> bool:
    """Whether another unit prices a row's label outright ("Standard coach:
    Full day £590" beside "Standard coach: +£60 per day"): then the added
    sum is no price of it; a roof box priced only "+£10" is priced so."""
    if unit.kind != "row" or not unit.cells:
        return False
    label = set(content_terms(unit.cells[0]))
    return bool(label) and any(
        other is not unit and label <= other.terms and _prices_outright(other.text)
        for other in units
    )


_MONEY_VERBS = _PRICE_WORDS | _PAY | frozenset(stem(w) for w in ("charge", "charged", "charges"))
"""Words of paying, which name no case of an exception ("How much is the
penalty fare charged?" names none of "If you pay within 14 days")."""
