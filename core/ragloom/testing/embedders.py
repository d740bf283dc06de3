"""The embedder contract: the tests every ``ragloom.Embedder`` passes, built-in or plugin.

Subclass ``EmbedderContract``, plus the capability contracts that apply, and
give it two fixtures: ``embedder_factory``, a callable ``(**options) ->
Embedder`` that builds an *unopened* embedder with those options on top of
the ones under test, and ``fingerprint_variants``, option sets that must
each change the embedder's fingerprint (another model, a query prefix)::

    import pytest
    from ragloom.testing.embedders import PrefixEmbedderContract, SemanticEmbedderContract

    class TestMyEmbedder(PrefixEmbedderContract, SemanticEmbedderContract):
        @pytest.fixture
        def embedder_factory(self):
            return lambda **options: MyEmbedder(model="/abs/path/model", **options)

        @pytest.fixture
        def fingerprint_variants(self):
            return [{"model": "/abs/path/other-model"}, {"query_prefix": "query: "}]

``EmbedderContract`` holds what every embedder passes. Mix in
``PrefixEmbedderContract`` for an embedder that takes a query and a document
prefix (named by ``prefix_options``), and ``SemanticEmbedderContract`` for
one with a real model (random test models have no meaning).

The capability contracts are subclasses of ``EmbedderContract``: combine
them freely. A test that does not apply is not collected, never skipped.

The suite opens every embedder with ``Context(index_dir=tmp_path,
base_dir=tmp_path, name="contract")`` (so give absolute paths) and checks:
shapes, dtype and ``dimension``; the empty input; that no vector is zero and
different texts get different vectors; determinism, across calls
and instances; that a text gets the same vector alone or in a batch, in any
order, however the batch is split (by the suite, and by the embedder under
``batch_size_option``); long and non-ASCII texts; that the fingerprint is
stable, JSON, and changes with each of ``fingerprint_variants`` but not
with ``fingerprint_invariants`` (batch size, device); closing and
reopening. ``PrefixEmbedderContract`` adds that a query prefix reaches
queries only and a document prefix documents only;
``SemanticEmbedderContract`` that a question lies closer to its answer than
to an unrelated passage.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pytest

from ..components import Context, Embedder

if TYPE_CHECKING:
    EmbedderFactory = Callable[..., Embedder]

__all__ = [
    "CONTRACT_EMBEDDER_NAME",
    "CONTRACT_PASSAGES",
    "CONTRACT_QUESTIONS",
    "EmbedderContract",
    "PrefixEmbedderContract",
    "SemanticEmbedderContract",
]

CONTRACT_EMBEDDER_NAME = "contract"
"""The ``Context.name`` every embedder is opened with."""

CONTRACT_PASSAGES: list[str] = [
    "The Pro plan costs $29 per user per month.",
    "All data is encrypted at rest with AES-256 and in transit with TLS 1.3.",
    "Memories are kept for 90 days on the Free plan.",
    "Annual plans can be refunded within 30 days of purchase.",
    "Deleting a meeting deletes its memories within 24 hours.",
    "Single sign-on is available on the Enterprise plan.",
]
"""Passages of very different lengths and topics, one answer per question below."""

CONTRACT_QUESTIONS: list[tuple[str, int]] = [
    ("How much does the Pro plan cost?", 0),
    ("Is my data encrypted?", 1),
    ("Can I get my money back?", 3),
]
"""(question, index of the passage in ``CONTRACT_PASSAGES`` that answers it)."""

_LONG = " ".join(["pricing and security of every plan, in detail."] * 400)
_UNICODE = "Prix: 29 € par mois — données chiffrées 🔒 暗号化 ÄÖÜ ß"


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    norms = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / norms if norms else float(np.array_equal(a, b))


# A test of each capability contract, to tell a subclass of it from one that
# still sets the attributes that used to switch those tests on.
_PREFIX_TEST = "test_query_prefix_reaches_queries_only"
_SEMANTIC_TEST = "test_questions_are_closest_to_their_answers"


class EmbedderContract:
    """What every embedder passes. Subclass it (or the capability contracts
    below), define the fixtures, set the class attributes that apply."""

    batch_size_option: ClassVar[str | None] = "batch_size"
    """Name of the option setting texts per batch (``Embedder`` reads
    ``config.batch_size``); None for an embedder without one, whose batches
    the suite then only splits itself."""
    same_vector: ClassVar[float] = 1e-4
    """How far (1 - cosine) two vectors of the same text may be: padding in a
    batch may move the last float32 digits."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The attributes that once switched tests on and off are gone: fail
        # loudly rather than run other tests than they ask for.
        for attribute, test, contract in (
            ("prefix_options", _PREFIX_TEST, "PrefixEmbedderContract"),
            ("semantic", _SEMANTIC_TEST, "SemanticEmbedderContract"),
        ):
            if not hasattr(cls, attribute) or bool(getattr(cls, attribute)) == hasattr(cls, test):
                continue
            value = getattr(cls, attribute)
            advice = (
                f"subclass {contract} to run them"
                if value
                else f"subclass the contracts without {contract} (EmbedderContract has none)"
            )
            raise TypeError(
                f"{cls.__name__}: {attribute} = {value!r} no longer switches tests on "
                f"or off: {contract} holds them ({test}); {advice}"
            )

    # -- fixtures ------------------------------------------------------------
    @pytest.fixture
    def embedder_factory(self) -> EmbedderFactory:
        """Override: return ``(**options) -> Embedder``, unopened."""
        raise NotImplementedError(
            f"{type(self).__name__} must define an `embedder_factory` fixture returning "
            "a callable (**options) -> Embedder that builds an unopened embedder"
        )

    @pytest.fixture
    def fingerprint_variants(self) -> list[dict[str, Any]]:
        """Override: option sets that must each change the fingerprint."""
        raise NotImplementedError(
            f"{type(self).__name__} must define a `fingerprint_variants` fixture: a list "
            "of option dicts that must each change the fingerprint (another model, a "
            "query prefix, another dimension)"
        )

    @pytest.fixture
    def fingerprint_invariants(self) -> list[dict[str, Any]]:
        """Option sets that must not change the fingerprint (default: a batch size)."""
        return [{self.batch_size_option: 3}] if self.batch_size_option else []

    @pytest.fixture
    def make_embedder(
        self, embedder_factory: EmbedderFactory, tmp_path: Path
    ) -> Iterator[EmbedderFactory]:
        """``(**options) -> Embedder``, opened; every one is closed after the test."""
        opened: list[Embedder] = []

        def make_embedder(**options: Any) -> Embedder:
            embedder = embedder_factory(**options)
            assert isinstance(embedder, Embedder), (
                f"embedder_factory returned {embedder!r}, not a ragloom.Embedder"
            )
            embedder.open(
                Context(index_dir=tmp_path, base_dir=tmp_path, name=CONTRACT_EMBEDDER_NAME)
            )
            opened.append(embedder)
            return embedder

        yield make_embedder
        for embedder in reversed(opened):
            embedder.close()

    @pytest.fixture
    def embedder(self, make_embedder: EmbedderFactory) -> Embedder:
        """An opened embedder with the options under test."""
        return make_embedder()

    # -- helpers ---------------------------------------------------------------
    def assert_same_vectors(self, actual: np.ndarray, expected: np.ndarray, what: str) -> None:
        assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
        for i, (a, b) in enumerate(zip(np.atleast_2d(actual), np.atleast_2d(expected))):
            distance = 1.0 - _cosine(a, b)
            assert distance <= self.same_vector, (
                f"{what}: row {i} differs (1 - cosine = {distance:.2e}, allowed "
                f"{self.same_vector:.0e})"
            )

    def assert_different_vectors(self, a: np.ndarray, b: np.ndarray, what: str) -> None:
        distance = 1.0 - _cosine(a, b)
        assert distance > self.same_vector, f"{what}: the vectors are the same"

    @staticmethod
    def assert_matrix(vectors: Any, rows: int, dimension: int, what: str) -> None:
        assert isinstance(vectors, np.ndarray), f"{what}: got {type(vectors).__name__}, not ndarray"
        assert vectors.dtype == np.float32, f"{what}: dtype {vectors.dtype}, expected float32"
        assert vectors.shape == (rows, dimension), (
            f"{what}: shape {vectors.shape}, expected {(rows, dimension)}"
        )
        assert np.isfinite(vectors).all(), f"{what}: holds NaN or infinity"

    # -- shapes ------------------------------------------------------------------
    def test_dimension_is_a_positive_int(self, embedder: Embedder) -> None:
        assert isinstance(embedder.dimension, int) and embedder.dimension > 0, embedder.dimension

    def test_embed_documents_shape_and_dtype(self, embedder: Embedder) -> None:
        vectors = embedder.embed_documents(CONTRACT_PASSAGES)
        self.assert_matrix(vectors, len(CONTRACT_PASSAGES), embedder.dimension, "embed_documents")
        assert vectors.flags.c_contiguous, "embed_documents must return a C-contiguous array"

    def test_embed_batch_shape_and_dtype(self, embedder: Embedder) -> None:
        vectors = embedder.embed_batch(CONTRACT_PASSAGES[:3])
        self.assert_matrix(vectors, 3, embedder.dimension, "embed_batch")

    def test_embed_query_shape_and_dtype(self, embedder: Embedder) -> None:
        vector = embedder.embed_query(CONTRACT_QUESTIONS[0][0])
        assert isinstance(vector, np.ndarray) and vector.dtype == np.float32, vector
        assert vector.shape == (embedder.dimension,), vector.shape
        assert np.isfinite(vector).all()

    def test_empty_input(self, embedder: Embedder) -> None:
        self.assert_matrix(
            embedder.embed_documents([]), 0, embedder.dimension, "embed_documents([])"
        )

    def test_long_and_non_ascii_texts(self, embedder: Embedder) -> None:
        vectors = embedder.embed_documents([_LONG, _UNICODE, "x"])
        self.assert_matrix(vectors, 3, embedder.dimension, "long / non-ASCII texts")

    # -- meaning, at the least --------------------------------------------------
    def test_different_texts_get_different_vectors(self, embedder: Embedder) -> None:
        """No vector is zero (it has no direction: cosine is undefined, and every
        store ranks it last or arbitrarily), and no two different texts share a
        vector: an embedder that returns a constant, or zeros, fails here even
        with no capability contract mixed in."""
        texts = [*CONTRACT_PASSAGES, *(q for q, _ in CONTRACT_QUESTIONS), _UNICODE, "x", "y"]
        vectors = np.asarray(embedder.embed_documents(texts), dtype=np.float64)
        queries = np.asarray([embedder.embed_query(t) for t in texts[:2]], dtype=np.float64)
        for what, rows in (("embed_documents", vectors), ("embed_query", queries)):
            for i, row in enumerate(rows):
                assert np.linalg.norm(row) > 0, f"{what}: the vector of {texts[i]!r} is zero"
        for i in range(len(texts)):
            for j in range(i + 1, len(texts)):
                self.assert_different_vectors(
                    vectors[i], vectors[j], f"embed_documents of {texts[i]!r} and {texts[j]!r}"
                )
        self.assert_different_vectors(
            queries[0], queries[1], f"embed_query of {texts[0]!r} and {texts[1]!r}"
        )

    # -- consistency -------------------------------------------------------------
    def test_deterministic(self, embedder: Embedder, make_embedder: EmbedderFactory) -> None:
        first = embedder.embed_documents(CONTRACT_PASSAGES)
        self.assert_same_vectors(embedder.embed_documents(CONTRACT_PASSAGES), first, "second call")
        self.assert_same_vectors(
            make_embedder().embed_documents(CONTRACT_PASSAGES), first, "new instance"
        )
        query = CONTRACT_QUESTIONS[0][0]
        self.assert_same_vectors(
            embedder.embed_query(query), make_embedder().embed_query(query), "query"
        )

    def test_batch_matches_single(self, embedder: Embedder) -> None:
        batch = embedder.embed_documents(CONTRACT_PASSAGES)
        for i, text in enumerate(CONTRACT_PASSAGES):
            self.assert_same_vectors(
                embedder.embed_documents([text])[0], batch[i], f"passage {i} alone vs in a batch"
            )

    def test_order_is_kept(self, embedder: Embedder) -> None:
        batch = embedder.embed_documents(CONTRACT_PASSAGES)
        order = [3, 0, 5, 1, 4, 2]
        shuffled = embedder.embed_documents([CONTRACT_PASSAGES[i] for i in order])
        self.assert_same_vectors(shuffled, batch[order], "rows of a reordered input")

    def test_batches_split_anywhere(
        self, embedder: Embedder, make_embedder: EmbedderFactory
    ) -> None:
        texts = CONTRACT_PASSAGES + [q for q, _ in CONTRACT_QUESTIONS] + [_UNICODE]
        whole = embedder.embed_documents(texts)
        pieces = np.vstack(
            [embedder.embed_documents(texts[i : i + 2]) for i in range(0, len(texts), 2)]
        )
        self.assert_same_vectors(pieces, whole, "texts embedded two at a time")
        if self.batch_size_option is not None:
            small = make_embedder(**{self.batch_size_option: 2})
            self.assert_same_vectors(small.embed_documents(texts), whole, "batch size 2")

    def test_close_and_reopen(self, embedder: Embedder, tmp_path: Path) -> None:
        before = embedder.embed_documents(CONTRACT_PASSAGES[:2])
        embedder.close()
        embedder.close()  # safe twice
        embedder.open(Context(index_dir=tmp_path, base_dir=tmp_path, name=CONTRACT_EMBEDDER_NAME))
        self.assert_same_vectors(
            embedder.embed_documents(CONTRACT_PASSAGES[:2]), before, "reopened"
        )

    # -- fingerprint ---------------------------------------------------------------
    def test_fingerprint_is_stable_json(
        self, embedder: Embedder, make_embedder: EmbedderFactory
    ) -> None:
        fingerprint = embedder.fingerprint()
        assert isinstance(fingerprint, dict) and fingerprint, fingerprint
        assert json.loads(json.dumps(fingerprint)) == fingerprint, "the fingerprint must be JSON"
        assert fingerprint.get("dimension") == embedder.dimension, fingerprint
        assert embedder.fingerprint() == fingerprint, "the fingerprint changed between calls"
        assert make_embedder().fingerprint() == fingerprint, (
            "two instances with the same options differ"
        )

    def test_fingerprint_changes_with_what_changes_vectors(
        self,
        embedder: Embedder,
        make_embedder: EmbedderFactory,
        fingerprint_variants: list[dict[str, Any]],
    ) -> None:
        assert fingerprint_variants, "fingerprint_variants is empty"
        base = embedder.fingerprint()
        for options in fingerprint_variants:
            assert make_embedder(**options).fingerprint() != base, (
                f"options {options} do not change the fingerprint {base}"
            )

    def test_fingerprint_ignores_what_does_not(
        self,
        embedder: Embedder,
        make_embedder: EmbedderFactory,
        fingerprint_invariants: list[dict[str, Any]],
    ) -> None:
        base = embedder.fingerprint()
        for options in fingerprint_invariants:
            assert make_embedder(**options).fingerprint() == base, (
                f"options {options} change the fingerprint"
            )


class PrefixEmbedderContract(EmbedderContract):
    """The contract of embedders that put a text prefix before queries and
    another before documents (e5, nomic, BGE...): each reaches its side only."""

    prefix_options: ClassVar[tuple[str, str]] = ("query_prefix", "document_prefix")
    """Names of the options giving a text prefix to queries and to documents."""

    def _prefixed(self, make_embedder: EmbedderFactory, query: str, document: str) -> Embedder:
        query_option, document_option = self.prefix_options
        return make_embedder(**{query_option: query, document_option: document})

    def test_without_prefixes_a_query_is_a_document(self, make_embedder: EmbedderFactory) -> None:
        plain = self._prefixed(make_embedder, "", "")
        question = CONTRACT_QUESTIONS[0][0]
        self.assert_same_vectors(
            plain.embed_query(question), plain.embed_documents([question])[0], "no prefixes"
        )

    def test_query_prefix_reaches_queries_only(self, make_embedder: EmbedderFactory) -> None:
        plain = self._prefixed(make_embedder, "", "")
        prefixed = self._prefixed(make_embedder, "search query: ", "")
        question = CONTRACT_QUESTIONS[0][0]
        self.assert_same_vectors(
            prefixed.embed_documents(CONTRACT_PASSAGES),
            plain.embed_documents(CONTRACT_PASSAGES),
            "documents under a query prefix",
        )
        self.assert_same_vectors(
            prefixed.embed_query(question),
            plain.embed_documents(["search query: " + question])[0],
            "a query under a query prefix",
        )
        self.assert_different_vectors(
            prefixed.embed_query(question), plain.embed_query(question), "query prefix ignored"
        )

    def test_document_prefix_reaches_documents_only(self, make_embedder: EmbedderFactory) -> None:
        plain = self._prefixed(make_embedder, "", "")
        prefixed = self._prefixed(make_embedder, "", "search document: ")
        question = CONTRACT_QUESTIONS[0][0]
        self.assert_same_vectors(
            prefixed.embed_query(question),
            plain.embed_query(question),
            "a query under a document prefix",
        )
        self.assert_same_vectors(
            prefixed.embed_documents(CONTRACT_PASSAGES[:2]),
            plain.embed_documents(["search document: " + p for p in CONTRACT_PASSAGES[:2]]),
            "documents under a document prefix",
        )


class SemanticEmbedderContract(EmbedderContract):
    """The contract of embedders with a real model: vectors carry meaning
    (random test models have none)."""

    def test_questions_are_closest_to_their_answers(self, embedder: Embedder) -> None:
        passages = embedder.embed_documents(CONTRACT_PASSAGES)
        for question, answer in CONTRACT_QUESTIONS:
            query = embedder.embed_query(question)
            scores = [_cosine(query, p) for p in passages]
            best = int(np.argmax(scores))
            assert best == answer, (
                f"{question!r} is closest to {CONTRACT_PASSAGES[best]!r} "
                f"({scores[best]:.3f}), not to {CONTRACT_PASSAGES[answer]!r} ({scores[answer]:.3f})"
            )

    def test_pricing_question_is_closer_to_pricing_than_to_encryption(
        self, embedder: Embedder
    ) -> None:
        query = embedder.embed_query("How much does the Pro plan cost?")
        pricing, encryption = embedder.embed_documents(CONTRACT_PASSAGES[:2])
        assert _cosine(query, pricing) > _cosine(query, encryption) + 0.05
