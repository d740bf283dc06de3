"""Sentences of one shape that tell things apart (the Lite, Startup and
Business plans' prices), replies that answer a FAQ's question, and the
qualifiers a sentence needs.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import replace

from ._questions import is_anaphoric
from ._text import TOKEN, content_terms, split_sentences, stem
from ._units import _Unit
from ._versions import versions_in

_CONTRAST = frozenset(
    {
        "not", "no", "never", "with", "without", "before", "after", "within", "during",
        "except", "only", "outside", "inside", "under", "over", "more", "less", "than",
    }
)  # fmt: skip
"""Small words that flip what a yes/no question asks ("with" or "without the
Enterprise plan"): a FAQ's Yes or No answers only a question with the same ones."""


_SIBLINGS = 5
"""The most sentences of one shape said for a question that names none of them."""
_WHAT_IS = re.compile(
    r"\s*what(?:'s|\s+is|\s+are)\s+(?:the|a|an)(?:\s+[\w'-]+){1,3}\s*\??\s*$", re.IGNORECASE
)
"""A question that asks for a thing by its name alone ("What is the pass
mark?"): where the answer is a figure, each thing's own may be it."""
_SIBLING_KINDS = frozenset(
    {"money", "much", "count", "amount", "duration", "length", "size", "weight", "distance",
     "percent", "age", "clock", "time"}
)  # fmt: skip
"""What a question asks where each thing's own figure is the answer (how much,
how many, how long, what time: "When does the library open?" where each
campus's library opens at its own hour): not where, who or which (and a
day or a month is no thing's name)."""
_FIGURE_PHRASE = re.compile(
    r"(?<![\w.])[$€£]?\d[\d.,]*%?(?:\s+[a-z]+)?|\b(?:noon|midday|midnight)\b"
)
"""A figure with the word after it, or an hour said in words ("closes at
midnight" beside "closes at 10 pm")."""
_MONTHS = frozenset(
    {"january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"}
)  # fmt: skip
_WHEN_WORDS = _MONTHS | {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "spring",
    "summer", "autumn", "winter",
}  # fmt: skip
_NAME_WORD = re.compile(r"(?<=\S\s)[A-Z][\w-]*(?:\s+[A-Z0-9][\w-]*)*")


def _shape(text: str) -> tuple[str, tuple[str, ...]]:
    """A sentence with its figures (and the word after each) and its names
    (capitalised words past its first) masked, and the names: "Label history
    is kept for 90 days on the Starter plan" and "... for 1 year on the
    Growth plan" have one shape."""
    masked = _FIGURE_PHRASE.sub("#", text)
    # (a month or a day is when, not what: "As of March 2025 the fee is $12")
    names = tuple(n for n in _NAME_WORD.findall(masked) if n.split()[0].lower() not in _WHEN_WORDS)
    return _NAME_WORD.sub("N", masked).lower(), names


def _with_siblings(chosen: list[_Unit], candidates: list[_Unit], question: str) -> list[_Unit]:
    """``chosen`` with the sentences of the first one's shape that name
    others in its place ("In Lisbon, employees get 25 days of annual leave",
    "In Toronto, ... 15 days"), up to ``_SIBLINGS`` in all, when there are
    any; as it is when its first sentence names nothing or there are more.
    Names are capitalised words past a sentence's first; where there are
    none, the one or two words in which two sentences of one length differ
    and the question names neither ("Home undergraduate students pay £9,250
    per year" and "International postgraduate students pay £24,600 per
    year"; for "postgraduate students", only the postgraduates'), in the
    first's own run of such sentences in its chunk (``_in_one_run``): "##
    Gym" and "## Pool" are two things' headings, "Gym prices:" and "Pool
    prices:" two things' lists, and another page may be dated or limited
    anywhere on it ("This page is archived", a later chunk's "weekdays
    only"), whatever their sentences say."""
    first = chosen[0]
    if first.kind not in {"sentence", "bullet"}:
        return chosen
    shape, names = _shape(first.text)
    if _FIGURE_PHRASE.search(first.text) is None:
        return chosen
    folder = first.chunk.source.rpartition("/")[0]
    nearby = [
        unit
        for unit in candidates
        if unit.kind in {"sentence", "bullet"}
        and not any(unit.text == u.text for u in chosen)
        and unit.chunk.source.rpartition("/")[0] == folder  # (another product's folder: none)
    ]
    said = {names}
    siblings: list[_Unit] = []
    for unit in nearby if names else ():
        other_shape, other_names = _shape(unit.text)
        if other_shape == shape and other_names not in said:
            said.add(other_names)
            siblings.append(unit)
    if not siblings and not is_anaphoric(first.text):
        shape = _word_shape(first.text)
        shapes = {shape}
        asked = set(content_terms(question))
        # what the question names that the first's page says of it ("gym" in
        # "How much is gym membership?"): a sibling says it too, or it is
        # another thing's ("Pool membership costs £20")
        held = asked & _said_with(first)
        for unit in nearby:
            other_shape = _word_shape(unit.text)
            apart = _told_by_words(shape, other_shape, asked)
            if (
                apart
                and other_shape not in shapes
                and not is_anaphoric(unit.text)
                and held <= _said_with(unit)
                and unit.chunk.id == first.chunk.id
                and _in_one_run(first, unit, shape)
            ):
                shapes.add(other_shape)
                siblings.append(unit)
    lowered = question.lower()
    # the words that tell the names apart ("nursing" of "BSc Nursing" beside
    # "BA History"; not "delivery" of "Express Delivery" beside "Standard Delivery")
    worded = [{w.lower() for n in ns for w in n.split()} for ns in said]
    telling = set().union(*worded) - set.intersection(*worded)
    if (
        not siblings
        or len(siblings) + 1 > _SIBLINGS
        # (the question names one, in lower case: "... in lisbon", "the nursing pass mark")
        or any(re.search(rf"\b{re.escape(n.lower())}\b", lowered) for ns in said for n in ns)
        or (
            _WHAT_IS.match(question) is not None
            and any(len(w) > 3 and re.search(rf"\b{re.escape(w)}\b", lowered) for w in telling)
        )
    ):
        return chosen
    return [first, *siblings, *(u for u in chosen[1:] if u not in siblings)]


_WORD = re.compile(r"[a-z][a-z'-]*")
_PUNCTUATION = ".,;:!?()[]\"'*_"
_NO_NAME = frozenset(
    {"a", "an", "the", "this", "that", "these", "those", "it", "its", "they", "their", "and",
     "or", "not", "no", "never", "cannot", "only", "also", "per", "for", "of", "to",
     "in", "on", "at", "by", "with", "from", "up", "over", "under", "more", "less", "than",
     "before", "after", "until", "since", "is", "are", "was", "were", "be", "been", "will",
     "would", "may", "might", "must", "can", "could", "should", "do", "does", "did", "get",
     "gets", "got", "has", "have", "had", "used", "now", "then", "previously", "formerly",
     "currently", "still", "old", "new", "current", "previous", "former", "earlier", "later"}
)  # fmt: skip
"""Words that name nothing: two sentences that differ in one of them say
two things of one thing ("is" and "was", "get" and "got", "before" and
"after", "may" and "must"), or the same thing then and now, not one thing
of two. A word with "n't" is one of them too."""
_PAST = frozenset(
    {"paid", "took", "gave", "came", "went", "ran", "began", "cost", "charged", "kept", "left",
     "made", "sold", "bought", "held", "met", "opened", "closed", "lasted", "started"}
)  # fmt: skip
"""Verbs in the past: a sentence in the past beside one in the present is
of then and now ("Seniors paid £3"), not of two things."""


def _word_shape(text: str) -> str:
    """A sentence with its numbers and its names masked, lower-cased, its
    other words kept: the words after a figure ("3 users", "50 projects")
    and a day or a season ("on Saturdays", "in Winter") tell two sentences
    apart as much as any."""
    masked = _NUMBER.sub("#", _DATE.sub("#", text))

    def name(found: re.Match[str]) -> str:
        word = found.group().split()[0].lower()
        kept = word in _WHEN_WORDS or word[:-1] in _WHEN_WORDS
        return found.group() if kept else "N"

    return _NAME_WORD.sub(name, masked).lower()


_MONTH = "(?:" + "|".join(m.capitalize() for m in sorted(_MONTHS)) + ")"
_DATE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\b(?:,?\s+\d{{4}})?"
    rf"|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}})?|\b{_MONTH}\s+\d{{4}}\b"
)
"""A date, a figure of its own ("31 January", "March 2025"): when a
sentence holds ("As of March 2025 the fee is $12"), where a month alone
may name a thing ("the deadline for September entry")."""
_NUMBER = re.compile(
    r"(?<![\w.])[$€£]?\d[\d.,:]*%?(?:\s*[ap]\.?m\b\.?)?|\b(?:noon|midday|midnight)\b"
)
"""A figure, an hour with its "am" or "pm" among them ("at 5 pm", "at midnight")."""


def _said_with(unit: _Unit) -> set[str]:
    """The words of a unit, of the headings it sits under and of its page's title."""
    title = unit.chunk.metadata.get("title")
    titled = content_terms(title) if isinstance(title, str) else ()
    return {*unit.terms, *unit.context, *unit.outer, *titled}


def _told_by_words(shape: str, other: str, asked: set[str]) -> set[str]:
    """The terms in which two shapes (``_word_shape``'s) of one sentence
    name two things, or none: as many words, differing in one or two
    places, each a word that names something (no name masked as ``n``),
    and the question naming neither word's own terms there (else the other
    names what it did not ask: "part time" asks "Part-time", not "Full-time")."""
    words = [w.strip(_PUNCTUATION) for w in shape.split()]
    others = [w.strip(_PUNCTUATION) for w in other.split()]
    if len(words) != len(others) or len(words) < 3:
        return set()
    apart = [(a, b) for a, b in zip(words, others) if a != b]
    for a, b in apart:
        if a in _PAST or b in _PAST or (stem(a) == stem(b) and "ed" in {a[-2:], b[-2:]}):
            return set()  # of then and now ("Seniors paid £3", "Lessons started at 9am")
        if a.endswith("ed") and b.endswith("ed") and not _negated(a, b):
            return set()  # two doings ("updated", "reviewed"; "included", "excluded")
    # one word in two numbers is one word ("2 doses", "1 dose")
    apart = [(a, b) for a, b in apart if stem(a) != stem(b)]
    if not 1 <= len(apart) <= 2:
        return set()
    terms: set[str] = set()
    for a, b in apart:
        if any(
            len(word) < 3 or not _WORD.fullmatch(word) or word in _NO_NAME or word.endswith("n't")
            for word in (a, b)
        ):
            return set()
        ours, theirs = set(content_terms(a)), set(content_terms(b))
        if not ours or not theirs or (ours ^ theirs) & asked:  # ("same day", "next day")
            return set()
        if ours & theirs & asked and "non-" in {a[:4], b[:4]}:
            return set()  # "for members?": not non-members' price
        terms |= ours | theirs
    return terms


def _negated(a: str, b: str) -> bool:
    """Whether one word is the other with "un" or "non" before it ("reserved",
    "unreserved"): two kinds of a thing, not two things done to it."""
    return any(x == f"{p}{y}" for x, y in ((a, b), (b, a)) for p in ("un", "non-", "non"))


def _in_one_run(first: _Unit, other: _Unit, shape: str) -> bool:
    """Whether two units of one chunk stand in one paragraph or list with
    nothing between them but sentences of their shape: no blank line, no
    heading, no lead that ends in a colon ("Until 31 March 2025:"), no
    sentence that scopes what follows ("Our US entity follows state law."),
    and ``other`` with no restriction after it (``_restricted``: "Student
    tickets cost £8. Student prices apply on weekdays only.") nor a
    footnote's mark."""
    text = first.chunk.text
    ours, theirs = _span(text, first), _span(text, other)
    if ours is None or theirs is None or _FOOTNOTE.search(other.text):
        return False
    (_, gap_start), (gap_end, _) = sorted((ours, theirs))
    between = text[gap_start:gap_end]
    if gap_end < gap_start or _BLANK_LINE.search(between) or _LEAD_LINE.search(between):
        return False
    for sentence, kind in split_sentences(between, kinds=True):
        words = _word_shape(sentence.strip(" -*+")) if kind != "heading" else ""
        if TOKEN.search(sentence) is None:
            continue  # (a bullet's marker)
        if kind == "heading" or (words != shape and not _told_by_words(shape, words, set())):
            return False
    return not _restricted(text, theirs, other, first, shape)


def _restricted(text: str, span: tuple[int, int], other: _Unit, first: _Unit, shape: str) -> bool:
    """Whether what follows ``other`` up to the next heading may limit it: a
    line under it, indented deeper (its sub-bullet, its continuation), or a
    sentence of another shape that restricts ("Off-peak tickets can't be
    used before 09:30.", "Concessions are not available in August.", in the
    next paragraph too) or names what it alone names ("Junior prices are
    for under-16s.")."""
    line_start = text.rfind("\n", 0, span[0]) + 1
    indent = len(text[line_start : span[0]]) - len(text[line_start : span[0]].lstrip())
    following = [line for line in text[span[1] :].split("\n")[1:] if line.strip()][:1]
    if following and len(following[0]) - len(following[0].lstrip()) > indent:
        return True  # (its sub-bullet, or its item's next paragraph)
    rest = _NEXT_HEADING.split(text[span[1] :], maxsplit=1)[0]
    own = set(content_terms(other.text)) - set(content_terms(first.text))
    for sentence in split_sentences(rest):
        words = _word_shape(sentence.strip(" -*+"))
        if words == shape or _told_by_words(shape, words, set()):
            continue  # (the run goes on)
        if _RESTRICTS.search(sentence) is not None or own & set(content_terms(sentence)):
            return True  # ("... Senior tickets cost £8. Concessions are not available in August.")
    return False


def _span(text: str, unit: _Unit) -> tuple[int, int] | None:
    """Where ``unit`` stands in its chunk's ``text``; None where it cannot
    tell (two sentences open alike: which is it?)."""
    start = text.find(unit.text)
    if start >= 0 and text.find(unit.text, start + 1) < 0:
        return start, start + len(unit.text)
    head, tail = unit.text[:40], unit.text[-20:]
    start = text.find(head)
    if start < 0 or text.find(head, start + 1) >= 0:
        return None
    end = text.find(tail, start)
    return None if end < 0 else (start, end + len(tail))


_FOOTNOTE = re.compile(r"[\w%)][*\u2020\u2021]+(?=[\s.,;:]|$)")
"""A footnote's mark after a word or a figure ("£6*", "free\u2020")."""
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_NEXT_HEADING = re.compile(r"\n[ \t]*#{1,6}[ \t]")
_LEAD_LINE = re.compile(r":[ \t*_]*\n")


_QUALIFIES = re.compile(
    r"\b(?:not|no|never|except|unless|however|only|excluding|excludes?|"
    # "This offer ended on December 31, 2025.": what it says no longer holds
    r"ended|expired?|expires|discontinued|withdrawn|suspended|cancell?ed|closed)\b",
    re.IGNORECASE,
)
_RESTRICTS = re.compile(
    _QUALIFIES.pattern + r"|n't\b|\b(?:cannot|valid|apply|applies|applicable|restricted|subject)\b",
    re.IGNORECASE,
)
"""What a sentence says when it limits the one before it."""


def _with_qualifier(unit: _Unit, units: list[_Unit]) -> _Unit:
    """The unit quoted with the sentence right after it when that one leans on
    it to limit it ("If you lose a 6-day or season pass, a replacement is
    issued for €10. This does not apply to day passes, which cannot be
    replaced."): alone, the first says more than it means."""
    for other in units:
        if (
            other.chunk.id == unit.chunk.id
            and other.pieces[:-1] == (unit.pieces or (unit.text,))
            and _QUALIFIES.search(other.pieces[-1]) is not None
        ):
            # after its release heading, and its FAQ's "No.", too
            return replace(other, lead=unit.lead, reply=unit.reply)
    return unit


def _replies_to(
    unit: _Unit,
    question: str,
    keys: Sequence[str],
    named: set[str],
    asked: Collection[str] = (),
) -> bool:
    """Whether the bare "Yes."/"No." before the unit answers this question:
    the FAQ question it replies to (with the document's title and section)
    asks about everything the question names and its key words ("Do you
    store card numbers?" does not answer "Does Stripe store card numbers?"),
    with the same small words that flip a question ("with" or "without")."""
    if not keys or not unit.heading.endswith("?"):
        return False
    if _contrasts(question) != _contrasts(unit.heading):
        return False
    meta = unit.chunk.metadata
    frame = set(unit.context)
    framing = [unit.heading]
    for field in ("title", "section"):
        value = meta.get(field)
        if isinstance(value, str):
            frame.update(content_terms(value))
            framing.append(value)
    # a version or series the question names ("in Ferrule 1.x?", "in 2.4?")
    # that the FAQ question does not: its "No." is of another version
    series = versions_in(question) | {m.lower() for m in _SERIES.findall(question)}
    if series and not series <= versions_in(" ".join(framing)) | {
        m.lower() for m in _SERIES.findall(" ".join(framing))
    }:
        return False
    # and everything it asks of it, the FAQ question itself ("Can I exchange a pan
    # for a different size?" under "Returns FAQ" is no reply to "Can I return a used pan?")
    return all(term in unit.context for term in (*keys, *asked)) and all(
        term in frame for term in named
    )


_SERIES = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)*\.[xX](?!\w)")
"""A series of versions ("1.x", "2.4.x")."""


def _contrasts(text: str) -> set[str]:
    return {w for w in TOKEN.findall(text.lower()) if w in _CONTRAST}


_FIGURES = re.compile(r"\d[\d.,:]*")


def _twins(best: _Unit, others: list[_Unit]) -> list[_Unit]:
    """The units of other documents, one each, that say what ``best`` says but
    for its figures ("Employees receive 14 weeks of fully paid parental
    leave." in the Berlin office's page, 16 in the Austin office's), at most
    ``_SIBLINGS`` in all."""
    if not _FIGURES.search(best.text):
        return []
    shape = _FIGURES.sub("#", best.text)
    found: dict[str, _Unit] = {}
    for unit in others:
        if (
            unit.chunk.document_id != best.chunk.document_id
            and unit.chunk.document_id not in found
            and unit.text != best.text
            and _FIGURES.sub("#", unit.text) == shape
        ):
            found[unit.chunk.document_id] = unit
    # (past the cap, the first few, each said with what tells it apart: the
    # best alone would read as every document's answer)
    return list(found.values())[: _SIBLINGS - 1]
