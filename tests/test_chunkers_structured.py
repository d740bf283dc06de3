"""The structure-aware chunkers: sentence, markdown, html, code, semantic, parent.

Plus what they share: units (characters, words, tokens), page labels, anchors.
Each runs on real-looking input and passes the generic checks of
``tests/test_chunkers.py`` (``check_chunks``).
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from ragloom.builtin.chunkers._chunking import (
    Slugger,
    approx_tokens,
    count_words,
    github_slug,
    length_function,
    markdown_headings,
    section_finder,
)
from ragloom.builtin.chunkers.code import CodeChunker
from ragloom.builtin.chunkers.fixed import FixedChunker, unit_spans
from ragloom.builtin.chunkers.html import HtmlChunker, html_headings
from ragloom.builtin.chunkers.layers import LayersChunker
from ragloom.builtin.chunkers.markdown import MarkdownChunker
from ragloom.builtin.chunkers.parent import ParentChunker
from ragloom.builtin.chunkers.recursive import RecursiveChunker
from ragloom.builtin.chunkers.semantic import SemanticChunker, breakpoints
from ragloom.builtin.chunkers.sentence import SentenceChunker, sentence_spans
from ragloom.builtin.embedders.hash import HashEmbedder
from ragloom.components import Chunker, Context
from ragloom.errors import ComponentError, ConfigValidationError
from ragloom.types import Chunk, Document

from tests.test_chunkers import check_chunks

MANUAL = """\
# Notewise Manual

Notewise keeps your meeting notes in one place. This manual covers setup,
daily use and administration.

## Install

### Linux

Download the `.deb` or `.rpm` package from the releases page. Then run the
installer as root.

```bash
# Install the package. This line is not a heading.
sudo dpkg -i notewise.deb
## neither is this one
```

### macOS

Drag Notewise into Applications. On first start, allow microphone access.

## Usage

### Recording

Press Record to start. Notewise transcribes as you speak, and marks each
speaker in the margin. Recordings stop after four hours.

### Sharing

Share a note with a link. Links expire after 30 days unless you pin them.

## Install

Reinstalling keeps your notes: they live in your account, not on the device.

## Administration

Administrators manage seats, single sign-on and retention. Retention
policies apply to every workspace in the organisation. A policy can keep
notes for 30, 90 or 365 days, or forever. Deleted notes are kept in the
trash for 14 days before they are removed for good. Exports include every
note, its transcript and its attachments, as a zip file of Markdown files.
Audit logs record who exported what and when, and are kept for a year.
Single sign-on supports SAML 2.0 and OpenID Connect; SCIM provisioning
creates and removes users as your identity provider does.
"""

# What the html loader makes of a page: ATX headings, lists, a fenced <pre>.
HTML_RENDERED = """\
# Pricing

Plans for every team size.

## Free plan

- Up to 3 users
- 30 days of history

## Team plan

The Team plan costs $12 per user per month. It adds unlimited history.

```
curl https://api.example.com/v1/plans
<h2>not a heading</h2>
```

## Enterprise plan

Priced per seat, with single sign-on, audit logs and a dedicated manager.
"""

RAW_HTML = """\
<html><body>
<h1 id="top">Pricing &amp; Plans</h1>
<p>Plans for every team size.</p>
<h2 id="free">Free <em>plan</em></h2>
<p>Up to 3 users.</p>
<h2>Team plan</h2>
<p>The Team plan costs $12 per user per month.</p>
<h2 class="x">Team plan</h2>
<p>Annual billing gets two months free.</p>
</body></html>
"""

PYTHON_SOURCE = '''\
"""Billing client: invoices over the billing API."""

from __future__ import annotations

import os
from dataclasses import dataclass

API_URL = os.environ.get("BILLING_URL", "https://billing.example.com")


# An invoice as the API returns it.
@dataclass(frozen=True)
class Invoice:
    """One invoice."""

    id: str
    amount: int
    currency: str = "EUR"


class Client:
    """Talks to the billing API."""

    timeout = 10.0

    def __init__(self, key: str, *, url: str = API_URL) -> None:
        self.key = key
        self.url = url

    # Retries twice on a 5xx.
    @staticmethod
    def create_invoice(amount: int, currency: str = "EUR") -> Invoice:
        """Create an invoice and return it."""

        def cents(value: int) -> int:
            return value * 100

        payload = {"amount": cents(amount), "currency": currency}
        return Invoice(id=str(hash(str(payload))), amount=amount, currency=currency)

    async def fetch(self, invoice_id: str) -> Invoice:
        """Fetch one invoice by id."""
        return Invoice(id=invoice_id, amount=0)

    @property
    def name(self) -> str:
        return "billing"

    @name.setter
    def name(self, value: str) -> None:
        raise AttributeError("read-only")


def create_invoice(amount: int) -> Invoice:
    """Create an invoice with the default client."""
    return Client(os.environ["BILLING_KEY"]).create_invoice(amount)


if __name__ == "__main__":
    print(create_invoice(12))
'''

JAVASCRIPT_SOURCE = """\
// Billing client for the browser.
import { request } from "./http.js";

const BASE = "https://api.example.com";

/**
 * Create an invoice.
 * @param {number} amount
 */
export async function createInvoice(amount) {
  return request(`${BASE}/invoices`, { method: "POST", body: { amount } });
}

export const formatAmount = (amount, currency = "EUR") =>
  `${(amount / 100).toFixed(2)} ${currency}`;

export class Client {
  #key;

  constructor(key) {
    this.#key = key;
  }

  /** Fetch one invoice. */
  async fetch(id) {
    return request(`${BASE}/invoices/${id}`, { key: this.#key });
  }

  static fromEnv() {
    return new Client(process.env.BILLING_KEY);
  }
}

export default function () {
  return new Client("default");
}
"""

PROSE = (
    "Dr. Ada Lovelace wrote the first program in 1843. She worked with Charles Babbage "
    "on the Analytical Engine, e.g. on its notes. Her notes are longer than the paper "
    "they annotate! Were they read at the time? Few people did, according to Fig. 3 of "
    "the survey. Today the U.S. Department of Defense names a language after her. "
    "It is called Ada. The language appeared in 1980.\n\n"
    "Babbage designed the Difference Engine first. It computed tables of polynomials "
    "by the method of differences. A working engine was built in 1991, from his plans. "
    "It weighs about five tonnes. The printer was finished in 2000."
)


def doc(doc_id: str, text: str, **metadata: Any) -> Document:
    return Document(id=doc_id, text=text, metadata={"source": doc_id, "team": "docs", **metadata})


def opened(chunker: Chunker, embedder: Any = None) -> Chunker:
    chunker.open(Context(services={"embedder": embedder} if embedder is not None else {}))
    return chunker


def anchor(chunk: Chunk) -> str:
    return chunk.label.split("#", 1)[1]


# --- the generic promises, for every chunker ---------------------------------

CHUNKERS = {
    "fixed-words": (lambda: FixedChunker(size=40, overlap=8, unit="words"), True),
    "fixed-tokens": (lambda: FixedChunker(size=60, overlap=10, unit="tokens"), True),
    "recursive-words": (lambda: RecursiveChunker(size=40, overlap=8, unit="words"), True),
    "sentence": (lambda: SentenceChunker(size=300, overlap_sentences=1), True),
    "sentence-words": (lambda: SentenceChunker(size=30, unit="words"), True),
    "markdown": (lambda: MarkdownChunker(size=300, overlap=50), False),
    "markdown-merged": (lambda: MarkdownChunker(size=400, overlap=50, merge_small=True), False),
    "html": (lambda: HtmlChunker(size=300, overlap=50), False),
    "code": (lambda: CodeChunker(size=400, overlap=40), False),
    "semantic": (lambda: SemanticChunker(min_size=50, max_size=600), True),
    "parent": (lambda: ParentChunker(parent_size=500, child_size=150, child_overlap=30), False),
    # every layer labelled by its section: the later layers' `#chunk-N` follow the new index
    "layers": (
        lambda: LayersChunker(
            layers={
                "windows": {"type": "sentence", "size": 300},
                "topics": {"type": "semantic", "min_size": 50, "max_size": 600},
            }
        ),
        True,
    ),
    "layers-markdown": (
        lambda: LayersChunker(
            layers={
                "sections": {"type": "markdown", "size": 400},
                "words": {"type": "recursive", "size": 30, "overlap": 5, "unit": "words"},
            }
        ),
        False,
    ),
}

DOCUMENTS = {
    "manual": doc("docs/manual.md", MANUAL),
    "html": doc("site/pricing.html", HTML_RENDERED),
    "python": doc("src/billing/client.py", PYTHON_SOURCE),
    "javascript": doc("web/billing.js", JAVASCRIPT_SOURCE),
    "prose": doc("notes/history.txt", PROSE),
    "empty": doc("empty.md", ""),
    "blank": doc("blank.md", " \n\n\t \n"),
}


@pytest.mark.parametrize("document", list(DOCUMENTS))
@pytest.mark.parametrize("name", list(CHUNKERS))
def test_every_chunker_keeps_offsets_ids_labels_and_metadata(name: str, document: str) -> None:
    make, sections = CHUNKERS[name]
    chunker = opened(make(), HashEmbedder())
    d = DOCUMENTS[document]
    chunks = chunker.split(d)
    check_chunks(d, chunks, sections=sections)
    assert chunker.split(d) == chunks, "the same document gives the same chunks"
    if document not in ("empty", "blank"):
        assert chunks
    # Every non-blank character of the document is in some chunk.
    covered = set()
    for chunk in chunks:
        covered.update(range(chunk.start, chunk.end))
    missing = [i for i, ch in enumerate(d.text) if not ch.isspace() and i not in covered]
    assert not missing, repr(d.text[missing[0] : missing[0] + 40])


@pytest.mark.parametrize("name", list(CHUNKERS))
def test_every_chunker_labels_a_pdf_by_page(name: str) -> None:
    pages = [
        "Installation guide.\n\n" + "Plug the device in and wait for the green light. " * 14,
        "Troubleshooting.\n\n" + "If the light stays red, hold the reset button down. " * 14,
        "Warranty.\n\n" + "The device is covered for two years from the date of purchase. " * 12,
    ]
    text = "\n\n\f".join(pages)
    starts = [0]
    for page in pages[:-1]:
        starts.append(starts[-1] + len(page) + 3)
    d = doc("manuals/device.pdf", text, page_starts=starts, pages=3)
    chunks = opened(CHUNKERS[name][0](), HashEmbedder()).split(d)
    check_chunks(d, chunks, sections=CHUNKERS[name][1])
    assert {c.metadata["page"] for c in chunks} == {1, 2, 3}
    assert all("page_starts" not in c.metadata for c in chunks)
    assert all(c.metadata["pages"] == 3 for c in chunks)
    last = next(c for c in chunks if c.start >= starts[2])
    assert last.label == "manuals/device.pdf#page=3"


def test_page_starts_must_be_offsets() -> None:
    d = doc("a.pdf", "some text here", page_starts="0,10")
    with pytest.raises(ValueError, match="page_starts must be a list"):
        RecursiveChunker(size=5, overlap=0).split(d)


# --- shared helpers: anchors, headings, units --------------------------------


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Can I get a refund?", "can-i-get-a-refund"),
        ("Install on Linux", "install-on-linux"),
        ("C++ & Rust  tips", "c--rust--tips"),
        ("`split()` method", "split-method"),
        ("See [the guide](https://example.com/guide)", "see-the-guide"),
        ("snake_case-and-dash", "snake_case-and-dash"),
        ("Ünïcödé 日本語", "ünïcödé-日本語"),
        ("v2.0 (beta)", "v20-beta"),
        # an escape sequence goes whole: no "31m" or "0m" left in the anchor
        ("Heading \x1b[31mRED\x1b[0m", "heading-red"),
        ("\x1b]8;;https://x.test\x1b\\Link\x1b]8;;\x1b\\ text", "link-text"),
    ],
)
def test_github_slugs(title: str, slug: str) -> None:
    assert github_slug(title) == slug


def test_slugger_numbers_repeated_headings_like_github() -> None:
    slugger = Slugger()
    assert [slugger.slug(t) for t in ["Install", "Usage", "Install", "Install", "Install 1"]] == [
        "install",
        "usage",
        "install-1",
        "install-2",
        "install-1-1",
    ]
    assert slugger.reserve("usage-1") == "usage-1"
    assert slugger.slug("Usage") == "usage-2"
    assert Slugger().slug("???") == "section"


def test_markdown_headings_skip_code_front_matter_and_non_headings() -> None:
    text = (
        "---\ntitle: x\n# a yaml comment\n---\n"
        "# Guide\n\n#hashtag is text\n####### seven is text\n"
        "    # indented code\n"
        "````md\n```\n# inside a longer fence\n```\n````\n"
        "~~~\n# inside tildes\n~~~\n"
        "## Install ##\n### C# tips\n#\n## Install\n"
    )
    headings = markdown_headings(text)
    assert [(h.level, h.title, h.anchor, h.path) for h in headings] == [
        (1, "Guide", "guide", "Guide"),
        (2, "Install", "install", "Guide > Install"),
        (3, "C# tips", "c-tips", "Guide > Install > C# tips"),
        (2, "Install", "install-1", "Guide > Install"),
    ]
    assert all(text[h.start : h.end].lstrip().startswith("#") for h in headings)


def test_explicit_heading_ids_are_anchors() -> None:
    text = "# Guide {#top}\n## Team plan {#team .wide}\n## Team plan\n## Team {not an id}\n"
    assert [(h.title, h.anchor) for h in markdown_headings(text)] == [
        ("Guide", "top"),
        ("Team plan", "team"),
        ("Team plan", "team-plan"),
        ("Team {not an id}", "team-not-an-id"),
    ]


def test_unclosed_fence_hides_the_rest() -> None:
    assert [h.title for h in markdown_headings("# A\n```\n# B\n")] == ["A"]


def test_section_finder_uses_unique_anchors() -> None:
    find = section_finder(MANUAL)
    assert find(0) == ("Notewise Manual", "notewise-manual")
    assert find(MANUAL.index("Reinstalling")) == ("Notewise Manual > Install", "install-1")
    assert find(MANUAL.index("sudo dpkg")) == ("Notewise Manual > Install > Linux", "linux")


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("The Pro plan costs $29 per user per month.", 13),
        ("hello", 2),
        ("2024-11-29", 6),
        ("日本語のテキスト", 8),
        ("snake_case", 4),
    ],
)
def test_approx_tokens(text: str, tokens: int) -> None:
    assert approx_tokens(text) == tokens


def test_approx_tokens_are_additive_over_words() -> None:
    text = MANUAL + PYTHON_SOURCE
    assert approx_tokens(text) == sum(approx_tokens(w) for w in text.split())


class CountingEmbedder(HashEmbedder):
    """An embedder with a tokenizer-like count: one token per 3 characters of
    each word, plus 2 special tokens."""

    def count_tokens(self, text: str) -> int:
        return 2 + sum(-(-len(word) // 3) for word in text.split())


def test_length_function_units() -> None:
    assert length_function("characters") is len
    assert length_function("words")("one two\nthree ") == 3
    assert length_function("tokens")("hello world") == approx_tokens("hello world")
    tokens = length_function("tokens", CountingEmbedder())
    assert tokens("") == 0
    assert tokens("abcdefg hi") == 4  # special tokens not counted
    with pytest.raises(ValueError, match="unit must be"):
        length_function("bytes")


def test_fixed_in_words() -> None:
    text = " ".join(f"w{i}" for i in range(100))
    chunks = FixedChunker(size=10, overlap=3, unit="words").split(doc("a.txt", text))
    check_chunks(doc("a.txt", text), chunks)
    assert all(len(c.text.split()) == 10 for c in chunks[:-1])
    for a, b in pairwise(chunks):
        assert a.text.split()[-3:] == b.text.split()[:3]
    assert chunks[-1].text.split()[-1] == "w99"


def test_fixed_in_tokens_uses_the_embedders_count() -> None:
    document = doc("docs/manual.md", MANUAL)
    chunker = opened(FixedChunker(size=50, overlap=10, unit="tokens"), CountingEmbedder())
    chunks = chunker.split(document)
    check_chunks(document, chunks)
    count = length_function("tokens", CountingEmbedder())
    assert all(count(c.text) <= 50 for c in chunks)
    assert max(count(c.text) for c in chunks) >= 45
    approximate = FixedChunker(size=50, overlap=10, unit="tokens").split(document)
    assert all(approx_tokens(c.text) <= 50 for c in approximate)
    assert [c.text for c in approximate] != [c.text for c in chunks]


def test_fixed_cuts_a_word_longer_than_a_window_between_tokens() -> None:
    text = "start " + "abcd" * 30 + " end"
    spans = unit_spans(text, 8, 2, approx_tokens)
    assert all(approx_tokens(text[a:b]) <= 8 for a, b in spans)
    assert text[spans[0][0] : spans[0][1]].startswith("start abcd")
    assert text[spans[-1][0] : spans[-1][1]].endswith("abcd end")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    words=st.lists(
        st.sampled_from(["a", "bb", "word", "日本語", "x" * 30, "1.5", "—"]), max_size=60
    ),
    size=st.integers(1, 20),
    data=st.data(),
)
def test_unit_spans_properties(words: list[str], size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    text = " ".join(words)
    spans = unit_spans(text, size, overlap, approx_tokens)
    for a, b in spans:
        assert text[a:b] == text[a:b].strip() and text[a:b]
        assert approx_tokens(text[a:b]) <= size
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in pairwise(spans))
    covered = set()
    for a, b in spans:
        covered.update(range(a, b))
    assert {i for i, ch in enumerate(text) if not ch.isspace()} <= covered


def test_recursive_in_tokens_respects_size() -> None:
    document = doc("docs/manual.md", MANUAL)
    chunks = opened(RecursiveChunker(size=60, overlap=10, unit="tokens"), CountingEmbedder()).split(
        document
    )
    check_chunks(document, chunks)
    count = length_function("tokens", CountingEmbedder())
    assert all(count(c.text) <= 60 for c in chunks)


# --- sentence ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("One. Two! Three? Four", ["One.", "Two!", "Three?", "Four"]),
        ("Dr. Smith arrived. He sat.", ["Dr. Smith arrived.", "He sat."]),
        ("It costs 3.14 dollars. Cheap.", ["It costs 3.14 dollars.", "Cheap."]),
        ("See Fig. 3 for this. Then go.", ["See Fig. 3 for this.", "Then go."]),
        ("In Sept. The end.", ["In Sept.", "The end."]),
        ("J. R. R. Tolkien wrote it. Yes.", ["J. R. R. Tolkien wrote it.", "Yes."]),
        ("The U.S. Army is big. It is.", ["The U.S. Army is big.", "It is."]),
        ("Use e.g. this one. Or not.", ["Use e.g. this one.", "Or not."]),
        ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
        ("(It was late.) We left.", ["(It was late.)", "We left."]),
        ("Wait... What? Yes.", ["Wait...", "What?", "Yes."]),
        ("Visit example.com. It works.", ["Visit example.com.", "It works."]),
        ("a.m. is early. Ok.", ["a.m. is early.", "Ok."]),
        ("日本語です。次です！最後？", ["日本語です。", "次です！", "最後？"]),
        ("Line one\ncontinues here. Next.", ["Line one\ncontinues here.", "Next."]),
        ("Para one\n\nPara two", ["Para one", "Para two"]),
        (
            "Intro:\n- first item. Still.\n- second",
            ["Intro:", "- first item.", "Still.", "- second"],
        ),
        ("# Title\nText here.", ["# Title", "Text here."]),
        ("Table:\n| a | b |\n| 1 | 2 |", ["Table:", "| a | b |", "| 1 | 2 |"]),
        ("Run:\n```\nx = 1. Y = 2.\n```\nDone.", ["Run:", "```\nx = 1. Y = 2.\n```", "Done."]),
        ("Above\n\n---\n\nBelow", ["Above", "Below"]),
        ("  \n ", []),
    ],
)
def test_sentence_spans(text: str, sentences: list[str]) -> None:
    assert [text[a:b] for a, b in sentence_spans(text)] == sentences


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["Word", "word", ". ", "! ", "? ", " ", "\n", "\n\n", "Dr.", "3.5", "。", "- "]
        ),
        max_size=60,
    ).map("".join)
)
def test_sentence_spans_are_ordered_trimmed_and_cover_the_text(text: str) -> None:
    spans = sentence_spans(text)
    for a, b in spans:
        assert a < b and text[a:b] == text[a:b].strip()
    assert all(a[1] <= b[0] for a, b in pairwise(spans))
    covered = set()
    for a, b in spans:
        covered.update(range(a, b))
    kept = {i for i, ch in enumerate(text) if not ch.isspace()}
    dropped = kept - covered
    assert all(text[i] in "-" for i in dropped), "only horizontal rules are dropped"


def test_sentence_chunker_never_cuts_a_sentence() -> None:
    document = doc("notes/history.txt", PROSE)
    sentences = sentence_spans(PROSE)
    starts = {a for a, _ in sentences}
    ends = {b for _, b in sentences}
    assert max(b - a for a, b in sentences) <= 120
    for size in (120, 250, 2000):
        chunks = SentenceChunker(size=size, overlap_sentences=0).split(document)
        check_chunks(document, chunks)
        assert all(c.start in starts and c.end in ends for c in chunks)
        assert all(len(c.text) <= size for c in chunks)
        assert all(a.end <= b.start for a, b in pairwise(chunks))


def test_sentence_chunker_overlaps_by_sentences() -> None:
    document = doc("notes/history.txt", PROSE)
    chunks = SentenceChunker(size=200, overlap_sentences=1).split(document)
    sentences = [PROSE[a:b] for a, b in sentence_spans(PROSE)]
    for a, b in pairwise(chunks):
        last = next(s for s in reversed(sentences) if a.text.endswith(s))
        assert b.text.startswith(last), "each chunk repeats the last sentence of the one before"
    two = SentenceChunker(size=400, overlap_sentences=2).split(document)
    assert len(two) > 1 and two[1].start < two[0].end


def test_sentence_chunker_falls_back_to_words_for_a_long_sentence() -> None:
    long = "This sentence " + "goes on and on " * 30 + "until it ends."
    text = f"Short one. {long} Another short one."
    document = doc("a.txt", text)
    chunks = SentenceChunker(size=80, overlap_sentences=0).split(document)
    check_chunks(document, chunks)
    assert chunks[0].text.startswith("Short one.")
    assert all(len(c.text) <= 80 for c in chunks)
    assert chunks[-1].text.endswith("Another short one.")
    words = [w for c in chunks for w in c.text.split()]
    assert words == text.split(), "cut between words, nothing lost or repeated"


def test_sentence_chunker_in_words() -> None:
    document = doc("notes/history.txt", PROSE)
    chunks = SentenceChunker(size=25, unit="words", overlap_sentences=0).split(document)
    check_chunks(document, chunks)
    assert all(count_words(c.text) <= 25 for c in chunks)


# --- markdown and html -------------------------------------------------------


def test_markdown_sections_paths_and_unique_anchors() -> None:
    document = doc("docs/manual.md", MANUAL)
    chunks = MarkdownChunker(size=2000, overlap=0).split(document)
    check_chunks(document, chunks, sections=False)
    assert [(anchor(c), c.metadata.get("section")) for c in chunks] == [
        ("notewise-manual", "Notewise Manual"),
        ("linux", "Notewise Manual > Install > Linux"),
        ("macos", "Notewise Manual > Install > macOS"),
        ("recording", "Notewise Manual > Usage > Recording"),
        ("sharing", "Notewise Manual > Usage > Sharing"),
        ("install-1", "Notewise Manual > Install"),
        ("administration", "Notewise Manual > Administration"),
    ]
    linux = chunks[1]
    # "## Install" has no text of its own: it leads its first subsection's chunk.
    assert linux.text.startswith("## Install\n\n### Linux\n")
    assert "sudo dpkg -i notewise.deb\n## neither is this one" in linux.text
    assert chunks[3].text.startswith("## Usage\n\n### Recording")
    assert chunks[5].text.startswith("## Install\n\nReinstalling")
    assert (
        chunks[2].text
        == "### macOS\n\nDrag Notewise into Applications. On first start, allow microphone access."
    )


def test_markdown_subdivides_long_sections_keeping_the_section() -> None:
    document = doc("docs/manual.md", MANUAL)
    chunks = MarkdownChunker(size=200, overlap=90).split(document)
    check_chunks(document, chunks, sections=False)
    admin = [c for c in chunks if anchor(c) == "administration"]
    assert len(admin) > 3
    assert admin[0].text.startswith("## Administration\n")
    assert all(c.metadata["section"] == "Notewise Manual > Administration" for c in admin)
    assert all(len(c.text) <= 200 for c in chunks)
    assert any(b.start < a.end for a, b in pairwise(admin)), "pieces overlap"
    # A chunk never spans two sections.
    find = section_finder(MANUAL)
    for chunk in chunks:
        assert find(chunk.end - 1)[1] in {anchor(chunk), "install"}


def test_markdown_merge_small_packs_sections_up_to_size() -> None:
    document = doc("docs/manual.md", MANUAL)
    separate = MarkdownChunker(size=600, overlap=0).split(document)
    merged = MarkdownChunker(size=600, overlap=0, merge_small=True).split(document)
    check_chunks(document, merged, sections=False)
    assert len(merged) < len(separate)
    assert all(
        len(c.text) <= 600 or c.metadata["section"].endswith("Administration") for c in merged
    )
    first = merged[0]
    assert anchor(first) == "notewise-manual" and "### Linux" in first.text


def test_markdown_prepend_section_path() -> None:
    document = doc("docs/manual.md", MANUAL)
    chunks = MarkdownChunker(size=2000, overlap=0, prepend_section_path=True).split(document)
    check_chunks(document, chunks, exact_offsets=False, sections=False)
    macos = next(c for c in chunks if anchor(c) == "macos")
    assert macos.text == "Notewise Manual > Install > macOS\n\n" + MANUAL[macos.start : macos.end]


def test_markdown_without_headings_is_one_section() -> None:
    document = doc("notes/history.txt", PROSE)
    chunks = MarkdownChunker(size=300, overlap=50).split(document)
    check_chunks(document, chunks)
    assert [c.text for c in chunks] == [
        c.text for c in RecursiveChunker(size=300, overlap=50).split(document)
    ]
    assert all(anchor(c) == f"chunk-{c.index}" for c in chunks)


def test_markdown_in_words() -> None:
    document = doc("docs/manual.md", MANUAL)
    chunks = MarkdownChunker(size=30, overlap=5, unit="words").split(document)
    check_chunks(document, chunks, sections=False)
    assert all(count_words(c.text) <= 30 for c in chunks)


def test_html_rendered_page_is_cut_by_heading() -> None:
    document = doc("site/pricing.html", HTML_RENDERED)
    chunks = HtmlChunker(size=800, overlap=0).split(document)
    check_chunks(document, chunks, sections=False)
    assert [anchor(c) for c in chunks] == ["pricing", "free-plan", "team-plan", "enterprise-plan"]
    assert "<h2>not a heading</h2>" in chunks[2].text
    assert chunks[3].label == "site/pricing.html#enterprise-plan"
    assert [c.text for c in chunks] == [
        c.text for c in MarkdownChunker(size=800, overlap=0).split(document)
    ]


def test_html_elements_are_headings_with_their_ids() -> None:
    headings = html_headings(RAW_HTML)
    assert [(h.level, h.title, h.anchor) for h in headings] == [
        (1, "Pricing & Plans", "top"),
        (2, "Free plan", "free"),
        (2, "Team plan", "team-plan"),
        (2, "Team plan", "team-plan-1"),
    ]
    document = doc("site/pricing.html", RAW_HTML)
    chunks = HtmlChunker(size=800, overlap=0).split(document)
    check_chunks(document, chunks, sections=False)
    assert [anchor(c) for c in chunks] == ["chunk-0", "top", "free", "team-plan", "team-plan-1"]
    assert chunks[0].text == "<html><body>"
    assert chunks[2].metadata["section"] == "Pricing & Plans > Free plan"
    assert chunks[2].text.startswith('<h2 id="free">')


# --- code --------------------------------------------------------------------


def code_summary(chunks: list[Chunk]) -> list[tuple[str, str | None, str]]:
    return [(anchor(c), c.metadata.get("symbol"), c.metadata["symbol_kind"]) for c in chunks]


def test_python_functions_and_classes_are_units() -> None:
    document = doc("src/billing/client.py", PYTHON_SOURCE)
    chunks = CodeChunker(size=4000).split(document)
    check_chunks(document, chunks, sections=False)
    assert code_summary(chunks) == [
        ("L1-L8", None, "module"),
        ("Invoice", "Invoice", "class"),
        ("Client", "Client", "class"),
        ("create_invoice", "create_invoice", "function"),
        ("L59-L60", None, "module"),
    ]
    invoice = chunks[1]
    assert invoice.text.startswith("# An invoice as the API returns it.\n@dataclass(frozen=True)")
    assert invoice.label == "src/billing/client.py#Invoice"
    assert (invoice.metadata["start_line"], invoice.metadata["end_line"]) == (11, 18)
    assert all(c.metadata["language"] == "python" for c in chunks)


def test_python_big_class_is_split_per_method() -> None:
    document = doc("src/billing/client.py", PYTHON_SOURCE)
    chunks = CodeChunker(size=500, overlap=0).split(document)
    check_chunks(document, chunks, sections=False)
    assert code_summary(chunks) == [
        ("L1-L8", None, "module"),
        ("Invoice", "Invoice", "class"),
        ("Client", "Client", "class"),
        ("Client.__init__", "Client.__init__", "method"),
        ("Client.create_invoice", "Client.create_invoice", "method"),
        ("Client.fetch", "Client.fetch", "method"),
        ("Client.name", "Client.name", "method"),
        ("Client.name-2", "Client.name", "method"),
        ("create_invoice", "create_invoice", "function"),
        ("L59-L60", None, "module"),
    ]
    by_anchor = {anchor(c): c for c in chunks}
    create = by_anchor["Client.create_invoice"]
    # Decorators, the comment above, the docstring and nested functions go with it.
    assert create.text.startswith("    # Retries twice on a 5xx.\n    @staticmethod\n")
    assert '"""Create an invoice and return it."""' in create.text
    assert "def cents(value: int) -> int:" in create.text
    assert by_anchor["Client"].text.startswith('class Client:\n    """Talks to the billing API."""')
    assert "timeout = 10.0" in by_anchor["Client"].text
    assert by_anchor["Client.name-2"].text.lstrip().startswith("@name.setter")
    assert create.label == "src/billing/client.py#Client.create_invoice"


def test_python_oversized_function_pieces_share_the_symbol() -> None:
    body = "\n".join(f"    total += step_{i}(value)" for i in range(60))
    source = f"import math\n\n\ndef crunch(value):\n    total = 0\n{body}\n    return total\n"
    document = doc("src/crunch.py", source)
    chunks = CodeChunker(size=300, overlap=30).split(document)
    check_chunks(document, chunks, sections=False)
    pieces = [c for c in chunks if c.metadata.get("symbol") == "crunch"]
    assert [anchor(c) for c in pieces] == ["crunch"] + [
        f"crunch-{n}" for n in range(2, len(pieces) + 1)
    ]
    assert len(pieces) > 3 and all(len(c.text) <= 300 for c in pieces)
    assert pieces[0].text.startswith("def crunch(value):")


def test_python_syntax_error_falls_back_to_line_labels() -> None:
    source = PYTHON_SOURCE.replace("class Client:", "class Client(:")
    document = doc("src/billing/client.py", source)
    chunks = CodeChunker(size=400, overlap=0).split(document)
    check_chunks(document, chunks, sections=False)
    assert all(re.fullmatch(r"L\d+(-L\d+)?", anchor(c)) for c in chunks)
    assert all("symbol" not in c.metadata for c in chunks)
    for c in chunks:
        first, last = c.metadata["start_line"], c.metadata["end_line"]
        assert anchor(c) in (f"L{first}-L{last}", f"L{first}")
        assert source.count("\n", 0, c.start) + 1 == first


def test_javascript_with_tree_sitter() -> None:
    pytest.importorskip("tree_sitter")
    pytest.importorskip("tree_sitter_javascript")
    document = doc("web/billing.js", JAVASCRIPT_SOURCE)
    chunks = CodeChunker(size=4000).split(document)
    check_chunks(document, chunks, sections=False)
    assert code_summary(chunks) == [
        ("L1-L4", None, "module"),
        ("createInvoice", "createInvoice", "function"),
        ("formatAmount", "formatAmount", "function"),
        ("Client", "Client", "class"),
        ("L34-L36", None, "function"),
    ]
    assert chunks[1].text.startswith("/**\n * Create an invoice.")
    assert all(c.metadata["language"] == "javascript" for c in chunks)
    split = CodeChunker(size=200, overlap=0).split(document)
    check_chunks(document, split, sections=False)
    assert [anchor(c) for c in split if c.metadata.get("symbol", "").startswith("Client")] == [
        "Client",
        "Client.constructor",
        "Client.fetch",
        "Client.fromEnv",
    ]
    from_env = next(c for c in split if anchor(c) == "Client.fromEnv")
    assert from_env.text.endswith("  }\n}"), "the class's closing brace goes with its last method"
    assert next(c for c in split if anchor(c) == "Client.fetch").metadata["symbol_kind"] == "method"


def test_code_without_a_grammar_falls_back_to_language_separators(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chunker = CodeChunker(size=300, overlap=0)
    monkeypatch.setattr(chunker, "parser", lambda module, function: None)
    document = doc("web/billing.js", JAVASCRIPT_SOURCE)
    chunks = chunker.split(document)
    check_chunks(document, chunks, sections=False)
    assert all(re.fullmatch(r"L\d+(-L\d+)?", anchor(c)) for c in chunks)
    # Cut before definitions: each chunk after the first starts with one.
    starts = [c.text.split("\n", 1)[0] for c in chunks[1:]]
    assert all(
        s.startswith(("export ", "/**", "function ", "const ", "class ", "  ")) for s in starts
    ), starts


def test_code_language_from_option_metadata_or_extension() -> None:
    chunker = CodeChunker()
    assert chunker.language(doc("a.py", ""))[0].name == "python"
    assert chunker.language(doc("a.tsx", ""))[1] == "language_tsx"
    assert chunker.language(doc("a.txt", "", language="js"))[0].name == "javascript"
    assert CodeChunker(language="Go").language(doc("a.py", ""))[0].name == "go"
    assert chunker.language(doc("Makefile", ""))[0].name == "text"
    kotlin = doc(
        "app/Main.kt", "package app\n\nclass Main {\n    fun run() {}\n}\n\nfun main() {}\n"
    )
    chunks = chunker.split(kotlin)
    check_chunks(kotlin, chunks, sections=False)
    assert chunks[0].metadata["language"] == "kotlin"


# --- semantic ----------------------------------------------------------------

TOPICS = [
    "Cats purr when they are content and cats sleep on the warm sofa {i}.",
    "Rockets burn liquid fuel and rockets reach orbit after stage {i}.",
    "Soup needs salt and soup tastes better after slow simmering in pot {i}.",
]


def topic_text(per_topic: int = 5, first: int | None = None) -> tuple[str, list[int]]:
    counts = [per_topic if first is None else first, per_topic, per_topic]
    sentences = [t.format(i=i) for t, n in zip(TOPICS, counts) for i in range(n)]
    text = " ".join(sentences)
    boundaries = [text.index(t.format(i=0)) for t in TOPICS[1:]]
    return text, boundaries


@pytest.mark.parametrize(
    "options",
    [
        {"breakpoint": "threshold", "threshold": 0.4},
        {"breakpoint": "percentile", "percentile": 85},
    ],
)
def test_semantic_cuts_where_the_topic_changes(options: dict) -> None:
    text, boundaries = topic_text()
    document = doc("notes/mixed.txt", text)
    chunker = opened(SemanticChunker(buffer_size=0, min_size=0, **options), HashEmbedder())
    chunks = chunker.split(document)
    check_chunks(document, chunks)
    assert [c.start for c in chunks] == [0, *boundaries]
    assert [c.text.split()[0] for c in chunks] == ["Cats", "Rockets", "Soup"]


def test_semantic_with_a_buffer_cuts_near_the_topic_change() -> None:
    text, boundaries = topic_text(per_topic=8)
    document = doc("notes/mixed.txt", text)
    chunks = opened(SemanticChunker(percentile=88, min_size=0), HashEmbedder()).split(document)
    check_chunks(document, chunks)
    sentence_starts = [a for a, _ in sentence_spans(text)]
    for boundary in boundaries:
        i = sentence_starts.index(boundary)
        near = set(sentence_starts[i - 1 : i + 2])
        assert near & {c.start for c in chunks}, "a cut within a sentence of each topic change"


def test_breakpoints() -> None:
    vectors = [[1, 0], [1, 0.1], [0, 1], [0, 1], [0, 0]]
    assert breakpoints(vectors, "threshold", 95, 0.5) == [1, 3]
    assert breakpoints(vectors, "percentile", 50, 0) == [1, 3]
    assert breakpoints([[1, 0]], "percentile", 95, 0) == []


def test_semantic_min_and_max_size() -> None:
    text, boundaries = topic_text(first=2)
    document = doc("notes/mixed.txt", text)
    small = opened(
        SemanticChunker(buffer_size=0, breakpoint="threshold", threshold=0.4, min_size=200),
        HashEmbedder(),
    ).split(document)
    check_chunks(document, small)
    # The two cat sentences are too few: they join the rockets.
    assert [c.start for c in small] == [0, boundaries[1]]
    text, _ = topic_text()
    document = doc("notes/mixed.txt", text)
    capped = opened(SemanticChunker(buffer_size=0, min_size=0, max_size=150), HashEmbedder()).split(
        document
    )
    check_chunks(document, capped)
    assert all(len(c.text) <= 150 for c in capped)


def test_semantic_needs_an_embedder() -> None:
    assert SemanticChunker.needs == frozenset({"embedder"})
    with pytest.raises(ComponentError, match="needs the pipeline's embedder"):
        SemanticChunker().open(Context())
    with pytest.raises(ComponentError, match="configure `embedder:`"):
        SemanticChunker().split(doc("a.txt", "One. Two."))


def test_config_check_fails_without_an_embedder(registry: Any) -> None:
    from ragloom.config import load_config
    from ragloom.registry import RegistryEntry

    if ("chunker", "semantic") not in registry:
        registry.add(RegistryEntry("chunker", "semantic", SemanticChunker, "test"))
    config = {"stores": [{"type": "bm25"}], "chunker": {"type": "semantic"}}
    with pytest.raises(ConfigValidationError, match="needs an embedder"):
        load_config(config, registry, env={})
    load_config({**config, "embedder": {"type": "hash"}}, registry, env={})


# --- parent ------------------------------------------------------------------


def test_parent_children_carry_their_parent() -> None:
    document = doc("docs/manual.md", MANUAL)
    chunks = ParentChunker(parent_size=600, child_size=120, child_overlap=20).split(document)
    check_chunks(document, chunks, sections=False)
    parents = {}
    for chunk in chunks:
        m = chunk.metadata
        assert m["parent_start"] <= chunk.start < chunk.end <= m["parent_end"]
        assert m["parent_text"] == MANUAL[m["parent_start"] : m["parent_end"]]
        assert len(chunk.text) <= 120
        parents.setdefault(m["parent_id"], m["parent_text"])
    assert list(parents) == [f"docs/manual.md::parent-{i}" for i in range(len(parents))]
    sections = [c.text for c in MarkdownChunker(size=600, overlap=0).split(document)]
    assert list(parents.values()) == sections
    linux = next(c for c in chunks if "dpkg" in c.text)
    assert linux.label == "docs/manual.md#linux"
    assert linux.metadata["section"] == "Notewise Manual > Install > Linux"


def test_parent_recursive_parents() -> None:
    document = doc("notes/history.txt", PROSE)
    chunks = ParentChunker(
        parents="recursive", parent_size=300, child_size=100, child_overlap=0
    ).split(document)
    check_chunks(document, chunks)
    parent_texts = {c.metadata["parent_text"] for c in chunks}
    assert parent_texts == {c.text for c in RecursiveChunker(size=300, overlap=0).split(document)}
    assert all(c.metadata["parent_text"].find(c.text) >= 0 for c in chunks)


# --- config errors -----------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "options", "message"),
    [
        (FixedChunker, {"unit": "bytes"}, "'characters', 'words' or 'tokens'"),
        (RecursiveChunker, {"unit": "lines"}, "'characters', 'words' or 'tokens'"),
        (SentenceChunker, {"size": 0}, "greater than 0"),
        (SentenceChunker, {"overlap_sentences": -1}, "greater than or equal to 0"),
        (SentenceChunker, {"overlap": 10}, "Extra inputs are not permitted"),
        (MarkdownChunker, {"size": 100, "overlap": 100}, "overlap (100) must be smaller than size"),
        (MarkdownChunker, {"merge_small": "sometimes"}, "merge_small"),
        (HtmlChunker, {"heading_levels": 2}, "Extra inputs are not permitted"),
        (CodeChunker, {"size": 50, "overlap": 60}, "overlap (60) must be smaller than size (50)"),
        (SemanticChunker, {"breakpoint": "gradient"}, "'percentile' or 'threshold'"),
        (SemanticChunker, {"percentile": 120}, "less than or equal to 100"),
        (SemanticChunker, {"min_size": 500, "max_size": 400}, "min_size (500) must be smaller"),
        (SemanticChunker, {"buffer_size": -1}, "greater than or equal to 0"),
        (ParentChunker, {"child_size": 100, "child_overlap": 100}, "child_overlap (100) must"),
        (ParentChunker, {"parent_size": 300, "child_size": 400}, "child_size (400) must not"),
        (ParentChunker, {"parents": "sentence"}, "'markdown' or 'recursive'"),
    ],
)
def test_config_errors(cls: type[Chunker], options: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)):
        cls(**options)


@pytest.mark.parametrize(
    ("cls", "defaults"),
    [
        (
            SentenceChunker,
            {
                "size": 800,
                "overlap_sentences": 1,
                "unit": "characters",
                "repeat_table_header": True,
            },
        ),
        (
            MarkdownChunker,
            {
                "size": 800,
                "overlap": 100,
                "unit": "characters",
                "merge_small": False,
                "prepend_section_path": False,
                "repeat_table_header": True,
            },
        ),
        (CodeChunker, {"size": 1500, "overlap": 100, "unit": "characters", "language": None}),
        (
            SemanticChunker,
            {
                "breakpoint": "percentile",
                "percentile": 95.0,
                "threshold": 0.5,
                "buffer_size": 1,
                "min_size": 100,
                "max_size": 2000,
                "unit": "characters",
                "repeat_table_header": True,
            },
        ),
        (
            ParentChunker,
            {
                "parents": "markdown",
                "parent_size": 2000,
                "child_size": 400,
                "child_overlap": 50,
                "unit": "characters",
                "repeat_table_header": True,
            },
        ),
    ],
)
def test_defaults_and_fingerprints(cls: type[Chunker], defaults: dict) -> None:
    chunker = cls()
    assert isinstance(chunker, Chunker)
    assert chunker.fingerprint() == {"type": cls.__name__, **defaults}
