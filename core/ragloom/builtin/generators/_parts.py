"""A question that asks two things, told apart into questions that each
stand alone: "What is the resit fee and when is the resit deadline?", "When
does the library open and close?", "How much is an inter-library loan? How
long does it take?". Each part is answered on its own, so that neither
answer has to cover the other's words, and a part the passages do not
answer is said to be unanswered rather than quietly left out.

A part that points back with a pronoun ("... and how long does *it* take?")
is given what the first part asks about ("how long does an inter-library
loan take?"); where that cannot be read off the first part's form, the
question is left whole.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ._text import split_sentences

__all__ = ["Part", "question_parts"]


class Part(NamedTuple):
    """One question of several: ``question`` stands alone (a pronoun given
    its thing), ``asked`` is in the asker's words, ``subject`` is what a
    sentence that answers it must be about ("the library" of "When does the
    library close?"; empty where the question's form does not tell), and
    ``paired`` says that it is one of two verbs asked of one subject ("open
    and close"), which a sentence may answer together ("open from 8am to
    7pm")."""

    question: str
    asked: str
    subject: str = ""
    paired: bool = False
    given: bool = False
    """Whether ``subject`` was given to a pronoun from the first part (its
    modifiers may be the first part's alone: "How much is adult membership
    and how much is it for students?")."""


_WH = frozenset({"what", "who", "whom", "whose", "when", "where", "which", "why", "how"})
_COPULA = frozenset({"is", "are", "was", "were"})
_DO = frozenset(
    {"do", "does", "did", "can", "could", "will", "would", "should", "may", "might", "must"}
)
_AUX = _COPULA | _DO | {"has", "have"}
_DETERMINERS = frozenset({"the", "a", "an", "my", "your", "our", "their", "this", "that"})
_SUBJECTS = _DETERMINERS | {
    "i", "you", "we", "they", "it", "he", "she", "there", "these", "those", "its", "his", "her",
}  # fmt: skip
"""Words that open the subject of a yes/no question ("and is *it* refundable?",
"and can *I* pay monthly?"): "and is parking included?" is left whole, as a
verb after "and is" ("... and is available monthly") would be."""
_PEOPLE = frozenset({"i", "you", "we", "me", "us", "they", "he", "she"})
_PLACING = frozenset(
    {"at", "in", "on", "for", "from", "to", "with", "by", "during", "before", "after", "near",
     "per", "of", "into", "without", "within", "over", "under"}
)  # fmt: skip
"""Prepositions: what follows one is no part of a subject's name ("a sleeping
bag *at the hut*"), and a verb pair's subject holds none ("rooms do you have
*for* bed and breakfast")."""
_TEMPORAL = re.compile(
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekends?|weekdays?|mornings?|evenings?"
    r"|nights?|holidays?|january|february|march|april|may|june|july|august|september"
    r"|october|november|december|christmas|easter",
    re.IGNORECASE,
)
_MODAL_TAILS = (("need", "to"), ("have", "to"), ("want", "to"), ("ought", "to"))
"""What may stand between a verb pair's subject and its verbs: "What do the
children *need to* bring and wear?"."""
_NOT_SUPERLATIVE = frozenset(
    {"interest", "request", "guest", "test", "forest", "contest", "harvest", "digest", "protest",
     "honest", "modest", "manifest", "suggest", "invest", "arrest", "chest", "nest", "west",
     "rest", "vest", "quest", "pest", "crest", "zest", "fest", "behest", "conquest", "bequest"}
)  # fmt: skip


def _superlative(word: str) -> bool:
    """ "cheapest", "best", "most": a thing picked by one ("the cheapest plan")
    is what the passages must name first, so no pronoun is given it."""
    lowered = word.lower()
    if lowered in {"best", "worst", "most", "least"}:
        return True
    return len(lowered) > 4 and lowered.endswith("est") and lowered not in _NOT_SUPERLATIVE


_JOIN = re.compile(r"\s*,?\s+and\s+(?:also\s+)?|\s*,\s*", re.IGNORECASE)
"""Where a sentence's second question may begin: after "and" or a comma
("How old must I be, what do I need to bring and how much is the deposit?")."""
_LEAD = re.compile(r"^(?:and|also|or|so|but|plus)\b[\s,]*", re.IGNORECASE)
_WORD = re.compile(r"[\w'’-]+(?:[.:/][\w'’-]+)*")  # ("2.0", "Node.js" are one word)
_PRONOUN = re.compile(r"\b(?:(its|their)|it|they|them|he|she|him)\b", re.IGNORECASE)
_NOT_SUBJECTS = frozenset(
    {"be", "not", "also", "only", "still", "always", "usually", "sometimes", "is", "was", "has",
     "does", "this", "as", "us", "yes", "its"}
)  # fmt: skip
_KINDS = frozenset({"time", "day", "date", "year", "month", "kind", "type", "sort"})
""""What time is check-in": the kind of answer, not a thing picked ("Which plan is cheapest")."""
_LEADING_PRONOUN = re.compile(
    r"^(?:\w+\s+){0,3}?(?:is|are|was|were|do|does|did|can|could|will|would|should|has|have)"
    r"\s+(?:it|they|he|she)\b|^(?:it|they|he|she)\b",
    re.IGNORECASE,
)
"""A pronoun that is its part's subject: "how long does *it* take", "is *it* refundable"."""
_CONTRACTED = re.compile(r"\b(what|where|when|who|how)['’]s\b", re.IGNORECASE)
_OPENING = re.compile(
    r"^(?:if|when(?!\s+(?:is|are|was|were|do|does|did|can|will|should|would|could|must)\b)"
    r"|once|after|before|since|as|because|while)\b[^,?]{1,200},\s*",
    re.IGNORECASE,
)
"""An opening clause said with each part ("If I cancel, ..."); not a question
that opens with "when" ("When is the exam, and how long is it?")."""
_MOST_WORDS = 6
"""The longest subject a pronoun is given ("the Northgate campus library")."""


def question_parts(question: str) -> list[Part]:
    """The questions ``question`` asks, each standing alone; one ``Part``
    (the question as asked) where it asks one, or where a part's pronoun has
    nothing to stand for, or a sentence after the first question asks
    nothing of its own ("On Sundays?"). Sentences before the questions
    ("I'm a student.") and an opening clause ("If I cancel, ...") are said
    with each part."""
    whole = [Part(question, question)]
    text = _CONTRACTED.sub(r"\1 is", " ".join(question.split()))
    sentences = [
        piece
        for sentence in split_sentences(text)
        for piece in re.split(r"(?<=\?)\s+(?=\S)", sentence)
    ]
    # (a question written without its mark is the last sentence: "how much is
    # a resident card and how long is it valid")
    asked = [i for i, s in enumerate(sentences) if s.endswith("?")] or [len(sentences) - 1]
    if not sentences or asked != list(range(asked[0], len(sentences))):
        # a statement after a question ("What is it? It broke.") reads as one
        return whole
    context = " ".join(sentences[: asked[0]])
    clauses: list[tuple[str, str, bool]] = []  # (clause, subject, paired)
    for sentence in sentences[asked[0] :]:
        body = _LEAD.sub("", sentence.rstrip("?.! ").strip())
        opening = _OPENING.match(body)
        if opening:  # "If I cancel, how much do I pay and when ...?": said with each part
            context = f"{context} {opening.group(0).strip()}".strip()
            body = body[opening.end() :]
        clauses.extend(_clauses(body))
    if len(clauses) < 2 or not all(_opens_question(c) for c, _, _ in clauses):
        return whole
    # (where the first part's form does not tell, what it ends on: "How do I
    # get on the waiting list" is about the waiting list)
    topic = _topic(clauses[0][0])
    place = _last_phrase(clauses[0][0])
    parts = []
    for i, (clause, subject, paired) in enumerate(clauses):
        said, given = clause, False
        if i and _PRONOUN.search(clause):
            # (where the first part's form does not tell, "its" is the place
            # it ends on: "... on the Starter plan, and how long are its logs
            # kept?"; "it" may be the journey, "how long does it take")
            possessive = all(m.group(1) for m in _PRONOUN.finditer(clause))
            stands = topic or (place if possessive else None)
            if stands is None:
                return whole
            # (what the part is about where the pronoun is its subject: "how
            # long does *it* take", not "do I need a referral for *it*")
            leads = _LEADING_PRONOUN.search(clause)
            clause = _PRONOUN.sub(lambda m, s=stands: f"{s}'s" if m.group(1) else s, clause)
            subject, given = (stands, True) if leads else (_topic(clause) or "", False)
        elif not subject:
            subject = _topic(clause) or ""
        if not context or context[-1] in ".!?":  # not "If I'm sick, When do I ...?"
            clause, said = clause[:1].upper() + clause[1:], said[:1].upper() + said[1:]
        parts.append(
            Part(
                f"{context} {clause}?".strip(), f"{context} {said}?".strip(), subject, paired, given
            )
        )
    return parts


def _opens_question(clause: str) -> bool:
    """Whether a clause asks a question of its own ("when is it due"), not
    one before it asks ("On Sundays", "Even large ones")."""
    words = _WORD.findall(clause.lower())
    return len(words) >= 2 and (words[0] in _WH or words[0] in _AUX)


def _clauses(body: str) -> list[tuple[str, str, bool]]:
    """The questions one sentence joins with "and": "What is the fee and
    when is it due" -> "What is the fee", "when is it due"; "When does the
    library open and close" -> "When does the library open", "When does the
    library close", each with "the library" as its subject."""
    words = [w.lower() for w in _WORD.findall(body)]
    if not words or words[0] not in _WH | _AUX:
        return [(body, "", False)]
    pieces: list[str] = []
    start = 0
    for join in _JOIN.finditer(body):
        after = [w.lower() for w in _WORD.findall(body[join.end() :])][:7]
        before = _WORD.findall(body[start : join.start()])
        if len(before) >= 3 and _asks(after, body[join.end() :]):
            pieces.append(body[start : join.start()].strip(" ,;:.!"))
            start = join.end()
    pieces.append(body[start:].strip(" ,;:.!"))
    if len(pieces) > 1:
        return [(piece, "", False) for piece in pieces]
    subject = _verb_pair_subject(body)
    if subject is None:
        return [(body, "", False)]
    stem, first, second = re.fullmatch(r"(.+?)\s+([a-z]+)\s+and\s+([a-z]+)", body).groups()
    return [(f"{stem} {first}", subject, True), (f"{stem} {second}", subject, True)]


def _verb_pair_subject(body: str) -> str | None:
    """The subject of a question that ends in two verbs ("When does *the
    library* open and close", "What do *the children* need to bring and
    wear", "How do *I* import and export"), asked of each; None for two
    things of one question ("What are the opening hours and prices": no
    do-verb), a pair after a preposition ("rooms do you have for bed and
    breakfast") or after the verb ("do you play rock and roll")."""
    two = re.fullmatch(r"(.+?)\s+([a-z]+)\s+and\s+([a-z]+)", body)
    words = _WORD.findall(two.group(1)) if two else []
    lower = [w.lower() for w in words]
    at = next((i for i, w in enumerate(lower[:4]) if i and w in _AUX), None)
    if two is None or lower[0] not in _WH or at is None or lower[at] not in _DO:
        return None
    if {two.group(2), two.group(3)} & (_SUBJECTS | _PEOPLE | _PLACING | _WH | {"not", "no"}):
        return None
    subject = words[at + 1 :]
    for tail in _MODAL_TAILS:
        if tuple(w.lower() for w in subject[-2:]) == tail:
            subject = subject[:-2]
    said = [w.lower() for w in subject]
    if not subject or len(subject) > 4 or set(said) & _PLACING:
        return None
    if said[0] in _PEOPLE:  # "How do I import and export", not "do you play rock and roll"
        return None if len(said) > 1 else ""
    return " ".join(subject)


_PREDICATES = frozenset(
    {"open", "closed", "due", "valid", "available", "free", "on", "out", "held", "built", "made",
     "paid", "sent", "done", "run", "given", "taken", "allowed", "needed", "required"}
)  # fmt: skip


def _predicate(word: str) -> bool:
    """Whether a question's last word says something of its subject ("When
    was version 2.0 *released*?", "How long is a card *valid*?")."""
    return word.islower() and (word.endswith("ed") or word in _PREDICATES)


def _asks(words: list[str], text: str) -> bool:
    """Whether what follows an "and" is a question of its own: "when is it
    due", "how much does it cost", "is it refundable", "can I pay later"."""
    if not words:
        return False
    if words[0] in _WH:  # ("how many days of annual leave do I get")
        return any(w in _AUX for w in words[1:7])
    if words[0] in _AUX and len(words) > 2:
        second = _WORD.findall(text)[1]
        if words[1] in _SUBJECTS or second[:1].isupper():
            return True
        # "and can administrators read private memories": a plural noun and
        # its verb after a do-verb or a modal (not "and can be paid monthly")
        return (
            words[0] in _DO
            and words[1].endswith("s")
            and not words[1].endswith("ss")
            and words[1] not in _NOT_SUBJECTS
            and words[2] not in _NOT_SUBJECTS
        )
    return False


_LAST_PHRASE = re.compile(
    r"\b(?:on|in|at|for|to|from|with|into|onto)\s+((?:the|your|my|our)\s+(?:[\w'’-]+\s+){0,2}"
    r"[\w'’-]+)$",
    re.IGNORECASE,
)


def _last_phrase(clause: str) -> str | None:
    """The place a clause ends on, "the waiting list" of "How do I get on the
    waiting list", "the Starter plan" of "How many endpoints can I have on
    the Starter plan", or None (not "the price of the Pro plan": of what?)."""
    found = _LAST_PHRASE.search(clause.rstrip("?.! "))
    return found.group(1) if found else None


def _topic(clause: str) -> str | None:
    """What a question asks about, for a later part's pronoun: "the resit
    fee" of "What is the resit fee", "the Denver office" of "How many
    employees does the Denver office have", "dental implants" of "Do you
    offer dental implants", "the pool" of "Is the pool heated"; None where
    its form does not tell ("Does the plan include SSO": the plan, or SSO?;
    "Which plan is cheapest": the plan the passages must find; "How much
    does the Pro plan cost per month": where does the subject end?)."""
    words = _WORD.findall(clause)
    lower = [w.lower() for w in words]
    if not words:
        return None
    if lower[0] in _WH:
        at = next((i for i, w in enumerate(lower[:4]) if i and w in _AUX), None)
        if at is None:
            return None
        rest = words[at + 1 :]
        asker = lower[0] in {"who", "what", "which"} and at == 1 and lower[at] in _DO
        if asker and (not rest or (rest[0].islower() and rest[0] not in _DETERMINERS)):
            return None  # "Who can open an account": the asked word is the subject
        picked = (
            lower[0] in {"what", "which", "whose"}
            and at > 1
            and lower[at] in _COPULA
            and lower[1] not in _KINDS
        )
        if picked and (len(rest) == 1 or any(map(_superlative, rest))):
            return None  # "Which plan is cheapest": the thing is what is asked
        if lower[at] in _COPULA and rest and _predicate(rest[-1]):
            rest = rest[:-1]  # "When was version 2.0 released", "How long is a card valid"
        if lower[at] not in _COPULA:  # "does the library open": the verb is last
            if not rest or not rest[-1].islower() or {w.lower() for w in rest} & _PLACING:
                return None
            rest = rest[:-1]
    elif lower[0] in _AUX and len(words) > 2:
        rest = words[1:]
        if lower[1] == "there":  # "Is there a sauna"
            rest = words[2:]
        elif lower[1] in _PEOPLE:  # "Do you offer dental implants", "Can I bring my dog"
            rest = words[3:]
            if len(rest) > 1 and rest[0].lower() in _PLACING:  # "Can I switch to annual billing"
                rest = rest[1:]
                if _TEMPORAL.fullmatch(rest[-1]):
                    return None  # "Do you deliver on Saturdays": when, not what
            elif len(rest) < 2:  # ("Can I pay monthly": no thing)
                return None
        elif lower[0] in _COPULA:  # "Is the pool heated", "Are dogs allowed in rooms"
            cut = next((i for i, w in enumerate(rest) if w.lower() in _PLACING), len(rest))
            rest = rest[: cut - 1]
        else:
            return None
    else:
        return None
    if any(w.lower() == "of" for w in rest):
        return None  # "the price of the Pro plan": the price, or the plan?
    # the thing, not where or when it is asked of ("a sleeping bag at the hut")
    cut = next((i for i, w in enumerate(rest) if i and w.lower() in _PLACING), len(rest))
    rest = rest[:cut]
    if not rest or len(rest) > _MOST_WORDS or rest[0].lower() in _SUBJECTS - _DETERMINERS:
        return None
    said = " ".join(rest)
    if rest[0].lower() in _PEOPLE or "'" in said or "’" in said or any(map(_superlative, rest)):
        return None  # ("the CEO's name": the CEO's, or the name?)
    return said
