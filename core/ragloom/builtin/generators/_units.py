"""The units ``extractive`` quotes: the hits' sentences, rows, list items and
code lines, with the headings and fields that frame them, and how much of a
question each covers.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence, Set
from dataclasses import dataclass, replace

from ...types import Chunk, Document, Hit
from ._questions import is_anaphoric, opens_with_anaphor
from ._releases import _change_type, _dated_release, _release_of, _release_terms, _says_released
from ._text import GENERIC_STEMS, content_terms, header_cells, only_links, split_sentences, stem
from ._versions import YEAR as _YEAR
from ._versions import is_release_label

_CONTEXT_WEIGHT = 0.5
_OUTER_WEIGHT = 0.2
"""What a word of the headings above a table's own is worth to its rows."""
_CODE_WEIGHT = 0.5
_BACKGROUND = 5
_GENERIC_WEIGHT = 0.5
_MARKUP = re.compile(r"<[^>]*>|[*_`#=~-]{2,}|^[*_#\s]+|[*_\s]+$")
_LABEL_CHARS = 80
_ATTRIBUTION = re.compile(
    r"(?=.{0,160}$).*\b(?:wrote|schrieb|a écrit|escribió)\b[^:]{0,60}:$", re.IGNORECASE
)
"""A mail's line before the text it quotes ("On Mon, 21 Jul 2025, Priya Raman
wrote:"): it says who wrote what follows, and answers nothing itself."""
_BARE_YES_NO = re.compile(r"(?:yes|no|yes, indeed|no, sorry)[.!]$", re.IGNORECASE)
"""A sentence that is only a yes or a no (a FAQ's reply before its reason)."""
_MAX_JOINED = 3
"""A sentence leaning on the ones before is quoted with at most this many in all."""
_PSEUDO_HEADING = re.compile(
    r"\s*(?:\*\*[^*]+\*\*|__[^_]+__|<h[1-6][^>]*>.*?</h[1-6]>)\s*:?\s*$", re.I
)
"""A line that is only bold or an HTML heading: a heading in all but syntax."""


_UNKNOWN_LEVEL = 7
"""The level of a heading whose level is unknown (not a Markdown ``#`` line):
below every other."""


def _level_of(text: str, heading: str) -> int:
    """The ``#`` count of ``heading``'s Markdown line in ``text`` (0 unknown)."""
    match = re.search(rf"^(#{{1,6}})[ \t]*{re.escape(heading)}[ \t#]*$", text, re.M)
    return len(match.group(1)) if match else 0


_RELEASED_TERMS = frozenset(stem(word) for word in ("version", "release", "released"))
"""What a dated release heading says besides its own words."""


def _at(unit: _Unit) -> tuple[str, int]:
    return unit.chunk.id, unit.position


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
        elif unit.kind == "row" and term in unit.outer:
            # (a row's table sits under a heading that names what it is of:
            # "Garden waste subscription > Prices")
            covered += _OUTER_WEIGHT * weight
    return covered


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_BOLD_LEAD = re.compile(r"\*\*([^*\n]{2,60})\*\*(?!\s*[:.])")
"""A paragraph's opening bold name ("**Kelsworth Central** is at ..."), not a
bold label ("**Note:**")."""


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
            anaphoric = kind in {"sentence", "bullet"} and (
                is_anaphoric(text)
                # "Colour printing is not available there." after "User tried
                # to print in colour in Singapore."
                or (
                    previous is not None
                    and _THERE_LAST.search(text) is not None
                    and _PLACE.search((previous.pieces or (previous.text,))[-1]) is not None
                )
            )
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


_THERE_LAST = re.compile(r"\bthere[.!]?\s*$", re.IGNORECASE)
"""A sentence that ends on a place said before it ("Parking is free there.")."""
_PLACE = re.compile(
    r"\b(?:in|at|on|to|from|by|near|outside|inside|opposite|behind|beside|next to)\s+"
    r"(?:(?:the|our|a|an)\s+)?(?:[A-Z][\w'’-]*|(?<=the )[a-z][\w'’-]*)"
)
"""A place a sentence names ("in Singapore", "on High Street", "on the ground
floor"), that a "there" after it may mean; not a time ("at 8am", "in 2015")."""


_SUBJECT_PRONOUN = re.compile(
    r"^(?:[^,.;:]{0,40},\s*|(?:on|in|at|from|for|during|after|before)\s+[^,.;:]{1,30}?\s+)?"
    r"(it|they|he|she)\b",
    re.IGNORECASE,
)


def _without_between(unit: _Unit, asked: Set[str]) -> _Unit:
    """A sentence quoted with the ones before it that its pronoun leans on,
    without those between that lean on the same as it: "The HR office is on
    the 2nd floor. It is open 8:30am to 4:30pm, Monday to Thursday. On
    Fridays it closes at 1pm." is said as its first and last (the Monday to
    Thursday hours answer no question of Fridays), unless they say some of
    the question's terms ``asked`` that the others do not."""
    pieces = list(unit.pieces)
    while len(pieces) > 2 and _same_subject(pieces[-2], pieces[-1]):
        middle, last = set(content_terms(pieces[-2])), set(content_terms(pieces[-1]))
        # (it says what the question asks that the answer does not, or the
        # same as the answer: "They are recorded ..." beside "They are not
        # recorded ..."; compared with the answer, not the sentence it leans on)
        head = {t for piece in pieces[:-2] for t in content_terms(piece)}
        if middle & asked - last or middle & last & asked - head:
            break
        # (the answer leans on it: "It costs £65 otherwise"; or it bounds the
        # answer: "It is available on Sundays only")
        if _LEANS_BACK.search(pieces[-1]) or _BOUNDS.search(pieces[-2]):
            break
        del pieces[-2]
    if len(pieces) == len(unit.pieces):
        return unit
    return replace(unit, text=" ".join(pieces), pieces=tuple(pieces))


def _same_subject(before: str, sentence: str) -> bool:
    """Whether two sentences in a row have the same pronoun for their subject
    ("It is open ...", "On Fridays it closes ...")."""
    first, second = _SUBJECT_PRONOUN.match(before), _SUBJECT_PRONOUN.match(sentence)
    return bool(first and second) and first.group(1).lower() == second.group(1).lower()


_LEANS_BACK = re.compile(
    r"\b(?:otherwise|after that|before that|else|other days|other times|instead|then|too|also|"
    r"as well|still|either|however)\b",
    re.IGNORECASE,
)
"""Words by which a sentence leans on the one before it ("It costs £65 otherwise")."""
_BOUNDS = re.compile(
    r"\b(?:only|not|no|never|free|unless|except|until|if|closed|withdrawn|suspended)\b|n't\b",
    re.IGNORECASE,
)
"""Words by which a sentence bounds what follows ("It is available on Sundays only")."""
