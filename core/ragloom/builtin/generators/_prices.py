"""Prices: what a question asks the price of, the amounts a sentence says, and
whether a price is another thing's.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from ._figures import fits_kind
from ._groups import _GROUP, _groups_in
from ._text import GENERIC_STEMS, content_terms, stem
from ._units import _at, _Unit

_PAYING = frozenset({"pay", "paid", "cost", "charg", "fe", "fre"})
"""A yes/no question's words for paying: a sentence with a price says them."""
_PAY = frozenset({"pay", "paid", "spend", "ow"})
"""A question's verbs of paying, which a price answers without saying them."""


_PRICED = re.compile(
    r"\s*(?:how\s+much|what)\s+(?:"
    # "How much does it cost to hire a harness?", "How much is it to hire the hall?"
    r"(?:does|do|did|will|would)\s+it\s+cost|(?:is|was|would\s+it\s+be)\s+it"
    r")\s+to\s+(?P<verb>[a-z]+)\s+(.+)"
    # "How much does a new chain cost?", "What does a day pass cost?"
    r"|\s*(?:how\s+much|what)\s+(?:does|do|did|will|would)\s+"
    r"(?:(?:a|an|the|my|your|one)\s+)?(.+?)\s+cost\b"
    # "How much is a monthly berth?"
    r"|\s*how\s+much\s+(?:is|are)\s+(?:a|an|the|my|one)\s+(.+)"
    # "How much do under-18s pay for a punch card?"
    r"|\s*(?:how\s+much|what)\s+(?:do|does|did|will|would|should)\s+[\w\s'’-]+?\s+pay\s+"
    r"for\s+(.+)",
    re.IGNORECASE,
)
_NOT_OF_THE_THING = frozenset(
    (
        "to", "for", "on", "in", "at", "with", "from", "per", "during", "if", "when", "before",
        "after", "by", "less", "more", "than", "and", "or", "each", "every", "it", "them",
    )
)  # fmt: skip
"""Where the name of what a price question prices ends ("a harness *for* a day")."""
_MODIFIERS = frozenset(
    stem(w)
    for w in (
        "new", "extra", "additional", "another", "second", "single", "double", "monthly",
        "weekly", "daily", "annual", "yearly", "full", "half", "basic", "standard", "whole",
    )
)  # fmt: skip
"""Words of a priced thing's name that say no thing ("a *new* chain")."""
_DETERMINERS = frozenset(
    (
        "a", "an", "the", "my", "our", "your", "their", "his", "her", "this", "that", "these",
        "those", "some", "one",
    )
)  # fmt: skip
_PRICE_NOUNS = frozenset(
    stem(w)
    for w in (
        "price", "cost", "fee", "charge", "rate", "rent", "deposit", "excess",
        "surcharge", "premium", "amount", "total", "bill", "it", "much",
    )
)  # fmt: skip


class _Priced(NamedTuple):
    """What a price question prices (``_priced_thing``)."""

    terms: frozenset[str] = frozenset()
    """Its name's words (but a mere modifier), with the other words for each
    thing: a sentence must say one."""
    heads: frozenset[str] = frozenset()
    """Its head nouns (and the doing priced), with the other words for each."""
    words: frozenset[str] = frozenset()
    """Every word of its name, modifiers too ("monthly", "pass")."""
    doing: str | None = None
    """The doing priced, where it is one ("to *park* a car": ``park``)."""
    kinds: frozenset[tuple[str, frozenset[str]]] = frozenset()
    """Each kind asked of a thing: the word before its head, with the head's
    terms ("*express* delivery": ``("express", {"deliveri"})``)."""
    words_before: tuple[str, ...] = ()
    """The words before each head, lower-cased ("all-day", "visitor")."""


def _priced_thing(question: str) -> _Priced:
    """What a price question prices: "How much does it cost to hire a
    harness?" a harness, "How much does a new chain cost?" a chain; a
    sentence must say it ("Shoe hire costs £4" prices no harness). The
    words for one thing stand for each other ("ticket", "fare"), and a doing
    priced stands for itself ("to *park* a car": parking). Nothing for a
    price itself ("How much is the monthly fee?"), a group of people, the
    generic, a question of two parts ("... cost and is parking included?")
    and where the question is not so made ("How much does it cost to park?")."""
    match = _PRICED.match(question)
    if match is None or _TWO_QUESTIONS.search(question):
        return _Priced()  # ("... cost *and is* parking included?": two questions)
    phrases: list[list[str]] = [[]]
    for word in re.findall(r"[\w'’-]+", next(g for g in match.groups()[1:] if g)):
        low = word.lower()
        if low in {"and", "or"}:
            phrases.append([])  # "a harness and shoes": either
            continue
        if not phrases[-1] and low in _DETERMINERS:
            continue  # ("hire *a* harness")
        if low in _NOT_OF_THE_THING or low in _DETERMINERS:
            break  # ("a *10-visit punch card* for under-18s": the card)
        if len(phrases[-1]) == 3:
            return _Priced()  # no noun phrase: "How much does it cost to X Y Z W"
        phrases[-1].append(word)
    terms: set[str] = set()
    heads: set[str] = set()
    words: set[str] = set()
    kinds: set[tuple[str, frozenset[str]]] = set()
    words_before: list[str] = []
    for phrase in phrases:
        head = content_terms(phrase[-1]) if phrase else []
        if not head or _GROUP.fullmatch(phrase[-1]):
            continue
        if head[-1] in _PRICE_NOUNS or head[-1] in GENERIC_STEMS or head[-1].isdigit():
            return _Priced()
        said = {t for w in phrase for t in content_terms(w) if not t.isdigit()}
        # ("winter storage *ashore*": any word of it but a mere modifier ("new"))
        terms |= said - _MODIFIERS - GENERIC_STEMS
        heads.add(head[-1])
        words |= said
        # (not a measure: "a 60 minute class")
        if (
            len(phrase) > 1
            and content_terms(phrase[-2])
            and not phrase[0][0].isdigit()
            and phrase[-2].lower() not in _NO_KIND
        ):
            kinds.add((phrase[-2].lower(), frozenset(_same_things({head[-1]}))))
        words_before += [w.lower() for w in phrase[:-1]]
    if not terms:
        return _Priced()
    verb = match.group("verb")
    if verb:  # ("to *replace* a lost card": "A replacement card" is that kind)
        words_before.append(verb.lower())
    doing = None
    if verb and verb.lower() not in _GETTING:
        said_verb = content_terms(verb)  # "to *park* my car": "Parking costs £8"
        doing = said_verb[0] if said_verb else None
        terms |= set(said_verb)
        heads |= set(said_verb)
    return _Priced(
        frozenset(_same_things(terms)),
        frozenset(_same_things(heads)),
        frozenset(words),
        doing,
        frozenset(kinds),
        tuple(words_before),
    )


_NO_KIND = frozenset({"new", "extra", "additional", "another", "second", "more", "cheap"})
"""Words before a thing that name no kind of it ("a *new* passport")."""


def _kinds_said(text: str, head: frozenset[str]) -> set[str]:
    """The words ``text`` writes just before a word of ``head`` ("Standard
    delivery", "An off-peak return"), lower-cased: the kinds it names."""
    words = _KIND_WORD.findall(text)
    terms = [content_terms(word) for word in words]
    return {
        words[i - 1].lower()
        for i in range(1, len(words))
        if terms[i] and terms[i][-1] in head and terms[i - 1] and not words[i - 1][0].isdigit()
    }


_KIND_WORD = re.compile(r"[^\W_][\w'’-]*")


def _same_kind(said: str, asked: Sequence[str]) -> bool:
    """Whether the kind a passage writes (``said``: "all-day", "beginners'",
    "annual") is one the question writes before the thing (``asked``: "all",
    "day"; "beginner"; "yearly"), however hyphened, in whichever number, or
    in another word for it; "off-peak" is not "peak"."""
    if not asked:
        return False
    parts = _kind_parts(said)
    wanted = {t for word in asked for t in _kind_parts(word)}
    joined = {word.replace("-", "") for word in asked} | {"".join(asked[-2:])}
    return bool(parts) and (parts <= wanted or said.replace("-", "") in joined)


def _kind_parts(word: str) -> set[str]:
    """A kind word's terms, each part of a hyphened one, and the other
    words for it (``_SAME_KIND``)."""
    parts = (re.sub(r"['’]s?$", "", part) for part in re.split(r"[-\s]+", word.lower()))
    terms = {stem(part) for part in parts if part}  # ("off" too: "off-peak" is not "peak")
    for same in _SAME_KIND:
        if terms & same:
            terms |= same
    return terms


_SAME_KIND = (
    frozenset(stem(w) for w in ("annual", "yearly")),
    frozenset(stem(w) for w in ("extra", "additional")),
)
"""Words for one kind of a thing ("an *annual* pass" is a yearly one)."""


def _says_kind(text: str, kind: str) -> bool:
    """Whether ``text`` writes the word ``kind`` on its own ("next day" for
    "next-day"; "peak" is not said by "off-peak")."""
    pattern = re.escape(kind).replace(r"\-", "[- ]")
    return re.search(rf"(?<![\w-]){pattern}(?![\w-])", text, re.IGNORECASE) is not None


def _same_things(terms: set[str]) -> set[str]:
    """``terms`` with the other words for each thing they name (``_SAME_THING``)."""
    for same in _SAME_THING:
        if terms & same:
            terms = terms | same
    return terms


_GENERIC_ASKS = frozenset(stem(w) for w in ("much", "cost", "costs", "price", "come", "go", "get"))


def _may_price(
    unit: _Unit, thing: set[str], before: Mapping[tuple[str, int], frozenset[str]]
) -> bool:
    """Whether ``unit`` may be a price of ``thing``: it, its heading or the
    sentence before it names it, and it prices nothing else after its sum."""
    if not thing:
        return True
    said = unit.terms | unit.context | unit.outer | before.get(_at(unit), frozenset())
    return bool(thing & said) and not _prices_for_another(unit.text, thing)


def _sentences_before(units: Sequence[_Unit]) -> dict[tuple[str, int], frozenset[str]]:
    """Each unit's place (``_at``) -> the terms of the sentence before it in its
    chunk (what an elliptical "Seniors pay £12." is of)."""
    by_chunk: dict[str, list[_Unit]] = {}
    for unit in units:
        by_chunk.setdefault(unit.chunk.id, []).append(unit)
    before: dict[tuple[str, int], frozenset[str]] = {}
    for chunk_units in by_chunk.values():
        chunk_units.sort(key=lambda u: u.position)
        antecedent: frozenset[str] = frozenset()
        for unit in chunk_units:
            before[_at(unit)] = antecedent
            # (past a run of other groups' prices: "Monthly membership costs
            # £40. Seniors pay £30. Students pay £25 a month.")
            if not _bare_price(unit.text):
                antecedent = unit.terms
    return before


def _bare_price(text: str, whom: Collection[str] = ()) -> bool:
    """Whether a sentence says a price and whom it is for (its groups, and
    ``whom``: the terms of the group asked about), and nothing of what it is
    of ("Seniors pay £30.", "Non-members pay £2 each."): what it prices is
    in the sentence before it."""
    if not fits_kind("money", text):
        return False
    rest = set(content_terms(text)) - set(_groups_in(text)) - set(whom)
    rest -= _PAY | _PAYING | _PER_WHAT | {"each", "onli", "just", "flat", "instead", "also"}
    return all(t.isdigit() or t.rstrip("p").isdigit() for t in rest)


_FOR_A_THING = re.compile(
    r"(?:[$€£]\s?\d[\d.,]*|\d[\d.,]*\s?(?:p|EUR|USD|GBP)\b|\bfree)\s+for\s+(?:an?|the|each|every)\s+"
    r"([\w-]+(?:\s+[\w-]+)?)"
    # "Over-65s get free entry to the museum" (not "travel free with a pass")
    r"|\bfree\s+(?!(?:of|for|to|on|with|at|in|from|and|or|if|when|during|until)\b)([a-z][\w-]*)",
    re.IGNORECASE,
)


_PER_WHAT = frozenset(
    stem(w)
    for w in (
        "night", "day", "week", "month", "year", "hour", "minute", "session", "person",
        "visit", "stay", "lifetime", "limited", "time", "while", "period", "further",
    )
)  # fmt: skip
"""What a price is per or for a while ("£8 for a night"), not a thing priced."""


def _prices_for_another(text: str, thing: set[str]) -> bool:
    """Whether a sentence prices a thing other than ``thing`` (its words)
    after its sum: "Under-16s pay £8 *for a paddleboard*" is no kayak's
    price, nor "... for a day pass" a monthly pass's."""
    for match in _FOR_A_THING.finditer(text):
        said = match.group(1) or match.group(2)
        terms = set(content_terms(said))
        if _GROUP.search(said) or not terms or terms <= _PER_WHAT:
            continue  # ("£8 for a night", "free for a child")
        if not terms & thing or (match.group(1) and not thing <= _same_things(terms)):
            return True
    return False


_TWO_QUESTIONS = re.compile(
    r"\b(?:and|or|,)\s+(?:is|are|was|do|does|did|can|could|will|would|should|what|how|when"
    r"|where|who|which)\b",
    re.IGNORECASE,
)
_GETTING = frozenset(
    (
        "hire", "rent", "buy", "get", "book", "bring", "use", "have", "take", "add", "order",
        "purchase", "borrow", "reserve", "join", "replace", "upgrade", "keep",
    )
)  # fmt: skip
"""Verbs of getting a thing: what "it cost to *hire* a harness" prices is the harness."""
_SAME_THING = tuple(
    frozenset(stem(w) for w in group)
    for group in (
        ("ticket", "fare"),
        ("parcel", "package"),
        ("racquet", "racket"),
        ("bike", "bicycle", "cycle"),
        ("admission", "entry", "entrance"),
        ("membership", "subscription"),
    )
)
"""Words for one priced thing ("a ticket" is the fare a page prices)."""

_CURRENCY_CODE = r"EUR|USD|GBP|CAD|SGD|AUD|CHF|NZD|JPY|€|\$|£"
_AMOUNT = re.compile(
    rf"(?:\b|(?<=[\s(]))(?:({_CURRENCY_CODE})\s?(\d[\d,]*(?:\.\d+)?)"
    rf"|(\d[\d,]*(?:\.\d+)?)\s?({_CURRENCY_CODE})(?![A-Za-z]))"
)
_SYMBOLS = {"€": "EUR", "$": "USD", "£": "GBP"}
_UPPER = re.compile(
    r"\b(?:up to|at most|a maximum of|maximum of|no more than|not more than|under|below|"
    r"less than|limited to)\s+$",
    re.IGNORECASE,
)
_LOWER = re.compile(r"\b(?:above|over|more than|exceeding|at least|from)\s+$", re.IGNORECASE)


def _amounts(text: str) -> list[tuple[str, float]]:
    """The sums of money ``text`` writes, each as its currency and value
    ("EUR 30,000": ``("EUR", 30000.0)``), with where each starts."""
    return [(currency, value) for currency, value, _ in _amounts_at(text)]


def _amounts_at(text: str) -> list[tuple[str, float, int]]:
    out = []
    for match in _AMOUNT.finditer(text):
        code = match.group(1) or match.group(4)
        figure = match.group(2) or match.group(3)
        try:
            value = float(figure.replace(",", ""))
        except ValueError:
            continue
        out.append((_SYMBOLS.get(code, code), value, match.start()))
    return out


def _bounds_leave_out(text: str, asked: list[tuple[str, float]]) -> bool:
    """Whether a sentence's bounds leave out every sum the question gives:
    "up to EUR 25,000" leaves out EUR 30,000, "above EUR 25,000" leaves out
    EUR 900. Sums of another currency are not compared."""
    said = False
    for currency, value, start in _amounts_at(text):
        before = text[max(0, start - 24) : start]
        upper, lower = _UPPER.search(before), _LOWER.search(before)
        if not (upper or lower):
            continue
        for asked_currency, asked_value in asked:
            if asked_currency != currency:
                continue
            if (upper and asked_value <= value) or (lower and asked_value >= value):
                return False  # it speaks of one of them
            said = True
    return said
