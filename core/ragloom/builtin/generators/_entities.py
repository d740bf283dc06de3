"""What the ``extractive`` generator reads in a question beyond its words:
the entities it names, the entities the passages set beside them, the kind
of answer it wants, and which sentences only make sense with the one before.

An *entity* is a capitalised name in the question (not its first word):
``Startup`` in "How much does the Startup plan cost?", ``Zone B``,
``European Union``. Its *rivals* are the names the passages use in the same
slot: ``Lite plan`` and ``Business plan`` beside ``Startup plan``, ``Zone A``
beside ``Zone B``, the other items of a list that holds it ("Lite, Startup,
and Business"). A sentence naming a rival and not the entity is about
something else, however many of the question's words it shares.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from ._text import GENERIC_STEMS, content_terms, split_sentences, stem

__all__ = [
    "TYPE_WORDS",
    "answer_kind",
    "in_passage_words",
    "is_list_question",
    "is_yes_no",
    "entities",
    "fits_kind",
    "is_anaphoric",
    "mentions",
    "rivals",
]

_WORD = re.compile(r"[\w$€£%][\w'’.-]*", re.UNICODE)
_ANAPHORS = frozenset(
    {
        "it", "its", "this", "that", "these", "those", "they", "their", "them", "theirs",
        "he", "she", "his", "her", "him", "both", "such", "there",
    }
)  # fmt: skip
_SUBJECT_ANAPHORS = frozenset({"it", "they", "this", "these", "he", "she"})
_OPENING_PREPOSITIONS = frozenset(
    {
        "in", "for", "on", "at", "from", "during", "within", "outside", "under", "after",
        "before", "with", "without", "by", "since", "until", "unlike", "beyond", "across",
        "inside", "over", "above", "below",
    }
)  # fmt: skip
"""Words that open a sentence with a phrase before its subject ("In North
America it is 75 USD"): a pronoun subject after it still leans on the sentence before."""
_EXPLETIVE_IT = re.compile(
    r"it (?:(?:takes|took)(?: \S+){0,4} to\b"
    r"|(?:is|was|will be|may be|can be|would be|should be|has been)\s+"
    r"(?:\w+ly\s+|not\s+)?(?:recommended|possible|impossible|important|necessary|required|"
    r"advisable|best|better|easy|hard|difficult|useful|safe|enough|good|common|usual|"
    r"likely|unlikely|essential|worth|helpful|a good idea)\b)"
)
"""A dummy "it" whose real subject comes later ("it is recommended to back up")."""
_WEATHER = (
    r"\s+(?:rains?|snows?|freezes|storms?|pours|is\s+(?:raining|snowing|windy|cold|hot|sunny|dark"
    r"|icy|foggy|stormy|wet)|gets\s+(?:dark|cold|hot|late))\b"
)
"""The "it" of the weather ("If it rains, ..."), which points at nothing."""
_LEANING_OPENER = re.compile(
    r"\s*(?:(?:" + "|".join(sorted(_OPENING_PREPOSITIONS)) + r"|apart from|except for|besides)"
    r"\s+(?:that|this|these|those|it|them|which)\b|(?:otherwise|if so|if not|in that case)\b"
    r"|(?:if|when|once|unless)\s+(?:\w+\s+){0,2}?"
    r"(?:it(?!" + _WEATHER + r")|they|them|these|those)\b"
    # "If you cancel a plan before then, ...": a time the sentence before says
    r"|[^.!?]{0,80}?\b(?:before|after|by|until|till|since|from)\s+then\b)",
    re.IGNORECASE,
)
"""An opening phrase that points back ("After that, ...", "Otherwise, ...",
"If you find it within 60 days, ...", "If you cancel before then, ...")."""
_EXPLETIVE_THERE = frozenset(
    {
        "is", "are", "was", "were", "will", "would", "may", "might", "can", "could",
        "has", "have", "had", "seems", "seem",
    }
)  # fmt: skip
NUMBER_WORDS = frozenset(
    {
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
        "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy",
        "eighty", "ninety", "hundred", "thousand", "million", "billion", "unlimited", "dozen",
        "half", "once", "twice",
    }
)  # fmt: skip
_TIME_WORDS = frozenset(
    {
        "second", "seconds", "minute", "minutes", "hour", "hours", "day", "days", "week",
        "weeks", "month", "months", "year", "years", "daily", "weekly", "monthly", "yearly",
        "annually", "immediately", "instantly", "overnight", "lifetime", "forever",
        "permanently", "indefinitely",
    }
)  # fmt: skip
_NO_BOUND = (
    r"\b(?:no|without(?: a| any)?)\s+(?:(?:fixed|set|hard|upper)\s+)?"
    r"(?:cap|caps|ceiling|limit|limits|maximum|quota|quotas)\b"
)
_NO_CHARGE = r"\b(?:no|without(?: a| any)?)\s+(?:fee|fees|charge|charges|cost)\b|\bfree of charge\b"
_NO_AMOUNT = {
    "money": re.compile(_NO_CHARGE, re.IGNORECASE),
    "much": re.compile(_NO_CHARGE, re.IGNORECASE),
    "count": re.compile(_NO_BOUND, re.IGNORECASE),
    "amount": re.compile(f"{_NO_BOUND}|{_NO_CHARGE}", re.IGNORECASE),
    "time": re.compile(
        r"\b(?:no|without(?: a| any)?)\s+(?:time limit|deadline|expiry|expiration|end date)\b"
        r"|\bnever expires?\b",
        re.IGNORECASE,
    ),
}
"""An amount said in words, for each kind of question: a sum that is none
("no charge", not "no hidden costs"), a count or an amount without a bound
("there is no fixed cap on sick days"), a time without one ("no time
limit"); they hold no number."""
_TIMES = re.compile(r"\b\d+\s*(?:x|times)\b", re.IGNORECASE)
_AMOUNT_WORDS = frozenset({"proportion", "proportional", "half", "unlimited", "percent", "free"})
"""Words that give an amount of something ("in proportion to the hours worked")."""
_LIST = re.compile(
    r"((?:[A-Z][\w-]*(?: [A-Z0-9][\w-]*){0,4},\s+){1,12}[A-Z][\w-]*(?: [A-Z0-9][\w-]*){0,4},?\s+"
    r"(?:and|or)\s+[A-Z][\w-]*(?: [A-Z0-9][\w-]*){0,4})"
)
"""A list of names ("Lite, Startup, and Business"): at most 12 items of at
most five words, so that a run of capitalised words ("If If If ...", 100 kB)
is read in linear time."""
_COLON_LIST = re.compile(
    r":\s+((?:[A-Z][\w-]*(?: [A-Z0-9][\w-]*){0,2},\s+){2,12}[A-Z][\w-]*(?: [A-Z0-9][\w-]*){0,2})"
    r"\s*(?:[.;\n]|$)"
)
"""A list of names after a colon, with no "and" ("on a 4-point scale: Below,
Meets, Exceeds, Outstanding"): three or more, ending the sentence."""


_VARIANT = re.compile(r"\d+(?:-[a-z]+)?")
"""What goes on with a name: a number, or one with its unit ("2-slot", "4-door")."""


def _sized(name: str, joined: str) -> bool:
    """Whether the passages write ``name`` with a size after it ("Fjord
    Toaster 4-slot"): then sizes tell its kinds apart."""
    return re.search(rf"\b{re.escape(name)}\s+\d+-[a-z]+\b", joined) is not None


_CODE = re.compile(r"([A-Za-z]{1,4})-?\d+[A-Za-z]*")
"""A model or line code: letters, then digits (``X200``, ``N1``, ``RTX-4090``)."""

_NOT_NAMES = frozenset(
    {
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        "january", "february", "march", "april", "may", "june", "july", "august",
        "september", "october", "november", "december", "i",
        "i'm", "i'll", "i've", "i'd", "i’m", "i’ll", "i’ve", "i’d",
        # currency codes: "EUR 2,000" is a sum, not a thing's name
        "eur", "usd", "gbp", "sek", "nok", "dkk", "chf", "jpy", "cad", "aud", "nzd", "sgd",
        "hkd", "cny", "inr", "pln", "czk", "huf", "brl", "mxn", "zar",
    }
)  # fmt: skip
"""Capitalised words that are not names of things a document is about."""


_QUESTION_WORDS = frozenset(
    {"what", "when", "where", "who", "whom", "whose", "which", "why", "how", "can", "could",
     "do", "does", "did", "is", "are", "was", "were", "will", "would", "should", "may",
     "must", "shall", "have", "has", "had", "and", "or", "but", "if"}
)  # fmt: skip
"""Words that open a question, never as a name."""


def entities(question: str, texts: Iterable[str] = ()) -> list[str]:
    """The capitalised names the question uses, as phrases (``Zone B``,
    ``European Union``), possessives dropped; not ``I``, days and months. A
    sentence's first word counts only when ``texts`` (the passages) write it
    capitalised after a lower-case word too, as a name ("the Enterprise plan")."""
    raw = _WORD.findall(question)
    words = [w.rstrip(".,;:?!").removesuffix("'s").removesuffix("’s") for w in raw]
    joined = "\n".join(texts)

    written: set[str] | None = None

    def written_as_name(word: str) -> bool:
        nonlocal written
        if written is None:  # the words the passages write after a lower-case word, once
            written = set(_AFTER_LOWER.findall(joined))
        return word in written

    found: list[str] = []
    current: list[str] = []
    for i, word in enumerate(words):
        # a name goes on with a number, or with a size the passages write after
        # it ("Zone 3"; "Fjord Toaster 2-slot" where they price the 4-slot;
        # not "Acme Cloud 14-day trial", which they call the Acme Cloud trial)
        capital = bool(word) and (
            word[0].isupper()
            or (current and word.isdigit())
            or (current and _VARIANT.fullmatch(word) and _sized(" ".join(current), joined))
        )
        # a sentence's first word ("We are a charity. Can we ...?") is a
        # name only as the passages write it
        opens = i == 0 or _ends_sentence(raw[i - 1])
        # (never a question word: a table's "| What | When |" writes "When" as one)
        named = not opens or (
            capital and word.lower() not in _QUESTION_WORDS and written_as_name(word)
        )
        if capital and named and word.lower().rstrip("s") not in _NOT_NAMES:
            current.append(word)
            continue
        if current:
            found.append(" ".join(current))
            current = []
    if current:
        found.append(" ".join(current))
    # "Is Parcelbird SOC 2 certified?": two names the passages write apart
    found = [part for name in found for part in _as_parts(name, joined)]
    # "What does HTTP 402 mean?": the status code, as an errors table writes it
    found = [_status_code(name, joined) for name in found]
    labels = _labels_in_lower_case(question, joined, found)
    # "pontoon B" is Pontoon B, not B
    found = [name for name in found if not any(mentions(label, name) for label in labels)]
    return list(dict.fromkeys([*found, *labels, *_api_versions(question, joined)]))


_STATUS = re.compile(r"(?:HTTPS?|Error|Status|Code)\s+([1-5]\d\d)", re.IGNORECASE)


def _status_code(name: str, joined: str) -> str:
    """An HTTP status the question names with its protocol's or a kind's word
    ("HTTP 402", "Error 404"), as the passages write it: the code alone,
    where they write that and not the name."""
    match = _STATUS.fullmatch(name)
    if match is None or mentions(joined, name) or not mentions(joined, match.group(1)):
        return name
    return match.group(1)


def _as_parts(name: str, joined: str) -> list[str]:
    """``name`` as the passages write it: whole, or as the names they write
    apart that it runs together ("Parcelbird SOC 2": "Parcelbird", "SOC 2"),
    longest first; whole where they write neither."""
    words = name.split()
    if len(words) < 2 or not joined or mentions(joined, name):
        return [name]
    parts: list[str] = []
    start = 0
    while start < len(words):
        end = next(
            (
                end
                for end in range(len(words), start, -1)
                if mentions(joined, " ".join(words[start:end]))
                # (a number is no name alone: "Lab 5" is not "Lab" and "5")
                and not any(ch.isdigit() for ch in words[start])
                and not (end < len(words) and words[end][0].isdigit())
            ),
            None,
        )
        if end is None:
            return [name]
        parts.append(" ".join(words[start:end]))
        start = end
    return parts


_API_VERSION = re.compile(r"(?<![\w./-])v\d{1,2}(?![\w.-])")
"""A major version written as a name: "the v1 API", "in v2"."""


def _api_versions(question: str, joined: str) -> list[str]:
    """The major versions a question names ("What is the API key header in
    v1?") where the passages write it or another one ("the v2 API"): each is
    a name, and what is said of the other is no answer."""
    # (not "v2 of the expense form": a form's version)
    asked = list(
        dict.fromkeys(
            m.group(0)
            for m in _API_VERSION.finditer(question)
            if not re.match(r"\s+of\b", question[m.end() :])
        )
    )
    written = set(re.findall(r"(?<![\w.-])v\d{1,2}(?![\w.-])", joined))
    # (another one written, or the asked one: "The v1 API allowed 2 requests
    # per second" beside a changelog that names no version)
    return [v for v in asked if written - {v} or v in written]


_LOWER_LABEL = re.compile(r"\b([a-z]{3,})\s+(\d{1,3}|[a-zA-Z])\b(?![\w-])")


_NOT_LABELS = frozenset(
    {"after", "before", "from", "every", "under", "over", "for", "until", "till", "than", "about",
     "around", "within", "each", "only", "per", "and", "the", "are", "was", "were", "get", "has",
     "have", "with", "into", "onto", "upto", "past", "since", "between", "below", "above",
     "least", "most", "all", "any", "top", "last", "next", "first"}
)  # fmt: skip


def _labels_in_lower_case(question: str, joined: str, found: Sequence[str]) -> list[str]:
    """Labels the question writes in lower case ("zone 1", "group b", "pontoon B") where
    the passages write such labels as names ("Zone 3", "Group B"): each is
    one thing among others like it, as "Zone 1" would be."""
    labels: list[str] = []
    for match in _LOWER_LABEL.finditer(question):
        word, mark = match.groups()
        if word in _NOT_LABELS or mark.lower() == "i":
            continue  # "after 8", "every 15 minutes", "can I": no label
        if any(match.group(0).lower() in name.lower() for name in found):
            continue
        # "plan a trip": "a" only as the passages' own label
        pattern = (
            re.escape(mark.upper())
            if mark.lower() == "a"
            else (r"\d{1,3}" if mark.isdigit() else r"[A-Z]")
        )
        if re.search(rf"\b{word[0].upper()}{re.escape(word[1:])}\s+{pattern}\b", joined):
            labels.append(f"{word[0].upper()}{word[1:]} {mark.upper()}")
    return labels


_AFTER_LOWER = re.compile(r"\b[a-z][\w-]*,?\s+([A-Z][\w-]*)")


def proper_words(texts: Iterable[str]) -> set[str]:
    """The capitalised words the passages write after a lower-case word, as
    names ("back from Little *Venn*", "served by *Kittiwake*")."""
    return set(_AFTER_LOWER.findall(_plain("\n".join(texts))))


def _ends_sentence(word: str) -> bool:
    """Whether a sentence ends with ``word`` ("charity.", "late?"; not "Mr."
    or "e.g.", nor "St." of "St. Ives")."""
    if word.endswith(("?", "!")):
        return True
    bare = word.rstrip(".")
    return word.endswith(".") and "." not in bare and bare.lower() not in _ABBREVIATIONS


_ABBREVIATIONS = frozenset(
    {"mr", "mrs", "ms", "dr", "st", "nos", "vs", "prof", "sr", "jr", "mt", "ft"}
)
"""Words a full stop shortens inside a sentence ("Mr. Smith")."""


_KIND_NOUNS = frozenset(
    {
        "plan", "tier", "subscription", "package", "pack", "bundle", "edition", "version",
        "level", "option", "offer", "membership", "license", "licence", "product", "service",
        "programme", "program", "contract", "policy", "account", "model", "variant", "zone",
        "region", "area", "class", "course",
    }
)  # fmt: skip
"""Nouns that only say what kind of thing a name is ("the Office plan"): the
question may use one where the documents use another ("the Office subscription")."""


def in_passage_words(question: str, names: Iterable[str], texts: Iterable[str]) -> str:
    """The question with the kind noun after each of its entities ("the
    Office *plan*") replaced by the one the passages write after that name
    ("the Office *subscription*"), when they never write the question's:
    a user's word for a thing should not hide the sentences about it. Only
    kind nouns (plan, tier, subscription, edition...) are swapped, for one
    another, so a verb or a name is never replaced; and a weekday they never
    write, for the range or "weekend" that holds it."""
    joined = "\n".join(texts)
    for name in names:
        after = re.search(rf"\b{re.escape(name)}\s+([a-z]+)\b", question)
        if after is None or _singular(after.group(1)) not in _KIND_NOUNS:
            continue
        written = [
            _singular(m.group(1)) for m in re.finditer(rf"\b{re.escape(name)}\s+([a-z]+)\b", joined)
        ]
        kinds = [w for w in written if w in _KIND_NOUNS]
        if not kinds or _singular(after.group(1)) in kinds:
            continue
        ours = max(kinds, key=kinds.count)  # the most written; ties: the first
        question = question[: after.start(1)] + ours + question[after.end(1) :]
    return _clipped_as_written(_days_as_written(question, joined), joined)


_SAME = (
    ("annual leave", "paid time off", "PTO", "vacation", "holiday entitlement"),
    ("sick leave", "sick time"),
    ("medical certificate", "doctor's note", "doctor’s note", "doctors note", "sick note"),
    ("mobile phone", "cell phone", "cellphone"),
    ("work remotely", "work from home", "WFH"),
    ("working remotely", "working from home"),
    ("larger", "bigger"),
    ("manager", "boss"),
)
"""Words for one thing: a question's that the passages never write is read
as theirs ("How much vacation do I get?" where they say "annual leave")."""


_OTHER_LEAVE = re.compile(
    r"\b(?:sick|ill|illness|parental|maternity|paternity|baby|bereavement|funeral|"
    r"compassionate|study|jury|unpaid|carer|medical|doctor)\b",
    re.IGNORECASE,
)


def said_as_written(question: str, texts: Iterable[str]) -> str:
    """``question`` with a word of ``_SAME`` the passages never write swapped
    for the one of its group they write most ("How many PTO days ...?" as
    "How many annual leave days ...?")."""
    lowered = "\n".join(texts).lower()
    for group in _SAME:
        if group is _SAME[0] and _OTHER_LEAVE.search(question):
            continue  # "time off for a funeral" is no annual leave
        asked = next(
            (w for w in group if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", question, re.I)),
            None,
        )
        if asked is None or _written(asked, lowered):
            continue
        counts = {w: len(_written(w, lowered)) for w in group if w != asked}
        theirs = max(counts, key=lambda w: counts[w])
        if counts[theirs]:
            question = re.sub(
                rf"(?<![\w-]){re.escape(asked)}(?![\w-])", theirs, question, flags=re.I
            )
    return question


def _written(word: str, lowered: str) -> list[str]:
    return re.findall(rf"(?<![\w-]){re.escape(word.lower())}(?![\w-])", lowered)


_CLIPPED = re.compile(r"\b[a-z]{4,}\b")


def _clipped_as_written(question: str, joined: str) -> str:
    """A clipped word the passages never write, read as the word they write
    that it clips: "a *dorm* bed" as "a *dormitory* bed", "info" as
    "information" (the one they write most; at least three letters longer)."""
    written: Counter[str] | None = None
    stems: set[str] = set()

    def whole(match: re.Match[str]) -> str:
        nonlocal written
        word = match.group(0)
        terms = content_terms(word)
        if not terms:  # a function word
            return word
        if written is None:
            written = Counter(re.findall(r"[a-z]+", joined.lower()))
            stems.update(stem(w) for w in written)
        if terms[0] in stems:  # written in some form ("members" for "member")
            return word
        clipped = word[:-1] if word.endswith("s") else word
        if len(clipped) < 4:  # "pets" clips no "petrol"
            return word
        # (not a compound: "breaks down" is no clip of "breakdown")
        longer = [
            w
            for w in written
            if w.startswith(clipped)
            and len(w) >= len(clipped) + 3
            and w[len(clipped) :] not in written
            and content_terms(w[len(clipped) :])
        ]
        return max(longer, key=lambda w: (written[w], w)) if longer else word

    return _CLIPPED.sub(whole, question)


_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY = re.compile(r"\b(" + "|".join(_DAYS) + r")s?\b", re.IGNORECASE)
_DAY_RANGE = re.compile(
    r"\b("
    + "|".join(_DAYS)
    + r")s?\s*(?:-|–|—|to|through|until|till)\s*("
    + "|".join(_DAYS)
    + r")s?\b",
    re.IGNORECASE,
)


def _days_as_written(question: str, joined: str) -> str:
    """A weekday the passages never write, read as they write it: "Saturday"
    as "weekend" ("from 07:30 to 11:00 at weekends"), "Wednesday" as
    "weekday", or else as the range that holds it ("Monday–Friday")."""
    lowered = joined.lower()

    def as_written(match: re.Match[str]) -> str:
        day = match.group(1).lower()
        if re.search(rf"\b{day}s?\b", lowered):
            return match.group(0)
        index = _DAYS.index(day)
        kind = "weekend" if index >= 5 else "weekday"
        if re.search(rf"\b{kind}s?\b", lowered):
            return kind
        for first, last in _DAY_RANGE.findall(joined):
            start, end = _DAYS.index(first.lower()), _DAYS.index(last.lower())
            # "Friday to Monday" holds Saturday: a range may wrap the week's end
            if start <= index <= end or (start > end and (index >= start or index <= end)):
                return f"{first} {last}"
        return match.group(0)

    return _DAY.sub(as_written, question)


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def rivals(question: str, names: Iterable[str], texts: Iterable[str]) -> set[str]:
    """Names the passages use in the same slot as ``names`` (see the module docs)."""
    texts = list(texts)
    joined = _plain("\n".join(texts))
    found: set[str] = set()
    for name in names:
        # "the Startup plan": other capitalised words before "plan", when the
        # passages call the entity that too (not "the Chanl plan": Chanl's plan)
        after = re.search(rf"\b{re.escape(name)}\s+([a-z][a-z-]+)", question)
        if after:
            head = after.group(1)
            if re.search(rf"\b{re.escape(name)}\s+{re.escape(head)}", joined):
                for match in re.finditer(rf"\b([A-Z][\w-]*)\s+{re.escape(head)}s?\b", joined):
                    found.add(match.group(1))
        # "Zone B": the same first word with another last one (a letter or a
        # number needs no more: "Pontoon B" has rivals in "Pontoon A", "Pontoon D")
        parts = name.split()
        if len(parts) > 1 and (
            re.search(rf"\b{re.escape(name)}\b", joined)
            or _VARIANT.fullmatch(parts[-1])
            or re.fullmatch(r"[A-Z]", parts[-1])
        ):
            stem = " ".join(parts[:-1])
            for match in re.finditer(rf"\b{re.escape(stem)}\s+([A-Z0-9][\w-]*)\b", joined):
                found.add(f"{stem} {match.group(1)}")
        # "X200": codes of the same letters with other digits ("X300", "X500")
        code = _CODE.fullmatch(name)
        if code:
            for match in re.finditer(rf"(?<![\w-]){re.escape(code.group(1))}-?\d\w*", joined):
                if match.group(0) != name:
                    found.add(match.group(0))
        # "In Singapore, health insurance ...": the names other sentences open
        # on the same way ("In Toronto, ...", "In Lisbon, ...")
        for opening in {m.group(1).lower() for m in _opened_on(name).finditer(joined)}:
            for match in _OPENED.finditer(joined):
                first = match.group(2).split()[0].lower()
                if match.group(1).lower() == opening and first not in _NOT_OPENERS:
                    found.add(match.group(2))
        # "Lite, Startup, and Business"; "a 4-point scale: Below, Meets, Exceeds, Outstanding"
        for match in (*_LIST.finditer(joined), *_COLON_LIST.finditer(joined)):
            items = [i.strip() for i in re.split(r",\s*|\s+(?:and|or)\s+", match.group(1))]
            items = [i for i in items if i]
            if name in items:
                found.update(items)
    return {r for r in found if r not in names and not any(r in n for n in names)}


_OPENER = r"(?:^|(?<=[.!?])\s+|\n\s*(?:[-*+]\s+)?)(In|For|At|From|Within|Across)\s+(?:the\s+)?"
_OPENED = re.compile(_OPENER + r"([A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,2}),", re.MULTILINE)
"""A sentence that opens on a name, as rules for each office or region are
written: "In Toronto, employees get 15 days ..."."""


_NOT_OPENERS = _NOT_NAMES | {
    "spring", "summer", "autumn", "fall", "winter", "addition", "general", "particular",
    "practice", "short", "total", "example", "case", "fact", "order", "most", "some", "all",
    "each", "every", "this", "that", "these", "those", "the", "our", "your", "their", "its",
}  # fmt: skip
"""What a sentence opens on that is no place or thing ("In January, ...",
"In Addition, ...")."""


def _opened_on(name: str) -> re.Pattern[str]:
    return re.compile(_OPENER + re.escape(name) + ",", re.MULTILINE)


def _as_word(name: str, *, plural: bool = False) -> str:
    """A pattern for ``name`` as a whole word (not inside ``X200-B`` or
    ``AX200``), with ``plural`` its plural too (``DVDs``, not ``X200s-B``)."""
    ending = "(?:s|es)?" if plural and name[-1:].isalpha() else ""
    return rf"(?<![\w-]){re.escape(name)}{ending}(?![\w-])"


_EMPHASIS = re.compile(r"(?<![\w*_])[*_]{1,3}(?=\w)|(?<=\w)[*_]{1,3}(?![\w*_])")
"""Markdown emphasis around or inside a name: ``MV *Solan*``, ``**Kelsworth**``."""


@functools.lru_cache(maxsize=4096)
def _plain(text: str) -> str:
    return _EMPHASIS.sub("", text) if "*" in text or "_" in text else text


def mentions(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` as a whole word (case-sensitive), or
    its plural ("DVDs" names DVD), Markdown emphasis aside ("MV *Solan*"
    names MV Solan)."""
    return re.search(_as_word(name, plural=True), _plain(text)) is not None


TYPE_WORDS = re.compile(
    r"\bhow (?:long|fast|soon|quickly|often|much|many|far|heavy|old)\b|\b(?:what|which) time\b",
    re.IGNORECASE,
)
"""The modifier of "how long", "how much", "how heavy", or "what time":
what kind of answer, not what about."""
_YES_NO = frozenset(
    {
        "do", "does", "did", "is", "are", "was", "were", "can", "could", "will", "would",
        "should", "has", "have", "had", "may", "must",
    }
)  # fmt: skip


def is_yes_no(question: str) -> bool:
    """Whether the question asks yes or no ("Does Chanl offer phone support?"),
    in its last sentence, past an opening "if ..." clause ("My dog's booster
    is 4 months late. Can he just have the one injection?", "If I cancel
    after 5 months, do I owe anything?")."""
    words = _WORD.findall(main_question(question))
    return bool(words) and words[0].lower() in _YES_NO


_OPENING_CLAUSE = re.compile(
    r"^\s*(?:if|when|once|after|before|since|as|because|while)\b[^,?]{1,200},\s*", re.IGNORECASE
)


def main_question(question: str) -> str:
    """What a question asks, without the sentences before it and an opening
    "if ..." clause or the like: "My dog's booster is late. Can he have one
    injection?" asks "Can he have one injection?", "I'm 22, can I rent the
    RAV4?" asks "can I rent the RAV4?"."""
    sentences = split_sentences(question.strip())
    last = _OPENING_CLAUSE.sub("", sentences[-1] if sentences else question, count=1)
    # "I'm 22, can I rent the RAV4?": the part after a comma that asks yes or no
    head, comma, rest = last.rpartition(",")
    words = _WORD.findall(rest)
    if comma and words and words[0].lower() in _YES_NO and len(head) <= _OPENING_CHARS:
        return rest.strip()
    return last


_OPENING_CHARS = 120
"""The longest opening before a comma that a yes/no question may follow."""

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


_SUBJECT_PRONOUNS = frozenset({"i", "we", "you", "they", "he", "she", "it", "one"})
_VERB_AUXILIARIES = frozenset(
    {"can", "could", "may", "might", "do", "does", "did", "will", "would", "should", "must"}
)


def question_verb(
    question: str, names: Sequence[str] = ()
) -> tuple[str, set[str], str | None] | None:
    """The verb a yes/no question asks about, when its subject is a pronoun
    or a name ("Can I *bring* my cat?", "Does Super Cover *include* ..."),
    as ``content_terms`` gives it, with the terms of its object (the words
    after it up to a preposition: "my cat"; none in "Can I swim in my
    room?") and its particle's term ("come *back*"), if any; None when it
    cannot be told."""
    words = _WORD.findall(main_question(question))
    if len(words) < 3 or words[0].lower() not in _VERB_AUXILIARIES:
        return None  # "Is it free?": no verb
    rest = words[1:]
    if rest[0].lower() in _SUBJECT_PRONOUNS:
        rest = rest[1:]
    else:
        for name in names:
            parts = _WORD.findall(name)
            if [w.lower() for w in rest[: len(parts)]] == [p.lower() for p in parts]:
                rest = rest[len(parts) :]
                break
        else:
            return None
    if rest and rest[0].lower() in {"be", "not", "still", "also", "ever", "really"}:
        return None  # "Can I be ...", "Do I not ...": no verb of its own to swap
    terms = content_terms(rest[0]) if rest else []
    if not terms:
        return None
    obj: list[str] = []
    for word in rest[1:]:
        if word.lower() in _PREPOSITIONS:
            break
        obj.append(word)
    following = rest[1].lower() if len(rest) > 1 else ""
    particle = content_terms(following) if following in _PARTICLES else []
    return terms[0], set(content_terms(" ".join(obj))), particle[0] if particle else None


_PREPOSITIONS = frozenset(
    {
        "in", "at", "on", "over", "by", "with", "without", "for", "to", "from", "during",
        "into", "onto", "if", "when", "after", "before", "while", "until", "unless", "via",
        "through", "inside", "outside", "near", "under", "above", "below", "between", "per",
        "as", "of", "about", "around", "within", "than", "or", "and",
    }
)  # fmt: skip
_PARTICLES = frozenset({"back", "up", "out", "off", "away", "down", "along", "together"})
"""The particle of a phrasal verb ("come *back*"): part of the verb, no object."""
_PREPOSITIONS |= _PARTICLES
"""Words that end a verb's object."""


def is_list_question(question: str) -> bool:
    """Whether the question asks for several items: "Which widgets support
    CSV?", "What formats...", "List the plans"."""
    words = [w.lower() for w in _WORD.findall(question)]
    if not words:
        return False
    if words[0] in {"list", "name", "enumerate"} or "all" in words[:4]:
        return True
    if words[0] in {"which", "what"} and len(words) > 1:
        noun = words[1]  # ("What does ...?" asks no list)
        return (
            len(noun) > 3
            and noun.endswith("s")
            and not noun.endswith(("ss", "us", "is"))
            and noun not in _VERB_AUXILIARIES
        )
    return False


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
            r"|\bnumber (?:to|I can|can I|do I) (?:call|ring|phone|text)\b",
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
        # "when did the office open?": a date, not its opening hours
        (
            r"^when (?:did|was|were)\b.*\b(?:open|opened|start|started|launch|launched|found"
            r"|founded|establish|established|begin|began|introduced|created|built|join|joined)\b",
            "past",
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
    ``distance`` (how far), ``size`` (how long it must be: a measure, not a
    time), ``age`` (how old, what age), ``phone`` (a phone
    number), ``email`` (an email address), or None:
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


YEAR = re.compile(r"(?<![\w.,/])(?<!\d-)(?:19|20)\d\d(?!\w|[-.,/]\d)")
"""A year written in full ("2023"; not the "2023" of "2023-05-01" or "1.2023.4")."""


_ASKS_VERSION = re.compile(
    r"\b(?:which|what) (?:version|release)s?\b|\bsince (?:which|what) (?:version|release)\b",
    re.IGNORECASE,
)
_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*(?![\w.]*\d)")


_MONTHS = (
    "january|february|march|april|june|july|august|september|october|november|december|"
    "jan|feb|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
"""Month names and abbreviations, but "may" and "mar" (a modal, a word)."""
_DATE = re.compile(
    rf"\b(?:1[89]|20)\d\d\b|\b\d{{1,2}}:\d\d\b|\b(?:{_MONTHS}|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    re.IGNORECASE,
)


def asks_version(question: str) -> bool:
    """Whether the question asks which version or release something came in
    (not which one it will come in)."""
    return _ASKS_VERSION.search(question) is not None and not re.search(
        r"\b(?:will|going to|planned|next)\b", question, re.IGNORECASE
    )


def asks_when(question: str) -> bool:
    """Whether the question asks when something happened (a date), not how
    long, nor when it will ("when will SSO be available")."""
    return re.match(r"\s*(?:and\s+)?when (?:was|were|did|has|have)\b", question, re.I) is not None


_DATE_LIKE_PAST = re.compile(
    rf"\b(?:1[89]|20)\d\d\b|\b(?:{_MONTHS})\b|\b\d{{1,2}}[/.-]\d{{1,2}}[/.-]\d{{2,4}}\b"
    r"|\b(?:yesterday|today|last (?:week|month|year)|ago)\b",
    re.IGNORECASE,
)
"""A day or a year something happened on ("in March 2022", "on 3/4/2024")."""


def has_date(text: str) -> bool:
    """Whether a text holds a date or a clock time (a year, a month, a day of
    the week, ``9:30``)."""
    return _DATE.search(text) is not None


def has_version(text: str) -> bool:
    """Whether a text holds a version number (``3.1.0``, ``v2.4``)."""
    return _VERSION.search(text) is not None


def versions_in(text: str) -> set[str]:
    """The version numbers a text holds, without a ``v`` (``{"2.0.0"}``)."""
    return {v.removeprefix("v") for v in _VERSION.findall(text)}


NAMED_VERSION = re.compile(r"\b(?!(?i:version|release)\b)[A-Z][\w-]*\s+v?\d+(?:\.\d+)+")
"""A version of something named (``Python 3.8``, ``NumPy 1.22``), not of the
release a changelog line belongs to."""


_LABEL_WORDS = re.compile(
    rf"\b(?:v|version|release|released|on|of|the|unreleased|\d+(?:st|nd|rd|th)?|may|mar|"
    rf"{_MONTHS})\b",
    re.IGNORECASE,
)


def is_release_label(heading: str) -> bool:
    """Whether a heading only names a release or a date (``3.1.0
    (2026-02-02)``, ``[2.4.1] - 2026-02-02``, ``Version 3.1``, ``14 May
    2026``), not a topic that holds a number (``2.4 Authentication``,
    ``Windows 11``, ``2024 pricing``)."""
    if not (has_version(heading) or has_date(heading) or re.search(r"\d{4}-\d\d", heading)):
        return False
    rest = _LABEL_WORDS.sub(" ", _VERSION.sub(" ", heading))
    return not re.search(r"[^\W\d_]", rest)


_PLACE = re.compile(
    r"\b(?:in|at|from|near|inside|outside|on|under|within|to|into)\s+(?:the\s+|our\s+|your\s+)?"
    r"(?:[A-Z0-9]|[\w-]+\s+(?:page|folder|menu|tab|settings|directory|dashboard|panel|screen|"
    r"server|servers|region|bucket|drive|office|warehouse|building|floor|room)\b)"
    r"|\b(?:page|folder|menu|directory|dashboard|warehouse|address|street|located|headquartered|"
    r"hosted|stored)\b"
)
"""A place in a sentence: a preposition before a name or a number ("in
Leipzig", "at 12 Baker Street", "from the Billing page"), or a word that
says where ("folder", "stored")."""


_GIVEN_FIGURE = re.compile(r"(?<![\w.,:])\d+(?:[.,:]\d+)*")


def given_figures(question: str) -> list[str]:
    """The figures a question gives ("a 90 minute massage", "£250", "4.0"):
    they say what it is about, and none of them is its answer."""
    return sorted(set(_GIVEN_FIGURE.findall(question)))


_MEASURE = re.compile(r"(?<![\w.,£$€])(\d+(?:[.,]\d+)?)[\s-]*([a-z]+)\b", re.IGNORECASE)
_BOUNDS = frozenset(
    {"under", "over", "up", "to", "least", "most", "than", "within", "first", "after",
     "before", "from", "minimum", "maximum", "min", "max", "each", "every", "per", "extra",
     "additional", "another", "above", "below", "until", "till", "by", "last", "next",
     "about", "around", "approximately", "between", "and", "or", "plus", "x", "of"}
)  # fmt: skip
"""Words before a figure that make it a bound or a share, not what a thing is
("less than 24 hours", "up to 10 days", "a minimum stay of 3 nights")."""


_UNIT_WORDS = {
    "min": "minute", "mins": "minutes", "hr": "hour", "hrs": "hours", "yr": "year",
    "yrs": "years", "sec": "second", "secs": "seconds", "wk": "week", "wks": "weeks",
    "m": "metres",
}  # fmt: skip


def _measures(text: str) -> Iterator[tuple[str, str, bool]]:
    """Each figure with a unit after it ("90 minute", "30 minutes"): the
    figure, the unit's stem, and whether a bound comes just before it."""
    for value, unit, _ in _bounded_measures(text):
        yield value, unit, _ is not None


def _bounded_measures(text: str) -> Iterator[tuple[str, str, str | None]]:
    """``_measures`` with the bound itself: ``"upper"`` ("up to 10 m", "under
    2 kg"), ``"lower"`` ("over 10 m", "at least 3 nights"), ``""`` for
    another ("per", "each", "between") and None for no bound."""
    low: tuple[str, str, int] | None = None  # a lower bound a range may start from
    for match in _MEASURE.finditer(text):
        unit = content_terms(_UNIT_WORDS.get(match.group(2).lower(), match.group(2)))
        if not unit:
            continue
        value = match.group(1).replace(",", "")
        lead = text[max(0, match.start() - 24) : match.start()].lower()
        before = lead.split()[-2:]
        bound = None
        ranged = _RANGE_FROM.search(lead)
        if ranged is not None:  # "boats 8-12 m", "between 8 and 12 m": from its low end
            bound = f"range {ranged.group(1).replace(',', '')}"
        elif set(before) & _BOUNDS:
            way = _BOUND_WAY.search(lead)
            bound = "" if way is None else ("upper" if way.group(1) else "lower")
            if unit[0].startswith(_DEADLINE_UNITS) and _DEADLINE.match(text, match.end()):
                bound = ""  # "up to 48 hours before check-in" is a deadline, not a size
        if (
            bound == "upper"
            and low is not None
            and low[1] == unit[0]
            and _JOINS_BOUNDS.fullmatch(text[low[2] : match.start()])
        ):
            # "over 2 kg and up to 10 kg": one range (the lower bound said none)
            bound = f"range {low[0]}"
        low = (value, unit[0], match.end()) if bound == "lower" else None
        yield value, unit[0], bound


_DEADLINE_UNITS = ("second", "minut", "hour", "day", "night", "week", "month", "year")
"""Units of time, as their terms begin (a deadline is a bound of time)."""
_JOINS_BOUNDS = re.compile(
    r"\s*(?:and|but|to|,)?\s*(?:up to|under|below|no more than|not more than|less than|at most)\s*",
    re.IGNORECASE,
)
"""What joins a range's two bounds ("over 2 kg *and up to* 10 kg")."""


_BOUND_WAY = re.compile(
    r"(?<![\w-])(?:(up to|under|below|no more than|not more than|less than|at most|maximum of"
    r"|maximum|max)|(over|above|no less than|not less than|more than|at least|minimum of"
    r"|minimum|min))\s+$"
)
"""A bound's way: at most (its first group) or at least (its second)."""
_DEADLINE = re.compile(r"\s+(?:before|after|prior|in advance|ahead|ago|of (?:the|your)\b)", re.I)
"""What makes a bound of time a deadline ("up to 48 hours *before* check-in")."""
_ASKS_LIMIT = re.compile(
    r"\b(?:minimum|maximum|min|max|limit|limits|at least|at most|longest|shortest|largest"
    r"|smallest)\b",
    re.IGNORECASE,
)
"""A question about a limit itself ("What is the minimum stay ...?")."""
_ASKS_PRICE = re.compile(r"\b(?:price|prices|cost|costs|fee|fees|charge|pay|much)\b", re.I)
"""(a limit of a price is no limit of the figure: "the maximum lift out price for a 12 m boat")"""


def _left_out_by(bound: str | None, value: str, asked: str) -> bool:
    """Whether a bound of ``value`` leaves out the ``asked`` figure ("up to 10
    m" a 12 m boat; "over 20 kg" a 5 kg parcel; "8-12 m" a 15 m boat)."""
    try:
        bound_value, asked_value = float(value), float(asked)
        low = float(bound.split()[1]) if bound and bound.startswith("range ") else None
    except ValueError:
        return False
    if low is not None:
        return not low <= asked_value <= bound_value
    if bound == "upper":
        return asked_value > bound_value
    if bound == "lower":
        return asked_value < bound_value
    return False


_RANGE_FROM = re.compile(
    r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?)\s*(?:[a-z]{1,6}\s*)?(?:-|–|to|and)\s*$", re.IGNORECASE
)
"""A range's low end just before its high one ("8-12 m", "between 8 and 12 m",
"10 m - 15 m")."""
_BEYOND = re.compile(
    r"\b(?:longer|larger|bigger|heavier|taller|wider|older|over that|above that|beyond that)\b",
    re.IGNORECASE,
)
"""What a sentence says of the figures past its bound ("£220 for *longer* boats")."""


@functools.lru_cache(maxsize=256)
def _asked_measures(question: str) -> frozenset[tuple[str, str]]:
    """The question's figures with their units, read once (every passage's
    unit is checked against them)."""
    return frozenset((v, u) for v, u, _ in _measures(question))


def measures_another(text: str, question: str) -> bool:
    """Whether ``text`` gives another figure of a unit the question gives one
    of ("a 90 minute sports massage" and "Duration: 30 minutes"), and never
    the question's: it is about another thing. A bound ("less than 24 hours")
    is no other figure, unless it leaves the question's out ("up to 10 m" to
    "a 12 m boat")."""
    asked = _asked_measures(question)
    if not asked:
        return False
    units = {u for _, u in asked}
    # (a bound that leaves the asked figure out is another's: "Lift out, up to
    # 10 m" is no price for a 12 m boat; but not where the question asks the
    # limit, or bounds its own figure: "parcels under 5 kg")
    bounds_count = not (_ASKS_LIMIT.search(question) and not _ASKS_PRICE.search(question)) and all(
        b not in {"upper", "lower"} for _, _, b in _bounded_measures(question)
    )
    other = covered = False
    measures = list(_bounded_measures(text))
    for i, (value, unit, bound) in enumerate(measures):
        if unit not in units:
            continue
        if (value, unit) in asked:
            return False
        if bound == "lower" and i + 1 < len(measures) and measures[i + 1][2] == f"range {value}":
            continue  # (the low end of "over 2 kg and up to 10 kg": its range says it)
        if bound is None:
            other = True
        elif bound and bounds_count:
            if all(_left_out_by(bound, value, v) for v, u in asked if u == unit):
                # ("... up to 10 metres and £220 for longer boats": both)
                other = other or _BEYOND.search(text) is None
            else:
                covered = True  # ("... and £220 for boats over 10 m")
    return other and not covered


def fits_kind(kind: str | None, text: str, names: Iterable[str] = ()) -> bool:
    """Whether a sentence can answer a question of that kind: a sum of money
    is written in digits (or is ``free``); a count, an amount or a time may
    be a word; each may be said as none or as no bound (``_NO_AMOUNT``)."""
    if kind is None:
        return True
    if kind == "length" and _DISTANCE.search(text):  # "The route is 42 km"
        return True
    if kind in ("duration", "length"):  # how long: "£68.00" is none, nor "at 09:30"
        return _says_how_long(text)
    if kind == "size":  # how long it must be: "at least 14 characters", not "5 minutes"
        figures = any(ch.isdigit() for ch in text) or bool(
            {w.lower() for w in _WORD.findall(text)} & NUMBER_WORDS
        )
        return figures and not _says_how_long(text)
    if kind == "place":
        return _PLACE.search(text) is not None
    if kind == "clock":  # "at 18:30", "from 6 pm", "at noon", "open 24 hours"
        return _CLOCK_TIME.search(text) is not None
    if kind == "phone":  # "call 01632 960 418", "+44 20 7946 0958", "(555) 010-4477"
        return any(sum(c.isdigit() for c in m.group()) >= 7 for m in _PHONE.finditer(text))
    if kind == "email":
        return _EMAIL.search(text) is not None
    # a code's digits (``X200``, ``line N1``) are no figure of it, nor are
    # those of a name the question uses or rivals (``Lab 3``, ``CS 341``), or
    # a figure it gives (``given_figures``), passed in ``names``
    text = _CODE_WORD.sub(" ", text)
    for name in names:
        if any(ch.isdigit() for ch in name):
            text = re.sub(_as_word(name), " ", text)
    # "a two-year warranty": "two" and "year" each
    words = {w.lower().strip(".,;:") for w in _WORD.findall(text.replace("-", " "))}
    digits = any(ch.isdigit() for ch in text)
    words_for_none = _NO_AMOUNT.get(kind)
    if not digits and words_for_none is not None and words_for_none.search(text):
        return True
    if kind == "money":  # a figure that is a sum: "€35", "10 cents", "costs 25 a month",
        # "charged at one third of the daily rate"
        return (
            "free" in words
            or (digits and _CURRENCY.search(text) is not None)
            or _priced(text)
            or _PRICE_IN_WORDS.search(text) is not None
        )
    if kind in ("amount", "much") and _PRICE_IN_WORDS.search(text):
        return True  # "Please ask in a branch for the current Cash ISA rates"
    if kind == "much":  # "how much is/does ...": any figure ("weighs 1.5 kg") or "free"
        return digits or "free" in words
    if kind == "weight":  # "weighs 1.2 kg", "1.2 kg", "a 4 lb bag"
        return _WEIGHT.search(text) is not None
    if kind == "distance":  # "up to 60 km", "two miles", "500 metres away", "a 6-minute walk"
        return _DISTANCE.search(text) is not None or _TRAVEL_TIME.search(text) is not None
    if kind == "age":  # "aged 14 and 15", "at least 18", "under 6", "16 or older"
        return _AGE.search(text) is not None
    if kind in ("count", "amount"):  # "from 1 April" counts nothing, nor "at 09:30",
        # nor "one of the following"
        undated = _NO_FIGURE.sub(" ", _WHEN_FIGURE.sub(" ", text))
        if kind == "count":  # "how many" is no sum and no share ("worth £5,000")
            undated = _SUM_OR_SHARE.sub(" ", undated)
        digits = any(ch.isdigit() for ch in undated)
        if undated != text:
            words = {w.lower().strip(".,;:") for w in _WORD.findall(undated.replace("-", " "))}
        if kind == "count":
            return digits or bool(words & NUMBER_WORDS)
        return digits or bool(words & (NUMBER_WORDS | _AMOUNT_WORDS))
    if kind == "day":  # "on Tuesdays", "on weekdays", "on 14 March", "daily"
        return bool(words & _DAY_WORDS) or bool(_DATE_LIKE.search(text))
    if kind == "percent":  # "30%", "thirty percent", "half"
        return bool(_PERCENT.search(text))
    if kind == "often":  # "5 times", "daily", "every 6 hours", not "until 5:00 am"
        return bool(_OFTEN.search(text))
    if kind == "past" and _CLOCK_TIME.search(text) and not _DATE_LIKE_PAST.search(text):
        return False  # "Opening hours: 08:30-19:30" says not when it opened
    # a time: "N times" is how often, not how long ("retried up to 5 times");
    # a share or a version is no time ("Midterm exam | 20%" does not say when)
    counted = _NOT_TIME.sub(" ", NAMED_VERSION.sub(" ", _TIMES.sub(" ", text)))
    return any(ch.isdigit() for ch in counted) or bool(
        words & (NUMBER_WORDS | _TIME_WORDS | _CALENDAR_WORDS)
    )


_TRAVEL_TIME = re.compile(
    r"(?:\d+|\b(?:a|one|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|thirty"
    r"|few))\s*-?\s*(?:minutes?|mins?|hours?)(?:['’]s?)?\s+(?:\w+\s+)?(?:walk|drive|ride"
    r"|cycle|journey|trip|away)\b|\b(?:minutes?|hours?)\s+(?:on foot|by (?:car|bus|train|bike"
    r"|tram|taxi))\b",
    re.IGNORECASE,
)
"""How far, said as the time it takes to get there: "a 6-minute walk",
"10 minutes' drive", "20 minutes by bus"."""
_PHONE = re.compile(
    r"(?<![\w.])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,5}\)[\s.-]?)?"
    r"(?:0\d{3,4}[\s.-]\d{6}|\d{2,5}(?:[\s.-]\d{2,5}){1,4})(?![\w.]*\d)"
)
"""A telephone number: two groups of digits or more ("01632 960 418", "01632 960418"), seven
digits at least (``fits_kind``), so that no price or clock time is one."""
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_CLOCK_TIME = re.compile(
    r"(?<![\d.,£$€])(?<!version )(?<!v)\d{1,2}[:.]\d\d(?![\d.,]*\d)"
    r"|\b\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)"
    r"|\b\d{1,2}\s*o'clock\b|\b(?:noon|midday|midnight|sunrise|sunset|dawn|dusk)\b"
    r"|\b24 hours\b|\b24/7\b|\baround the clock\b|\bany time\b|\banytime\b",
    re.IGNORECASE,
)
"""A time of day ("18:30", "6 pm", "noon"), or all of them ("open 24 hours")."""


def _says_how_long(text: str) -> bool:
    """Whether ``text`` gives a length of time ("3-5 working days", "two and
    a half hours", "a two-year warranty", "overnight", "from 10:00 to 16:00",
    "no time limit"): not a sum, and not a clock time or a date alone ("leaves
    at 09:30 on the second Saturday of July" says when, not how long)."""
    if _CLOCK_SPAN.search(text) or _NO_AMOUNT["time"].search(text):
        return True
    text = _ORDINAL_SECOND.sub(" ", _WHEN_FIGURE.sub(" ", _MONEY_FIGURE.sub(" ", text)))
    if _DURATION.search(text):
        return True
    words = {w.lower().strip(".,;:") for w in _WORD.findall(text)}
    return bool(words & _HOW_LONG_WORDS)


_DURATION = re.compile(
    r"(?:(?<![\w.,])\d[\d.,]*(?:\s*(?:-|–|to|or)\s*\d[\d.,]*)?|\b(?:a|an|one|two|three|four"
    r"|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty"
    r"|ninety|hundred|few|several|couple\s+of|half\s+an?|many))"
    r"(?:\s+and\s+a\s+half)?\s*-?\s*(?:(?:working|business|calendar|full|whole|more)\s+)?"
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|nights?|weeks?|wks?|fortnights?"
    r"|months?|years?|yrs?|decades?|semesters?)\b",
    re.IGNORECASE,
)
"""A figure (or a number word) in a unit of time: "90 minutes", "3-5 working
days", "a two-year warranty", "two and a half hours"."""
_CLOCK_SPAN = re.compile(
    r"\b\d{1,2}[:.]\d\d\s*(?:am|pm)?\s*(?:-|–|to|until|till)\s*\d{1,2}[:.]\d\d\b",
    re.IGNORECASE,
)
"""Two clock times that bound a span ("from 10:00 to 16:00"): how long it runs."""
_ORDINAL_SECOND = re.compile(
    r"\bsecond\s+(?!(?:or|and|to|of|per|each|later|before|after|ago|at|in|on)\b)(?=[a-z])",
    re.IGNORECASE,
)
""""second" as an ordinal ("the second Saturday", "its second stand")."""
_HOW_LONG_WORDS = frozenset(
    {
        "overnight", "indefinitely", "permanently", "forever", "lifetime", "immediately",
        "instantly", "hourly", "fortnight",
    }
)  # fmt: skip


_MONEY_FIGURE = re.compile(
    r"[$€£¥₹]\s?\d[\d,.]*|(?<![\w.,])\d[\d,.]*\s?(?:USD|EUR|GBP|euros?|dollars?|pounds?|pence)\b",
)
"""A sum in figures ("£68.00", "25 euros")."""
_CURRENCY = re.compile(
    r"[$€£¥₹₩₽¢]|\b(?-i:[A-Z]{3})\s?\d|\d\s?(?-i:[A-Z]{3})\b|\d\s?p\b|\d\s*%"
    r"|\b(?:dollars?|euros?|pounds?|cents?|pence|p|yen|francs?|kronor|kroner|krona|krone|kr"
    r"|rupees?|pesos?|reais|real|yuan|rmb|won|zloty|z\u0142|rand|lira|lei|forint|"
    r"shillings?|dirhams?|riyals?|baht|ringgit|rubles?|roubles?)\b",
    re.IGNORECASE,
)
"""A currency's sign, code or name (or a share: "saves 20%")."""
_PRICED = re.compile(
    r"\b(?:costs?|costing|priced?|prices|pricing|fees?|charged?|charges|pay|pays|paid|paying"
    r"|payable|saves?|saving|savings|discount(?:s|ed)?|rates?|fares?|tariffs?|surcharges?"
    r"|deposits?|refund(?:ed|s)?|billed|worth)\b"
    # words and the gaps between them never overlap: linear on "costs ------"
    r"[^\w'’-]+(?:[\w'’-]+[^\w'’-]+){0,3}?"
    r"(?:\d|(?:half|third|thirds|quarter|quarters|double|twice|triple)\b)",
    re.IGNORECASE,
)
"""A figure a few words after a word that prices: "costs 25 a month",
"charged at one third of the daily rate" (not the "12 months" of "a
minimum term of 12 months, except the Plus tier paid annually")."""
_DATE_FIGURE = re.compile(
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?i:{_MONTHS}|may)\b|\d{{1,2}}:\d\d\b"
    rf"|\d{{1,2}}\.\d\d\s*(?i:am|pm|h)\b|\d+\s*(?i:am|pm)\b"
    rf"|\d{{4}}-\d\d"
    # a time, not a sum: "Deposits are returned within 30 days"
    r"|\d+\s*(?i:days?|weeks?|months?|years?|hours?|minutes?|working days?)\b",
)
_BEFORE_DATE = re.compile(rf"(?i:{_MONTHS}|may)\s+$")


def _priced(text: str) -> bool:
    """Whether a figure follows a word that prices, and is no date or clock
    time ("Fees are due on 1 June" says when, not how much)."""
    for match in _PRICED.finditer(text):
        figure = match.end() - 1
        before = text[max(0, figure - 12) : figure]
        if _DATE_FIGURE.match(text, figure) is None and _BEFORE_DATE.search(before) is None:
            return True
    return False


_DETAILS_ELSEWHERE = (
    r"(?:please\s+)?(?:contact|ask|call|email|e-mail)\b[^.]{0,80}?\bfor\s+"
    r"(?:details|pricing|prices|a\s+quote|a\s+price|more\s+information"
    # "ask in a branch for the current Cash ISA rates"
    r"|(?:the\s+)?(?:current|latest)\s+(?:[\w-]+\s+){0,3}?(?:rates?|prices|fees|figures))\b"
    r"|details\s+will\s+be\s+(?:published|announced|available|sent)\b"
)
"""A sentence's opening that sends the reader elsewhere for the details."""
_PRICE_IN_WORDS = re.compile(
    r"\b(?:pric(?:e|es|ing)|fees?|costs?)\s+(?:is|are)\s+(?:custom|negotiable|quoted|on request)\b"
    r"|\b(?:custom|individual|negotiated) pricing\b|\bprice on request\b"
    rf"|(?:^|\.\s+)(?:{_DETAILS_ELSEWHERE})"
    r"|\b(?:one|a|two|three|four|six|\d+)\s+(?:day|week|month|year)s?['’]s?\s+"
    r"(?:fee|fees|rent|price|payment|membership|charge)\b",
    re.IGNORECASE,
)
"""A price said in words: "Enterprise pricing is custom", "Please contact
our development team for details", "Details will be published here when
it launches" (no sum, and the documents say so)."""
_ASK_FOR_DETAILS = re.compile(rf"\s*(?:{_DETAILS_ELSEWHERE})", re.IGNORECASE)
"""A sentence that sends the reader elsewhere for the details of what the
one before says ("Please contact our development team for details.")."""

_WEIGHT = re.compile(
    r"(?:\d|\b(?i:one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty"
    r"|thirty|forty|fifty|hundred)(?:-\w+)?)\s*"
    r"(?:(?i:kg|lbs?|oz)|(?-i:g|mg|t)|(?i:kilo(?:gram)?s?|grams?|pounds|ounces?|tonnes?|tons?))\b"
    r"|\b(?i:weigh(?:s|ed|ing)?)\b"
)
"""A weight: a figure in a unit of mass, or a sentence that says what weighs what."""

_DISTANCE = re.compile(
    r"(?:(?<![\d,.])\d[\d,.]*|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty"
    r"|fifty|hundred))\s*(?:km|kilomet(?:er|re)s?|mi|miles?|(?-i:m)|met(?:er|re)s?|yards?|feet"
    r"|ft)\b(?!\s+(?:downloads?|users?|views?|members?|customers?|people)\b)",
    re.IGNORECASE,
)
"""A distance: a figure in a unit of length (not the "5M" of "5M downloads")."""
_NO_AGE = (
    r"[.,:]\d|\s*[%$€£]|\s*(?:km|kg|m|mi|miles?|met(?:er|re)s?|kilo\w*|grams?|g|lbs?|percent|per"
    r"|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|seconds?|people|persons?|guests?|members?"
    r"|items?|pages?|GB|MB|TB|euros?|dollars?|pounds?|cents?|times?|mph|kph)\b"
)
"""What follows a figure that is no age ("under 20 kg", "over 50%")."""
_AGE = re.compile(
    r"\bage[ds]?\b|\byears? old\b|\b(?:at least|under|over|below|above) \d+\b(?!" + _NO_AGE + r")"
    r"|\b\d+ (?:or|and) (?:over|older|under|younger|above)\b|\b\d+\+"
    # how old a thing is: "built in 1280", "founded in 1998", "since the 12th century"
    r"|\b(?:built|founded|established|opened|dates?\s+(?:back\s+)?(?:to|from))\s+(?:in\s+)?"
    r"(?:the\s+)?(?:\d{4}|\d{1,2}(?:st|nd|rd|th)\s+century)\b",
    re.IGNORECASE,
)
"""An age: "aged 14", "18 years old", "at least 18", "under 6", "65 or over"."""

_CODE_WORD = re.compile(r"(?<![\w$€£¥-])(?!(?:Q[1-4]|H[12])\b)[A-Za-z]{1,4}-?\d+[A-Za-z]*\b")
"""A code: letters, then digits, in one word (``X200``, ``N1``; not ``Q3``,
``H2``, which say when). A capitalised word and a number (``Lab 3``) may be
a quantity ("Add 2 cups"): it is a name only when the question uses it."""

_PERCENT = re.compile(
    r"\d\s*%|\bper\s*cent\b|\bpercent(?:age)?\b|\b(?:half|quarter|third|thirds)\b",
    re.IGNORECASE,
)
_OFTEN = re.compile(
    r"\bevery\b|\b(?:once|twice|thrice|never|always|continuously)\b|\b\w+\s+times\b"
    r"|\b(?:hourly|daily|nightly|weekly|fortnightly|biweekly|monthly|quarterly|yearly|annually)\b"
    r"|\b(?:per|a|an|each)\s+(?:second|minute|hour|day|night|week|month|quarter|year|semester)s?\b",
    re.IGNORECASE,
)
"""A frequency: "every 20 minutes", "twice a week", "5 times", "daily"."""
_NOT_TIME = re.compile(
    r"\d[\d,.]*\s*%"
    r"|\b(?:version|release|v)\s*\d+(?:\.\d+)+|(?<![\w.])\d+\.\d+\.\d+(?![\w.]*\d)"
    r"|\b\d+\.\d+(?:\.\d+)*\s+or\s+(?:newer|later|higher|above|greater)\b",
    re.IGNORECASE,
)
"""Figures that are no time: a share ("20%"), a version ("2.0.0", "pandas
1.5 or newer"; "Python 3.8" is ``NAMED_VERSION``). A sum may be one ("When
does shipping become free? Orders above €150 ...")."""
_WEEKDAYS = frozenset(
    {
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays",
        "weekday", "weekdays", "weekend", "weekends",
    }
)  # fmt: skip
_CALENDAR_WORDS = _WEEKDAYS | frozenset(
    {
        "morning", "mornings", "afternoon",
        "evening", "evenings", "night", "nights", "midnight", "noon", "today", "tomorrow",
        "yesterday", "tonight", "january", "february", "april", "june", "july", "august",
        "september", "october", "november", "december", "spring", "summer", "autumn",
        "winter", "semester",
    }
)  # fmt: skip
"""Words that say when without a digit ("on Tuesdays", "in the spring")."""
_DAY_WORDS = _WEEKDAYS | {"daily", "everyday", "holidays", "today", "tomorrow"}
_WHEN_FIGURE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?i:{_MONTHS}|may)\b"
    rf"|\b(?i:{_MONTHS})\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{4}}-\d\d-\d\d\b|\b\d{{1,2}}:\d\d\b"
)
"""A figure that says when: a day of a month ("1 April", "March 13"), a
date, a clock time; no count or amount of anything."""
_SUM_OR_SHARE = re.compile(
    r"[$€£¥₹]\s?\d[\d,.]*(?:\s?(?:k|m|bn)\b)?|\d[\d,.]*\s?(?:%|p\b|pence\b|(?i:USD|EUR|GBP)\b)"
)
_NO_FIGURE = re.compile(
    r"\b(?:one\s+(?:of|or\s+more|another|by\s+one|at\s+a\s+time)|no\s+one|any\s*one)\b",
    re.IGNORECASE,
)
"""Number words that count nothing: "one of the following scores"."""
_DATE_LIKE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?i:{_MONTHS}|may)\b|\b(?i:{_MONTHS}|may)\s+\d{{1,2}}\b"
    r"|\b\d{4}-\d\d-\d\d\b|\bevery day\b",
)
"""A day written as a date ("14 March", "March 13", "2026-03-13")."""


def is_anaphoric(sentence: str) -> bool:
    """Whether a sentence leans on the one before: it starts with a pronoun
    (``It costs $199/month``), its subject is one after an opening phrase
    (``In North America it is 75 USD``), or it uses a locative ``there``
    (``Parcels there arrive``; not the ``there is`` that introduces something),
    or it says the same of another as the one before (``Contractors are not
    eligible either.``, ``Interns qualify too.``)."""
    words = [w.lower() for w in _WORD.findall(sentence)]
    if not words:
        return False
    if _LIKEWISE.search(sentence):
        return True
    if _LEANING_OPENER.match(sentence):  # "After that, each late hour is charged ..."
        return True
    if _ASK_FOR_DETAILS.match(sentence):  # "Please contact our team for details."
        return True
    if words[0] in _ANAPHORS and not (
        words[0] == "there" and len(words) > 1 and words[1] in _EXPLETIVE_THERE
    ):
        return True
    for i, word in enumerate(words[1:6], start=1):
        if word == "there" and (i + 1 >= len(words) or words[i + 1] not in _EXPLETIVE_THERE):
            return True
    return pronoun_after_opening(sentence)


_LIKEWISE = re.compile(
    r"\b(?:not|no|never|n't|cannot)\b.*\beither\s*[.!]?\s*$|^\s*neither\b", re.IGNORECASE
)
"""A sentence that says the same as the one before of another: "Contractors
are not eligible either.", "Neither do ..." (not "... invoices are issued in either.")."""


def opens_with_anaphor(sentence: str) -> bool:
    """``is_anaphoric`` but for a pronoun after an opening phrase: a sentence
    that cannot stand alone at all."""
    return is_anaphoric(sentence) and not pronoun_after_opening(sentence)


def pronoun_after_opening(sentence: str) -> bool:
    """Whether the subject after an opening phrase is a pronoun ("In North
    America it is 75 USD"), not the "it" of "it is recommended to..." or "it
    takes five minutes to..."."""
    words = [w.lower() for w in _WORD.findall(sentence)]
    if not words or words[0] not in _OPENING_PREPOSITIONS:
        return False
    for i, word in enumerate(words[2:8], start=2):
        if word in _SUBJECT_ANAPHORS and words[i - 1] not in _OPENING_PREPOSITIONS:
            after = " ".join(words[i : i + 8])
            return word != "it" or _EXPLETIVE_IT.match(after) is None
    return False


_DETERMINERS = frozenset(
    {"a", "an", "the", "my", "your", "our", "their", "his", "her", "its", "this", "that",
     "these", "those", "any", "each", "every", "some"}
)  # fmt: skip
_PLAIN_ADJECTIVES = frozenset(
    {
        "big", "bigger", "small", "smaller", "large", "larger", "cheap", "cheaper", "expensive",
        "new", "old", "full", "whole", "extra", "maximum", "minimum", "max", "min", "total",
        "usual", "normal", "first", "last", "next", "other", "same", "different", "best",
        "good", "great", "right", "wrong", "main", "own", "free", "exact", "current",
        "typical", "average", "general", "overall", "entire", "short", "long", "quick",
        "fast", "slow", "early", "late", "nearby", "local", "little", "few", "many",
        "several", "certain", "particular", "specific", "actual", "real", "proper", "simple",
        "regular", "additional", "further", "more", "less", "much", "only",
        "latest", "earliest", "nearest", "closest", "cheapest", "biggest", "quickest",
        "wider", "longer", "shorter", "higher", "lower", "older", "younger", "newer", "faster",
        "slower", "earlier", "later", "better", "worse", "greater", "fewer", "heavier",
        "lighter", "easier", "harder", "either", "neither", "whether", "ever",
        "never", "over", "under", "after", "per", "daily", "weekly",
        "monthly", "yearly", "nightly", "hourly", "likely", "really", "nearly", "fully",
        "usually", "currently", "quickly",
    }
)  # fmt: skip
"""Adjectives that say nothing of what kind of thing is asked about."""
_ALPHA = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*|\S")


def unknown_kind(question: str, texts: Iterable[str]) -> str | None:
    """A kind of thing the question asks about that the passages never
    name, while they name other kinds of it: "a *corporate* membership"
    where they speak of family and joint membership, "a school *outreach*
    visit" where of self-guided and school visits. What they say of the
    other kinds answers another question. The kind is a word right before
    a noun, in a noun phrase after a determiner, that no passage holds; the
    noun is one the passages use as a noun ("the membership"), with other
    words before it that the question does not hold outside the phrase ("a
    replacement card" is the card of "replace a lost library card"). Plain adjectives ("the
    biggest file"), participles ("a registered charity") and figures are
    no kind."""
    joined = "\n".join(texts)
    known = set(content_terms(joined))
    asked = set(content_terms(question))
    words = _ALPHA.findall(question)
    passage_words: list[str] = []
    passage_terms: list[list[str]] = []
    for i, kind, noun in _kind_pairs(words, after_a_word=True):
        kind_term, noun_term = content_terms(kind)[0], content_terms(noun)[0]
        if kind_term in known or noun_term not in known:
            continue
        if not passage_words:  # read once, for every pair the question holds
            # (a line ends a phrase: a heading "Harnmouth – Orsay" above
            # "Fares" names no kind of fare)
            passage_words = _ALPHA.findall(joined.replace("\n", " \n. "))
            passage_terms = [content_terms(w) if w.isalpha() else [] for w in passage_words]
        # the passages' own kinds of it (named: "Family membership"), whether
        # they use it as a noun, and whether they speak of it with no kind
        # ("cancel your membership": then any membership is theirs)
        kinds: set[str] = set()
        noun_used = bare = False
        for j in range(1, len(passage_words)):
            if passage_terms[j] != [noun_term]:
                continue
            previous = passage_words[j - 1]
            if previous.lower() in _DETERMINERS:
                bare = True
            if (
                previous.lower() in _DETERMINERS
                or (j >= 2 and passage_words[j - 2].lower() in _DETERMINERS)
                or (previous[0].isupper() and _is_kind_word(previous))  # "Family membership"
            ):
                noun_used = True
            if previous[0].isupper() and _is_kind_word(previous):
                kinds.update(passage_terms[j - 1])
        if bare:
            continue
        # a kind the question names outside the phrase is the one it means
        # ("replace a lost library card": the replacement card)
        outside = asked - set(content_terms(" ".join(words[max(0, i - 2) : i + 2])))
        if noun_used and kinds and kind_term not in kinds and not kinds & outside:
            return kind
    return None


_ACRONYM = re.compile(r"(?<![\w-])([A-Z]{2,}[0-9]*)(?:s|'s|’s)?(?![\w-])")
_SECOND_PART = re.compile(
    r"\?\s+\S|\band\s+(?:what|who|whom|whose|when|where|which|why|how|is|are|can|do|does)\b",
    re.IGNORECASE,
)
_CHAT_ACRONYMS = frozenset(
    {"ASAP", "FYI", "BTW", "OK", "AM", "PM", "FAQ", "PLS", "PLZ", "THX", "TIA", "IMO", "AKA",
     "ETC", "IE", "EG", "NB", "PS"}
)  # fmt: skip
"""Capitals that ask about nothing ("Can I get a refund ASAP?")."""


def two_parts(question: str) -> bool:
    """Whether the question asks two things ("Who is based in Berlin, and
    who is the CEO?"), of which the passages may answer one."""
    return _SECOND_PART.search(question.strip().rstrip("?")) is not None


def unknown_acronym(question: str, texts: Iterable[str]) -> str | None:
    """An acronym the question asks about ("what PTE score", "the uptime SLA",
    "a US licence") that no passage writes, in capitals or as a word: they
    are about something else, and what they say answers another question. A
    question written in capitals names none; one of two parts may be answered."""
    found = [a for a in _ACRONYM.findall(question) if a not in _CHAT_ACRONYMS]
    # ("HTTP 402": the protocol's name says what the code is, not what it is of)
    found = [a for a in found if not re.search(rf"\b{a}\s+[1-5]\d\d\b", question)]
    if not found or sum(ch.isupper() for ch in question) > len(question) / 3:
        return None
    if two_parts(question):
        return None  # "Who is based in Berlin, and who is the CEO?": one part may be answered
    joined = "\n".join(texts)
    known: set[str] | None = None
    for acronym in found:
        if re.search(_as_word(acronym) + r"|(?<![\w-])" + acronym + r"(?:s|'s|’s)\b", joined):
            continue
        if known is None:
            known = set(content_terms(joined))
        terms = content_terms(acronym)  # "pdf" in "Upload a pdf"; "us" is no word of it
        if not terms or not set(terms) <= known:
            return acronym
    return None


def _is_kind_word(word: str) -> bool:
    """Whether a word may name a kind of thing: a content word, not a plain
    adjective, a comparative, a superlative, a participle, or a figure."""
    lowered = word.lower()
    return (
        word.replace("-", "").isalpha()
        and bool(content_terms(word))
        and lowered not in _PLAIN_ADJECTIVES
        and lowered not in _DETERMINERS
        and not lowered.endswith(("est", "ed", "ing"))
    )


def asked_kinds(question: str) -> set[tuple[str, str]]:
    """The kinds of things the question names, as (kind, noun) terms: "a
    *corporate membership*", "the *complete plan*" (a determiner, a word
    that may name a kind, a noun)."""
    return {
        (content_terms(kind)[0], content_terms(noun)[0])
        for _, kind, noun in _kind_pairs(_ALPHA.findall(question), after_a_word=False)
    }


def _kind_pairs(words: Sequence[str], *, after_a_word: bool) -> Iterator[tuple[int, str, str]]:
    """(index, kind, noun) for each word that may name a kind right before a
    noun, after a determiner ("a *corporate membership*") or, with
    ``after_a_word``, a determiner and another such word ("a school
    *outreach visit*")."""
    for i in range(1, len(words) - 1):
        kind, noun = words[i], words[i + 1]
        if not (kind.isalpha() and noun.isalpha()):
            continue
        in_phrase = words[i - 1].lower() in _DETERMINERS or (
            after_a_word
            and i >= 2
            and words[i - 2].lower() in _DETERMINERS
            and _is_kind_word(words[i - 1])
        )
        if in_phrase and _is_kind_word(kind) and _is_kind_word(noun):
            yield i, kind, noun


def names_other_kind(text: str, kinds: set[tuple[str, str]]) -> bool:
    """Whether the text names another kind of a thing the question names
    with its kind ("Family membership costs £88" to "How much does a
    corporate membership cost?"), and not the question's."""
    if not kinds:
        return False
    terms = set(content_terms(text))
    words = _ALPHA.findall(text)
    for j in range(1, len(words)):
        if not (words[j].isalpha() and _is_kind_word(words[j - 1])):
            continue
        term = content_terms(words[j])
        before = content_terms(words[j - 1])
        for kind, noun in kinds:
            if term == [noun] and kind not in terms and before and before[0] != kind:
                return True
    return False


_ASKED_AGE = re.compile(
    r"\b(\d{1,3})[- ]years?[- ]old\b|\baged?\s+(\d{1,3})\b"
    r"|\bI'?m\s+(\d{1,3})\b|\bI am\s+(\d{1,3})\b"
    # "My son is 10", "our daughter's 16"
    r"|\b(?:my|our)\s+(?:son|daughter|child|kid|boy|girl|grandson|granddaughter|grandchild"
    r"|husband|wife|partner|mum|mom|mother|dad|father)(?:\s+is|'s|’s)\s+(\d{1,3})\b(?![.,]\d)"
    # (not "my partner is 20 minutes late")
    r"(?!\s*(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?|%|kg|km|cm|m|miles?|metres?|feet)\b)",
    re.IGNORECASE,
)
_AGE_RANGE = re.compile(
    r"(?<![\d:.,$€£])(\d{1,3})\s*(?:–|—|-|to)\s*(\d{1,3})(?![\d:.,%]|\s*(?:kg|km|cm|mm|m|am|pm|h"
    r"|hours?|minutes?|mins?|days?|weeks?|months?|seats?|people|pupils|children|guests)\b)"
    r"|(?<![\d:.,$€£])(\d{1,3})\s*\+(?!\s*(?:people|persons|guests|adults|children|pupils|members))"
    r"|\b(?:under|below|younger than)[\s-]+(\d{1,3})s?\b(?!\s*(?:kg|km|cm|m|%|[$€£]))"
    r"|(?<![\d:.,$€£])(\d{1,3})s?\s+(?:and|or)\s+(?:over|older|above)\b"
    r"|\b(?:over|aged)[\s-]+(\d{1,3})s?\b(?!\s*(?:kg|km|cm|m|%|[$€£]))",
    re.IGNORECASE,
)


def asked_age(question: str) -> tuple[int, set[str]] | None:
    """The age a question gives ("a 15-year-old", "I'm 70", "aged 9"), with
    the terms that say it, or None."""
    match = _ASKED_AGE.search(question)
    if match is None:
        return None
    return int(next(g for g in match.groups() if g)), set(content_terms(match.group(0)))


_OF_PEOPLE = re.compile(
    r"\b(?:ages?d?|years?[- ]olds?|yrs|olds?|adults?|child(?:ren)?|kids?|infants?|bab(?:y|ies)"
    r"|toddlers?|teens?|teenagers?|juniors?|seniors?|youths?|young|students?|pensioners?|drivers?"
    r"|minors?|birthdays?|persons?|people|passengers?|visitors?|guests?|riders?|travell?ers?"
    r"|pupils?|anyone|those|(?:under|over)-?\d+s)\b|\b\d+s\b",
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


def holds_age(text: str, age: int, context: str = "") -> bool:
    """Whether the text gives an age band that holds ``age`` ("Young person
    (12–17)", "Senior (65+)", "under 4", "16 or over"): a band of figures
    that counts no other thing ("Zones 1-3", "Orders under 30"); a bare range
    ("5–15") only where the text (or ``context``, a table's column names)
    speaks of people ("Child", "Age", "passengers")."""
    of_people = _OF_PEOPLE.search(text) is not None or _OF_PEOPLE.search(context) is not None
    if not of_people and _COUNTING.search(context):
        return False  # "Under 30" under "Order value": a value, no age
    for match in _AGE_RANGE.finditer(text):
        if _NOT_AGE_LABEL.search(text, max(0, match.start() - 20), match.start()):
            continue
        low, high, plus, under, over, above = match.groups()
        if low and not of_people:
            continue  # a bare range ("1-3") is of ages only beside people
        over = over or above
        if low and high and int(low) < int(high) and int(low) <= age <= int(high):
            return True
        if (plus and age >= int(plus)) or (over and age >= int(over)):
            return True
        if under and age < int(under):
            return True
    return False
