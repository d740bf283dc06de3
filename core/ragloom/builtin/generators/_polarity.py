"""Conditions, rules and negations: whether a sentence says the opposite case,
rules on another verb, or denies what a question asks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ._groups import _ONLY
from ._names import mentions
from ._text import TOKEN, content_terms, stem
from ._units import _Unit

_RULE = re.compile(
    r"\b(?:not|no|never|cannot|can't|only|allowed|permitted|accepted|welcome|prohibited"
    r"|forbidden|banned|must|may)\b",
    re.IGNORECASE,
)
"""Words of a rule: what may, must or may not be done."""


_DENIAL = re.compile(
    r"\b(?:has|have|had|with|there\s+is|there\s+are)\s+no\s+((?:[\w-]+\s+){0,2}[\w-]+)"
    r"|\b(?:does|do|did)\s*(?:not|n't)\s+"
    r"(?:have|include|come with|offer|support|receive|get|earn|accrue)\s+"
    r"(?:an?\s+|any\s+)?((?:[\w-]+\s+){0,2}[\w-]+)"
    r"|\b(?:(?:is|are)\s+not|isn't|aren't)\s+(?:entitled|eligible)\s+(?:to|for)\s+"
    r"(?:an?\s+|any\s+)?((?:[\w-]+\s+){0,2}[\w-]+)",
    re.IGNORECASE,
)
_FREE_OF = re.compile(r"\b([a-z]+)-free\b", re.IGNORECASE)
"""A thing said to have none of what it names: "books are fine-free"."""


_SIDES = {
    "outside": "in inside within",
    "in": "outside",
    "inside": "outside",
    "within": "outside",
    "with": "without",
    "without": "with",
    "before": "after",
    "after": "before",
    "under": "over above",
    "below": "over above",
    "over": "under below upto",
    "above": "under below upto",
    "upto": "over above",  # "up to EUR 2,000" (as _CONDITION reads it)
}
"""A condition's word and the words that state the opposite one."""
_CONDITION = re.compile(
    r"\b(" + "|".join(_SIDES).replace("upto", r"up\s+to") + r")\s+"
    r"(?:(?:the|a|an|my|your|our|their|this|that)\s+)?([^\W\d_]{3,})",
    re.IGNORECASE,
)


_ALTERNATIVES = (
    (frozenset({"monthly"}), frozenset({"annual", "annually", "yearly"})),
    (frozenset({"weekday", "weekdays"}), frozenset({"weekend", "weekends"})),
    (frozenset({"summer"}), frozenset({"winter"})),
)
"""Alternatives a question picks one of ("if I pay monthly"): a sentence
about only the other is about someone else's case."""


def _day_things(text: str) -> set[tuple[str, str]]:
    """The things of one weekday a text names: ("saturday", "ceremoni")."""
    return {
        (match.group(1).lower(), terms[0])
        for match in _DAY_NOUN.finditer(text)
        if (terms := content_terms(match.group(2)))
    }


_DAY_NOUN = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\s+([a-z]{3,})\b",
    re.IGNORECASE,
)
"""A thing of one weekday ("a Saturday ceremony"), which another day's is not."""
_BILLED = frozenset({"monthly", "annual", "annually", "yearly"})
_BILLING = re.compile(
    r"\b(?:pay|paid|paying|billed|billing|bill)\s+(?:monthly|annually|yearly)\b"
    r"|\b(?:monthly|annual|yearly)\s+(?:billing|payments?|plan)\b|\bper\s+(?:month|year)\b",
    re.IGNORECASE,
)
"""A question that picks how it is billed ("if I pay monthly"), not one that
asks the monthly price of a thing."""
_PER_PERIOD = re.compile(r"\b(?:per|a|an|each|every)\s+(month|year)\b")


def _as_adverb(match: re.Match[str]) -> str:
    return "monthly" if match.group(1) == "month" else "yearly"


def _side(word: str) -> str:
    """A condition's word as ``_SIDES`` names it ("up to": ``upto``)."""
    return "".join(word.lower().split())


def _opposes(question: str, text: str) -> bool:
    """Whether the sentence speaks of the opposite of a condition the question
    sets ("free for anyone who lives in the city" to "How much does it cost
    if I live outside the city?"), or only of the other of two alternatives
    (annual billing to "if I pay monthly", winter to summer): an answer for
    someone else."""
    asked_words = set(TOKEN.findall(_PER_PERIOD.sub(_as_adverb, question.lower())))
    said_words = set(TOKEN.findall(_PER_PERIOD.sub(_as_adverb, text.lower())))
    if not _BILLING.search(question):  # "the monthly price" is no condition
        asked_words -= _BILLED
    for one, other in _ALTERNATIVES:
        for mine, theirs in ((one, other), (other, one)):
            if (
                asked_words & mine
                and not asked_words & theirs
                and said_words & theirs
                and not said_words & mine
            ):
                return True  # "If you pay annually, ..." to "... if I pay monthly?"
    # "the fee for a Saturday ceremony" to "... for a Friday ceremony?"
    days_asked = _day_things(question)
    if days_asked:
        days_said = _day_things(text)
        if any(
            (day, noun) not in days_said and any(n == noun for _, n in days_said)
            for day, noun in days_asked
        ):
            return True
    asked = {(_side(m.group(1)), stem(m.group(2).lower())) for m in _CONDITION.finditer(question)}
    if not asked:
        return False
    said = {(_side(m.group(1)), stem(m.group(2).lower())) for m in _CONDITION.finditer(text)}
    return any(
        (other, noun) in said and (word, noun) not in said
        for word, noun in asked
        for other in _SIDES[word].split()
    )


_CLAUSE_BREAK = re.compile(r"[,;:(]|[.!?](?=\s)")


def _rules_on(
    unit: _Unit, verb: str, thing: set[str], question: Sequence[str], named: set[str]
) -> bool:
    """Whether a rule is about what a yes/no question asks to do. What it
    rules on (the words before its first rule word, in that clause) is a
    pronoun ("we do not accept cheques"), or something the question says
    ("Cats ... are not accepted" to "Can I bring my cat?"), or a word made
    from its verb ("Cancellations cannot be made by phone" to "Can I cancel
    over the phone?"): "Pets are not allowed in the rooms" says nothing of
    swimming in one. And the thing the question's verb acts on, if any, is
    in it."""
    if (thing - named) and not (thing - named) & unit.terms:
        return False
    rule = _RULE.search(unit.text)
    if rule is None:
        return False
    subject = content_terms(_CLAUSE_BREAK.split(unit.text[: rule.start()])[-1])
    asked = set(question)
    return not subject or any(
        term in asked or (len(verb) >= 3 and term.startswith(verb)) for term in subject
    )


def _rules_another_verb(text: str, verb: str) -> bool:
    """Whether the verb a rule negates is another doing than ``verb`` (a
    stem): "We do not *repair* ..." to "sell"; not a verb that permits
    ("not accepted", "not allowed") or "be" ("cannot be made")."""
    negated = _NEGATED_VERB.search(text)
    if negated is None:
        return False
    word = next(group for group in negated.groups() if group).lower()
    said = content_terms(word)
    return (
        bool(said)
        and word not in _PERMITTING
        and not said[0].startswith(verb)
        and not verb.startswith(said[0])
    )


_NEGATED_VERB = re.compile(
    r"\b(?:do|does|did|will|would|can|could|may|must|should)\s*(?:not|n't)\s+([a-z]+)\b"
    r"|\b(?:cannot|never|won't|can't|don't|doesn't)\s+([a-z]+)\b",
    re.IGNORECASE,
)
_PERMITTING = frozenset(
    {"be", "have", "accept", "allow", "permit", "take", "let", "welcome", "offer", "provide",
     "support", "include", "use", "get", "do", "make", "go", "come", "bring"}
)  # fmt: skip
"""Verbs a rule may say any doing with ("We do not accept cheques")."""
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b")


def _only_another(text: str, names: Sequence[str]) -> bool:
    """Whether the sentence limits something to another named thing than the
    question's ("only available in the Harbour Suite" to a question about the
    Classic Double): a rule that answers no."""
    if not names or _ONLY.search(text) is None:
        return False
    lowered = [name.lower() for name in names]
    others = [m.group(0) for m in _NAME.finditer(text)]
    return any(
        not any(name in other.lower() or other.lower() in name for name in lowered)
        for other in others
    ) and not any(mentions(text, name) for name in names)


def _denies(text: str, asked: Mapping[str, float], *, strict: bool = False) -> bool:
    """Whether the sentence says that what the question asks about, or the
    thing it names, is not there ("The X500 Pro has no internal battery" to
    "How long does the X500 Pro battery last?", "There is no N3 line" to
    "When does the N3 run?"): an answer whatever figure the question wants.
    ``strict``: the denied thing is not another of its kind, since every word
    before the asked one is asked too ("no DVD collection" denies DVDs; "no
    senior day pass" is no answer about a monthly pass, nor "no fee for DVDs"
    about DVDs)."""
    for match in _DENIAL.finditer(text):
        said = content_terms(match.group(1) or match.group(2) or match.group(3))
        first = next((i for i, term in enumerate(said) if term in asked), None)
        if first is not None and not (strict and any(t not in asked for t in said[:first])):
            return True
    return False


_NEGATED = re.compile(
    r"\b(?:not|never|cannot|no longer|\w+n't)\s+(?:be\s+|been\s+)?([\w-]+)", re.IGNORECASE
)


def _negates(text: str, keys: Sequence[str]) -> bool:
    """Whether the sentence denies the doing a yes/no question asks about, in
    its own verb: "No, we do not match competitors' prices" to "Do you price
    match?", "Express shipping cannot be delivered to PO boxes" to "Can I get
    express delivery to my PO box?". (Its words must be there too: the
    question's most specific ones are ``keys``.)"""
    return any(stem(match.group(1).lower()) in keys for match in _NEGATED.finditer(text))


def _free_of(unit: _Unit, question: str, keys: Sequence[str]) -> bool:
    """Whether the unit says that what a yes/no question asks about is not
    there, as "X-free" ("books are fine-free" to "Are there fines for
    books?"): X is one of the question's most specific words, the unit
    says the others ("Booking online is fee-free" says nothing of a fee for
    cancelling), and the question does not ask for an X-free thing itself
    ("Do you sell gluten-free bread?")."""
    for match in _FREE_OF.finditer(unit.text):
        said = content_terms(match.group(1))
        if not said or re.search(rf"\b{re.escape(match.group(1))}-free\b", question, re.I):
            continue
        denied = said[0]
        if denied in keys and all(
            t in unit.terms or t in unit.context for t in keys if t != denied
        ):
            return True
    return False
