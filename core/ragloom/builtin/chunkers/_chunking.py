"""Helpers shared by the built-in chunkers: chunks, labels, headings, sizes.

- :func:`make_chunk` builds a chunk with the document's metadata, its offsets
  and a citable label.
- :func:`markdown_headings` and :func:`section_finder` read the ATX headings
  of a Markdown text (outside code fences and front matter) with GitHub-style
  anchors.
- :func:`length_function` measures text in ``characters``, ``words`` or
  ``tokens``; :class:`SizedConfig` is the ``size``/``overlap``/``unit`` options
  the chunkers share.

Labels. A chunk's label is ``<source>#<anchor>``:

- a document with ``page_starts`` metadata (PDF) is cited by page,
  ``manual.pdf#page=12``: ``#page=N`` is the fragment PDF viewers open, and a
  heading slug means nothing to them. The chunk's section, when the text has
  headings, is still in its metadata.
- otherwise a code symbol (``client.py#Client.create_invoice``) or line range
  (``client.py#L1-L12``), or a Markdown section's anchor
  (``pricing.md#enterprise-plan``), or ``#chunk-<index>`` outside any section.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Literal

from pydantic import Field, model_validator

from ...components import ComponentConfig
from ...terminal import without_sequences
from ...types import Chunk, Document
from .._languages import FILE_NAMES, INTERPRETERS, LANGUAGES
from ._tables import table_header

__all__ = [
    "DOCUMENT_ONLY_KEYS",
    "Heading",
    "HeadingMark",
    "SizedConfig",
    "Slugger",
    "Unit",
    "approx_token_spans",
    "build_headings",
    "clean_title",
    "approx_tokens",
    "count_words",
    "embedder_of",
    "github_slug",
    "length_function",
    "make_chunk",
    "markdown_headings",
    "page_of",
    "scan_markdown",
    "document_sections",
    "section_finder",
    "source_code",
]

Unit = Literal["characters", "words", "tokens"]

DOCUMENT_ONLY_KEYS = frozenset({"page_starts", "links"})
"""Document metadata describing the whole document (the offset of each page,
the links of a web page): not copied into each chunk, which gets its
own ``page`` and ``section`` instead."""


# --- chunks ------------------------------------------------------------------


def make_chunk(
    document: Document,
    text: str,
    index: int,
    start: int,
    end: int,
    *,
    section: tuple[str, str] | None = None,
    anchor: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Chunk:
    """A chunk of ``document`` with its metadata, offsets and a citable label.

    The id is ``<document id>::<index>``, stable across runs for the same text
    and chunker config. ``section`` is ``(path, anchor)`` as ``section_finder``
    gives it; ``anchor`` (a code symbol, a line range) overrides the
    section's anchor in the label. The label is ``<source>#page=N`` when the
    document has ``page_starts``, else ``<source>#<anchor>``, else, for a
    record (``record_id`` metadata: a CSV row, a JSON Lines record),
    ``<source>#<record id>``, else ``<source>#chunk-<index>``. Metadata: the document's (less
    :data:`DOCUMENT_ONLY_KEYS`), ``document_id``, ``chunk_index``, ``start``,
    ``end``, ``section`` and ``page`` where known, and ``extra``.
    """
    doc_meta = document.metadata
    header = table_header(document.text, start) if "|" in text[:1000] else None
    if header is not None:
        extra = {**(extra or {}), "table_header": header}
    if DOCUMENT_ONLY_KEYS.isdisjoint(doc_meta):
        metadata = {**doc_meta}
        page = None
    else:
        metadata = {k: v for k, v in doc_meta.items() if k not in DOCUMENT_ONLY_KEYS}
        page = page_of(document, start)
    metadata["document_id"] = document.id
    metadata["chunk_index"] = index
    metadata["start"] = start
    metadata["end"] = end
    if section is not None:
        metadata["section"] = section[0]
    if page is not None:
        metadata["page"] = page
        label_anchor = f"page={page}"
    elif anchor:
        label_anchor = anchor
    elif section is not None:
        label_anchor = section[1]
    elif doc_meta.get("record_id") is not None:  # a CSV row, a JSON Lines record
        label_anchor = str(doc_meta["record_id"])
    else:
        label_anchor = f"chunk-{index}"
    if extra:
        metadata.update(extra)
    return Chunk(
        id=f"{document.id}::{index}",
        document_id=document.id,
        text=text,
        index=index,
        start=start,
        end=end,
        label=f"{document.source}#{label_anchor}",
        metadata=metadata,
    )


def page_of(document: Document, offset: int) -> int | None:
    """The 1-based page holding character ``offset``, from the document's
    ``page_starts`` metadata (the offset where each page starts, page 1
    first), or None without it.

    :raises ValueError: if ``page_starts`` is not a list of ascending offsets.
    """
    starts = document.metadata.get("page_starts")
    if starts is None:
        return None
    try:
        if isinstance(starts, (str, bytes)) or not isinstance(starts, Sequence):
            raise TypeError
        page = bisect.bisect_right(starts, offset)
    except TypeError:
        raise ValueError(
            f"document {document.id!r}: metadata page_starts must be a list of the "
            f"character offsets where each page starts, got {starts!r}"
        ) from None
    return max(page, 1)


# --- headings ----------------------------------------------------------------

# A line that opens or closes a code fence, or an ATX heading (at most three
# spaces of indentation, as in CommonMark).
_BLOCK_LINE = re.compile(
    r"^ {0,3}(?:(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)"
    r"|(?P<hashes>#{1,6})(?:[ \t]+(?P<title>[^\n]*?))?[ \t]*)$",
    re.MULTILINE,
)
_LINE_START = re.compile(r"\n {0,3}[#`~]")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+$")
# An explicit id after the title, as in Pandoc, kramdown and Python-Markdown:
# "## Team plan {#team}".
_HEADING_ID = re.compile(r"[ \t]*\{[ \t]*#([^\s}]+)[^}]*\}[ \t]*$")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?^(?:---|\.\.\.)[ \t]*$", re.MULTILINE | re.DOTALL)
_INLINE_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_HTML_TAG = re.compile(r"<[^>\n]*>")


@dataclass(frozen=True)
class Heading:
    """A heading of a document: where its line starts and ends, its level
    (1 for ``#``), its title, its unique anchor and its section path
    (``"Guide > Install > Linux"``)."""

    start: int
    end: int
    level: int
    title: str
    anchor: str
    path: str


def github_slug(title: str) -> str:
    """The anchor GitHub gives a heading: links and tags reduced to their text,
    lower case, punctuation and symbols dropped, each space a hyphen
    (``"Can I get a refund?"`` → ``can-i-get-a-refund``). Duplicates are told
    apart by :class:`Slugger`. Terminal escape sequences are removed whole
    first: ``ESC [31m`` in a heading leaves no ``31m`` in its anchor."""
    title = _HTML_TAG.sub("", _INLINE_LINK.sub(r"\1", without_sequences(title)))
    out = []
    for ch in title.lower():
        if ch == " ":
            out.append("-")
        elif ch in "-_" or ch.isalnum() or unicodedata.category(ch)[0] == "M":
            out.append(ch)
    return "".join(out)


class Slugger:
    """Unique anchors within one document, as GitHub makes them: the second
    ``Install`` heading is ``install-1``, the third ``install-2``."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def slug(self, title: str) -> str:
        base = result = github_slug(title) or "section"
        while result in self._seen:
            self._seen[base] += 1
            result = f"{base}-{self._seen[base]}"
        self._seen[result] = 0
        return result

    def reserve(self, anchor: str) -> str:
        """Use ``anchor`` as given (an element's ``id``), so slugs avoid it."""
        self._seen.setdefault(anchor, 0)
        return anchor


HeadingMark = tuple[int, int, int, str, str | None]
"""A heading found in a text: ``(start, end, level, title, anchor)``; the
anchor is None unless the text gives one (an HTML ``id``)."""


def markdown_headings(text: str) -> list[Heading]:
    """The ATX headings (``## Title``) of a Markdown text, in order.

    Lines inside fenced code blocks (```` ``` ```` or ``~~~``, closed by a
    fence of the same character at least as long) and in YAML front matter
    don't count; neither do setext headings or headings without a title. An
    explicit id (``## Team plan {#team}``) is the heading's anchor.
    """
    return build_headings(scan_markdown(text)[0])


def scan_markdown(text: str) -> tuple[list[HeadingMark], list[tuple[int, int]]]:
    """The ATX headings of a Markdown text and the spans of its fenced code
    blocks (an unclosed fence runs to the end) and front matter."""
    marks: list[HeadingMark] = []
    skipped: list[tuple[int, int]] = []
    start = 0
    front = _FRONT_MATTER.match(text) if text.startswith("---") else None
    if front:
        start = front.end()
        skipped.append((0, start))
    fence = ""
    fence_start = 0
    for match in _block_lines(text, start):
        marker = match.group("fence")
        if marker:
            if not fence:
                if marker[0] == "`" and "`" in match.group("info"):
                    continue  # not a fence: backticks in the info string
                fence = marker
                fence_start = match.start()
            elif (
                marker[0] == fence[0]
                and len(marker) >= len(fence)
                and not match.group("info").strip()
            ):
                fence = ""
                skipped.append((fence_start, match.end()))
            continue
        if fence:
            continue
        title = _CLOSING_HASHES.sub("", (match.group("title") or "").strip())
        given = _HEADING_ID.search(title)
        if given:
            title = title[: given.start()]
        title = clean_title(title)
        if title:
            anchor = given.group(1) if given else None
            marks.append((match.start(), match.end(), len(match.group("hashes")), title, anchor))
    if fence:
        skipped.append((fence_start, len(text)))
    return marks, skipped


def _block_lines(text: str, start: int) -> Iterator[re.Match[str]]:
    """``_BLOCK_LINE.finditer(text, start)``, fast: a ``^`` pattern is tried at
    every character, so candidate lines (a newline, up to three spaces, then
    ``#``, a backtick or ``~``) are found first with a literal-led search."""
    first = _BLOCK_LINE.match(text, start)  # ^ holds only at a real line start
    if first:
        yield first
    for candidate in _LINE_START.finditer(text, start):
        match = _BLOCK_LINE.match(text, candidate.start() + 1)
        if match:
            yield match


def clean_title(title: str) -> str:
    """A heading's text without link targets and HTML tags, whitespace collapsed."""
    return " ".join(_HTML_TAG.sub("", _INLINE_LINK.sub(r"\1", title)).split())


def build_headings(marks: Sequence[HeadingMark]) -> list[Heading]:
    """Headings with their section paths and unique anchors, from marks in
    text order. A given anchor is kept (and reserved); the others are
    GitHub slugs made unique within the document."""
    headings: list[Heading] = []
    slugger = Slugger()
    trail: list[tuple[int, str]] = []
    for start, end, level, title, anchor in marks:
        trail = [(lvl, t) for lvl, t in trail if lvl < level] + [(level, title)]
        path = " > ".join(t for _, t in trail)
        anchor = slugger.reserve(anchor) if anchor else slugger.slug(title)
        headings.append(Heading(start, end, level, title, anchor, path))
    return headings


def source_code(document: Document) -> bool:
    """Whether ``document`` is a source file, where a ``#`` line is a comment
    and no heading: by its extension or file name (``.py``, ``Dockerfile``),
    or, for a file with neither (``deploy``, ``Dockerfile.prod``), by the
    ``language`` the loaders found in its shebang or name. Not by the
    ``language`` of a Markdown, HTML, reStructuredText or text file, which
    its front matter may set ("en").
    """
    name = PurePosixPath(str(document.metadata.get("source") or document.id))
    extension = document.metadata.get("extension")
    suffix = extension.lower() if isinstance(extension, str) else name.suffix.lower()
    if suffix in LANGUAGES or name.name in FILE_NAMES:
        return True
    language = document.metadata.get("language")
    return (
        isinstance(language, str)
        and suffix not in _MARKUP_EXTENSIONS
        and language.lower() in _CODE_LANGUAGES
    )


_CODE_LANGUAGES = frozenset({*LANGUAGES.values(), *FILE_NAMES.values(), *INTERPRETERS.values()})
"""Every language the loaders may name a source file's."""
_MARKUP_EXTENSIONS = frozenset(
    {".md", ".markdown", ".mdx", ".html", ".htm", ".xhtml", ".rst", ".rest", ".txt", ".text"}
)


def document_sections(document: Document) -> Callable[[int], tuple[str, str] | None]:
    """``section_finder`` over a document's text: none in source code."""
    return section_finder(document.text, [] if source_code(document) else None)


def section_finder(
    text: str, headings: Sequence[Heading] | None = None
) -> Callable[[int], tuple[str, str] | None]:
    """A function from a character offset to the section it lies in, as
    ``(path, anchor)`` — ``("Pricing FAQ > Refunds", "refunds")`` — or None
    before the first heading. ``headings`` defaults to the text's
    :func:`markdown_headings`."""
    if headings is None:
        headings = markdown_headings(text)
    starts = [h.start for h in headings]
    paths = [(h.path, h.anchor) for h in headings]

    def find(offset: int) -> tuple[str, str] | None:
        i = bisect.bisect_right(starts, offset) - 1
        return paths[i] if i >= 0 else None

    return find


# --- sizes -------------------------------------------------------------------

# One approximate token: up to four letters, up to three digits, one CJK
# character (kana, hangul, ideographs), or one other non-space character.
_APPROX_TOKEN = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
    r"|[^\W\d_]{1,4}|\d{1,3}|[^\w\s]|_+"
)


def count_words(text: str) -> int:
    """Words in ``text``: runs of non-whitespace (``len(text.split())``)."""
    return len(text.split())


def approx_tokens(text: str) -> int:
    """Tokens in ``text`` as approximated without a tokenizer: a run of up to
    four letters, up to three digits, one CJK character or one punctuation
    mark or symbol counts as one token. That is about 1.3 tokens per English
    word, close to BERT's and GPT's tokenizers; deterministic, and additive
    over whitespace-separated words."""
    return len(_APPROX_TOKEN.findall(text))


def approx_token_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets of the approximate tokens of ``text[start:end]``."""
    matches = _APPROX_TOKEN.finditer(text, start, len(text) if end is None else end)
    return [m.span() for m in matches]


def length_function(unit: str, embedder: Any = None) -> Callable[[str], int]:
    """How to measure text in ``unit``.

    ``characters``: ``len``. ``words``: :func:`count_words`. ``tokens``: the
    embedder's ``count_tokens(text)`` when it has one (less what it counts
    for an empty text, i.e. special tokens), else :func:`approx_tokens`.
    """
    if unit == "characters":
        return len
    if unit == "words":
        return count_words
    if unit == "tokens":
        count = getattr(embedder, "count_tokens", None)
        if callable(count):
            overhead = int(count(""))

            def tokens(text: str) -> int:
                return max(int(count(text)) - overhead, 0) if text else 0

            return tokens
        return approx_tokens
    raise ValueError(f"unit must be characters, words or tokens, got {unit!r}")


class SizedConfig(ComponentConfig):
    """``size`` and ``overlap`` measured in ``unit``; ``overlap < size``."""

    size: int = Field(default=800, gt=0)
    overlap: int = Field(default=100, ge=0)
    unit: Unit = "characters"

    @model_validator(mode="after")
    def _overlap_below_size(self) -> SizedConfig:
        if self.overlap >= self.size:
            raise ValueError(
                f"overlap ({self.overlap}) must be smaller than size ({self.size}); "
                "lower overlap or raise size"
            )
        return self


def embedder_of(component: Any) -> Any:
    """The pipeline's embedder from a chunker's context, or None."""
    return component.context.services.get("embedder")
