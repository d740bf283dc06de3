"""The chunker contract: the tests every ``ragloom.Chunker`` passes, built-in or plugin.

Subclass ``ChunkerContract`` and give it two fixtures: ``chunker_factory``,
a callable ``(**options) -> Chunker`` building an *unopened* chunker, and
``other_options``, options with which it cuts ``CONTRACT_TEXT`` otherwise
(a smaller size)::

    import pytest
    from ragloom.testing import ChunkerContract

    class TestMyChunker(ChunkerContract):
        @pytest.fixture
        def chunker_factory(self):
            return lambda **options: MyChunker(**options)

        @pytest.fixture
        def other_options(self):
            return {"size": 200}

What it checks, on ``CONTRACT_TEXT`` (Markdown headings, prose, a list, a
code block, accents, CJK, an emoji, Windows line ends) and on a long run of
text with no break in it:

- each chunk's ``start`` and ``end`` find its text in the document
  (``document.text[chunk.start:chunk.end] == chunk.text``; a chunk that
  starts at a row of a Markdown table may be led by the table's header row,
  which its ``table_header`` metadata names, and the rule under it), and no
  chunk is blank;
- every character of the document that is not white space is in a chunk
  (nothing is lost);
- ids are unique, in a document and across documents, and the same on
  every split of the same text with the same options;
- each chunk keeps the document's metadata and adds ``document_id``,
  ``chunk_index``, ``start`` and ``end``; ``index`` counts 0, 1, 2...;
  ``document_id`` is the document's;
- ``label`` starts with the document's source (citations show it);
- a blank document gives no chunks;
- ``fingerprint()`` is JSON, the same for the same options and another for
  ``other_options``, which also give other chunks.

A chunker that needs the pipeline's embedder (through ``Context.services``)
overrides the ``services`` fixture.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from ..components import Chunker, Context
from ..types import Chunk, Document

if TYPE_CHECKING:
    ChunkerFactory = Callable[..., Chunker]

__all__ = ["CONTRACT_CHUNKER_NAME", "CONTRACT_TEXT", "ChunkerContract", "contract_document"]

CONTRACT_CHUNKER_NAME = "contract"

_SECTION = """\
## {name} plan

The {name} plan costs ${price} per user per month, billed yearly. It includes \
single sign-on, audit logs and {seats} seats; more seats cost extra. Support \
answers within {hours} hours on working days.

- Storage: {storage} GB per workspace.
- Exports: Markdown, PDF and JSON.
- Data stays in the region you choose.

"""

CONTRACT_TEXT = (
    "# Pricing\r\n\r\nNotewise bills per seat. Café owners, naïve users and 東京 teams "
    "pay the same 😀.\r\n\r\n"
    + "".join(
        _SECTION.format(name=name, price=price, seats=seats, hours=hours, storage=storage)
        for name, price, seats, hours, storage in [
            ("Free", 0, 1, 72, 1),
            ("Pro", 29, 10, 24, 100),
            ("Team", 49, 50, 8, 500),
            ("Enterprise", 99, 500, 1, 5000),
        ]
        * 3
    )
    + "```python\ndef price(seats: int) -> int:\n    return 29 * seats\n```\n\n"
    + "Questions? Write to billing@example.com, or read the FAQ.\n"
)
"""About 5,000 characters: several chunks at any chunker's default size."""


def contract_document(
    doc_id: str = "docs/pricing.md", text: str = CONTRACT_TEXT, **metadata: Any
) -> Document:
    """A document as a loader gives it: an id, its text, and metadata with a
    ``source`` (plus ``metadata``)."""
    return Document(
        id=doc_id,
        text=text,
        metadata={"source": doc_id, "path": f"/srv/{doc_id}", "team": "billing", **metadata},
    )


def _check_chunks(document: Document, chunks: list[Chunk]) -> None:
    text = document.text
    for chunk in chunks:
        assert isinstance(chunk, Chunk), f"split() must return Chunk objects, got {chunk!r}"
        assert chunk.text.strip(), f"chunk {chunk.id!r} is blank"
        found = text[chunk.start : chunk.end]
        lead = chunk.text[: len(chunk.text) - len(found)]
        header = chunk.metadata.get("table_header")
        led = (
            isinstance(header, str)
            and lead.startswith(header)
            and lead in text
            and chunk.text.endswith(found)
        )
        assert found == chunk.text or led, (
            f"chunk {chunk.id!r}: document.text[{chunk.start}:{chunk.end}] is {found[:60]!r}, "
            f"not its text {chunk.text[:60]!r}"
        )
    covered = bytearray(len(text))
    for chunk in chunks:
        covered[chunk.start : chunk.end] = b"\1" * (chunk.end - chunk.start)
    lost = [i for i, c in enumerate(text) if not covered[i] and not c.isspace()]
    assert not lost, f"{len(lost)} character(s) in no chunk, from {text[lost[0] : lost[0] + 40]!r}"
    ids = [c.id for c in chunks]
    assert len(ids) == len(set(ids)), (
        f"chunk ids repeat: {sorted(i for i in ids if ids.count(i) > 1)}"
    )


class ChunkerContract:
    """What every chunker passes (see the module docs)."""

    @pytest.fixture
    def services(self) -> dict[str, Any]:
        return {}

    @pytest.fixture
    def open_chunker(
        self, chunker_factory: ChunkerFactory, services: dict[str, Any], tmp_path: Any
    ) -> Iterator[Callable[..., Chunker]]:
        opened: list[Chunker] = []

        def make(**options: Any) -> Chunker:
            chunker = chunker_factory(**options)
            chunker.open(
                Context(
                    index_dir=tmp_path / ".ragloom",
                    base_dir=tmp_path,
                    name=CONTRACT_CHUNKER_NAME,
                    services=services,
                )
            )
            opened.append(chunker)
            return chunker

        yield make
        for chunker in opened:
            chunker.close()

    def test_offsets_find_each_chunk_and_nothing_is_lost(self, open_chunker: Any) -> None:
        document = contract_document()
        chunks = open_chunker().split(document)
        assert len(chunks) > 1, "5,000 characters in one chunk: is there a size?"
        _check_chunks(document, chunks)

    def test_a_long_text_with_no_break_is_cut_whole(self, open_chunker: Any) -> None:
        document = contract_document("docs/hash.txt", "0123456789abcdef" * 1250)
        chunks = open_chunker().split(document)
        assert len(chunks) > 1, "20,000 characters with no break came out as one chunk"
        _check_chunks(document, chunks)

    def test_ids_are_stable_and_unique_across_documents(self, open_chunker: Any) -> None:
        chunker = open_chunker()
        first = chunker.split(contract_document())
        again = chunker.split(contract_document())
        fresh = open_chunker().split(contract_document())
        pairs = [(c.id, c.text) for c in first]
        assert pairs == [(c.id, c.text) for c in again], "a second split gave other chunks"
        assert pairs == [(c.id, c.text) for c in fresh], "another instance gave other chunks"
        other = chunker.split(contract_document("docs/pricing-copy.md"))
        shared = {c.id for c in first} & {c.id for c in other}
        assert not shared, f"two documents' chunks share ids: {sorted(shared)[:3]}"

    def test_chunks_keep_the_documents_metadata(self, open_chunker: Any) -> None:
        document = contract_document(owner="alice", tags=["a", "b"])
        chunks = open_chunker().split(document)
        assert [c.index for c in chunks] == list(range(len(chunks))), "index counts 0, 1, 2..."
        for chunk in chunks:
            assert chunk.document_id == document.id
            for key, value in document.metadata.items():
                assert chunk.metadata.get(key) == value, f"chunk {chunk.id!r} lost {key!r}"
            assert chunk.metadata.get("document_id") == document.id
            assert chunk.metadata.get("chunk_index") == chunk.index
            assert (chunk.metadata.get("start"), chunk.metadata.get("end")) == (
                chunk.start,
                chunk.end,
            ), f"chunk {chunk.id!r}: metadata start/end differ from its offsets"

    def test_labels_start_with_the_source(self, open_chunker: Any) -> None:
        document = contract_document()
        for chunk in open_chunker().split(document):
            assert isinstance(chunk.label, str) and chunk.label.startswith(document.source), (
                f"chunk {chunk.id!r} is labelled {chunk.label!r}: citations show the label, "
                f"which starts with the source ({document.source!r})"
            )

    @pytest.mark.parametrize("text", ["", " ", "\n\n\t \r\n"], ids=["empty", "space", "blank"])
    def test_a_blank_document_gives_no_chunks(self, open_chunker: Any, text: str) -> None:
        assert open_chunker().split(contract_document("docs/blank.md", text)) == []

    def test_the_fingerprint_follows_the_options(
        self, open_chunker: Any, other_options: dict[str, Any]
    ) -> None:
        same, twin = open_chunker(), open_chunker()
        other = open_chunker(**other_options)
        fingerprint = same.fingerprint()
        assert json.loads(json.dumps(fingerprint)) == fingerprint, "the index stores it as JSON"
        assert twin.fingerprint() == fingerprint
        assert other.fingerprint() != fingerprint, f"{other_options} left the fingerprint"
        document = contract_document()
        cut = [(c.start, c.end) for c in other.split(document)]
        assert cut != [(c.start, c.end) for c in same.split(document)], (
            f"other_options {other_options} cut the document the same way: give options "
            "that change the chunks"
        )
        _check_chunks(document, other.split(document))
