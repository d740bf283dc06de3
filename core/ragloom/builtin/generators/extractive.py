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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import Field, field_validator

from ...components import ComponentConfig, Generator, Message
from ...types import Answer, Chunk, Citation, Hit

__all__ = ["NOT_FOUND", "ExtractiveGenerator", "split_sentences", "stem"]

NOT_FOUND = "I could not find information about this in the indexed documents."

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
    anyone everyone someone possible able actually currently exactly mean means
    """
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""English function words plus the filler of questions ("tell me", "how much")."""

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

_TOKEN = re.compile(r"\w+", re.UNICODE)
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+\u2022\u2023\u25e6\u2043]|\d{1,3}[.)]|[a-z][.)]|[A-Z]\))\s+(.*)$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HRULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_LINK_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*\S+")
_LINK = re.compile(r"!?\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_NAVIGATION = re.compile(r"!\[[^\]]*\]\([^)]*\)|\[[^\]]*\]\(#[^)]*\)")
_URL_OR_TAG = re.compile(r"(?:https?|ftp)://\S+|www\.\S+|<[^>\n]*>")
_SKIPPED_LINES = (_HRULE, _TABLE_RULE, _LINK_DEFINITION)
_TERMINAL = ".!?:;\u2026\u3002\uff01\uff1f"
_BOUNDARY = re.compile(r"([.!?\u2026]+)([\"'\u201d\u2019)\]*_]*)(\s+)|([\u3002\uff01\uff1f])")
_END_PUNCT = re.compile(r"([.!?\u2026\u3002\uff01\uff1f]+[\"'\u201d\u2019)\]*_]*)$")
_CONTEXT_WEIGHT = 0.5
_CODE_WEIGHT = 0.5
_BACKGROUND = 5
_METADATA = {"generator": "extractive"}
_GENERIC_WEIGHT = 0.5
_RANK_BONUS = 0.05
_MAX_UNIT_CHARS = 1000


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
        terms = content_terms(question)
        if not hits or not terms:
            return _not_found(question, hits)
        units = _units_of(hits)
        if not units:
            return _not_found(question, hits)
        weights = _term_weights(set(terms), units)
        total = sum(weights.values())
        candidates: list[tuple[float, float, _Unit]] = []
        n_hits = len(hits)
        for unit in units:
            if not unit.answer:
                continue
            covered = 0.0
            for term, weight in weights.items():
                if term in unit.terms:
                    covered += weight
                elif term in unit.context:
                    covered += _CONTEXT_WEIGHT * weight
            coverage = unit.weight * covered / total
            score = coverage + _RANK_BONUS * (1.0 - unit.rank / n_hits)
            candidates.append((coverage, score, unit))
        if not candidates:
            return _not_found(question, hits)
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
        chosen: list[_Unit] = []
        seen: set[str] = set()
        for _, unit in eligible:
            key = " ".join(_TOKEN.findall(unit.text.lower()))
            if key in seen:
                continue
            seen.add(key)
            chosen.append(unit)
            if len(chosen) >= self.config.max_sentences:
                break
        chosen.sort(key=lambda unit: (unit.rank, unit.position))
        numbers: dict[str, int] = {}
        quotes: dict[str, list[str]] = {}
        parts: list[str] = []
        for unit in chosen:
            chunk_id = unit.chunk.id
            if chunk_id not in numbers:
                numbers[chunk_id] = len(numbers) + 1
                quotes[chunk_id] = []
            quotes[chunk_id].append(unit.text)
            parts.append(_with_marker(unit.text, numbers[chunk_id]))
        cited = {unit.chunk.id: unit.chunk for unit in chosen}
        citations = tuple(
            Citation(
                number=number,
                chunk_id=chunk_id,
                label=cited[chunk_id].label,
                source=cited[chunk_id].source,
                quote=" \u2026 ".join(quotes[chunk_id]),
            )
            for chunk_id, number in numbers.items()
        )
        return Answer(
            question=question,
            text=" ".join(parts),
            citations=citations,
            hits=hits,
            grounded=True,
            metadata=dict(_METADATA),
        )


def _not_found(question: str, hits: tuple[Hit, ...]) -> Answer:
    return Answer(question, NOT_FOUND, hits=hits, grounded=False, metadata=dict(_METADATA))


def _with_marker(sentence: str, number: int) -> str:
    """``Sentence one.`` -> ``Sentence one [1].``; adds a period where none ends it."""
    match = _END_PUNCT.search(sentence)
    if match:
        body = sentence[: match.start()].rstrip()
        return f"{body} [{number}]{match.group(1)}"
    return f"{sentence.rstrip(' :;,')} [{number}]."


# --- terms -----------------------------------------------------------------


def stem(word: str) -> str:
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
    return word


# "founded" must not meet "found" (of "find"); it meets "founder" instead.
_STEM_EXCEPTIONS = dict.fromkeys(["founded", "founding", "founder", "founders"], "founder")


def _has_vowel(text: str) -> bool:
    return any(ch in "aeiouy" for ch in text)


def _undouble(word: str) -> str:
    if len(word) >= 3 and word[-1] == word[-2] and word[-1] not in "aeioulsz":
        return word[:-1]
    return word


def content_terms(text: str) -> list[str]:
    """The stemmed content words of ``text``, in order, stopwords dropped."""
    out = []
    text = _URL_OR_TAG.sub(" ", _LINK.sub(r"\1", text))
    for token in _TOKEN.findall(text.lower()):
        if token in _STOPWORDS or (len(token) < 2 and not token.isdigit()):
            continue
        out.append(stem(token))
    return out


def _term_weights(terms: set[str], units: Sequence[_Unit]) -> dict[str, float]:
    """IDF over the units (BM25's form, always positive), halved for generic nouns.

    ``_BACKGROUND`` sentences without any question term are added to the
    count, so that with only a few sentences a word they all share still
    weighs something.
    """
    n = len(units) + _BACKGROUND
    df: Counter[str] = Counter()
    for unit in units:
        df.update(terms & unit.terms)
    weights = {}
    for term in terms:
        idf = math.log(1.0 + (n - df[term] + 0.5) / (df[term] + 0.5))
        weights[term] = idf * (_GENERIC_WEIGHT if term in _GENERIC_STEMS else 1.0)
    return weights


_GENERIC_STEMS = frozenset(stem(word) for word in _GENERIC)


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
    weight: float = 1.0


def _units_of(hits: Sequence[Hit]) -> list[_Unit]:
    units: list[_Unit] = []
    seen_chunks: set[str] = set()
    for rank, hit in enumerate(hits):
        chunk = hit.chunk
        if chunk.id in seen_chunks:
            continue
        seen_chunks.add(chunk.id)
        section = chunk.metadata.get("section")
        context = frozenset(content_terms(section)) if isinstance(section, str) else frozenset()
        for position, (text, kind) in enumerate(split_sentences(chunk.text, kinds=True)):
            terms = frozenset(content_terms(text))
            is_question = kind in {"sentence", "bullet"} and text.rstrip("\"')]*_ ").endswith("?")
            answer = (
                kind in {"sentence", "bullet", "row", "code"}
                and not is_question
                and bool(terms)
                and not _only_links(text)
            )
            weight = _CODE_WEIGHT if kind == "code" else 1.0
            units.append(_Unit(text, chunk, rank, position, answer, terms, context, weight))
            if kind in {"heading", "header"} or is_question:
                context = terms
    return units


def split_sentences(text: str, *, kinds: bool = False) -> list[Any]:
    """Split ``text`` into sentences.

    Markdown headings, bullet items, table rows and code lines are units of
    their own; the lines of a paragraph are joined, then split after ``.``,
    ``!`` or ``?`` followed by space and a word that does not start in lower
    case, except after abbreviations (``e.g.``, ``Dr.``), initials and
    numbers (``1.5`` never splits). With ``kinds=True`` each item is
    ``(sentence, kind)``, kind one of ``heading``, ``sentence``, ``bullet``,
    ``header`` (a table's first row), ``row``, ``code``.
    """
    out: list[tuple[str, str]] = []
    paragraph: list[str] = []
    in_code = False

    def flush() -> None:
        if paragraph:
            joined = " ".join(line.strip() for line in paragraph)
            out.extend((sentence, "sentence") for sentence in _split_paragraph(joined))
            paragraph.clear()

    lines = text.splitlines()
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
        if not stripped or any(rule.match(line) for rule in _SKIPPED_LINES):
            flush()
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            if heading.group(2):
                out.append((heading.group(2), "heading"))
            continue
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if _SETEXT.match(following) and not paragraph and not _BULLET.match(line):
            out.append((stripped, "heading"))
            continue
        if _SETEXT.match(line) and out and out[-1][1] == "heading":
            continue
        if not paragraph and _looks_like_title(lines, i) and not _BULLET.match(line):
            out.append((stripped, "heading"))
            continue
        if stripped.startswith("|") and stripped.count("|") >= 2:
            flush()
            cells = [cell.strip() for cell in stripped.strip("|").split("|")]
            kind = "header" if _TABLE_RULE.match(following) else "row"
            out.append((" | ".join(cell for cell in cells if cell), kind))
            continue
        bullet = _BULLET.match(line)
        if bullet:
            flush()
            paragraph.append(bullet.group(1))
            out.append(("", "marker"))
            continue
        if stripped.startswith(">"):
            stripped = stripped.lstrip("> ").strip()
            if not stripped:
                flush()
                continue
        paragraph.append(stripped)
    flush()

    # A bullet's text (and its continuation lines) was split like a paragraph;
    # mark the pieces that followed a bullet marker as bullets.
    result: list[tuple[str, str]] = []
    bullet_next = False
    for sentence, kind in out:
        if kind == "marker":
            bullet_next = True
            continue
        if bullet_next and kind == "sentence":
            kind = "bullet"
        bullet_next = False
        if len(sentence) > _MAX_UNIT_CHARS:
            pieces = [p.strip() for p in re.split(r"(?<=[;:])\s+", sentence) if p.strip()]
        else:
            pieces = [sentence]
        result.extend((piece, kind) for piece in pieces)
    return result if kinds else [sentence for sentence, _ in result]


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


def _only_links(text: str) -> bool:
    """Whether ``text`` is nothing but in-page links and images (a table of
    contents entry, a row of badges)."""
    previous = None
    rest = text
    while rest != previous:  # badges nest an image inside a link
        previous, rest = rest, _NAVIGATION.sub(" ", rest)
        rest = re.sub(r"\[\s*\]\([^)]*\)", " ", rest)
    rest = _URL_OR_TAG.sub(" ", rest)
    return rest != text and not _TOKEN.search(rest)


def _looks_like_title(lines: list[str], i: int) -> bool:
    """A short line alone between blank lines, without final punctuation or
    digits: a plain-text heading ("Installation", "License")."""
    line = lines[i].strip()
    before = lines[i - 1].strip() if i > 0 else ""
    after = lines[i + 1].strip() if i + 1 < len(lines) else ""
    following = lines[i + 2].strip() if i + 2 < len(lines) else ""
    return (
        not before
        and not after
        and bool(following)
        and len(line.split()) <= 6
        and line[-1] not in _TERMINAL
        and not any(ch.isdigit() for ch in line)
        and line[0].isupper()
    )


def _is_abbreviation(before: str, after: str) -> bool:
    """Whether the text before a period ends in an abbreviation or an initial;
    ``after`` is the first character of what follows."""
    word = before.rsplit(None, 1)[-1] if before.strip() else ""
    word = word.lstrip("(\"'[\u201c\u2018")
    if not word:
        return False
    if len(word) == 1 and word.isalpha():
        return True  # an initial: "J. Smith", or "e" of "e.g." split oddly
    lowered = word.lower()
    if lowered in _ABBREVIATIONS:
        return True
    if lowered in _NUMBER_ABBREVIATIONS and after.isdigit():
        return True
    # dotted abbreviations: "e.g", "i.e", "U.S", "a.m", "p.m"
    return bool(re.fullmatch(r"(?:[a-z]\.)+[a-z]", lowered))
