"""What the generator's answer goes through before a caller sees it:
citations checked against the hits given, a degraded answer when the
generator fails, streaming, and the order of the passages in the prompt."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from .types import Answer, Citation, Hit

__all__ = [
    "NOT_FOUND",
    "AnswerStream",
    "checked_answer",
    "degraded_answer",
    "lost_in_the_middle",
]

log = logging.getLogger("ragloom")

NOT_FOUND = "I could not find information about this in the indexed documents."


class AnswerStream:
    """Iterate for pieces of the answer text; ``answer`` holds the checked
    ``Answer`` once iteration ends."""

    def __init__(self, pieces: Iterator[str | Answer], finish: Callable[[Answer], Answer]) -> None:
        self._pieces = pieces
        self._finish = finish
        self.answer: Answer | None = None

    def __iter__(self) -> Iterator[str]:
        for piece in self._pieces:
            if isinstance(piece, Answer):
                self.answer = self._finish(piece)
            else:
                yield piece


def checked_answer(answer: Answer, hits: Sequence[Hit]) -> Answer:
    """Drop citations of chunks the generator was not given, and their ``[n]``
    markers from the text; attach the hits."""
    given = {h.chunk.id for h in hits}
    kept = tuple(c for c in answer.citations if c.chunk_id in given)
    text = answer.text
    if len(kept) != len(answer.citations):
        dropped = {c.number for c in answer.citations if c.chunk_id not in given}
        log.warning("dropped %d citation(s) of chunks not given to the generator", len(dropped))
        text = re.sub(
            r"\s?\[(\d+)\]", lambda m: "" if int(m.group(1)) in dropped else m.group(0), text
        )
    return replace(answer, text=text, citations=kept, hits=tuple(hits))


def degraded_answer(question: str, hits: Sequence[Hit], exc: Exception) -> Answer:
    best = list(hits[:3])
    lines = [
        f"The answer could not be generated ({type(exc).__name__}: {exc}). "
        "The most relevant passages are:"
    ]
    citations = []
    for number, hit in enumerate(best, start=1):
        snippet = " ".join(hit.chunk.text.split())[:300]
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
