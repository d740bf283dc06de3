"""The form of a question: what it asks past the sentences and the opening
clause before it, whether it asks yes or no, for a list or two things, its
verb, and whether it leans on what came before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._text import content_terms, split_sentences

__all__ = [
    "TYPE_WORDS",
    "as_can",
    "is_anaphoric",
    "is_list_question",
    "is_yes_no",
    "main_question",
    "opens_with_anaphor",
    "pronoun_after_opening",
    "question_verb",
    "two_parts",
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
    r"|[^.!?]{0,80}?\b(?:before|after|by|until|till|since|from)\s+then\b"
    # "Cancellations made later than that are not refunded": a time or a
    # measure the sentence before says
    r"|[^.!?]{0,80}?\b(?:later|earlier|sooner|longer|shorter|more|less|fewer|over|under)"
    r"\s+than\s+(?:that|this|these|those)\b)",
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


def _as_word(name: str, *, plural: bool = False) -> str:
    """A pattern for ``name`` as a whole word (not inside ``X200-B`` or
    ``AX200``), with ``plural`` its plural too (``DVDs``, not ``X200s-B``)."""
    ending = "(?:s|es)?" if plural and name[-1:].isalpha() else ""
    return rf"(?<![\w-]){re.escape(name)}{ending}(?![\w-])"


TYPE_WORDS = re.compile(
    r"\bhow (?:long|fast|soon|quickly|often|much|many|far|heavy|old)\b|\b(?:what|which) time\b",
    re.IGNORECASE,
)
"""The modifier of "how long", "how much", "how heavy", or "what time":
what kind of answer, not what about."""
_YES_NO = frozenset(
    {
        "do", "does", "did", "am", "is", "are", "was", "were", "can", "could", "will", "would",
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


_ALLOWED_TO = re.compile(
    r"(^|[,.!?;:]\s*)(am|are|is)\s+(?!(?:it|there|this|that)\s)((?:[\w'’-]+\s+){0,2}?[\w'’-]+)"
    r"\s+(?:allowed|permitted)\s+to\s+",
    re.IGNORECASE,
)
"""A yes/no question of permission ("Am I allowed to", "Are we permitted
to"); not "Is it allowed to" (whose "it" is no one who would), nor "Where
am I allowed to ...?", whose page may say "allowed"."""


def as_can(question: str) -> str:
    """``question`` with "am I allowed to" (or "permitted to") asked as "can
    I": "I'm 12, am I allowed to use a paddleboard?" asks whether a
    12-year-old can, and "Paddleboards are only for ages 14 and over" says
    it without the word "allowed", which is how the question asks, not what
    about."""

    def can(match: re.Match[str]) -> str:
        opening, verb, subject = match.group(1, 2, 3)
        word = "Can" if verb[0].isupper() else "can"
        return f"{opening}{word} {subject} "

    return _ALLOWED_TO.sub(can, question)


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
    head = content_terms(obj[-1]) if obj else []
    return _Verb(
        terms[0],
        set(content_terms(" ".join(obj))),
        particle[0] if particle else None,
        head[-1] if head else None,
    )


class _Verb(tuple[str, set[str], "str | None"]):
    """``question_verb``'s verb, object terms and particle, with the head of
    the object (its last term: "battery" of "my e-bike battery")."""

    head: str | None

    def __new__(cls, verb: str, thing: set[str], particle: str | None, head: str | None) -> _Verb:
        made = super().__new__(cls, (verb, thing, particle))
        made.head = head
        return made


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


_DETAILS_ELSEWHERE = (
    r"(?:please\s+)?(?:contact|ask|call|email|e-mail)\b[^.]{0,80}?\bfor\s+"
    r"(?:details|pricing|prices|a\s+quote|a\s+price|more\s+information"
    # "ask in a branch for the current Cash ISA rates"
    r"|(?:the\s+)?(?:current|latest)\s+(?:[\w-]+\s+){0,3}?(?:rates?|prices|fees|figures))\b"
    r"|details\s+will\s+be\s+(?:published|announced|available|sent)\b"
)
"""A sentence's opening that sends the reader elsewhere for the details."""
_ASK_FOR_DETAILS = re.compile(rf"\s*(?:{_DETAILS_ELSEWHERE})", re.IGNORECASE)
"""A sentence that sends the reader elsewhere for the details of what the
one before says ("Please contact our development team for details.")."""


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


_SECOND_PART = re.compile(
    r"\?\s+\S|\band\s+(?:what|who|whom|whose|when|where|which|why|how|is|are|can|do|does)\b",
    re.IGNORECASE,
)


def two_parts(question: str) -> bool:
    """Whether the question asks two things ("Who is based in Berlin, and
    who is the CEO?"), of which the passages may answer one."""
    return _SECOND_PART.search(question.strip().rstrip("?")) is not None
