"""What the generator's answer goes through before a caller sees it:
citation markers checked against the passages given and numbered
contiguously (streamed or not), a degraded answer when the generator fails,
streaming, and the order of the passages in the prompt."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from .terminal import clean
from .types import Answer, Citation, Hit

__all__ = [
    "NOT_FOUND",
    "AnswerStream",
    "AnswerWriter",
    "AsyncAnswerStream",
    "CitationRewriter",
    "checked_answer",
    "degraded_answer",
    "lost_in_the_middle",
    "quote_of",
]

log = logging.getLogger("ragloom")

NOT_FOUND = "I could not find information about this in the indexed documents."

MARKER = re.compile(
    r"[ \t]?(?:\[|【)\s*(?:(?:source|passage)s?\s*)?"
    r"(\d{1,6}(?:\s*(?:[,;]|[-–])\s*(?:(?:source|passage)\s*)?\d{1,6})*)\s*(?:\]|】)",
    re.IGNORECASE,
)
"""A citation marker as models write them: ``[2]``, ``[1, 3]`` (with the space
before it), and the look-alikes they also write: ``[ 2 ]``, ``[1-3]``,
``[Source 2]``, ``【1】``, ``[12345]`` (rewritten or, naming no passage given,
removed like any other)."""
_OPEN_MARKER = re.compile(r"[ \t]*(?:(?:\[|【)[\w\s,;\-–]{0,32})?$")
"""What a streamed piece may end with that the next piece decides: the start of
a marker (``[1``, ``[1, ``, ``[Sour``), or spaces (dropped with a forged marker
after them)."""
_PLAIN_MARKER = re.compile(r"[ \t]?\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]")
"""The markers a generator's own ``Citation`` numbers name (``[2]``, ``[1, 3]``):
what ``checked_answer`` renumbers in any generator's text, quotes included."""
_RANGE = re.compile(r"(\d+)\s*[-–]\s*(?:(?:source|passage)\s*)?(\d+)", re.IGNORECASE)
_MAX_RANGE = 20


class AnswerStream:
    """Iterate for pieces of the answer text; ``answer`` holds the checked
    ``Answer`` once iteration ends. ``close()`` (or leaving a ``with`` block)
    ends a stream the caller stops reading early."""

    def __init__(self, pieces: Iterator[str | Answer], finish: Callable[[Answer], Answer]) -> None:
        self._pieces = pieces
        self._finish = finish
        self.answer: Answer | None = None

    def __iter__(self) -> Iterator[str]:
        try:
            for piece in self._pieces:
                if isinstance(piece, Answer):
                    self.answer = self._finish(piece)
                else:
                    yield piece
        finally:
            self.close()

    def close(self) -> None:
        close = getattr(self._pieces, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> AnswerStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def quote_of(hit: Hit, limit: int = 300) -> str:
    """The start of a hit's text, whitespace folded and without terminal
    escape sequences (:func:`ragloom.terminal.clean`): what a citation
    quotes, which applications print."""
    text = clean(" ".join(hit.chunk.text.split()))
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class CitationRewriter:
    """Renumbers the citation markers of an answer as it is written.

    ``sources`` maps each number the writer may cite to its hit (for an LLM,
    the passage numbers of its prompt). Markers are renumbered 1, 2, 3... in
    the order sources are first cited; a marker naming a number not in
    ``sources`` (a forged or hallucinated one) is removed and recorded in
    ``dropped``. Works on a whole text (``feed`` then ``finish``) or piece by
    piece as a model streams it: a piece ending inside a marker (``[1``) is
    held back until the marker is complete.
    """

    def __init__(self, sources: Mapping[int, Hit]) -> None:
        self.sources = dict(sources)
        self.numbers: dict[int, int] = {}  # source number -> number in the answer
        self.dropped: list[int] = []
        self._pending = ""
        self._text: list[str] = []

    def feed(self, piece: str) -> str:
        """The part of ``piece`` that can be shown now, markers rewritten."""
        text = self._pending + piece
        tail = _OPEN_MARKER.search(text)
        if tail is not None:
            text, self._pending = text[: tail.start()], text[tail.start() :]
        else:
            self._pending = ""
        out = MARKER.sub(self._rewrite, text)
        self._text.append(out)
        return out

    def finish(self) -> str:
        """What was held back, once the writer is done."""
        pending, self._pending = self._pending, ""
        out = MARKER.sub(self._rewrite, pending)
        self._text.append(out)
        return out

    @property
    def text(self) -> str:
        """Everything rewritten so far."""
        return "".join(self._text)

    def rewrite(self, text: str) -> str:
        """A whole text, rewritten."""
        return self.feed(text) + self.finish()

    def _rewrite(self, match: re.Match[str]) -> str:
        space = match.group(0)[: len(match.group(0)) - len(match.group(0).lstrip(" \t"))]
        markers = []
        for number in marker_numbers(match):
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


def marker_numbers(match: re.Match[str]) -> list[int]:
    """The passage numbers a :data:`MARKER` names, ranges spelled out
    (``[1-3]`` is 1, 2, 3; a range of more than 20, or backwards, is its ends)."""
    numbers: list[int] = []
    for part in re.split(r"[,;]", match.group(1)):
        span = _RANGE.search(part)
        if span is None:
            numbers.append(int(re.sub(r"\D", "", part)))
            continue
        first, last = int(span.group(1)), int(span.group(2))
        if first <= last <= first + _MAX_RANGE:
            numbers.extend(range(first, last + 1))
        else:
            numbers.extend((first, last))
    return numbers


_SOURCES_WORDS = ("sources", "source", "references", "citations")
_SOURCES_HEADING = re.compile(
    r"[ \t]*(?:[#>*_-]+[ \t]*)?(?:sources?|references|citations)[ \t]*(?:[*_]+[ \t]*)?"
    r"(?::|(?=\n|$))",
    re.IGNORECASE,
)
"""A line that opens a list of sources: ``Sources:``, ``**References**``, ``## Sources``."""
_SOURCE_ITEM = re.compile(
    r"[ \t]*(?:[-*•]|\d{1,3}[.)])?[ \t]*(?:\[|【)[^\]】\n]{1,40}(?:\]|】)[^\n]*"
    r"|[ \t]*(?:[-*•]|\d{1,3}[.)])[ \t]*\S[^\n]*"
)
"""One entry of such a list: a marker and what follows it, or a bulleted line."""
_SENTENCE_END = re.compile(r"[.!?)\]][ \t]+$")


class AnswerWriter:
    """What a chat model writes, made into the answer as it streams: the
    pieces shown are exactly the final text, whatever the model writes.

    - terminal escape sequences are removed and control characters shown as
      escapes (:func:`ragloom.terminal.clean`), a sequence split across
      pieces held back until it is whole;
    - whitespace before the first word and after the last is dropped;
    - a list of sources the model writes at the end (``Sources:`` then
      ``[1] docs/a.md`` lines, or ``Sources: [1][2]``) is removed: its
      markers cite no sentence, and the labels it names are the model's,
      not the passages'. ``removed_sources`` says it was. Such a heading
      and what follows it are held back until the end tells whether they
      are that list (then dropped) or text (then shown);
    - citation markers are rewritten by a :class:`CitationRewriter`.
    """

    def __init__(self, sources: Mapping[int, Hit]) -> None:
        self.citations = CitationRewriter(sources)
        self.removed_sources = False
        self._escape = ""  # the start of an escape sequence the next piece completes
        self._held = ""  # text whose fate the next piece decides
        self._block = False  # _held is a sources heading and what follows it
        self._started = False
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
        if self._block and _is_sources_list(rest):
            self.removed_sources = True
            rest = ""
        return self._show(self.citations.feed(rest.rstrip()) + self.citations.finish(), end=True)

    def write(self, text: str) -> str:
        """A whole reply, as the answer's text."""
        return self.feed(text) + self.finish()

    def _cleaned(self, piece: str) -> str:
        text = self._escape + piece
        self._escape = ""
        start = text.rfind("\x1b")
        # a sequence whose end is in a later piece waits for it (for 256 characters)
        if 0 <= start > len(text) - 256 and _ESCAPE_WHOLE.match(text, start) is None:
            text, self._escape = text[:start], text[start:]
        return clean(text)

    def _decide(self, text: str) -> str:
        """``text`` less what must wait: trailing whitespace, a sources list
        that may be starting, the rest of one that has."""
        text = self._held + text
        self._held = ""
        if not self._started:
            text = text.lstrip()
            if not text:
                return ""
            self._started = True
        if self._block:
            self._held = text
            return ""
        before = self._last or "\n"  # what precedes text: a line's start at first
        heading = _sources_start(before, text)
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


_ESCAPE_WHOLE = re.compile(
    r"\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"
    r"|\x1b[\]PX^_][^\x07\x1b\n]*(?:\x07|\x1b\\|\n)"
    r"|\x1b[\x20-\x2f]*(?![\[\]PX^_])[\x30-\x7e]"
)
"""An escape sequence with its end: one that does not match yet may be cut."""

_BOUNDARY = re.compile(r"\n|(?<=[.!?)\]])[ \t]+")
"""Where a sources heading may start: a new line, or after a sentence on the same line."""


def _boundaries(before: str, text: str) -> list[tuple[int, int, bool]]:
    """``(cut, start, inline)`` for each place in ``text`` a heading may start:
    where the text would be cut, where the heading's first character would
    be, and whether it is on a sentence's line (then it needs its colon)."""
    joined = before[-1:] + text
    found = [(0, 0, False)] if before.endswith("\n") else []
    for match in _BOUNDARY.finditer(joined):
        if match.end() == 0:
            continue
        inline = match.group(0) != "\n"
        cut = max(match.start() - 1, 0) if inline else match.end() - 1
        found.append((cut, match.end() - 1, inline))
    return found


def _sources_start(before: str, text: str) -> int | None:
    """Where ``text`` is cut for the sources heading it holds, or None."""
    for cut, start, inline in _boundaries(before, text):
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
    for cut, start, _inline in reversed(_boundaries(before, text)):
        tail = text[start:]
        if "\n" in tail:
            return None
        word = re.sub(r"[\s#>*_:-]", "", tail).lower()
        if word and not word.isalpha():
            return None
        if any(w.startswith(word) for w in _SOURCES_WORDS):
            return cut if word or tail.strip() else None
        return None
    return None


def _is_sources_list(block: str) -> bool:
    """Whether ``block`` (a sources heading and what follows it) is only a
    list of sources: after the heading, markers or bulleted entries."""
    block = block.lstrip()
    heading = _SOURCES_HEADING.match(block)
    if heading is None:
        return False
    rest = block[heading.end() :].lstrip(" \t:")
    lines = [line for line in rest.split("\n") if line.strip()]
    if not lines:
        return True
    for line in lines:
        if MARKER.match(line.strip()) and not line.strip().startswith(("-", "*")):
            continue
        if not _SOURCE_ITEM.fullmatch(line):
            return False
    return True


def checked_answer(answer: Answer, hits: Sequence[Hit]) -> Answer:
    """Drop citations of chunks the generator was not given and their ``[n]``
    markers from the text; number the rest 1, 2, 3... in the order the text
    first cites them (a citation the text never marks keeps its place after
    those); attach the hits. An answer whose every citation was dropped is
    not ``grounded``."""
    given = {h.chunk.id for h in hits}
    kept = {c.number: c for c in answer.citations if c.chunk_id in given}
    dropped = {c.number for c in answer.citations if c.chunk_id not in given}
    if dropped:
        log.warning("dropped %d citation(s) of chunks not given to the generator", len(dropped))

    numbers: dict[int, int] = {}

    def rewrite(match: re.Match[str]) -> str:
        space = " " if match.group(0).startswith((" ", "\t")) else ""
        markers = []
        for part in match.group(1).split(","):
            number = int(part)
            if number in kept:
                markers.append(f"[{numbers.setdefault(number, len(numbers) + 1)}]")
            elif number not in dropped:  # not a citation marker of this answer: left as it is
                markers.append(f"[{number}]")
        return space + "".join(markers) if markers else ""

    text = _PLAIN_MARKER.sub(rewrite, answer.text)
    for number in kept:  # cited without a marker in the text: after those that have one
        numbers.setdefault(number, len(numbers) + 1)
    citations = tuple(
        replace(kept[old], number=new) for old, new in sorted(numbers.items(), key=lambda i: i[1])
    )
    # every citation named a passage it was not given: nothing backs the answer
    grounded = answer.grounded and not (dropped and not kept)
    return replace(answer, text=text, citations=citations, hits=tuple(hits), grounded=grounded)


def degraded_answer(question: str, hits: Sequence[Hit], exc: Exception) -> Answer:
    """The best passages, for a generator that failed. The text names only the
    kind of error: its message may hold what no reader may see (a key that the
    service echoed back, a password in ``base_url``), and the answer goes to
    every caller of the server; the log has the message, redacted."""
    best = list(hits[:3])
    lines = [
        f"The answer could not be generated ({type(exc).__name__}; the log has the details). "
        "The most relevant passages are:"
    ]
    citations = []
    for number, hit in enumerate(best, start=1):
        snippet = clean(" ".join(hit.chunk.text.split()))[:300]
        lines.append(f"[{number}] {snippet}")
        citations.append(Citation(number, hit.chunk.id, hit.chunk.label, hit.chunk.source, snippet))
    return Answer(
        question=question,
        text="\n".join(lines),
        citations=tuple(citations),
        hits=tuple(hits),
        grounded=True,
        degraded=True,
    )


def lost_in_the_middle(hits: list[Hit]) -> list[Hit]:
    """Best hits at both edges, weakest in the middle: 1 3 5 ... 6 4 2."""
    return hits[0::2] + hits[1::2][::-1]


class AsyncAnswerStream:
    """``Pipeline.astream``: iterate with ``async for`` for the pieces of the
    answer; ``answer`` holds the checked ``Answer`` once iteration ends. The
    stream runs in the pipeline's thread pool, so the event loop never blocks;
    ``aclose()`` (or leaving ``async with``) stops it early."""

    def __init__(self, start: Callable[[], AnswerStream], executor: Any) -> None:
        self._start = start
        self._executor = executor
        self._queue: Any = None
        self._stop = False
        self._future: Any = None
        self.answer: Answer | None = None

    def __aiter__(self) -> AsyncAnswerStream:
        return self

    async def __anext__(self) -> str:
        import asyncio

        if self._queue is None:
            loop = asyncio.get_running_loop()
            self._queue = asyncio.Queue()
            self._future = loop.run_in_executor(self._executor, self._pump, loop)
        kind, value = await self._queue.get()
        if kind == "piece":
            return value
        await self._future
        if kind == "error":
            raise value
        raise StopAsyncIteration

    def _pump(self, loop: Any) -> None:
        def put(item: tuple[str, Any]) -> None:
            loop.call_soon_threadsafe(self._queue.put_nowait, item)

        try:
            stream = self._start()
            with stream:
                for piece in stream:
                    if self._stop:
                        break
                    put(("piece", piece))
            self.answer = stream.answer
        except BaseException as exc:  # handed to the awaiting task
            put(("error", exc))
            return
        put(("end", None))

    async def aclose(self) -> None:
        self._stop = True
        if self._future is not None:
            await self._future

    async def __aenter__(self) -> AsyncAnswerStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
