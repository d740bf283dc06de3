"""Fees said in words: a fee of a kind said to be none ("The Junior Plan
has no joining fee"), and fees of other kinds than the one asked ("a
one-off joining fee" is no monthly fee).
"""

from __future__ import annotations

import re

from ._text import GENERIC_STEMS, content_terms, stem
from ._units import _Unit

_NO_SUCH_FEE = re.compile(r"\bno\s+([\w-]+)\s+(?:fee|fees|charge|charges)\b", re.IGNORECASE)
"""A sum of a kind said to be none ("no joining fee")."""
_QUALIFIED = re.compile(r"\b(?:if|unless|when|provided|as long as)\b", re.IGNORECASE)


def _no_such_fee(text: str, asked: set[str]) -> bool:
    """Whether ``text`` says a fee of the kind the question asks is none
    ("The Junior Plan has no joining fee"), of all the question names: not
    for some only ("Members pay no booking fee", "no cancellation fee if you
    cancel 24 hours ahead", "no booking fee for online bookings"), whose
    words the question does not say."""
    for match in _NO_SUCH_FEE.finditer(text):
        if not set(content_terms(match.group(1))) & asked:
            continue
        if _QUALIFIED.search(text):
            return False
        # (for some only, whom the question does not name: no)
        said = set(content_terms(text[: match.start()] + " " + text[match.end() :]))
        return not said - asked - GENERIC_STEMS - _SAYING_NONE
    return False


_FEE_OF_KIND = re.compile(
    r"\b([a-z][\w-]*)\s+(?:fee|fees|charge|charges|surcharge|deposit|deposits)\b", re.IGNORECASE
)
_NOT_A_KIND = frozenset(
    {"the", "a", "an", "any", "no", "this", "that", "each", "per", "of", "one-off"}
)


def _fee_kinds(text: str) -> set[str]:
    """The kinds of fee a text names ("the monthly fee": ``month``)."""
    return {
        said[0]
        for match in _FEE_OF_KIND.finditer(text)
        if match.group(1).lower() not in _NOT_A_KIND
        and (said := content_terms(match.group(1)))
        and said[0] not in GENERIC_STEMS
    }


def _of_another_fee(unit: _Unit, kinds: set[str]) -> bool:
    """Whether ``unit`` names fees of other kinds only ("Every member pays a
    one-off joining fee of £25" to "How much is the monthly fee?"), and none
    of the kinds asked anywhere in it or its headings."""
    return not kinds & (unit.terms | unit.context) and bool(_fee_kinds(unit.text))


_SAYING_NONE = frozenset(stem(word) for word in ("pay", "pays", "has", "have", "there", "charge"))
