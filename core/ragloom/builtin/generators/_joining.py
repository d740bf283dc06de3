"""A question of two parts: each part's answer held to what the part asks, and
the answers joined into one cited answer.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from ...terminal import clean
from ...types import Answer, Chunk, Citation, Hit
from ._current import is_deprecated
from ._figures import MONEY_FIGURE
from ._kind_words import of_kinds_said
from ._messages import _METADATA, FROM_DEPRECATED, UNANSWERED_PART
from ._parts import Part
from ._questions import TYPE_WORDS, main_question
from ._text import END_PUNCT, content_terms
from ._units import _where


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
        # ("Pets in the cabin cost £50 each way" is said of "my dog")
        near |= of_kinds_said(piece, subject - near)
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
            if any(_covers(said, text) for said, _, _ in pieces):
                continue
            if answer.metadata.get("deprecated"):
                flagged.add(chunk.document_id)
            # ("... £11 a month for cats. It covers boosters ..." in place of its first sentence)
            # (in the place, and as the part, of what it says more of)
            covered = [i for i, piece in enumerate(pieces) if _covers(text, piece[0])]
            at, owner = (covered[0], pieces[covered[0]][2]) if covered else (len(pieces), whose)
            pieces[:] = [piece for i, piece in enumerate(pieces) if i not in covered]
            pieces.insert(at, (text, chunk, owner))

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


_SAID_WORD = re.compile(r"[^\s,.;:]+")
"""A word as said, its figures whole ("£1,200")."""


def _covers(said: str, text: str) -> bool:
    """Whether ``said`` says all that ``text`` does: holds it, or, for a row
    said column by column ("Pitch: Tent pitch; Sleeps: 2 adults"), holds
    each of its columns (a part asked of one column, the whole of them all),
    or holds the clause it is of a sentence ("The Loft £1,200." of "...,
    The Loft £1,200, and ...")."""
    if text in said or text.rstrip(".") in said:
        return True
    if MONEY_FIGURE.search(text) and set(_SAID_WORD.findall(text)) <= set(_SAID_WORD.findall(said)):
        return True  # ("The Loft £1,200 per evening" of "... per evening, The Loft £1,200, ...")
    fields = text.split("; ")
    return len(fields) > 1 and set(fields) <= set(said.split("; "))
