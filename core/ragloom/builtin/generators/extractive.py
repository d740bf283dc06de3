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

This module reads the question and scores and picks the units; its helpers
live beside it, one job each: ``_units`` (the units and their weights),
``_structure`` (lists, steps, tables, headings), ``_siblings`` (sentences
of one shape that tell things apart), ``_subjects`` (what a question is
about), ``_groups`` (whom a sentence is for), ``_prices`` and ``_rivals``
(what is priced, and another thing's price), ``_polarity`` (conditions and
negations), ``_releases`` (changelogs), ``_parts`` and ``_joining`` (a
question of two parts), ``_spelling`` (slips of typing), ``_history``
(follow-ups in a chat), ``_saying`` (how a chosen unit is said),
``_columns`` (which of a row's columns are said), ``_sums`` (a sum said
instead of another, a sum added to a price), ``_roles`` (who holds a role),
``_messages`` (what is said when nothing answers, and how a slip was read).
What they read in a question and a sentence: ``_questions`` (its form),
``_names`` (the names it says and their rivals), ``_kinds`` and
``_figures`` (the kind of answer asked, and whether a sentence gives one),
``_people``, ``_measures``, ``_versions``, ``_kind_words``, ``_places``,
``_current`` (deprecated pages) and ``_text`` (words, stems, sentences).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from pydantic import Field, field_validator

from ...components import ComponentConfig, Generator, Message
from ...types import Answer, Chunk, Hit
from ._bounds import with_exceptions, with_other_side
from ._columns import (
    _MONTH_TERMS,
    _month_span,
    asked_months,
    days_said,
    label_months,
)
from ._current import asks_of_old, is_deprecated, old_words
from ._fees import _fee_kinds, _no_such_fee, _of_another_fee
from ._figures import MONEY_FIGURE, fits_kind, given_figures
from ._groups import (
    _GROUP,
    _MEASURED,
    _OLDEST,
    _ONLY,
    _QUALIFYING,
    _age_bands,
    _counts,
    _covers,
    _for_another_group,
    _group_phrases,
    _groups_in,
    _numbered,
    _overlaps,
    _same_group,
    _says_of,
)
from ._history import FOLLOW_UP, leans_on_history
from ._hours import (
    _DAYS_ONLY,
    _HOURS,
    _HOURS_LINE,
    _HOURS_SPAN,
    _LABEL_WORDS,
    _OF_OPENING,
    _OPEN,
    _OPENED,
    _OPENING_WORDS,
    _OPENS,
    _OPENS_OR_CLOSES,
    _OWN_SUBJECT,
    _REOPENS,
    _SHUTS,
)
from ._joining import (
    _citations,
    _Found,
    _joined,
    _keeps_to,
    _of_part,
    _part_covered,
    _part_terms,
    _superseded,
    _with_marker,
)
from ._kind_words import (
    acronyms,
    asked_kinds,
    expands,
    kinds_of,
    kinds_priced,
    names_other_kind,
    of_another_of_kind,
    of_kinds_asked,
    priced_itself,
    unknown_acronym,
    unknown_kind,
)
from ._kinds import ANY_LEAVE, LEAVE_KINDS, answer_kind, counted_kind, counted_thing
from ._measures import (
    as_measured,
    band_of,
    holds_measure,
    leaves_out_measure,
    measure_words,
    measured_values,
    measures_another,
    prices_another_period,
)
from ._messages import (
    _METADATA,
    FROM_DEPRECATED,
    NOT_ENGLISH,
    NOT_FOUND,
    READ_AS,
    UNANSWERED_PART,
    _not_found,
    with_readings,
)
from ._names import entities, in_passage_words, mentions, proper_words, rivals, said_as_written
from ._parts import question_parts
from ._people import (
    INSIDERS,
    OUTSIDERS,
    STAFF,
    ages_of,
    asked_age,
    asker,
    holds_age,
    of_another_age,
    payer,
    receiver,
)
from ._places import (
    as_written,
    left_out,
    origins,
    place_forms,
    places_in,
)
from ._polarity import (
    _RULE,
    _denies,
    _free_of,
    _negates,
    _only_another,
    _opposes,
    _rules_another_verb,
    _rules_on,
)
from ._prices import (
    _GENERIC_ASKS,
    _PAY,
    _PAYING,
    _PRICE_NOUNS,
    _TWO_QUESTIONS,
    _amounts,
    _bare_price,
    _bounds_leave_out,
    _kinds_said,
    _may_price,
    _Priced,
    _priced_thing,
    _prices_for_another,
    _same_kind,
    _same_things,
    _says_kind,
    _sentences_before,
)
from ._questions import (
    TYPE_WORDS,
    as_can,
    is_list_question,
    is_yes_no,
    main_question,
    question_verb,
    two_parts,
)
from ._rivals import _FIRST_VERB, _prices_another, _row_of_another
from ._roles import _of_another, _page_terms, _said, _written_out_elsewhere, asked_role, holds_role
from ._saying import unit_said
from ._siblings import (
    _SIBLING_KINDS,
    _WHAT_IS,
    _replies_to,
    _twins,
    _with_qualifier,
    _with_siblings,
)
from ._spelling import as_spelled, readings
from ._structure import (
    _HOW_TO,
    _heading_answers,
    _heading_names,
    _heading_of_another,
    _labelled_by,
    _names_row,
    _procedure,
    _table_of,
    _with_items,
    _with_what_follows,
)
from ._subjects import (
    _IDENTIFIER,
    _about,
    _ambient,
    _another_size,
    _asked_head,
    _documents_naming,
    _doing_subject_terms,
    _for_each_place,
    _has_identifier,
    _knows,
    _modifier_terms,
    _names_version,
    _of_a_sibling,
    _of_another_model,
    _of_years,
    _parallel_labels,
    _place_fit,
    _said_by,
    _same_places,
    _sized_names,
    _subject_compound,
    _subject_terms,
    _told_apart,
)
from ._sums import (
    _ADDED_SUM,
    _ADDED_WORDS,
    _PRICE_WORDS,
    _WHEN_WORDS,
    _figure_units,
    _instead_of,
    _priced_elsewhere,
    _prices_outright,
    _with_rules,
)
from ._text import (
    GENERIC_STEMS,
    TOKEN,
    content_terms,
    reads_as_english,
    split_sentences,
    stem,
)
from ._units import (
    _at,
    _column_terms,
    _covered,
    _record_fields,
    _term_weights,
    _Unit,
    _units_of,
    _where,
    _without_between,
)
from ._versions import YEAR as _YEAR
from ._versions import asks_version, asks_when, versions_in

__all__ = [
    "FROM_DEPRECATED",
    "NOT_ENGLISH",
    "NOT_FOUND",
    "READ_AS",
    "UNANSWERED_PART",
    "ExtractiveGenerator",
    "split_sentences",
    "stem",
]
_RANK_BONUS = 0.05
_HAPPEN = frozenset(stem(w) for w in ("happen", "happens", "happened"))
"""How a question asks what is done ("What happens to ...?"), not what of."""
_VERDICT = re.compile(r"(?:yes|no)\b\s*[,;:\u2014\u2013-]", re.IGNORECASE)
"""A reply that opens with its yes or no ("Yes, but ...", "No - ...")."""
_NEW_PART = 0.2
"""A further sentence must answer this share of the question the chosen ones leave."""
_ENTITY_WEIGHT = 0.5
_KEY_SHARE = 0.8
"""A yes/no answer must hold every asked word weighing this share of the rarest."""
MAX_UNIT_CHARS = 1000
_HOLDS = frozenset(
    stem(w)
    for w in ("seat", "seats", "hold", "fit", "accommodate", "take", "sleep", "people", "guests")
)
"""What "how many ... can it seat?" asks, which a capacity says."""
_CAPACITY = stem("capacity")
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
_STATUS_CODE = re.compile(
    r"(?<![\d.,$€£])\b([1-5]\d\d)\s+(?:errors?|responses?|status\s+codes?)\b"
    r"|\b(?:HTTP|errors?|status(?:\s+codes?)?)\s+([1-5]\d\d)\b(?![\d.,])",
    re.IGNORECASE,
)
"""A status code a question names ("a 503 error", "HTTP 429"): a name, not a figure."""

_ITEM_LABEL = re.compile(r"([A-Z][\w ,/'’()-]{1,48}?):\s+\S")
"""An item's label before a colon ("Chickenpox: your child must stay away ..."):
what the item is of, as a table row's first cell is."""


def _says_code(unit: _Unit, codes: set[str]) -> bool:
    """Whether a unit says one of the status codes, or its class ("Retry all
    5xx errors" says 503)."""
    return bool(codes & unit.terms) or any(
        re.search(rf"\b{code[0]}xx\b", unit.text, re.IGNORECASE) for code in codes
    )


def _of_a_rival(text: str, names: Sequence[str], rival: set[str]) -> bool:
    """Whether a sentence's subject (its words before the verb) is a rival of
    the names asked, and none of them: "The AP Southeast region is ..." to
    a question about the EU Central region and the Starter plan."""
    if len(names) < 2:
        return False
    verb = _FIRST_VERB.search(text)
    subject = text[: verb.start()] if verb else ""
    return any(mentions(subject, other) for other in rival) and not any(
        mentions(subject, name) for name in names
    )


_NOT_ITEM_LABELS = frozenset(
    stem(word)
    for word in ("note", "tip", "answer", "question", "step", "important", "warning", "example",
                 "update", "summary", "reminder", "q", "a")
)  # fmt: skip


def _names_an_item(label: str, asked: set[str]) -> bool:
    """Whether a label before a colon names another item than the question's:
    some thing ("Vomiting and/or diarrhoea"), none of whose words is asked;
    not a step or a note ("Step 4", "Tip")."""
    terms = {t for t in content_terms(label) if not any(ch.isdigit() for ch in t)}
    if not terms or terms <= _NOT_ITEM_LABELS:
        return False  # ("Step 4", "Tip", "Q1")
    return not terms & asked


_CLOCK = re.compile(r"\b(\d{1,2})[:.](\d\d)\b")

_NEGATED_ASKED = re.compile(
    r"\b(?:not|never|cannot|\w+n't)\s+(?:(?:i|we|you|they|he|she|it|be|been)\s+)*([\w-]+)",
    re.IGNORECASE,
)
"""The doing a question asks of as not done ("What can't I *bring*?")."""
_EXCEPT = re.compile(
    r"\b(?:except|excepting|excluding|but not|other than|apart from|save for)\b", re.IGNORECASE
)


_CONDITION_CLAUSE = re.compile(r"\b(?:if|unless|in case)\s+([^,]+)", re.IGNORECASE)
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
    stem(w)
    for w in (
        "back", "up", "out", "off", "away", "down", "along", "halfway", "again",
    )
)  # fmt: skip
_FRAME = frozenset(stem(w) for w in ("eligible", "entitled"))
"""How a yes/no question asks, not what about: "Am I eligible for free
prescriptions?" is answered by "You get free prescriptions if ..."."""
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


_ASKS_OF_PAST = re.compile(
    r"^\s*(?:(?:what|how\s+much|how\s+many|which|who|when|where)\b[^?]*?\s)?"
    r"(?:was|were|did)\b[^?]*\b(?:in|during|for)\s+(?:19|20)\d\d\b",
    re.IGNORECASE,
)
"""A question of what was in a year ("What was the price ... in 2022?")."""
_ATTEMPT = re.compile(
    r"\s*(?:(?:the|a|an|one|our)\s+)?(?:user|customer|client|caller|requester|guest|patient"
    r"|member|employee|someone|he|she)\s+"
    r"(?:tried|attempted|wanted|wished|asked|requested|hoped)\s+(?:to|for)\b"
    r"(?![^.]*(?:;|\bbut\b|\brefused\b|\bdenied\b|\brejected\b|\bdeclined\b|\bapproved\b"
    r"|\bnot\b|n't\b|\bcannot\b|\bonly\b))",
    re.IGNORECASE,
)
"""A ticket's line that someone tried or asked to do a thing, and no more
("User tried to print in colour in Singapore."; not "Customers who asked
for a refund get ...", "Guests are asked to ...", nor "... but the largest
room holds 20"): whether one can is said after it."""
_DONE_ONCE = re.compile(
    r"(?:Requested|Delivered|Closed|Replaced|Reported|Escalated|Reopened|Refunded|Shipped"
    r"|Approved|Denied|Assigned|Completed)\s+(?:a|an|the|by|in|on|at|for|from|with|after|via"
    r"|\d)\b[^,;]*$"
)
"""A log's line of what was done once, its verb first and no clause of its
own after it ("Requested a ThinkPad X1 Carbon for a new engineer.",
"Delivered in 4 days."; not "Approved by your manager, the request goes
to IT")."""


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
        hits = tuple(hits)
        answer = self._by_parts(question, hits, history)
        # (how it read the question's slips of typing, said: "Tarbet" may be
        # a place the passages do not know, and not "Tarbert")
        return with_readings(answer, readings(question, [hit.chunk.text for hit in hits]))

    def _by_parts(self, question: str, hits: tuple[Hit, ...], history: Sequence[Message]) -> Answer:
        """The answer, each part of a question of several answered alone."""
        parts = question_parts(question)
        if len(parts) < 2 or (history and leans_on_history(question)):
            return self._answer(question, hits, history, [])
        # "What is the resit fee and when is the resit deadline?": each part
        # answered alone (one sentence need not cover both); the question
        # answered whole too, as a floor: what it says is never left out
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
        # its slips of typing as the passages spell the word ("anual leave in
        # Torronto"), the places it names as they write them ("the US" -> "the
        # United States"); the answer keeps the question as asked
        worded = said_as_written(as_written(as_spelled(question, texts), texts), texts)
        # ("Am I allowed to use a paddleboard?" asks whether I can)
        worded = as_can(worded)
        names = entities(worded, texts)
        # read in the passages' words for what it names ("the Office plan" ->
        # "the Office subscription")
        read = in_passage_words(worded, names, texts)
        terms = as_measured(content_terms(TYPE_WORDS.sub("how", read)), read, texts)
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
            if not all(
                # ("CEO": "Chief Executive Officer")
                _knows(known, name) or expands(name, "\n".join(texts))
                for name in asked_names
            ) or not all(_has_identifier(known, name) for name in identifiers):
                return _not_found(question, hits)
        # "a corporate membership" where the passages know membership but
        # never "corporate": what they say of membership answers another question
        headings = [str(h.chunk.metadata.get(f, "")) for h in hits for f in ("section", "title")]
        if unknown_kind(read, [*texts, *headings]) or unknown_acronym(read, [*texts, *headings]):
            return _not_found(question, hits)
        # "fares in 2024" where the passages name no 2024 (their fares are 2025's)
        years = set(_YEAR.findall(read))
        # ("What was the price ... in 2022?", "How much did it cost in 2023?")
        asks_of_past = bool(years) and _ASKS_OF_PAST.search(main_question(read)) is not None
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
        measured_any = measured_values(read)
        measured = measured_any & set(terms)  # ("a 12 m boat", "150 g/km")
        # (the words of its condition beside the figure: "if I live 10 miles away")
        beside_measure = measure_words(read) if yes_no and measured_any else set()
        age, age_terms = (said_age.figure, said_age.terms) if said_age else ("", set())
        # (a status code is no mere figure: "Should I retry a 503 error?")
        codes = {a or b for a, b in _STATUS_CODE.findall(read)}
        if yes_no and any(not t.isdigit() for t in terms):  # (an age is no mere figure)
            terms = [
                t
                for t in terms
                if not t.isdigit() or t in clock or (said_age and t == age) or t in codes
            ]
        if yes_no:
            # ("eligible", "entitled": how it asks, not what about)
            terms = [t for t in terms if t not in _FRAME] or terms
        if age in terms:
            terms = [t for t in terms if t == age or t not in age_terms]
        if any(is_deprecated(u.chunk.metadata) for u in units):
            # "the previous policy" says which page, not what it says
            which = {stem(w) for w in old_words(read)}
            terms = [t for t in terms if t not in which] or terms
        # "Vehicles must check in 40 minutes before" says it of a car too
        # (and the thing's word weighs as the pages' word for its kind: "Younger
        # children" speak of a son, though not of every one)
        weights = _term_weights(terms, of_kinds_asked(units, set(terms), some=True))
        units = of_kinds_asked(units, set(terms))
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
        # (the most specific word is one a key may be: not a condition's, "Is there a
        # discount if I pay annually?" asks of a discount)
        top = max(
            (w for t, w in asked.items() if t not in day_part and t not in conditional),
            default=0.0,
        )
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
        # (what the question names that no passage says: "measles")
        unsaid = {
            t
            for t in question_terms
            if not t.isdigit()
            and t not in GENERIC_STEMS
            and not any(t in u.terms or t in u.context for u in units)
        }
        months = asked_months(read)
        # ("on Saturdays"; a yes/no question's other days may say no)
        asked_days = days_said(read) if not yes_no else None
        # ("How much is the *monthly* fee?": the kind of fee asked)
        fee_kinds = _fee_kinds(read) if kind in {"money", "much"} else set()
        # (the days each unit names, read once: a page that names the day asked
        # tells a unit of other days from a list of the days it is open)
        days_of = (
            {_at(u): days_said(" | ".join((u.text, *u.cells))) for u in units} if asked_days else {}
        )
        named_days = frozenset().union(*(days or () for days in days_of.values()))
        # ("When is it open?", "What time does it close?"; not "When is it
        # closed?", which asks the days it is)
        opens_or_closes = {stem(w.lower()) for w in _OPENS_OR_CLOSES.findall(read)}
        asked_acronyms = acronyms(read)
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
        # ("What *happens* to collections due on 25 December 2026?" asks what is done)
        beyond = (
            [t for t in asked if t not in years and t not in named and t not in _HAPPEN]
            if years
            else []
        )
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
        # ("What time does the *café* open?", where a section is the café's: the
        # hours of another section are another thing's; but a page's own
        # subject, "the centre", need not be said)
        done_by = _doing_subject_terms(read) - named
        if done_by & {t for u in units for t in content_terms(u.heading)}:
            said_of |= done_by
        # ("When is the *complaints* line open?": not the claims line)
        compound = _subject_compound(read)
        if compound is not None and compound[0] & named:
            compound = None  # (a name says which: "When is the Harbour Café open?")
        parallel = _parallel_labels(units, compound) if compound is not None else []
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
        # the thing a yes/no question's verb acts on is a word the answer says
        # ("Can you repair my e-bike *battery*?": not "We repair e-bikes")
        thing_head = said_verb.head if said_verb else None
        if (
            thing_head is not None
            and thing_head in asked
            and thing_head not in keys
            and thing_head not in GENERIC_STEMS
            and thing_head not in conditional
            and not thing_head.isdigit()
            # (a common noun the pages write: not a product's name, "tallybird")
            and any(
                word[0].islower() and stem(word) == thing_head
                for text in texts
                for word in TOKEN.findall(text)
            )
        ):
            keys.append(thing_head)
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
        # what a question asks of as not done ("When is fishing *not allowed*?"):
        # a sentence that says it is done says the other case
        denied_asked = (
            {stem(m.group(1).lower()) for m in _NEGATED_ASKED.finditer(read)} & set(weights)
            if not yes_no
            else set()
        )
        # (the things a page prices in their own words: "Dogs cost £25 per
        # night", which "Pets cost £15" beside it does not price)
        itself = (
            priced_itself((u.text for u in units if fits_kind("money", u.text)), set(terms))
            if kind in {"money", "much"}
            else set()
        )
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
            if yes_no and codes and not _says_code(unit, codes):
                continue  # (of another status: "Any other status ... counts as a failed delivery")
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
            # (and "How much does the Double cost?": its row's "Weekday rate:
            # £119" prices it, where a sentence that prices would say so)
            # (a row that says all else the question names, itself or by its
            # headings and title: not "Comb binding" to "spiral binding", nor
            # "Helmet" to "a lost helmet"; but for the units of its figures, "3 kg")
            implied_here = implied | (
                question_terms & _PRICE_WORDS
                if kind == "money"
                and unit.kind == "row"
                and not question_terms
                - implied
                - _PRICE_WORDS
                - _WHEN_WORDS
                - GENERIC_STEMS
                - _figure_units(read)
                - unit.terms
                - unit.context
                - unit.outer
                - frozenset(content_terms(str(unit.chunk.metadata.get("title", ""))))
                else set()
            )
            beside = question_terms - implied_here
            if (
                implied_here - unit.terms
                and (kind != "money" or (unit.terms | unit.context) & beside)
                and (
                    fits_kind(kind, unit.text)
                    if kind != "money"
                    else fits_kind("money", unit.text if asks_share else _SHARE.sub(" ", unit.text))
                )
            ):
                unit = replace(unit, terms=unit.terms | implied_here)
            # "Who is the CEO?": "Ruth Okonjo — Chief Executive Officer" says it
            written_out = {a.lower() for a in asked_acronyms if expands(a, _said(unit))}
            if written_out - unit.terms:
                unit = replace(unit, terms=unit.terms | written_out)
            if fee_kinds and _of_another_fee(unit, fee_kinds):
                continue  # "a one-off joining fee of £25" is no monthly fee
            if (
                asked_days
                and (said_days := days_of[_at(unit)]) is not None
                and not asked_days & said_days
                and _DAYS_ONLY.search(unit.text) is None  # ("on Sundays only": not then)
                and named_days & asked_days
            ):
                # "It opens at 8am on weekdays" says not when the café opens on
                # Saturdays, where a page names Saturday (a list of the days it
                # is open, where none does, says it is closed then)
                continue
            if (
                opens_or_closes
                and not yes_no
                and not two_parts(read)
                and kind in {"clock", "time"}
                and not (opens_or_closes | _OPEN | _HOURS) & (unit.terms | unit.context)
                and _HOURS_SPAN.search(unit.text) is None
                and _OPENING_WORDS.search(" ".join((unit.text, *unit.columns))) is None
            ):
                continue  # "Children leave the museum at 3pm" says not when it closes
            season = (
                label_months(unit.cells[0])
                if months and unit.kind == "row" and unit.cells
                else frozenset()
            )
            if season and not months & season:
                continue  # "September to October | 8am to 5pm" is no hour of November's
            if season and months <= season:
                # ("in December": a row of "November to February" says it)
                unit = replace(unit, terms=unit.terms | (question_terms & _MONTH_TERMS))
            # "a Saturday wedding in June": a column of "May – September" prices June
            if (
                unit.kind == "row"
                and kind in {"money", "much"}
                and months
                and months <= set().union(*(_month_span(c) for c in unit.columns))
            ):
                unit = replace(unit, terms=unit.terms | (question_terms & _MONTH_TERMS))
            # "how many people can the Wheelhouse seat?": a capacity says it
            seats = question_terms & _HOLDS if kind == "count" else set()
            if seats and _CAPACITY in unit.terms | unit.context:
                unit = replace(unit, terms=unit.terms | seats)
            # "the office hours": "open from 09:00 to 18:00" says them (and
            # "when is it open?": "Hours: Mon–Fri 9am–5pm")
            # (of what else the question names: "The London office is open from
            # 8am to 7pm" says not when the museum closes)
            hours = question_terms & _HOURS
            if (
                opens_or_closes
                and (question_terms - _HOURS - _OPEN - GENERIC_STEMS - _MONTH_TERMS)
                & (unit.terms | unit.context | unit.outer)
                # (hours of opening, or a line of hours alone, "Bar: 12pm–11pm":
                # not "Pay and display charges apply 8am–6pm")
                and (
                    _OF_OPENING.search(" ".join((unit.text, unit.heading, *unit.columns)))
                    is not None
                    or len(TOKEN.findall(_HOURS_LINE.sub(" ", unit.text))) <= _LABEL_WORDS
                )
                # (of what it names: "The shop is open daily" under "# Museum"
                # says not when the museum closes)
                and not (
                    (own := _OWN_SUBJECT.match(unit.text)) is not None
                    and not set(content_terms(own.group(1))) & question_terms
                )
            ):
                hours |= opens_or_closes
            if hours and not hours <= unit.terms and _HOURS_SPAN.search(unit.text):
                unit = replace(unit, terms=unit.terms | hours)
            shut = opens_or_closes - _OPENED
            if shut and not shut <= unit.terms and _SHUTS.search(unit.text):
                unit = replace(unit, terms=unit.terms | shut)  # ("The shop shuts at 8pm")
            if _OPENS in question_terms and _REOPENS in unit.terms:
                unit = replace(
                    unit, terms=unit.terms | {_OPENS}
                )  # ("... and reopens on 2 January")
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
            # (the cells that are bands holding the question's figure, read once)
            holding = [
                i for i, cell in enumerate(unit.cells) if measured_any and holds_measure(cell, read)
            ]
            if holding and measured:
                # "a 12 m boat" is said by the row of "10 m to 14 m", and by
                # its column's name ("Boat length")
                band_column = unit.columns[holding[0]] if holding[0] < len(unit.columns) else ""
                unit = replace(unit, terms=unit.terms | measured | set(content_terms(band_column)))
            # (the text whose age bands are the unit's: its own, or the sentence's before it)
            aged = ages_of(unit, units) if said_age else unit.text
            if said_age and age in weights:
                # the age is said by a band that holds it, not by a figure ("£4.00")
                held = holds_age(" | ".join((aged, *unit.columns)), said_age.months)
                unit = replace(unit, terms=(unit.terms | {age}) if held else (unit.terms - {age}))
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
            if unit.kind == "row" and of_another_of_kind(unit.cells, question_terms):
                continue  # "Worming tablet | dog | £11" is no rabbit's price
            if sized and _another_size(unit.text, sized):
                continue  # "the 24 cm Ceramic Pro does not work" says nothing of the 28 cm
            if yes_no and _of_another_model(unit, names):
                continue  # "The wok TT-32-CS works on induction" to "Does the Ceramic Pro ...?"
            if how_to and _DONE_ONCE.match(unit.text):
                continue  # "Requested a ThinkPad for a new engineer": a ticket's log, no how-to
            if yes_no and measured_any and any(leaves_out_measure(c, read) for c in unit.cells):
                continue  # "Up to 5 miles | Free" to "Is delivery free if I live 10 miles away?"
            if yes_no and not unit.pieces and _ATTEMPT.match(unit.text):
                # "User tried to print in colour in Singapore" says someone
                # tried, not whether one can: only with what follows it
                # ("Colour printing is not available there")
                continue
            only_another = yes_no and (
                _only_another(unit.text, names)
                # "EU data residency is available on the Scale plan only" to
                # "... on the Growth plan?": a rival's only, whatever else it names
                or (
                    _ONLY.search(unit.text) is not None
                    and any(mentions(unit.text, other) for other in rival)
                    and not all(mentions(unit.text, name) for name in names)
                    # (of one of two things asked: "The AP Southeast region is
                    # available on the Scale plan only" says nothing of the EU
                    # Central region on the Starter plan; "Audit logs are ..."
                    # may say it of either)
                    and not _of_a_rival(unit.text, names, rival)
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
            if (
                denied_asked & unit.terms
                and not _negates(unit.text, denied_asked)
                and _EXCEPT.search(unit.text) is None  # ("open every day except Mondays")
            ):
                continue  # "Fishing is allowed ..." to "When is fishing not allowed?"
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
            if years and not _of_years(unit, years, past=asks_of_past):
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
                and _rules_on(
                    unit, verb, thing, [*terms, *kinds_of(set(terms) & unit.terms)], named
                )
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
            # "Do I get a full refund if I cancel 10 days before?": the row of
            # the band that holds it says ("7 to 14 days | 25%": no), where it
            # is of what the question asks ("Refund")
            band_reply = bool(holding) and band_of(
                unit.columns, unit.cells, holding, unit.heading, weights, read
            )
            if (
                missing
                and not denial
                and not limited
                and not band_reply
                and not (ruled and set(missing) <= phrase)
            ):
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
                    or bool(
                        said_age
                        and holds_age(" | ".join((unit.text, *unit.columns)), said_age.months)
                    )
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
            if compound is not None and not denial and _of_a_sibling(unit, compound, parallel):
                continue  # "The claims line is open 24 hours" to the complaints line
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
                # (or the page's title, all of it, over a table whose own heading
                # does not name the thing: a "Garden waste subscription" page's
                # "Prices" row "Standard 240-litre green-lid bin" is a garden
                # waste bin; but not a "Black bin collections" page's "Extra bins"
                # row "Extra blue recycling bin")
                and not (
                    not head & set(content_terms(unit.heading))
                    and all(
                        _says_kind(str(unit.chunk.metadata.get("title", "")), word)
                        for word in pricing.words_before or (kind,)
                    )
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
            if band_reply and not {t for t in conditional - unit.terms if t.isdigit()}:
                # ("if I live 10 miles away": the band that holds the miles says
                # where; not with another figure to the condition, "if I spend £80
                # and ...")
                said += sum(weights.get(t, 0.0) for t in beside_measure & conditional - unit.terms)
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
            item = _ITEM_LABEL.match(unit.text) if unsaid and not labelled else None
            if item is not None and _names_an_item(item.group(1), question_terms):
                # "Vomiting and/or diarrhoea: ... 48 hours after the last
                # episode" is another item than the measles no page names
                continue
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
                    # ("A pet costs £15 per night" prices a dog: ``of_kinds_asked``
                    # read it as said of all pets)
                    _prices_another(
                        unit.text,
                        {**weights, **kinds_priced(unit, weights, itself)},
                        spoken,
                        question,
                    )
                    or _row_of_another(unit, weights, said_age, read)
                    # ("Puppy classes are for puppies aged 10 to 20 weeks and
                    # cost £90" is no price for an 8-week-old)
                    or bool(
                        said_age and unit.kind != "row" and of_another_age(aged, said_age.months)
                    )
                )
            )
            # ("Is there a joining fee?": "The Junior Plan has no joining fee" says
            # the sum, none, of the kind asked; "no hidden fees" says none)
            fit = fit or (kind in {"money", "much"} and _no_such_fee(unit.text, question_terms))
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
            if (
                fit
                and kind in {"money", "much"}
                and _ADDED_SUM.search(unit.text)
                and not question_terms & _ADDED_WORDS
                and not _prices_outright(unit.text)
                and _priced_elsewhere(unit, units)
            ):
                fit = False  # "Peak (May – September): +£60 per day" is added to a price
            if fit and not yes_no and measures_another(unit.text, read):
                fit = False  # "Duration: 30 minutes" to "a 90 minute massage"
            if (
                fit
                and kind in {"money", "much"}
                and unit.kind == "row"
                and prices_another_period(unit.columns, unit.text, read)
            ):
                fit = False  # "Half day: £20; Full day: £35" to "a kayak for an hour"
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
        # "free of charge up to 48 hours before", to a question about less
        # than 48 hours before: with "Changes made later cost £12"
        chosen = with_other_side(
            chosen, units, read, kind, {verb} if yes_no and verb is not None else set()
        )
        # ("10% off all service packages": "The discount does not apply to the
        # Safety Check", to a question about the Safety Check)
        chosen = with_exceptions(chosen, units, question_terms)
        chosen = [_with_qualifier(unit, units) for unit in chosen]
        # (the role as asked, and as read: "tresurer" is the treasurer, but
        # "leader" is no "leadership")
        roles = [found for found in {asked_role(question), asked_role(read)} if found[0]]
        if roles:
            known = set().union(*(u.terms | u.context | u.outer for u in units))
            if not any(
                holds_role(
                    role,
                    # ("of St Mary's", "of Tarnside Buses": the page's own name,
                    # in its title or path, which its sentences need not say)
                    of
                    & known - (set() if _of_another(role, of, unit) else _page_terms(unit.chunk)),
                    unit.terms
                    | _column_terms(" ".join(unit.columns))
                    # ("Ruth Okonjo — Chief Executive Officer" is the CEO)
                    | {a.lower() for a in asked_acronyms if expands(a, _said(unit))},
                    unit.context | unit.outer,
                )
                for role, of in roles
                for unit in chosen
            ):
                # "Who is the boatyard manager?": what says who holds the role,
                # not the marina manager's name beside a sentence about the boatyard
                return _not_found(question, hits)
        # "Hygiene appointments cancelled late are charged £15 instead", of
        # the case the question names: the rule it replaces is no answer
        chosen = [
            unit
            for unit in chosen
            if not any(
                other is not unit and _instead_of(other, unit, question_terms) for other in chosen
            )
        ]
        # "If you pay within 14 days, you are charged £10 instead" of a case
        # the question does not name: said with the rule it replaces
        chosen = _with_rules(chosen, units, question_terms)
        # "Is Quire available in the US?": an acronym vouched for only by a
        # writing-out ("### User Settings") is answered by what writes it out
        if _written_out_elsewhere(asked_acronyms, texts, chosen):
            return _not_found(question, hits)
        # a record is said whole once (its fields are said together)
        records = {u.chunk.id for u in chosen if _record_fields(u)}
        chosen = [
            u
            for i, u in enumerate(chosen)
            if u.chunk.id not in records
            or not any(v.chunk.id == u.chunk.id and _record_fields(v) for v in chosen[:i])
        ]
        chosen.sort(key=lambda unit: (unit.rank, unit.position))
        chosen = [_without_between(unit, question_terms) for unit in chosen]
        wants_row = two_parts(read) or _WHOLE_ROW.search(read) is not None
        numbers: dict[str, int] = {}
        quotes: dict[str, list[str]] = {}
        parts: list[str] = []
        for unit in chosen:
            chunk_id = unit.chunk.id
            if chunk_id not in numbers:
                numbers[chunk_id] = len(numbers) + 1
                quotes[chunk_id] = []
            replied = bool(unit.reply) and yes_no and _replies_to(unit, read, keys, named, asked)
            said, quoted = unit_said(
                unit,
                told=told,
                years=years,
                names=names,
                replied=replied,
                # (a question of two parts gets the whole row, each part its columns)
                asked=question_terms if not wants_row else frozenset(),
                # (a sum it gives asks a figure of money: "Is express delivery under £30?")
                kind=kind or ("money" if MONEY_FIGURE.search(read) else None),
                months=months,
            )
            pieces.append((said, unit.chunk))
            parts.append(_with_marker(said, numbers[chunk_id]))
            quotes[chunk_id].extend([*quoted, *(unit.pieces or (unit.text,))])
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
        titled: set[str] = set()  # what the chosen units' page titles say
        pages: set[str] = set()  # the chosen units' documents
        asked = set(weights)
        first: tuple[float, set[str]] | None = None
        for score, unit in ranked:
            key = " ".join(TOKEN.findall(unit.text.lower()))
            if key in seen or any(unit.text in c.text or c.text in unit.text for c in chosen):
                continue
            found = {t for t in weights if t in unit.terms or t in unit.context}
            # (what a chosen unit's page title says is said, for a unit of
            # another page: a row of the "Garden waste subscription" page says
            # the garden waste, which a trade waste table's row adds nothing to)
            # (but what the unit itself names is its own: a "Pool session" row
            # after the gym row of a "Gym and pool" page)
            said = covered if unit.chunk.document_id in pages else covered | (titled - unit.terms)
            # a bare number is no new part: the "35" of "35 kg" in "€35"
            gain = sum(weights[t] for t in found - said if not t.isdigit())
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
            pages.add(unit.chunk.document_id)
            covered |= found
            if not (asked - _PRICE_NOUNS) & set(content_terms(unit.heading)):
                # (its page's title says what a table under a heading of no
                # word asked is of: "Garden waste subscription" > "Prices"; not
                # "Bus and tram fares" > "Bus singles", whose rows are the bus's)
                titled |= unit.outer & asked
            if len(chosen) >= self.config.max_sentences:
                break
        return chosen


_PARALLEL = 0.95
"""A unit scoring this share of the best one's, saying the same under another heading."""
_ALL_OF = re.compile(r"\b(?:every|all|any)\b", re.IGNORECASE)
"""A price for every thing of a kind ("added to every repair") prices the one asked."""


_API_MAJOR = re.compile(r"v\d{1,2}")
"""A major version a question names as a thing ("the v1 API")."""

_WHO_OR_WHICH = re.compile(r"\s*(?:who|whom|which|what\s+(?:role|team|person|level))\b", re.I)


_PICKS_BY_RANK = re.compile(
    r"\s*(?:which|who|what\s+(?!is\b|are\b|was\b|were\b|do\b|does\b)\w+)\b[^?]*?"
    r"(?<!\bat )\bthe\s+(most|least|fewest|highest|lowest|largest|biggest|smallest|cheapest|"
    r"longest|shortest|newest|oldest|fastest|slowest)\b(?!\s+(?:time|date|day|hour)\b)",
    re.I,
)
"""A question that picks one of several things by a rank ("Which office has
the most employees?"): only a sentence that says the rank answers it."""


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


_WHOLE_ROW = re.compile(
    r"\b(?:tell me (?:about|more)|what do (?:i|we|you) get|what(?:['’]s| is| are) included"
    r"|what does .{1,40}\binclude|details? (?:of|about|on|for))\b",
    re.IGNORECASE,
)
"""A question that asks about a row whole ("Tell me about the Pro tier"): it
is said with every column, whatever column its words name."""
