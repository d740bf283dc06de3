"""Whether a sentence's price or table row is another thing's: "£50 for the
sauna" does not price the gym, and the Lite plan's row does not answer for
the Startup plan.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from ._groups import _GROUP
from ._measures import holds_measure, without_measures
from ._people import AskedAge, row_age_bands
from ._polarity import _CLAUSE_BREAK
from ._prices import _PAYING
from ._structure import _BRACKETED
from ._text import GENERIC_STEMS, TOKEN, content_terms, stem
from ._units import _Unit

_PER_HEAD = frozenset(
    stem(w)
    for w in (
        "user", "seat", "member", "person", "licence", "license", "agent", "head", "room",
        "bed", "place", "pitch", "berth", "desk", "plot", "night", "ticket", "pass",
    )
)  # fmt: skip
"""What a thing is priced by: "Each user on the Business plan costs $15",
"A room in Birch Court costs £128 per week" price the plan and the hall."""
_CARRIERS = frozenset(
    stem(w) for w in ("bus", "train", "tram", "ferry", "shuttle", "coach", "boat", "route", "line")
)
"""What a pass or a ticket is on, not the place it goes to ("the Zoo bus")."""


_PRICES = re.compile(
    r"\b(?:costs|costing|is priced|are priced|is charged|are charged|is free|are free|sells? for"
    r"|retails? for)\b"
    # "Tickets cost €5", not the noun of "at no extra cost", "the cost of"
    r"|(?<!\bno )(?<!\bextra )(?<!\bthe )(?<!\ba )(?<!\bits )(?<!\btheir )(?<!\bany )"
    r"(?<!\btotal )(?<!\bfull )(?<!\breplacement )(?<!\badditional )\bcost\b(?!\s+of\b)",
    re.IGNORECASE,
)
"""The verb that prices a sentence's subject."""


def _prices_another(
    text: str, asked: Mapping[str, float], spoken: Collection[str] = (), question: str = ""
) -> bool:
    """Whether what the sentence prices is another thing than the question
    asks about: the subject of its "costs" shares no word with the question
    ("An extra bed costs €35 per night and is only available in the Harbour
    Suite" does not say what the Harbour Suite costs; "A replacement card
    costs €3" is not what membership costs). A pronoun subject ("It costs
    $199") is the sentence before's, which is quoted with it. Whom it is
    for counts as what it prices ("Entry costs €5 for adults" to "an adult
    ticket"), unless the question names a thing the passages speak of
    (``spoken``) that the subject does not say: "Half board costs €41 for
    non-members" is no price of a dorm bed for a non-member."""
    match = _PRICES.search(text)
    if match is None:
        return False
    # "The Main Hall costs £4,500, *The Loft £1,200*, and ...": a list of
    # prices, one of them the asked thing's
    for listed in _LISTED_PRICE.finditer(text, match.end()):
        if set(content_terms(listed.group(1))) & set(asked):
            return False
    # an aside in brackets is no part of the subject ("express delivery (next
    # day) costs 14.90 EUR" prices express delivery, not a day)
    before = _CLAUSE_BREAK.split(_ASIDE.sub(" ", text[: match.start()]))[-1]
    if not TOKEN.findall(before) and _AFTER_COMMA.search(text, 0, match.start()):
        # "Associate membership, for people who ..., costs £4": the subject
        # is before the clause set off by commas
        before = text[: match.start()].split(",", 1)[0]
    # the subject of two verbs is before the first ("*Rotavators* must be
    # booked through the Site Secretary and cost £5")
    verb = _FIRST_VERB.search(before)
    if (
        verb is not None
        and re.search(r"\band\s*$", before)
        and TOKEN.findall(before[: verb.start()])
    ):
        before = before[: verb.start()]
    words = TOKEN.findall(before)[-_SUBJECT_WORDS:]
    if not words or any(word.lower() in _POINTING for word in words):
        return False
    # the subject's head: its last word before a preposition ("A single
    # *ticket* on the Harbour Line ...", "A lost *item*", "An extra *bed*")
    core, *complement = _SUBJECT_CORE.split(" ".join(words), 1)
    # (what it is of, not where it holds: "Extra labels *on the Growth plan*"
    # price labels, not the plan)
    scope = re.match(rf"{re.escape(core)}\s+(?:on|in|at|with|during|within)\s", " ".join(words))
    if scope is not None and not set(content_terms(core)) & _PER_HEAD:
        complement = []
    elif scope is not None:
        # "Each *user* on the Business plan costs $15" prices the plan, "A
        # room in Birch Court (for the academic year)" the hall; but "A pass
        # on the Zoo bus" the bus
        first = _SUBJECT_CORE.split(" ".join(complement), 1)[0]
        noun = content_terms(first)[-1:]
        # its last noun, and the names it holds ("Birch Court", "Sunny Meadows
        # campsite"; not "the conference dinner"'s conference)
        names = [w for w in first.split() if w[:1].isupper()]
        complement = (
            noun
            if noun[-1:] and noun[-1] in _CARRIERS
            else [*noun, *content_terms(" ".join(names))]
        )
    # and before a participle after it ("Hygiene *appointments* cancelled late")
    # (lower case, and followed by no noun: "Evening *guided* walks", "High Speed" are none)
    core_words = core.split()
    for i in range(1, len(core_words)):
        after = core_words[i + 1] if i + 1 < len(core_words) else ""
        if (
            _PARTICIPLE.fullmatch(core_words[i])
            and content_terms(core_words[i - 1])
            and (not after or not content_terms(after) or after.lower() in _MANNER)
        ):
            core = " ".join(core_words[:i])
            break
    subject = content_terms(" ".join(words))
    head = content_terms(" ".join(w for w in core.split() if not _ADVERB.fullmatch(w)))[-1:]
    head = head or subject[-1:]
    # and what the head is of ("Admission *to the castle*"), and the names
    # in the subject ("The *Pro* plan")
    head += content_terms(" ".join(complement))
    head += content_terms(" ".join(w for w in core.split()[1:] if w[:1].isupper()))
    # "Entry costs €5 for adults", "Extra time costs members half the rate":
    # whom the price is for is what it prices too
    beneficiary = _PRICE_FOR.match(text, match.end()) or _PRICE_TO.match(text, match.end())
    if beneficiary is not None:
        whom = content_terms(beneficiary.group(1))
        things = {
            t
            for t in asked
            if t in spoken and t not in whom and t not in _PAYING and t not in GENERIC_STEMS
        }
        if things and not things & set(subject) and not _GROUP.fullmatch(" ".join(words)):
            return True
        head += whom
    if bool(subject) and not any(term in asked for term in head):
        return True
    return bool(question) and _another_kind(core, question, text[: match.start()])


def _another_kind(subject: str, question: str, before: str) -> bool:
    """Whether the subject's core (its words before a preposition) and the
    question name two kinds of one thing, each by the word right before it,
    the sentence naming the question's kind too: "Standard delivery takes
    2-4 days; express delivery (next day) costs 14.90 EUR" is no price of
    standard delivery. Not a question without such a word ("How much is
    delivery?", "the late fee for books"), nor one whose kind the sentence
    does not name ("overnight parking" to "Hotel parking costs ...") or
    names in the subject's aside ("next-day delivery")."""
    said = TOKEN.findall(subject.lower())
    if len(said) < 2 or not content_terms(said[-1]) or not content_terms(said[-2]):
        return False
    head, mine = stem(said[-1]), stem(said[-2])
    said_stems = {stem(w) for w in TOKEN.findall(_CLAUSE_BREAK.split(before)[-1].lower())}
    said_stems |= {stem(w) for w in said}
    words = TOKEN.findall(question.lower())
    asked = [stem(w) for w in words]
    for j in range(1, len(asked)):
        if asked[j] != head:
            continue
        theirs = asked[j - 1]
        if (
            content_terms(words[j - 1])
            and theirs != mine
            and theirs not in said_stems
            and mine not in asked
            and re.search(rf"\b{re.escape(words[j - 1])}\s+{re.escape(words[j])}", before, re.I)
        ):
            return True
    return False


_ASIDE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_PARTICIPLE = re.compile(r"[a-z]{3,}ed")
_MANNER = frozenset({"late", "early", "later", "earlier", "online", "today", "twice", "again"})
_AFTER_COMMA = re.compile(r",\s*$")
_LISTED_PRICE = re.compile(r",\s*(?:and\s+)?((?:[A-Za-z][\w'’-]*\s+){1,4}?)[£$€]\s?\d")
"""A later item of a list of prices after "costs": ", The Loft £1,200"."""
_FIRST_VERB = re.compile(
    r"\b(?:must|can|cannot|could|will|would|should|may|might|is|are|was|were|has|have"
    r"|needs?|requires?|includes?|takes?|comes?)\b",
    re.IGNORECASE,
)
_SUBJECT_CORE = re.compile(
    r"\s(?:on|in|at|of|for|between|from|to|with|without|that|which|who|during|per|beyond|over"
    r"|above|under|below|after|before|within|into|by|like|including|except|up)\s",
    re.IGNORECASE,
)
_ADVERB = re.compile(
    r"\w+ly|always|usually|often|sometimes|also|still|now|just|then|each|both|all|only|even",
    re.IGNORECASE,
)
_PRICE_TO = re.compile(
    r"\s+((?:[a-z]+\s+){0,2}?(?:members?|you|guests?|users?|customers?|students?"
    r"|children|adults?|seniors?|visitors?|residents?|non-members?))\b",
    re.IGNORECASE,
)
"""Whom "costs" prices for, right after it ("costs members half the rate")."""


_SUBJECT_WORDS = 12
"""The most words read back from "costs" for its subject, within its clause."""
_PRICE_FOR = re.compile(
    r"\s*[^\s\d]*\d\S*(?:\s+(?:a|an|per|each)\s+\w+)?\s+for\s+"
    r"((?:the\s+|an?\s+|each\s+|every\s+)?[\w-]+(?:\s+[\w-]+)?)",
    re.IGNORECASE,
)
"""The price after "costs" and whom or what it is for ("€5 for adults",
"£3 a day for members")."""


def _row_of_another(
    unit: _Unit,
    asked: Mapping[str, float],
    age: AskedAge | None = None,
    question: str = "",
) -> bool:
    """Whether a table row's label (its first cell) names another thing than
    the question asks the price of: "Payroll export | $3 per user per month"
    is no price of the Team plan (but "Young person (12–17)" is the price
    for the question's 15-year-old, and "Toddler Room | 2–3 years" for its
    2-year-old)."""
    if unit.kind != "row" or not unit.cells or not unit.columns:
        return False
    label = content_terms(unit.cells[0])
    # (what a label says in brackets is another name or a note: "Dormitory (Lager)")
    bare = _BRACKETED.sub("", unit.cells[0])
    bands = row_age_bands(unit.cells, unit.columns) if age is not None else []
    if age is not None and any(first <= age.months < end for first, end in bands):
        # (of the thing asked: "Swimming lesson | 5–8 years" is no tennis lesson)
        return _other_head(bare, question)
    if bands:
        return True  # "Climbing | 11–14 years | £12" for a 6-year-old
    if holds_measure(unit.cells[0], question):
        # "10 m to 14 m | £49 per night" is the price for a 12 m boat, but
        # "Swinging mooring up to 14 m" none for a pontoon berth
        rest = content_terms(without_measures(unit.cells[0]))
        return bool(rest) and not any(term in asked for term in rest)
    return bool(label) and (not any(term in asked for term in label) or _other_head(bare, question))


_HEAD_WORDS = 60
"""The words of a question and of a label read for ``_other_head`` (a name is near the start)."""


def _other_head(label: str, question: str) -> bool:
    """Whether a label names another thing in the question's words: "Pack of
    10 garden waste sacks" to "the garden waste bin" (words they share, then
    another noun in each, which the other never says)."""

    def words(text: str) -> list[str]:
        found = map(content_terms, re.findall(r"[a-z]+", text.lower()))
        return [t[0] if t else "" for t in found]

    said, named = words(question)[:_HEAD_WORDS], words(label)[:_HEAD_WORDS]
    for i, j in ((i, j) for i in range(len(said)) for j in range(len(named))):
        if not said[i] or said[i] != named[j] or (i and j and said[i - 1] == named[j - 1] != ""):
            continue  # not the start of a run of shared words
        k = 0
        while i + k < len(said) and j + k < len(named) and said[i + k] == named[j + k] != "":
            k += 1
        ours, theirs = said[i + k : i + k + 1], named[j + k : j + k + 1]
        if ours and theirs and ours[0] and theirs[0]:
            if ours[0] in _NO_HEAD or theirs[0] in _NO_HEAD:
                return False  # "hot desk cost" and "Hot desk monthly": one thing
            return ours[0] not in named and theirs[0] not in said
    return False


_NO_HEAD = frozenset(
    stem(word)
    for word in (
        "cost", "costs", "price", "prices", "fee", "fees", "charge", "rate", "rates", "fare",
        "today", "tomorrow", "tonight", "now", "online", "offline", "monthly", "annual",
        "annually", "yearly", "weekly", "daily", "month", "year", "week", "day", "night", "hour",
        "rental", "hire", "subscription", "plan", "tier", "package", "membership", "option",
        "standard", "basic", "per", "only", "included", "include", "includes", "each",
    )
)  # fmt: skip
"""Words after a thing's name that say no other thing: its price, when, how it is sold."""

_POINTING = frozenset({"it", "this", "that", "these", "those", "they", "which", "both"})
