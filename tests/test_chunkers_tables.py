"""A long Markdown table cut between rows: each later piece is led by the
table's header row and rule, its offsets covering only its own rows, its
size counting the header (``repeat_table_header``, ``_tables``)."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

import pytest
from ragloom.builtin.chunkers.html import HtmlChunker
from ragloom.builtin.chunkers.layers import LayersChunker
from ragloom.builtin.chunkers.markdown import MarkdownChunker
from ragloom.builtin.chunkers.parent import ParentChunker
from ragloom.builtin.chunkers.recursive import RecursiveChunker, split_spans
from ragloom.builtin.chunkers.semantic import SemanticChunker
from ragloom.builtin.chunkers.sentence import SentenceChunker
from ragloom.builtin.embedders.hash import HashEmbedder
from ragloom.builtin.generators.extractive import ExtractiveGenerator
from ragloom.builtin.loaders.parsers.html import parse_html
from ragloom.builtin.loaders.parsers.table import parse_table
from ragloom.components import Chunker, Context
from ragloom.fingerprints import fingerprints_match
from ragloom.types import Chunk, Document, Hit

HEADER = "| Order | Customer | Amount |"
RULE = "| --- | --- | --- |"
LEAD = f"{HEADER}\n{RULE}\n"
ROWS = "".join(f"| ORD-{i:04d} | Customer {i} | ${i}.50 |\n" for i in range(60))
TEXT = f"# Orders\n\nAll orders.\n\n{LEAD}{ROWS}\nAfter the table.\n"


def opened(chunker: Chunker) -> Chunker:
    chunker.open(Context(services={"embedder": HashEmbedder()}))
    return chunker


def split(chunker: Chunker, text: str = TEXT, doc_id: str = "orders.md") -> list[Chunk]:
    return opened(chunker).split(Document(id=doc_id, text=text, metadata={"source": doc_id}))


def starts_a_row(text: str, offset: int) -> bool:
    return text.startswith("| ORD-", offset) and text[offset - 1] == "\n"


def check_led(text: str, chunks: list[Chunk], size: int, lead: str = LEAD) -> list[Chunk]:
    """Each chunk that starts at a row is ``lead`` + its own rows, within
    ``size``; every other chunk is its slice of the document. The led ones."""
    led = []
    for c in chunks:
        own = text[c.start : c.end]
        if starts_a_row(text, c.start):
            assert c.text == lead + own, c.text[:120]
            assert c.metadata["table_header"] == lead.split("\n")[0]
            led.append(c)
        else:
            assert c.text == own
        assert len(c.text) <= size, (len(c.text), c.text[:80])
    return led


CHUNKERS: list[tuple[str, Any, int]] = [
    ("recursive", lambda: RecursiveChunker(size=300, overlap=50), 300),
    ("recursive-no-overlap", lambda: RecursiveChunker(size=300, overlap=0), 300),
    ("markdown", lambda: MarkdownChunker(size=300, overlap=50), 300),
    ("html", lambda: HtmlChunker(size=300, overlap=50), 300),
    ("sentence", lambda: SentenceChunker(size=300, overlap_sentences=1), 300),
    ("semantic", lambda: SemanticChunker(min_size=10, max_size=300, percentile=50), 300),
    ("parent", lambda: ParentChunker(parent_size=600, child_size=300, child_overlap=50), 300),
    (
        "parent-recursive",
        lambda: ParentChunker(parents="recursive", parent_size=600, child_size=300),
        300,
    ),
]


@pytest.mark.parametrize(("name", "make", "size"), CHUNKERS, ids=[c[0] for c in CHUNKERS])
def test_each_later_piece_of_a_long_table_is_led_by_its_header(
    name: str, make: Any, size: int
) -> None:
    chunks = split(make())
    led = check_led(TEXT, chunks, size)
    assert len(led) >= 3
    # every row is in some chunk's own span, the header only where the table starts
    for row in ROWS.splitlines():
        assert any(row in TEXT[c.start : c.end] for c in chunks), row
    assert sum(TEXT[c.start : c.end].count(HEADER) for c in chunks) == 1
    # without the option, the same chunker leaves every chunk its slice
    plain = split(make().__class__(**{**make().config.model_dump(), "repeat_table_header": False}))
    assert all(c.text == TEXT[c.start : c.end] for c in plain)


def test_parent_text_is_led_too() -> None:
    chunks = split(ParentChunker(parent_size=400, child_size=200, child_overlap=0))
    parents = {c.metadata["parent_id"]: c.metadata for c in chunks}
    later = [m for m in parents.values() if starts_a_row(TEXT, m["parent_start"])]
    assert later
    for m in later:
        own = TEXT[m["parent_start"] : m["parent_end"]]
        assert m["parent_text"] == LEAD + own
        assert len(m["parent_text"]) <= 400


def test_a_layers_chunker_leads_each_layer() -> None:
    chunker = LayersChunker(
        layers={
            "passages": {"type": "recursive", "size": 400, "overlap": 0},
            "rows": {"type": "sentence", "size": 200, "overlap_sentences": 0},
        }
    )
    chunks = split(chunker)
    for layer, size in (("passages", 400), ("rows", 200)):
        assert check_led(TEXT, [c for c in chunks if c.metadata["layer"] == layer], size)


def test_the_header_is_counted_in_the_size_in_words() -> None:
    chunks = split(RecursiveChunker(size=60, overlap=0, unit="words"))
    led = [c for c in chunks if starts_a_row(TEXT, c.start)]
    assert led
    assert all(len(c.text.split()) <= 60 for c in chunks)
    assert all(c.text.startswith(LEAD) for c in led)


def test_a_table_that_fits_in_one_chunk_is_unchanged() -> None:
    text = f"# Plans\n\n{LEAD}{ROWS[:200]}\nThat is all.\n"
    for make in (RecursiveChunker, MarkdownChunker, SentenceChunker):
        on = split(make(size=2000), text)
        off = split(make(size=2000, repeat_table_header=False), text)
        assert [(c.start, c.end, c.text) for c in on] == [(c.start, c.end, c.text) for c in off]
        assert all(c.text == text[c.start : c.end] for c in on)


@pytest.mark.parametrize("fence", ["```", "~~~", "````markdown"])
def test_a_table_in_a_code_fence_is_left_as_written(fence: str) -> None:
    """An example table in a fenced code block is code: no piece of it is
    led by its header, nor carries it as ``table_header`` (review M4)."""
    close = fence.rstrip("markdown")
    text = f"# Example\n\n{fence}\n{LEAD}{ROWS}{close}\n\nAfter.\n"
    for make in (
        lambda: RecursiveChunker(size=300, overlap=0),
        lambda: MarkdownChunker(size=300, overlap=0),
        lambda: SentenceChunker(size=300),
    ):
        chunks = split(make(), text)
        assert len(chunks) > 3
        assert all(c.text == text[c.start : c.end] for c in chunks)
        assert not any(c.metadata.get("table_header") for c in chunks)
    # a table after the fence is led as ever
    after = f"# Example\n\n```\n| a | b |\n| --- | --- |\n```\n\n{LEAD}{ROWS}"
    assert check_led(after, split(RecursiveChunker(size=300, overlap=0), after), 300)


def test_a_table_with_crlf_line_ends_is_led() -> None:
    """A document a plugin's loader gives with CRLF line ends (the built-in
    loaders give ``\\n``): its table's later pieces are led as well."""
    text = TEXT.replace("\n", "\r\n")
    chunks = split(RecursiveChunker(size=300, overlap=0), text)
    led = [c for c in chunks if starts_a_row(text, c.start)]
    assert len(led) >= 3
    assert all(c.text == LEAD.replace("\n", "\r\n") + text[c.start : c.end] for c in led)
    assert all(c.metadata["table_header"] == HEADER for c in led)


def test_a_piece_cut_again_keeps_its_share_of_the_overlap() -> None:
    """A piece cut again to make room for the header keeps the overlap in
    proportion to that room (``overlap * room // size``), not all of it:
    in words, a long table's chunks grew from 21 to 40 (review L1)."""
    text = "# T\n\n| id | value |\n| --- | --- |\n" + "".join(
        f"| r{i} | v{i} |\n" for i in range(80)
    )
    on = split(RecursiveChunker(size=30, overlap=10, unit="words"), text)
    off = split(
        RecursiveChunker(size=30, overlap=10, unit="words", repeat_table_header=False), text
    )
    assert len(off) == 21
    assert len(on) <= 30
    assert all(len(c.text.split()) <= 30 for c in on)


def test_a_snippet_of_a_led_chunk_starts_at_its_own_rows() -> None:
    """Search snippets and a degraded answer's citations showed each later
    piece of a table as the same header row and rule, and the rows that
    matched could be cut off: they show the chunk's own rows
    (``Chunk.own_text``), which the header leads in its text (review L3)."""
    from ragloom.answers import degraded_answer

    chunks = split(RecursiveChunker(size=300, overlap=0))
    led = [c for c in chunks if starts_a_row(TEXT, c.start)]
    assert led
    for chunk in chunks:
        assert chunk.own_text == TEXT[chunk.start : chunk.end]
    answer = degraded_answer("ORD-0042?", [Hit(chunk=led[1], score=1.0)], RuntimeError("x"))
    assert answer.citations[0].quote.startswith("| ORD-")
    assert "[1] | ORD-" in answer.text


def test_pipes_without_a_rule_are_no_table() -> None:
    text = "# Log\n\n" + ROWS + "\nDone.\n"  # rows of pipes, no header rule
    for make in (RecursiveChunker, MarkdownChunker, SentenceChunker):
        on = split(make(size=300), text)
        off = split(make(size=300, repeat_table_header=False), text)
        assert [(c.start, c.end, c.text) for c in on] == [(c.start, c.end, c.text) for c in off]
        assert all("table_header" not in c.metadata for c in on)


@pytest.mark.parametrize("size", [20, 40, 70, 90])
def test_a_header_too_big_to_repeat_is_not(size: int) -> None:
    """A header longer than half the size (or than the size itself) is not
    repeated: the chunks are those without the option, cut as before, and
    the run ends (it neither loops nor shreds the rows)."""
    wide = "| " + " | ".join(f"Column number {i}" for i in range(6)) + " |"
    rule = "|" + " --- |" * 6
    rows = "".join("| " + " | ".join(f"v{r}{i}" for i in range(6)) + " |\n" for r in range(30))
    text = f"{wide}\n{rule}\n{rows}"
    for make in (RecursiveChunker, MarkdownChunker):
        on = split(make(size=size, overlap=0), text)
        off = split(make(size=size, overlap=0, repeat_table_header=False), text)
        assert [(c.start, c.end, c.text) for c in on] == [(c.start, c.end, c.text) for c in off]


def test_without_the_option_recursive_gives_langchains_chunks() -> None:
    chunks = split(RecursiveChunker(size=300, overlap=50, repeat_table_header=False))
    texts, starts, ends = split_spans(TEXT, 300, 50)
    assert [(c.text, c.start, c.end) for c in chunks] == list(zip(texts, starts, ends))


def test_the_option_is_in_the_fingerprint() -> None:
    """An index chunked before tables were led by their header is chunked
    again: its recorded fingerprint lacks the option."""
    chunker = MarkdownChunker()
    now = chunker.fingerprint()
    assert now["repeat_table_header"] is True
    before = {k: v for k, v in now.items() if k != "repeat_table_header"}
    assert not fingerprints_match(before, now, chunker)


def test_a_csv_read_whole_is_led_in_each_chunk() -> None:
    lines = ["model,name,weight,price_usd"]
    lines += [f"TT-{i:02d}-CS,Carbon Steel Wok {i} cm,{i / 10} kg,{50 + i}" for i in range(40)]
    text, _ = parse_table("\n".join(lines) + "\n", path=PurePath("specs.csv"), report=print)
    lead = text[: text.index("\n", text.index("\n") + 1) + 1]
    assert lead == "| model | name | weight | price_usd |\n| --- | --- | --- | --- |\n"
    chunks = split(MarkdownChunker(size=400, overlap=50), text, "specs.csv")
    assert len(chunks) > 3
    later = chunks[1:]
    assert all(c.text.startswith(lead) for c in later)
    assert all(c.text == lead + text[c.start : c.end] for c in later)
    assert all(len(c.text) <= 400 for c in chunks)


def test_an_html_table_read_as_a_pipe_table_is_led_in_each_chunk() -> None:
    body = "".join(f"<tr><td>ORD-{i:04d}</td><td>Customer {i}</td></tr>" for i in range(40))
    page = (
        "<html><body><h1>Orders</h1><table><tr><th>Order</th><th>Customer</th></tr>"
        f"{body}</table></body></html>"
    )
    text, _ = parse_html(page, report=print)
    start = text.index("| Order")
    lead = text[start : text.index("\n", text.index("\n", start) + 1) + 1]
    chunks = split(HtmlChunker(size=300, overlap=0), text, "orders.html")
    later = [c for c in chunks if text.startswith("| ORD-", c.start) and c.start > start + 40]
    assert later
    assert all(c.text == lead + text[c.start : c.end] for c in later)


def test_an_answer_from_a_led_chunk_quotes_the_document_verbatim() -> None:
    chunks = split(MarkdownChunker(size=300, overlap=0))
    chunk = next(c for c in chunks if "| ORD-0042 |" in c.text)
    assert chunk.text.startswith(LEAD) and starts_a_row(TEXT, chunk.start)
    answer = ExtractiveGenerator().generate(
        "What is the amount of order ORD-0042?", [Hit(chunk=chunk, score=1.0)]
    )
    assert answer.grounded, answer.text
    assert "$42.50" in answer.text and "Amount" in answer.text
    for citation in answer.citations:
        for piece in citation.quote.split(" \u2026 "):
            assert piece in TEXT, piece


def test_an_index_chunked_before_is_chunked_again(tmp_path: Any, pm: Any) -> None:
    """The ledger of an index chunked before tables were led by their header
    records a chunker fingerprint without the option: the next run chunks
    every document again, says why, and the CSV's later chunks are led."""
    import ragloom
    from ragloom.ledger import Ledger

    from .conftest import basic_config

    docs = tmp_path / "docs"
    docs.mkdir()
    lines = ["model,name,price_usd"]
    lines += [f"TT-{i:02d}-CS,Carbon Steel Wok {i} cm,{50 + i}" for i in range(40)]
    (docs / "specs.csv").write_text("\n".join(lines) + "\n", "utf-8")
    config = basic_config(
        loaders=[{"type": "directory", "path": "docs", "include": ["**/*.csv"]}],
        chunker={"type": "markdown", "size": 400, "overlap": 50},
    )
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        pipeline.index()
        ledger = Ledger(pipeline.index_dir / "ledger.sqlite").open()
        try:
            old = {
                k: v for k, v in ledger.get_meta("chunker").items() if k != "repeat_table_header"
            }
            ledger.set_meta("chunker", old)
        finally:
            ledger.close()
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        report = pipeline.index()
        assert report.changed == ("docs/specs.csv",)
        assert "repeat_table_header None -> True" in dict(report.problems)["chunker"]
        hit = pipeline.retrieve("TT-32-CS Carbon Steel Wok 32 cm", k=1)[0]
        assert hit.chunk.index > 0
        assert hit.chunk.text.startswith("| model | name | price_usd |\n| --- | --- | --- |\n")


def test_a_document_put_back_from_led_chunks_holds_its_header_once() -> None:
    from ragloom.server.documents import assemble

    chunks = split(MarkdownChunker(size=300, overlap=50))
    assert any(c.text.startswith(LEAD) and c.index for c in chunks)
    assert assemble(chunks) == "\n\n".join(
        [TEXT[chunks[0].start : chunks[0].end], TEXT[chunks[1].start : chunks[-2].end]]
        + [TEXT[chunks[-1].start : chunks[-1].end]]
    )
