"""``extractive``: answers by quoting the retrieved passages; no LLM.

The texts of the hits are split into sentences (bullets, table rows and code
lines are units of their own; headings are context, never answers). Each
sentence is scored by how much of the question's content it covers: the
question's words minus stopwords, lightly stemmed (``pricing``, ``prices``
and ``price`` match), each weighted by its IDF over the sentences of the hits
so rare words count more, and generic nouns (``company``, ``account``)
count half. Words of a preceding heading, table header or FAQ question
count half when the sentence itself lacks them. The best sentences, if they cover at least
``min_relevance`` of the question, are quoted in source order with numbered
citations; otherwise the answer says nothing relevant was found.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import NamedTuple

from pydantic import Field, field_validator

from ...components import ComponentConfig, Generator, Message
from ...terminal import clean
from ...types import Answer, Chunk, Citation, Document, Hit
from ._current import asks_of_old, is_deprecated, old_words
from ._entities import (
    AGE_BANDS,
    ANY_LEAVE,
    GROUP_WORDS,
    INSIDERS,
    LEAVE_KINDS,
    NAMED_VERSION,
    NUMBER_WORDS,
    OUTSIDERS,
    STAFF,
    TYPE_WORDS,
    answer_kind,
    asked_age,
    asked_kinds,
    asker,
    asks_version,
    asks_when,
    counted_kind,
    counted_thing,
    entities,
    fits_kind,
    given_figures,
    has_date,
    has_version,
    holds_age,
    in_passage_words,
    is_anaphoric,
    is_list_question,
    is_release_label,
    is_yes_no,
    main_question,
    measures_another,
    mentions,
    names_other_kind,
    opens_with_anaphor,
    payer,
    proper_words,
    question_verb,
    receiver,
    rivals,
    said_as_written,
    two_parts,
    unknown_acronym,
    unknown_kind,
    versions_in,
)
from ._entities import (
    YEAR as _YEAR,
)
from ._parts import Part, question_parts
from ._places import (
    as_written,
    excluded_by,
    framed_by,
    left_out,
    origins,
    place_forms,
    places_in,
    said_in,
    within,
)
from ._text import (
    END_PUNCT,
    GENERIC_STEMS,
    TOKEN,
    content_terms,
    header_cells,
    only_links,
    reads_as_english,
    split_sentences,
    stem,
)

__all__ = [
    "FROM_DEPRECATED",
    "NOT_ENGLISH",
    "NOT_FOUND",
    "UNANSWERED_PART",
    "ExtractiveGenerator",
    "split_sentences",
    "stem",
]

NOT_FOUND = "I could not find information about this in the indexed documents."
FROM_DEPRECATED = "(From a page marked deprecated; no current page says it.)"
UNANSWERED_PART = "I could not find an answer to \u201c{part}\u201d in the indexed documents."
"""Said for the part of a two-part question that the passages do not answer."""
NOT_ENGLISH = (
    "(The extractive answerer reads questions in English only; for other languages, "
    "configure a generator backed by an LLM.)"
)
"""Said after :data:`NOT_FOUND` when the question does not read as English."""

_CONTEXT_WEIGHT = 0.5
_CODE_WEIGHT = 0.5
_BACKGROUND = 5
_METADATA = {"generator": "extractive"}
_GENERIC_WEIGHT = 0.5
_RANK_BONUS = 0.05
_NOT_DONE = re.compile(
    r"\b(?:not|no longer|unavailable|planned|will|upcoming|future|known issues?|remains?|"
    r"still|yet|pending|deprecated)\b",
    re.IGNORECASE,
)
"""Words of a release note about what did not happen in it ("SSO remains
unavailable", "a fix is planned"): its heading never dates it."""
_CONTRAST = frozenset(
    {
        "not", "no", "never", "with", "without", "before", "after", "within", "during",
        "except", "only", "outside", "inside", "under", "over", "more", "less", "than",
    }
)  # fmt: skip
"""Small words that flip what a yes/no question asks ("with" or "without the
Enterprise plan"): a FAQ's Yes or No answers only a question with the same ones."""
_MARKUP = re.compile(r"<[^>]*>|[*_`#=~-]{2,}|^[*_#\s]+|[*_\s]+$")
_LABEL_CHARS = 80
_ATTRIBUTION = re.compile(
    r"(?=.{0,160}$).*\b(?:wrote|schrieb|a écrit|escribió)\b[^:]{0,60}:$", re.IGNORECASE
)
"""A mail's line before the text it quotes ("On Mon, 21 Jul 2025, Priya Raman
wrote:"): it says who wrote what follows, and answers nothing itself."""
_VERDICT = re.compile(r"(?:yes|no)\b\s*[,;:\u2014\u2013-]", re.IGNORECASE)
"""A reply that opens with its yes or no ("Yes, but ...", "No - ...")."""
_BARE_YES_NO = re.compile(r"(?:yes|no|yes, indeed|no, sorry)[.!]$", re.IGNORECASE)
"""A sentence that is only a yes or a no (a FAQ's reply before its reason)."""
_NEW_PART = 0.2
"""A further sentence must answer this share of the question the chosen ones leave."""
_MAX_JOINED = 3
"""A sentence leaning on the ones before is quoted with at most this many in all."""
_ENTITY_WEIGHT = 0.5
_KEY_SHARE = 0.8
"""A yes/no answer must hold every asked word weighing this share of the rarest."""
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10}  # fmt: skip
_ANNOUNCED = re.compile(
    r"\b(" + "|".join(_COUNTS) + r"|[2-9]|10)\s+((?:[\w-]+\s+){0,2}?[\w-]+)\W*$", re.IGNORECASE
)
"""A sentence that ends by announcing how many of something there are
("Ledgerly comes in two editions."), naming none of them."""
MAX_UNIT_CHARS = 1000
_PAYING = frozenset({"pay", "paid", "cost", "charg", "fe", "fre"})
"""A yes/no question's words for paying: a sentence with a price says them."""
_HOLDS = frozenset(
    stem(w)
    for w in ("seat", "seats", "hold", "fit", "accommodate", "take", "sleep", "people", "guests")
)
"""What "how many ... can it seat?" asks, which a capacity says."""
_CAPACITY = stem("capacity")
_PAY = frozenset({"pay", "paid", "spend", "ow"})
"""A question's verbs of paying, which a price answers without saying them."""
_CONTACT = {
    "phone": frozenset({"phon", "telephon", "number", "mobil", "cal", "contact"}),
    "email": frozenset({"email", "mail", "address", "contact"}),
}
"""The words of a question for a phone number or an email address, which a
sentence giving one answers without saying them ("call 01632 960 418")."""
_CONCESSION = frozenset({"concess", "concessionary"})
"""A discount in other words ("the concession")."""
_PRICE_OFF = re.compile(
    r"\b\d+(?:\.\d+)?\s*%\s+(?:off|reduction|less)\b(?![-\s]*peak)|\bhalf[- ]price\b"
    r"|\b(?:[$€£]\s?\d[\d.,]*|\d+)\s+off\b(?![-\s]*peak)",
    re.IGNORECASE,
)
"""A discount said without the word: "20% off", "half price", "£5 off"."""
_OWN_SUMS = frozenset(stem(w) for w in ("excess", "deposit", "surcharge", "premium"))
"""Sums that are not a price: a sentence that does not name one gives another sum."""
_SHARE = re.compile(r"\d[\d.,]*\s*%(?:\s+off)?|\b\d+\s+per\s*cent\b", re.IGNORECASE)
_ASKS_SHARE = re.compile(
    r"\b(?:discounts?|off|sav\w*|reduc\w*|percent\w*|interest|rates?|commission|tax|vat|apr"
    r"|shares?|cheaper|concessions?|refund\w*|penalt\w*|charge|fee|fees|surcharges?|deposits?"
    r"|excess|late|cancel\w*|tip|tips|service)\b|%",
    re.IGNORECASE,
)
"""A question whose sum may be a share of another ("how much is the
cancellation fee?": "50% of the price"); "how much is a massage?" is not."""
_CLOCK = re.compile(r"\b(\d{1,2})[:.](\d\d)\b")

_HOURS = frozenset({stem("hours")})
"""What a question about opening hours says of them."""
_CLOCK_TIME = r"\d{1,2}(?:[:.]\d\d(?:\s*[ap]\.?m\b\.?)?|\s*[ap]\.?m\b\.?|\s*h\b)"
_HOURS_SPAN = re.compile(
    rf"\b{_CLOCK_TIME}\s*(?:-|–|—|to|until|till)\s*{_CLOCK_TIME}", re.IGNORECASE
)
"""A span of clock times ("09:00 to 18:00", "9am–5pm"): opening hours."""


_CONDITION_CLAUSE = re.compile(r"\b(?:if|unless|in case)\s+([^,]+)", re.IGNORECASE)
_RULE = re.compile(
    r"\b(?:not|no|never|cannot|can't|only|allowed|permitted|accepted|welcome|prohibited"
    r"|forbidden|banned|must|may)\b",
    re.IGNORECASE,
)
"""Words of a rule: what may, must or may not be done."""
_OPPOSITES = {
    stem(word): frozenset(stem(o) for o in opposites)
    for word, opposites in (
        ("open", ("closed", "shut")),
        ("closed", ("open",)),
        ("available", ("unavailable",)),
        ("unavailable", ("available",)),
        ("allowed", ("forbidden", "prohibited", "banned")),
    )
}
"""What a yes/no question's word is answered "no" by: "Is it open on Mondays?"
by "It is closed on Mondays"."""
_DAY_PARTS = frozenset(stem(w) for w in ("morning", "afternoon", "evening", "lunchtime"))
_DAY_WORD = re.compile(
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\bweekends?\b|\bweekdays?\b",
    re.IGNORECASE,
)
_NO_KEYS = frozenset(
    stem(w) for w in ("back", "up", "out", "off", "away", "down", "along", "halfway", "again")
)
_OPENING = frozenset(stem(w) for w in ("open", "closed", "shut"))
"""A part of a day a question about opening names with its day is a
condition: what a sentence says of the whole day ("closed on Mondays")
says it too."""
_TAKES_TIME = re.compile(
    r"\bhow long\b[^.?!]{0,200}?\b(?:take|takes|took)\b"
    r"|\b(?:in under|in less than|in fewer than|within)\s+[\w.,]+\s+"
    r"(?:seconds?|minutes?|hours?|days?|weeks?)\b",
    re.IGNORECASE,
)
_TAKE_WORD = re.compile(r"\b(?:take|takes|taking|took|taken)\b", re.IGNORECASE)
""""Take" is a filler word ("take a look"), but of two sentences that cover
"How long does it take to charge the X200?" (or "Can I charge it in under
two hours?") alike, the one that says what charging takes comes first
("runs for two and a half hours on a full charge" is how long the battery
lasts)."""


class ExtractiveGenerator(Generator):
    """Quotes the sentences of the hits that best cover the question, with
    citations. Chat ``history`` is ignored: only the question is matched."""

    class Config(ComponentConfig):
        max_sentences: int = Field(3, ge=1)
        """Most sentences quoted in an answer."""
        min_relevance: float = Field(0.34, ge=0.0, le=1.0)
        """Fraction of the question's content words (IDF-weighted) the best
        sentence must cover; below it the answer says nothing was found."""
        language: str = "en"
        """Language of the stopword list and stemmer; only ``en`` for now."""

        @field_validator("language")
        @classmethod
        def _known_language(cls, value: str) -> str:
            if value.lower() not in {"en", "english"}:
                raise ValueError(
                    f"language {value!r} is not supported by the extractive generator; "
                    "use 'en', or a generator backed by an LLM for other languages"
                )
            return "en"

    config: Config

    def generate(
        self, question: str, hits: Sequence[Hit], history: Sequence[Message] = ()
    ) -> Answer:
        parts = question_parts(question)
        if len(parts) < 2 or (history and leans_on_history(question)):
            return self._answer(question, hits, history, [])
        # "What is the resit fee and when is the resit deadline?": each part
        # answered alone (one sentence need not cover both); the question
        # answered whole too, as a floor: what it says is never left out
        hits = tuple(hits)
        found: list[_Found] = []
        for part in parts:
            said: list[tuple[str, Chunk]] = []
            answer = self._answer(part.question, hits, history, said)
            if answer.metadata.get("follow_up"):
                return self._answer(question, hits, history, [])
            pages = {chunk.document_id for f in found for _, chunk in f.said}
            if pages and answer.grounded and any(c.document_id not in pages for _, c in said):
                # a later part asked first of the pages the others are answered
                # from ("When is the balance due?" after the barn's capacity:
                # the barn's balance, not the holiday cottage's)
                near: list[tuple[str, Chunk]] = []
                on_page = [h for h in hits if h.chunk.document_id in pages]
                there = self._answer(part.question, on_page, history, near)
                told = [text for f in found for text, _ in f.said]
                if (
                    there.grounded
                    and _keeps_to(part, near, parts, pages, hits)
                    and any(not any(text in t for t in told) for text, _ in near)
                    and _part_covered(part, near) >= _part_covered(part, said)
                ):
                    answer, said = there, near
            # (a sentence that shares no word with the part but its opening
            # clause's is none of its answer: "You can arrive from 2pm" to "When I
            # arrive, where do I park?")
            own = _part_terms(part.question)
            said = [(text, chunk) for text, chunk in said if _of_part(own, text, chunk)]
            kept = (
                answer.grounded
                and bool(said)
                and _keeps_to(part, said, parts, pages, hits)
                and not _superseded(part, answer, said, hits)
            )
            found.append(_Found(answer, said if kept else [], answer.grounded and not kept))
        whole_said: list[tuple[str, Chunk]] = []
        whole = self._answer(question, hits, history, whole_said)
        if not any(f.said for f in found):
            return whole  # a sentence may answer the whole that answers no part alone
        return _joined(question, hits, parts, found, _Found(whole, whole_said, False))

    def _answer(
        self,
        question: str,
        hits: Sequence[Hit],
        history: Sequence[Message],
        said: list[tuple[str, Chunk]],
    ) -> Answer:
        around: list[str] = []
        answer = self._generate(question, hits, history, said, ambient=False, around=around)
        if answer.grounded or answer.text != NOT_FOUND or not around:
            return answer
        # the product or company every page is about ("Is Parcelbird SOC 2
        # certified?", "What encryption does Parcelbird use?"): where nothing
        # that names it answers, a sentence of its pages that does not
        # repeat its name may (never in place of one that names it)
        return self._generate(question, hits, history, said, ambient=True, around=[])

    def _generate(
        self,
        question: str,
        hits: Sequence[Hit],
        history: Sequence[Message],
        pieces: list[tuple[str, Chunk]],
        *,
        ambient: bool,
        around: list[str],
    ) -> Answer:
        """The answer; ``around`` is given the names every page is about
        (``_ambient``), which a second call with ``ambient`` may let go.
        ``pieces`` is given each piece the answer says, unnumbered, with the
        chunk it quotes."""
        hits = tuple(hits)
        if history and leans_on_history(question):
            # "When did it open?" after a question about the Denver office:
            # retrieval read "it" alone, and any office's opening would do
            return Answer(
                question,
                FOLLOW_UP,
                hits=hits,
                grounded=False,
                metadata={**_METADATA, "follow_up": True},
            )
        if not reads_as_english(question):
            # "Quantos dias de férias tenho em Lisboa?": its words are matched
            # as English ones, and a page in its language about something
            # else would do ("o subsídio não é pago nos dias de férias")
            return _not_found(question, hits)
        texts = [h.chunk.text for h in hits]
        # the places it names as the passages write them ("the US" -> "the
        # United States"); the answer keeps the question as asked
        worded = said_as_written(as_written(question, texts), texts)
        names = entities(worded, texts)
        # read in the passages' words for what it names ("the Office plan" ->
        # "the Office subscription")
        read = in_passage_words(worded, names, texts)
        terms = content_terms(TYPE_WORDS.sub("how", read))
        if not hits or not terms:
            return _not_found(question, hits)
        units = _units_of(hits)
        if not units:
            return _not_found(question, hits)
        # "a ticket to Stroma Island" where no passage names Stroma: they speak
        # of other places, and what they say of them answers another question
        # (of the question itself: "I'm in Italy for 25 days." is who asks)
        # (one of two questions may be answered: "Who is in Berlin, and who is the CEO?")
        asked_names = [name for name in names if mentions(main_question(worded), name)]
        # (and an identifier it names, "max_queue_length", "app.schedule",
        # "config.yaml": where none of them has it, the passages answer for another)
        identifiers = _IDENTIFIER.findall(main_question(worded))
        if (asked_names or identifiers) and not two_parts(worded):
            known = "\n".join(_where(hit.chunk) for hit in hits)
            if not all(_knows(known, name) for name in asked_names) or not all(
                _has_identifier(known, name) for name in identifiers
            ):
                return _not_found(question, hits)
        # "a corporate membership" where the passages know membership but
        # never "corporate": what they say of membership answers another question
        headings = [str(h.chunk.metadata.get(f, "")) for h in hits for f in ("section", "title")]
        if unknown_kind(read, [*texts, *headings]) or unknown_acronym(read, [*texts, *headings]):
            return _not_found(question, hits)
        # "fares in 2024" where the passages name no 2024 (their fares are 2025's)
        years = set(_YEAR.findall(read))
        sources = [str(h.chunk.metadata.get("source", "")) for h in hits]
        if years and not any(
            years & set(_YEAR.findall(text)) for text in (*texts, *headings, *sources)
        ):
            return _not_found(question, hits)
        named = {t for name in names for t in content_terms(name)}
        # "the 28 cm Ceramic Pro": a size before a name is part of it
        sized = _sized_names(read, names)
        # the countries it asks about, and its words for them ("EU")
        asked_places = place_forms(main_question(read))
        for place in left_out(read):  # ("customers outside the US": not the US)
            asked_places.pop(place, None)
        place_terms = {
            t for forms in asked_places.values() for f in forms for t in content_terms(f)
        }
        # ("the United Kingdom" is no rival of "the UK")
        rival = {
            other
            for other in rivals(read, names, texts)
            if not _same_places(places_in(other), asked_places)
        }
        # the product or the company the whole corpus is about: most passages
        # name it, none names a rival (``generate`` asks again without it)
        around.extend(name for name in names if _ambient(name, read, hits, rival))
        subjects = [name for name in names if not (ambient and name in around)]
        # (the documents that name each, once: a sentence of such a page may
        # leave the name unsaid)
        naming = _documents_naming(hits, around) if ambient else {}
        # names the question runs together ("Is Parcelbird SOC 2 certified?"):
        # a sentence says each (Boxly's SOC 2 is no answer)
        run = [
            name
            for name in names
            if any(f"{name} {other}" in worded or f"{other} {name}" in worded for other in names)
        ]
        kind = answer_kind(read)
        asks = (asks_when(read), asks_version(read))
        picked = _PICKS_BY_RANK.match(read)
        ranked = picked.group(1).lower() if picked else None
        yes_no = is_yes_no(read)
        # a figure in a yes/no question is a condition ("a 35 kg bag"), which
        # the answer need not repeat, nor match by chance ("€35"); but for a
        # clock time, which names a departure ("Does the 18:30 from Portwen run ...?")
        # (where table rows are labelled with times, a timetable's: "Can I check
        # in at 10:00?" sets a condition, which "Check-in is from 15:00" answers)
        timetable = any(u.cells and _CLOCK.fullmatch(u.cells[0].strip()) for u in units)
        clock = (
            {d for pair in _CLOCK.findall(read) for d in pair} if yes_no and timetable else set()
        )
        # "I'm 70", "a 15-year-old": the age is one word to match, by the band
        # that holds it ("Senior (65+)"); "year" and "old" say only that it is one
        said_age = asked_age(read)
        age, age_terms = said_age if said_age else (0, set())
        if yes_no and any(not t.isdigit() for t in terms):  # (an age is no mere figure)
            terms = [
                t for t in terms if not t.isdigit() or t in clock or (said_age and t == str(age))
            ]
        if str(age) in terms:
            terms = [t for t in terms if t == str(age) or t not in age_terms]
        if any(is_deprecated(u.chunk.metadata) for u in units):
            # "the previous policy" says which page, not what it says
            which = {stem(w) for w in old_words(read)}
            terms = [t for t in terms if t not in which] or terms
        weights = _term_weights(terms, units)
        # (and so do the people it asks about: "the learning budget for team leads")
        group = receiver(read) if kind != "person" else None
        about = named | ({group[0], *group[1]} if group else set())
        for term in [t for t in weights if t in about]:  # what the question is about weighs less
            weights[term] *= _ENTITY_WEIGHT  # than what it asks about it
        total = sum(weights.values())
        candidates: list[tuple[float, float, _Unit]] = []
        n_hits = len(hits)
        # a yes/no question is answered only by what names its most specific words
        asked = {t: w for t, w in weights.items() if t not in about} or weights
        # "open on Monday afternoons?": "closed on Mondays" says it, so the
        # part of the day is no key, nor the measure of the others
        opening = _DAY_WORD.search(read) and _OPENING & set(terms)
        # (nor is a particle or a manner: "sell my leave *back*", "remove it *halfway*
        # through the year" are said by "Selling leave is not permitted")
        day_part = (_DAY_PARTS if opening else frozenset()) | _NO_KEYS
        top = max((w for t, w in asked.items() if t not in day_part), default=0.0)
        # (a figure in it is a condition the answer need not repeat: "at 2,500
        # metres?" is answered by "not rated for use above 2,000 metres")
        # nor are the words of its "if ..." clause ("if I book the Harbour Suite")
        condition = _CONDITION_CLAUSE.search(read)
        conditional = set(content_terms(condition.group(1))) if condition else set()
        # and the sentence before it and its opening clause ("I'm 22, can I
        # rent ...?", "We're a registered charity. Can we get a discount?")
        main = main_question(read)
        if main != read.strip():
            conditional |= set(content_terms(read.replace(main, " "))) - set(content_terms(main))
        # who asks a yes/no question about what one qualifies for ("I'm a
        # student, can I get a discount?"): a sentence for another group (the
        # seniors' discount) is no answer
        # (and "I'm a student, what discount do I get?": the students' one)
        who = asker(read) if any(t in _QUALIFYING for t in terms) else None
        # "how much do students pay?": the students' price or discount, not another's
        paid_by = payer(read) if kind == "money" else None
        # "how many days of leave do contractors get?": the contractors' days,
        # not the employees'
        received = group if not (who or paid_by) else None
        who = who or paid_by or received
        keys = (
            [
                t
                for t, w in asked.items()
                # a generic word ("work", "use") is never the specific one
                if w >= _KEY_SHARE * top
                and (not t.isdigit() or t in clock)
                and t not in conditional
                and t not in GENERIC_STEMS
                and t not in day_part
            ]
            if yes_no
            else []
        )
        unfit: list[tuple[float, float, _Unit]] = []
        counted = counted_thing(read) if kind in {"count", "amount"} else set()
        # "how many sick days": days of another kind (vacation) are none
        of_kind = counted_kind(read) if kind == "count" else set()
        if kind in {"count", "amount", "time"} and _TIME_OFF.search(read):
            # "How much time off do Lisbon staff get?": their holiday, not
            # their sick leave (but "time off for my wedding" is no holiday)
            of_kind, kind = set(_HOLIDAY), "amount"
        # what the question gives ("a 90 minute massage", "when is 4.0 out?")
        # is no figure of what it asks
        not_figures = [*names, *rival, *given_figures(read)]
        # "15% off" prices a discount, not a massage; but "I'm a student,
        # what would a hot desk cost me?" may be answered by the students' discount
        asks_share = (
            kind not in {"money", "much"}
            or _ASKS_SHARE.search(read) is not None
            or asker(read) is not None
            or paid_by is not None
        )
        question_terms = set(terms)
        # "how much do basic members pay?": a price ("costs £8") says "pay"
        implied = question_terms & _PAY if kind == "money" else set()
        # "what's the phone number?": a number to call says "phone" and "number"
        implied |= question_terms & _CONTACT.get(kind or "", frozenset())
        # a sum of its own kind: what answers names it ("Excess: £450")
        sums = _OWN_SUMS & question_terms if kind == "money" else set()
        versions = versions_in(read)
        # what a question asks of a year ("income in 2023"): the year is when,
        # and a sentence must say what is asked beyond it
        # (its most specific word: "income", not "co-op", of which every page speaks)
        beyond = [t for t in asked if t not in years and t not in named] if years else []
        dated = max(beyond, key=lambda t: asked[t]) if beyond else None
        takes = _TAKES_TIME.search(read) is not None
        # ("Who approves an expense of EUR 30,000?": a rule for sums up to EUR
        # 25,000 names no one; but "How much of a $120 dinner is paid back?"
        # is answered by "up to $80")
        sums_asked = _amounts(read) if _WHO_OR_WHICH.match(read) else []
        # the people a yes/no question asks about ("Can *undergraduate* students ...?")
        asked_groups = _group_phrases(read) if yes_no else set()
        majors = [name for name in names if _API_MAJOR.fullmatch(name)]  # ("in v1")
        head = _asked_head(read) if kind is None and names else None
        said_of = _subject_terms(read) - named  # ("How long are *audit logs* kept ...?")
        # ("How much does it cost to hire a *harness*?")
        pricing = _priced_thing(read) if kind == "money" else _Priced()
        priced, doing = set(pricing.terms - named), pricing.doing
        # ("How much is entry for under-16s?": "Entry costs £10. Under-16s pay £5.")
        of_price = set(pricing.heads - named) or (
            _same_things(set(asked) - GENERIC_STEMS - _PAY - _PAYING - _GENERIC_ASKS)
            if kind == "money" and not _TWO_QUESTIONS.search(read)
            else set()
        )
        if who is not None:  # (whom it is for is not what is priced)
            of_price -= {who[0], *who[1], *_groups_in(read)}
        said_before = _sentences_before(units) if of_price and (who or said_age) else {}
        bands = _age_bands(read) if who is not None else set()  # ("for under-18s")
        # (a page that prices such ages: what it says for no one is not theirs)
        banded: set[str] = set()
        narrowest: dict[str, int] = {}  # document -> the narrowest band holding those ages
        for u in units if bands else ():
            for b in _age_bands(" | ".join((u.text, *u.columns))):
                if any(_overlaps(b, a) for a in bands) and _may_price(u, of_price, said_before):
                    banded.add(u.chunk.document_id)
                if any(_covers(b, a) for a in bands):
                    width = b[1] - b[0]
                    narrowest[u.chunk.document_id] = min(
                        width, narrowest.get(u.chunk.document_id, width)
                    )
        # "express delivery": where the pages name other kinds of delivery
        # ("Standard delivery", "Next-day delivery"), a sentence of another kind
        # and not this one is no answer
        kinds_apart = {
            (kind, head): others
            for kind, head in pricing.kinds
            # (kinds priced, not one other word: "A replacement card costs €3"
            # is what a lost library card costs, and "Lost cards must be
            # reported" prices nothing)
            if len(
                priced_kinds := {
                    k
                    for u in units
                    if fits_kind("money", u.text)
                    for k in _kinds_said(u.text, head)
                }
            )
            > 1
            and (others := {k for k in priced_kinds if not _same_kind(k, pricing.words_before)})
        }
        # "to park a bike": where a sentence says the bike's parking, one
        # that says parking alone is of another thing
        doing_of = (
            priced - {doing}
            if doing is not None
            and any(
                doing in u.terms and (priced - {doing}) & u.terms and fits_kind("money", u.text)
                for u in units
            )
            else set()
        )
        # ("the *library* opening hours": the library, or the hours)
        qualified = _modifier_terms(read)
        # "How do I start a return?": the numbered steps under its heading
        how_to = _HOW_TO.match(read) is not None
        numbered = _numbered(read) if yes_no else set()
        said_verb = question_verb(read, names) if yes_no else None
        verb, thing, particle = said_verb if said_verb else (None, set(), None)
        # "come back": a rule may say neither word ("We will not return ...")
        phrase = {t for t in (verb, particle) if t is not None and t in weights}
        # "a corporate membership": where the passages speak of it, a
        # sentence about another kind ("Family membership costs £88") is none
        # (and, for a sum, where they speak of none of that kind: "the home
        # office equipment allowance is EUR 600" is not what the wellness
        # allowance pays)
        kinds = {
            (kind_word, noun)
            for kind_word, noun in asked_kinds(read)
            if kind in {"money", "much", "amount", "count"}
            or any(kind_word in u.terms and noun in u.terms for u in units if u.answer)
        }
        # the question's words the passages say: a thing they price where the
        # question names it is what a price must be of
        spoken = frozenset(t for t in weights if any(t in u.terms for u in units))
        # (of one question: "... to Orsay, and is there a Stroma Island route?" asks two)
        proper = proper_words(texts) if len(names) > 1 and not two_parts(read) else set()
        headings = {u.heading for u in units if u.heading} if proper else set()
        # a table with a row the question names ("Pontoon C", "the Treasurer"):
        # its other rows are of siblings ("Pontoon | A", "Site Secretary")
        named_tables = {
            _table_of(u) for u in units if u.kind == "row" and _names_row(read, question_terms, u)
        }
        # a row labelled with a setting the question names ("| `max_workers` | `8` |"):
        # a row of another table that names it in another cell ("| `--concurrency`
        # | value of `max_workers` |") is of another thing
        setting_rows = bool(identifiers) and any(
            _labelled_by(u, identifiers) for u in units if u.kind == "row"
        )
        for unit in units:
            if not unit.answer:
                continue
            if unit.kind == "heading" and not asks[0]:
                continue  # a dated release heading says when, nothing else
            if asked_places:
                fit = _place_fit(unit, asked_places)
                if fit == "other":
                    continue  # "In Canada, return shipping costs CA$12.00" is not the EU's
                if fit == "exact" and place_terms - unit.terms:
                    # "In the European Union, ..." says what "in the EU?" asks
                    unit = replace(unit, terms=unit.terms | place_terms)
            if ranked is not None and not re.search(rf"\b{ranked}\b", unit.text, re.I):
                # "Which office has the most employees?": one office's count is
                # no answer; only a sentence that says which (no sums are made)
                continue
            if (
                unit.kind == "row"
                and _table_of(unit) in named_tables
                and not _names_row(read, question_terms, unit)
            ):
                continue  # another row of the table the question names a row of
            if (
                identifiers
                and unit.kind in {"sentence", "bullet"}
                and not any(_has_identifier(unit.text.lower(), name) for name in identifiers)
                and _IDENTIFIER.search(unit.text) is not None
            ):
                continue  # of another setting ("max_tasks_per_child = 500" to max_workers)
            if (
                setting_rows
                and unit.kind == "row"
                and not _labelled_by(unit, identifiers)
                # (unless its label is of the kind the question asks for: the
                # "Variable" of "Which environment variable sets max_workers?")
                and not (unit.columns and set(content_terms(unit.columns[0])) & question_terms)
            ):
                continue  # another setting's row (above)
            if (
                names_other_kind(unit.text, kinds)
                and not any(kind in unit.context for kind, _ in kinds)
                # ("... on the Scale plan only" answers a yes/no question of
                # the Growth plan: no)
                and not (yes_no and _ONLY.search(unit.text))
            ):
                continue  # (under "## Corporate membership", it is that kind's)
            # (only for a sentence that says something else the question asks:
            # "Total income was 212,000 pounds" is no answer to what seniors pay)
            beside = question_terms - implied
            if (
                implied - unit.terms
                and (kind != "money" or (unit.terms | unit.context) & beside)
                and (
                    fits_kind(kind, unit.text)
                    if kind != "money"
                    else fits_kind("money", unit.text if asks_share else _SHARE.sub(" ", unit.text))
                )
            ):
                unit = replace(unit, terms=unit.terms | implied)
            # "how many people can the Wheelhouse seat?": a capacity says it
            seats = question_terms & _HOLDS if kind == "count" else set()
            if seats and _CAPACITY in unit.terms | unit.context:
                unit = replace(unit, terms=unit.terms | seats)
            # "the office hours": "open from 09:00 to 18:00" says them
            hours = question_terms & _HOURS
            if hours and not hours <= unit.terms and _HOURS_SPAN.search(unit.text):
                unit = replace(unit, terms=unit.terms | hours)
            said_bands = _age_bands(" | ".join((unit.text, *unit.columns))) if bands else set()
            # ("Child tickets (under 15) cost £7" is what under-15s pay)
            of_the_band = any(_covers(b, a) for b in said_bands for a in bands)
            if (
                who is not None
                and not of_the_band
                and _for_another_group(unit, who, question_terms)
                # ("Employees get 25 days" is what managers get too)
                and not (
                    received is not None
                    and received[0] in INSIDERS
                    and set(_groups_in(unit.text)) <= STAFF
                    and bool(_groups_in(unit.text))
                )
            ):
                continue  # "Seniors get 10% off" is no discount for a student
            if bands:
                if said_bands and not of_the_band:
                    continue  # "Over-18s pay £40" is no price for under-18s
                if (
                    not said_bands
                    and unit.chunk.document_id in banded
                    and not _groups_in(unit.text)
                ):
                    # "Tickets cost £11" is not what under-18s pay where the
                    # page says "Under-16s pay £7"
                    continue
                if (of_the_band or who[0] in unit.terms) and _prices_for_another(
                    unit.text, set(pricing.words) or of_price
                ):
                    continue  # "Under-18s pay £6 for a day pass": no monthly pass
                if of_the_band and min(
                    b[1] - b[0] for b in said_bands if any(_covers(b, a) for a in bands)
                ) > narrowest.get(unit.chunk.document_id, _OLDEST):
                    # "Adults (18+) pay £11" is not what over-70s pay where
                    # "Over-65s pay £7"
                    continue
            if (
                received is not None
                and received[0] in OUTSIDERS
                and received[0] not in unit.terms | unit.context | unit.outer
                and _GROUP.search(unit.text) is None
            ):
                # "The wellness allowance is CAD 500 per year" says what the
                # employees it speaks to get, not what contractors do
                continue
            if said_age and str(age) in weights:
                # the age is said by a band that holds it, not by a figure ("£4.00")
                held = holds_age(" | ".join((unit.text, *unit.columns)), age)
                unit = replace(
                    unit, terms=(unit.terms | {str(age)}) if held else (unit.terms - {str(age)})
                )
            # "what discount do I get?": "40% off" says it
            if (
                "discount" in weights
                and "discount" not in unit.terms
                # (and so does "the concession": "The concession does not apply to Summit")
                and (_PRICE_OFF.search(unit.text) or _CONCESSION & unit.terms)
            ):
                unit = replace(unit, terms=unit.terms | {"discount"})
            # "Dogs are welcome in the Classic Double rooms only" answers "Can I
            # bring my dog if I book the Harbour Suite?": no
            if sized and _another_size(unit.text, sized):
                continue  # "the 24 cm Ceramic Pro does not work" says nothing of the 28 cm
            if yes_no and _of_another_model(unit, names):
                continue  # "The wok TT-32-CS works on induction" to "Does the Ceramic Pro ...?"
            only_another = yes_no and (
                _only_another(unit.text, names)
                # "EU data residency is available on the Scale plan only" to
                # "... on the Growth plan?": a rival's only, whatever else it names
                or (
                    _ONLY.search(unit.text) is not None
                    and any(mentions(unit.text, other) for other in rival)
                    and not all(mentions(unit.text, name) for name in names)
                )
            )
            if not only_another and not _about(unit, subjects, rival, texts):
                continue
            if run and not all(
                _knows(_said_by(unit), name) or unit.chunk.document_id in naming.get(name, ())
                for name in run
            ):
                continue  # "Our warehouse partner, Boxly, is SOC 2 certified"
            if naming and not any(unit.chunk.document_id in docs for docs in naming.values()):
                continue  # (a page that never names the product: "UPS offers 24/7 support")
            if _opposes(read, unit.text):
                continue  # "in the city" is no answer for "outside the city"
            if proper and _heading_of_another(unit, names, proper, headings):
                continue  # "Harnmouth – Little Venn" to "... from Harnmouth to Orsay?"
            # "The bar closes at 11:30 pm" says not when it opens (but a row's
            # cells say of several things: "Saturday: 09:00–17:00; Sunday: closed")
            if (
                not yes_no
                and unit.kind != "row"
                and any(
                    t in _OPPOSITES and t not in unit.terms and _OPPOSITES[t] & unit.terms
                    for t in question_terms
                )
            ):
                continue
            if versions and not _names_version(unit, versions):
                continue  # "version 2.0.0" is a name: another release's line is no answer
            if majors and not any(_knows(_where(unit.chunk), v) for v in majors):
                # "the v2 API ...", or a changelog's line, is no answer about v1,
                # whatever else it names: only what is said where v1 is
                continue
            if years and not _of_years(unit, years):
                continue  # 2024's income is no answer for 2023's
            if sums_asked and not yes_no and _bounds_leave_out(unit.text, sums_asked):
                # "Directors can approve expenses up to EUR 25,000" says
                # nothing of who approves EUR 30,000 (a yes/no question's
                # "Can a director approve EUR 30,000?" it answers: no)
                continue
            # "It has no DVD collection" answers "Can I borrow DVDs at Hillcrest?"
            # (of what the question names: "books are fine-free" says nothing
            # of fines on DVDs)
            denial = (_denies(unit.text, weights, strict=True) or _free_of(unit, read, keys)) and (
                not names
                or any(_knows(f"{unit.text} {unit.heading}".lower(), name) for name in names)
            )
            # "Cats and other animals are not accepted" answers "Can I bring my
            # cat?": a rule says the question's verb in its own words
            ruled = (
                verb is not None
                and verb not in unit.terms
                and verb in weights
                and _RULE.search(unit.text) is not None
                # of what the question names, the rule names it or limits another
                and (only_another or all(mentions(unit.text, name) for name in names))
                # and it is about what is done: "Pets are not allowed in the
                # rooms" says nothing of swimming in one
                and _rules_on(unit, verb, thing, terms, named)
                # and it rules on the question's doing, not another ("We do
                # not repair department-store bikes" to "Do you sell new
                # bikes?"), unless the question's verb is phrasal ("come back"
                # may be "return")
                and (particle is not None or not _rules_another_verb(unit.text, verb))
            )
            missing = [
                t
                for t in keys
                if t not in unit.terms
                # "9:00" is "09:00"
                and not (t in clock and t.lstrip("0") in {u.lstrip("0") for u in unit.terms})
                and t not in unit.context
                # "do I have to pay for ...?": a price says it ("costs €30")
                and not (t in _PAYING and fits_kind("money", unit.text))
                # "a discount": "20% off", "half price" say it
                and not (t == "discount" and _PRICE_OFF.search(unit.text) is not None)
                # "free": "at no extra cost", "included at no charge" say it
                and not (t == _FREE and _NO_COST.search(unit.text) is not None)
                # "Is it open on Mondays?": "It is closed on Mondays" says no
                and not (_OPPOSITES.get(t, frozenset()) & unit.terms)
            ]
            # the groups it names, each as one the question asks of or another
            said_groups = _group_phrases(unit.text) if asked_groups else set()
            same = [_same_group(group, asked_groups) for group in said_groups]
            only = said_groups and _ONLY.search(unit.text) is not None
            if said_groups and not only and not any(same):
                # "Postgraduate students cannot live in Elm Hall" says nothing
                # of international students (but "Students cannot ..." does)
                continue
            # "Oak Hall is open to postgraduate students only" answers "Can
            # undergraduate students live in Oak Hall?": no
            # (and "Can postgraduate students live in Oak Hall?": yes)
            limited = bool(only) and (all(same) or not any(same))
            if missing and not denial and not limited and not (ruled and set(missing) <= phrase):
                continue
            # ("The special exhibition costs £15. Seniors pay £12.": the
            # group's own price, where its passage names the thing)
            # (where the sentence before it, or its heading, names the thing,
            # and it prices no other: "Under-16s pay £8 for a paddleboard")
            own_price = (
                bool(of_price)
                and (
                    (who is not None and (who[0] in unit.terms or of_the_band))
                    # ("the fare for a 10-year-old": "Passengers under 16 pay £2")
                    or bool(said_age and holds_age(" | ".join((unit.text, *unit.columns)), age))
                )
                and bool(
                    of_price & (unit.context | unit.outer | said_before.get(_at(unit), frozenset()))
                )
                and not _prices_for_another(unit.text, set(pricing.words) or of_price)
            )
            if own_price:  # (it says the thing as its passage names it)
                unit = replace(unit, terms=unit.terms | (of_price & set(weights)))
            elif (
                of_price
                and who is not None
                and (who[0] in unit.terms or of_the_band)
                and unit.kind != "row"  # (a row is said by its columns)
                and _bare_price(unit.text, {who[0], *who[1]})
            ):
                # "Non-members pay £2." after "Entry is free for members" of
                # the produce show is no price of the summer barbecue
                continue
            if (
                asked is not weights
                and not denial
                and not own_price
                and not any(t in unit.terms or t in unit.context for t in asked)
            ):
                continue  # it names the entity, and says nothing of what is asked
            if (
                qualified is not None
                and qualified[0] - named
                and not denial
                and not qualified[0] & (unit.terms | unit.context | unit.outer)
            ):
                # "What are the library opening hours?": "The Counselling
                # Service is open ... from 9 am to 5 pm" says no library
                continue
            if said_of and not denial and not said_of & (unit.terms | unit.context | unit.outer):
                # "How long are audit logs kept on the Growth plan?": "Label
                # history is kept for 1 year on the Growth plan" keeps another thing
                continue
            if not denial and any(
                (said := _kinds_said(unit.text, head))
                and not any(_same_kind(k, pricing.words_before) for k in said)
                and said & others
                # (the kind said elsewhere in it: "express delivery (next day)";
                # or any word the question writes before the thing: "an
                # all-day visitor session" and "Visitor permit: All-day session")
                and not any(
                    _says_kind(" ".join((unit.text, unit.heading, *unit.columns)), word)
                    for word in (kind, *pricing.words_before)
                )
                for (kind, head), others in kinds_apart.items()
            ):
                continue  # "Standard delivery costs £3.95" is no price of express delivery
            if (
                doing_of
                and not denial
                and not doing_of & (unit.terms | unit.context)
                and _ALL_OF.search(unit.text) is None  # ("added to every repair")
            ):
                continue  # "Parking at the venue costs £8" is no bike's parking
            if (
                priced
                and not denial
                and not priced & (unit.terms | unit.context | unit.outer)
                and not priced & {t for c in unit.columns for t in content_terms(c)}
                and _ALL_OF.search(unit.text) is None
                and not own_price
            ):
                # "How much does it cost to hire a harness?": "Shoe hire costs
                # £4" prices another thing
                continue
            if (
                head is not None
                and not denial
                and head not in unit.terms | unit.context | unit.outer
                and head not in {t for c in unit.columns for t in content_terms(c)}
            ):
                # "What is the bonus for an Exceeds rating?": "Ratings are on a
                # 4-point scale: Below, Meets, Exceeds, Outstanding" names the
                # rating, and no bonus
                continue
            if dated and not denial and dated not in unit.terms and dated not in unit.outer:
                # "members ... in 2023" says nothing of 2023's income (but a
                # row of the "Per-diem" table, or "Austin: USD 64 per day."
                # under "# Per-diem" > "## 2025 rates", says the per-diem)
                continue
            said = _covered(unit, weights)
            if ruled:
                said += sum(weights[t] for t in phrase if t not in unit.terms)
            coverage = unit.weight * said / total
            if (
                yes_no
                and (unit.reply or _VERDICT.match(unit.text))
                and _replies_to(unit, read, keys, named, asked)
            ):
                # "Yes, but workers must use the thread pool" under "Does
                # Ferrule run on Windows?": the FAQ's reply to this question
                coverage = max(coverage, unit.weight)
            score = coverage + _RANK_BONUS * (1.0 - unit.rank / n_hits)
            if takes and _TAKE_WORD.search(unit.text):
                score += _RANK_BONUS
            if qualified is not None and qualified[1] & set(content_terms(unit.text)):
                # "What is the booking fee?": "A fee of £2 applies to each
                # booking" before "Booking ... the group deposit is £50"
                score += _RANK_BONUS
            if numbered and _counts(unit.text, numbered):
                # "Can my household get three permits?": "A maximum of two
                # permits is issued per household" says how many, not a
                # sentence about permits that counts none
                score += _RANK_BONUS
            if who is not None and who[0] in unit.terms:
                # "Contractors do not receive paid annual leave" before what
                # everyone gets, to "How many days of leave do contractors get?"
                score += _RANK_BONUS
            labelled = unit.kind == "row" and unit.cells
            label = set(content_terms(unit.cells[0])) if labelled else set()
            if label and label <= question_terms:
                # the row labelled with what the question names ("Hot Desk |
                # £240 per month") before a sentence that mentions it in passing
                score += _RANK_BONUS
            # a price is denied only in so many words ("free of charge": fits_kind)
            fit = fits_kind(
                kind, unit.text if asks_share else _SHARE.sub(" ", unit.text), not_figures
            ) and not (
                kind in {"money", "much"}
                and (
                    _prices_another(unit.text, weights, spoken, question)
                    or _row_of_another(unit, weights, said_age, read)
                )
            )
            denied = (kind not in {"money", "much"} and _denies(unit.text, weights)) or (
                # "Do you price match?": "we do not match competitors' prices" says no
                yes_no and _negates(unit.text, keys)
            )
            fit = fit or denied
            if (
                fit
                and sums
                and not (_says_of(unit, sums) or sums & set(content_terms(unit.heading)))
            ):
                fit = False  # "what's my excess?": the cover's price is another sum
            if fit and not yes_no and measures_another(unit.text, read):
                fit = False  # "Duration: 30 minutes" to "a 90 minute massage"
            if (
                fit
                and counted
                and not denied  # ("Contractors do not receive paid annual leave": none)
                and not _says_of(unit, counted, counts=kind == "count")
            ):
                # "how many days ...": a figure of no days is none; but "how
                # much coffee" may be said in its measure ("5 kg a month")
                fit = kind == "amount" and _MEASURED.search(unit.text) is not None
            if (
                fit
                and of_kind - {ANY_LEAVE}
                and not _says_of(unit, of_kind - {ANY_LEAVE})
                and (unit.terms | unit.context) & (LEAVE_KINDS - of_kind)
            ):
                # "28 days of paid vacation" are no sick days (but "work from
                # home up to 2 days a week" may be the remote days asked)
                fit = False
            if _heading_answers(unit, asks, read):
                fit, unit = True, replace(unit, lead=True)
            (candidates if fit else unfit).append((coverage, score, unit))
        if kind == "place" and not any(c >= self.config.min_relevance for c, _, _ in candidates):
            candidates += unfit  # a place may be written in no way we know: say what there is
        if asked_places and any(_place_fit(c[2], asked_places) == "exact" for c in candidates):
            # "Shipping to France is free" before "Shipping to the EU costs €10"
            candidates = [c for c in candidates if _place_fit(c[2], asked_places) != "union"]
        steps = (
            _procedure(units, weights, asked, candidates, self.config.min_relevance)
            if how_to and not yes_no
            else []
        )
        if steps and subjects and not any(_knows(_where(steps[0].chunk), n) for n in subjects):
            # (a procedure is of what its page names; a step may name another
            # thing in passing: "Click **Create key** and choose Live or Test")
            steps = []
        told: dict[str, str] = {}  # chunk id -> what tells its document apart
        if steps:
            # the procedure, step by step, in its list's order
            chosen = steps
        else:
            if not candidates:
                return _not_found(question, hits)
            old = [c for c in candidates if is_deprecated(c[2].chunk.metadata)]
            if old and len(old) < len(candidates):
                # the page in force answers, not the one it replaced ("trips
                # outside Europe also need approval" from the superseded policy),
                # unless the question asks about that one (``_current``)
                of_old = asks_of_old(read, (c[2].chunk.metadata for c in candidates))
                candidates = [c for c in candidates if (c in old) == of_old]
            best = max(score for _, score, _ in candidates)
            best_coverage = max(coverage for coverage, _, _ in candidates)
            if best_coverage < self.config.min_relevance:
                return _not_found(question, hits)
            eligible = [
                (score, unit)
                for coverage, score, unit in candidates
                if coverage >= self.config.min_relevance and score >= 0.5 * best
            ]
            eligible.sort(key=lambda item: (-item[0], item[1].rank, item[1].position))
            chosen = self._choose(
                eligible,
                weights,
                total,
                named=named,
                listing=is_list_question(read),
                names=names,
            )
            if is_list_question(read):
                chosen = _with_items(chosen, units, set(asked))
            # the same rule in two documents with other figures (the Berlin and the
            # Austin office's leave): both, each said with what tells them apart
            if len(chosen) == 1 and not names and chosen[0].chunk.metadata.get("record_id") is None:
                # (not a table's records: the one the question names answers, not each)
                # (every such document: "How long is parental leave?" on three
                # offices' pages)
                twins = _twins(chosen[0], [unit for _, _, unit in candidates])
                told = _told_apart(chosen[0], *twins) if twins else {}
                if told:
                    chosen = [chosen[0], *twins]
                for twin in twins if not told else ():
                    # (no one field tells them all apart: the first it tells
                    # from the best, as two documents are)
                    told = _told_apart(chosen[0], twin)
                    if told:
                        chosen = [chosen[0], twin]
                        break
            if (
                chosen
                and not names
                and not told
                and not asked_places
                and not yes_no
                and (kind in _SIBLING_KINDS or (kind is None and _WHAT_IS.match(read) is not None))
                and not given_figures(read)  # ("Which plan keeps it for 1 year?")
                and not _WHO_OR_WHICH.match(read)
            ):
                # "How long is label history kept?" where each plan has its
                # sentence of one shape ("... for 90 days on the Starter
                # plan", "... for 1 year on the Growth plan"): each, not the
                # first alone (which reads as the answer for all)
                chosen = _with_siblings(chosen, [unit for _, _, unit in candidates], read)
            each = set(asked_places) - origins(read)  # ("from Germany to France": France's)
            if len(each) > 1:
                # "in Canada and the UK?": each one's sentence, or no answer that
                # reads as complete while it says one of them
                chosen = _for_each_place(chosen, [u for _, u in eligible], each)
                if not chosen:
                    return _not_found(question, hits)
        chosen = _with_what_follows(chosen, units)
        chosen = [_with_qualifier(unit, units) for unit in chosen]
        # a record is said whole once (its fields are said together)
        records = {u.chunk.id for u in chosen if _record_fields(u)}
        chosen = [
            u
            for i, u in enumerate(chosen)
            if u.chunk.id not in records
            or not any(v.chunk.id == u.chunk.id and _record_fields(v) for v in chosen[:i])
        ]
        chosen.sort(key=lambda unit: (unit.rank, unit.position))
        numbers: dict[str, int] = {}
        quotes: dict[str, list[str]] = {}
        parts: list[str] = []
        for unit in chosen:
            chunk_id = unit.chunk.id
            if chunk_id not in numbers:
                numbers[chunk_id] = len(numbers) + 1
                quotes[chunk_id] = []
            # each piece verbatim in the quote; a heading joined by a colon in the answer
            said = unit.text
            if unit.lead:  # a heading from the section metadata is said, not quoted
                label = [unit.release]
                if unit.released and unit.released != unit.text:
                    label.append(unit.released)
                if _change_type(unit.heading):
                    label.append(unit.heading.rstrip(": "))  # "[1.2.0] - 2026-02-02, Fixed: ..."
                quotes[chunk_id].extend(p for p in label if _is_line_of(p, unit.chunk.text))
                said = f"{', '.join(label)}: {said}"
            elif record := _record_fields(unit):
                # "Canada: method: Express; delivery_time: 3-4 business days; cost:
                # CA$29.95": a record's field is said with the rest of its record
                head, fields = record
                if head:
                    quotes[chunk_id].append(head)
                quotes[chunk_id].extend(f for f in fields if f != unit.text)
                said = "; ".join(fields) if not head else f"{head}: {'; '.join(fields)}"
            elif unit.chunk.id in told:  # "Berlin (office): Employees receive 14 weeks ..."
                said = f"{told.pop(unit.chunk.id)}: {said}"
            elif unit.columns:  # "Plan: Basic; Joining fee: £20", not "Basic | £24.99 | £20"
                said = _with_columns(unit, _asked_columns(unit, years))
            elif unit.kind == "code" and "`" not in said:
                said = f"`{said}`"  # a command, as written: no sentence's period inside it
            elif unit.step:  # "2. Choose the order ...": the procedure's own numbers
                said = f"{unit.step} {said}"
            elif _heading_names(unit, [*names, *sorted(years)]):
                # "Hollin Island – Tarrow: Crossing time: 40 minutes.": the
                # heading says which of the things the question names it is of
                if _is_line_of(unit.heading, unit.chunk.text):
                    quotes[chunk_id].append(unit.heading)
                said = f"{_plain_heading(unit.heading)}: {said}"
            if unit.reply and yes_no and _replies_to(unit, read, keys, named, asked):
                quotes[chunk_id].append(unit.reply)
                said = f"{unit.reply} {said}"
            # what it says and quotes holds no terminal control: a quote is
            # verbatim as the document reads, without the escape sequences
            pieces.append((clean(said), unit.chunk))
            parts.append(_with_marker(clean(said), numbers[chunk_id]))
            quotes[chunk_id].extend(unit.pieces or (unit.text,))
        citations = _citations(numbers, {u.chunk.id: u.chunk for u in chosen}, quotes)
        text = " ".join(parts)
        metadata: dict[str, object] = dict(_METADATA)
        if all(is_deprecated(unit.chunk.metadata) for unit in chosen) and not asks_of_old(
            read, (unit.chunk.metadata for unit in chosen)
        ):
            # where no current page answers, the old one does, and says so:
            # "How do I authenticate?" answered from "# v1 API (deprecated)"
            text = f"{FROM_DEPRECATED} {text}"
            metadata["deprecated"] = True
        return Answer(
            question=question,
            text=text,
            citations=citations,
            hits=hits,
            grounded=True,
            metadata=metadata,
        )

    def _choose(
        self,
        ranked: list[tuple[float, _Unit]],
        weights: dict[str, float],
        total: float,
        *,
        named: set[str],
        listing: bool,
        names: Sequence[str] = (),
    ) -> list[_Unit]:
        """The best unit, then each next one only if it answers a part of the
        question the chosen ones do not: it names one of the question's
        entities they do not, or covers question words worth at least
        ``_NEW_PART`` of the question that they leave uncovered; or, for a
        question asking for a list ("Which widgets support CSV?"), if it is
        another item of the list. A unit that says what the best one says, as
        well, under another heading that names what the question names
        ("Crossing time: 55 minutes." under each of two routes to Hollin
        Island) is quoted too: which of them the question means, the
        sentences do not tell.
        """
        chosen: list[_Unit] = []
        seen: set[str] = set()
        covered: set[str] = set()
        first: tuple[float, set[str]] | None = None
        for score, unit in ranked:
            key = " ".join(TOKEN.findall(unit.text.lower()))
            if key in seen or any(unit.text in c.text or c.text in unit.text for c in chosen):
                continue
            found = {t for t in weights if t in unit.terms or t in unit.context}
            # a bare number is no new part: the "35" of "35 kg" in "€35"
            gain = sum(weights[t] for t in found - covered if not t.isdigit())
            new_part = gain >= _NEW_PART * total or bool((found & named) - covered)
            parallel = (
                first is not None
                and score >= _PARALLEL * first[0]
                and found == first[1]
                and _heading_names(unit, names)
                and all(unit.heading != c.heading for c in chosen)
            )
            if chosen and not new_part and not listing and not parallel:
                continue
            if first is None:
                first = (score, found)
            seen.add(key)
            chosen.append(unit)
            covered |= found
            if len(chosen) >= self.config.max_sentences:
                break
        return chosen


_PARALLEL = 0.95
"""A unit scoring this share of the best one's, saying the same under another heading."""


def _heading_of_another(
    unit: _Unit, names: Sequence[str], proper: set[str], headings: set[str]
) -> bool:
    """Whether the unit's heading names some of the things the question
    names and, instead of the others, another thing the passages name,
    where the others have sections of their own ("Harnmouth – Little Venn"
    to "... from Harnmouth to Orsay?", beside "Harnmouth – Orsay"): a
    sibling's section."""
    heading = unit.heading
    said = [name for name in names if mentions(heading, name)]
    if not said or len(said) == len(names):
        return False
    unsaid = [name for name in names if name not in said]
    if not any(mentions(other, name) for other in headings for name in unsaid):
        return False  # ("Harbour Line – Summer timetable": no section is the Family's)
    rest = heading
    for name in said:
        rest = rest.replace(name, " ")
    asked = {word for name in names for word in name.split()}
    # (a heading's first word is capitalised as any is: "Connect a Shopify store")
    first = heading.split()[0] if heading.split() else ""
    return any(
        word in proper and word not in asked and word != first
        for word in _CAPITALISED.findall(rest)
    )


_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]+")


def _table_of(unit: _Unit) -> tuple[str, tuple[str, ...]]:
    """The table a row is in: its chunk and its header."""
    return unit.chunk.id, unit.columns


def _names_row(question: str, terms: set[str], unit: _Unit) -> bool:
    """Whether the question names a table row by its label: the label's words
    ("Site Secretary", "Hot Desk"), or its column's name with it ("Pontoon |
    C" is Pontoon C, "Zone | 2" Zone 2)."""
    if not unit.cells or not unit.cells[0].strip():
        return False
    cell = _BRACKETED.sub("", unit.cells[0]).strip()
    lowered = question.lower()
    column = unit.columns[0].strip() if unit.columns else ""
    if column and mentions(lowered, f"{column} {cell}".lower()):
        return True
    if _SHORT_TOKEN.search(cell):  # "Zone B", "Lab 5": as written, or not at all
        return mentions(lowered, cell.lower())
    label = set(content_terms(cell))
    return bool(label) and label <= terms


def _labelled_by(unit: _Unit, identifiers: Sequence[str]) -> bool:
    """Whether a table row's label (its first cell, less code marks) is one
    of the identifiers."""
    if not unit.cells:
        return False
    label = unit.cells[0].strip().strip("`* ").lower()
    return any(label == name.lower() for name in identifiers)


_SHORT_TOKEN = re.compile(r"(?<![\w-])(?:[A-Za-z]|\d+)(?![\w-])")


def _plain_heading(heading: str) -> str:
    """A heading as words: no link targets, emphasis or section numbers
    ("**Pro plan** ([details](#pro))" -> "Pro plan (details)", "2.1 Pro plan" -> "Pro plan";
    a year is no section number: "2025 rates")."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"[*_`]+", "", text)
    text = re.sub(r"^\s*(?!(?:19|20)\d\d\s)\d+(?:\.\d+)*\.?\s+", "", text)
    return text.strip().rstrip(":").strip()


def _heading_names(unit: _Unit, names: Sequence[str]) -> bool:
    """Whether the unit's heading (not a question, not a release, not long)
    names a thing the question names and the unit's text does not."""
    heading = unit.heading
    if (
        len(heading) > _LABEL_CHARS
        or not heading
        or heading.endswith("?")
        or unit.release
        or unit.kind not in {"sentence", "bullet"}
    ):
        return False
    return any(mentions(heading, n) and not mentions(unit.text, n) for n in names)


def _with_items(chosen: list[_Unit], units: list[_Unit], asked: set[str]) -> list[_Unit]:
    """For a list question: a chosen sentence that only announces how many
    items there are ("Ledgerly comes in two editions.", the question asking
    which editions) is quoted with the sentences after it, in its passage and
    before the next heading, that name the item ("The Basic edition ..."),
    up to the number it announced."""
    out = list(chosen)
    for unit in chosen:
        match = _ANNOUNCED.search(unit.text)
        if match is None:
            continue
        noun = stem(TOKEN.findall(match.group(2).lower())[-1])
        if noun not in asked:
            continue
        wanted = _COUNTS.get(match.group(1).lower()) or int(match.group(1))
        found: dict[int, _Unit] = {}
        for other in units:
            if other.chunk.id != unit.chunk.id or other.position <= unit.position:
                continue
            if other.context != unit.context:  # past a heading: the list has ended
                break
            if other.answer and noun in other.terms and other.position not in found:
                found[other.position] = other
            if len(found) >= wanted:
                break
        for item in found.values():
            if not any(item.text in c.text or c.text in item.text for c in out):
                out.append(item)
    return out


_FOLLOWING = 12
"""The most list items or table rows quoted after a sentence that announces them."""


def _with_what_follows(chosen: list[_Unit], units: list[_Unit]) -> list[_Unit]:
    """A chosen sentence that ends with a colon ("Your final grade is made up
    as follows:", "Start a worker for the queue:") is quoted with the list
    items, table rows or code lines right after it (up to ``_FOLLOWING``):
    alone it says nothing, and in software documentation the command it
    announces is the answer to "how do I...?". One kind is followed: a list,
    a table or a code block."""
    out = list(chosen)
    for unit in chosen:
        if unit.kind == "code" or not unit.text.rstrip().endswith(":"):
            continue  # (a code line's colon opens a block: ``def main():``)
        after: list[_Unit] = []
        following = ""
        for other in units:
            if other.chunk.id != unit.chunk.id or other.position <= unit.position:
                continue
            if other.kind == "header":  # a table's first row: its column names
                continue
            kind = "list" if other.kind in {"bullet", "row"} else other.kind
            if kind not in {"list", "code"} or following not in ("", kind):
                break
            if kind == "list" and len(after) >= _FOLLOWING:
                break
            following = kind
            after.append(other)
        if following == "code":
            after = _commands(after)
        for other in after:
            if not any(other.text in c.text or c.text in other.text for c in out):
                out.append(other)
    return out


_PROMPT = re.compile(r"\$ (?![\d.,])\S")
"""A shell prompt opening a command line of a console session (``$ ferrule
worker``; not a price, ``$ 0.10``)."""


_HOW_TO = re.compile(
    r"\s*(?:how\s+(?:do|can|should|would|could|must)\s+(?:i|we|you|one|they)\s+"
    r"(?!know\b|tell\b|find out\b)|how\s+to\s+|what\s+are\s+the\s+steps\b|which\s+steps\b)",
    re.IGNORECASE,
)
"""A question that asks how something is done: its answer may be a procedure."""
_STEP = re.compile(r"\s*(\d{1,3})[.)]\s+")
"""A numbered list item's marker (``1.``, ``2)``)."""
_SUB_ITEM = re.compile(r"[ \t]+(?:[-*+\u2022]|\d{1,3}[.)]|[a-z][.)])\s+")
"""An item indented under a step ("   - A text message")."""
_NOT_STEPS = frozenset(
    {"not", "cannot", "can't", "don't", "never", "before", "requirement", "requirements",
     "eligibility", "eligible", "prerequisite", "prerequisites", "history", "mistake",
     "mistakes", "changes", "changelog", "troubleshooting", "problem", "problems", "error",
     "errors", "exception", "exceptions", "exclusion", "exclusions", "limitation",
     "limitations", "restriction", "restrictions", "faq", "warning", "warnings"}
)  # fmt: skip
"""A list heading's words that say its items are no steps of what is asked
("Items we cannot return", "If the reset does not work", "Before you install")."""
_DATED_ITEM = re.compile(r"(?:(?:19|20)\d\d|v?\d+\.\d+(?:\.\d+)?)\b\s*[:\-–]")


def _procedure(
    units: list[_Unit],
    weights: Mapping[str, float],
    asked: Mapping[str, float],
    candidates: Sequence[tuple[float, float, _Unit]],
    min_relevance: float,
) -> list[_Unit]:
    """The numbered list that answers a "how do I ...?" question whole, its
    continuation sentences with it ("2. Rinse with hot water ... A drop of
    mild soap is fine."), each step with its number: the one whose headings
    (its section's and the page's title) say most of what is asked, and
    which with its steps covers the question as well as any one sentence
    does. None when no list does, or when the best one has more steps than
    ``_FOLLOWING`` (cut, a procedure misleads)."""
    total = sum(weights.values())
    asked_total = sum(asked.values())
    if not total or not asked_total:
        return []
    best: tuple[float, list[_Unit]] = (0.0, [])
    for steps in _numbered_lists(units):
        if len(steps) < 2 or is_deprecated(steps[0].chunk.metadata) or steps[0].step != "1.":
            continue  # (one that starts at "4." was cut where its chunk begins)
        intro = next(
            (
                u.text
                for u in units
                if u.chunk.id == steps[0].chunk.id
                and u.position == steps[0].position - 1
                and u.text.rstrip().endswith(":")
            ),
            "",
        )
        said = {w.lower() for w in TOKEN.findall(f"{steps[0].heading} {intro}")}
        if any(stem(w) not in asked for w in said & _NOT_STEPS):
            # "Items we cannot return", "Before you install", "these changes:"
            # (but "How do I fix sync errors?" asks the "Fixing sync errors" steps)
            continue
        if sum(bool(_DATED_ITEM.match(step.text)) for step in steps) * 2 > len(steps):
            continue  # "1. 2015: the co-op is founded": a history, not steps
        headings = steps[0].outer | steps[0].context
        named = sum(w for t, w in asked.items() if t in headings)
        if named < 0.5 * asked_total:
            continue  # a list under a heading about another thing
        said = {t for step in steps for t in step.terms} | headings
        coverage = sum(w for t, w in weights.items() if t in said) / total
        if coverage > best[0]:
            best = (coverage, steps)
    coverage, steps = best
    single = max((c for c, _, _ in candidates), default=0.0)
    if coverage < min_relevance or coverage < single:
        return []
    if sum(1 for step in steps if step.step) > _FOLLOWING:
        return []
    return steps


def _numbered_lists(units: list[_Unit]) -> list[list[_Unit]]:
    """The hits' numbered lists, each as its items (with the number they are
    written with) and the sentences that go on on an item's line."""
    lists: list[list[_Unit]] = []
    current: list[_Unit] = []
    line = (None, -1)  # the current item's chunk and line start
    for unit in units:
        text = unit.chunk.text
        found = text.find(unit.text[:40])
        start = text.rfind("\n", 0, found) + 1 if found >= 0 else -1
        marker = _STEP.match(text, start) if found >= 0 and unit.kind == "bullet" else None
        if (
            marker is not None
            and current
            and current[0].chunk.id == unit.chunk.id
            and marker.group(1) != "1"  # (a list that starts again is another)
        ):
            current.append(replace(unit, step=f"{marker.group(1)}."))
            line = (unit.chunk.id, start)
        elif current and unit.kind == "sentence" and (unit.chunk.id, start) == line:
            current.append(unit)  # "2. Rinse ... A drop of mild soap is fine."
        elif (
            current
            and unit.kind in {"bullet", "sentence"}
            and unit.chunk.id == current[0].chunk.id
            and found >= 0
            and _SUB_ITEM.match(text, start) is not None
        ):
            current.append(unit)  # "   - A text message", under its step
            line = (unit.chunk.id, start)
        else:
            if current:
                lists.append(current)
            current = []
            if marker is not None:
                current = [replace(unit, step=f"{marker.group(1)}.")]
                line = (unit.chunk.id, start)
    if current:
        lists.append(current)
    return lists


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


def _commands(lines: list[_Unit]) -> list[_Unit]:
    """The command lines of a shell session (``$ ...``, with the lines a
    trailing ``\\`` continues it on), not what they print: all of them, or
    none when there are more than ``_FOLLOWING`` (cut, a session misleads),
    or when the block is no shell session (a YAML or Python block quoted line
    by line loses its layout)."""
    commands: list[_Unit] = []
    continued = False
    for line in lines:
        if continued or _PROMPT.match(line.text):
            commands.append(line)
            continued = line.text.endswith("\\")
        else:
            continued = False
    return commands if len(commands) <= _FOLLOWING else []


def _with_columns(unit: _Unit, only: set[int] | None = None) -> str:
    """A table row said cell by cell after its column's name ("Room type:
    Harbour Suite; Rate (high season): €295"): a row's bare figures do not
    say which is which. An empty cell is left out, its column with it; the
    row is said as it is when its cells do not line up with the names.
    ``only``: the columns said besides the label (the first), all when None."""
    cells, names = unit.cells, unit.columns
    if len(cells) != len(names) or len(cells) < 2:
        return unit.text
    return "; ".join(
        f"{name}: {cell}" if name and name != cell else cell
        for number, (name, cell) in enumerate(zip(names, cells))
        if cell and (only is None or number == 0 or number in only)
    )


def _asked_columns(unit: _Unit, years: set[str]) -> set[int] | None:
    """The columns of a row to say besides its label, where its columns are
    of years and the question names some ("the per-diem in Austin in 2025"):
    every column but those of the years it does not name (another year's
    cell answers another question). None: all of them."""
    if len(unit.cells) != len(unit.columns) or not years:
        return None
    of_years = {number: set(_YEAR.findall(name)) for number, name in enumerate(unit.columns)}
    if not any(said & years for said in of_years.values()):
        return None
    return {number for number, said in of_years.items() if not said or said & years}


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


def _heading_answers(unit: _Unit, asks: tuple[bool, bool], question: str) -> bool:
    """Whether the unit sits under a release heading ("## 3.1.0 (2026-02-02)"
    above "- Added dark mode.", in the chunk or its ``section``) that gives what a
    "when" (``asks[0]``) or "which version" (``asks[1]``) question asks and
    the unit does not say: the unit is then quoted after its heading. Never
    for what did not happen, a release not out (unreleased, a roadmap, a
    year to come), nor under a change type the question's verb contradicts
    ("when was X added?" under "### Removed")."""
    when, version = asks
    heading = f"{unit.release} {unit.released}".strip()
    if not (when or version) or not unit.release or unit.release == unit.text:
        return False
    deprecating = re.search(r"\bdeprecat", question, re.IGNORECASE) is not None
    for word in _NOT_DONE.findall(unit.text):
        # "Deprecated read_noaa()" did happen, when the question asks when it did
        if not (deprecating and word.lower() == "deprecated"):
            return False
    meta = unit.chunk.metadata
    where = " ".join(
        str(v) for v in (heading, meta.get("section", ""), meta.get("title", ""), unit.chunk.source)
    )
    if not _is_out(heading, where):
        return False
    if unit.text == unit.released:  # "Released 2024-01-19" says whose release it is
        return True
    kind = _change_type(unit.heading)
    if kind:
        wanted = {t for verb, types in _VERB_TYPES for t in types if verb.search(question)}
        if wanted and kind not in wanted:
            return False
    if when and not has_date(unit.text):
        return True
    # "Dropped support for Python 3.8": the version is Python's, not the release's
    own = NAMED_VERSION.sub(" ", unit.text)
    return version and not has_version(own) and has_version(heading)


_CHANGE_TYPES = frozenset(
    {
        "added", "changed", "deprecated", "removed", "fixed", "security", "features",
        "new features", "bug fixes", "fixes", "improvements", "enhancements", "performance",
        "documentation", "breaking changes", "dependencies", "internal", "other", "misc",
    }
)  # fmt: skip
"""A changelog's change-type headings (Keep a Changelog's ``### Added``...):
under a release, they do not end it."""


_NOT_OUT = re.compile(r"\b(?:unreleased|roadmap|upcoming|planned|next release)\b", re.I)
_ANY_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
"""A year, in a date too (``2031-01-15``): a heading's, to tell a release to come."""
_VERB_TYPES = (
    (
        re.compile(r"\b(?:add|added|introduc\w*|ship\w*|launch\w*|new)\b", re.I),
        {"added", "features", "new features", "enhancements", "improvements"},
    ),
    (re.compile(r"\b(?:remov\w*|drop\w*)\b", re.I), {"removed", "breaking changes"}),
    (re.compile(r"\bfix\w*\b", re.I), {"fixed", "bug fixes", "fixes", "security"}),
    (re.compile(r"\bdeprecat\w*\b", re.I), {"deprecated"}),
    (re.compile(r"\bchang\w*\b", re.I), {"changed", "breaking changes"}),
)
"""What a question's verb says happened, and the change types that say it."""
_PSEUDO_HEADING = re.compile(
    r"\s*(?:\*\*[^*]+\*\*|__[^_]+__|<h[1-6][^>]*>.*?</h[1-6]>)\s*:?\s*$", re.I
)
"""A line that is only bold or an HTML heading: a heading in all but syntax."""


def _change_type(heading: str) -> str:
    """The change type a heading names ("### Fixed:" -> "fixed"), or ""."""
    name = heading.lower().strip().rstrip(":").strip()
    return name if name in _CHANGE_TYPES else ""


_UNKNOWN_LEVEL = 7
"""The level of a heading whose level is unknown (not a Markdown ``#`` line):
below every other."""


def _level_of(text: str, heading: str) -> int:
    """The ``#`` count of ``heading``'s Markdown line in ``text`` (0 unknown)."""
    match = re.search(rf"^(#{{1,6}})[ \t]*{re.escape(heading)}[ \t#]*$", text, re.M)
    return len(match.group(1)) if match else 0


def _is_line_of(label: str, text: str) -> bool:
    """Whether ``label`` is a line of its own in ``text`` (a heading), not
    words of a sentence."""
    return re.search(rf"^[#\s*_]*{re.escape(label)}[*_\s:#]*$", text, re.M) is not None


_RELEASED_TERMS = frozenset(stem(word) for word in ("version", "release", "released"))
"""What a dated release heading says besides its own words."""


def _release_terms(release: str, released: str) -> frozenset[str]:
    """The words of a release's heading (and of the line that says when it
    came out), with what a dated one says besides: that it was released
    (not "version": "Which command shows the version?" is no question of
    every changelog item)."""
    terms = frozenset(content_terms(f"{release} {released}"))
    return terms | _RELEASE_WORDS if has_date(f"{release} {released}") else terms


_RELEASE_WORDS = frozenset(stem(word) for word in ("release", "released"))


def _dated_release(heading: str, chunk: Chunk) -> bool:
    """Whether a release heading says its version and the day it came out
    (``2.3.1 - 2026-06-02``, ``[1.2.0] - 2026-02-02``, ``3.1.0 (2026-02-02)``),
    of a release that is out (not one planned)."""
    if not (has_version(heading) and has_date(heading)):
        return False
    return _is_out(heading, f"{heading} {chunk.metadata.get('title', '')} {chunk.source}")


def _is_out(heading: str, where: str) -> bool:
    """Whether the release of ``heading`` is out: ``where`` (its heading,
    section, title, source) does not say it is not (unreleased, a roadmap),
    and its heading names no year to come."""
    if _NOT_OUT.search(where):
        return False
    return not any(int(y) > date.today().year for y in _ANY_YEAR.findall(heading))


def _says_released(line: str, release: str) -> bool:
    """Whether ``line``, just under the release heading ``release``, says when
    that release came out (``Released 2026-05-11``, ``2026-05-11``) or that it
    has not (``Unreleased``), and the heading does not say it already."""
    if _NOT_OUT.fullmatch(line.strip(" .:-")):
        return True
    return (
        is_release_label(line)
        and has_date(line)
        and not has_version(line)
        and has_version(release)
        and not has_date(release)
    )


def _release_of(section: str) -> str:
    """The release a chunk's ``section`` path ends in, past change-type
    headings ("Changelog > [1.2.0] - 2026-02-02 > Added" -> "[1.2.0] -
    2026-02-02"), or ""."""
    for part in reversed(section.split(" > ")):
        part = part.strip()
        if is_release_label(part):
            return part
        if not _change_type(part):
            return ""
    return ""


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


_OWN_FIELDS = frozenset(
    {"source", "path", "relative_path", "mtime", "size", "content_hash", "extension",
     "section", "document_id", "chunk_index", "start", "end", "title", "language", "heading",
     "layer", "table_header", "encoding", "format", "url", "links", "author", "creator",
     "producer", "subject", "keywords", "created", "modified", "date", "from", "to", "cc",
     "message_id", "forwarded", "attachment"}
)  # fmt: skip
"""Metadata a reader gives every document of its kind (its file, its mail
headers): no field of what the document is about."""


_WHAT_HEAD = re.compile(
    r"\s*what(?:'s|’s| is| are| was| were)\s+(?:the|a|an|my|our|your|their)\s+"
    r"(?:[\w-]+\s+){0,2}?([a-z][\w-]*)\s+(?:for|of|on|at|with|per)\b",
    re.IGNORECASE,
)
_FORM_NOUNS = frozenset(
    stem(word)
    for word in (
        "address", "name", "number", "date", "time", "day", "place", "location", "hours",
        "deadline", "status", "url", "link", "website", "contact", "way", "process",
        "procedure", "rule", "policy", "difference", "reason", "purpose", "meaning",
    )
)  # fmt: skip
"""What a sentence may give without naming it ("Berlin office: Friedrichstr. 12"
is its address)."""


_SUBJECT = re.compile(
    r"\s*(?:how\s+(?:long|much|many|often|soon|far)|when|where|why)\s+"
    r"(?:is|are|was|were)\s+(?:(?:the|a|an|my|your|our|their|its)\s+)?"
    r"((?:[a-z][\w'-]*\s+){0,2}?[a-z][\w'-]*)\s+"
    r"(?:\w+ed|\w+en|kept|held|sent|built|paid|made|done|due|available|required|allowed"
    r"|open|closed|valid)\b",
    re.IGNORECASE,
)


_SMALL = r"(?!(?:of|for|at|in|on|to|with|the|a|an|my|your|our|their)\b)"
_WHAT_SUBJECT = re.compile(
    r"\s*what(?:'s|’s| is| are| was| were)\s+(?:the|a|an|my|your|our|their)\s+"
    rf"(?P<about>(?:{_SMALL}[a-z][\w'-]*\s+){{1,3}})(?P<thing>{_SMALL}[a-z][\w'-]*)\s*\??\s*$",
    re.IGNORECASE,
)
_WHAT_OF = re.compile(
    r"\s*what(?:'s|’s| is| are| was| were)\s+(?:the|a|an|my|your|our|their)\s+"
    r"(?:[a-z][\w'-]*\s+){0,2}?(?P<thing>[a-z][\w'-]*)\s+(?:of|at|in)\s+"
    r"(?:the|a|an|my|your|our|their)\s+(?P<about>(?:[a-z][\w'-]*\s*){1,3}?)\s*\??\s*$",
    re.IGNORECASE,
)
"""("What are the opening hours *of the library*?")"""
_NO_SUBJECT = frozenset(
    stem(word)
    for word in (
        "opening", "closing", "current", "latest", "new", "next", "last", "main", "total",
        "average", "minimum", "maximum", "standard", "usual", "normal", "full", "exact",
        "official", "general", "best", "cheapest", "first", "annual", "monthly", "daily",
        "weekly", "yearly",
    )
)  # fmt: skip


def _modifier_terms(question: str) -> tuple[set[str], set[str]] | None:
    """What a "What are the library opening hours?" question asks about and
    what it asks: the nouns before the thing ("library", less words that say
    which one: "the *opening* hours", "the *current* fee") or after its "of"
    ("the opening hours of the library"), and the thing ("hours"). A
    sentence must say one or the other (not "The Counselling Service is open
    ... from 9 am to 5 pm"; "A fee of £2 applies" says the booking fee's
    fee). None for a question not so made."""
    match = _WHAT_SUBJECT.match(question) or _WHAT_OF.match(question)
    if match is None:
        return None
    about = set(content_terms(_GROUP.sub(" ", match.group("about")))) - GENERIC_STEMS - _NO_SUBJECT
    return about, set(content_terms(match.group("thing")))


def _subject_terms(question: str) -> set[str]:
    """What a "How long are audit logs kept ...?" question asks about (its
    subject, before the participle: ``audit``, ``log``); a sentence must say
    one of its words. Empty where the question is not so made."""
    match = _SUBJECT.match(question)
    if match is None:
        return set()
    # (not the people it asks of: "How long are employees required to keep receipts?")
    return set(content_terms(_GROUP.sub(" ", match.group(1)))) - GENERIC_STEMS


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
_ALL_OF = re.compile(r"\b(?:every|all|any)\b", re.IGNORECASE)
"""A price for every thing of a kind ("added to every repair") prices the one asked."""
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


def _at(unit: _Unit) -> tuple[str, int]:
    return unit.chunk.id, unit.position


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


def _asked_head(question: str) -> str | None:
    """The thing a "What is the X for/of Y?" question asks, as a term
    ("What is the bonus for an Exceeds rating?": ``bonus``), which an answer
    must say; None for a form an answer need not name (an address, a date)."""
    match = _WHAT_HEAD.match(question)
    if match is None:
        return None
    terms = content_terms(match.group(1))
    if not terms or terms[-1] in _FORM_NOUNS or terms[-1] in GENERIC_STEMS:
        return None
    return terms[-1]


_API_MAJOR = re.compile(r"v\d{1,2}")
"""A major version a question names as a thing ("the v1 API")."""

_WHO_OR_WHICH = re.compile(r"\s*(?:who|whom|which|what\s+(?:role|team|person|level))\b", re.I)

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


def _said_by(unit: _Unit) -> str:
    """What a unit says and sits under, in lower case: its text, heading,
    section and document title (not the rest of its chunk)."""
    metadata = unit.chunk.metadata
    return " ".join(
        str(part)
        for part in (
            unit.text,
            unit.heading,
            metadata.get("section", ""),
            metadata.get("title", ""),
        )
    ).lower()


def _documents_naming(hits: Sequence[Hit], names: Sequence[str]) -> dict[str, set[str]]:
    """For each name, the documents (by id) that name it in any of their hits'
    text or title."""
    return {
        name: {
            hit.chunk.document_id
            for hit in hits
            if mentions(f"{hit.chunk.text} {hit.chunk.metadata.get('title', '')}", name)
        }
        for name in names
    }


def _ambient(name: str, question: str, hits: Sequence[Hit], rival: set[str]) -> bool:
    """Whether ``name`` is what every page is about (a product's or a
    company's name in its own docs): the question does not make it a kind's
    ("the Valdora tourist office"), no rival of it is written, and at least
    two documents, and most of those hit, name it (in their text or title)."""
    if rival or any(ch.isdigit() for ch in name):
        return False
    if re.search(rf"\b(?:the|a|an|our|your)\s+{re.escape(name)}\s+[a-z]", question, re.I):
        return False  # ("the Valdora tourist office", "the Parcelbird rate limit")
    documents: dict[str, bool] = {}
    for hit in hits:
        where = f"{hit.chunk.text} {hit.chunk.metadata.get('title', '')}"
        documents[hit.chunk.document_id] = documents.get(hit.chunk.document_id, False) or (
            mentions(where, name)
        )
    named = sum(documents.values())
    return named >= 2 and named * 2 >= len(documents)


def _fields_of(chunk: Chunk) -> frozenset[str]:
    """The words of a chunk's front matter fields (or its loader's
    ``metadata:``) that scope the page, names and values: ``office:
    Singapore`` gives ``offic`` and ``singapor``."""
    return frozenset(
        term
        for key, value in chunk.metadata.items()
        if key.lower() in _SCOPE_FIELDS and isinstance(value, str) and len(value) <= _LABEL_CHARS
        for term in content_terms(f"{key.replace('_', ' ')} {value}")
    )


_SCOPE_FIELDS = frozenset(
    {"office", "region", "country", "city", "location", "site", "campus", "branch", "store",
     "team", "department", "product", "plan", "edition", "tier", "platform", "audience",
     "role", "carrier", "market", "applies_to", "for", "scope", "group", "employment",
     "employee_type", "contract"}
)  # fmt: skip
"""Front matter fields that say where or to whom a whole page applies
(``office: Lisbon``); a free-text one (``summary:``) says what it holds, not
what each of its sentences is of."""


def _told_apart(one: _Unit, *others: _Unit) -> dict[str, str]:
    """What tells documents apart, for each unit's chunk (by id): the first
    field of their front matter (or their loader's ``metadata:``) whose values
    all differ (``Berlin (office)``), one field for all; empty when none
    does (pages that only disagree: the better ranked answers, as it would
    alone)."""
    units = (one, *others)
    for key, value in one.chunk.metadata.items():
        values = [unit.chunk.metadata.get(key) for unit in units]
        if (
            key not in _OWN_FIELDS
            and isinstance(value, str)
            and all(isinstance(v, str) and len(v) <= _LABEL_CHARS for v in values)
            and len(set(values)) == len(values)
        ):
            return {unit.chunk.id: clean(f"{v} ({key})") for unit, v in zip(units, values)}
    return {}


def _of_years(unit: _Unit, years: set[str]) -> bool:
    """Whether a sentence may speak of the years a question asks about
    ("income in 2023"): it names one of them; or it names no year, and
    neither does what it sits under (its heading, section, release, the
    document's title), else one of them. "Total income was 38,500 pounds"
    in the "Annual Report 2024" is 2024's income, no answer for 2023."""
    # a row's columns say which years its cells are of ("| Holiday | Date 2025 |"),
    # whatever dates the cells hold ("22 December 2025 – 2 January 2026")
    of_columns = set(_YEAR.findall(" ".join(unit.columns)))
    if of_columns:
        return not of_columns.isdisjoint(years)
    said = set(_YEAR.findall(unit.text))
    if said:
        return not said.isdisjoint(years)
    metadata = unit.chunk.metadata
    around = " ".join(
        str(v)
        for v in (
            unit.heading,
            unit.release,
            metadata.get("section") or "",
            metadata.get("title") or "",
            metadata.get("source") or "",
        )
    )
    named = set(_YEAR.findall(around))
    return not named or not named.isdisjoint(years)


def _names_version(unit: _Unit, versions: set[str]) -> bool:
    """Whether the unit, its release or its section names one of the
    versions the question asks about (``2.0.0``, not ``2.0.1``)."""
    section = unit.chunk.metadata.get("section")
    where = " ".join(
        (unit.text, unit.release, unit.heading, section if isinstance(section, str) else "")
    )
    return not versions.isdisjoint(versions_in(where))


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


_PRICES = re.compile(
    r"\b(?:costs|costing|is priced|are priced|is charged|are charged|is free|are free|sells? for"
    r"|retails? for)\b"
    # "Tickets cost €5", not the noun of "at no extra cost", "the cost of"
    r"|(?<!\bno )(?<!\bextra )(?<!\bthe )(?<!\ba )(?<!\bits )(?<!\btheir )(?<!\bany )"
    r"(?<!\btotal )(?<!\bfull )(?<!\breplacement )(?<!\badditional )\bcost\b(?!\s+of\b)",
    re.IGNORECASE,
)
"""The verb that prices a sentence's subject."""
_CLAUSE_BREAK = re.compile(r"[,;:(]|[.!?](?=\s)")


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
    r"\b(?:must|can|cannot|could|will|would|should|may|might|is|are|was|were|has|have)\b",
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
    age: tuple[int, set[str]] | None = None,
    question: str = "",
) -> bool:
    """Whether a table row's label (its first cell) names another thing than
    the question asks the price of: "Payroll export | $3 per user per month"
    is no price of the Team plan (but "Young person (12–17)" is the price
    for the question's 15-year-old)."""
    if unit.kind != "row" or not unit.cells or not unit.columns:
        return False
    label = content_terms(unit.cells[0])
    if age is not None and holds_age(unit.cells[0], age[0], " | ".join(unit.columns)):
        return False
    # (what a label says in brackets is another name or a note: "Dormitory (Lager)")
    bare = _BRACKETED.sub("", unit.cells[0])
    return bool(label) and (not any(term in asked for term in label) or _other_head(bare, question))


_BRACKETED = re.compile(r"\s*\([^)]*\)")


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


_MEASURED = re.compile(
    r"\d\s*(?:kg|g|lbs?|oz|t|tonnes?|GB|MB|TB|KB|l|litres?|liters?|ml|cl|km|m|cm|mm|miles?"
    r"|kWh|kW|W|bags?|sacks?|cups?|bottles?|boxes?|packs?)\b",
    re.IGNORECASE,
)
"""A figure in a measure: what "how much coffee" or "how much storage" is said in."""


def _says_of(unit: _Unit, thing: set[str], *, counts: bool = False) -> bool:
    """Whether the unit, its heading or its columns say ``thing`` (one of
    its terms). With ``counts``, a sentence with figures counts it: a figure
    comes just before it ("up to 4 sacks", "two bags"), not somewhere beside
    it ("180 litres ... bagged pet waste"); a row's column, the heading or
    a label before a colon may say what its figures count."""
    columns = {t for c in unit.columns for t in content_terms(c)}
    if not thing & (unit.terms | unit.context | columns):
        return False
    if not counts or thing & (unit.context | columns):
        return True
    label, colon, _ = unit.text.partition(":")
    if colon and thing & set(content_terms(label)):
        return True  # "Free guest Day Passes: Fixed Desk – 1 per month; ..."
    words = _FIGURE_WORD.findall(unit.text.replace("-", " "))
    figures = [i for i, w in enumerate(words) if w[0].isdigit() or w.lower() in _COUNT_WORDS]
    if not figures:
        return True  # "There is no fixed cap on sick days": no figure to check
    return any(thing & set(content_terms(" ".join(words[i + 1 : i + 4]))) for i in figures)


_FIGURE_WORD = re.compile(r"\d[\d,.]*|[A-Za-z]+")
_COUNT_WORDS = NUMBER_WORDS | {"several", "many"}


def _counts(text: str, thing: set[str]) -> bool:
    """Whether a figure in ``text`` counts ``thing`` ("two permits", "up to 3
    extra bags"), a figure just before it."""
    words = _FIGURE_WORD.findall(text.replace("-", " "))
    return any(
        (word[0].isdigit() or word.lower() in _COUNT_WORDS)
        and thing & set(content_terms(" ".join(words[i + 1 : i + 3])))
        for i, word in enumerate(words)
    )


def _numbered(question: str) -> set[str]:
    """What a figure in a yes/no question counts ("three permits", "2 extra
    bags": ``permit``, ``bag``)."""
    return {
        term
        for match in _NUMBERED.finditer(question)
        if match.group(1).lower() != "one"
        for term in content_terms(match.group(2))[:1]
    }


_NUMBERED = re.compile(
    rf"\b(\d+|{'|'.join(sorted(NUMBER_WORDS))})\s+(?:(?:more|extra|additional)\s+)?([A-Za-z]+)",
    re.IGNORECASE,
)


_GROUP_PHRASE = re.compile(rf"\b(?:([a-z][\w-]*)\s+)?({GROUP_WORDS})\b", re.IGNORECASE)


def _group_phrases(text: str) -> set[tuple[str, frozenset[str]]]:
    """The groups of people ``text`` names, each as its noun and the word
    before it that says which ("postgraduate students": ``(student,
    {postgraduat})``; "except students": ``(student, {})``), staff aside."""
    phrases = set()
    for match in _GROUP_PHRASE.finditer(text):
        noun = content_terms(match.group(2))
        if not noun or noun[-1] in STAFF:
            continue
        before = (match.group(1) or "").lower()
        which = frozenset() if before in _NOT_WHICH else frozenset(content_terms(before))
        phrases.add((noun[-1], which))
        # "Undergraduate and postgraduate students": two kinds
        also = re.search(r"([a-z][\w-]*)\s+(?:and|or)\s+$", text[: match.start()], re.I)
        if which and also is not None and also.group(1).lower() not in _NOT_WHICH:
            phrases.add((noun[-1], frozenset(content_terms(also.group(1)))))
    return phrases


_NOT_WHICH = frozenset(
    {"except", "including", "excluding", "unlike", "like", "than", "for", "to", "all", "every",
     "each", "any", "our", "their", "your", "other", "some", "most", "many", "by", "with",
     "admit", "admits", "allow", "allows", "bring", "take", "accept", "accepts", "welcome",
     "welcomes", "serve", "have", "get", "let", "permit", "invite", "need", "want", "are",
     "is", "do", "can", "and", "or", "unaccompanied", "accompanied"}
)  # fmt: skip
"""Words before a group that do not say which of it ("except students")."""


def _same_group(said: tuple[str, frozenset[str]], asked: set[tuple[str, frozenset[str]]]) -> bool:
    """Whether a sentence's group is one the question asks of, or holds it:
    "students" holds "international students"; "postgraduate students" is
    another group than "international students"; "students" asked of is
    answered by any kind of student's rule."""
    noun, which = said
    return any(
        noun == a_noun and (not which or not a_which or which <= a_which)
        for a_noun, a_which in asked
    )


def _groups_in(text: str) -> list[str]:
    """The terms of the groups of people ``text`` names ("Employees get ...": ``employe``)."""
    return [t for g in _GROUP.findall(text) for t in content_terms(g)]


def _for_another_group(unit: _Unit, who: tuple[str, set[str]], question: set[str]) -> bool:
    """Whether a sentence grants something to a group of people that is not
    the asker's (``who``: "student", and the words before it, "senior",
    which name no group of their own) nor one the question names ("I'm an
    adult, do children travel free?"); one that limits it to such a group
    ("only available to seniors") answers no, and stays."""
    head, before = who
    if _ONLY.search(unit.text) is not None:
        return False
    groups = set(_groups_in(unit.text))
    if head in unit.terms:
        # "Residents pay 50% of the adult fare" is the residents' price, not
        # the adults': the asker's group is only what it is measured by
        measured = [
            m for m in _MEASURED_BY.finditer(unit.text) if head in content_terms(m.group(1))
        ]
        said = len(re.findall(rf"\b{re.escape(head)}", unit.text.lower()))
        others = groups - {head} - (question - before)
        return bool(measured) and len(measured) >= said and bool(others)
    if not groups:
        # a sentence for no group answers only what else the question asks
        # ("... on the Business plan?"), not the asker's own question
        # ("Discounts cannot be combined" to "can I get a discount?")
        rest = question - _QUALIFYING - GENERIC_STEMS - before - {head}
        return not rest & (unit.terms | unit.context)
    return not groups & (question - before)


_QUALIFYING = frozenset(
    stem(word)
    for word in (
        "discount", "discounted", "concession", "concessionary", "reduced", "reduction",
        "cheaper", "free", "eligible", "qualify", "entitled", "waived", "rate", "offer",
    )
)  # fmt: skip
"""What a yes/no question may ask that depends on who asks ("can I get a discount?")."""

_GROUP = re.compile(rf"\b(?:{GROUP_WORDS}|{AGE_BANDS}|\d+s)\b", re.IGNORECASE)
"""People a rule or a price may be for: "Seniors get 10% off", "free for under-5s"."""

_WHO_BY_AGE = (
    rf"(?:{GROUP_WORDS}|people|persons|those|anyone|everyone|passengers|drivers|riders"
    r"|players|swimmers|campers|climbers|customers|users|aged|ages|age)"
)
"""Words for people that an age band may follow ("Seniors (65+)", "aged 65 and over")."""
_NOT_AN_AGE = (
    r"(?!\s*(?:months?|weeks?|days?|nights?|kg|g|lbs?|cm|mm|m|km|miles?|minutes?|mins?|hours?"
    r"|hrs?|%|people|persons|guests|items|orders|tickets))"
)
_AGE_BANDS = (
    # "under-18s", "over 65s", "children under 16", "(under 15)"
    re.compile(
        r"\b(under|over)[- ]?(\d{1,3})s\b"
        r"|\b(?:children|kids|child|people|those|anyone|aged|ages?)\s+(under|over)\s+(\d{1,3})\b"
        rf"{_NOT_AN_AGE}"
        rf"|\((under|over)\s+(\d{{1,3}})\){_NOT_AN_AGE}",
        re.IGNORECASE,
    ),
    # "Seniors (65+)", "aged 65+", "aged 65 and over", "people 65 or older"
    re.compile(
        rf"\b{_WHO_BY_AGE}(?:\s+[\w-]+){{0,2}}\s*\(\s*(\d{{1,3}})\s*\+\s*\)"
        r"|\baged\s+(\d{1,3})\s*\+"
        rf"|\b{_WHO_BY_AGE}\s+(\d{{1,3}})\s+(?:and|or)\s+(?:over|older|above)\b",
        re.IGNORECASE,
    ),
    # "aged 5-15", "16-17 year olds", "5 to 15-year-olds"
    re.compile(
        r"\b(?:aged|ages)\s+(\d{1,3})\s*(?:-|–|to)\s*(\d{1,3})\b"
        r"|\b(\d{1,3})\s*(?:-|–|to)\s*(\d{1,3})[- ]years?[- ]olds?\b",
        re.IGNORECASE,
    ),
)
_OLDEST = 150


def _age_bands(text: str) -> set[tuple[int, int]]:
    """The ages ``text`` names a band of, each as its youngest and oldest
    age: "under-18s" ``(0, 17)``, "over-65s" and "(65+)" ``(65, 150)``,
    "aged 5-15" ``(5, 15)``."""
    under_over, and_over, between = _AGE_BANDS
    bands = set()
    for m in under_over.finditer(text):
        way, age = [g for g in m.groups() if g]
        n = int(age)
        bands.add((0, n - 1) if way.lower() == "under" else (n, _OLDEST))
    for m in and_over.finditer(text):
        bands.add((int(next(g for g in m.groups() if g)), _OLDEST))
    for m in between.finditer(text):
        low, high = (int(g) for g in m.groups() if g)
        if low <= high:
            bands.add((low, high))
    return bands


def _covers(band: tuple[int, int], asked: tuple[int, int]) -> bool:
    """Whether everyone of the ``asked`` band is in ``band`` (the under-18s
    hold the under-16s; the over-60s the over-65s)."""
    return band[0] <= asked[0] and asked[1] <= band[1]


def _overlaps(band: tuple[int, int], asked: tuple[int, int]) -> bool:
    return band[0] <= asked[1] and asked[0] <= band[1]


_MEASURED_BY = re.compile(
    rf"\b(?:of|than|as|half)\s+(?:the|an?|what)?\s*((?:{GROUP_WORDS})(?:'s|’s)?)\b",
    re.IGNORECASE,
)
"""A group a price is measured by: "50% of the adult fare", "half the child price"."""

_POINTING = frozenset({"it", "this", "that", "these", "those", "they", "which", "both"})


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

_ONLY = re.compile(r"\bonly\b", re.IGNORECASE)
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


def _covered(unit: _Unit, weights: dict[str, float]) -> float:
    """The weight of the question's words the unit holds; those of its
    heading (or table header) count ``_CONTEXT_WEIGHT``, but a table row
    whose label the question names is read whole with its column names
    ("Day | €58 | €41" under "Pass | Adult | Child" answers "How much is an
    adult day pass?" as "The Adult day pass is €58" would)."""
    context_weight = _CONTEXT_WEIGHT
    if unit.columns and unit.cells:
        label = content_terms(unit.cells[0])
        if label and all(term in weights for term in label):
            context_weight = 1.0
    covered = 0.0
    for term, weight in weights.items():
        if term in unit.terms:
            covered += weight
        elif term in unit.context:
            covered += context_weight * weight
    return covered


_ON_EVERY = re.compile(
    r"\b(?:on|for|in|to|with|across)\s+(?:every|all|each|any)\s+(?:of\s+(?:the|our)\s+)?"
    r"([a-z][\w-]*)",
    re.IGNORECASE,
)
"""A sentence that says its thing holds of every one of a kind: "available on every plan"."""


def _kind_of(name: str, noun: str, texts: Sequence[str]) -> bool:
    """Whether the passages write ``name`` as one of ``noun`` ("the Starter
    plan" is a plan: "every plan" holds of it)."""
    kind = stem(noun.lower())
    return any(
        stem(match.group(1).lower()) == kind
        for text in texts
        for match in re.finditer(rf"\b{re.escape(name)}\s+([a-z][\w-]*)", text)
    )


_UNIVERSAL = re.compile(r"(?:every|all|each|any)\s+(?:of\s+(?:the|our)\s+)?[a-z][\w-]*", re.I)
"""A sentence about every thing of a kind ("Every phone has...", "All plans...")."""


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_BOLD_LEAD = re.compile(r"\*\*([^*\n]{2,60})\*\*(?!\s*[:.])")
"""A paragraph's opening bold name ("**Kelsworth Central** is at ..."), not a
bold label ("**Note:**")."""


def _about(unit: _Unit, names: list[str], rival: set[str], texts: Sequence[str] = ()) -> bool:
    """Whether a unit can be about what the question names: its chunk (or the
    document's title or path) names one of the question's entities (a
    question may name two, each in a passage of its own: "the Enterprise plan
    and the Pro plan"), or the unit speaks of every thing of a kind; and the
    unit does not name a rival of them without naming them, unless its
    heading names the entity and no rival."""
    if not names:
        return True
    chunk = unit.chunk
    # and a row's cells under their columns: "Zone | 2" names Zone 2
    cells = " ".join(f"{column} {cell}" for column, cell in zip(unit.columns, unit.cells))
    where = f"{_where(chunk)} {cells.lower()}"

    if not any(_knows(where, name) for name in names):
        # "Every phone has a two-year warranty" is about the P8 too, when the
        # passages know a P8 (a name none of them holds is not vouched for);
        # so is "Two-factor authentication is available on every plan" about
        # the Starter plan
        every = _ON_EVERY.search(unit.text)
        return (
            (
                _UNIVERSAL.match(unit.text) is not None
                or (
                    every is not None
                    and any(_kind_of(name, every.group(1), texts) for name in names)
                )
            )
            and any(mentions(t, name) for t in texts for name in names)
            and not any(mentions(unit.text, other) for other in rival)
        )
    if any(mentions(unit.text, other) for other in rival):
        # under a heading (or in a document) that names the entity and none
        # of its rivals, a rival named in passing is another thing (CS 341's
        # "Prerequisites": "Students must have passed CS 241")
        section = chunk.metadata.get("section")
        heading = f"{chunk.metadata.get('title', '')} {section if isinstance(section, str) else ''}"
        own = any(mentions(heading, name) for name in names) and not any(
            mentions(heading, other) for other in rival
        )
        return own or any(mentions(unit.text, name) for name in names)
    # "**Kelsworth Central** is at 14 Tannery Row. ... There is no on-site
    # parking.": the paragraph's sentences are Kelsworth Central's
    return not unit.subject or any(
        mentions(unit.subject, name) or mentions(unit.text, name) for name in names
    )


_UNITS = {
    "cm": "cm", "mm": "mm", "inch": "in", "inches": "in", '"': "in", "litre": "l",
    "liter": "l", "litres": "l", "liters": "l", "qt": "qt", "quart": "qt", "quarts": "qt",
    "oz": "oz", "kg": "kg", "lb": "lb", "lbs": "lb",
}  # fmt: skip
"""Measures written before a name ("28 cm", "5.5 qt", '11"'), each as one
spelling: not "in", "m", "l" or "g", which are words too ("program 2 in
Airwave mode")."""
_CAPITAL_UNITS = frozenset({"GB", "TB", "MB", "W", "kW", "V", "mAh", "Hz", "MHz", "GHz"})
"""Measures written in capitals, which a name takes in ("the 16 GB Nimbus": GB Nimbus)."""
_FIGURE = r"(\d+(?:[.,]\d+)?)\s?"


def _measure(figure: str, unit: str) -> tuple[float, str]:
    return float(figure.replace(",", ".")), _UNITS.get(unit.lower(), unit)


def _sized_names(question: str, names: Sequence[str]) -> list[tuple[tuple[float, str], str]]:
    """Each measure the question writes right before one of its ``names``
    ("the *28 cm* Ceramic Pro", "the *16 GB* Nimbus"), with the pattern of
    that name after any measure of its unit: the measure tells the thing from
    its siblings, as a number after a name does ("Zone 3")."""
    found = []
    for name in names:
        first, _, rest = name.partition(" ")
        if first in _CAPITAL_UNITS and rest:  # "GB Nimbus": the unit, then the name
            units, tail = re.escape(first), re.escape(rest)
        else:
            units, tail = "|".join(re.escape(u) for u in _UNITS), re.escape(name)
        pattern = rf"{_FIGURE}({units})\s*{tail}\b"
        for match in re.finditer(pattern, question):
            found.append((_measure(match.group(1), match.group(2)), pattern))
    return found


def _another_size(text: str, sized: Sequence[tuple[tuple[float, str], str]]) -> bool:
    """Whether ``text`` names one of the sized names with another measure
    only ("the 24 cm Ceramic Pro" where "the 28 cm Ceramic Pro" is asked)."""
    for measure, pattern in sized:
        said = {_measure(m.group(1), m.group(2)) for m in re.finditer(pattern, text)}
        if said and measure not in said:
            return True
    return False


_MODEL = re.compile(r"(?<![\w-])[A-Z]{1,4}[-\u2011]?\d+(?:[-\u2011][A-Z0-9]+)*(?![\w-])")
"""A model code ("TT-32-CS", "X200", written with non-breaking hyphens too)."""


def _of_another_model(unit: _Unit, names: Sequence[str]) -> bool:
    """Whether a unit is about another model than the named thing a yes/no
    question asks about: it names a model code and none of the question's
    names, nor does its heading or the name it is about."""
    if not names or not _MODEL.search(unit.text):
        return False
    about = f"{unit.text} {unit.subject} {unit.heading}".replace("\u2011", "-")
    return not any(mentions(about, name) for name in names)


def _place_fit(unit: _Unit, asked: Collection[str]) -> str:
    """How a unit stands to the countries a question asks about: ``exact``
    (it or its heading names one), ``union`` (it names the union that holds
    one: the EU for France), ``other`` (it opens on another country, "In
    Canada, ...", or names none and sits under a heading of others only), or
    ``none``. A country named in passing ("ships from our US warehouse") is
    none of the unit's."""
    pieces = unit.pieces or (unit.text,)
    # "For customers outside the EU, ..." says nothing of France
    if any(within(out, one) for piece in pieces for out in excluded_by(piece) for one in asked):
        return "other"
    # what it opens on first ("In Mexico, ..." under "# Canada and Mexico" is
    # Mexico's; each sentence of a joined unit: "... In Mexico, it lasts 1 year.")
    framed = set().union(*(framed_by(piece) for piece in pieces))
    named = framed or places_in(unit.text) | places_in(unit.heading)
    if named & set(asked):
        return "exact"
    if any(within(place, one) for place in named for one in asked):
        return "union"
    if not framed and not places_in(unit.text):
        framed = places_in(unit.heading)
    return "other" if framed else "none"


def _for_each_place(
    chosen: list[_Unit], eligible: list[_Unit], asked: Collection[str]
) -> list[_Unit]:
    """``chosen`` with, for each asked country none of it names, the best
    eligible unit that names it; empty when one has none."""
    out = list(chosen)
    for place in asked:
        if any(_place_fit(u, [place]) in {"exact", "union"} for u in out):
            continue
        found = next((u for u in eligible if _place_fit(u, [place]) in {"exact", "union"}), None)
        if found is None:
            return []
        # (one sentence of a unit already chosen: the unit, once)
        out = [u for u in out if u.text not in found.text] + [found]
    return out


def _same_places(places: Collection[str], asked: Collection[str]) -> bool:
    """Whether ``places`` (a text's) are all of the ``asked`` ones, or their unions."""
    return bool(places) and all(any(within(p, a) for a in asked) for p in places)


def _knows(where: str, name: str) -> bool:
    """Whether ``where`` (lower case) names ``name``: "Ledgerly Pro" where
    Ledgerly and Pro stand apart too; "Lab 5" and "X200" only as written."""
    if any(ch.isdigit() for ch in name):
        return mentions(where, name.lower())
    place = said_in(where, name)  # "the UK" where they write "the United Kingdom"
    if place is not None:
        return place
    words = [w for w in name.split() if len(w) > 1] or [name]
    return name.lower() in where or all(w.lower() in where for w in words)


_IDENTIFIER = re.compile(
    r"(?<![\w.\-/@])([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[A-Za-z][A-Za-z0-9_]*"
    r"(?:\.[A-Za-z_][A-Za-z0-9_]+)+)(?![\w\-/]|\.[A-Za-z0-9])"
)
"""A name as code and configuration write it: snake_case (``max_workers``,
``FERRULE_CONFIG``) or dotted (``app.schedule``, ``config.yaml``, ``retry.max_attempts``),
each part after a dot two characters or more ("e.g." is none)."""


def _has_identifier(where: str, name: str) -> bool:
    """Whether ``where`` (lower case) has the identifier ``name`` as a word of
    its own (``max_workers`` is not in ``max_workers_per_node``), also as the
    tail of a longer dotted name (``ferrule.worker.pool``) or written with
    Markdown's escapes (``max\\_workers``); a dotted name also where each of
    its parts is a word of its own (``worker:`` then ``pool:`` in YAML)."""
    where = where.replace("\\_", "_").replace("\\.", ".")
    pattern = rf"(?<!\w){re.escape(name.lower())}(?![\w]|\.[a-z0-9_])"
    if re.search(pattern, where) is not None:
        return True
    parts = name.lower().split(".")
    return len(parts) > 1 and all(
        re.search(rf"(?<![\w.]){re.escape(part)}(?![\w])", where) for part in parts
    )


def _source_lines(text: str) -> list[tuple[str, str]]:
    """A source file's units: its code lines, stripped (``code``), and the
    sentences of its docstrings and comment runs, each docstring or run read
    as one paragraph (``sentence``): prose, quoted whole, where a line's end
    cut a sentence in two."""
    out: list[tuple[str, str]] = []
    prose: list[str] = []  # the docstring or comment run being read
    quote = ""  # the docstring's delimiter while in one

    def said() -> None:
        if prose:
            out.extend((s, "sentence") for s in split_sentences(" ".join(prose)))
            prose.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if quote:
            closing = quote in line
            prose.append(line.replace(quote, " ").strip())
            if closing:
                said()
                quote = ""
            continue
        if line.startswith("#") and not line.startswith("#!"):
            prose.append(line.lstrip("#").strip())
            continue
        said()  # a comment run ends at the first line that is not one
        opened = next((q for q in ('"""', "'''") if line.startswith(q)), "")
        if opened and line.count(opened) == 1:
            prose.append(line[len(opened) :].strip())
            quote = opened
            continue
        if opened:  # a one-line docstring
            prose.append(line.replace(opened, " ").strip())
            said()
            continue
        if line:
            out.append((line, "code"))
    said()
    return out


def _source_code(chunk: Chunk) -> bool:
    """Whether ``chunk`` is of a source file (``.py``, ``Dockerfile``), read as
    the chunkers read one."""
    from ..chunkers._chunking import source_code

    metadata = {**chunk.metadata, "source": chunk.source}
    return source_code(Document(chunk.document_id, "", metadata))


def _where(chunk: Chunk) -> str:
    """What a chunk says of what it is about, in lower case: its text, title,
    section and source."""
    parts = (chunk.text, chunk.metadata.get("title", ""), chunk.metadata.get("section", ""))
    return " ".join(str(part) for part in (*parts, chunk.source)).lower()


_PICKS_BY_RANK = re.compile(
    r"\s*(?:which|who|what\s+(?!is\b|are\b|was\b|were\b|do\b|does\b)\w+)\b[^?]*?"
    r"(?<!\bat )\bthe\s+(most|least|fewest|highest|lowest|largest|biggest|smallest|cheapest|"
    r"longest|shortest|newest|oldest|fastest|slowest)\b(?!\s+(?:time|date|day|hour)\b)",
    re.I,
)
"""A question that picks one of several things by a rank ("Which office has
the most employees?"): only a sentence that says the rank answers it."""

FOLLOW_UP = (
    "This question leans on the conversation before it, which this answerer does not "
    "read: ask it in full, naming what it is about. (For chat, configure the `condense` "
    "query transformer with an LLM generator.)"
)
"""The answer to a follow-up question in a chat (``history`` given)."""

_PERSONAL = frozenset({"it", "its", "they", "them", "their", "theirs", "he", "she", "him", "her"})
_OBJECT_LAST = (["it"], ["them"], ["him"], ["her"])
"""A question's last word as a pronoun that is its verb's object."""
_ELLIPTIC = re.compile(r"\s*(?:and|also|what about|how about|and what about|same for)\b", re.I)
"""How a follow-up that asks nothing of its own opens: "And the Osaka office?"."""
_DUMMY_IT = re.compile(
    r"\b(?:is|was|will|would) it (?:\w+ )?(?:possible|ok|okay|true|necessary|allowed|"
    r"required|mandatory|safe|free|worth|better|best|easy|hard|legal|normal|common|"
    r"too late|too early)\b|\bit (?:takes?|took|costs?) |\bdoes it (?:take|cost|matter)\b"
    r"|\bhow (?:long|much|many \w+) (?:does|will|would|did) it (?:take|cost)\b",
    re.I,
)
"""An "it" that stands for nothing before it: "is it possible to...", "how long
does it take to..."."""
_ASKS = re.compile(
    r"\b(?:how|what|when|where|who|whom|whose|which|why|is|are|was|were|can|could|do|"
    r"does|did|will|would|should|may|must|has|have)\b",
    re.I,
)
"""A word that makes what follows an ellipsis's opener a question of its own."""


def leans_on_history(question: str) -> bool:
    """Whether a question in a chat cannot be read alone: it opens as an
    ellipsis ("And the Osaka office?", "What about Lisbon?") or points back
    with a personal pronoun ("When did it open?", "How much do they cost?"),
    not the "it" of "is it possible to..." or "how long does it take to...".
    A question that names what it asks about is read as it is."""
    opener = _ELLIPTIC.match(question)
    if opener is not None and not _ASKS.search(question, opener.end()):
        return True  # "And the Osaka office?": what is asked is the last question's
    words = re.findall(r"[A-Za-z']+", question.lower())
    first = next((i for i, w in enumerate(words) if w in _PERSONAL), None)
    if first is None:
        return False
    before = content_terms(" ".join(words[:first]))
    if before and not (len(before) == 1 and words[first:] in _OBJECT_LAST):
        # "Can employees carry over their vacation days?": the question names
        # what its pronoun stands for before it; a verb alone does not ("Who
        # led it?", "Where can I buy them?": the pronoun, last, is its object)
        return False
    pointing = {w for w in words if w in _PERSONAL}
    return not (pointing <= {"it"} and _DUMMY_IT.search(question))


def _not_found(question: str, hits: tuple[Hit, ...]) -> Answer:
    if reads_as_english(question):
        return Answer(question, NOT_FOUND, hits=hits, grounded=False, metadata=dict(_METADATA))
    # "Wie viele Urlaubstage habe ich?": refused for its language, not for the documents
    return Answer(
        question,
        f"{NOT_FOUND} {NOT_ENGLISH}",
        hits=hits,
        grounded=False,
        metadata={**_METADATA, "not_english": True},
    )


class _Found(NamedTuple):
    """A part's answer (or the whole question's), what it says, piece by
    piece with the chunk each quotes (nothing where it is let go), and
    whether it was let go for being about something else."""

    answer: Answer
    said: list[tuple[str, Chunk]]
    let_go: bool


def _part_terms(text: str) -> set[str]:
    """What a question (or a part of it) is about: its content words, not
    what kind of answer it wants ("time" of "what time")."""
    return set(content_terms(TYPE_WORDS.sub("how", main_question(text))))


_SAID_BY_FIGURES = frozenset(
    content_terms(
        "hours times price prices cost costs fee fees number numbers details policy address "
        "date dates day days rate rates charge charges amount"
    )
)
"""Words of a subject that a sentence answering it says by its figures ("your
phone hours": "Our phone line is open 8am to 8pm")."""


def _part_size(text: str) -> int:
    """How many words say what a part is about, a hyphenated one as one
    ("When is check-out?": one)."""
    return len(set(content_terms(TYPE_WORDS.sub("how", main_question(text)).replace("-", ""))))


def _heading_of(chunk: Chunk) -> str:
    """The section and title a chunk's sentences stand under."""
    return " ".join(str(chunk.metadata.get(f, "")) for f in ("section", "title"))


def _of_part(own: set[str], text: str, chunk: Chunk) -> bool:
    """Whether a sentence (or its heading) says a word of what a part itself
    asks (``own``), past the sentences and the opening clause said with it."""
    return not own or bool(own & set(content_terms(f"{text} {_heading_of(chunk)}")))


def _part_covered(part: Part, said: Sequence[tuple[str, Chunk]]) -> int:
    """How many of a part's words its answer says."""
    return len(_part_terms(part.question) & set(content_terms(" ".join(t for t, _ in said))))


def _superseded(
    part: Part, answer: Answer, said: Sequence[tuple[str, Chunk]], hits: Sequence[Hit]
) -> bool:
    """Whether a part answered from a deprecated page alone is about what a
    current page in the hits speaks of ("How much are skis?": the old page's
    £35 where the current one says "Skis and golf clubs cost £45"), which the
    part's words asked alone missed."""
    if not said or not answer.metadata.get("deprecated"):
        return False
    own = _part_terms(part.question)
    return any(
        own <= set(content_terms(hit.chunk.text))
        for hit in hits
        if not is_deprecated(hit.chunk.metadata)
    )


def _keeps_to(
    part: Part,
    said: Sequence[tuple[str, Chunk]],
    parts: Sequence[Part],
    pages: Collection[str],
    hits: Sequence[Hit],
) -> bool:
    """Whether a part's answer, found with the part asked alone, is about
    what the whole question asks: each sentence names the part's subject
    (or sits under a heading that does: "The bar closes at 11pm" is no answer
    to "What time do doors open and close?"), with the names in it on its
    page; and a later part too short to say what it is about ("How do I
    pay?", "Is there parking?") is answered by a sentence that names what
    another part asks about; one of one word ("How much is a session?")
    from a page (``pages``) another part's answer quotes, where one does; one
    of two words ("Can I cancel my card?") from a page that names what
    another part asks about (the gym's page, not the library's)."""
    words = part.subject.split()
    names = set(content_terms(" ".join(w for w in words if w[:1].isupper())))
    codes = [w for w in words if len(w) == 1 and w.isupper()]  # ("Band F": not Band A)
    lower = set(content_terms(" ".join(w for w in words if not w[:1].isupper())))
    # (a subject given to a pronoun needs its head alone: "Student membership
    # costs £25" answers "how much is it for students?" after "adult membership")
    subject = set(content_terms(part.subject)[-1:]) if part.given else lower - _SAID_BY_FIGURES
    own = _part_terms(part.question)
    size = _part_size(part.question)
    others = set().union(*(_part_terms(p.question) for p in parts if p is not part)) - own
    later = part is not parts[0] and bool(others)
    pages_said: dict[str, set[str]] = {}

    def page_of(chunk: Chunk) -> set[str]:
        """The words of a chunk's page: every passage of its document among the hits."""
        if chunk.document_id not in pages_said:
            pages_said[chunk.document_id] = set(
                content_terms(
                    " ".join(
                        _where(h.chunk) for h in hits if h.chunk.document_id == chunk.document_id
                    )
                )
            )
        return pages_said[chunk.document_id]

    for piece, chunk in said:
        heading = _heading_of(chunk)
        near = set(content_terms(f"{piece} {heading}"))
        if not subject <= near:
            return False  # "Children start at Stage 1" to "When does lane swimming start?"
        if names and not names <= page_of(chunk):
            return False  # ("Marks and Spencer gift cards": the names on its page)
        if not all(re.search(rf"\b{code}\b", f"{piece} {heading}") for code in codes):
            return False
        if later and not subject and size <= 1 and not others & near:
            return False  # "Are dogs allowed and how many can I bring?": luggage
        if later and size <= 1 and pages and chunk.document_id not in pages:
            return False  # "What time does the gym open and how much is a session?"
        if later and size <= (1 if subject else 2) and not others & page_of(chunk):
            return False
    return True


def _joined(
    question: str,
    hits: tuple[Hit, ...],
    parts: Sequence[Part],
    found: Sequence[_Found],
    whole: _Found,
) -> Answer:
    """The answers to a question's parts as one: each part's pieces in turn,
    then what the whole question's answer says that they do not (none said
    twice, one set of citation numbers, a deprecated page's notice once). A
    part that nothing answers is said to be unanswered, in the asker's
    words, only where the whole question got no answer either and the part
    names what no passage names ("Is there a *Platinum* plan?", "Does it
    include *SSO*?"): a part's words matched alone miss answers worded
    apart from it ("released within 7 days" to "When do I get it back?"),
    so a part not found is otherwise left unsaid, as the whole question's
    answer would leave it."""
    pieces: list[tuple[str, Chunk, int]] = []  # (what is said, its chunk, whose: -1 the whole's)
    flagged: set[str] = set()  # the deprecated documents, whose notice is said once

    def say(more: Sequence[tuple[str, Chunk]], answer: Answer, whose: int) -> None:
        for text, chunk in more:
            if any(text in said for said, _, _ in pieces):
                continue
            if answer.metadata.get("deprecated"):
                flagged.add(chunk.document_id)
            # ("... £11 a month for cats. It covers boosters ..." in place of its first sentence)
            pieces[:] = [piece for piece in pieces if piece[0] not in text]
            pieces.append((text, chunk, whose))

    for i, f in enumerate(found):
        say(f.said, f.answer, i)
    say(whole.said, whole.answer, -1)
    known = {
        term
        for hit in hits
        for term in content_terms(
            " ".join([hit.chunk.text, *(str(v) for v in hit.chunk.metadata.values())])
        )
    }
    lines: list[tuple[str, Chunk | None]] = []
    rest = [(text, chunk) for text, chunk, whose in pieces if whose == -1]
    for i, (part, f) in enumerate(zip(parts, found, strict=True)):
        lines.extend((text, chunk) for text, chunk, whose in pieces if whose == i)
        if not f.said:  # (what the whole question's answer adds, where a part got nothing)
            lines.extend(rest)
            rest = []
        if f.said or f.let_go or whole.answer.grounded:
            continue
        # (what it asks about, not a condition: "in October", "with Basic fares")
        named = set(content_terms(" ".join(w for w in part.subject.split() if w[:1].isupper())))
        if named - known:
            lines.append((UNANSWERED_PART.format(part=clean(part.asked)), None))
    lines.extend(rest)
    numbers: dict[str, int] = {}
    text = []
    for said, chunk in lines:
        if chunk is None:
            text.append(said)
            continue
        if chunk.document_id in flagged:
            flagged.discard(chunk.document_id)
            said = f"{FROM_DEPRECATED} {said}"
        number = numbers.setdefault(chunk.id, len(numbers) + 1)
        text.append(_with_marker(said, number))
    quotes: dict[str, list[str]] = {}
    for f in (*found, whole):
        for citation in f.answer.citations if f.said else ():
            if citation.chunk_id in numbers:
                segments = quotes.setdefault(citation.chunk_id, [])
                segments.extend(q for q in citation.quote.split(" \u2026 ") if q not in segments)
    citations = _citations(numbers, {chunk.id: chunk for _, chunk, _ in pieces}, quotes)
    metadata: dict[str, object] = {
        **_METADATA,
        "parts": [part.question for part in parts],
        "answered": [bool(f.said) for f in found],
    }
    if any(f.answer.metadata.get("deprecated") and f.said for f in (*found, whole)):
        metadata["deprecated"] = True
    return Answer(
        question=question,
        text=" ".join(text),
        citations=citations,
        hits=hits,
        grounded=True,
        metadata=metadata,
    )


def _citations(
    numbers: Mapping[str, int], chunks: Mapping[str, Chunk], quotes: Mapping[str, Sequence[str]]
) -> tuple[Citation, ...]:
    """A citation for each numbered chunk, quoting the pieces said from it."""
    return tuple(
        Citation(
            number=number,
            chunk_id=chunk_id,
            label=chunks[chunk_id].label,
            source=chunks[chunk_id].source,
            quote=clean(" \u2026 ".join(quotes.get(chunk_id, ()))),
        )
        for chunk_id, number in numbers.items()
    )


def _with_marker(sentence: str, number: int) -> str:
    """``Sentence one.`` -> ``Sentence one [1].``; adds a period where none ends it."""
    match = END_PUNCT.search(sentence)
    if match:
        body = sentence[: match.start()].rstrip()
        return f"{body} [{number}]{match.group(1)}"
    return f"{sentence.rstrip(' :;,')} [{number}]."


# --- terms -----------------------------------------------------------------


def _term_weights(terms: Sequence[str], units: Sequence[_Unit]) -> dict[str, float]:
    """IDF over the units (BM25's form, always positive), halved for generic nouns,
    in the order the question has the terms (ties break the same way every run).

    ``_BACKGROUND`` sentences without any question term are added to the
    count, so that with only a few sentences a word they all share still
    weighs something.
    """
    n = len(units) + _BACKGROUND
    ordered = list(dict.fromkeys(terms))
    wanted = set(ordered)
    df: Counter[str] = Counter()
    for unit in units:
        df.update(wanted & unit.terms)
    weights = {}
    for term in ordered:
        idf = math.log(1.0 + (n - df[term] + 0.5) / (df[term] + 0.5))
        weights[term] = idf * (_GENERIC_WEIGHT if term in GENERIC_STEMS else 1.0)
    return weights


# --- sentences ---------------------------------------------------------------


@dataclass(frozen=True)
class _Unit:
    text: str
    chunk: Chunk
    rank: int
    position: int
    answer: bool
    terms: frozenset[str]
    context: frozenset[str]
    """The words of the heading it sits under (and of its table's columns)."""
    weight: float = 1.0
    heading: str = ""
    """The text of the heading the unit sits under (in its chunk, else the
    last part of the chunk's ``section``)."""
    release: str = ""
    """The release heading the unit is an item of (``3.1.0 (2026-02-02)``),
    past the change-type headings of a changelog (``### Added``)."""
    released: str = ""
    """The line just under a release heading that says when it came out, or
    that it has not (``Released 2026-05-11``, ``Unreleased``), as Flask's and
    Click's changelogs write it under ``Version 2.4.0``."""
    lead: bool = False
    """Quoted after its release heading (``3.1.0 (2026-02-02): Added dark mode.``):
    the heading holds what the question asks and the unit does not."""
    pieces: tuple[str, ...] = ()
    """The sentences a joined unit is made of, each verbatim in the chunk (its
    ``text`` joins them with a space, which the chunk may not have)."""
    reply: str = ""
    """A bare "Yes." or "No." just before it: quoted first when the question
    asks yes or no."""
    kind: str = ""
    """``sentence``, ``bullet``, ``row``, ``header``, ``heading`` or ``code``."""
    columns: tuple[str, ...] = ()
    """A table row's header row (its column names, in their places), when it has one."""
    cells: tuple[str, ...] = ()
    """A table row's cells in their places, empty ones included."""
    subject: str = ""
    """The bold name a paragraph opens with (``**Kelsworth Central** is at
    ...``), for each of its sentences: what they are about."""
    outer: frozenset[str] = frozenset()
    """The words of every heading it sits under, the outermost too (``#
    Per-diem`` > ``## 2025 rates``), without a table's column names."""
    step: str = ""
    """A procedure's step number as its list writes it (``2.``), said before it."""


_TIME_OFF = re.compile(
    r"\b(?:time off|days off)\b(?!\s+(?:for|to|because|when|if|after|during|around|in lieu)\b)"
    r"(?![^?]*\b(?:sick|ill|illness|parental|maternity|paternity|baby|bereavement|funeral"
    r"|wedding|moving|jury|study|medical|doctor)\b)",
    re.IGNORECASE,
)
"""Time off asked without a reason: a holiday ("How much time off do I get?")."""
_HOLIDAY = frozenset(stem(word) for word in ("holiday", "vacation", "annual", "leave"))

_NO_COST = re.compile(
    r"\b(?:at|for|with)\s+no\s+(?:extra\s+|additional\s+)?(?:cost|charge|fee)\b"
    r"|\bfree of charge\b|\bcosts? nothing\b|\bat no cost\b",
    re.IGNORECASE,
)
"""What says a thing is free without the word: "included at no extra cost"."""
_FREE = stem("free")

_FIELDS = re.compile(r"^[a-z][\w ]{0,40}: \S", re.MULTILINE)
"""A field of a record as the records loaders write it (``field_labels``)."""


def _record_fields(unit: _Unit) -> tuple[str, list[str]] | None:
    """A record's title line and its field lines (``method: Express``), verbatim,
    when ``unit`` is one of its fields and the record is short; else None."""
    chunk = unit.chunk
    if chunk.metadata.get("record_id") is None or not _FIELDS.match(unit.text):
        return None
    lines = [line.strip() for line in chunk.text.splitlines() if line.strip()]
    fields = [line for line in lines if _FIELDS.match(line)]
    if (
        unit.text not in fields
        or len(fields) > _RECORD_FIELDS
        or sum(len(f) for f in fields) > _RECORD_CHARS
    ):
        return None
    head = lines[0] if lines[0] not in fields else ""
    return head, fields


_RECORD_FIELDS = 12
_RECORD_CHARS = 400
"""The most fields, and characters, a record may have to be said whole (a
price list's row, not an FAQ record's answer)."""


def _column_terms(text: str) -> frozenset[str]:
    """The words of a table's column names, a snake_case one's parts too
    (``price_usd`` is a price, ``oven_safe_f`` says oven-safe)."""
    return frozenset(content_terms(text)) | frozenset(content_terms(text.replace("_", " ")))


def _units_of(hits: Sequence[Hit]) -> list[_Unit]:
    """The quotable units of the hits: sentences, bullets, table rows, code
    lines. A sentence leaning on the one before (``It costs $199/month``) is
    quoted with it, never alone: the unit is both sentences."""
    units: list[_Unit] = []
    seen_chunks: set[str] = set()
    for rank, hit in enumerate(hits):
        chunk = hit.chunk
        if chunk.id in seen_chunks:
            continue
        seen_chunks.add(chunk.id)
        section = chunk.metadata.get("section")
        context = frozenset(content_terms(section)) if isinstance(section, str) else frozenset()
        # and what its front matter says it is of ("office: Singapore" over
        # "## Parking": the parking is the Singapore office's)
        fields = _fields_of(chunk)
        under = context  # the headings' words, without a table's column names
        # the headings the text sits under, outermost first, by level: a
        # "## 2025 rates" in the chunk is read under its "# Per-diem"
        path = [
            (_level_of(chunk.text, part) or number + 1, frozenset(content_terms(part)))
            for number, part in enumerate(section.split(" > ") if isinstance(section, str) else ())
        ]
        outer = under
        heading = section.rpartition(" > ")[2].strip() if isinstance(section, str) else ""
        release = _release_of(section) if isinstance(section, str) else ""
        release_level = 0  # its heading's level, where the chunk's text shows it
        released = ""
        # the next line may say when the release came out: at the chunk's top
        # (its heading in the section path) or just under its heading
        under_release = bool(release)
        previous: _Unit | None = None  # the sentence before, in this block
        # the header row of the table a row is in: the chunk's own, or, for a
        # chunk that starts deep in a long table, the one the chunker noted
        columns = header_cells(chunk.metadata.get("table_header"))
        if columns:  # its rows are read under the column names, as below a header
            context = under | _column_terms(" ".join(columns))
        if chunk.metadata.get("record_id") is not None and _FIELDS.search(chunk.text):
            # a record of a table (the csv or jsonl loader's "method: Express"
            # lines under its title): each field is read with the others, as a
            # row's cell is with its row ("delivery_time: 3-4 business days"
            # says how long Express takes to Canada)
            context = under = under | _column_terms(chunk.text)
        subject, cursor = "", 0  # the paragraph's bold lead, and where the last unit was
        if _source_code(chunk):
            # a source file's lines are code, not a paragraph of sentences (a
            # whole function quoted as one); its docstrings and comments too
            split = [(line, kind, ()) for line, kind in _source_lines(chunk.text)]
        else:
            split = split_sentences(chunk.text, cells=True)
        for position, (text, kind, cells) in enumerate(split):
            found = chunk.text.find(text[:40], cursor)
            if found >= 0:
                # (a list item's sentences are its own: "- **Marta** ... Works ...")
                if _PARAGRAPH_BREAK.search(chunk.text, cursor, found) or kind != "sentence":
                    subject = ""
                cursor = found + len(text[:40])
            if kind in {"sentence", "bullet"} and not subject:
                lead = _BOLD_LEAD.match(text)
                subject = lead.group(1) if lead else ""
            terms = _column_terms(text) if kind == "header" else frozenset(content_terms(text))
            is_question = kind in {"sentence", "bullet"} and text.rstrip("\"')]*_ ").endswith("?")
            answer = (
                kind in {"sentence", "bullet", "row", "code"}
                and not is_question
                and bool(terms)
                and not only_links(text)
                and not _ATTRIBUTION.match(text)
            )
            weight = _CODE_WEIGHT if kind == "code" else 1.0
            was_under_release, under_release = under_release, False
            if kind == "heading" or is_question:
                heading = text.lstrip("#").strip()
                level = _level_of(chunk.text, heading) if kind == "heading" else 0
                if is_release_label(heading):
                    release, release_level, released = heading, level, ""
                    under_release = True
                elif not _change_type(heading) or (level and level <= release_level):
                    # another section (a "## Security" beside "## 0.9.0"
                    # too): its items are no release's
                    release = released = ""
            elif len(text) <= _LABEL_CHARS:
                bare = _MARKUP.sub("", text).strip()
                if was_under_release and _says_released(bare, release):
                    # "Version 2.4.0" / "Released 2026-05-11": one release (the
                    # line answers "when was 2.4.0 released?", after its heading)
                    released = bare
                elif is_release_label(bare):
                    # a release line that is not a Markdown heading ("**3.3.0
                    # (2026-06-01)**", "<h2>3.4.0</h2>", a setext heading): the
                    # release of what follows, never stale
                    heading = release = bare
                    release_level, released = 0, ""
                elif _PSEUDO_HEADING.match(text):
                    # "**Upgrade notes**": a heading but for its syntax
                    heading = bare
                    if not _change_type(heading):
                        release = released = ""
            if kind == "heading" and release == heading and _dated_release(heading, chunk):
                # "## 2.3.1 - 2026-06-02" says when 2.3.1 was released, as a
                # "Released 2026-06-02" line under "## Version 2.3.1" does
                answer, terms = True, terms | _RELEASED_TERMS
            # an item of a release is read under it, where a change-type
            # heading ("### Fixed") came between or the chunk starts below it
            # ("What changed in 2.4.0?", "When was 2.1.0 released?")
            of_release = (
                _release_terms(release, released) if release and kind != "heading" else frozenset()
            )
            unit = _Unit(
                text,
                chunk,
                rank,
                position,
                answer,
                terms,
                context | of_release | fields,
                weight,
                heading,
                release,
                released,
                kind=kind,
                columns=columns if kind == "row" else (),
                cells=cells,
                subject=subject if kind in {"sentence", "bullet"} else "",
                outer=outer,
            )
            anaphoric = kind in {"sentence", "bullet"} and is_anaphoric(text)
            if kind == "sentence" and previous is not None and _BARE_YES_NO.match(previous.text):
                # "No. Tessera is only offered as a hosted service.": the
                # reply to a yes/no question stays with what it says (and a
                # pronoun after it leans on the FAQ question, not on the "No.")
                unit = replace(unit, reply=previous.text)
            elif anaphoric:
                if previous is not None and previous.text.count(". ") < _MAX_JOINED - 1:
                    unit = replace(
                        unit,
                        text=f"{previous.text} {text}",
                        position=previous.position,
                        terms=terms | previous.terms,
                        pieces=(*(previous.pieces or (previous.text,)), text),
                    )
                elif not context and opens_with_anaphor(text):
                    # nothing resolves it, not even a heading: never alone
                    unit = replace(unit, answer=False)
                elif opens_with_anaphor(text) and heading and not unit.subject:
                    # the heading resolves it ("### Zone C" / "It was introduced
                    # in April 2023"): it is what the sentence is about
                    unit = replace(unit, subject=heading)
            units.append(unit)
            if kind == "header":
                columns = cells
            elif kind != "row":
                columns = ()
                context = under  # past the table, its column names say nothing
            if kind == "heading" or is_question:
                context = under = terms
                previous = None
                if kind == "heading":  # below the headings above it, by level
                    at = level or _UNKNOWN_LEVEL
                    path = [(above, words) for above, words in path if above < at]
                    if path and _YEAR.search(heading):
                        # a heading that dates its section ("## 2025 rates")
                        # is read with the one it is a part of ("# Per-diem")
                        context = under = terms | path[-1][1]
                    path.append((at, terms))
                    outer = frozenset().union(*(words for _, words in path))
            elif kind == "header":
                # a row is read under its table's heading and its column names
                # ("Harnmouth – Orsay" above "Ticket | Single fare")
                context = under | terms
                previous = None
            elif kind in {"sentence", "bullet"}:
                previous = unit
            else:
                previous = None
    return units
