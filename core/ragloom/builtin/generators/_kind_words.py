"""Kinds a question names ("a corporate membership") that the passages do not
know, another kind a sentence names, acronyms no passage says, and the
kind a thing is of ("a car" is a vehicle), which a page may say instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import replace

from ._questions import _as_word, two_parts
from ._text import content_terms, stem
from ._units import _Unit

__all__ = [
    "acronyms",
    "asked_kinds",
    "expands",
    "kinds_of",
    "kinds_priced",
    "of_another_of_kind",
    "of_kinds_asked",
    "of_kinds_said",
    "priced_itself",
    "names_other_kind",
    "unknown_acronym",
    "unknown_kind",
]

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
_CHAT_ACRONYMS = frozenset(
    {"ASAP", "FYI", "BTW", "OK", "AM", "PM", "FAQ", "PLS", "PLZ", "THX", "TIA", "IMO", "AKA",
     "ETC", "IE", "EG", "NB", "PS"}
)  # fmt: skip
"""Capitals that ask about nothing ("Can I get a refund ASAP?")."""


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
        if expands(acronym, joined):  # "CEO": "Chief Executive Officer"
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
        if in_phrase and _is_kind_word(kind) and _is_kind_word(noun) and not _do_verb(words, i):
            yield i, kind, noun


_DO = frozenset({"do", "does", "did"})
_ASKING = frozenset(
    {"how", "much", "many", "long", "often", "far", "soon", "early", "late", "what", "when",
     "where", "why", "which", "who", "whom", "whose"}
)  # fmt: skip
_CLAUSE_ENDS = frozenset(
    {"to", "if", "when", "for", "per", "in", "on", "at", "with", "from", "after", "before"}
)  # fmt: skip


def _do_verb(words: Sequence[str], i: int) -> bool:
    """Whether the word after ``words[i]`` is the verb of a question asked
    with "do" ("How much does a cat *cost*?"), not a noun: the phrase follows
    "do", "does" or "did", and the word ends the clause."""
    start = i - 1 if words[i - 1].lower() in _DETERMINERS else i - 2
    after = words[i + 2].lower() if i + 2 < len(words) else "?"
    do = start - 1
    return (
        do >= 0
        and words[do].lower() in _DO
        # (the "do" that asks, first or after how much: not "Do you *do* a
        # corporate membership?", where a membership is what is done)
        and (do == 0 or words[do - 1].lower() in _ASKING)
        and (not after.isalpha() or after in _CLAUSE_ENDS)
    )


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


def acronyms(question: str) -> list[str]:
    """The acronyms a question writes ("Who is the CEO?": ``CEO``)."""
    return [a for a in _ACRONYM.findall(question) if a not in _CHAT_ACRONYMS]


def expands(acronym: str, text: str) -> bool:
    """Whether ``text`` writes ``acronym`` out, a capitalised word for each of
    its letters ("CEO": "Chief Executive Officer"; "DPO": "Data Protection
    Officer")."""
    letters = [ch for ch in acronym if ch.isalpha()]
    if len(letters) < 2 or len(letters) != len(acronym):
        return False
    pattern = r"\s+".join(rf"{letter}[a-z]+" for letter in letters)
    # (not a heading's, whose every word is capitalised: "### User Settings" is no "US")
    prose = _HEADING_LINE.sub(" ", text)
    return re.search(rf"\b{pattern}\b", prose) is not None


_HEADING_LINE = re.compile(r"^\s*#.*$", re.MULTILINE)


_KINDS = {
    stem(specific): frozenset(stem(w) for w in general.split())
    for general, specifics in (
        ("vehicle vehicles", "car cars van vans motorbike motorbikes motorcycle motorcycles "
         "motorhome motorhomes campervan campervans"),
        (
            "pet pets animal animals",
            "dog dogs cat cats puppy puppies kitten kittens rabbit rabbits hamster hamsters "
            "ferret ferrets",
        ),
        ("child children", "kid kids son sons daughter daughters toddler toddlers"),
        ("partner partners spouse spouses", "husband husbands wife wives"),
    )
    for specific in specifics.split()
}  # fmt: skip
"""The kinds a thing is of ("a car" is a vehicle): what a page says of the
kind it says of the thing."""
_KIND_WORD = re.compile(
    r"\b(?:(your|their|his|her|whose|civil|employee's|employees')\s+)?"
    r"(vehicles?|pets?|animals?|child(?:ren)?|partners?|spouses?)\b('s?|’s?)?"
    r"(?:\s+(\w[\w'-]*)(?:\s+(\w[\w'-]*))?)?",
    re.IGNORECASE,
)
_SAID_OF_ALL = frozenset(
    {
        "are", "is", "was", "were", "be", "must", "may", "can", "cannot", "can't", "should",
        "shall", "will", "won't", "would", "need", "needs", "do", "does", "don't", "doesn't",
        "did", "have", "has", "had", "get", "gets", "pay", "pays", "travel", "travels", "stay",
        "stays", "go", "goes", "enter", "enters", "use", "uses", "and", "or", "of", "in", "on",
        "at", "with", "without", "from", "that", "which", "who", "whose", "to", "for", "aren't",
        "isn't", "also", "only", "always", "never", "all", "allowed", "welcome", "accepted",
        "permitted", "not", "every", "each", "per", "take", "takes", "receive", "receives",
        "qualify", "qualifies", "ride", "rides", "eat", "eats", "sit", "sits", "join", "joins",
        "cost", "costs", "charged",
    }
)  # fmt: skip
"""Words after a kind that say something of all of it ("Pets *are* not
allowed", "Vehicles *must* check in"), not a thing named after it ("pet
health club", "vehicle deck") nor some of it ("Vehicles *over* 5 m",
"Children *under* 3", "Children *aged* 3 and 4")."""
_BEFORE_ALL = frozenset(
    {
        "a", "an", "the", "all", "any", "each", "every", "no", "our", "your", "their", "his",
        "her", "its", "my", "these", "those", "for", "with", "of", "in", "on", "to", "by",
        "from", "at", "per", "and", "or", "but", "nor", "not", "only", "also", "are", "is",
        "be", "that", "if", "when", "where", "while", "unless", "we", "you", "they",
        "well-behaved", "supervised",
    }
)  # fmt: skip
"""Words after which a kind is all of it ("*All* pets", "*Well-behaved* pets")."""
_LIMITING = frozenset(
    {
        "small", "smaller", "large", "larger", "big", "bigger", "little", "young", "younger",
        "old", "older", "elderly", "giant", "tiny", "heavy", "light", "long", "wide", "tall",
        "electric", "hybrid", "commercial", "private", "hire", "rental", "company", "courtesy",
        "rescue", "exotic", "farm", "wild", "working", "guide", "assistance", "service",
        "foster", "school", "visiting", "family", "first", "second", "additional", "extra",
        "further", "more", "some", "most", "many", "few", "two", "three", "four",
    }
)  # fmt: skip
"""Words that limit a kind after them inside a sentence ("for *small* pets")."""
_LAST_WORD = re.compile(r"([A-Za-z][\w'-]*)[^\w.!?:;\n]*$")
_OPENS_SENTENCE = re.compile(r"(?:^|[.!?:;\n])[\s#*>|-]*$")
_MODIFIER_ENDS = re.compile(r"(?:ic|al|ous|ive|able|ible|ed)$")


def _limited(before: str) -> bool:
    """Whether the word right before a kind, in its sentence, limits it: a
    sentence's first word ("*Small* pets (rabbits) cost £5", "*Hire*
    vehicles"), or inside one a word that reads as a modifier ("for *exotic*
    pets", "*towed* vehicles"); not a determiner or a word that says it of
    all ("*All* pets", "We *welcome* pets", "cannot *accommodate* children")."""
    last = _LAST_WORD.search(before)
    if last is None:
        return False
    word = last.group(1).lower()
    if word in _BEFORE_ALL:
        return False
    if _OPENS_SENTENCE.search(before, 0, last.start()) is not None:
        return True
    return word in _LIMITING or "-" in word or _MODIFIER_ENDS.search(word) is not None


_EXCEPT = r"\b(?:other|non-?|except|excluding|apart from|but not)\s*[\w-]+"
_OTHER_KIND = re.compile(rf"{_EXCEPT}|\s*\([^)]*\)", re.IGNORECASE)
"""A kind said of the rest ("Other vehicles: £8 a day", "non-pet rooms"), or
in brackets ("Family ticket (2 adults, 2 children)")."""


def kinds_of(terms: Iterable[str]) -> set[str]:
    """The kinds of the things ``terms`` name ("dog": ``pet``, ``animal``)."""
    return {kind for term in terms for kind in _KINDS.get(term, ())}


def kinds_priced(
    unit: _Unit, asked: Mapping[str, float], itself: Set[str] = frozenset()
) -> dict[str, float]:
    """The kind words by which ``unit`` says of the things asked what it says
    of all their kind (``of_kinds_asked`` gave it the things' words), each
    weighing as its thing: "A pet costs £15 per night" prices a dog as a pet.
    None for a thing a page prices in its own word (``itself``: "Dogs cost
    £25" beside "Pets cost £15"), nor where the question asks the price of
    more than the thing, which the unit does not say ("How much is insurance
    for my dog?", "to groom my dog")."""
    held = {t for t in asked if t in _KINDS and t in unit.terms} - itself
    if not held:
        return {}
    held -= set(content_terms(unit.text))
    said = unit.terms | unit.context | unit.outer
    if not held or any(t not in said for t in asked if t not in _KINDS and t not in _PRICING):
        return {}
    return {kind: asked[t] for t in held for kind in _KINDS[t]}


_PRICING = frozenset(
    stem(w)
    for w in (
        "cost", "costs", "charge", "charges", "pay", "price", "fee", "bring", "take", "have",
        "leave", "attend", "come", "join", "go", "stay", "travel", "visit", "enter",
    )
)  # fmt: skip
"""Words of a price question that ask its price, or that the thing priced
is there, not what is priced ("How much does it cost to bring my dog?")."""


def priced_itself(texts: Iterable[str], terms: Set[str]) -> set[str]:
    """The things ``terms`` name that ``texts`` (sentences that price) say in
    their own words ("Dogs cost £25 per night")."""
    things = {t for t in terms if t in _KINDS}
    if not things:
        return set()
    return {
        term
        for text in texts
        for match in re.finditer(r"[A-Za-z]+", text)
        if (term := stem(match.group().lower())) in things
        # (some of them: "Guide dogs stay free" prices no other dog)
        and not _limited(text[: match.start()])
    }


def of_another_of_kind(cells: Sequence[str], terms: Set[str]) -> bool:
    """Whether a table row's cells name another thing of the kind of one the
    question names, and not it: "Worming tablet | dog | 2 tablets | £11" is
    no price for a rabbit."""
    things = {t for t in terms if t in _KINDS}
    if not things:
        return False
    said = {t for cell in cells for t in content_terms(cell)}
    others = {t for t in said if t in _KINDS and t not in terms}
    return not things & said and any(_KINDS[o] & _KINDS[t] for o in others for t in things)


def of_kinds_asked(units: Sequence[_Unit], terms: Set[str], *, some: bool = False) -> list[_Unit]:
    """``units``, each sentence that says something of all of the kind of a
    thing the question names (``terms``) holding the thing's word too:
    "Vehicles must check in at least 40 minutes before departure" answers
    "with a car?", "Pets are not accepted" answers "Do you accept dogs?".
    Not a table's row, whose column ("Vehicle") is every row's; not a kind
    said of the rest ("Other vehicles: £8 a day"), of some of it ("Vehicles
    over 5 m pay £20"), or as the name of another thing ("pet health club",
    "Children's swimming sessions"; but "Child ticket" names the ticket a
    question for a child asks about); a partner only as someone's ("your
    partner", "a spouse or civil partner"; not "Partners of the firm").
    With ``some``, a kind said of some of it ("Younger children") counts too:
    the pages speak of such things (what the thing's word weighs)."""
    if not any(term in _KINDS for term in terms):
        return list(units)
    out = []
    for unit in units:
        if unit.kind not in {"sentence", "bullet"}:
            out.append(unit)
            continue
        more = of_kinds_said(unit.text, terms, some=some) - unit.terms
        out.append(replace(unit, terms=unit.terms | more) if more else unit)
    return out


def of_kinds_said(text: str, terms: Set[str], *, some: bool = False) -> set[str]:
    """The things ``terms`` name ("dog") whose kind ``text`` says something
    of all of ("Pets in the cabin cost £50 each way"), as ``of_kinds_asked``
    reads a sentence."""
    kinds = {term: _KINDS[term] for term in terms if term in _KINDS}
    if not kinds:
        return set()
    said = _kinds_said(_OTHER_KIND.sub(" ", text), terms, some=some)
    if not said:
        return set()
    # ("Vehicle cost: cars £45, vans £60" says it of cars and vans, not of a
    # motorbike; but "All vehicles except motorbikes must pay" of a van)
    named = {t for t in content_terms(re.sub(_EXCEPT, " ", text, flags=re.I)) if t in _KINDS}
    named -= set(terms)
    return {
        term
        for term, kind in kinds.items()
        if kind & said and not any(_KINDS[other] & kind for other in named)
    }


def _kinds_said(text: str, terms: Set[str], *, some: bool = False) -> set[str]:
    """The kinds ``text`` says something of all of (their stems); with
    ``some``, of some of it too ("Younger children")."""
    said = set()
    for match in _KIND_WORD.finditer(text):
        whose, word, possessive, after, then = match.groups()
        kind = stem(word.lower())
        if possessive:
            continue  # "Children's swimming sessions"
        if not whose and not some and _limited(text[: match.start()]):
            continue  # "Small pets", "Electric vehicles", "older children"
        if (
            kind.startswith("partner")
            and not whose
            and not re.search(r"\bspouses?\s+(?:or|and)\s+$", text[: match.start()], re.IGNORECASE)
        ):
            continue  # "Partners of the firm", "partner gyms"
        named = {stem(w.lower()) for w in (after, then) if w} & terms
        if after and after.lower() not in _SAID_OF_ALL and not named:
            # "pet health club", "Vehicles over 5 m" (but "Child ticket",
            # "Child single fares" name what a question for a child asks of)
            continue
        said.add(kind)
    return said
