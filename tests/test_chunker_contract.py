"""Every built-in chunker passes ``ragloom.testing.ChunkerContract``."""

from __future__ import annotations

from typing import Any

import pytest
from ragloom.builtin.chunkers.code import CodeChunker
from ragloom.builtin.chunkers.fixed import FixedChunker
from ragloom.builtin.chunkers.html import HtmlChunker
from ragloom.builtin.chunkers.layers import LayersChunker
from ragloom.builtin.chunkers.markdown import MarkdownChunker
from ragloom.builtin.chunkers.parent import ParentChunker
from ragloom.builtin.chunkers.recursive import RecursiveChunker
from ragloom.builtin.chunkers.route import RouteChunker
from ragloom.builtin.chunkers.semantic import SemanticChunker
from ragloom.builtin.chunkers.sentence import SentenceChunker
from ragloom.builtin.embedders.hash import HashEmbedder
from ragloom.components import Context
from ragloom.testing import ChunkerContract, contract_document


class TestRecursive(ChunkerContract):
    @pytest.fixture
    def chunker_factory(self) -> Any:
        return RecursiveChunker

    @pytest.fixture
    def other_options(self) -> dict[str, Any]:
        return {"size": 300, "overlap": 30}


class TestFixed(ChunkerContract):
    @pytest.fixture
    def chunker_factory(self) -> Any:
        return FixedChunker

    @pytest.fixture
    def other_options(self) -> dict[str, Any]:
        return {"size": 300}


class TestSentence(ChunkerContract):
    @pytest.fixture
    def chunker_factory(self) -> Any:
        return SentenceChunker

    @pytest.fixture
    def other_options(self) -> dict[str, Any]:
        return {"size": 300}


class TestMarkdown(ChunkerContract):
    @pytest.fixture
    def chunker_factory(self) -> Any:
        return MarkdownChunker

    @pytest.fixture
    def other_options(self) -> dict[str, Any]:
        return {"merge_small": True}


class TestHtml(ChunkerContract):
    @pytest.fixture
    def chunker_factory(self) -> Any:
        return HtmlChunker

    @pytest.fixture
    def other_options(self) -> dict[str, Any]:
        return {"size": 300}


class TestCode(ChunkerContract):
    @pytest.fixture
    def chunker_factory(self) -> Any:
        return CodeChunker

    @pytest.fixture
    def other_options(self) -> dict[str, Any]:
        return {"size": 300, "overlap": 0}


class TestParent(ChunkerContract):
    @pytest.fixture
    def chunker_factory(self) -> Any:
        return ParentChunker

    @pytest.fixture
    def other_options(self) -> dict[str, Any]:
        return {"child_size": 200}


class TestLayers(ChunkerContract):
    @pytest.fixture
    def chunker_factory(self) -> Any:
        layers = {
            "passages": {"type": "recursive", "size": 1000, "overlap": 100},
            "sentences": {"type": "sentence", "size": 400},
        }
        return lambda **options: LayersChunker(**{"layers": layers, **options})

    @pytest.fixture
    def other_options(self) -> dict[str, Any]:
        return {"layers": {"passages": {"type": "recursive", "size": 500}}}


class TestRoute(ChunkerContract):
    """The contract's text file goes to ``fixed``, its Markdown to the default."""

    @pytest.fixture
    def chunker_factory(self) -> Any:
        routes = [{"match": {"source": {"$in": ["docs/hash.txt"]}}, "chunker": {"type": "fixed"}}]
        return lambda **options: RouteChunker(
            **{"routes": routes, "default": {"type": "markdown"}, **options}
        )

    @pytest.fixture
    def other_options(self) -> dict[str, Any]:
        return {"default": {"type": "markdown", "size": 300}}


class TestSemantic(ChunkerContract):
    @pytest.fixture
    def services(self) -> dict[str, Any]:
        embedder = HashEmbedder(dimension=64)
        embedder.open(Context(name="hash"))
        return {"embedder": embedder}

    @pytest.fixture
    def chunker_factory(self) -> Any:
        return SemanticChunker

    @pytest.fixture
    def other_options(self) -> dict[str, Any]:
        return {"max_size": 400}


def test_the_contract_catches_lost_text_and_wrong_offsets() -> None:
    """The suite's checks fail on a chunker that drops text or misplaces it."""
    from ragloom.testing.chunkers import _check_chunks

    document = contract_document()
    chunks = RecursiveChunker(size=300, overlap=0).split(document)
    with pytest.raises(AssertionError, match="in no chunk"):
        _check_chunks(document, chunks[1:])
    moved = [chunks[0].__class__(**{**_fields(chunks[0]), "start": chunks[0].start + 1})]
    with pytest.raises(AssertionError, match="not its text"):
        _check_chunks(document, moved + chunks[1:])
    with pytest.raises(AssertionError, match="ids repeat"):
        _check_chunks(document, chunks + chunks[:1])


def _fields(chunk: Any) -> dict[str, Any]:
    import dataclasses

    return {f.name: getattr(chunk, f.name) for f in dataclasses.fields(chunk)}
