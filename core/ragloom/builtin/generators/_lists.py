"""A sentence that prices several things, a clause each ("The Main Hall
costs £4,500 per evening, The Loft £1,200, and the Cellar Bar £450"), said
with only the clause of the thing the question names: asked about the
Loft, the answer says "The Loft £1,200 per evening", and its citation
quotes the whole sentence.
"""

from __future__ import annotations

import re
from collections.abc import Set

from ._figures import MONEY_FIGURE
from ._groups import _GROUP
from ._text import stem

__all__ = ["clause_asked"]

_BREAK = re.compile(
    r";\s+|,\s+(?:(?:and|or|but|while|whereas)\s+)?|\s+(?:and|or|but|while|whereas)\s+"
)
"""Where a list's items may part: "; ", ", and ", " or "."""
_JOINING = re.compile(r"^(?:and|or|but|while|whereas)\s+", re.IGNORECASE)
_LABEL = re.compile(r"(?:on|in|at|for|with|from|to|during|by|via|under|over)\b", re.IGNORECASE)
"""How a part without a sum that names the next sum's thing opens ("on the
Business plan, $5 per user"), not one more of the last sum's things
("£10 for Adults and Seniors, and £5 for Children")."""
_BEFORE_SUM = re.compile(r"(?:only|just|from|about|around|approximately)\s+", re.IGNORECASE)
_LINKING = re.compile(
    r"(?:\s+(?:in|on|at|for|from|to|during|by|with|the|a|an|each|per))+\s*$", re.IGNORECASE
)
_VERB = re.compile(
    r"\b(?:is|are|was|were|be|been|costs?|pays?|gets?|has|have|apply|applies|rise|rises"
    r"|must|may|can|will|includes?)\b",
    re.IGNORECASE,
)
"""A verb: what follows the last sum says something of its own ("and Sunday
parking *is* free"), no more of the list's things."""
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_ITEM = re.compile(r"(?:(?:and|or)\s+)?(?:(?:the|a|an|our)\s+)?([^\W\d_][\w'’-]*)", re.IGNORECASE)
"""The first word of what follows the last sum, past "and the": a name where
it is one more of the last sum's things ("and students", "the Cellar Bar")."""
_SAME_GROUP = {"children": "child", "kids": "child", "kid": "child"}
"""Group words whose stems differ from one another ("children", "child")."""


def clause_asked(text: str, asked: Set[str]) -> str | None:
    """The clause of ``text`` that prices the one thing of its list the
    question's terms (``asked``) name, as said on its own ("On the Business
    plan, $5 per user per month"), or None where the sentence is no such
    list, the question names none of its things or more than one, or the
    clause cannot be said without what the others share.

    The sentence parts into clauses of one sum each, a clause without one
    joining the sum it leads to ("on the Business plan, $5"). Each clause
    after the first must name its thing (a word written in capitals
    mid-sentence, or a group of people) on the same side of its sum, and
    only those names tell the clauses apart: "The Harbour Suite costs €180
    a night in July and €140 in October" is a list of months, the suite the
    subject of both, so "How much is the Harbour Suite?" gets the whole of
    it, while "... in October?" gets "The Harbour Suite costs €140 a night
    in October". Every name of the sentence that the question says must be
    the clause's or every clause's ("an Off-Peak Return to Leeds" is not
    "An Anytime Return to Leeds costs £38.40"). What the first clause says
    for all is said with the clause asked: its opening ("During school
    holidays," "Swimming:"), its words before the sum where the names
    follow the sums ("Excess Cover costs"), and its words after the sum
    that the others leave out ("per evening"). "The Business plan costs $99
    a month, or $84 a month billed annually" names no thing in its second
    clause, and is said whole; so is a sentence whose last words hold for
    every sum ("..., but prices rise in August")."""
    clauses = _clauses(text)
    if clauses is None:
        return None
    asked = {_SAME_GROUP.get(term, term) for term in asked}
    sums = [_sum_in(text, start, end) for start, end in clauses]
    sides = [
        (_names(text, start, figure.start()), _names(text, figure.end(), end))
        for (start, end), figure in zip(clauses, sums)
    ]
    later = sides[1:]
    if all(before for before, _ in later):
        side = 0
    elif all(after and not before for before, after in later):
        side = 1  # (a later clause with names of its own before its sum is no gapped one)
    else:
        return None
    head = text[clauses[0][0] : sums[0].start()]
    if side == 1 and _GROUP.search(head):
        return None  # "Adult membership is £40 a month, or £35 for students": the head's own
    lead = _lead(text, clauses[0][0], sums[0].start()) if side == 0 else ""
    # (the head's names are every clause's, as are those of the first clause's opening)
    shared = sides[0][0] if side == 1 else _names(text, clauses[0][0], clauses[0][0] + len(lead))
    own = [after if side == 1 else (before | after) - shared for before, after in sides]
    hits = [
        i
        for i, names in enumerate(own)
        if (names - set().union(*(n for j, n in enumerate(own) if j != i))) & asked
    ]
    if len(hits) != 1:
        return None
    hit = hits[0]
    if asked & set().union(*own) - own[hit] - shared:
        return None  # the question names another clause's thing besides
    start, end = clauses[hit]
    said = _JOINING.sub("", text[start:end].strip()).rstrip(" .;,")
    if not hit:
        return said[:1].upper() + said[1:]
    figure = sums[hit]
    after = text[figure.end() : end].strip(" .;,")
    first_end = clauses[0][1]
    if side == 0:
        tail = text[sums[0].end() : first_end].strip(" .;,")
        if not after and tail:
            if sides[0][1]:
                return None  # "£4,500 per evening in July": the first's own, or all's?
            said = f"{said} {tail}"  # "The Loft £1,200 per evening"
        if lead:
            said = f"{lead} {said}"  # "During school holidays, seniors £11"
        return said[:1].upper() + said[1:]
    opening = _BEFORE_SUM.match(said)
    if opening:
        said = said[opening.end() :]
    if not MONEY_FIGURE.match(said) or not head.strip():
        return None
    # "€180 a night in July and €140 in October": the first clause's words
    # between its sum and its names are every sum's ("a night")
    first_name = _first_name_at(text, sums[0].end(), first_end)
    unit = _LINKING.sub("", text[sums[0].end() : first_name]).strip(" ,")
    hit_name = _first_name_at(text, figure.end(), end)
    if unit and not _LINKING.sub("", " " + text[figure.end() : hit_name]).strip(" ,"):
        amount = MONEY_FIGURE.match(said)
        assert amount is not None
        said = f"{said[: amount.end()]} {unit}{said[amount.end() :]}"
    return f"{head.strip()} {said}"  # "Excess Cover costs £8 per month for Flex members"


def _sum_in(text: str, start: int, end: int) -> re.Match[str]:
    """The one sum of a clause (``_clauses`` parts the sentence so)."""
    found = MONEY_FIGURE.search(text, start, end)
    assert found is not None
    return found


def _clauses(text: str) -> list[tuple[int, int]] | None:
    """The spans of ``text``'s clauses of one sum each (two or more), or None."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BREAK.finditer(text):
        before = text[: match.start()]
        if before.count("(") > before.count(")"):
            continue  # inside an aside in brackets
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    clauses: list[tuple[int, int]] = []
    opened: list[tuple[int, int]] = []  # the parts without a sum since the last clause
    for begin, end in spans:
        sums = len(MONEY_FIGURE.findall(text, begin, end))
        if sums > 1:
            return None
        if not sums:
            opened.append((begin, end))
            continue
        if opened and clauses and MONEY_FIGURE.match(text, begin):
            # "£10 for Adults and Seniors, and £5 for Children": a part that
            # does not open as a label is one more of the last sum's things
            lead = [span for span in opened if _LABEL.match(text, span[0])]
            if not lead:
                clauses[-1] = (clauses[-1][0], opened[-1][1])
                opened = []
        clauses.append((opened[0][0] if opened else begin, end))
        opened = []
    if opened:  # ", and students": one more of the last sum's things
        rest = text[opened[0][0] : opened[-1][1]]
        item = _ITEM.match(text, opened[0][0])
        if not clauses or _VERB.search(rest) or item is None or not _names(text, *item.span(1)):
            return None  # ", except on Bank Holidays", "but prices rise in August": every sum's
        if len(_WORD.findall(rest)) > 5:
            return None
        clauses[-1] = (clauses[-1][0], opened[-1][1])
    return clauses if len(clauses) > 1 else None


def _names(text: str, start: int, end: int) -> set[str]:
    """The stems of the names between ``start`` and ``end``: words written
    in capitals, not at the start of the sentence, and groups of people."""
    names: set[str] = set()
    piece = MONEY_FIGURE.sub(lambda m: " " * len(m.group(0)), text[start:end])
    for match in _WORD.finditer(piece):
        word = match.group(0)
        opening = not text[: start + match.start()].strip(" \"'“‘*_(")
        if (word[0].isupper() and not opening and word != "I") or _GROUP.fullmatch(word):
            lower = word.lower()
            names.add(_SAME_GROUP.get(lower, stem(lower)))
            if "-" in lower:  # "Off-Peak": as the question's terms have it ("offpeak")
                names.add(stem(lower.replace("-", "")))
    return names


def _first_name_at(text: str, start: int, end: int) -> int:
    """Where the first name between ``start`` and ``end`` begins (``end`` if none)."""
    for match in _WORD.finditer(text, start, end):
        if _names(text, match.start(), match.end()):
            return match.start()
    return end


def _lead(text: str, start: int, end: int) -> str:
    """The words that open the first clause up to a comma or a colon, where
    the clause names its thing after them ("During school holidays, adults
    pay £14", "Swimming: adults £5.20", "From 1 April 2026, the Main Hall
    costs"): every clause's. ``end``: where its sum begins."""
    cut = max(text.rfind(", ", start, end), text.rfind(": ", start, end))
    if cut < start or not _names(text, cut + 1, end):
        return ""
    return text[start : cut + 1].strip()
