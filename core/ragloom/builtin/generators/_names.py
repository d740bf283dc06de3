"""The names a question says, and the names the passages set beside them.

An *entity* is a capitalised name in the question (not its first word):
``Startup`` in "How much does the Startup plan cost?", ``Zone B``,
``European Union`` (and API versions, status codes and labels written in
lower case). Its *rivals* are the names the passages use in the same
slot: ``Lite plan`` and ``Business plan`` beside ``Startup plan``, ``Zone A``
beside ``Zone B``, the other items of a list that holds it ("Lite, Startup,
and Business"). A sentence naming a rival and not the entity is about
something else, however many of the question's words it shares. The
question is read in the passages' own words for what it names ("the Office
plan" as "the Office subscription").
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from ._questions import _WORD, _as_word
from ._text import content_terms, stem

__all__ = ["entities", "in_passage_words", "mentions", "proper_words", "rivals", "said_as_written"]

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
    # (each word with the "?" or "!" after it, which ends a sentence)
    raw = [
        m.group() + question[m.end() : m.end() + 1].strip("\"'’”).,;: \n")
        for m in _WORD.finditer(question)
    ]
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
