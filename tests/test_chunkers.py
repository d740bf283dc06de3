"""The built-in chunkers: ``fixed`` and ``recursive``.

The recursive chunker is checked chunk for chunk against LangChain's
``RecursiveCharacterTextSplitter`` (a dev dependency; the tests skip without it).
"""

from __future__ import annotations

import logging
import re
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from ragloom.builtin.chunkers.fixed import FixedChunker, fixed_spans
from ragloom.builtin.chunkers.recursive import (
    DEFAULT_SEPARATORS,
    RecursiveChunker,
    split_spans,
    split_text,
)
from ragloom.components import Chunker
from ragloom.types import Chunk, Document

MARKDOWN = """# Handbook

Welcome to the team. This handbook explains how we work, what we expect and
what you can expect from us.

## Pricing

The Pro plan costs $29 per user per month. Annual plans get two months free.
Enterprise plans are priced per seat with volume discounts.

```python
def price(seats: int, annual: bool = False) -> float:
    monthly = 29 * seats
    return monthly * 10 if annual else monthly * 12
```

## Refunds

- Annual plans can be refunded within 30 days of purchase.
- Monthly plans are not refunded.
- Contact billing@example.com for anything else.



### Edge cases

Trailing spaces here.   \n\tTabbed line.\n\n\n\nFour newlines above.
"""

LONG_PARAGRAPH = " ".join(
    f"Sentence number {i} talks about cells, proteins and the expression of gene {i % 17}."
    for i in range(120)
)

NO_SPACES = "abcdefghijklmnopqrstuvwxyz0123456789" * 60

UNICODE = (
    "Ünïcödé tëxt — with “quotes”, emoji 🙂🚀 and CJK: 日本語のテキストです。\n\n"
    "Ελληνικά κείμενα. Русский текст. العربية\u00a0نص.\n"
    "Zero\u200bwidth and\u2003em spaces.\u3000Ideographic space. "
) * 15

TEXTS = {
    "markdown": MARKDOWN,
    "long paragraph": LONG_PARAGRAPH,
    "no spaces": NO_SPACES,
    "unicode": UNICODE,
    "mixed": MARKDOWN + "\n\n" + LONG_PARAGRAPH + "\n" + NO_SPACES + "\n\n" + UNICODE,
    "whitespace only": " \n\n\t  \n ",
    "empty": "",
}

SIZES = [
    (1, 0),
    (5, 2),
    (40, 0),
    (50, 10),
    (120, 60),
    (200, 0),
    (333, 100),
    (800, 100),
    (1000, 999),
]


def doc(text: str, **metadata: object) -> Document:
    return Document(
        id="docs/handbook.md", text=text, metadata={"source": "docs/handbook.md", **metadata}
    )


from ragloom.builtin.chunkers._chunking import DOCUMENT_ONLY_KEYS, document_sections  # noqa: E402


def check_chunks(
    document: Document,
    chunks: list[Chunk],
    *,
    exact_offsets: bool = True,
    sections: bool = True,
) -> None:
    """What every chunker promises: offsets, ids, indexes, labels, metadata.

    With ``sections`` (the chunkers that label by the heading a chunk starts
    in), each chunk's section and label are those of ``document_sections`` at its
    start; a document with ``page_starts`` is labelled by page instead.
    Chunkers that choose their own anchors (markdown, code) pass
    ``sections=False`` and check their labels themselves; the label must still
    be ``<source>#<anchor>``.
    """
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert [c.id for c in chunks] == [f"{document.id}::{i}" for i in range(len(chunks))]
    assert len({c.id for c in chunks}) == len(chunks)
    find = document_sections(document)  # none in source code
    paged = "page_starts" in document.metadata
    for chunk in chunks:
        assert chunk.text
        assert chunk.document_id == document.id
        assert chunk.label.startswith(f"{document.source}#")
        assert chunk.label != f"{document.source}#"
        if paged:
            page = chunk.metadata["page"]
            assert chunk.label == f"{document.source}#page={page}"
            starts = document.metadata["page_starts"]
            assert starts[page - 1] <= chunk.start
            assert page == len(starts) or chunk.start < starts[page]
        if sections:
            section = find(chunk.start)
            if section is None:
                if not paged:
                    assert chunk.label == f"{document.source}#chunk-{chunk.index}"
                assert "section" not in chunk.metadata
            else:
                if not paged:
                    assert chunk.label == f"{document.source}#{section[1]}"
                assert chunk.metadata["section"] == section[0]
        assert 0 <= chunk.start < chunk.end <= len(document.text)
        if exact_offsets:
            assert document.text[chunk.start : chunk.end] == chunk.text
        for key, value in document.metadata.items():
            if key in DOCUMENT_ONLY_KEYS:
                assert key not in chunk.metadata
            else:
                assert chunk.metadata[key] == value
        assert chunk.metadata["document_id"] == document.id
        assert chunk.metadata["chunk_index"] == chunk.index
        assert (chunk.metadata["start"], chunk.metadata["end"]) == (chunk.start, chunk.end)
    # in document order: within each layer, for the `layers` chunker
    for layer in dict.fromkeys(c.metadata.get("layer") for c in chunks):
        starts = [c.start for c in chunks if c.metadata.get("layer") == layer]
        assert starts == sorted(starts)


# --- fixed -------------------------------------------------------------------


def test_fixed_is_a_chunker_with_defaults() -> None:
    chunker = FixedChunker()
    assert isinstance(chunker, Chunker)
    assert (chunker.config.size, chunker.config.overlap) == (800, 100)
    assert chunker.fingerprint() == {
        "type": "FixedChunker",
        "size": 800,
        "overlap": 100,
        "unit": "characters",
    }


@pytest.mark.parametrize("name", list(TEXTS))
@pytest.mark.parametrize(("size", "overlap"), SIZES)
def test_fixed_offsets_lengths_and_coverage(name: str, size: int, overlap: int) -> None:
    if overlap >= size:
        overlap = size - 1
    document = doc(TEXTS[name], team="support", tags=["a", "b"])
    chunks = FixedChunker(size=size, overlap=overlap).split(document)
    check_chunks(document, chunks)
    assert all(len(c.text) <= size for c in chunks)
    assert all(c.text == c.text.strip() for c in chunks)
    covered = set()
    for c in chunks:
        covered.update(range(c.start, c.end))
    text = document.text
    assert {i for i, ch in enumerate(text) if not ch.isspace()} <= covered


def test_fixed_empty_and_whitespace_documents_give_nothing() -> None:
    chunker = FixedChunker(size=10, overlap=2)
    assert chunker.split(doc("")) == []
    assert chunker.split(doc(" \n\t\u3000 \n" * 20)) == []


def test_fixed_overlap_is_exact_without_whitespace() -> None:
    text = NO_SPACES[:1000]
    chunks = FixedChunker(size=100, overlap=30).split(doc(text))
    assert [c.start for c in chunks] == list(range(0, 1000 - 30, 70))
    for a, b in pairwise(chunks):
        assert a.end - b.start == 30
        assert a.text[-30:] == b.text[:30]
    assert chunks[-1].end == 1000


def test_fixed_overlap_zero_tiles_the_text() -> None:
    text = NO_SPACES[:1000]
    chunks = FixedChunker(size=64, overlap=0).split(doc(text))
    assert "".join(c.text for c in chunks) == text
    assert all(a.end == b.start for a, b in pairwise(chunks))


def test_fixed_prose_chunks_share_text_and_keep_words_whole() -> None:
    text = LONG_PARAGRAPH
    chunks = FixedChunker(size=200, overlap=50).split(doc(text))
    words = set(text.split())
    for a, b in pairwise(chunks):
        assert b.start < a.end, "consecutive chunks overlap"
        assert a.end - b.start <= 50
        assert text[b.start : a.end] == a.text[b.start - a.start :] == b.text[: a.end - b.start]
    for c in chunks:
        # Each chunk ends at a word boundary: it was never cut inside a word.
        assert c.end == len(text) or text[c.end].isspace()
        assert c.text.split()[-1] in words
    assert all(len(c.text) > 100 for c in chunks[:-1])


def test_fixed_cuts_a_word_longer_than_half_a_window() -> None:
    text = "short " + "x" * 300 + " tail"
    chunks = FixedChunker(size=100, overlap=0).split(doc(text))
    check_chunks(doc(text), chunks)
    assert chunks[0].text == "short " + "x" * 94
    assert "".join(c.text for c in chunks).replace(" ", "") == text.replace(" ", "")


def test_fixed_large_overlap_still_moves_forward() -> None:
    text = "ab cd " * 50
    chunks = FixedChunker(size=10, overlap=9).split(doc(text))
    check_chunks(doc(text), chunks)
    ends = [c.end for c in chunks]
    assert ends == sorted(set(ends)), "every chunk reaches further than the one before"
    assert chunks[-1].end == len(text.rstrip())


def test_fixed_ids_are_stable_across_runs() -> None:
    document = doc(MARKDOWN)
    first = FixedChunker(size=120, overlap=20).split(document)
    again = FixedChunker(size=120, overlap=20).split(document)
    assert first == again


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"size": 100, "overlap": 100}, "overlap (100) must be smaller than size (100)"),
        ({"size": 10, "overlap": 50}, "overlap (50) must be smaller than size (10)"),
        ({"size": 0}, "greater than 0"),
        ({"overlap": -1}, "greater than or equal to 0"),
        ({"sise": 100}, "Extra inputs are not permitted"),
    ],
)
def test_fixed_config_errors(options: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)):
        FixedChunker(**options)


def test_fixed_spans_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="size"):
        fixed_spans("text", 0, 0)
    with pytest.raises(ValueError, match="overlap"):
        fixed_spans("text", 5, 5)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.lists(
        st.sampled_from(
            ["word", "a", "longerword", " ", "  ", "\n", "\n\n", ". ", "é", "日本", "\t"]
        ),
        max_size=80,
    ).map("".join),
    size=st.integers(1, 60),
    data=st.data(),
)
def test_fixed_properties(text: str, size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    document = doc(text)
    chunks = FixedChunker(size=size, overlap=overlap).split(document)
    check_chunks(document, chunks)
    assert all(len(c.text) <= size for c in chunks)
    assert all(a.end < b.end for a, b in pairwise(chunks))
    covered = set()
    for c in chunks:
        covered.update(range(c.start, c.end))
    assert {i for i, ch in enumerate(text) if not ch.isspace()} <= covered


# --- recursive: against LangChain --------------------------------------------

try:
    import langchain_text_splitters as text_splitters
except ImportError:  # only the comparisons below need it, not the rest of the module
    text_splitters = None

needs_langchain = pytest.mark.skipif(
    text_splitters is None,
    reason="compares with LangChain: pip install langchain-text-splitters to run it",
)


@pytest.fixture(autouse=True)
def _quiet_langchain(caplog: pytest.LogCaptureFixture) -> None:
    # LangChain warns about every over-long chunk; those cases are intended here.
    caplog.set_level(logging.ERROR, logger="langchain_text_splitters.base")


def langchain_split(
    text: str,
    size: int,
    overlap: int,
    separators: list[str] | tuple[str, ...] = DEFAULT_SEPARATORS,
    keep_separator: str | bool = "start",
    strip_whitespace: bool = True,
) -> list[str]:
    splitter = text_splitters.RecursiveCharacterTextSplitter(
        chunk_size=size,
        chunk_overlap=overlap,
        separators=list(separators),
        keep_separator=keep_separator,
        strip_whitespace=strip_whitespace,
        is_separator_regex=False,
    )
    return splitter.split_text(text)


def check_spans(
    text: str, texts: list[str], starts: list[int], ends: list[int], exact: bool
) -> None:
    assert len(texts) == len(starts) == len(ends)
    assert starts == sorted(starts)
    for chunk, start, end in zip(texts, starts, ends, strict=True):
        assert 0 <= start < end <= len(text)
        if exact:
            assert text[start:end] == chunk
        else:
            # Separators were collapsed: the span holds the chunk's ends.
            source = text[start:end]
            assert len(source) >= len(chunk)
            assert source[0] == chunk[0] and source[-1] == chunk[-1]


@needs_langchain
@pytest.mark.parametrize("name", list(TEXTS))
@pytest.mark.parametrize(("size", "overlap"), SIZES)
@pytest.mark.parametrize("keep_separator", ["start", "end", False])
def test_recursive_matches_langchain(
    name: str, size: int, overlap: int, keep_separator: str | bool
) -> None:
    text = TEXTS[name]
    expected = langchain_split(text, size, overlap, keep_separator=keep_separator)
    assert split_text(text, size, overlap, keep_separator=keep_separator) == expected
    texts, starts, ends = split_spans(text, size, overlap, keep_separator=keep_separator)
    assert texts == expected
    check_spans(text, texts, starts, ends, exact=keep_separator is not False)


@needs_langchain
@pytest.mark.parametrize(
    "separators",
    [
        ["\n\n", "\n", " ", ""],  # LangChain's own default
        ["\n"],  # long lines stay whole
        [". ", "x"],  # neither may occur
        ["", " "],  # characters first
        ["```", "\n## ", "\n", " "],
        [" "],
    ],
)
@pytest.mark.parametrize("strip_whitespace", [True, False])
@pytest.mark.parametrize("keep_separator", ["start", "end", False])
def test_recursive_matches_langchain_with_other_separators(
    separators: list[str], strip_whitespace: bool, keep_separator: str | bool
) -> None:
    text = TEXTS["mixed"]
    for size, overlap in [(30, 0), (100, 25), (400, 100)]:
        options = (separators, keep_separator, strip_whitespace)
        expected = langchain_split(text, size, overlap, *options)
        got = split_spans(text, size, overlap, separators, keep_separator, strip_whitespace)
        assert got[0] == expected
        check_spans(text, *got, exact=keep_separator is not False)


@needs_langchain
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.lists(
        st.sampled_from(
            [
                "word",
                "a",
                "bb",
                "longerword",
                " ",
                "  ",
                "\n",
                "\n\n",
                "\n\n\n",
                ". ",
                ".",
                "\t",
                "é",
                "日本",
                "x" * 25,
            ]
        ),
        max_size=120,
    ).map("".join),
    size=st.integers(1, 80),
    separators=st.sampled_from(
        [list(DEFAULT_SEPARATORS), ["\n\n", "\n", " ", ""], ["\n"], [". ", " "], [" ", ""]]
    ),
    keep_separator=st.sampled_from(["start", "end", False]),
    strip_whitespace=st.booleans(),
    data=st.data(),
)
def test_recursive_matches_langchain_on_random_text(
    text: str,
    size: int,
    separators: list[str],
    keep_separator: str | bool,
    strip_whitespace: bool,
    data: st.DataObject,
) -> None:
    overlap = data.draw(st.integers(0, size))
    expected = langchain_split(text, size, overlap, separators, keep_separator, strip_whitespace)
    got = split_spans(text, size, overlap, separators, keep_separator, strip_whitespace)
    assert got[0] == expected
    check_spans(text, *got, exact=keep_separator is not False)


def count_words(text: str) -> int:
    return len(text.split())


def langchain_split_words(
    text: str,
    size: int,
    overlap: int,
    separators: list[str] | tuple[str, ...] = DEFAULT_SEPARATORS,
    keep_separator: str | bool = "start",
    strip_whitespace: bool = True,
) -> list[str]:
    splitter = text_splitters.RecursiveCharacterTextSplitter(
        chunk_size=size,
        chunk_overlap=overlap,
        separators=list(separators),
        keep_separator=keep_separator,
        strip_whitespace=strip_whitespace,
        is_separator_regex=False,
        length_function=count_words,
    )
    return splitter.split_text(text)


@needs_langchain
@pytest.mark.parametrize("name", list(TEXTS))
@pytest.mark.parametrize(("size", "overlap"), [(1, 0), (3, 1), (10, 0), (25, 5), (120, 40)])
@pytest.mark.parametrize("keep_separator", ["start", "end", False])
def test_recursive_in_words_matches_langchain_with_a_word_length_function(
    name: str, size: int, overlap: int, keep_separator: str | bool
) -> None:
    from ragloom.builtin.chunkers._chunking import count_words as ragloom_count_words

    text = TEXTS[name]
    expected = langchain_split_words(text, size, overlap, keep_separator=keep_separator)
    texts, starts, ends = split_spans(
        text, size, overlap, keep_separator=keep_separator, length_function=ragloom_count_words
    )
    assert texts == expected
    check_spans(text, texts, starts, ends, exact=keep_separator is not False)


@needs_langchain
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.lists(
        st.sampled_from(["word", "a", "bb", " ", "  ", "\n", "\n\n", ". ", "\t", "日本", "x" * 9]),
        max_size=80,
    ).map("".join),
    size=st.integers(1, 12),
    separators=st.sampled_from([list(DEFAULT_SEPARATORS), ["\n\n", "\n", " ", ""], [" "]]),
    keep_separator=st.sampled_from(["start", "end", False]),
    strip_whitespace=st.booleans(),
    data=st.data(),
)
def test_recursive_in_words_matches_langchain_on_random_text(
    text: str,
    size: int,
    separators: list[str],
    keep_separator: str | bool,
    strip_whitespace: bool,
    data: st.DataObject,
) -> None:
    overlap = data.draw(st.integers(0, size))
    options = (separators, keep_separator, strip_whitespace)
    expected = langchain_split_words(text, size, overlap, *options)
    got = split_spans(text, size, overlap, *options, length_function=count_words)
    assert got[0] == expected
    check_spans(text, *got, exact=keep_separator is not False)


def test_recursive_chunker_unit_words_counts_words() -> None:
    from ragloom.builtin.chunkers._chunking import count_words as ragloom_count_words

    document = doc(TEXTS["mixed"])
    chunks = RecursiveChunker(size=30, overlap=5, unit="words").split(document)
    check_chunks(document, chunks)
    # split_text is what the LangChain comparisons above check
    assert [c.text for c in chunks] == split_text(
        document.text, 30, 5, length_function=ragloom_count_words
    )
    assert max(len(c.text.split()) for c in chunks) <= 30


# --- recursive: the chunker --------------------------------------------------


def test_recursive_is_a_chunker_with_defaults() -> None:
    chunker = RecursiveChunker()
    assert isinstance(chunker, Chunker)
    assert chunker.fingerprint() == {
        "type": "RecursiveChunker",
        "size": 800,
        "overlap": 100,
        "unit": "characters",
        "separators": ["\n\n", "\n", ". ", " ", ""],
        "keep_separator": "start",
        "strip_whitespace": True,
        "repeat_table_header": True,
    }


@pytest.mark.parametrize("keep_separator", ["start", "end"])
def test_recursive_chunks_offsets_ids_metadata(keep_separator: str) -> None:
    document = doc(TEXTS["mixed"], team="support", year=2024)
    chunks = RecursiveChunker(size=200, overlap=40, keep_separator=keep_separator).split(document)
    check_chunks(document, chunks)
    assert [c.text for c in chunks] == split_text(
        document.text, 200, 40, keep_separator=keep_separator
    )
    assert (
        RecursiveChunker(size=200, overlap=40, keep_separator=keep_separator).split(document)
        == chunks
    )


def test_recursive_dropped_separators_give_spanning_offsets() -> None:
    text = "one  two   three\n\n\n\nfour five"
    document = doc(text)
    chunks = RecursiveChunker(size=12, overlap=0, keep_separator=False).split(document)
    check_chunks(document, chunks, exact_offsets=False)
    assert [c.text for c in chunks] == split_text(text, 12, 0, keep_separator=False)
    assert [text[c.start : c.end] for c in chunks] == ["one  two", "three", "four five"]


def test_recursive_overlap_shares_text_between_chunks() -> None:
    document = doc(LONG_PARAGRAPH)
    chunks = RecursiveChunker(size=300, overlap=80).split(document)
    assert len(chunks) > 5
    for a, b in pairwise(chunks):
        assert b.start < a.end
        shared = document.text[b.start : a.end]
        assert len(shared) <= 80
        assert a.text.endswith(shared) and b.text.startswith(shared)
    no_overlap = RecursiveChunker(size=300, overlap=0).split(document)
    assert all(a.end <= b.start for a, b in pairwise(no_overlap))


def test_recursive_prefers_paragraphs_then_sentences() -> None:
    text = "First paragraph. It has two sentences.\n\nSecond one. Also two."
    chunks = RecursiveChunker(size=40, overlap=0).split(doc(text))
    assert [c.text for c in chunks] == [
        "First paragraph. It has two sentences.",
        "Second one. Also two.",
    ]
    chunks = RecursiveChunker(size=20, overlap=0).split(doc(text))
    # The separator stays with the text after it, as in LangChain.
    assert [c.text for c in chunks][:2] == ["First paragraph", ". It has two"]


def test_recursive_empty_and_whitespace_documents_give_nothing() -> None:
    chunker = RecursiveChunker(size=10, overlap=2)
    assert chunker.split(doc("")) == []
    assert chunker.split(doc(" \n\n\t  \n ")) == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"size": 100, "overlap": 100}, "overlap (100) must be smaller than size (100)"),
        ({"size": 0}, "greater than 0"),
        ({"overlap": -5}, "greater than or equal to 0"),
        ({"separators": []}, "at least 1 item"),
        ({"keep_separator": "middle"}, "keep_separator"),
        ({"chunk_size": 100}, "Extra inputs are not permitted"),
    ],
)
def test_recursive_config_errors(options: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)):
        RecursiveChunker(**options)


def test_split_text_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="size must be > 0"):
        split_text("text", 0, 0)
    with pytest.raises(ValueError, match="overlap must be >= 0"):
        split_text("text", 10, -1)
    with pytest.raises(ValueError, match="larger than size"):
        split_text("text", 10, 11)
    with pytest.raises(ValueError, match="separators must not be empty"):
        split_text("text", 10, 0, [])


def test_chunkers_are_registered(registry) -> None:  # noqa: ANN001 - fixture from conftest
    from ragloom.builtin.chunkers.code import CodeChunker
    from ragloom.builtin.chunkers.html import HtmlChunker
    from ragloom.builtin.chunkers.layers import LayersChunker
    from ragloom.builtin.chunkers.markdown import MarkdownChunker
    from ragloom.builtin.chunkers.parent import ParentChunker
    from ragloom.builtin.chunkers.semantic import SemanticChunker
    from ragloom.builtin.chunkers.sentence import SentenceChunker

    expected = {
        "fixed": FixedChunker,
        "recursive": RecursiveChunker,
        "sentence": SentenceChunker,
        "markdown": MarkdownChunker,
        "html": HtmlChunker,
        "code": CodeChunker,
        "semantic": SemanticChunker,
        "parent": ParentChunker,
        "layers": LayersChunker,
    }
    for name, cls in expected.items():
        assert registry.get("chunker", name).cls is cls


def test_markdown_sections_give_labels_and_paths() -> None:
    text = (
        "# Pricing FAQ\n\nIntro.\n\n## Can I get a refund?\n\nYes, within 30 days.\n\n"
        "```\n# not a heading\n```\n\n## Discounts\n\nHalf off for schools.\n"
    )
    doc = Document("docs/pricing.md", text, {"source": "docs/pricing.md"})
    chunks = RecursiveChunker(size=40, overlap=0).split(doc)
    by_text = {c.text.split("\n")[-1]: c for c in chunks}
    refund = next(c for c in chunks if "30 days" in c.text)
    assert refund.label == "docs/pricing.md#can-i-get-a-refund"
    assert refund.metadata["section"] == "Pricing FAQ > Can I get a refund?"
    fenced = next(c for c in chunks if "not a heading" in c.text)
    assert fenced.metadata["section"] == "Pricing FAQ > Can I get a refund?"
    schools = next(c for c in chunks if "schools" in c.text)
    assert schools.label == "docs/pricing.md#discounts"
    assert by_text


def test_a_chunk_deep_in_a_long_table_carries_the_header_row() -> None:
    """A chunk that starts among a long table's rows (a spreadsheet, a CSV
    file) had no column names: its rows were quoted bare. It carries the
    header row as ``table_header``; a chunk with the header in its own
    text, and one outside a table, carry none."""
    from ragloom.builtin.chunkers.markdown import MarkdownChunker

    rows = "".join(f"| ORD-{i:04d} | Customer {i} | ${i}.50 |\n" for i in range(200))
    head = "# Orders\n\nAll orders.\n\n| Order | Customer | Amount |\n| --- | --- | --- |\n"
    text = f"{head}{rows}\nAfter the table.\n"
    chunks = MarkdownChunker(size=400, overlap=0).split(Document(id="o.md", text=text))
    assert len(chunks) > 5
    first, *rest = chunks
    assert "table_header" not in first.metadata  # its own text holds the header
    inside = [c for c in rest if text[c.start : c.end].startswith("| ORD-")]
    assert inside and all(
        c.metadata["table_header"] == "| Order | Customer | Amount |" for c in inside
    )
    last = chunks[-1]
    if last.text.lstrip().startswith("After"):
        assert "table_header" not in last.metadata
