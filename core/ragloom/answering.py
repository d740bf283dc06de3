"""The answering side of a pipeline: which hits the generator gets (the
context budget of a chat model, ``retrieval.order``), the generate stage,
the citation check, a degraded answer when the generator fails (unless its
``on_error`` says raise), and the same for a streamed answer."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from .answers import (
    NOT_FOUND,
    AnswerStream,
    checked_answer,
    degraded_answer,
    lost_in_the_middle,
)
from .generation import ChatGenerator, fit_passages
from .logs import redact
from .types import Answer, Hit, Hits

if TYPE_CHECKING:
    from .components import Generator, Message
    from .config import PipelineConfig
    from .runs import Run

__all__ = ["Answerer"]

log = logging.getLogger("ragloom")


class Answerer:
    """Turns retrieved hits into a checked answer (``Pipeline.ask``/``stream`` use it)."""

    def __init__(self, *, config: PipelineConfig, generator: Generator) -> None:
        self.config = config
        self.generator = generator

    def fitted(
        self, hits: Sequence[Hit], history: Sequence[Message]
    ) -> tuple[list[Hit], list[Message]]:
        """The passages and the history the generator gets. For a chat model,
        the history (its user and assistant turns: what it is sent) takes its
        share of the context budget first, its oldest turns left out while it
        would take more than half (the passages answer the question), and
        the best passages that fit the rest go (whole, in relevance order).
        Then ``retrieval.order`` arranges the passages."""
        chosen, kept = list(hits), list(history)
        generator = self.generator
        if isinstance(generator, ChatGenerator):
            budget = generator.passage_budget()
            kept = [m for m in kept if m.get("role") in ("user", "assistant")]
            costs = [generator.count_tokens(str(m.get("content", ""))) + 4 for m in kept]
            turns = len(kept)
            # the oldest first; never an answer without its question
            while kept and (sum(costs) > budget // 2 or kept[0].get("role") == "assistant"):
                kept.pop(0)
                costs.pop(0)
            if len(kept) < turns:
                log.info(
                    "left out the %d oldest chat turn(s): they would take more than half of "
                    "the generator's context budget",
                    turns - len(kept),
                )
            chosen = fit_passages(chosen, max(budget - sum(costs), 1), generator.count_tokens)
        if self.config.retrieval.order == "lost-in-the-middle":
            return lost_in_the_middle(chosen), kept
        return chosen, kept

    def _degrade(self, exc: Exception) -> bool:
        """Whether a failed generation becomes a degraded answer (else it raises)."""
        return getattr(self.generator.config, "on_error", "degrade") != "raise"

    def generate(self, run: Run, question: str, hits: Hits, history: Sequence[Message]) -> Answer:
        """The checked answer to ``question`` from ``hits`` (degraded when the
        generator fails and ``on_error`` allows), with the corpus version."""
        return _with_version(self._generate(run, question, hits, history), hits)

    def _generate(
        self, run: Run, question: str, hits: Sequence[Hit], history: Sequence[Message]
    ) -> Answer:
        if not hits:
            return Answer(question=question, text=NOT_FOUND, grounded=False)
        ordered, history = self.fitted(hits, history)
        try:
            answer = run.stage(
                "generate",
                self.config.generator.type,
                self.generator,
                self.generator.generate,
                question,
                ordered,
                history,
            )
        except Exception as exc:
            if not self._degrade(exc):
                raise
            _log_failure(exc)
            return degraded_answer(question, ordered, exc)
        return checked_answer(answer, ordered)

    def stream(
        self, run: Run, question: str, hits: Hits, history: Sequence[Message]
    ) -> AnswerStream:
        """The answer as the generator writes it; ``run`` finishes with the stream."""
        ordered, history = self.fitted(hits, history)
        generator_type = self.config.generator.type

        def pieces() -> Iterator[str | Answer]:
            error: BaseException | None = None
            try:
                if not ordered:
                    answer = Answer(question=question, text=NOT_FOUND, grounded=False)
                    yield answer.text
                    yield answer
                    return
                shown = False  # text already streamed: the degraded text starts a new line
                try:
                    for piece in run.stream_stage(
                        "generate",
                        generator_type,
                        self.generator,
                        self.generator.stream,
                        question,
                        ordered,
                        history,
                    ):
                        shown = shown or (isinstance(piece, str) and bool(piece))
                        yield piece
                except Exception as exc:
                    if not self._degrade(exc):
                        raise
                    _log_failure(exc)
                    answer = degraded_answer(question, ordered, exc)
                    yield ("\n" if shown else "") + answer.text
                    yield answer
            except BaseException as exc:  # the caller stopped early (GeneratorExit) or worse
                error = None if isinstance(exc, GeneratorExit) else exc
                raise
            finally:
                run.finish(error, hits=len(ordered), corpus_version=hits.corpus_version)

        def finish(answer: Answer) -> Answer:
            return _with_version(checked_answer(answer, ordered), hits)

        return AnswerStream(pieces(), finish)


def _log_failure(exc: Exception) -> None:
    """The generator's error, redacted: logging may print it where logging was
    never configured (Python's last-resort handler), unredacted otherwise."""
    log.warning("generator failed: %s; answering with the best passages", redact(repr(exc)))


def _with_version(answer: Answer, hits: Hits) -> Answer:
    return replace(
        answer,
        metadata={
            **answer.metadata,
            "corpus_version": hits.corpus_version,
            "documents": hits.documents,
            **({"retrieval_degraded": hits.degraded} if hits.degraded else {}),
        },
    )
