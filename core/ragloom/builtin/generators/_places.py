"""Countries and unions a question may name in other words than the
passages do: "the US" where they write "the United States", "Canadian
customers" for Canada, "Germany" where they speak of the European Union.

The extractive answerer reads the question in the passages' words (a code
they never write becomes the name they do), counts a sentence that names
the asked place in another form as saying it, and skips a sentence that
opens on another place ("In Canada, return shipping costs CA$12.00" answers
nothing about the EU, :func:`framed_by`) or by leaving the asked one out
("For customers outside the EU, ...", :func:`excluded_by`); a place named
in passing ("ships from our US warehouse") frames nothing. Only real
countries and unions are known here; cities, regions and invented places
are left to the answerer's name rules.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

__all__ = [
    "as_written",
    "excluded_by",
    "framed_by",
    "left_out",
    "origins",
    "place_forms",
    "places_in",
    "said_in",
    "within",
]

_EU_MEMBERS = (
    "Austria", "Belgium", "Bulgaria", "Croatia", "Cyprus", "Czechia", "Denmark", "Estonia",
    "Finland", "France", "Germany", "Greece", "Hungary", "Ireland", "Italy", "Latvia",
    "Lithuania", "Luxembourg", "Malta", "Netherlands", "Poland", "Portugal", "Romania",
    "Slovakia", "Slovenia", "Spain", "Sweden",
)  # fmt: skip

_OTHERS = (
    "Canada", "Mexico", "Brazil", "Argentina", "Chile", "Colombia", "Peru", "Norway",
    "Switzerland", "Iceland", "Australia", "New Zealand", "Japan", "China", "India",
    "Singapore", "South Korea", "Hong Kong", "Taiwan", "South Africa", "Israel", "Turkey",
    "Ukraine", "Egypt", "Nigeria", "Kenya", "Indonesia", "Malaysia", "Thailand", "Vietnam",
    "Philippines", "Saudi Arabia", "United Arab Emirates",
)  # fmt: skip

_TWO_NAMES = frozenset({"Czechia", "Netherlands"})

_FORMS: dict[str, tuple[str, ...]] = {
    "United States": ("United States of America", "United States", "U.S.A.", "U.S.", "USA", "US"),
    "United Kingdom": ("United Kingdom", "U.K.", "UK"),
    # (not the UK: Northern Ireland is no part of it, and its rates often differ)
    "Great Britain": ("Great Britain", "Britain"),
    "European Union": ("European Union", "E.U.", "EU"),
    "Czechia": ("Czechia", "Czech Republic"),
    "Netherlands": ("Netherlands", "Holland"),
    "United Arab Emirates": ("United Arab Emirates", "UAE"),
    **{name: (name,) for name in (*_EU_MEMBERS, *_OTHERS) if name not in _TWO_NAMES},
}
"""Each place's names, longest first: how a text may write it."""

_WITHIN: dict[str, str] = {member: "European Union" for member in _EU_MEMBERS}
"""The union a place belongs to: what the passages say of the EU holds in
Germany (where they say nothing of Germany itself)."""

_DEMONYMS: dict[str, str] = {
    "American": "United States", "Canadian": "Canada",
    "Australian": "Australia", "German": "Germany", "French": "France", "Spanish": "Spain",
    "Italian": "Italy", "Dutch": "Netherlands", "Irish": "Ireland", "Swedish": "Sweden",
    "Danish": "Denmark", "Finnish": "Finland", "Norwegian": "Norway", "Swiss": "Switzerland",
    "Austrian": "Austria", "Belgian": "Belgium", "Polish": "Poland", "Portuguese": "Portugal",
    "Greek": "Greece", "Japanese": "Japan", "Mexican": "Mexico", "Brazilian": "Brazil",
    "Indian": "India", "Chinese": "China", "Singaporean": "Singapore",
}  # fmt: skip
"""Adjectives of a place: counted only before the people or things of it
("Canadian customers", "a German address"), never alone ("in French" is a
language)."""

_OF_PLACE = (
    r"customers?|residents?|citizens?|users?|buyers?|shoppers?|clients?|members?|"
    r"orders?|address(?:es)?|companies|company|businesses|business|bank|cards?|"
    r"employees?|staff|students?|nationals?|taxpayers?|shipping|delivery|deliveries"
)


@functools.cache
def _pattern() -> re.Pattern[str]:
    forms = sorted({form for names in _FORMS.values() for form in names}, key=len, reverse=True)
    alternatives = "|".join(re.escape(form) for form in forms)
    demonyms = "|".join(_DEMONYMS)
    # a form as a whole word, case as written ("US", not "us"); "U.S." ends in
    # its dot; not the end of a longer name ("New Mexico", "New South Wales",
    # "South Africa" is a form of its own)
    longer = "".join(rf"(?<!\b{word} )" for word in _NAME_STARTS)
    return re.compile(
        rf"(?<![\w.-]){longer}(?:(?P<form>{alternatives})(?![\w-])|"
        rf"(?P<demonym>{demonyms})(?=\s+(?:{_OF_PLACE})\b))"
    )


_NAME_STARTS = ("New", "North", "Northern", "South", "Southern", "East", "West", "Western", "Papua")
"""Words that start longer names of other places ("New Mexico", "Northern Ireland")."""

_FRAME = re.compile(
    r"^\W*(?:(?!(?i:our|the|a|an|your|their|my|its|this|these)\b)(?:[\w-]+\s+){0,2}?"
    r"(?i:in|for|within|to|across|throughout|inside|from)\s+(?:the\s+)?)?"
    r"(?P<place>[A-Z][\w.]*(?:\s+[A-Z][\w.]*)*)\b"
)
"""How a sentence opens on the place it is about ("In Canada, ...", "For
EU customers ...", "The UK: ...", "Orders to the EU ...", "Shipping to France is ...")."""


def framed_by(text: str) -> set[str]:
    """The places a sentence opens on ("In Canada, return shipping costs
    ...", "EU customers pay ...", a table row's first cell): what it says is
    said of them. A place named further on ("ships from our US warehouse")
    frames nothing."""
    bare = text.lstrip("|*_ \t>-")
    bare = re.sub(r"^(?:the|The)\s+", "", bare)
    match = _FRAME.match(bare)
    if match is None:
        return set()
    at = match.start("place")
    found: set[str] = set()
    while True:  # "In Canada and the US, ...", "US, Canada and Mexico: free"
        place = _pattern().match(bare, at)
        if place is None:
            break
        found.add(_place_named(place))
        joint = _LISTED.match(bare, place.end())
        if joint is None:
            break
        at = joint.end()
    return found


_LISTED = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*&\s*|\s*/\s*)(?:the\s+)?")
"""What joins the places of a list ("Canada, the US and Mexico")."""


_EXCLUDING = re.compile(
    r"^\W*(?:[\w-]+\s+){0,3}?(?:(?i:outside|except|excluding|beyond)\s+(?:in\s+|for\s+)?"
    r"(?:the\s+)?|(?i:non)-)"
)
"""How a sentence opens on every place but one ("For customers outside the EU,
...", "For non-EU countries, ...")."""


def excluded_by(text: str) -> set[str]:
    """The places a sentence opens by leaving out: what it says holds
    everywhere but there (and in the countries of a union it leaves out)."""
    bare = text.lstrip("|*_ \t>-")
    match = _EXCLUDING.match(bare)
    if match is None:
        return set()
    return _place_at(bare[match.end() :])


def _place_at(text: str) -> set[str]:
    """The place ``text`` starts with, as a set (empty when none)."""
    place = _pattern().match(text)
    return set() if place is None else {_place_named(place)}


_LEFT_OUT = re.compile(
    r"(?i:\b(?:outside|except|excluding|beyond)\s+(?:in\s+|for\s+)?(?:the\s+)?|\bnon-)"
)


def left_out(question: str) -> set[str]:
    """The places a question names only to leave them out ("customers
    outside the US", "non-EU"): it does not ask about them."""
    return {p for m in _LEFT_OUT.finditer(question) for p in _place_at(question[m.end() :])}


def origins(question: str) -> set[str]:
    """The places a question names as where something comes from ("from
    Germany to France"): what it asks is of the other."""
    return {
        place
        for match in re.finditer(r"\bfrom\s+(?:the\s+)?", question)
        for place in _place_at(question[match.end() :])
    }


def _place_named(match: re.Match[str]) -> str:
    """The place a match of :func:`_pattern` names (a form, or an adjective)."""
    said = match.group(0)
    return _place_of()[said] if match.group("form") else _DEMONYMS[said]


@functools.cache
def _place_of() -> dict[str, str]:
    return {form: place for place, names in _FORMS.items() for form in names}


def places_in(text: str) -> set[str]:
    """The places ``text`` names, as their canonical names ("EU" and
    "European Union" are both "European Union")."""
    return set(place_forms(text))


def place_forms(text: str) -> dict[str, set[str]]:
    """Each place ``text`` names, with the forms it names it in."""
    found: dict[str, set[str]] = {}
    for match in _pattern().finditer(text):
        found.setdefault(_place_named(match), set()).add(match.group(0))
    return found


def said_in(where: str, name: str) -> bool | None:
    """Whether ``where`` (lower case) names the place ``name`` is a form of,
    in any form, or the union that holds it; None when ``name`` is no place."""
    places = places_in(name)
    if not places:
        return None
    held = {*places, *(_WITHIN[p] for p in places if p in _WITHIN)}
    return any(_lower_forms(place).search(where) is not None for place in held)


@functools.cache
def _lower_forms(place: str) -> re.Pattern[str]:
    """Any form of ``place`` in lower case, as a whole word (``said_in``)."""
    forms = "|".join(re.escape(form.lower()) for form in _FORMS[place])
    return re.compile(rf"(?<![\w.-])(?:{forms})(?![\w-])")


def within(place: str, asked: str) -> bool:
    """Whether what is said of ``place`` holds in ``asked``: the same place,
    or the union ``asked`` belongs to."""
    return place == asked or _WITHIN.get(asked) == place


def as_written(question: str, texts: Iterable[str]) -> str:
    """``question`` with each place it names in a form the passages never
    write in the form they do ("the US" -> "the United States", "Canadian
    customers" -> "Canada customers"), or as the union they write of where
    they never name it ("Germany" -> "European Union"). Unchanged where the
    passages write the question's form, or no form of the place at all."""
    if _pattern().search(question) is None:
        return question  # (most questions: the passages need not be read)
    if sum(ch.isupper() for ch in question) > len(question) / 3:
        return question  # written in capitals: "CONTACT US" names no country
    joined = "\n".join(texts)
    written = {match.group(0) for match in _pattern().finditer(joined)}
    named = {_place_of().get(form) for form in written} | {
        _DEMONYMS.get(form.split()[0]) for form in written
    }

    def passage_form(place: str) -> str | None:
        forms = [form for form in _FORMS[place] if form in written]
        return max(forms, key=len) if forms else None

    def swap(match: re.Match[str]) -> str:
        said = match.group(0)
        if said in written:
            return said
        place = _place_named(match)
        if place in named:
            return passage_form(place) or said
        union = _WITHIN.get(place)
        if union is not None and union in named:
            return passage_form(union) or said
        return said

    return _pattern().sub(swap, question)
