"""Lists, steps, tables and headings: what a quoted unit brings with it (the
items it announces, the steps after it, the columns asked) and what its
heading answers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from ._current import is_deprecated
from ._names import mentions
from ._releases import _change_type, _is_out
from ._text import TOKEN, content_terms, stem
from ._units import _LABEL_CHARS, _Unit
from ._versions import NAMED_VERSION, has_date, has_version

_NOT_DONE = re.compile(
    r"\b(?:not|no longer|unavailable|planned|will|upcoming|future|known issues?|remains?|"
    r"still|yet|pending|deprecated)\b",
    re.IGNORECASE,
)
"""Words of a release note about what did not happen in it ("SSO remains
unavailable", "a fix is planned"): its heading never dates it."""
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10}  # fmt: skip
_ANNOUNCED = re.compile(
    r"\b(" + "|".join(_COUNTS) + r"|[2-9]|10)\s+((?:[\w-]+\s+){0,2}?[\w-]+)\W*$", re.IGNORECASE
)
"""A sentence that ends by announcing how many of something there are
("Ledgerly comes in two editions."), naming none of them."""


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
        out.extend(item for item in found.values() if not _quoted(item, out))
    return out


def _quoted(unit: _Unit, out: list[_Unit]) -> bool:
    """Whether ``unit`` is quoted in ``out`` already: itself, or its text in
    another chunk's unit (chunks overlap). In its own chunk, another unit is
    another item, whatever its words: "15 minutes" after "5 minutes", the
    second "8 hours" of a backoff schedule."""
    return any(
        c.position == unit.position
        if c.chunk.id == unit.chunk.id
        else unit.text in c.text or c.text in unit.text
        for c in out
    )


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
            if not _quoted(other, out):
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


def _is_line_of(label: str, text: str) -> bool:
    """Whether ``label`` is a line of its own in ``text`` (a heading), not
    words of a sentence."""
    return re.search(rf"^[#\s*_]*{re.escape(label)}[*_\s:#]*$", text, re.M) is not None


_BRACKETED = re.compile(r"\s*\([^)]*\)")
