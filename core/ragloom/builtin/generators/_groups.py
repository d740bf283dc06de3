"""Who a sentence is for: the groups and age bands a question and a sentence
name, and the counts and measures they say.
"""

from __future__ import annotations

import re

from ._figures import NUMBER_WORDS
from ._people import AGE_BANDS, GROUP_WORDS, STAFF
from ._text import GENERIC_STEMS, content_terms, stem
from ._units import _Unit

_MEASURED = re.compile(
    r"\d\s*(?:kg|g|lbs?|oz|t|tonnes?|GB|MB|TB|KB|l|litres?|liters?|ml|cl|km|m|cm|mm|miles?"
    r"|kWh|kW|W|bags?|sacks?|cups?|bottles?|boxes?|packs?)\b",
    re.IGNORECASE,
)
"""A figure in a measure: what "how much coffee" or "how much storage" is said in."""


def _says_of(unit: _Unit, thing: set[str], *, counts: bool = False) -> bool:
    """Whether the unit, its heading or its columns say ``thing`` (one of
    its terms). With ``counts``, a sentence with figures counts it: a figure
    comes just before it ("up to 4 sacks", "two bags"), not somewhere beside
    it ("180 litres ... bagged pet waste"); a row's column, the heading or
    a label before a colon may say what its figures count."""
    columns = {t for c in unit.columns for t in content_terms(c)}
    if thing == _TIMES:
        # "You can reschedule an appointment twice", "up to 8 times"; not "Once
        # your order has shipped", nor "1.5 times the swim price"
        return bool(_ONCE.search(unit.text) or _N_TIMES.search(unit.text))
    if not thing & (unit.terms | unit.context | columns):
        return False
    if not counts or thing & (unit.context | columns):
        return True
    label, colon, _ = unit.text.partition(":")
    if colon and thing & set(content_terms(label)):
        return True  # "Free guest Day Passes: Fixed Desk – 1 per month; ..."
    words = _FIGURE_WORD.findall(unit.text.replace("-", " "))
    figures = [i for i, w in enumerate(words) if w[0].isdigit() or w.lower() in _COUNT_WORDS]
    if not figures:
        return True  # "There is no fixed cap on sick days": no figure to check
    return any(thing & set(content_terms(" ".join(words[i + 1 : i + 4]))) for i in figures)


_TIMES = {stem("times")}
_ONCE = re.compile(
    r"\b(?:once|twice|thrice)\b(?=\s*(?:[.,;:!?)]|$|(?:a|an|per|every|each|in|during|only|more)\b))",
    re.IGNORECASE,
)
_N_TIMES = re.compile(
    r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten)\s+times\b"
    r"(?!\s+(?:the|as|more|less|higher|lower|faster|bigger)\b)",
    re.IGNORECASE,
)
"""How often, in one word: a count of times ("how many times")."""
_FIGURE_WORD = re.compile(r"\d[\d,.]*|[A-Za-z]+")
_COUNT_WORDS = NUMBER_WORDS | {"several", "many"}


def _counts(text: str, thing: set[str]) -> bool:
    """Whether a figure in ``text`` counts ``thing`` ("two permits", "up to 3
    extra bags"), a figure just before it."""
    words = _FIGURE_WORD.findall(text.replace("-", " "))
    return any(
        (word[0].isdigit() or word.lower() in _COUNT_WORDS)
        and thing & set(content_terms(" ".join(words[i + 1 : i + 3])))
        for i, word in enumerate(words)
    )


def _numbered(question: str) -> set[str]:
    """What a figure in a yes/no question counts ("three permits", "2 extra
    bags": ``permit``, ``bag``)."""
    return {
        term
        for match in _NUMBERED.finditer(question)
        if match.group(1).lower() != "one"
        for term in content_terms(match.group(2))[:1]
    }


_NUMBERED = re.compile(
    rf"\b(\d+|{'|'.join(sorted(NUMBER_WORDS))})\s+(?:(?:more|extra|additional)\s+)?([A-Za-z]+)",
    re.IGNORECASE,
)


_GROUP_PHRASE = re.compile(rf"\b(?:([a-z][\w-]*)\s+)?({GROUP_WORDS})\b", re.IGNORECASE)


def _group_phrases(text: str) -> set[tuple[str, frozenset[str]]]:
    """The groups of people ``text`` names, each as its noun and the word
    before it that says which ("postgraduate students": ``(student,
    {postgraduat})``; "except students": ``(student, {})``), staff aside."""
    phrases = set()
    for match in _GROUP_PHRASE.finditer(text):
        noun = content_terms(match.group(2))
        if not noun or noun[-1] in STAFF:
            continue
        before = (match.group(1) or "").lower()
        which = frozenset() if before in _NOT_WHICH else frozenset(content_terms(before))
        phrases.add((noun[-1], which))
        # "Undergraduate and postgraduate students": two kinds
        also = re.search(r"([a-z][\w-]*)\s+(?:and|or)\s+$", text[: match.start()], re.I)
        if which and also is not None and also.group(1).lower() not in _NOT_WHICH:
            phrases.add((noun[-1], frozenset(content_terms(also.group(1)))))
    return phrases


_NOT_WHICH = frozenset(
    {"except", "including", "excluding", "unlike", "like", "than", "for", "to", "all", "every",
     "each", "any", "our", "their", "your", "other", "some", "most", "many", "by", "with",
     "admit", "admits", "allow", "allows", "bring", "take", "accept", "accepts", "welcome",
     "welcomes", "serve", "have", "get", "let", "permit", "invite", "need", "want", "are",
     "is", "do", "can", "and", "or", "unaccompanied", "accompanied"}
)  # fmt: skip
"""Words before a group that do not say which of it ("except students")."""


def _same_group(said: tuple[str, frozenset[str]], asked: set[tuple[str, frozenset[str]]]) -> bool:
    """Whether a sentence's group is one the question asks of, or holds it:
    "students" holds "international students"; "postgraduate students" is
    another group than "international students"; "students" asked of is
    answered by any kind of student's rule."""
    noun, which = said
    return any(
        noun == a_noun and (not which or not a_which or which <= a_which)
        for a_noun, a_which in asked
    )


def _groups_in(text: str) -> list[str]:
    """The terms of the groups of people ``text`` names ("Employees get ...": ``employe``)."""
    return [t for g in _GROUP.findall(text) for t in content_terms(g)]


def _for_another_group(unit: _Unit, who: tuple[str, set[str]], question: set[str]) -> bool:
    """Whether a sentence grants something to a group of people that is not
    the asker's (``who``: "student", and the words before it, "senior",
    which name no group of their own) nor one the question names ("I'm an
    adult, do children travel free?"); one that limits it to such a group
    ("only available to seniors") answers no, and stays."""
    head, before = who
    if _ONLY.search(unit.text) is not None:
        return False
    groups = set(_groups_in(unit.text))
    if head in unit.terms:
        # "Residents pay 50% of the adult fare" is the residents' price, not
        # the adults': the asker's group is only what it is measured by
        measured = [
            m for m in _MEASURED_BY.finditer(unit.text) if head in content_terms(m.group(1))
        ]
        said = len(re.findall(rf"\b{re.escape(head)}", unit.text.lower()))
        others = groups - {head} - (question - before)
        return bool(measured) and len(measured) >= said and bool(others)
    if not groups:
        # a sentence for no group answers only what else the question asks
        # ("... on the Business plan?"), not the asker's own question
        # ("Discounts cannot be combined" to "can I get a discount?")
        rest = question - _QUALIFYING - GENERIC_STEMS - before - {head}
        return not rest & (unit.terms | unit.context)
    return not groups & (question - before)


_QUALIFYING = frozenset(
    stem(word)
    for word in (
        "discount", "discounted", "concession", "concessionary", "reduced", "reduction",
        "cheaper", "free", "eligible", "qualify", "entitled", "waived", "rate", "offer",
    )
)  # fmt: skip
"""What a yes/no question may ask that depends on who asks ("can I get a discount?")."""

_GROUP = re.compile(rf"\b(?:{GROUP_WORDS}|{AGE_BANDS}|\d+s)\b", re.IGNORECASE)
"""People a rule or a price may be for: "Seniors get 10% off", "free for under-5s"."""

_WHO_BY_AGE = (
    rf"(?:{GROUP_WORDS}|people|persons|those|anyone|everyone|passengers|drivers|riders"
    r"|players|swimmers|campers|climbers|customers|users|aged|ages|age)"
)
"""Words for people that an age band may follow ("Seniors (65+)", "aged 65 and over")."""
_NOT_AN_AGE = (
    r"(?!\s*(?:months?|weeks?|days?|nights?|kg|g|lbs?|cm|mm|m|km|miles?|minutes?|mins?|hours?"
    r"|hrs?|%|people|persons|guests|items|orders|tickets))"
)
_AGE_BANDS = (
    # "under-18s", "over 65s", "children under 16", "(under 15)"
    re.compile(
        r"\b(under|over)[- ]?(\d{1,3})s\b"
        r"|\b(?:children|kids|child|people|those|anyone|aged|ages?)\s+(under|over)\s+(\d{1,3})\b"
        rf"{_NOT_AN_AGE}"
        rf"|\((under|over)\s+(\d{{1,3}})\){_NOT_AN_AGE}",
        re.IGNORECASE,
    ),
    # "Seniors (65+)", "aged 65+", "aged 65 and over", "people 65 or older"
    re.compile(
        rf"\b{_WHO_BY_AGE}(?:\s+[\w-]+){{0,2}}\s*\(\s*(\d{{1,3}})\s*\+\s*\)"
        r"|\baged\s+(\d{1,3})\s*\+"
        rf"|\b{_WHO_BY_AGE}\s+(\d{{1,3}})\s+(?:and|or)\s+(?:over|older|above)\b",
        re.IGNORECASE,
    ),
    # "aged 5-15", "16-17 year olds", "5 to 15-year-olds"
    re.compile(
        r"\b(?:aged|ages)\s+(\d{1,3})\s*(?:-|–|to)\s*(\d{1,3})\b"
        r"|\b(\d{1,3})\s*(?:-|–|to)\s*(\d{1,3})[- ]years?[- ]olds?\b",
        re.IGNORECASE,
    ),
)
_OLDEST = 150


def _age_bands(text: str) -> set[tuple[int, int]]:
    """The ages ``text`` names a band of, each as its youngest and oldest
    age: "under-18s" ``(0, 17)``, "over-65s" and "(65+)" ``(65, 150)``,
    "aged 5-15" ``(5, 15)``."""
    under_over, and_over, between = _AGE_BANDS
    bands = set()
    for m in under_over.finditer(text):
        way, age = [g for g in m.groups() if g]
        n = int(age)
        bands.add((0, n - 1) if way.lower() == "under" else (n, _OLDEST))
    for m in and_over.finditer(text):
        bands.add((int(next(g for g in m.groups() if g)), _OLDEST))
    for m in between.finditer(text):
        low, high = (int(g) for g in m.groups() if g)
        if low <= high:
            bands.add((low, high))
    return bands


def _covers(band: tuple[int, int], asked: tuple[int, int]) -> bool:
    """Whether everyone of the ``asked`` band is in ``band`` (the under-18s
    hold the under-16s; the over-60s the over-65s)."""
    return band[0] <= asked[0] and asked[1] <= band[1]


def _overlaps(band: tuple[int, int], asked: tuple[int, int]) -> bool:
    return band[0] <= asked[1] and asked[0] <= band[1]


_MEASURED_BY = re.compile(
    rf"\b(?:of|than|as|half)\s+(?:the|an?|what)?\s*((?:{GROUP_WORDS})(?:'s|’s)?)\b",
    re.IGNORECASE,
)
"""A group a price is measured by: "50% of the adult fare", "half the child price"."""

_ONLY = re.compile(r"\bonly\b", re.IGNORECASE)
