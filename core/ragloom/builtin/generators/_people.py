"""Whom a question asks about: who asks, who pays, who receives, and the ages a
question or a sentence names.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import NamedTuple

from ._bounds import _next, _one_paragraph
from ._text import SMALL_NUMBERS, content_terms, stem
from ._units import _Unit

__all__ = [
    "AGE_BANDS",
    "GROUP_WORDS",
    "INSIDERS",
    "OUTSIDERS",
    "STAFF",
    "AskedAge",
    "ages_of",
    "asked_age",
    "asker",
    "holds_age",
    "of_another_age",
    "payer",
    "receiver",
    "row_age_bands",
]

_ASKER = re.compile(
    r"\b(?:I['’]?m|I am|we['’]?re|we are|as)\s+(?:a|an)\s+"
    r"([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2})",
    re.IGNORECASE,
)
GROUP_WORDS = (
    r"seniors?|students?|child(?:ren)?|kids?|juniors?|adults?|members?|non-members?|veterans?"
    r"|pensioners?|charit(?:y|ies)|non-?profits?|famil(?:y|ies)|teachers?|nurses?|staff"
    r"|employees?|residents?|schools?|startups?|start-ups?|citizens?|carers?|parents?"
    r"|visitors?|guests?|tourists?|locals?|apprentices?|trainees?|graduates?|volunteers?"
    r"|couples?|organisations?|organizations?|businesses|companies|contractors?|freelancers?"
    r"|interns?|consultants?|part-timers?|team leads?|directors?|managers?|executives?"
)
"""Groups of people a price or a rule may be for ("Seniors get 10% off")."""
AGE_BANDS = r"(?:under|over)[- ]?\d+s"
"""People by age: "under-18s", "over65s"."""
_ANYONE_WORDS = (
    "customer", "client", "user", "person", "individual", "buyer", "consumer",
    "guy", "woman", "man", "beginner", "newbie", "fan", "human",
)  # fmt: skip
_ANYONE = frozenset(stem(word) for word in _ANYONE_WORDS)
"""Who anyone is: saying so names no group a rule could be for."""
_PEOPLE = re.compile(
    rf"(?:{GROUP_WORDS}|{AGE_BANDS}|business|company|(?:{'|'.join(_ANYONE_WORDS)})s?)",
    re.IGNORECASE,
)
"""Nouns for people: a group, or anyone (``_ANYONE``)."""


def asker(question: str) -> tuple[str, set[str]] | None:
    """Who a question says is asking, as the term of a group of people:
    "I'm a student", "We're a registered charity", "as a member" give
    ``student``, ``charity``, ``member``, with the terms of the words before
    it ("registered"). Who qualifies decides an answer:
    the seniors' discount is none for a student. None for anyone ("I'm a
    customer") and for what is no group ("As a reminder", "I'm a little late")."""
    match = _ASKER.search(question)
    if match is None:
        return None
    words: list[str] = []
    for word in match.group(1).split():
        # the phrase ends at a small word or a verb after it: "student living in ..."
        if not content_terms(word) or (words and word.lower().endswith("ing")):
            break
        words.append(word)
    if not words or _PEOPLE.fullmatch(words[-1]) is None:
        return None
    if len(words) > 1 and words[-1].lower().rstrip("s") in {"citizen", "person", "individual"}:
        words = words[:-1]  # a "senior citizen" is a senior
    terms = content_terms(words[-1])
    if not terms or terms[-1] in _ANYONE:
        return None
    return terms[-1], {t for word in words[:-1] for t in content_terms(word)}


def payer(question: str) -> tuple[str, set[str]] | None:
    """Who a "how much do ... pay?" (or "what do ... pay?") question asks about, as ``asker`` gives
    it: "how much do students pay" gives ``student``, "how much do basic
    members pay" ``member`` with ``basic``. None for "I", "you", "we", and
    for what is no group of people."""
    match = _PAYER.search(question)
    if match is None:
        return None
    words = _banded(match.group(1).split())
    if _PEOPLE.fullmatch(words[-1]) is None:
        return None
    terms = content_terms(words[-1])
    if not terms or terms[-1] in _ANYONE:
        return None
    # "adult members" are adults: a group word before the head is no mere modifier
    before = [w for w in words[:-1] if _PEOPLE.fullmatch(w) is None]
    return terms[-1], {t for word in before for t in content_terms(word)}


def _banded(words: list[str]) -> list[str]:
    """``words`` with an age band written apart as one ("under", "15s": "under-15s")."""
    if len(words) > 1 and words[-2].lower() in {"under", "over"} and words[-1][:1].isdigit():
        return [*words[:-2], f"{words[-2]}-{words[-1]}"]
    return words


def receiver(question: str) -> tuple[str, set[str]] | None:
    """Whom a question asks about as getting something, as ``asker`` gives
    it: "How many days of leave do contractors get?", "the approval limit for
    contractors" give ``contractor``; "for senior staff" ``staff`` with
    ``senior``. None for "I", "you", "we" and for what is no group of people."""
    for match in _RECEIVER.finditer(question):
        words = _banded((match.group(1) or match.group(2)).split())
        if len(words) > 1 and _PEOPLE.fullmatch(" ".join(words[-2:])):
            words[-2:] = [" ".join(words[-2:])]  # "team leads"
        terms = content_terms(words[-1])
        if _PEOPLE.fullmatch(words[-1]) is None or not terms or terms[-1] in _EVERYONE:
            continue
        before = [w for w in words[:-1] if _PEOPLE.fullmatch(w) is None]
        return terms[-1], {t for word in before for t in content_terms(word)} | set(terms[:-1])
    return None


_EVERYONE = _ANYONE | {stem(word) for word in ("staff", "employee", "worker", "people")}
"""Whom a handbook's rules are for unless they say otherwise: asking about
"staff" names no group apart from the employees its sentences speak of."""
OUTSIDERS = frozenset(
    stem(word)
    for word in ("contractor", "freelancer", "intern", "volunteer", "temp", "agency", "visitor")
)
"""Groups a handbook's rules for everyone do not speak to unless they say so:
"The wellness allowance is CAD 500" is the employees', not the contractors'.
(A manager or a director is an employee: those rules are theirs too.)"""
STAFF = frozenset(stem(word) for word in ("staff", "employee", "worker"))
INSIDERS = STAFF | frozenset(
    stem(word)
    for word in ("manager", "director", "lead", "supervisor", "engineer", "executive", "hire")
)
"""The staff and its roles: what "employees" get, a manager gets (not a
student, a member or a child: "Staff get free entry")."""
"""The groups everyone is in, in a handbook: what they get, a manager gets."""


_RECEIVER = re.compile(
    r"\b(?:do|does|did|will|would|can|could|should)\s+"
    r"([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2}?)\s+"
    r"(?:get|receive|have(?!\s+to\b)|earn|accrue|take)\b"
    rf"|\bfor\s+(?:the\s+|our\s+|all\s+)?((?:[a-z][\w-]*\s+)?(?:{GROUP_WORDS}|{AGE_BANDS}))\b"
    # (the group itself, not a thing of it: "for manager reviews")
    r"(?=\s*(?:[?.!,;:]|$)|\s+(?:in|at|on|who|with|and|or|if|per|during|from|of|to|"
    r"get|receive|have|earn)\b)",
    re.IGNORECASE,
)

_PAYER = re.compile(
    r"\b(?:how much|what) (?:do|does|did|will|would|should|must|can|could)\s+"
    r"([A-Za-z][\w'’-]*(?:\s+[A-Za-z0-9][\w'’-]*){0,3}?)\s+(?:pay|spend|owe|be charged)\b"
    r"(?!\s+(?:include|includes|cover|covers|mean|means|work|works)\b)",
    re.IGNORECASE,
)


_AGE_UNIT = r"(?:months?|mths?|weeks?|wks?|years?|yrs?)"
"""What an age is counted in; years where none is said."""
_AGED_NOUNS = (
    r"sons?|daughters?|child(?:ren)?|kids?|boys?|girls?|grandsons?|granddaughters?"
    r"|grandchild(?:ren)?|bab(?:y|ies)|toddlers?|twins?|dogs?|cats?|pupp(?:y|ies)|kittens?"
    r"|rabbits?"
)
"""Whose age a question may give ("my 2-year-old daughter", "My son is 10")."""
_NUMBER = rf"\d{{1,3}}|{'|'.join(sorted(SMALL_NUMBERS, key=len, reverse=True))}"
_ASKED_AGE = re.compile(
    rf"\b(?P<figure>{_NUMBER})(?P<half>\s+and a half)?(?:[- ](?P<unit>{_AGE_UNIT}))?[- ]olds?\b"
    # (and whose age it is: "my 2-year-old daughter")
    rf"(?:\s+(?:{_AGED_NOUNS})\b)?"
    rf"|\baged?\s+(?P<aged>\d{{1,3}})(?:\s+(?P<aged_unit>{_AGE_UNIT}))?\b"
    r"|\bI'?m\s+(?P<me>\d{1,3})\b|\bI am\s+(?P<me2>\d{1,3})\b"
    # "My son is 10", "our daughter's 16", "she is 2 and a half", "they're 4"
    rf"|(?:(?:\b(?:my|our)\s+(?:{_AGED_NOUNS}|husband|wife|partner|mum|mom|mother|dad|father)"
    r"|\b(?:she|he))(?:\s+is|'s|’s)|\bthey(?:\s+are|'re|’re)"
    # ("Lily is 2.": a name, and the age ends what is said of it)
    r"|\b(?-i:[A-Z][a-z]+)\s+is(?=\s+\d{1,2}\s*(?:[.,;!?]|$|and\b|years?|months?)))"
    rf"\s+(?P<is>\d{{1,3}})\b(?![.,]\d)(?:\s+(?P<is_unit>months?|weeks?|years?)\b)?"
    # (not "my partner is 20 minutes late")
    r"(?!\s*(?:minutes?|mins?|hours?|hrs?|days?|%|kg|km|cm|m|miles?|metres?|feet)\b)",
    re.IGNORECASE,
)
_HALF = re.compile(r"\s*(?:years?\s+)?and a half\b", re.IGNORECASE)


class AskedAge(NamedTuple):
    """An age a question gives: ``figure`` as it is written ("18" of "my
    18-month-old", the word a band is matched for), ``months`` the age in
    months, ``terms`` the words that say it."""

    figure: str
    months: float
    terms: set[str]


def asked_age(question: str) -> AskedAge | None:
    """The age a question gives ("a 15-year-old", "I'm 70", "aged 9", "my
    18-month-old", "she is 2 and a half"), or None."""
    match = _ASKED_AGE.search(question)
    if match is None:
        return None
    name = next(k for k in ("figure", "aged", "me", "me2", "is") if match.group(k))
    figure = match.group(name).lower()
    figure = str(SMALL_NUMBERS.get(figure, figure))
    unit = match.group("unit") or match.group("aged_unit") or match.group("is_unit") or "year"
    months = _in_months(int(figure), unit)
    end = match.end()
    if match.group("half"):
        months += 6  # "a 2 and a half year old"
    elif unit.lower().startswith("y") and (half := _HALF.match(question, end)):
        months, end = months + 6, half.end()
    terms = set(content_terms(question[match.start() : end])) - _PET_TERMS
    return AskedAge(figure, months, terms)


_PET_TERMS = frozenset(
    content_terms("dog cat puppy kitten rabbit dogs cats puppies kittens rabbits")
)
"""Whose age a question gives, that is the thing asked of, not one of the
people pages say "children" of: "my 10-week-old kitten" keeps "kitten"."""


def _in_months(figure: int, unit: str | None, *, to_end: bool = False) -> float:
    """An age of ``figure`` ``unit`` (years where None) in months; with
    ``to_end``, where it ends ("3 years" as a band's top: up to 48 months,
    not counting 48)."""
    unit = (unit or "year").lower()
    step = 1.0 if unit.startswith("m") else 12 / 52 if unit.startswith("w") else 12.0
    return (figure + (1 if to_end else 0)) * step


_AGE_RANGE = re.compile(
    r"(?<![\d:.,$€£])(?P<low>\d{1,3})(?!\d)(?:\s*(?P<low_unit>months?|weeks?))?"
    r"\s*(?:–|—|-|to)\s*(?P<high>\d{1,3})(?!\d)"
    rf"(?:\s*(?P<range_unit>{_AGE_UNIT})\b)?"
    # (no time, price or count: "10-12:30", "1-4.5 kg", "2-4 people"; "Ages 1–4:" is one)
    r"(?![.,:]\d|%|\s*(?:kg|km|cm|mm|m|am|pm|h"
    r"|hours?|minutes?|mins?|days?|seats?|people|pupils|children|guests)\b)"
    r"|(?<![\d:.,$€£])(?P<plus>\d{1,3})\s*\+"
    r"(?!\s*(?:people|persons|guests|adults|children|pupils|members))"
    r"|\b(?:under|below|younger than)[\s-]+(?P<under>\d{1,3})(?!\d)s?"
    rf"(?:\s*(?P<under_unit>{_AGE_UNIT})\b)?(?!\s*(?:kg|km|cm|m|%|[$€£]))"
    r"|(?<![\d:.,$€£])(?P<over>\d{1,3})(?!\d)s?"
    rf"(?:\s*(?P<over_unit>{_AGE_UNIT}))?\s+(?:(?:and|or)\s+"
    r"(?:over|older|above)|(?:to|until|up to)\s+school age)\b"
    r"|\b(?:over|aged)[\s-]+(?P<aged>\d{1,3})(?!\d)s?"
    rf"(?:\s*(?P<aged_unit>{_AGE_UNIT})\b)?"
    # ("aged 2–3" is a range; "over 20 kg" no age)
    r"(?!\s*(?:–|—|-|to)\s*\d|\s*(?:kg|km|cm|m|am|pm|%|[$€£]|[:.]\d))"
    # ("from 4 months old"; "from 10 on Saturdays" and "from 3 days" no age)
    rf"|\bfrom\s+(?P<from>\d{{1,3}})(?!\d)\s*(?P<from_unit>{_AGE_UNIT})\b"
    r"(?!\s*(?:–|—|-|to)\s*\d)",
    re.IGNORECASE,
)
_ONE_AGE = re.compile(rf"\s*(?P<figure>\d{{1,3}})\s*(?P<unit>{_AGE_UNIT})(?:\s+old)?\s*")
"""A cell that gives one age ("12 weeks" in a schedule's "Age" column)."""


_OF_PEOPLE = re.compile(
    r"\b(?:ages?d?|years?[- ]olds?|yrs|olds?|adults?|child(?:ren)?|kids?|infants?|bab(?:y|ies)"
    r"|toddlers?|teens?|teenagers?|juniors?|seniors?|youths?|young|students?|pensioners?|drivers?"
    r"|minors?|birthdays?|persons?|people|passengers?|visitors?|guests?|riders?|travell?ers?"
    r"|pupils?|anyone|those|pre-?school(?:ers?)?|(?:under|over)-?\d+s)\b|\b\d+s\b",
    re.IGNORECASE,
)
"""Words that make a band of figures one of ages: "Child (5–15)", "Under 16s", "Age"."""
_COUNTS = (
    r"\b(?:zones?|levels?|grades?|bands?|floors?|rooms?|platforms?|gates?|steps?|tiers?|pages?"
    r"|items?|sizes?|stages?|weeks?|days?|months?|nights?|hours?|years?|nos?|numbers?|lines?"
    r"|routes?|seats?|rows?|units?|orders?|bags?|pieces?|chapters?|sections?|values?|weights?"
    r"|spend|totals?|baskets?)"
)
_NOT_AGE_LABEL = re.compile(_COUNTS + r"[\s:(]*$", re.IGNORECASE)
_COUNTING = re.compile(_COUNTS + r"\b", re.IGNORECASE)
"""A label a band of figures counts ("Zones 1-3", "Years 7-11", "Orders over 30")."""


def holds_age(text: str, months: float, context: str = "") -> bool:
    """Whether the text gives an age band that holds an age of ``months``
    ("Young person (12–17)", "Senior (65+)", "under 4", "16 or over",
    "Baby room (3–23 months)", "from 4 months old"; years where the band
    names no unit): a band of figures that counts no other thing ("Zones 1-3",
    "Orders under 30"); a bare range ("5–15") only where the text (or
    ``context``, a table's column names) speaks of people ("Child", "Age",
    "passengers")."""
    return any(first <= months < end for first, end in _age_spans(text, context))


def _age_spans(text: str, context: str = "") -> list[tuple[float, float]]:
    """The age bands ``text`` gives (``holds_age``), each from its first
    month to its end (left out)."""
    of_people = _OF_PEOPLE.search(text) is not None or _OF_PEOPLE.search(context) is not None
    if not of_people and _COUNTING.search(context):
        return []  # "Under 30" under "Order value": a value, no age
    spans: list[tuple[float, float]] = []
    for match in _AGE_RANGE.finditer(text):
        found = match.groupdict()
        unit = next((found[n] for n in _UNITS if found[n]), None)
        if not unit and _NOT_AGE_LABEL.search(text, max(0, match.start() - 20), match.start()):
            continue  # (a unit says it is an age: "Baby room (3–23 months)")
        if (found["low"] or found["from"]) and not of_people:
            continue  # a bare range ("1-3") is of ages only beside people
        lowest = found["plus"] or found["over"] or found["aged"] or found["from"]
        if found["low"]:
            first = _in_months(int(found["low"]), found["low_unit"] or unit)
            # ("2–3 years" is to the fourth birthday, "6 months to 2 years" to the second)
            whole = not found["low_unit"] or found["low_unit"][0] == (found["range_unit"] or "y")[0]
            end = _in_months(int(found["high"]), found["range_unit"], to_end=whole)
            spans.append((first, end))
        elif lowest:
            spans.append((_in_months(int(lowest), None if found["plus"] else unit), math.inf))
        elif found["under"]:
            spans.append((0.0, _in_months(int(found["under"]), unit)))
    if of_people:
        # (a schedule's row at one age: "| 12 weeks | Second vaccination |")
        for cell in text.split("|"):
            if (one := _ONE_AGE.fullmatch(cell)) is not None:
                age = _in_months(int(one["figure"]), one["unit"])
                spans.append((age - 0.1, age + 0.1))
    return spans


_UNITS = ("low_unit", "range_unit", "under_unit", "over_unit", "aged_unit", "from_unit")


def of_another_age(text: str, months: float) -> bool:
    """Whether a sentence gives age bands none of which holds ``months``
    ("Puppy classes are for puppies aged 10 to 20 weeks and cost £90" for an
    8-week-old puppy)."""
    bands = _age_spans(text)
    return bool(bands) and not any(first <= months < end for first, end in bands)


def row_age_bands(cells: Sequence[str], columns: Sequence[str] = ()) -> list[tuple[float, float]]:
    """The age bands of a table row, each from its first month to its end:
    its label's ("Young person (12–17)"), and those of its other cells where
    the label names people or the cell's column is of ages ("Toddler Room |
    2–3 years", "Oak Room" under "Room" beside "3 years to school age" under
    "Age"). A row holds an age one of them holds; it is of another age where
    it has some and none holds it ("Climbing | 11–14 years | £12" for a
    6-year-old)."""
    if not cells:
        return []
    context = " | ".join(columns)
    people = _OF_PEOPLE.search(cells[0]) is not None
    return [
        *_age_spans(cells[0], context),
        *(
            band
            for n, cell in enumerate(cells)
            if n and (people or (n < len(columns) and _AGE_COLUMN.search(columns[n]) is not None))
            for band in _age_spans(cell, context)
        ),
    ]


_AGE_COLUMN = re.compile(r"\bages?\b", re.IGNORECASE)


def ages_of(unit: _Unit, units: Sequence[_Unit]) -> str:
    """The text whose age bands are a sentence's: its own, or where it gives
    none, that of the sentence before it in its paragraph, where that gives
    one and names a thing this one names ("Our Baby Room cares for babies
    from 6 months to 2 years. A full day in the Baby Room costs £80.")."""
    if unit.kind == "row" or _age_spans(unit.text):
        return unit.text
    before = _next(unit, units, -1)
    if (
        before is None
        or before.kind != unit.kind
        or not (before.terms & unit.terms)
        or not _age_spans(before.text)
        or not _one_paragraph(before, unit)
    ):
        return unit.text
    return f"{before.text} {unit.text}"
