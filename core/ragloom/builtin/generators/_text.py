"""Text handling of the ``extractive`` generator: content words (stopwords
dropped, light stemming) and sentences (Markdown-aware splitting)."""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "END_PUNCT",
    "GENERIC_STEMS",
    "MAX_UNIT_CHARS",
    "TOKEN",
    "content_terms",
    "header_cells",
    "only_links",
    "split_sentences",
    "stem",
]

_STOPWORD_TEXT = """
    a about above after again against all almost also am an and any anybody anyone anything
    are aren as at be because been before being below between both but by can cannot could
    couldn did didn do does doesn doing don done down during each either else etc ever every
    few for from further had hadn has hasn have haven having he her here hers herself him
    himself his how however i if in into is isn it its itself just least less let lets like
    ll may me might mine more most much must mustn my myself neither no nor not now of off
    often on once only or other otherwise our ours ourselves out over own per please quite
    rather re really s same shall shan she should shouldn since so some something such t than
    that the their theirs them themselves then there these they this those though through
    thus to too under until up upon us ve very via was wasn we were weren what whatever when
    whenever where whereas wherever whether which while who whoever whom whose why will with
    within without won would wouldn yes yet you your yours yourself yourselves
    d m o y ain co many one ones thing things kind kinds sort way ways lot lots
    tell explain describe show give list know want need get got let find say said see
    take takes taking took go goes going ok okay still
    anyone everyone someone possible able actually currently exactly mean means
    """
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""English function words plus the filler of questions ("tell me", "how much")."""

_FOREIGN_TEXT = """
    der die das und ist sind wie viele was wo wann warum ich nicht ein eine mein meine gibt
    habe hat kann le la les est une des du que quel quelle quels comment combien où pourquoi
    je mon ma mes el los las es qué cómo cuánto cuántos cuántas dónde hay tengo puedo mi och
    är hur många vad var när jag min mitt kan får det er og hvor mange hva hvordan jeg ikke
    il della che sono quanto quanti dove posso ho het een zijn hoeveel waar wanneer ik mijn
    kunnen qual quantos quantas tenho temos tem em não são está onde quando como uma meu minha
    """
_FOREIGN = frozenset(_FOREIGN_TEXT.split())
"""Function words of other languages a question opens or is built with."""
_LETTERS = re.compile(r"[^\W\d_]{2,}")


def reads_as_english(question: str) -> bool:
    """Whether a question reads as English, as far as its small words tell:
    not when none of them is English and two or more are another language's
    ("Wie viele Urlaubstage habe ich?", "Où est le bureau ?"). A question of
    fewer than three words, or of names only ("Zürich office address?",
    "Le Mans office hours?"), reads as English."""
    words = [w.lower() for w in _LETTERS.findall(question)]
    if len(words) < 3 or any(w in _STOPWORDS for w in words):
        return True
    return sum(w in _FOREIGN for w in words) < 2


_GENERIC_TEXT = """
    company companies organization organisation business product products service services
    people person user users customer customers team teams information info detail details
    thing stuff time times work use make system systems feature features option options
    document documents documentation doc docs page pages section sections example examples
    account accounts app apps application applications data file files setting settings
    tool tools platform
    """
_GENERIC = frozenset(_GENERIC_TEXT.split())
"""Nouns so general that matching only them says little; they weigh half."""

_ABBREVIATION_TEXT = """
    e.g i.e cf vs viz al mr mrs ms dr prof sr jr st mt ft rev gen gov sen rep col lt
    capt sgt
    """
_ABBREVIATIONS = frozenset(_ABBREVIATION_TEXT.split())
"""Words that end with a period without ending the sentence (case-insensitive)."""

_NUMBER_ABBREVIATION_TEXT = """
    no nos vol vols p pp ch sec fig figs eq eqs approx ca est art
    jan feb mar apr jun jul aug sep sept oct nov dec
    """
_NUMBER_ABBREVIATIONS = frozenset(_NUMBER_ABBREVIATION_TEXT.split())
"""Abbreviations that do not end a sentence when a number follows (``Fig. 3``, ``No. 5``)."""

TOKEN = re.compile(r"\w+", re.UNICODE)
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+\u2022\u2023\u25e6\u2043]|\d{1,3}[.)]|[a-z][.)]|[A-Z]\))\s+(.*)$")
_CELL_BORDER = re.compile(r"(?<!\\)\|")
"""A table row's cell border: a ``|`` not escaped as ``\\|``."""
_OUTER_BORDERS = re.compile(r"^\||(?<!\\)\|$")
"""A table row's first and last border (not an escaped ``\\|`` ending its last cell)."""
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HRULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_LINK_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*\S+")
_LINK = re.compile(r"!?\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_NAVIGATION = re.compile(r"!\[[^\]]*\]\([^)]*\)|\[[^\]]*\]\(#[^)]*\)")
_URL_OR_TAG = re.compile(r"(?:https?|ftp)://\S+|www\.\S+|<[^>\n]*>")
_SKIPPED_LINES = (_HRULE, _TABLE_RULE, _LINK_DEFINITION)


_TRAILING_PIPE = re.compile(r"(?<!\\)\|\s*$")


def _bare_row(line: str) -> bool:
    """Whether a line may be a row of a table without outer pipes: cells
    between unescaped ``|`` (not ``a || b``, not a lone ``|`` at an end)."""
    if "|" not in line or "||" in line or line.endswith("|"):
        return False
    return all(cell.strip() for cell in _CELL_BORDER.split(line))


_TERMINAL = ".!?:;\u2026\u3002\uff01\uff1f"
_SENTENCE_END = ".!?\u2026\u3002\uff01\uff1f"
"""What a finished sentence ends with (a line of one may be followed by a heading)."""
_BOUNDARY = re.compile(r"([.!?\u2026]+)([\"'\u201d\u2019)\]*_]*)(\s+)|([\u3002\uff01\uff1f])")
END_PUNCT = re.compile(r"([.!?\u2026\u3002\uff01\uff1f]+[\"'\u201d\u2019)\]*_]*)$")
MAX_UNIT_CHARS = 1000


def stem(word: str, *, derive: bool = True) -> str:
    """A light English suffix stripper: ``prices``, ``pricing``, ``priced`` -> ``pric``.

    Not a linguistic stemmer: it only has to map the forms of one word to
    the same key and keep different words apart often enough.
    """
    if len(word) <= 2 or not word.isalpha():
        return word
    if word in _STEM_EXCEPTIONS:
        return _STEM_EXCEPTIONS[word]
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and len(word) >= 4 and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("ied") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("ing") and len(word) >= 5 and _has_vowel(word[:-3]):
        word = _undouble(word[:-3])
    elif word.endswith("ed") and not word.endswith("eed") and _has_vowel(word[:-2]):
        word = _undouble(word[:-2])
    elif word.endswith("ly") and len(word) >= 6:
        word = word[:-2]
    if word.endswith("e") and len(word) >= 3:
        word = word[:-1]
    if word.endswith("ll") and len(word) >= 4:
        word = word[:-1]  # "cancelled"/"cancel", "installed"/"install" meet at one "l"
    if not derive:
        return word
    return _DERIVED.get(word) or _base_of(word) or word


def _base_of(word: str) -> str:
    """The verb a noun is made from, stemmed ("attachment" -> "attach",
    "deletion" -> "delet", "cancellation" -> "cancel", "allowance" ->
    "allow"), or "": a question's "Can I attach ..." and a document's "An
    attachment can be ..." speak of one thing. Only suffixes that make nouns
    of verbs, with a base of four letters or more, and not the words they
    would join to another ("department" is no "departure")."""
    if word in _NOT_DERIVED:
        return ""
    for suffix in _NOUN_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return stem(word[: -len(suffix)], derive=False)
    return ""


_NOUN_SUFFIXES = ("ation", "ition", "ion", "ment", "anc", "enc")
"""Suffixes that make a noun of a verb, longest first, as stemmed ("allowances":
"allowanc")."""
_NOT_DERIVED = frozenset(
    {
        "department", "apartment", "document", "comment", "statement", "supplement",
        "question", "station", "mention", "version", "session", "mission", "million",
        "billion", "opinion", "portion", "fashion", "champion", "cushion", "pension",
        "mansion", "region", "religion", "sentence", "distance", "instance", "entrance",
        "ambulance", "science", "audience", "evidence", "experience", "conference",
        "addition", "condition", "position", "tradition", "edition", "nutrition",
        "competition", "intention", "attention", "direction", "vision", "division",
        "collision", "emotion", "motion", "lotion", "potion", "ocean", "union", "onion",
        "allowance", "balance", "finance", "performance", "substance", "appearance",
        "basement", "production", "conversation", "conversion", "projection", "objection",
        "foundation", "presence", "passion", "partition", "importance", "clearance",
        "expression", "impression", "presentation", "correction", "placement", "fraction",
        "relation", "generation", "operation", "ration", "nation",
    }
)  # fmt: skip
"""Nouns that are not what their verb-like start says."""
_NOT_DERIVED = frozenset(word.removesuffix("e") for word in _NOT_DERIVED)
_DERIVED = {
    "payment": "pay", "repayment": "repay", "rental": "rent", "renewal": "renew",
    "arrival": "arriv", "removal": "remov", "approval": "approv", "refusal": "refus",
    "withdrawal": "withdraw", "dismissal": "dismiss", "disposal": "dispos",
    "departur": "depart", "closur": "clos", "failur": "fail", "disclosur": "disclos",
    "exposur": "expos", "respons": "respond", "delivery": "deliver", "discovery": "discover",
    "recovery": "recover", "weight": "weigh",
}  # fmt: skip
"""Verbs' nouns (as stemmed: "departur") the suffix rules miss, with their verb's stem ("payment":
"pay" is too short a base; "-al" and "-ure" make adjectives and other
nouns too)."""


SMALL_NUMBERS = {
    word: n
    for n, word in enumerate(
        ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
        start=1,
    )
} | {"eleven": 11, "twelve": 12}
"""Numbers in words, one to twelve ("after two months", "a two-year-old")."""

# "founded" must not meet "found" (of "find"); it meets "founder" instead.
_STEM_EXCEPTIONS = {
    **dict.fromkeys(["founded", "founding"], "founded"),
    **dict.fromkeys(["founder", "founders"], "founder"),
    # irregular forms that mean the same thing as a regular one
    "kept": "keep",
    # words for what something costs: one key
    **dict.fromkeys(["price", "prices", "priced", "pricing", "cost", "costs", "costing"], "cost"),
    # a number in words is the number ("a family of four", "cooks for 3 to 4 people")
    # (from two on: "one" is a pronoun as often as a number)
    **{word: str(n) for word, n in SMALL_NUMBERS.items() if n > 1},
}
"""``founded`` must not meet ``found`` (of "find"), nor ``founders`` (people)."""


def _has_vowel(text: str) -> bool:
    return any(ch in "aeiouy" for ch in text)


def _undouble(word: str) -> str:
    # "stopped" -> "stop", but "added" -> "add" (as "add"), not "ad"
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "aeioulsz":
        return word[:-1]
    return word


def content_terms(text: str) -> list[str]:
    """The stemmed content words of ``text``, in order, stopwords dropped; a
    hyphenated word also as one (``e-books``: ``book`` and ``ebook``, so that
    it is told apart from "books")."""
    out = []
    text = _URL_OR_TAG.sub(" ", _LINK.sub(r"\1", text)).lower()
    for token in TOKEN.findall(text):
        if token in _STOPWORDS or (len(token) < 2 and not token.isdigit()):
            continue
        out.append(stem(token))
    out.extend(stem(word.replace("-", "")) for word in _HYPHENATED.findall(text))
    return out


_HYPHENATED = re.compile(r"\b[^\W\d_]+(?:-[^\W\d_]+)+\b")
"""A word of letters joined by hyphens (``e-book``, ``high-altitude``)."""


GENERIC_STEMS = frozenset(stem(word) for word in _GENERIC)


def header_cells(header: object) -> tuple[str, ...]:
    """A Markdown table's header row (``| Plan | Price |``) as its cells;
    ``()`` for anything else."""
    if not isinstance(header, str) or not header.strip().startswith("|"):
        return ()
    stripped = header.strip()
    return tuple(
        cell.strip().replace("\\|", "|")
        for cell in _CELL_BORDER.split(_OUTER_BORDERS.sub("", stripped))
    )


def split_sentences(text: str, *, kinds: bool = False, cells: bool = False) -> list[Any]:
    """Split ``text`` into sentences.

    Markdown headings, bullet items, table rows and code lines are units of
    their own; the lines of a paragraph are joined, then split after ``.``,
    ``!`` or ``?`` followed by space and a word that does not start in lower
    case, except after abbreviations (``e.g.``, ``Dr.``), initials and
    numbers (``1.5`` never splits). With ``kinds=True`` each item is
    ``(sentence, kind)``, kind one of ``heading``, ``sentence``, ``bullet``,
    ``header`` (a table's first row), ``row``, ``code``. With ``cells=True``
    too, each item is ``(sentence, kind, cells)``: a table row's cells in
    their places, empty ones included (a row's sentence leaves them out),
    else ``()``.
    """
    out: list[tuple[str, str]] = []
    row_cells: dict[int, tuple[str, ...]] = {}  # by index in ``out``
    paragraph: list[str] = []
    in_code = False
    in_quote = False  # the paragraph's lines are a blockquote's ("> ...")

    def flush() -> None:
        if paragraph:
            joined = " ".join(line.strip() for line in paragraph)
            out.extend((sentence, "sentence") for sentence in _split_paragraph(joined))
            paragraph.clear()

    lines = text.splitlines()
    aligned = _aligned_rows(lines)
    bare_table = 0  # the cells of a table written without outer pipes, while in one
    for i, line in enumerate(lines):
        stripped = line.strip()
        if _FENCE.match(line):
            flush()
            in_code = not in_code
            continue
        if in_code:
            if stripped:
                out.append((stripped, "code"))
            continue
        if i in aligned:  # a table laid out in columns of spaces (a PDF's, a text file's)
            flush()
            kind, row = aligned[i]
            row_cells[len(out)] = row
            out.append((" | ".join(cell for cell in row if cell), kind))
            continue
        if not stripped or any(rule.match(line) for rule in _SKIPPED_LINES):
            flush()
            if not stripped:
                bare_table = 0  # a blank line ends a table
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            bare_table = 0
            if heading.group(2):
                out.append((heading.group(2), "heading"))
            continue
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if not stripped.startswith("|") and "|" in stripped:
            # a GitHub table without outer pipes ("Week | Primary", then a
            # "-----|-----" rule): its header, then the lines of as many cells
            # (empty ones too), before a title or a heading could take a row
            body = stripped[:-1] if _TRAILING_PIPE.search(stripped) else stripped
            if _bare_row(body) and _TABLE_RULE.match(following) and "|" in following:
                bare_table = len(_CELL_BORDER.split(body))
            if bare_table:  # as GitHub reads one: a row short of cells has them empty
                parts = _CELL_BORDER.split(stripped)
                parts += [""] * (bare_table - len(parts))
                stripped = f"|{'|'.join(parts[:bare_table])}|"
        else:  # (a rule line was skipped above)
            bare_table = 0
        if _SETEXT.match(following) and not paragraph and not _BULLET.match(line):
            out.append((stripped, "heading"))
            continue
        if _SETEXT.match(line) and out and out[-1][1] == "heading":
            continue
        if (
            (not paragraph or paragraph[-1][-1] in _SENTENCE_END)
            and _looks_like_title(lines, i)
            and not _BULLET.match(line)
        ):
            flush()
            out.append((stripped, "heading"))
            continue
        if stripped.startswith("|") and stripped.count("|") >= 2:
            flush()
            row = [
                cell.strip().replace("\\|", "|")
                for cell in _CELL_BORDER.split(_OUTER_BORDERS.sub("", stripped))
            ]
            kind = "header" if _TABLE_RULE.match(following) else "row"
            row_cells[len(out)] = tuple(row)
            out.append((" | ".join(cell for cell in row if cell), kind))
            continue
        bullet = _BULLET.match(line)
        if bullet:
            flush()
            paragraph.append(bullet.group(1))
            out.append(("", "marker"))
            continue
        quoted = stripped.startswith(">")
        # a line right under a quote's, with no ">", goes on with it (Markdown's
        # lazy continuation: "> back up first, because\nthe migrations ...")
        lazy = not quoted and in_quote and bool(paragraph)
        if quoted != in_quote and not lazy:
            # a reply's quoted text and its "... wrote:" line, or the reply
            # after it, are no one paragraph: each is quoted as it stands
            flush()
            in_quote = quoted
        if quoted:
            stripped = stripped.lstrip("> ").strip()
            if not stripped:
                flush()
                continue
        paragraph.append(stripped)
    flush()

    # A bullet's text (and its continuation lines) was split like a paragraph;
    # mark the pieces that followed a bullet marker as bullets.
    result: list[tuple[str, str, tuple[str, ...]]] = []
    bullet_next = False
    for index, (sentence, kind) in enumerate(out):
        if kind == "marker":
            bullet_next = True
            continue
        if bullet_next and kind == "sentence":
            kind = "bullet"
        bullet_next = False
        if len(sentence) > MAX_UNIT_CHARS:
            pieces = [p.strip() for p in re.split(r"(?<=[;:])\s+", sentence) if p.strip()]
        else:
            pieces = [sentence]
        row = row_cells.get(index, ()) if len(pieces) == 1 else ()
        result.extend((piece, kind, row) for piece in pieces)
    if cells:
        return result
    return [(s, k) for s, k, _ in result] if kinds else [s for s, _, _ in result]


def _split_paragraph(paragraph: str) -> list[str]:
    paragraph = re.sub(r"\s+", " ", paragraph).strip()
    sentences = []
    start = 0
    for match in _BOUNDARY.finditer(paragraph):
        if match.group(4):  # CJK full stop: always a boundary
            end = match.end()
            sentences.append(paragraph[start:end].strip())
            start = end
            continue
        end = match.end(2)
        after = paragraph[match.end() : match.end() + 1]
        if not after or after.islower():
            continue
        if match.group(1) == "." and _is_abbreviation(paragraph[start : match.start(1)], after):
            continue
        sentences.append(paragraph[start:end].strip())
        start = match.end()
    rest = paragraph[start:].strip()
    if rest:
        sentences.append(rest)
    return [s for s in sentences if s]


def only_links(text: str) -> bool:
    """Whether ``text`` is nothing but in-page links and images (a table of
    contents entry, a row of badges)."""
    previous = None
    rest = text
    while rest != previous:  # badges nest an image inside a link
        previous, rest = rest, _NAVIGATION.sub(" ", rest)
        rest = re.sub(r"\[\s*\]\([^)]*\)", " ", rest)
    rest = _URL_OR_TAG.sub(" ", rest)
    return rest != text and not TOKEN.search(rest)


def _looks_like_title(lines: list[str], i: int) -> bool:
    """A short line alone between blank lines, without final punctuation or
    digits: a plain-text heading ("Installation", "License"). Or a line in
    title case that opens a block, with no final punctuation, right above a
    line that starts a sentence: a PDF's title ("Riverbend Bike Co-op Annual
    Report 2024", then "In 2024 the co-op had ..."), which would otherwise
    run into the first sentence. Or, with no blank line around it (a PDF's
    text), a short line between a finished sentence and one that begins,
    three times shorter than the longer of them: no wrapped line of the
    text is that short."""
    line = lines[i].strip()
    before = lines[i - 1].strip() if i > 0 else ""
    after = lines[i + 1].strip() if i + 1 < len(lines) else ""
    following = lines[i + 2].strip() if i + 2 < len(lines) else ""
    if line[-1] in _TERMINAL or not line[0].isupper() or _FIELD_LINE.match(line):
        return False
    # a PDF's or a text file's heading with no blank line under it ("How we
    # measure" between a sentence's end and "We measure pans ..."): a short
    # line after a finished sentence (or none), over a sentence that begins,
    # and too short to be a wrapped line of the text around it
    if (
        (not before or before[-1] in _SENTENCE_END)
        and after
        and after[0].isupper()
        and len(line.split()) <= 8
        # (a fact without a period is no heading: "Closed on Sundays", "Paris
        # staff get 30 days")
        and not any(ch.isdigit() for ch in line)
        and line.split()[0].lower() not in _FACT_OPENERS
        and 3 * len(line) <= max(len(before), len(after))
        and not _BULLET.match(after)
        and not _HEADING.match(after)
    ):
        return True
    if before:
        return False
    if not after:
        return bool(following) and len(line.split()) <= 6 and not any(ch.isdigit() for ch in line)
    words = line.split()
    return (
        2 <= len(words) <= 10
        and after[0].isupper()
        and all(w[0].isupper() or w[0].isdigit() or w.lower() in _TITLE_SMALL for w in words)
        and sum(w[0].isupper() for w in words) >= 2
    )


_COLUMN_GAP = re.compile(r"\s{2,}|\t")
_NO_CELL = re.compile(r"[-=:#>*•(\[{]|[a-z0-9][.)]$|--")
"""What opens no cell of a table: a bullet ("a)", "-"), a setting's "= value",
an option's "--port", code."""


def _aligned_rows(lines: list[str]) -> dict[int, tuple[str, tuple[str, ...]]]:
    """The lines of tables laid out with runs of spaces between their cells
    (a PDF's text, a plain-text file): three lines or more in a row, each
    with the same number of cells (two to eight), each cell starting where
    the one above it does, none ending a sentence or opening as a bullet, a
    setting or an option does; the first a header of words (no figures)
    over rows that give figures ("Seedlings    3-23 months    1:3").
    Justified or spaced-out prose, a settings file and an options list are
    no such table."""
    found: dict[int, tuple[str, tuple[str, ...]]] = {}

    def cells(line: str) -> tuple[tuple[int, str], ...]:
        if "|" in line or ("\t" not in line and "  " not in line.strip()):
            return ()
        parts, at = [], 0
        for piece in _COLUMN_GAP.split(line.rstrip()):
            at = line.index(piece, at) if piece else at
            if piece:
                parts.append((at, piece))
            at += len(piece)
        if not 2 <= len(parts) <= 8 or any(
            p[-1] in _SENTENCE_END or _NO_CELL.match(p) for _, p in parts
        ):
            return ()
        return tuple(parts)

    def table(block: list[tuple[tuple[int, str], ...]]) -> bool:
        starts = [[at for at, _ in row] for row in block]
        aligned = all(abs(a - b) <= 1 for row in starts[1:] for a, b in zip(row, starts[0]))
        header = not any(ch.isdigit() for _, cell in block[0] for ch in cell)
        figures = sum(any(ch.isdigit() for _, cell in row for ch in cell) for row in block[1:])
        return aligned and header and 2 * figures >= len(block) - 1

    split = [cells(line) for line in lines]
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and split[j] and len(split[j]) == len(split[i]):
            j += 1
        if j - i >= 3 and table(split[i:j]):
            found[i] = ("header", tuple(cell for _, cell in split[i]))
            found.update((k, ("row", tuple(cell for _, cell in split[k]))) for k in range(i + 1, j))
        i = max(j, i + 1)
    return found


_FACT_OPENERS = frozenset(
    {"closed", "open", "opens", "no", "not", "yes", "only", "free", "never", "always",
     "none", "all", "every", "each", "must", "do", "don't", "please"}
)  # fmt: skip
"""First words of a short line that says something ("Closed on Sundays")."""

_FIELD_LINE = re.compile(r"[^\W\d_][\w-]*(?: [\w-]+){0,2}:\s+[a-z0-9]")
"""A field and its value in lower case or figures ("Status: discontinued",
"Version: 2.3"): a line that says something, not a heading over what follows
("Appendix: Firmware Update", "Chapter 3: Safety" are headings)."""

_TITLE_SMALL = frozenset(
    {"of", "and", "the", "for", "in", "on", "to", "a", "an", "at", "&", "-", "–", "—", "|", "/"}
)
"""Words a title leaves in lower case."""


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _is_abbreviation(before: str, after: str) -> bool:
    """Whether the text before a period ends in an abbreviation or an initial;
    ``after`` is the first character of what follows."""
    word = before.rsplit(None, 1)[-1] if before.strip() else ""
    word = word.lstrip("(\"'[\u201c\u2018*_")  # (and Markdown emphasis: "**Dr.")
    if not word:
        return False
    if len(word) == 1 and word.isalpha():
        # (but a unit after a number ends a sentence: "boats up to 10 m. Lift out ...")
        words = before.split()
        return not (word.islower() and len(words) >= 2 and _NUMBER.fullmatch(words[-2]))
        # an initial: "J. Smith", or "e" of "e.g." split oddly
    lowered = word.lower()
    if lowered in _ABBREVIATIONS:
        return True
    if lowered in _NUMBER_ABBREVIATIONS and after.isdigit():
        return True
    # dotted abbreviations: "e.g", "i.e", "U.S", "a.m", "p.m"
    return bool(re.fullmatch(r"(?:[a-z]\.)+[a-z]", lowered))
