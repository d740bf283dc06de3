"""A chat model's reply made into an answer's text, as it streams:
citation markers checked and renumbered (:class:`CitationRewriter`), and
everything else a reply must lose before a caller sees it
(:class:`AnswerWriter`): escape sequences, outer whitespace, a list of
sources the model appends. The pieces shown are exactly the final text,
however the reply is cut into pieces.

Every scan here is bounded by the piece it reads (plus a few held-back
characters): a model looping on newlines until ``max_tokens`` costs linear
time, not quadratic.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .terminal import clean
from .types import Citation, Hit

__all__ = ["MARKER", "AnswerWriter", "CitationRewriter", "marker_numbers", "quote_of"]

MARKER = re.compile(
    r"[ \t]?(?:\[(\d{1,6}(?:\s*,\s*\d{1,6})*)\]"
    r"|(?:(?<![\w\]])\[|【)[ \t]*(?:(?:source|passage)s?[ \t]*)?"
    r"(\d{1,6}(?:[ \t]*[,;–-][ \t]*(?:(?:source|passage)[ \t]*)?\d{1,6})*)[ \t]*(?:\]|】))",
    re.IGNORECASE,
)
"""A citation marker as models write them: ``[2]``, ``[1, 3]`` (with the
space before it); and the look-alikes they also write: ``[ 2 ]``, ``[1-3]``,
``[Source 2]`` (not right after a word: ``arr[ 2 ]`` is code), ``【1】``.
A look-alike that names no passages in order (``[2024-01-15]``, ``[0-9]``,
``[3-1]``) is left as written: :func:`marker_numbers`."""
_OPEN_MARKER = re.compile(r"(?:\[|【)[\w \t,;–-]{0,32}$")
"""The start of a marker at a piece's end (``[1``, ``[1, ``, ``[Sour``): the
next piece decides it."""
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.MULTILINE)
"""A line that opens or closes a fenced code block: markers inside are code."""
_FENCE_STARTS = ("`", "``", "~", "~~")
_RANGE = re.compile(r"(\d+)[ \t]*[–-][ \t]*(?:(?:source|passage)[ \t]*)?(\d+)", re.IGNORECASE)
_MAX_RANGE = 20


def quote_of(hit: Hit, limit: int = 300) -> str:
    """The start of a hit's text, whitespace folded and without terminal
    escape sequences (:func:`ragloom.terminal.clean`): what a citation
    quotes, which applications print."""
    text = clean(" ".join(hit.chunk.text.split()))
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def marker_numbers(match: re.Match[str], sources: int) -> list[int] | None:
    """The passage numbers a :data:`MARKER` names, ranges spelled out
    (``[1-3]`` is 1, 2, 3); None when it is no citation: a look-alike with a
    range out of order or beyond the ``sources`` given (a date, a character
    class). A plain ``[n]`` is always one (naming no passage, it is forged)."""
    if match.group(1) is not None:
        return [int(part) for part in match.group(1).split(",")]
    numbers: list[int] = []
    for part in re.split(r"[,;]", match.group(2)):
        span = _RANGE.search(part)
        if span is None:
            numbers.append(int(re.sub(r"\D", "", part)))
            continue
        first, last = int(span.group(1)), int(span.group(2))
        if not 1 <= first < last <= min(first + _MAX_RANGE, sources):
            return None
        numbers.extend(range(first, last + 1))
    return numbers


class CitationRewriter:
    """Renumbers the citation markers of an answer as it is written.

    ``sources`` maps each number the writer may cite to its hit (for an LLM,
    the passage numbers of its prompt). Markers are renumbered 1, 2, 3... in
    the order sources are first cited; a marker naming a number not in
    ``sources`` (a forged or hallucinated one) is removed and recorded in
    ``dropped``. Works on a whole text (``feed`` then ``finish``) or piece by
    piece as a model streams it: a piece ending inside a marker (``[1``) is
    held back until the marker is complete, and so are the spaces before it
    (they go with a forged marker). Inside a fenced code block (```` ``` ````
    or ``~~~`` lines) nothing is rewritten: ``sources = [1, 2]`` is code.
    """

    def __init__(self, sources: Mapping[int, Hit]) -> None:
        self.sources = dict(sources)
        self.numbers: dict[int, int] = {}  # source number -> number in the answer
        self.dropped: list[int] = []
        self._pending = ""
        self._before = ""  # the last character written: what a marker comes after
        self._fence = ""  # the fence of the code block the text is in ("" outside)
        self._text: list[str] = []

    def feed(self, piece: str) -> str:
        """The part of ``piece`` that can be shown now, markers rewritten."""
        text = self._pending + piece
        cut = len(text.rstrip(" \t"))  # spaces may go with a marker that follows
        window = max(cut - 40, 0)
        tail = _OPEN_MARKER.search(text, window, cut) if cut else None
        if tail is not None and tail.end() == cut:
            cut = len(text[: tail.start()].rstrip(" \t"))
            cut = max(cut, tail.start() - 1)  # one space before a marker is the marker's
        line = text.rfind("\n", 0, cut) + 1  # a fence's line is decided whole
        if _FENCE.match(text, line, cut) or text[line:cut].strip(" \t") in _FENCE_STARTS:
            cut = line
        text, self._pending = text[:cut], text[cut:]
        return self._write(text)

    def finish(self) -> str:
        """What was held back, once the writer is done."""
        pending, self._pending = self._pending, ""
        return self._write(pending)

    def _write(self, text: str) -> str:
        """``text`` with its markers rewritten, read after what came before
        (``arr[ 2 ]`` is code however the pieces fell)."""
        joined, start = self._before + text, len(self._before)
        parts, at = [], start
        for fence in _FENCE.finditer(joined, start):
            parts.append(self._markers(joined, at, fence.end()))
            token = fence.group(1)
            if not self._fence:
                self._fence = token
            elif token[0] == self._fence[0] and len(token) >= len(self._fence):
                self._fence = ""
            at = fence.end()
        parts.append(self._markers(joined, at, len(joined)))
        out = "".join(parts)
        if text:
            self._before = text[-1]
        self._text.append(out)
        return out

    def _markers(self, joined: str, start: int, end: int) -> str:
        """``joined[start:end]`` with its markers rewritten, unless it is code."""
        if self._fence:
            return joined[start:end]
        parts, at = [], start
        for match in MARKER.finditer(joined, start, end):
            parts.extend((joined[at : match.start()], self._rewrite(match)))
            at = match.end()
        parts.append(joined[at:end])
        return "".join(parts)

    @property
    def text(self) -> str:
        """Everything rewritten so far."""
        return "".join(self._text)

    def rewrite(self, text: str) -> str:
        """A whole text, rewritten."""
        return self.feed(text) + self.finish()

    def _rewrite(self, match: re.Match[str]) -> str:
        named = marker_numbers(match, max(self.sources, default=0))
        if named is None:
            return match.group(0)
        space = match.group(0)[: len(match.group(0)) - len(match.group(0).lstrip(" \t"))]
        markers = []
        for number in named:
            if number not in self.sources:
                self.dropped.append(number)
                continue
            final = self.numbers.setdefault(number, len(self.numbers) + 1)
            if f"[{final}]" not in markers:
                markers.append(f"[{final}]")
        return space + "".join(markers) if markers else ""

    def citations(self) -> tuple[Citation, ...]:
        """One ``Citation`` per source cited, by its number in the answer."""
        return tuple(
            Citation(
                number=final,
                chunk_id=self.sources[number].chunk.id,
                label=self.sources[number].chunk.label,
                source=self.sources[number].chunk.source,
                quote=quote_of(self.sources[number]),
            )
            for number, final in sorted(self.numbers.items(), key=lambda item: item[1])
        )


_SOURCES_WORDS = ("sources", "source", "references", "reference", "citations", "citation",
                  "bibliography")  # fmt: skip
_SOURCES_HEADING = re.compile(
    r"(?:[#>*_-]+[ \t]*)?(?:sources?(?:[ \t]+used)?|references?|citations?|bibliography)"
    r"[ \t]*(?:[*_]+[ \t]*)?"
    r"(?::(?:[ \t]*[*_]+)?|(?=[ \t]*\n))",
    re.IGNORECASE,
)
"""What opens a list of sources: ``Sources:``, ``**Sources:**``, a line of
``**References**`` or ``## Sources`` (a word without its colon only as a
line of its own: seen at a piece's end, ``Sources`` may go on ``of revenue``)."""
_LABEL = re.compile(r"\S*(?:[/#]\S*|\.[A-Za-z]{1,5})")
"""A name as lists of sources give them: ``docs/a.md#x``, ``pricing.md``, a URL."""
_SENTENCE_END = ".!?。！？…)\"'”"
_BULLET = re.compile(r"(?:[-*•]|\d{1,3}[.)])[ \t]*")
_BOUNDARY = re.compile(r"\n[ \t]*|(?<=[.!?)\]])[ \t]+")
"""Where a sources heading may start: a new line, or after a sentence on its line."""
_ESCAPE_WHOLE = re.compile(
    r"\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"
    r"|\x1b[\]PX^_][^\x07\x1b\n]*(?:\x07|\x1b\\|\n)"
    r"|\x1b[\x20-\x2f]*(?![\[\]PX^_])[\x30-\x7e]"
)
"""An escape sequence with its end: one that does not match yet may be cut."""
_ESCAPE_WAIT = 256
"""The longest escape sequence held back for its end."""


class AnswerWriter:
    """What a chat model writes, made into the answer as it streams: the
    pieces shown are exactly the final text, whatever the model writes.

    - terminal escape sequences are removed and control characters shown as
      escapes (:func:`ragloom.terminal.clean`), a sequence (or a ``\\r\\n``)
      split across pieces held back until it is whole;
    - whitespace before the first word and after the last is dropped;
    - a list of sources the model writes after its answer (``Sources:`` then
      ``[1] docs/a.md`` lines, or ``Sources: [1][2]``) is removed: its
      markers cite no sentence, and the labels it names are the model's,
      not the passages'. ``removed_sources`` says it was. Such a heading
      and what follows it are held back until the end tells whether they
      are that list (then dropped) or text (then shown). Entries that are
      sentences (``- Sunlight [1]``) make it text, and so does a reply that
      is nothing else;
    - citation markers are rewritten by a :class:`CitationRewriter`.
    """

    def __init__(self, sources: Mapping[int, Hit]) -> None:
        self.citations = CitationRewriter(sources)
        self.removed_sources = False
        self.written = False
        """Whether the model wrote anything but whitespace."""
        self._escape = ""  # the start of an escape sequence the next piece completes
        self._held = ""  # text whose fate the next piece decides
        self._block = False  # _held is a sources heading and what follows it
        self._checked = 0  # how much of _held's block was found to be entries
        self._last = ""  # the last character shown
        self._shown: list[str] = []

    @property
    def text(self) -> str:
        return "".join(self._shown)

    def feed(self, piece: str) -> str:
        """The part of ``piece`` that can be shown now."""
        return self._show(self.citations.feed(self._decide(self._cleaned(piece))))

    def finish(self) -> str:
        """What was held back, once the model is done."""
        rest = self._held + clean(self._escape)
        self._held = self._escape = ""
        if self._block and _entries_end(rest, 0, len(rest)) is None:
            self.removed_sources = True
            rest = ""
        out = self.citations.feed(rest.rstrip()) + self.citations.finish()
        return self._show(out, end=True)

    def write(self, text: str) -> str:
        """A whole reply, as the answer's text."""
        return self.feed(text) + self.finish()

    def _cleaned(self, piece: str) -> str:
        text = self._escape + piece
        self._escape = ""
        start = text.rfind("\x1b", max(len(text) - _ESCAPE_WAIT, 0))
        if start >= 0 and _ESCAPE_WHOLE.match(text, start) is None:
            text, self._escape = text[:start], text[start:]  # its end is in a later piece
        elif text.endswith("\r"):  # "\r\n" as "\n", whichever piece brings the "\n"
            text, self._escape = text[:-1], "\r"
        return clean(text)

    def _decide(self, text: str) -> str:
        """``text`` less what must wait: trailing whitespace, a sources list
        that may be starting, the rest of one that has."""
        if not text:
            return ""
        self.written = self.written or not text.isspace()
        if self._block:
            self._held += text
            # a line that is no entry makes the block text: shown from here on
            complete = self._held.rfind("\n") + 1
            failed = _entries_end(self._held, self._checked, complete)
            if failed is None:
                self._checked = max(self._checked, complete)
                return ""
            self._block, self._checked = False, 0
            text, self._held = self._held, ""
            return self._release(text, skip=text.find("\n", len(text) - len(text.lstrip())) + 1)
        if text.isspace() or not self.written:
            self._held += text  # nothing to decide yet: no scan of what is held
            if not self._last:
                self._held = self._held.lstrip()  # before the first word
            return ""
        held, text = self._held, self._held + text
        self._held = ""
        if not self._last:
            held, text = "", text.lstrip()
        return self._release(text, skip=max(len(held) - 16, 0))

    def _release(self, text: str, skip: int = 0) -> str:
        """``text`` less a sources heading and what follows it, or an end
        that may become one, and its trailing whitespace (all held back).
        ``skip``: where the scan starts (what was scanned before; a block
        found to be text, after its heading's line)."""
        before = self._last or "\n"  # what precedes text: a line's start at first
        heading = _sources_start(before, text, skip)
        if heading is not None:
            self._block = True
            text, self._held = text[:heading], text[heading:]
        else:
            partial = _partial_heading(before, text)
            if partial is not None:
                text, self._held = text[:partial], text[partial:]
        stripped = text.rstrip()
        self._held = text[len(stripped) :] + self._held
        if stripped:
            self._last = stripped[-1]
        return stripped

    def _show(self, out: str, end: bool = False) -> str:
        if end:
            out = out.rstrip()
        self._shown.append(out)
        return out


def _boundaries(before: str, text: str, skip: int = 0) -> list[tuple[int, int, bool]]:
    """``(cut, start, inline)`` for each place in ``text`` (from ``skip`` on)
    a heading may start: where the text would be cut, where the heading's
    first character would be, and whether it follows a sentence on its line
    (then it needs its colon)."""
    joined = before[-1:] + text
    found: list[tuple[int, int, bool]] = []
    for match in _BOUNDARY.finditer(joined, skip):
        if match.end() == 0:
            continue
        inline = not match.group(0).startswith("\n")
        cut = max(match.start() - 1, 0) if inline else match.start()
        found.append((cut, match.end() - 1, inline))
    return found


def _sources_start(before: str, text: str, skip: int = 0) -> int | None:
    """Where ``text`` is cut for the sources heading it holds, or None."""
    for cut, start, inline in _boundaries(before, text, skip):
        heading = _SOURCES_HEADING.match(text, start)
        if heading is None:
            continue
        if inline and not heading.group(0).rstrip().endswith(":"):
            continue
        return cut
    return None


def _partial_heading(before: str, text: str) -> int | None:
    """Where ``text`` is cut for an end that may become a sources heading
    (``So``, ``**Refer``, ``Sources``), or None."""
    found = _boundaries(before, text, max(len(text) - 24, 0))
    if not found:
        return None
    cut, start, _inline = found[-1]
    tail = text[start:]
    if "\n" in tail or len(tail) > 24:
        return None
    word = re.sub(r"[\s#>*_:-]", "", tail).lower()
    if (word and not word.isalpha()) or not any(w.startswith(word) for w in _SOURCES_WORDS):
        return None
    return cut if word or tail.strip() else None


def _entries_end(block: str, start: int, end: int) -> int | None:
    """Where, in ``block`` (a sources heading and what follows it), the first
    line between ``start`` and ``end`` that is no entry of a list of sources
    starts; None when every one is an entry (:func:`_is_entry`)."""
    lead = len(block) - len(block.lstrip())
    heading = _SOURCES_HEADING.match(block, lead)
    at = max(start, heading.end() if heading is not None else lead)
    while at < end:
        stop = block.find("\n", at, end)
        stop = end if stop < 0 else stop
        if not _is_entry(block[at:stop]):
            return at
        at = stop + 1
    return None


def _is_entry(line: str) -> bool:
    """Whether ``line`` is an entry of a list of sources the model wrote:
    markers and a name (``[1] docs/a.md``, ``- [2] Pricing FAQ``), or a
    bulleted name (``1. pricing.md``, ``- docs/a.md [1]``); not a sentence
    (``- Sunlight [1]``, ``[1] The Team plan costs $12 a month.``)."""
    entry = line.strip().lstrip(":").strip()
    if not entry:
        return True
    bullet = _BULLET.match(entry)
    named = entry[bullet.end() :].strip() if bullet is not None else entry
    rest = MARKER.sub("", named).strip(" \t,;")
    if named[:1] in "[【" and MARKER.match(named) is not None:  # led by its markers
        # a name (a path, a title of a few words), not a claim: when in doubt, text
        return bool(_LABEL.fullmatch(rest)) or (
            len(rest.split()) <= 5 and not rest.endswith(tuple(_SENTENCE_END)) and ":" not in rest
        )
    return bool(_LABEL.fullmatch(rest))
