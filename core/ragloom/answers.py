"""What the generator's answer goes through before a caller sees it:
citation markers checked against the passages given and numbered
contiguously (streamed or not), a degraded answer when the generator fails,
streaming, and the order of the passages in the prompt."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from .replies import MARKER, AnswerWriter, CitationRewriter, quote_of
from .terminal import clean
from .types import Answer, Citation, Hit

__all__ = [
    "MARKER",
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

_PLAIN_MARKER = re.compile(r"[ \t]?\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]")
"""The markers a generator's own ``Citation`` numbers name (``[2]``, ``[1, 3]``):
what ``checked_answer`` renumbers in any generator's text, quotes included."""


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
        snippet = clean(" ".join(hit.chunk.own_text.split()))[:300]
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
