"""The reranker contract: the tests every ``ragloom.Reranker`` passes, built-in or plugin.

Subclass the contract that matches your reranker and give it a
``reranker_factory`` fixture: a callable ``(**options) -> Reranker`` that
builds an *unopened* reranker with those options on top of the ones under
test::

    import pytest
    from ragloom.testing.rerankers import RerankerContract

    class TestMyReranker(RerankerContract):
        @pytest.fixture
        def reranker_factory(self):
            return lambda **options: MyReranker(model="/abs/path/model", **options)

``BaseRerankerContract`` holds what every reranker passes; it is not used
alone. Capability contracts, its subclasses, add the tests of what a
reranker may do, and combine freely: ``OrderedRerankerContract`` for one
whose hits come back in descending score (a reranker that scores each hit
alone, not MMR), ``TopKRerankerContract`` for one with an option limiting
the hits kept (``top_k_option``), ``SemanticRerankerContract`` for a trained
model. ``RerankerContract`` is the usual case: ordered, with a ``top_k``
option. A test that does not apply is not collected, never skipped.

The suite reranks ``contract_hits()``, hits as fusion hands them over (a
``fusion`` score and each store's score in ``scores``), and checks: every
hit comes back scored under ``score_key`` (``scores[score_key] == score``),
with its chunk and earlier scores untouched; nothing is added or
duplicated; the ``top_k`` argument keeps the first hits of the full
ranking; no hits give no hits; results are deterministic and the input is
not modified. The capability contracts add: best first by score; the
``top_k_option`` option keeps that many hits; the passage answering the
question ranks first. Rerankers that need the pipeline's embedder (``needs
= {"embedder"}``) get one through ``Context.services["embedder"]``:
override the ``services`` fixture.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pytest

from ..components import Context, Reranker
from ..types import Chunk, Hit

if TYPE_CHECKING:
    RerankerFactory = Callable[..., Reranker]

__all__ = [
    "CONTRACT_QUERY",
    "CONTRACT_RERANKER_NAME",
    "BaseRerankerContract",
    "OrderedRerankerContract",
    "RerankerContract",
    "SemanticRerankerContract",
    "TopKRerankerContract",
    "contract_hits",
]

CONTRACT_RERANKER_NAME = "contract"
"""The ``Context.name`` every reranker is opened with."""

CONTRACT_QUERY = "How much does the Pro plan cost?"
"""The question the suite reranks for; ``contract_hits()[2]`` answers it."""

_TEXTS = [
    "All data is encrypted at rest with AES-256 and in transit with TLS 1.3.",
    "Memories are kept for 90 days on the Free plan.",
    "The Pro plan costs $29 per user per month.",
    "Annual plans can be refunded within 30 days of purchase.",
    "Deleting a meeting deletes its memories within 24 hours.",
    "Single sign-on is available on the Enterprise plan.",
]


def contract_hits() -> list[Hit]:
    """Six hits as fusion returns them: fused scores descending, each store's
    score kept in ``scores``. The answer to ``CONTRACT_QUERY`` is third."""
    hits = []
    for i, text in enumerate(_TEXTS):
        chunk = Chunk(
            id=f"r{i}",
            document_id=f"doc-r{i}",
            text=text,
            index=0,
            start=0,
            end=len(text),
            label=f"r{i}.md#0",
            metadata={"source": f"r{i}.md"},
        )
        fused = 1.0 / (60 + i + 1)
        hits.append(
            Hit(
                chunk=chunk,
                score=fused,
                store=None,
                scores={"memory": 0.9 - 0.1 * i, "fusion": fused},
            )
        )
    return hits


# A test of each capability contract, to tell a subclass of it from one that
# still sets the attributes that used to switch those tests on and off.
_ORDERED_TEST = "test_best_first"
_TOP_K_TEST = "test_top_k_option"
_SEMANTIC_TEST = "test_the_answer_ranks_first"


class BaseRerankerContract:
    """What every reranker passes. Not used alone: subclass the capability
    contracts that apply (``RerankerContract`` for the usual case), define
    ``reranker_factory``, set the class attributes that apply."""

    score_key: ClassVar[str] = "rerank"
    """The name the reranker records its score under in ``Hit.scores``."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The attributes that once switched tests on and off are gone: fail
        # loudly rather than run other tests than they ask for.
        for attribute, test, contract in (
            ("ordered", _ORDERED_TEST, "OrderedRerankerContract"),
            ("top_k_option", _TOP_K_TEST, "TopKRerankerContract"),
            ("semantic", _SEMANTIC_TEST, "SemanticRerankerContract"),
        ):
            if not hasattr(cls, attribute) or bool(getattr(cls, attribute)) == hasattr(cls, test):
                continue
            value = getattr(cls, attribute)
            advice = (
                f"subclass {contract} to run them"
                if value
                else f"subclass the contracts without {contract} (BaseRerankerContract has none)"
            )
            raise TypeError(
                f"{cls.__name__}: {attribute} = {value!r} no longer switches tests on "
                f"or off: {contract} holds them ({test}); {advice}"
            )

    # -- fixtures ------------------------------------------------------------
    @pytest.fixture
    def reranker_factory(self) -> RerankerFactory:
        """Override: return ``(**options) -> Reranker``, unopened."""
        raise NotImplementedError(
            f"{type(self).__name__} must define a `reranker_factory` fixture returning "
            "a callable (**options) -> Reranker that builds an unopened reranker"
        )

    @pytest.fixture
    def services(self) -> dict[str, Any]:
        """What the reranker finds in ``Context.services`` (override to give an embedder)."""
        return {}

    @pytest.fixture
    def make_reranker(
        self, reranker_factory: RerankerFactory, services: dict[str, Any], tmp_path: Path
    ) -> Iterator[RerankerFactory]:
        """``(**options) -> Reranker``, opened; every one is closed after the test."""
        opened: list[Reranker] = []

        def make_reranker(**options: Any) -> Reranker:
            reranker = reranker_factory(**options)
            assert isinstance(reranker, Reranker), (
                f"reranker_factory returned {reranker!r}, not a ragloom.Reranker"
            )
            context = Context(
                index_dir=tmp_path,
                base_dir=tmp_path,
                name=CONTRACT_RERANKER_NAME,
                services=services,
            )
            reranker.open(context)
            opened.append(reranker)
            return reranker

        yield make_reranker
        for reranker in reversed(opened):
            reranker.close()

    @pytest.fixture
    def reranker(self, make_reranker: RerankerFactory) -> Reranker:
        """An opened reranker with the options under test."""
        return make_reranker()

    # -- helpers ---------------------------------------------------------------
    def rerank(
        self, reranker: Reranker, hits: Sequence[Hit], top_k: int | None = None
    ) -> list[Hit]:
        result = reranker.rerank(CONTRACT_QUERY, hits, top_k)
        assert isinstance(result, list), f"rerank returned {type(result).__name__}, not a list"
        assert all(isinstance(h, Hit) for h in result), "rerank must return Hit objects"
        return result

    # -- tests -----------------------------------------------------------------
    def test_every_hit_is_scored(self, reranker: Reranker) -> None:
        hits = contract_hits()
        result = self.rerank(reranker, hits, len(hits))
        assert len(result) == len(hits), f"{len(result)} of {len(hits)} hits came back"
        for hit in result:
            assert self.score_key in hit.scores, (
                f"hit {hit.chunk.id} has no {self.score_key!r} score: {dict(hit.scores)}"
            )
            assert hit.scores[self.score_key] == hit.score, (
                f"hit {hit.chunk.id}: score {hit.score} != scores[{self.score_key!r}]"
            )
            assert math.isfinite(hit.score), f"hit {hit.chunk.id}: score {hit.score}"

    def test_returns_only_the_given_hits_once(self, reranker: Reranker) -> None:
        hits = contract_hits()
        ids = [h.chunk.id for h in self.rerank(reranker, hits, len(hits))]
        assert len(ids) == len(set(ids)), f"duplicates: {ids}"
        assert set(ids) == {h.chunk.id for h in hits}, ids

    def test_chunks_and_earlier_scores_are_kept(self, reranker: Reranker) -> None:
        given = {h.chunk.id: h for h in contract_hits()}
        for hit in self.rerank(reranker, list(given.values())):
            before = given[hit.chunk.id]
            assert hit.chunk == before.chunk, f"hit {hit.chunk.id}: the chunk was changed"
            for stage, value in before.scores.items():
                assert hit.scores.get(stage) == value, (
                    f"hit {hit.chunk.id}: the {stage!r} score was lost or changed "
                    f"({dict(hit.scores)})"
                )

    def test_top_k_argument_keeps_the_best(self, reranker: Reranker) -> None:
        hits = contract_hits()
        full = self.rerank(reranker, hits, len(hits))
        top = self.rerank(reranker, hits, 2)
        assert [h.chunk.id for h in top] == [h.chunk.id for h in full[:2]], (top, full)

    def test_top_k_larger_than_the_hits(self, reranker: Reranker) -> None:
        hits = contract_hits()
        assert len(self.rerank(reranker, hits, 100)) == len(hits)

    def test_no_hits(self, reranker: Reranker) -> None:
        assert self.rerank(reranker, []) == []

    def test_one_hit(self, reranker: Reranker) -> None:
        hit = contract_hits()[0]
        result = self.rerank(reranker, [hit])
        assert [h.chunk.id for h in result] == [hit.chunk.id]

    def test_deterministic_and_input_untouched(self, reranker: Reranker) -> None:
        hits = contract_hits()
        snapshot = list(hits)
        first = self.rerank(reranker, hits)
        second = self.rerank(reranker, hits)
        assert hits == snapshot, "rerank modified the list it was given"
        assert [h.chunk.id for h in first] == [h.chunk.id for h in second]
        for a, b in zip(first, second):
            assert math.isclose(a.score, b.score, rel_tol=1e-5, abs_tol=1e-6), (a.score, b.score)


class OrderedRerankerContract(BaseRerankerContract):
    """The contract of rerankers whose hits come back in descending score:
    those that score each hit for the query alone (cross-encoders, LLM
    judges). Not MMR, whose score is a hit's marginal worth when picked."""

    def test_best_first(self, reranker: Reranker) -> None:
        scores = [h.score for h in self.rerank(reranker, contract_hits())]
        assert scores == sorted(scores, reverse=True), f"not best first: {scores}"


class TopKRerankerContract(BaseRerankerContract):
    """The contract of rerankers with an option limiting the hits kept: the
    pipeline calls ``rerank`` with ``top_k=None``, so that option is how a
    config keeps fewer."""

    top_k_option: ClassVar[str] = "top_k"
    """Name of the option that limits the hits kept."""

    def test_top_k_option(self, make_reranker: RerankerFactory) -> None:
        limited = make_reranker(**{self.top_k_option: 3})
        assert len(self.rerank(limited, contract_hits())) == 3


class SemanticRerankerContract(BaseRerankerContract):
    """The contract of rerankers with a trained model: the passage answering
    the question ranks first."""

    def test_the_answer_ranks_first(self, reranker: Reranker) -> None:
        result = self.rerank(reranker, contract_hits())
        assert result[0].chunk.id == "r2", [(h.chunk.id, round(h.score, 3)) for h in result]


class RerankerContract(OrderedRerankerContract, TopKRerankerContract):
    """The usual reranker: hits best first by score, and a ``top_k`` option.
    Add ``SemanticRerankerContract`` for a trained model."""
