"""The generator contract: the tests every ``ragloom.Generator`` passes, built-in or plugin.

Subclass ``GeneratorContract`` and give it two fixtures: ``generator_factory``,
a callable ``(**options) -> Generator`` building an *unopened* generator, and
``broken_generator_factory``, one building a generator whose backend fails
(a server that is down, a wrong port)::

    import pytest
    from ragloom.testing import GeneratorContract

    class TestMyGenerator(GeneratorContract):
        @pytest.fixture
        def generator_factory(self, server):
            return lambda **options: MyGenerator(base_url=server.url, **options)

        @pytest.fixture
        def broken_generator_factory(self):
            return lambda **options: MyGenerator(base_url="http://127.0.0.1:9", **options)

The suite asks ``CONTRACT_QUESTION`` over ``contract_hits()`` and checks the
shape of what comes back, not its wording (a model's words vary): every
citation names a passage it was given, with that passage's chunk id, label and
source, and quotes that passage's text without its terminal escape sequences
(``ragloom.terminal.clean``; ``answers.quote_of`` does both); citations are
numbered 1, 2, 3... and every ``[n]`` in the text is one of them; no passages
gives a refusal (``grounded`` False) without a citation; ``stream()`` yields
text pieces then exactly one ``Answer`` whose text is the pieces joined; and,
in a pipeline, a backend that fails gives a degraded answer quoting the best
passages (``degraded`` True), not an exception. Generators that need the
pipeline's embedder get it through ``Context.services``: override the
``services`` fixture."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pytest

from ..components import Context, Generator
from ..terminal import clean, sanitize
from ..types import Answer, Hit
from .rerankers import contract_hits

if TYPE_CHECKING:
    GeneratorFactory = Callable[..., Generator]

__all__ = ["CONTRACT_GENERATOR_NAME", "CONTRACT_QUESTION", "GeneratorContract"]

CONTRACT_GENERATOR_NAME = "contract"
CONTRACT_QUESTION = "How much does the Pro plan cost?"
"""Answered by ``contract_hits()[2]``."""

_MARKER = re.compile(r"\[(\d+)\]")


def _check_citations(answer: Answer, hits: list[Hit]) -> None:
    given = {h.chunk.id: h for h in hits}
    for citation in answer.citations:
        assert citation.chunk_id in given, f"cites {citation.chunk_id!r}, which was not given"
        hit = given[citation.chunk_id]
        assert citation.label == hit.chunk.label and citation.source == hit.chunk.source
        # the quote is shown as the passage's evidence: each of its pieces (joined
        # by " … " where it skips) is the cited passage's own text, as a terminal
        # may show it (applications print quotes: no escape sequence of the document's)
        assert citation.quote == clean(citation.quote), (
            f"citation [{citation.number}] quotes terminal control characters: "
            f"{citation.quote!r}; quote ragloom.terminal.clean(text)"
        )
        text = " ".join(hit.chunk.text.split())
        # (a quote made by sanitize, as generators did before clean, passes too)
        passages = (clean(text), sanitize(text))
        for piece in citation.quote.split(" \u2026 "):
            piece = " ".join(piece.split()).strip(" \u2026")
            assert any(piece in passage for passage in passages), (
                f"citation [{citation.number}] quotes {piece!r}, which is not in the passage "
                f"it cites ({citation.chunk_id!r})"
            )
    cited = [c.chunk_id for c in answer.citations]
    assert len(cited) == len(set(cited)), f"one passage cited under two numbers: {cited}"
    numbers = [c.number for c in answer.citations]
    assert numbers == list(range(1, len(numbers) + 1)), f"citations numbered {numbers}"
    marked = {int(n) for n in _MARKER.findall(answer.text)}
    assert marked <= set(numbers), f"the text marks {sorted(marked - set(numbers))} uncited"


class GeneratorContract:
    """What every generator passes (see the module docs)."""

    @pytest.fixture
    def services(self) -> dict[str, Any]:
        return {}

    @pytest.fixture
    def open_generator(
        self, generator_factory: GeneratorFactory, services: dict[str, Any], tmp_path: Any
    ) -> Iterator[Callable[..., Generator]]:
        opened: list[Generator] = []

        def make(factory: GeneratorFactory | None = None, **options: Any) -> Generator:
            generator = (factory or generator_factory)(**options)
            generator.open(
                Context(
                    index_dir=tmp_path / ".ragloom",
                    base_dir=tmp_path,
                    name=CONTRACT_GENERATOR_NAME,
                    services=services,
                )
            )
            opened.append(generator)
            return generator

        yield make
        for generator in opened:
            generator.close()

    def test_citations_name_only_given_passages(self, open_generator: Any) -> None:
        hits = contract_hits()
        answer = open_generator().generate(CONTRACT_QUESTION, hits)
        assert isinstance(answer, Answer) and isinstance(answer.text, str) and answer.text
        _check_citations(answer, hits)

    def test_citations_with_a_subset_of_passages(self, open_generator: Any) -> None:
        hits = contract_hits()[:2]  # neither answers the question
        answer = open_generator().generate(CONTRACT_QUESTION, hits)
        _check_citations(answer, hits)

    def test_quotes_hold_no_terminal_control(self, open_generator: Any) -> None:
        """A document's escape sequences (a window title, colours) stay out of
        the quotes, which applications print."""
        hits = [
            replace(
                h, chunk=replace(h.chunk, text=f"\x1b]0;pwned\x07\x1b[31m{h.chunk.text}\x1b[0m")
            )
            for h in contract_hits()
        ]
        answer = open_generator().generate(CONTRACT_QUESTION, hits)
        _check_citations(answer, hits)

    def test_no_passages_is_a_refusal(self, open_generator: Any) -> None:
        answer = open_generator().generate(CONTRACT_QUESTION, [])
        assert answer.grounded is False, "an answer with no passages must say it found nothing"
        assert answer.citations == ()

    def test_stream_yields_text_then_one_answer(self, open_generator: Any) -> None:
        hits = contract_hits()
        items = list(open_generator().stream(CONTRACT_QUESTION, hits))
        assert items and isinstance(items[-1], Answer), "the last item must be the Answer"
        pieces = items[:-1]
        assert pieces and all(isinstance(p, str) for p in pieces), "text pieces come first"
        answer = items[-1]
        assert "".join(pieces).strip() == answer.text.strip()
        _check_citations(answer, hits)

    def test_a_failing_backend_raises_so_the_pipeline_degrades(
        self, broken_generator_factory: GeneratorFactory, open_generator: Any
    ) -> None:
        from ..answers import checked_answer, degraded_answer

        hits = contract_hits()
        generator = open_generator(broken_generator_factory)
        try:
            answer = generator.generate(CONTRACT_QUESTION, hits)
        except Exception as exc:  # what the pipeline does with it
            answer = degraded_answer(CONTRACT_QUESTION, hits, exc)
            assert answer.degraded and answer.citations
            _check_citations(checked_answer(answer, hits), hits)
            return
        raise AssertionError(f"the broken generator answered instead of failing: {answer.text!r}")
