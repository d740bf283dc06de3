"""Lists, steps, tables and headings: what a quoted unit brings with it (the
items it announces, the steps after it, the columns asked) and what its
heading answers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence, Set
from dataclasses import replace

from ._current import is_deprecated
from ._figures import fits_kind
from ._names import mentions
from ._releases import _change_type, _is_out
from ._text import GENERIC_STEMS, TOKEN, content_terms, stem
from ._units import _LABEL_CHARS, _column_terms, _Unit
from ._versions import NAMED_VERSION, has_date, has_version
from ._versions import YEAR as _YEAR

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


def _asked_columns(
    unit: _Unit,
    years: set[str],
    asked: Set[str] = frozenset(),
    kind: str | None = None,
    months: Set[int] = frozenset(),
) -> set[int] | None:
    """The columns of a row to say besides its label (None: all of them):
    of a row whose columns are of years, those of the years the question
    names, or of no year ("the per-diem in Austin in 2025": another year's
    cell answers another question); of a row whose columns are of spans of
    months, those of the months it names (``months``, 1 to 12); of those, the
    columns the question
    names the most of (``asked``, its content terms): "how many can the
    Wheelhouse seat for dinner?" is answered by "Dinner capacity: 50", not
    with the evening's 70 beside it."""
    if len(unit.cells) != len(unit.columns):
        return None
    kept = set(range(1, len(unit.columns)))
    if years:
        of_years = {number: set(_YEAR.findall(name)) for number, name in enumerate(unit.columns)}
        if any(said & years for said in of_years.values()):
            kept = {number for number in kept if not of_years[number] or of_years[number] & years}
    if months:
        # "a Friday wedding in November": the "Off-peak (October – April)"
        # column, not "Peak season (May – September)"
        spans = {number: _month_span(unit.columns[number]) for number in kept}
        if any(months & span and unit.cells[n] for n, span in spans.items()):
            # (of a month column with a value: an empty one says the row is not then)
            kept = {number for number in kept if not spans[number] or months & spans[number]}
            # (its months name no column then: "from May to October" keeps
            # both seasons, not the one whose name says "October")
            asked = set(asked) - _MONTH_TERMS
    named = _named_columns(unit, kept, asked, kind)
    if named:
        # the cell that names the row where its label does not ("Which
        # semester is Distributed Systems in?" under "Credits | Module | ...")
        named |= {
            number
            for number in kept
            if (said := set(content_terms(unit.cells[number])))
            and said <= asked
            and not all(term.isdigit() for term in said)
        }
    kept = named or kept
    return None if len(kept) == len(unit.columns) - 1 else kept


_MONTH_NUMBER = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}  # fmt: skip
_MONTH_NAME = "|".join(sorted(_MONTH_NUMBER, key=len, reverse=True))
_MONTH_RANGE = re.compile(
    rf"\b({_MONTH_NAME})\b\.?\s*(?:-|–|—|to|until|till)\s*\b({_MONTH_NAME})\b", re.IGNORECASE
)
_MONTHS_BETWEEN = re.compile(
    rf"\bbetween\s+({_MONTH_NAME})\b\.?\s+and\s+({_MONTH_NAME})\b", re.IGNORECASE
)


def asked_months(question: str) -> frozenset[int]:
    """The months a question names ("in November": 11; "from October to
    April": each between); not "may" nor "mar" alone."""
    spans = frozenset().union(
        *(
            _spanned(found)
            for pattern in (_MONTH_RANGE, _MONTHS_BETWEEN)
            for found in pattern.finditer(question)
        )
    )
    return spans | frozenset(
        _MONTH_NUMBER[word.lower()]
        for word in TOKEN.findall(question)
        if word.lower() in _MONTH_NUMBER and word.lower() not in {"may", "mar"}
    )


_MONTH_TERMS = frozenset(stem(name) for name in _MONTH_NUMBER)
"""The words of months (their stems)."""


def _month_span(name: str) -> frozenset[int]:
    """The months a column's name spans ("Off-peak (October – April)":
    10, 11, 12, 1, 2, 3, 4); none where it names no span of months."""
    found = _MONTH_RANGE.search(name)
    return _spanned(found) if found else frozenset()


def _spanned(found: re.Match[str]) -> frozenset[int]:
    """The months from one month to another ("October – April"), both ends too."""
    first, last = (_MONTH_NUMBER[found.group(i).lower()] for i in (1, 2))
    return frozenset((first - 1 + step) % 12 + 1 for step in range((last - first) % 12 + 1))


def _named_columns(unit: _Unit, among: set[int], asked: Set[str], kind: str | None) -> set[int]:
    """Of the row's columns ``among``, those whose names say the most of the
    question's terms ``asked`` (not the words of its cells: "Saturday" names
    the row, not a column; nor of its headings), when that is fewer than all of them; none where
    the question names no column, where a column named holds only under a
    condition ("Early bird (sign up by 31 January)"), or where the question
    asks a figure (``kind``) that only a column left out holds (``fits_kind``)."""
    cells = {t for cell in unit.cells for t in content_terms(cell)}
    # (nor those of its headings: "the limits for /v1/webhooks" under "Rate
    # limits by endpoint" asks the whole row, not a "burst_limit")
    words = {t for t in asked if t not in cells | unit.outer and t not in GENERIC_STEMS}
    named = {
        number: len(words & _column_terms(unit.columns[number]))
        for number in among
        if unit.cells[number]
    }
    most = max(named.values(), default=0)
    if not most:
        return set()
    kept = {number for number, count in named.items() if count == most}
    if len(kept) == len(named):
        return set()
    if any(_CONDITION.search(unit.columns[number]) for number in kept):
        # "Early bird (sign up by 31 January)": whether the asker meets it
        # is theirs to see, beside the price without it
        return set()
    fits = {number for number in named if fits_kind(kind, unit.cells[number])}
    if fits and not fits & kept:
        return set()  # "how long can I borrow a DVD?": the figure is in a column not named
    # a range's other end with its one ("Opens: 9am; Closes: 5pm" for the
    # hours the library is open)
    ends = {end for number in kept for end in _ends(unit.columns[number])}
    return kept | {number for number in named if _ends(unit.columns[number]) & ends}


_CONDITION = re.compile(r"\b(?:by|if|until|till|before|after|when|unless|only)\b", re.IGNORECASE)
"""A word of a column's name that says when its cells apply."""


def _ends(name: str) -> set[str]:
    """The ranges whose one end a column's name says ("Opens": the opening
    hours'; "To", a name of that one word: a span's)."""
    lowered = name.lower()
    words = set(TOKEN.findall(lowered.replace("check-", "check")))
    if len(words) == 1:
        words |= {f"={word}" for word in words}
    return {pair for pair, (one, other) in _RANGE_ENDS.items() if words & (one | other)}


_RANGE_ENDS = {
    "open": (frozenset({"open", "opens", "opening"}), frozenset({"close", "closes", "closing"})),
    "start": (
        frozenset({"start", "starts", "begin", "begins", "=from"}),
        frozenset({"end", "ends", "finish", "finishes", "=to", "=until"}),
    ),
    "most": (
        frozenset({"min", "minimum", "lowest", "earliest"}),
        frozenset({"max", "maximum", "highest", "latest"}),
    ),
    "arrive": (
        frozenset({"arrive", "arrives", "arrival"}),
        frozenset({"depart", "departs", "departure"}),
    ),
    "check": (frozenset({"checkin"}), frozenset({"checkout"})),
}
"""Words of column names that say the two ends of one range: "Opens" and
"Closes", "Minimum" and "Maximum", "From" and "To" (as the whole name)."""


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
