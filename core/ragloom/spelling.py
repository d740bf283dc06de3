"""Slips of typing: whether a word is English, and the words one slip away
from it that a reader would forgive.

Shared by the ``bm25`` store (a query's word that no chunk says is searched
as the indexed word one slip away: "parkng" as "parking") and the
``extractive`` answerer (a question's slip read as the hits spell the word).
Both read a word otherwise only where no English dictionary knows it
(pyspellchecker's, loaded once when first needed; a British spelling is
read as its American one: "fibre", "tyres"), and only by one slip (a letter
missed, doubled, mistyped, or two letters swapped: pyspellchecker's edits
at distance 1), never at the first letter ("gzip" is not "zip", "bson" not
"json", "cython" not "python"). A capitalised word is a name: a letter
missed, doubled or swapped, never another letter ("Stroma" is not
"Strome"); a word of three letters only by two letters swapped ("vnp"), and
a longer one never as a word of three ("polm" is not "pol"); a word with
capitals inside it ("SSO", "gRPC") or with a figure never.
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = ["SHORTEST", "is_english", "may_be_slip", "one_slip_away", "swapped"]

SHORTEST = 3
"""Shorter words are never read as slips ("ot" could be "to" or "of")."""
_BRITISH = (
    (re.compile(r"re(s?)$"), r"er\1"),  # fibre, centres
    (re.compile(r"our"), "or"),  # colour, behaviour
    (re.compile(r"yre"), "ire"),  # tyre
    (re.compile(r"is(e|ed|es|ing|ation)"), r"iz\1"),  # organise, organisation
    (re.compile(r"ae"), "e"),  # paediatric
    (re.compile(r"oe"), "e"),  # oestrogen
    (re.compile(r"ould"), "old"),  # mould
    (re.compile(r"ogue$"), "og"),  # catalogue
    (re.compile(r"ll(ed|ing|er)$"), r"l\1"),  # cancelled, travelling
    (re.compile(r"ence$"), "ense"),  # licence, defence
)
"""British spellings, each with the American one the dictionary knows."""


@functools.cache
def _dictionary() -> Any:
    """The English word list, loaded once (about 0.15 s), when first needed."""
    from spellchecker import SpellChecker

    return SpellChecker(language="en", distance=1)


def is_english(word: str) -> bool:
    """Whether the dictionary knows the word (lower case), or its American spelling."""
    known = _dictionary()
    return word in known or any(
        british.search(word) and british.sub(american, word) in known
        for british, american in _BRITISH
    )


def may_be_slip(word: str) -> bool:
    """Whether a word may be a slip of typing: of letters alone, at least
    ``SHORTEST`` of them, no capital inside, and no English word."""
    return (
        len(word) >= SHORTEST
        and word.isalpha()
        and word.isascii()
        and not any(c.isupper() for c in word[1:])
        and not is_english(word.lower())
    )


def swapped(word: str, other: str) -> bool:
    """Whether ``other`` is ``word`` (lower case) with two letters swapped."""
    return len(word) == len(other) and word != other and sorted(word) == sorted(other)


def one_slip_away(word: str) -> set[str]:
    """The lower-case words one forgivable slip from ``word`` (see the module's
    rules); empty for a word that is no slip (``may_be_slip``)."""
    if not may_be_slip(word):
        return set()
    lower = word.lower()
    name = word[0].isupper()
    found = set()
    for other in _dictionary().edit_distance_1(lower):
        if not other or other[0] != lower[0] or not other.isalpha():
            continue  # (never at the first letter)
        short = len(lower) == SHORTEST or (name and len(other) == len(lower))
        if short and not swapped(lower, other):
            continue  # (a short word or a name: no mistyped letter)
        if len(other) <= SHORTEST < len(lower):
            continue  # ("polm" is not "pol", nor "Mims" "mis")
        found.add(other)
    return found
