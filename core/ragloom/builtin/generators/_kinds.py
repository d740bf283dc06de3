"""What kind of answer a question asks for (a price, a time, a count, a person,
...) and, for a count or an amount, of what.
"""

from __future__ import annotations

import re

from ._text import GENERIC_STEMS, content_terms, stem

__all__ = ["ANY_LEAVE", "LEAVE_KINDS", "answer_kind", "counted_kind", "counted_thing"]

_MONEY_AFTER_MUCH = frozenset(
    {
        "does", "do", "did", "is", "are", "was", "were", "will", "would", "can", "could",
        "should", "must", "money", "cash", "extra", "more", "less", "for", "per", "to", "in",
        "the", "a", "an", "my", "your", "our", "their", "this", "that", "it", "he", "she",
        "they", "we", "i", "you",
    }
)  # fmt: skip
"""Words after "how much" that leave it asking for a sum of money."""


_AMOUNT_NOUN = re.compile(
    r"\s+(?:\w+\s+){0,4}?(?:allowances?|limits?|capacity|quota|storage|space|bandwidth"
    r"|data|memory|volume|dose|dosage|intake|notice)\b",
    re.IGNORECASE,
)
"""What "how much is ..." may ask that is no sum ("the checked baggage allowance")."""


_MONEY_WORD = re.compile(
    r"\b(?:price|prices|cost|costs|fee|fees|charges|charged|surcharges?)\b"
    # a deposit as a thing held, not "deposit a cheque"; an insurance's excess
    r"|\b(?:a|the|any|no|what|which|your|my|security|damage|refundable)\s+deposits?\b"
    r"(?!\s+(?:cash|cheques?|checks?|money|funds|box))"
    r"|\b(?:the|an|what|what's|whats|which|my|your|our)\s+excess\b"
    r"(?=\s*(?:[?.!]|$)|\s+(?:on|for|if|with|when|is|are|do|does|will|would|i|we)\b)"
    r"|\b(?:a|an|the|any|no|extra|additional|this|that|what|which)\s+charge\b"
    # a fine or a penalty asked as a sum ("What is the fine for ...?"; not "How
    # do I appeal a fine?", "Is it fine to ...?")
    r"|\b(?:what|what's|whats|which)\s+(?:is\s+|are\s+|would\s+be\s+)?(?:the\s+|a\s+|my\s+)?"
    r"(?:[\w-]+\s+)?(?:fines?|penalty|penalties)\b"
    r"|\bhow much (?:do|does|will|would) (?:you|they|we|it) charge\b"
    # "how much do basic members pay", "how much will I spend": a sum
    r"|\bhow much (?:do|does|did|will|would|should|must|can|could)\b(?:\s+[\w'’-]+){1,4}?"
    r"\s+(?:pay|spend|owe|earn|get paid|be charged|be paid)\b"
    # and "what do seniors pay?" (not "what does she pay?", which "she pays
    # the child price" may answer)
    r"|\bwhat (?:do|does|did|will|would|should|must|can|could)\s+"
    r"(?!(?:i|you|we|they|he|she|it|one)\b)(?:[\w'’-]+\s+){1,3}?(?:pay|be charged)\b"
    r"(?=\s*(?:[?.!]|$|(?:for|to|on|in|at|per|if|when|each|a|an|the|now|extra)\b))",
    re.IGNORECASE,
)
"""A question about a sum; "charge" as a noun, or what "you charge" ("Can I
charge the X200 in under two hours?" asks no price); a deposit, a
surcharge, an insurance excess."""


_OWN_KINDS = tuple(
    (re.compile(pattern), kind)
    for pattern, kind in (
        (
            r"\b(?:phone|telephone|mobile|contact)\s+(?:number|no)\b"
            # (the question is read in lower case: "What number do I ring?")
            r"|\bnumber (?:to|(?:i|we) can|(?:can|do|should|could) (?:i|we))"
            r" (?:call|ring|phone|text)\b",
            "phone",
        ),
        (
            r"\be-?mail\s+address"
            r"|(?<!work )(?<!personal )(?<!company )(?<!business )(?<!corporate )(?<!private )"
            r"(?<!school )\be-?mail\b(?!\s+(?:me|us|you|them|account|accounts|signature|client"
            r"|app|notifications?|newsletters?|marketing|settings|alerts?|forwarding|server"
            r"|inbox|on|from)\b)",
            "email",
        ),
        (r"\b(?:percent|percentage)\b|\bwhat share\b", "percent"),
        (r"\bhow heavy\b|\bhow much (?:\w+\s+){1,4}?weighs?\b|\bweight of\b", "weight"),
        (r"\bhow far\b(?!\s+(?:in\s+)?(?:advance|ahead)\b)", "distance"),
        (r"\bhow old\b|\bwhat age\b|\bage limit\b|\bminimum age\b", "age"),
        (r"\bhow many\b", "count"),
        (r"\bhow often\b", "often"),
        (r"\b(?:which|what) days?\b|\bon which\b.*\bdays?\b", "day"),
        # "how long must a password be?": a measure ("at least 14 characters")
        (
            r"\bhow long (?:must|should|can|could|may|does|do|has to|have to|needs? to)\s+"
            r"(?!(?:i|we|you|they|he|she|it)\b)(?:[\w-]+\s+){1,3}?be"
            r"(?:\s+(?:for|in|on|at|with|when|if)\b[^?]*)?\s*[?.!]*\s*$",
            "size",
        ),
        # "how long is the ride/route/trail": a time or a length ("42 km")
        (r"\bhow long (?:is|are|was|were) (?:the|a|an|this|that|your|our|their)\b", "length"),
        (r"\bhow (?:long|soon)\b|\bhow far\s+(?:in\s+)?(?:advance|ahead)\b", "duration"),
        # "what time does the show start?": a clock time, not a date
        (r"\bwhat time\b", "clock"),
        # "What are the laundry opening hours?": times of day ("The laundry is
        # next to the shower block" says none)
        (r"\b(?:opening|closing) (?:hours|times)\b", "clock"),
        # "when did the office open?": a date, not its opening hours
        (
            r"^when (?:did|was|were)\b.*\b(?:open|opened|start|started|launch|launched|found"
            r"|founded|establish|established|begin|began|introduced|created|built|join|joined)\b",
            "past",
        ),
        # "How fast is the Wi-Fi?": a speed ("500 Mbps"), not how soon
        (
            r"\bhow fast (?:is|are|was|were) (?:the |your |our |a |an )?(?:[\w-]+ )?"
            r"(?:wi-?fi|internet|broadband|connection|network|download|upload|fibre|fiber)s?\b",
            "speed",
        ),
        (r"\bhow (?:fast|quickly)\b|^when\b", "time"),
    )
)
"""The kinds a question's own words ask for, in the order they are tried
(before a money word: "How long does it take to charge the X200?")."""


_DONE_BY_EMAIL = re.compile(
    r"^(?:can|could|do|does|did|is|are|will|would|may)\b"
    r"(?![^?]*\b(?:contact|reach|send|write|submit|email\s+address)\b)"
    r"[^?]*\b(?:by|via|over|through)\s+e-?mail\b"
)
"""A yes/no question about something done by email, not about where to write:
"Can the helpdesk reset my MFA by email?" (but "Can I reach billing by email?")."""


def answer_kind(question: str) -> str | None:
    """``money`` (price, cost, fee, charge: a sum), ``much`` (how much
    is/does...: a sum or another figure), ``count`` (how many),
    ``amount`` (how much of a thing: "how much storage"), ``often`` (how
    often), ``day`` (which days), ``duration`` (how long, how soon, how far in advance: a
    length of time, not a sum, a clock time or a date), ``length`` (how long is the ...: a
    length of time or a distance), ``time`` (how fast, when, what time),
    ``clock`` (what time: a time of day), ``place`` (where), ``weight``
    (how heavy, how much does it weigh), ``past`` (when did ...: a time, but
    not a clock time alone),
    ``distance`` (how far), ``speed`` (how fast is the Wi-Fi: "500 Mbps"),
    ``size`` (how long it must be: a measure, not a time), ``age`` (how
    old, what age), ``phone`` (a phone number), ``email`` (an email address), or None:
    what an answering
    sentence must hold (``place`` only when some sentence holds one: see
    ``fits_kind``)."""
    q = question.lower()
    # the question's own "how ..." first: "How long does it take to charge
    # the X200?" asks a time, "How often am I charged?" a frequency
    for pattern, kind in _OWN_KINDS:
        if pattern.search(q):
            if kind == "email" and _DONE_BY_EMAIL.search(q):
                continue  # "Can the helpdesk reset my MFA by email?": no address asked
            return kind
    if _MONEY_WORD.search(q):
        return "money"
    much = re.search(r"\bhow much\b(?:\s+(\w+))?", q)
    if much:
        # "how much does it cost", "how much is", "how much the Pro plan":
        # money; "how much time", "how much longer": a time; "how much annual
        # leave", "how much storage": an amount, which may be in words
        after = much.group(1)
        if after in {"is", "are", "was", "were", "will"}:
            # "how much is the Plus membership per month?"; but "how much is
            # the baggage allowance?" asks an amount ("23 kg")
            return "amount" if _AMOUNT_NOUN.match(q, much.end()) else "money"
        if after is None or after in _MONEY_AFTER_MUCH:
            # "how much does the X300 weigh?": a sum, or a figure of another unit
            return "much"
        return "time" if after in {"time", "longer", "sooner"} else "amount"
    if re.search(r"^(?:and\s+)?where\b|\bin which (?:city|country|place|region)\b", q):
        return "place"
    if _MEASURE_ASKED.search(q):
        return "amount"
    if _PERIOD_ASKED.search(q):
        return "time"
    return None


def _what_asks(nouns: str) -> re.Pattern[str]:
    """ "What's (the) ... <noun>?", the noun being what is asked: the question
    ends there, or says of what or for whom ("the deadline for ...")."""
    return re.compile(
        r"\bwhat(?:'s|’s|s|\s+is|\s+are|\s+was|\s+were|\s+will|\s+would)?(?:\s+be)?\s+"
        rf"(?:(?:the|my|your|our|their|its)\s+)?(?:[a-z][\w'’-]*\s+){{0,4}}?(?:{nouns})"
        r"(?=\s*(?:[?.!,]|$)|\s+(?:for|in|on|of|at|per|with|to|from|under|over|if|when|like"
        r"|is|are|was|were|be|do|does|will|would|can|could|i|we|you|they|he|she|that)\b)"
    )


_MEASURE_ASKED = _what_asks(
    r"limits?|speeds?|capacity|capacities|allowances?|maximum|minimum|max|min|caps?"
    r"|ceiling|quotas?|thresholds?|rates?|sizes?|dimensions|length|height|width|depth"
    r"|temperature|frequency|bandwidth|storage|scores?|discount"
)
""""What's the X limit / speed / rate / size ...?" asks a measure, which an
answer gives as a figure (or as none: "no limit", "unlimited"): "Nightly
limits include VAT" gives none. Not "what does the limit cover?"."""
_PERIOD_ASKED = _what_asks(r"periods?|terms?|deadlines?|duration|lifetime|validity")
""""What's the cooling-off period / the minimum term / the deadline?" asks a
time: "If you cancel within the cooling-off period ..." gives none."""


_COUNTED = re.compile(
    r"\bhow (?:many|much)\s+((?:[a-z][\w'’-]*\s+){0,3}[a-z][\w'’-]*)", re.IGNORECASE
)
_SAID_AS = {
    stem(word): group
    for words in (
        ("holiday", "leave", "vacation"),
        ("people", "person", "seat", "guest", "capacity", "attendee", "visitor"),
        ("child", "children", "kid", "kids"),
    )
    for group in [frozenset(stem(w) for w in words)]
    for word in words
} | {
    # a number of days may be said in weeks or months, not in years ("The
    # leave year runs from 1 April" counts no days)
    stem(unit): frozenset(stem(w) for w in said)
    for unit, said in (
        ("day", ("day", "week", "month", "night", "weekday")),
        ("night", ("night", "day", "week")),
        ("weekday", ("weekday", "day", "week")),
        ("week", ("week", "day", "month")),
        ("month", ("month", "week", "year")),
        ("year", ("year", "month")),
        ("hour", ("hour", "minute")),
        ("minute", ("minute", "hour", "second")),
    )
}
"""What else says the thing counted: "leave" is holiday, "two months" a
number of days, "seats" count people."""
_TIME_UNITS = frozenset(
    stem(w) for w in ("day", "week", "night", "weekday", "hour", "minute", "month", "year")
)
_PHRASE_ENDS = frozenset(
    {"do", "does", "did", "can", "could", "will", "would", "should", "shall", "may", "might",
     "must", "is", "are", "was", "were", "have", "has", "i", "we", "you", "they", "he", "she",
     "it", "of", "in", "on", "for", "at", "to", "with", "per", "a", "an", "the", "my", "our",
     "your", "their", "more", "extra", "additional", "free", "other", "come", "comes", "fit",
     "fits", "get", "gets", "go", "goes", "need", "needs", "use", "uses", "take", "takes",
     "cover", "covers", "include", "includes", "hold", "holds", "allowed", "left", "remain",
     "there", "be", "been", "that", "which", "if", "when", "before", "after", "and", "or"}
)  # fmt: skip


def counted_thing(question: str) -> set[str]:
    """What a "how many ..." or "how much ..." question counts, as terms
    ("how many sick days", "how much annual leave": ``day``, ``leave``, with
    the words that say it too: "week" for days, "holiday" for leave); a
    unit of time first counts ("how many days annual leave": days).
    Empty when it counts no thing it names ("how much is ...")."""
    match = _COUNTED.search(question)
    if match is None:
        return set()
    words = match.group(1).lower().split()
    while words and words[0] in {"more", "extra", "additional", "free", "other"}:
        words = words[1:]
    phrase: list[str] = []
    for word in words:
        if word in _PHRASE_ENDS:
            break
        phrase.append(word)
    terms = [t for w in phrase for t in content_terms(w)]
    if not terms:
        return set()
    # the phrase's last word ("annual leave", "guest day passes"), but a
    # unit of time first ("how many days annual leave")
    head = terms[0] if terms[0] in _TIME_UNITS else terms[-1]
    if phrase[0] == "times":
        # "how many times": "up to 8 times", not "for 3 days" (but "how many
        # times the class price" asks a multiple)
        multiple = len(words) > 1 and words[1] in {"the", "as", "more", "less", "bigger"}
        return set() if multiple else {terms[0]}
    if head in GENERIC_STEMS:
        return set()
    return set(_SAID_AS.get(head, {head}))


LEAVE_KINDS = frozenset(
    stem(word)
    for word in (
        "vacation", "holiday", "sick", "parental", "maternity", "paternity",
        "bereavement", "compassionate", "unpaid", "study", "carer", "personal", "public", "bank",
    )
)  # fmt: skip
ANY_LEAVE = stem("leave")
"""Kinds of days off, each another's rival: 28 days of vacation are no sick days
("leave" itself is of every kind, and "annual leave" is the vacation)."""


def counted_kind(question: str) -> set[str]:
    """The words a "how many ..." question's counted thing is of, besides the
    thing ("how many *sick* days": ``sick``; "how many days *annual leave*":
    ``annual``, ``leave``, ``holiday``, ``vacation``), one of which says it:
    28 days of vacation are no sick days. Empty when the thing is a bare
    noun ("how many days")."""
    match = _COUNTED.search(question)
    if match is None or not match.group(0).lower().startswith("how many"):
        return set()
    phrase: list[str] = []
    for word in match.group(1).lower().split():
        if word == "of" and len(phrase) == 1 and set(content_terms(phrase[0])) & _TIME_UNITS:
            continue  # "how many days of annual leave": days, of annual leave
        if word in _PHRASE_ENDS:
            break
        phrase.append(word)
    terms = [t for w in phrase for t in content_terms(w)]
    if len(terms) < 2:
        return set()
    head = terms[0] if terms[0] in _TIME_UNITS else terms[-1]
    thing = _SAID_AS.get(head, {head})
    kinds = {t for t in terms if t not in thing and t not in GENERIC_STEMS and not t.isdigit()}
    # in the words that say it too ("vacation days": holiday, leave)
    return {said for t in kinds for said in _SAID_AS.get(t, {t})}
