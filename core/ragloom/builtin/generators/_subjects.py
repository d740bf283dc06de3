"""What a question is about, and whether a sentence is about the same thing:
its head noun and modifiers, the names, sizes, models, places, versions and
years it says.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from ...terminal import clean
from ...types import Hit
from ._groups import _GROUP
from ._kind_words import expands
from ._names import mentions
from ._places import excluded_by, framed_by, places_in, said_in, within
from ._text import GENERIC_STEMS, content_terms, stem
from ._units import _LABEL_CHARS, _Unit, _where
from ._versions import YEAR as _YEAR
from ._versions import versions_in

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

_SUBJECT_DOES = re.compile(
    r"\s*(?:what\s+time|when)\s+(?:does|do|did|will)\s+(?:(?:the|a|an|my|your|our|their|its)\s+)?"
    r"((?:[a-z][\w'-]*\s+){0,2}?[a-z][\w'-]*)\s+"
    r"(?:open|close|shut|start|finish|end|begin|run)\b",
    re.IGNORECASE,
)
"""("What time does *the café* open on Saturdays?")"""

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


def _doing_subject_terms(question: str) -> set[str]:
    """What a "What time does the café open?" question asks of (``café``);
    empty where the question is not so made."""
    match = _SUBJECT_DOES.match(question)
    return set(content_terms(match.group(1))) - GENERIC_STEMS if match else set()


def _subject_compound(question: str) -> tuple[set[str], str] | None:
    """The words before the head noun of a "When is the complaints line
    open?" question's subject, and the head (``{"complaint"}``, ``"line"``);
    None where the subject is one word or the question is not so made."""
    match = _SUBJECT.match(question) or _SUBJECT_DOES.match(question)
    if match is None:
        return None
    # (a group's word says which too: "the *customer* service line")
    terms = content_terms(match.group(1))
    modifiers = set(terms[:-1]) - _NO_SUBJECT
    return (modifiers, terms[-1]) if len(terms) > 1 and modifiers else None


def _of_a_sibling(
    unit: _Unit, compound: tuple[set[str], str], parallel: Sequence[frozenset[str]]
) -> bool:
    """Whether ``unit`` speaks of another thing of the compound's head ("The
    claims line is open 24 hours" to "When is the complaints line open?"):
    it names the head after a word of its own that says none of the
    modifiers (nor do its headings), and that word and a modifier label
    things side by side in ``parallel`` (the rows of one table, "| Claims |"
    and "| Complaints |", or the pages' headings; ``_parallel_labels``), or
    another sentence names the compound asked ("Black bins are for general
    waste" beside "Green bins are collected ..."): not "Our phone lines",
    nor "the reception desk" to "the front desk", which no page sets apart."""
    modifiers, head = compound
    if modifiers & (unit.terms | unit.context | unit.outer):
        return False
    if unit.kind == "row" and unit.cells:
        # a row labelled with a thing of the kind ("| Claims desk | 9am–5pm |"):
        # the table lists them by kind, and the one asked is not this one
        label = content_terms(unit.cells[0])
        if len(label) > 1 and label[-1] == head:
            return True
    for word in _before(unit.text, head):
        if word not in modifiers and any(
            (word in labels or labels >= _ANY) and modifiers & labels for labels in parallel
        ):
            return True
    return False


def _before(text: str, head: str) -> list[str]:
    """The term of each word just before ``head`` (a term) in ``text``."""
    words = _WORD.findall(text)
    return [
        said[0]
        for before, word in zip(words, words[1:])
        if stem(word.lower()) == head and (said := content_terms(before))
    ]


_ANY = frozenset({"\0any"})
"""A group of ``_parallel_labels`` that sets any thing apart from the compound."""


def _parallel_labels(
    units: Sequence[_Unit], compound: tuple[set[str], str]
) -> list[frozenset[str]]:
    """The words of things the pages set side by side: each table's row labels
    (its first cells), and the headings of the units; and, where a sentence
    names the compound asked itself ("Black bins ..."), the modifiers with
    ``_ANY``: that thing is told apart from any other of its kind."""
    tables: dict[tuple[str, tuple[str, ...]], set[str]] = {}
    headings: set[str] = set()
    modifiers, head = compound
    named = False
    for unit in units:
        if unit.kind == "row" and unit.cells:
            key = (unit.chunk.id, unit.columns)
            tables.setdefault(key, set()).update(content_terms(unit.cells[0]))
        if unit.heading:
            headings.update(content_terms(unit.heading))
        named = named or bool(modifiers & set(_before(unit.text, head)))
    groups = [frozenset(labels) for labels in (*tables.values(), headings) if labels]
    return [*groups, _ANY | frozenset(modifiers)] if named else groups


_WORD = re.compile(r"[A-Za-z][\w'’-]*")


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


def _of_years(unit: _Unit, years: set[str], past: bool = False) -> bool:
    """Whether a sentence may speak of the years a question asks about
    ("income in 2023"): it names one of them; or it names no year, and
    neither does what it sits under (its heading, section, release, the
    document's title), else one of them. "Total income was 38,500 pounds"
    in the "Annual Report 2024" is 2024's income, no answer for 2023. A
    question of what was (``past``: "What was the price of the Business plan
    in 2022?") is not answered by what names no year at all: that is what
    is, not what was."""
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
    return (not named and not past) or not named.isdisjoint(years)


def _names_version(unit: _Unit, versions: set[str]) -> bool:
    """Whether the unit, its release or its section names one of the
    versions the question asks about (``2.0.0``, not ``2.0.1``)."""
    section = unit.chunk.metadata.get("section")
    where = " ".join(
        (unit.text, unit.release, unit.heading, section if isinstance(section, str) else "")
    )
    return not versions.isdisjoint(versions_in(where))


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

    if not any(_knows(where, name) or expands(name, chunk.text) for name in names):
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
    # (and "**Ruth Okonjo** — Chief Executive Officer" speaks of the CEO)
    return not unit.subject or any(
        mentions(unit.subject, name) or mentions(unit.text, name) or expands(name, unit.text)
        for name in names
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
