"""The ``markdown``, ``html``, ``pdf`` and ``code`` loaders, format dispatch in
the ``file`` and ``directory`` loaders, encoding detection, and bad inputs in a
full index run.

Fixtures in ``tests/fixtures/ingestion``: a Markdown manual with front matter
and nested headings (one Setext), an HTML page with navigation chrome around
its article, and Python and JavaScript sources. The PDFs are written by
:func:`make_pdf`.
"""

from __future__ import annotations

import importlib.util
import io
import shutil
import sys
from pathlib import Path

import pluggy
import pytest
import ragloom
from pydantic import ValidationError
from ragloom.builtin._languages import code_language
from ragloom.builtin.chunkers._chunking import section_finder
from ragloom.builtin.loaders._read import file_format
from ragloom.builtin.loaders.code import CodeLoader
from ragloom.builtin.loaders.directory import DirectoryLoader
from ragloom.builtin.loaders.file import FileLoader
from ragloom.builtin.loaders.html import HtmlLoader
from ragloom.builtin.loaders.markdown import MarkdownLoader
from ragloom.builtin.loaders.parsers.markdown import normalise_admonitions, normalise_setext
from ragloom.builtin.loaders.parsers.pdf import PAGE_BREAK, page_of
from ragloom.builtin.loaders.parsers.rst import normalise_rst_titles
from ragloom.builtin.loaders.pdf import PdfLoader
from ragloom.components import Context
from ragloom.errors import LoaderError
from ragloom.hookspecs import hookimpl
from ragloom.registry import Registry
from ragloom.types import content_hash

from .conftest import basic_config

FIXTURES = Path(__file__).parent / "fixtures" / "ingestion"

needs_pypdf = pytest.mark.skipif(
    importlib.util.find_spec("pypdf") is None, reason="pip install 'ragloom[pdf]' to run"
)


class Reports(list):
    """Collects ``context.report`` calls as ``(source, message)`` pairs."""

    def __call__(self, source: str, message: str) -> None:
        self.append((source, message))

    def message(self, source: str) -> str:
        [message] = [m for s, m in self if s == source]
        return message


@pytest.fixture
def reports() -> Reports:
    return Reports()


@pytest.fixture
def context(tmp_path: Path, reports: Reports) -> Context:
    return Context(base_dir=tmp_path, report=reports, index_dir=tmp_path / ".ragloom")


def fixture(tmp_path: Path, name: str, target: str | None = None) -> Path:
    path = tmp_path / (target or name)
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FIXTURES / name, path)
    return path


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def load(cls: type, context: Context, path: str, **options: object) -> list:
    loader = cls(path=path, **options)
    loader.open(context)
    return list(loader.load())


def make_pdf(pages: list[str | None], *, title: str | None = None) -> bytes:
    """The bytes of a valid PDF 1.4 with one page per entry of ``pages``: a
    string is drawn as Helvetica text, one line per line; None draws an image
    and no text (a scanned page); ``""`` leaves the page blank."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    def stream(header: str, data: bytes) -> bytes:
        return f"<< {header} /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream"

    add(b"<< /Type /Catalog /Pages 2 0 R >>")
    add(b"")  # the page tree, written once the pages are known
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    image = add(
        stream(
            "/Type /XObject /Subtype /Image /Width 2 /Height 2 "
            "/ColorSpace /DeviceGray /BitsPerComponent 8",
            b"\x10\x80\x80\x10",
        )
    )
    kids = []
    for text in pages:
        if text is None:
            content = b"q 300 0 0 400 150 200 cm /Im1 Do Q"
            resources = f"/XObject << /Im1 {image} 0 R >>"
        else:
            escaped = [
                line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
                for line in text.split("\n")
            ]
            shown = "".join(f"({line}) Tj T* " for line in escaped)
            content = f"BT /F1 12 Tf 14 TL 72 720 Td {shown}ET".encode("cp1252") if text else b""
            resources = f"/Font << /F1 {font} 0 R >>"
        contents = add(stream("", content))
        page = (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << {resources} >> /Contents {contents} 0 R >>"
        )
        kids.append(add(page.encode()))
    refs = " ".join(f"{kid} 0 R" for kid in kids)
    objects[1] = f"<< /Type /Pages /Kids [{refs}] /Count {len(kids)} >>".encode()
    info = add(f"<< /Title ({title}) >>".encode()) if title else None

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    trailer = f"/Size {len(objects) + 1} /Root 1 0 R" + (f" /Info {info} 0 R" if info else "")
    out += f"trailer\n<< {trailer} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


PAGE_ONE = "Acme Sync Operations Guide\nBack up the database every night.\nKeep 30 days of backups."
PAGE_TWO = "Restoring a backup\nStop the service, then run acme-sync restore (it takes minutes)."


# -- markdown ------------------------------------------------------------------


def test_markdown_manual(tmp_path, context, reports):
    fixture(tmp_path, "manual.md")
    [doc] = load(MarkdownLoader, context, "manual.md")
    meta = doc.metadata
    assert doc.id == meta["source"] == "manual.md"
    assert meta["title"] == "Acme Sync Administrator Manual"
    assert meta["tags"] == ["admin", "sync", "self-hosted"]
    assert meta["version"] == 4.2 and meta["draft"] is False
    assert meta["published"] == "2024-03-18"
    assert meta["author.name"] == "Dana Whitfield" and meta["author.team"] == "Platform"
    assert "author" not in meta
    assert meta["content_hash"] == content_hash(doc.text)
    # the front matter is gone, nothing else moved
    assert doc.text.startswith("# Acme Sync Administrator Manual\n\nThis manual covers")
    assert "audience:" not in doc.text
    # the Setext heading became an ATX line; the thematic break stayed
    assert "\n## Configuration\n\nAll settings" in doc.text
    assert "-------------" not in doc.text
    assert "\n---\n\nReport anything else" in doc.text
    # the chunkers' section finder sees the heading tree, and not the comment in the fence
    find = section_finder(doc.text)
    assert find(doc.text.index("Each workspace gets")) == (
        "Acme Sync Administrator Manual > Configuration > Storage quotas",
        "storage-quotas",
    )
    assert find(doc.text.index("docker pull")) == (
        "Acme Sync Administrator Manual > Installation > Installing with Docker",
        "installing-with-docker",
    )
    assert reports == []


def test_markdown_title_falls_back_to_heading_then_stem(tmp_path, context):
    write(tmp_path, "a.md", "---\nauthor: x\n---\nIntro\n\n# The Heading\n")
    write(tmp_path, "b.md", "Just text.\n")
    assert load(MarkdownLoader, context, "a.md")[0].metadata["title"] == "The Heading"
    assert load(MarkdownLoader, context, "b.md")[0].metadata["title"] == "b"


def test_front_matter_edge_cases(tmp_path, context, reports):
    write(
        tmp_path,
        "edge.md",
        "---\nsource: wiki\nsteps:\n  - {name: one}\n  - {name: two}\nteam: support\n---\n# Edge\n",
    )
    [doc] = load(MarkdownLoader, context, "edge.md", metadata={"team": "platform"})
    assert doc.metadata["source"] == "edge.md"  # the loader's, not the front matter's
    assert doc.metadata["front_matter.source"] == "wiki"
    assert "steps" not in doc.metadata
    assert doc.metadata["team"] == "platform"  # the config wins
    assert doc.text == "# Edge\n"
    [(source, message)] = reports
    assert source == "edge.md" and "steps" in message and "left out" in message


def test_front_matter_that_is_not_yaml_is_reported_and_removed(tmp_path, context, reports):
    write(tmp_path, "bad.md", "---\ntitle: [unclosed\n---\n# Body\n")
    [doc] = load(MarkdownLoader, context, "bad.md")
    assert doc.text == "# Body\n" and doc.metadata["title"] == "Body"
    assert "front matter is not valid YAML" in reports.message("bad.md")


def test_toml_front_matter_and_unclosed_marker(tmp_path, context, reports):
    write(tmp_path, "hugo.md", '+++\ntitle = "Hugo Page"\nweight = 3\n+++\nBody.\n')
    write(tmp_path, "rule.md", "---\nNot front matter: no closing line.\n")
    [hugo] = load(MarkdownLoader, context, "hugo.md")
    assert hugo.metadata["title"] == "Hugo Page" and hugo.metadata["weight"] == 3
    assert hugo.text == "Body.\n"
    [rule] = load(MarkdownLoader, context, "rule.md")
    assert rule.text == "---\nNot front matter: no closing line.\n"
    assert reports == []


def test_markdown_with_only_front_matter_is_reported(tmp_path, context, reports):
    write(tmp_path, "meta.md", "---\ntitle: Nothing else\n---\n\n")
    assert load(MarkdownLoader, context, "meta.md") == []
    assert "no text besides front matter" in reports.message("meta.md")


def test_front_matter_is_bounded(tmp_path, context, reports):
    # YAML aliases make a tree of 4^5 values out of a few lines; the loader stops at 200
    levels = ["a: &a {w: 1, x: 2, y: 3, z: 4}"] + [
        f"{n}: &{n} {{p: *{m}, q: *{m}, r: *{m}, s: *{m}}}" for m, n in zip("abcd", "bcde")
    ]
    write(tmp_path, "bomb.md", "---\n" + "\n".join(levels) + "\n---\n# Bomb\n")
    [doc] = load(MarkdownLoader, context, "bomb.md")
    assert 100 < len(doc.metadata) <= 220
    assert "more than 200 values" in reports.message("bomb.md")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Title\n=====\nBody\n", "# Title\nBody\n"),
        ("Sub\n---\n", "## Sub\n"),
        ("Two line\nheading\n===\n", "# Two line heading\n"),
        ("Para\n\n---\n", "Para\n\n---\n"),  # a thematic break after a blank line
        ("- item\n---\n", "- item\n---\n"),  # not after a list item
        ("# ATX\n---\n", "# ATX\n---\n"),
        ("```\ncode\n---\n```\n", "```\ncode\n---\n```\n"),
        ("````\n```\nx\n===\n````\nT\n=\n", "````\n```\nx\n===\n````\n# T\n"),
        ("    indented code\n---\n", "    indented code\n---\n"),
        ("| a | b |\n|---|---|\n", "| a | b |\n|---|---|\n"),
    ],
)
def test_normalise_setext(text, expected):
    assert normalise_setext(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the title is a bold line of its own (a heading in all but syntax); the body, dedented
        (
            'Intro.\n!!! note "Current release"\n    The release is **2.5.0**.\n\nAfter.\n',
            "Intro.\n\n**Current release**\n\nThe release is **2.5.0**.\n\nAfter.\n",
        ),
        # no title: the marker goes; `""` is no title either
        ("!!! tip\n    Install the extra.\n", "Install the extra.\n"),
        ('!!! tip ""\n    Install the extra.\n', "Install the extra.\n"),
        # collapsible, closed and open, with several classes
        (
            '??? info "Time zones"\n    In UTC.\n\n    Always.\n',
            "**Time zones**\n\nIn UTC.\n\nAlways.\n",
        ),
        ('???+ warning inline end "Changed"\n    Now 8.\n', "**Changed**\n\nNow 8.\n"),
        # content tabs: a fence inside stays a fence, indented code stays code
        (
            '=== "pip"\n    ```console\n    $ pip install ferrule\n    ```\n\n'
            '=== "conda"\n\n        conda install ferrule\n',
            "**pip**\n\n```console\n$ pip install ferrule\n```\n\n"
            "**conda**\n\n    conda install ferrule\n",
        ),
        # nested, eight spaces deep
        (
            '!!! warning "Outer"\n    Outer body.\n\n    !!! note "Inner"\n        Inner body.\n',
            "**Outer**\n\nOuter body.\n\n**Inner**\n\nInner body.\n",
        ),
        # admonition syntax shown in a fence, or in indented code, is left alone
        (
            '```markdown\n!!! note "Shown"\n    verbatim\n```\n',
            '```markdown\n!!! note "Shown"\n    verbatim\n```\n',
        ),
        ('Text.\n\n    !!! note "x"\n        y\n', 'Text.\n\n    !!! note "x"\n        y\n'),
        # a tab marker with nothing under it is not a tab; a Setext underline stays one
        ('=== "x"\nText.\n', '=== "x"\nText.\n'),
        # a marker with no title that may be prose is kept, not dropped
        ("!!! Important\nText.\n", "!!! Important\nText.\n"),
        ("!!! Do not run this:\n\n    rm -rf /\n", "!!! Do not run this:\n\n    rm -rf /\n"),
        ("!!! Do not run this\n\n    rm -rf /\n", "!!! Do not run this\n\n    rm -rf /\n"),
        ("Title\n===\n", "Title\n===\n"),
    ],
)
def test_normalise_admonitions(text, expected):
    assert normalise_admonitions(text) == expected


def test_admonitions_read_as_prose_and_quotes_stay_verbatim(tmp_path, context, reports):
    """`!!! note "Current release"` was quoted as the first words of the
    answer; a chunk's text and offsets are those of the text as loaded."""
    from ragloom.builtin.chunkers.markdown import MarkdownChunker
    from ragloom.builtin.generators._text import split_sentences

    write(
        tmp_path,
        "index.md",
        "# Ferrule\n\n"
        '!!! note "Current release"\n'
        "    The current stable release is **2.5.0**, released on 2025-09-14.\n\n"
        '=== "pip"\n'
        "    ```console\n"
        "    $ pip install ferrule\n"
        "    ```\n",
    )
    [doc] = load(MarkdownLoader, context, "index.md")
    assert "!!!" not in doc.text and "===" not in doc.text
    sentences = split_sentences(doc.text, kinds=True)
    assert ("**Current release**", "sentence") in sentences  # the answerer's heading
    assert (
        "The current stable release is **2.5.0**, released on 2025-09-14.",
        "sentence",
    ) in sentences
    assert ("$ pip install ferrule", "code") in sentences
    chunks = MarkdownChunker(size=400, overlap=0).split(doc)
    assert chunks
    assert all(doc.text[c.metadata["start"] : c.metadata["end"]] == c.text for c in chunks)
    assert reports == []


# -- reStructuredText ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Title\n=====\nBody\n", "# Title\nBody\n"),
        # levels in the order styles first appear, an overlined style apart
        (
            "=====\n Top\n=====\n\nA\n===\n\nB\n~~~\n\nC\n===\n",
            "# Top\n\n## A\n\n### B\n\n## C\n",
        ),
        ("Short\n===\n", "Short\n===\n"),  # underline shorter than the title
        ("Para\ngoes on\n-------\n", "Para\ngoes on\n-------\n"),  # two lines: no title
        ("Para\n\n----\n\nMore\n", "Para\n\n----\n\nMore\n"),  # a transition
        ("    indented\n    --------\n", "    indented\n    --------\n"),  # a block quote
        ("+-----+\n| a   |\n+-----+\n", "+-----+\n| a   |\n+-----+\n"),  # a grid table
        ("=====  =====\na      b\n=====  =====\n", "=====  =====\na      b\n=====  =====\n"),
        ("----\nTitle\n====\n", "----\nTitle\n====\n"),  # overline and underline differ
        ("A\n---\n", "# A\n"),
        ("T\n=\n", "# T\n"),
        # an underline short of its title, of four or more: kept (docutils warns)
        ("Version 3.10.0\n-------------\n", "# Version 3.10.0\n"),
        ("====\nLonger title\n====\n", "# Longer title\n"),
        ("- item\n------\n", "- item\n------\n"),  # a list item, not a title
        # inline markup reduced to its text
        (
            "Using ``load`` with `Flask <https://flask.example>`_\n" + "=" * 50 + "\n",
            "# Using load with Flask\n",
        ),
        # a transition or a code line a Markdown reader would take for a fence
        # or a heading is put out of its reach: the next title still counts
        (
            "T\n=\n\npara\n\n~~~~~~~~\n\nSub\n---\n",
            "# T\n\npara\n\n    ~~~~~~~~\n\n## Sub\n",
        ),
        (
            ".. code-block:: bash\n\n   # make a venv\n   ```\n\nSub\n---\n",
            ".. code-block:: bash\n\n       # make a venv\n       ```\n\n# Sub\n",
        ),
    ],
)
def test_normalise_rst_titles(text, expected):
    assert normalise_rst_titles(text)[0] == expected


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("=====\nGuide\n=====\n\nInstall\n-------\n", "Guide"),
        # no title above the others (a changelog of releases): none of them
        ("1.1\n---\n\nx\n\n1.0\n---\n\ny\n", None),
    ],
)
def test_an_rst_documents_title_is_a_title_of_its_own_style(tmp_path, context, text, title):
    write(tmp_path, "doc.rst", text)
    [doc] = load(FileLoader, context, "doc.rst")
    assert doc.metadata["title"] == (title or "doc")


def test_rst_changelog_is_cut_by_release_and_answers_when(tmp_path, pm):
    # a Python project's CHANGES.rst: the release and its change types are
    # sections, so a chunk's section path names its release, and the offline
    # answerer dates an item by the release heading above it
    write(
        tmp_path,
        "docs/CHANGES.rst",
        "=========\nChangelog\n=========\n\n"
        "1.3.0 (2026-03-01)\n------------------\n\nAdded\n~~~~~\n\n"
        "- Webhooks for every project event.\n\nFixed\n~~~~~\n\n"
        "- A crash when a CSV file had no header row.\n\n"
        "1.2.0 (2026-01-15)\n------------------\n\nAdded\n~~~~~\n\n"
        "- Dark mode in the web app.\n",
    )
    config = basic_config(chunker={"type": "recursive", "size": 60, "overlap": 0})
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve("dark mode in the web app", k=10)
        dark = next(h for h in hits if "Dark mode" in h.chunk.text)
        assert dark.chunk.metadata["title"] == "Changelog"
        assert dark.chunk.metadata["section"] == "Changelog > 1.2.0 (2026-01-15) > Added"
        assert "~~~~" not in dark.chunk.text
        answer = pipeline.ask("When was dark mode added?")
    assert "1.2.0 (2026-01-15)" in answer.text and "Dark mode" in answer.text
    assert "1.3.0" not in answer.text


# -- html ----------------------------------------------------------------------


def test_html_page_keeps_the_article_and_drops_chrome(tmp_path, context, reports):
    fixture(tmp_path, "page.html", "guides/api-keys.html")
    [doc] = load(HtmlLoader, context, "guides/api-keys.html")
    text = doc.text
    assert doc.id == "guides/api-keys.html"
    assert doc.metadata["title"] == "Rotating API keys · Acme Developer Docs"
    assert text.startswith("# Rotating API keys\n\nAPI keys never expire on their own.")
    for chrome in (
        "Skip to content",
        "Acme Docs",
        "Search the docs",
        "Changelog",
        "In this section",
        "Privacy",
        "dataLayer",
        "font-family",
        "Guides",
    ):
        assert chrome not in text, chrome
    assert "\n## Before you start\n\nYou need the `keys:write` scope." in text
    assert (
        "1. Create a new key in Settings → API keys.\n"
        "2. Deploy it to every service that uses the old one.\n"
        "3. Revoke the old key.\n"
    ) in text
    assert (
        "```python\n# create a key with the SDK\nclient = acme.Client(token)\n"
        'key = client.keys.create(name="billing-2024", scopes=["billing:read"])\n'
        "print(key.secret)\n```"
    ) in text
    assert (  # a Markdown table: each row a unit of its own, the header its context
        "| Plan | Keys per project | Rotation reminder |\n| --- | --- | --- |\n"
        "| Free | 2 | none |\n| Pro | 20 | every 90 days |\n"
        "| Enterprise | unlimited | configurable |"
    ) in text
    assert doc.metadata["links"] == [
        "https://docs.acme.example/guides/scopes/",
        "/settings/keys",
        "mailto:support@acme.example",
        "/guides/scopes/",
    ]
    # section labels work on HTML too; the comment in the code block is no heading
    find = section_finder(text)
    assert find(text.index("Enterprise")) == (
        "Rotating API keys > Rotate a key > Limits",
        "limits",
    )
    assert find(text.index("client = acme")) == ("Rotating API keys > Rotate a key", "rotate-a-key")
    assert reports == []


def test_html_without_main_drops_page_chrome_but_keeps_article_header(tmp_path, context):
    write(
        tmp_path,
        "post.html",
        "<html><body><header><a href='/'>Blog home</a></header>"
        "<div id=sidebar><p>Popular posts</p></div>"
        "<article><header><h1>Release 2.0</h1><p>By Sam</p></header>"
        "<p>Version 2.0 is out.<br>Upgrade today.</p>"
        "<aside><p>Tip: read the changelog.</p></aside>"
        "<ul><li>Faster<ul><li>2x sync</li></ul></li><li>Smaller</li></ul>"
        "<footer>Tags: release</footer></article>"
        "<article><h2>Older post</h2><p>Version 1.9.</p></article>"
        "<footer>© Blog</footer></body></html>",
    )
    [doc] = load(HtmlLoader, context, "post.html")
    assert doc.metadata["title"] == "Release 2.0"  # no <title>: the first <h1>
    assert doc.text == (
        "# Release 2.0\n\nBy Sam\n\nVersion 2.0 is out.\nUpgrade today.\n\n"
        "Tip: read the changelog.\n\n- Faster\n  - 2x sync\n- Smaller\n\n"
        "Tags: release\n\n## Older post\n\nVersion 1.9.\n"
    )
    assert "links" not in doc.metadata


def test_html_links_are_resolved_deduplicated_and_capped(tmp_path, context):
    anchors = "".join(f"<a href='page{i % 30}.html'>p</a>" for i in range(60))
    write(
        tmp_path,
        "links.html",
        "<html><head><base href='https://example.com/docs/'></head><body><main>"
        f"<p>{anchors}<a href='#top'>top</a><a href='javascript:void(0)'>x</a></p>"
        "</main></body></html>",
    )
    [doc] = load(HtmlLoader, context, "links.html", max_links=10)
    assert doc.metadata["links"] == [f"https://example.com/docs/page{i}.html" for i in range(10)]
    [doc] = load(HtmlLoader, context, "links.html")
    assert len(doc.metadata["links"]) == 30
    [doc] = load(HtmlLoader, context, "links.html", max_links=0)
    assert "links" not in doc.metadata


def test_html_drops_what_an_inline_style_hides(tmp_path, context, reports):
    """Text no reader sees is where scraped pages hide instructions for
    machines ("ignore your instructions..."): an inline style that hides its
    element drops it, as the ``hidden`` attribute does (trial 20, F5), and so
    does a class or id the page's own ``<style>`` hides (a mail's preheader),
    but not under ``@media``; a class no rule here hides (``sr-only``) is
    kept; the body a script reveals after loading is kept too."""
    hidden = [
        '<div style="display:none">H1</div>',
        '<div style="color: red; display: none !important">H2</div>',
        '<p style="visibility:hidden">H3</p>',
        '<span style="VISIBILITY: collapse">H4</span>',
        '<span style="font-size:0">H5</span>',
        '<span style="font-size: 0px">H6</span>',
        '<div style="opacity:0">H7</div>',
        "<div style='opacity: 0.0'><p>H8 <b>nested</b></p></div>",
        # how mail hides a preheader, and text moved off the screen
        '<div style="mso-hide:all">H9</div>',
        '<div style="max-height:0; overflow:hidden">H10</div>',
        '<div style="position:absolute; left:-9999px">H11</div>',
        '<p class="preheader">H12</p>',
        '<p id="machine">H13</p>',
    ]
    shown = [
        '<p style="display:block">S1</p>',
        '<p style="font-size:0.9em">S2</p>',
        '<p style="opacity:0.5">S3</p>',
        '<p class="sr-only">S4</p>',
        '<p style="font-size: 10px; visibility: visible">S5</p>',
        '<p class="mobile-only">S6</p>',  # hidden by an @media rule: some screens show it
        '<p style="max-height:0">S7</p>',  # overflow visible: shown
    ]
    write(
        tmp_path,
        "page.html",
        "<html><head><style>.preheader { display: none !important; } #machine{visibility:hidden}"
        " @media (min-width: 600px) { .mobile-only { display: none } }</style></head>"
        '<body style="display:none"><main><h1>T</h1>'
        + "".join(hidden + shown)
        + "</main></body></html>",
    )
    [doc] = load(HtmlLoader, context, "page.html")
    assert doc.text == "# T\n\nS1\n\nS2\n\nS3\n\nS4\n\nS5\n\nS6\n\nS7\n"
    assert reports == []


def test_html_with_nothing_readable_is_reported(tmp_path, context, reports):
    write(tmp_path, "shell.html", "<html><body><nav>Home</nav><script>app()</script></body></html>")
    assert load(HtmlLoader, context, "shell.html") == []
    assert "no readable text" in reports.message("shell.html")


@pytest.mark.parametrize(
    ("page", "text"),
    [
        ("<html hidden><body hidden class=sidebar><p>kept</p></body></html>", "kept\n"),
        ("<div>" * 5000 + "deep" + "</div>" * 5000, "deep\n"),
        ("<p>a <b>b</b>\n  c<br>d</p><<<>>>&amp;", "a b c\nd\n\n<<<>>>&\n"),
    ],
)
def test_html_odd_markup_parses(tmp_path, context, reports, page, text):
    write(tmp_path, "odd.html", page)
    [doc] = load(HtmlLoader, context, "odd.html")
    assert doc.text == text
    assert reports == []


def test_html_meta_charset_decides_when_bytes_are_not_utf8(tmp_path, context, reports):
    page = "<html><head><meta charset='windows-1252'></head><body><p>Café – “quoted”</p></body>"
    write(tmp_path, "legacy.html", page.encode("cp1252"))
    [doc] = load(HtmlLoader, context, "legacy.html")
    assert doc.text == "Café – “quoted”\n"
    assert reports == []


# -- pdf -------------------------------------------------------------------------


@needs_pypdf
def test_two_page_pdf(tmp_path, context, reports):
    write(tmp_path, "manual.pdf", make_pdf([PAGE_ONE, PAGE_TWO], title="Acme Sync Operations"))
    [doc] = load(PdfLoader, context, "manual.pdf")
    meta = doc.metadata
    assert doc.id == "manual.pdf"
    assert meta["title"] == "Acme Sync Operations"
    assert meta["pages"] == 2
    assert doc.text == PAGE_ONE + PAGE_BREAK + PAGE_TWO
    assert meta["page_starts"] == [0, len(PAGE_ONE) + len(PAGE_BREAK)]
    assert page_of(meta["page_starts"], doc.text.index("Keep 30 days")) == 1
    assert page_of(meta["page_starts"], doc.text.index("Restoring")) == 2
    assert meta["content_hash"] == content_hash(doc.text)
    assert reports == []


@needs_pypdf
def test_pdf_running_headers_and_footers_are_left_out(tmp_path, context, reports):
    """A trial's manual had its header and footer on every page, and
    answers quoted "Page 4 4 Maintenance Replace the air filter...". The
    footer is drawn first here, as there. They stay where they first appear."""
    bodies = [
        f"{n} {title}\nFirst line of {title}.\nSecond of {title}.\nThird of {title}.\n"
        f"Do not distribute the {title} keys."
        for n, title in enumerate(("Safety", "Installation", "Networking", "Maintenance"), 1)
    ]
    head = "Confidential. Do not distribute. Page {n}\nAcme Appliance Guide - Rev. B\n"
    pages = [head.format(n=n) + body + f"\n{n} / 4" for n, body in enumerate(bodies, start=1)]
    write(tmp_path, "guide.pdf", make_pdf(pages))
    [doc] = load(PdfLoader, context, "guide.pdf")
    assert doc.text == PAGE_BREAK.join([pages[0], *bodies[1:]])  # a body line alike stays
    starts = doc.metadata["page_starts"]
    assert page_of(starts, doc.text.index("First line of Maintenance")) == 4
    assert page_of(starts, doc.text.index("First line of Installation")) == 2
    assert reports == []


def test_pdf_lines_are_running_only_at_the_edges_of_most_long_pages() -> None:
    from ragloom.builtin.loaders.parsers.pdf import without_running_lines

    def page(head: str, word: str, foot: str = "") -> str:
        body = "\n".join(f"{word} line {i}." for i in range(6))
        return f"{head}\n{body}" + (f"\n{foot}" if foot else "")

    words = ("alpha", "beta", "gamma", "delta", "epsilon")
    # two pages: no telling a running line from a title
    two = [page("Guide", w) for w in words[:2]]
    assert without_running_lines(two) == two
    # at the top of two pages of five: not most of them
    few = [page("Draft" if i < 2 else f"{w} title", w) for i, w in enumerate(words)]
    assert without_running_lines(few) == few
    # at the top of three of five, and page numbers at the foot of all: running,
    # kept where they first appear
    most = [
        page("Draft" if i < 3 else f"{w} title", w, f"- {i + 1} -") for i, w in enumerate(words)
    ]
    cleaned = without_running_lines(most)
    assert cleaned[0] == most[0]
    assert cleaned[1] == page("", "beta").lstrip("\n") and cleaned[4] == page(
        "epsilon title", "epsilon"
    )
    # lines that differ by more than a page number stay (an invoice's number, a
    # dated heading), and so does every line of a short page (an invoice's)
    invoices = [
        f"Invoice {1000 + i}\n2024-01-0{i + 1} Release 1.{i}\nTotal: ${i}0.00" for i in range(4)
    ]
    long = [page(f"Invoice {1000 + i}", w, f"Total: ${i}0.00") for i, w in enumerate(words)]
    assert without_running_lines(invoices) == invoices
    assert without_running_lines(long) == long


@needs_pypdf
def test_pdf_scanned_page_is_reported_and_the_rest_loads(tmp_path, context, reports):
    write(tmp_path, "mixed.pdf", make_pdf([PAGE_ONE, None, "", PAGE_TWO]))
    [doc] = load(PdfLoader, context, "mixed.pdf")
    assert doc.metadata["pages"] == 4
    assert doc.metadata["title"] == "mixed"
    starts = doc.metadata["page_starts"]
    assert page_of(starts, doc.text.index("Restoring")) == 4
    assert doc.text[starts[3] :] == PAGE_TWO
    # the image-only page is reported; the blank page 3 is not
    assert reports == [
        ("mixed.pdf", "page 2 has no text layer (scanned?); OCR it first; loaded the other pages")
    ]


@needs_pypdf
def test_pdf_without_text_is_reported_and_skipped(tmp_path, context, reports):
    write(tmp_path, "scan.pdf", make_pdf([None, None]))
    assert load(PdfLoader, context, "scan.pdf") == []
    message = reports.message("scan.pdf")
    assert "no text layer on any of its 2 page(s)" in message and "OCR" in message


@needs_pypdf
@pytest.mark.parametrize(("user_password", "loads"), [("", True), ("s3cret", False)])
def test_encrypted_pdf(tmp_path, context, reports, user_password, loads):
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=io.BytesIO(make_pdf([PAGE_ONE])))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    write(tmp_path, "locked.pdf", buffer.getvalue())
    documents = load(PdfLoader, context, "locked.pdf")
    if loads:
        assert [d.text for d in documents] == [PAGE_ONE]
        assert reports == []
    else:
        assert documents == []
        assert "encrypted PDF with a password" in reports.message("locked.pdf")


@needs_pypdf
def test_corrupt_pdf_is_reported(tmp_path, context, reports):
    write(tmp_path, "broken.pdf", b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog")
    assert load(PdfLoader, context, "broken.pdf") == []
    assert reports.message("broken.pdf").startswith("not a readable PDF")


def test_missing_pypdf_fails_at_config_check_and_open(monkeypatch, tmp_path, context, reports):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pypdf" else real(name, *a)
    )
    with pytest.raises(ValidationError, match=r"pip install 'ragloom\[pdf\]'"):
        PdfLoader(path="manual.pdf")
    config = PdfLoader.Config.model_construct(path="manual.pdf", metadata={})
    with pytest.raises(LoaderError, match=r"pip install 'ragloom\[pdf\]'"):
        PdfLoader(config).open(context)


def test_missing_pypdf_is_one_report_for_a_directory(monkeypatch, tmp_path, context, reports):
    monkeypatch.setitem(sys.modules, "pypdf", None)  # import pypdf now raises ImportError
    write(tmp_path, "docs/a.pdf", make_pdf([PAGE_ONE]))
    write(tmp_path, "docs/b.pdf", make_pdf([PAGE_TWO]))
    write(tmp_path, "docs/c.md", "# C\n")
    documents = load(DirectoryLoader, context, "docs")
    assert [d.id for d in documents] == ["docs/c.md"]
    [(source, message)] = reports
    assert source == "docs"
    assert message.startswith("skipped 2 files (docs/a.pdf, ...; indexed versions kept)")
    assert "pip install 'ragloom[pdf]'" in message
    # the file loader reports its one file
    reports.clear()
    assert load(FileLoader, context, "docs/a.pdf") == []
    assert "pip install 'ragloom[pdf]'" in reports.message("docs/a.pdf")


# -- code ------------------------------------------------------------------------


def test_python_source(tmp_path, context, reports):
    path = fixture(tmp_path, "billing.py", "src/billing.py")
    [doc] = load(CodeLoader, context, "src/billing.py")
    assert doc.text == path.read_text("utf-8")  # whole and untouched
    assert doc.metadata["language"] == "python"
    assert doc.metadata["title"] == (
        "Billing client for the Acme API: invoices, refunds and payment methods."
    )
    assert reports == []


def test_javascript_source(tmp_path, context):
    path = fixture(tmp_path, "cart.js", "web/cart.js")
    [doc] = load(CodeLoader, context, "web/cart.js")
    assert doc.text == path.read_text("utf-8")
    assert doc.metadata["language"] == "javascript"
    assert doc.metadata["title"] == "cart.js"


@pytest.mark.parametrize(
    ("name", "first_line", "language"),
    [
        ("tool.ts", "", "typescript"),
        ("lib.rs", "", "rust"),
        ("x.H", "", "c"),
        ("Dockerfile", "", "dockerfile"),
        ("deploy", "#!/usr/bin/env bash", "bash"),
        ("manage", "#!/usr/bin/python3.12", "python"),
        ("serve", "#!/usr/bin/env -S node --experimental", "javascript"),
        ("notes", "plain words", None),
    ],
)
def test_code_language(name, first_line, language):
    assert code_language(Path(name), first_line + "\n") == language


# -- dispatch ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "head", "kind"),
    [
        ("a.md", b"", "markdown"),
        ("a.MDX", b"", "markdown"),
        ("a.htm", b"", "html"),
        ("a.pdf", b"", "pdf"),
        ("a.go", b"", "code"),
        ("a.txt", b"#!/bin/sh", "text"),
        ("a.rst", b"", "rst"),
        ("a.REST", b"", "rst"),
        ("script", b"#!/bin/sh\necho hi", "code"),
        ("report", b"%PDF-1.7\n", "pdf"),
        ("index", b"  <!DOCTYPE html><html>", "html"),
        ("page.cgi", b"<html><body>", "html"),
        ("README", b"Read me", "text"),
    ],
)
def test_file_format(name, head, kind):
    assert file_format(Path(name), head) == kind


@needs_pypdf
def test_directory_dispatches_by_format_and_agrees_with_the_type_loaders(tmp_path, context):
    fixture(tmp_path, "manual.md", "docs/manual.md")
    fixture(tmp_path, "page.html", "docs/web/page.html")
    fixture(tmp_path, "billing.py", "docs/src/billing.py")
    fixture(tmp_path, "cart.js", "docs/src/cart.js")
    write(tmp_path, "docs/ops.pdf", make_pdf([PAGE_ONE, PAGE_TWO]))
    write(tmp_path, "docs/bin/deploy", "#!/usr/bin/env bash\nset -e\nmake release\n")
    write(tmp_path, "docs/notes.txt", "Plain notes.\n")
    write(tmp_path, "docs/data.json", '{"ignored": true}\n')
    documents = {d.id: d for d in load(DirectoryLoader, context, "docs")}
    assert sorted(documents) == [
        "docs/manual.md",
        "docs/notes.txt",
        "docs/ops.pdf",
        "docs/src/billing.py",
        "docs/src/cart.js",
        "docs/web/page.html",
    ]
    assert documents["docs/manual.md"].metadata["author.name"] == "Dana Whitfield"
    assert documents["docs/web/page.html"].text.startswith("# Rotating API keys")
    assert documents["docs/ops.pdf"].metadata["pages"] == 2
    assert documents["docs/src/cart.js"].metadata["language"] == "javascript"
    assert documents["docs/notes.txt"].metadata["title"] == "notes"
    # the same file through its own loader and through the file loader: same document
    for doc_id, cls in [
        ("docs/manual.md", MarkdownLoader),
        ("docs/web/page.html", HtmlLoader),
        ("docs/ops.pdf", PdfLoader),
        ("docs/src/billing.py", CodeLoader),
    ]:
        for loader_class in (cls, FileLoader):
            [doc] = load(loader_class, context, doc_id)
            expected = dict(documents[doc_id].metadata)
            del expected["relative_path"]
            assert (doc.id, doc.text, dict(doc.metadata)) == (
                doc_id,
                documents[doc_id].text,
                expected,
            )
    # an extensionless script is code when include selects it
    [script] = load(DirectoryLoader, context, "docs", include=["bin/*"])
    assert script.metadata["language"] == "bash"


def test_html_table_without_header_cells_has_rows_and_no_rule(tmp_path, context, reports):
    write(
        tmp_path,
        "t.html",
        "<p>Sizes</p><table><tr><td>S</td><td>a|b</td></tr><tr><td></td></tr>"
        "<tr><td>M</td><td>42</td></tr></table>",
    )
    [doc] = load(HtmlLoader, context, "t.html")
    assert doc.text.rstrip().endswith("| S | a\\|b |\n| M | 42 |")  # no empty row, no rule
    assert "---" not in doc.text


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("models.csv", 'model,frame,gears\nSwift,carbon,22\nCity,"steel,\nlugged",8\n'),
        ("models.tsv", "model\tframe\tgears\nSwift\tcarbon\t22\nCity\tsteel, lugged\t8\n"),
        ("models2.csv", "model;frame;gears\nSwift;carbon;22\n\nCity;steel, lugged;8\n"),
    ],
)
def test_a_csv_or_tsv_an_include_selects_is_read_as_a_table(
    tmp_path, context, reports, name, content
):
    write(tmp_path, f"docs/{name}", content)
    [doc] = load(DirectoryLoader, context, "docs", include=["*.csv", "*.tsv"])
    lines = doc.text.splitlines()
    assert lines[:2] == ["| model | frame | gears |", "| --- | --- | --- |"]
    assert lines[2] == "| Swift | carbon | 22 |"
    assert lines[3].startswith("| City | steel,") and lines[3].endswith("| 8 |")
    assert (doc.metadata["rows"], doc.metadata["columns"]) == (2, 3)
    assert reports == []
    # not in the default include: data files are for the csv loader
    assert load(DirectoryLoader, context, "docs") == []


def test_a_ragged_or_unreadable_csv_still_loads(tmp_path, context, reports):
    write(tmp_path, "docs/ragged.csv", "a,b,c\n1\n2,3,4,5\n")
    write(tmp_path, "docs/huge.csv", 'a,b\n1,"' + "x" * 200_000 + '"\n')
    docs = {d.id: d for d in load(DirectoryLoader, context, "docs", include=["*.csv"])}
    assert docs["docs/ragged.csv"].text.splitlines()[2:] == ["| 1 |  |  |  |", "| 2 | 3 | 4 | 5 |"]
    assert docs["docs/huge.csv"].text.startswith("a,b\n1,")  # read as the plain text it is
    assert "not a readable table (field larger" in reports.message("docs/huge.csv")


# -- encodings -----------------------------------------------------------------------


FRENCH = "Le café est très bon. Où est la gare ? Ça va très bien, merci beaucoup. " * 4


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (FRENCH.encode("latin-1"), FRENCH),
        (FRENCH.encode("utf-16"), FRENCH),  # a BOM
        (b"\xef\xbb\xbf" + FRENCH.encode("utf-8"), FRENCH),
        ("Привет, как дела? Это документ на русском языке. ".encode("cp1251") * 4, None),
    ],
)
def test_auto_encoding(tmp_path, context, reports, data, text):
    write(tmp_path, "doc.txt", data)
    [doc] = load(FileLoader, context, "doc.txt")
    assert doc.text == (text if text is not None else data.decode("cp1251"))
    assert reports == []


def test_broken_utf8_is_reported_not_guessed(tmp_path, context, reports):
    write(tmp_path, "broken.txt", "Größe: 5 cm. ".encode() * 20 + b"\xff\xfe trailing text")
    assert load(FileLoader, context, "broken.txt") == []
    message = reports.message("broken.txt")
    assert message.startswith("could not decode: UTF-8 but for byte 0xff at offset 300")


def test_encoding_option_accepts_auto_and_rejects_unknown():
    assert FileLoader(path="a").config.encoding == "auto"
    assert DirectoryLoader(path="a", encoding="cp1252").config.encoding == "cp1252"
    with pytest.raises(ValidationError, match="use 'auto' or a Python codec name"):
        HtmlLoader(path="a", encoding="klingon")


# -- bad inputs in a full index run ------------------------------------------------------


def structured_plugin_manager(pm: pluggy.PluginManager) -> pluggy.PluginManager:
    """The built-ins, with the structured loaders registered if they are not yet."""
    registry = Registry.from_plugin_manager(pm)
    loaders = {
        "markdown": MarkdownLoader,
        "html": HtmlLoader,
        "pdf": PdfLoader,
        "code": CodeLoader,
    }
    missing = {name: cls for name, cls in loaders.items() if ("loader", name) not in registry}
    if missing:

        class StructuredLoaders:
            @hookimpl
            def register_loaders(self, register) -> None:
                for name, cls in missing.items():
                    register(name, cls)

        pm.register(StructuredLoaders(), name="test-structured-loaders")
    return pm


@needs_pypdf
def test_bad_inputs_each_give_one_report_line_and_the_run_goes_on(tmp_path, pm):
    corpus = tmp_path / "corpus"
    fixture(corpus, "manual.md")
    fixture(corpus, "page.html")
    fixture(corpus, "billing.py", "src/billing.py")
    fixture(corpus, "cart.js", "src/cart.js")
    write(corpus, "ops.pdf", make_pdf([PAGE_ONE, PAGE_TWO]))
    write(corpus, "logo.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    write(corpus, "legacy.txt", "naïve".encode("latin-1"))  # not UTF-8, too short to guess
    write(corpus, "empty.md", "")
    write(corpus, "scan.pdf", make_pdf([None, None]))
    with open(corpus / "huge.txt", "wb") as f:
        f.truncate(200 * 1024 * 1024)  # sparse: costs no disk
    write(tmp_path, "strict/ok.md", "# Strict\n\nUTF-8 only here.\n")
    write(tmp_path, "strict/latin.md", "# Café\n".encode("latin-1"))

    config = basic_config(
        loaders=[
            {"type": "directory", "path": "corpus"},
            {"type": "directory", "path": "strict", "encoding": "utf-8"},
        ]
    )
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        report = pipeline.index()
        hits = pipeline.retrieve("How many API keys does the Pro plan allow per project?")
    problems = dict(report.problems)
    assert len(report.problems) == len(problems) == 6  # one line per bad file
    assert sorted(problems) == [
        "corpus/empty.md",
        "corpus/huge.txt",
        "corpus/legacy.txt",
        "corpus/logo.md",
        "corpus/scan.pdf",
        "strict/latin.md",
    ]
    assert "binary file" in problems["corpus/logo.md"]
    assert problems["corpus/legacy.txt"].startswith("could not decode: not UTF-8")
    assert "empty file" in problems["corpus/empty.md"]
    assert "209715200 bytes, over max_file_size (10000000)" in problems["corpus/huge.txt"]
    assert "no text layer" in problems["corpus/scan.pdf"]
    assert "not valid utf-8" in problems["strict/latin.md"]
    assert sorted(report.added) == [
        "corpus/manual.md",
        "corpus/ops.pdf",
        "corpus/page.html",
        "corpus/src/billing.py",
        "corpus/src/cart.js",
        "strict/ok.md",
    ]
    assert report.chunks > 6
    assert hits and hits[0].chunk.source == "corpus/page.html"


@needs_pypdf
def test_structured_loaders_by_type_in_a_config(tmp_path, pm):
    pm = structured_plugin_manager(pm)
    fixture(tmp_path, "manual.md")
    fixture(tmp_path, "page.html")
    fixture(tmp_path, "cart.js")
    write(tmp_path, "ops.pdf", make_pdf([PAGE_ONE, PAGE_TWO]))
    config = basic_config(
        loaders=[
            {"type": "markdown", "path": "manual.md"},
            {"type": "html", "path": "page.html", "max_links": 2},
            {"type": "pdf", "path": "ops.pdf"},
            {"type": "code", "path": "cart.js"},
        ]
    )
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        report = pipeline.index()
        [hit] = pipeline.retrieve("restore a backup", k=1) or [None]
    assert report.problems == ()
    assert sorted(report.added) == ["cart.js", "manual.md", "ops.pdf", "page.html"]
    assert hit is not None and hit.chunk.source == "ops.pdf"


def test_html_layout_tables_read_as_blocks_data_tables_as_tables(tmp_path, context, reports):
    """Mail is laid out with tables: a newsletter became one table row
    ("Spring saleAll garden furniture"). A table whose cell holds a heading,
    a table or two paragraphs, or one marked role=presentation, is read as
    blocks; a data table with a paragraph in each cell (as wikis export
    them) stays a table."""
    write(
        tmp_path,
        "mail.html",
        "<html><body><table><tr><td><h1>Spring sale</h1><p>All garden furniture is 30% off.</p>"
        "</td></tr></table><table role='presentation'><tr><td>Unsubscribe</td></tr></table>"
        "<table><tr><th><p>Plan</p></th><th><p>Price</p></th></tr>"
        "<tr><td><p>Lite</p></td><td><p>$12</p></td></tr></table></body></html>",
    )
    [doc] = load(HtmlLoader, context, "mail.html")
    assert doc.text == (
        "# Spring sale\n\nAll garden furniture is 30% off.\n\nUnsubscribe\n\n"
        "| Plan | Price |\n| --- | --- |\n| Lite | $12 |\n"
    )


def test_html_data_cells_of_paragraphs_and_what_css_shows_again(tmp_path, context, reports):
    """A review found a table with two paragraphs in a cell (Word's "Save as
    HTML") read as loose paragraphs, the active tab of `.tab-pane` dropped,
    a box sized by its padding dropped, and a label hung 120px left dropped."""
    write(
        tmp_path,
        "p.html",
        "<html><head><style>.tab-pane{display:none} .tab-pane.active{display:block}</style>"
        "</head><body><table><tr><th>Plan</th><th>Notes</th></tr><tr><td><p>Pro</p></td>"
        "<td><p>Phone support</p><p>SLA 99.9%</p></td></tr></table>"
        '<div class="tab-pane active">ACTIVE-TAB</div>'
        '<div style="position:relative;height:0;padding-bottom:56.25%;overflow:hidden">'
        "ASPECT-CAPTION</div>"
        '<span style="position:absolute;left:-120px">MARGIN-NOTE</span></body></html>',
    )
    [doc] = load(HtmlLoader, context, "p.html")
    assert doc.text.startswith(
        "| Plan | Notes |\n| --- | --- |\n| Pro | Phone support SLA 99.9% |\n"
    )
    for shown in ("ACTIVE-TAB", "ASPECT-CAPTION", "MARGIN-NOTE"):
        assert shown in doc.text


def test_html_nested_past_any_real_page_is_skipped_before_parsing(tmp_path, context, reports):
    """200,000 nested <div>s (4 KB zipped in an EPUB page) took 88 s: the
    parser is quadratic in the depth. A page of <p>s and <li>s without end
    tags nests nothing and is read."""
    from ragloom.builtin.loaders.parsers import html as html_parser

    deep = html_parser.MAX_DEPTH + 1
    write(tmp_path, "deep.html", "<html><body>" + "<div>" * deep + "X" + "</div>" * deep)
    assert load(HtmlLoader, context, "deep.html") == []
    assert reports.message("deep.html").startswith("elements nested more than 5,000 deep")
    sloppy = "<html><body><ul>" + "<li><p>item" * (html_parser.MAX_DEPTH + 10) + "</ul>"
    write(tmp_path, "sloppy.html", sloppy)
    [doc] = load(HtmlLoader, context, "sloppy.html")
    assert doc.text.count("item") == html_parser.MAX_DEPTH + 10


def test_html_wiki_exports_lose_their_chrome_and_keep_bold_headers(tmp_path, context):
    """A trial's Confluence-style export (no ``<main>``): the sidebar's page
    tree ("Support is available 24/7 for every plan") and a cookie banner were
    quoted as answers; the bold first row of an old wiki's table was no header."""
    write(
        tmp_path,
        "wiki.html",
        "<html><body id='com-atlassian-confluence'>"
        "<div id='onetrust-banner-sdk'><p>Cookies are kept for 13 months.</p></div>"
        "<div id='header'><div class='quick-search'>Search this space</div></div>"
        "<ol class='aui-nav-breadcrumbs'><li>Support</li></ol>"
        "<div id='sidebar-container'><div class='acs-side-bar'>"
        "<h3>Space pages</h3><p>Support is available 24/7 for every plan.</p></div></div>"
        "<div id='main' class='aui-page-panel'>"
        "<div class='page-metadata'>Created by Ana, last updated today</div>"
        "<div id='main-content' class='wiki-content'><h1>Support hours</h1>"
        "<p>Phone support is for Business customers only.</p>"
        "<table><tr><td><b>Region</b></td><td><strong>Hours</strong></td></tr>"
        "<tr><td>EMEA</td><td>08:00-18:00</td></tr></table>"
        "<div class='toc'>Regional hours</div></div></div>"
        "<div id='footer'><section class='footer-body'>Powered by a wiki</section></div>"
        "</body></html>",
    )
    [doc] = load(HtmlLoader, context, "wiki.html")
    assert doc.text == (  # the footer lies outside #main-content, the page's body
        "# Support hours\n\nPhone support is for Business customers only.\n\n"
        "| Region | Hours |\n| --- | --- |\n| EMEA | 08:00-18:00 |\n"
    )


def test_html_main_content_is_the_body_of_a_page_without_main(tmp_path, context):
    """A trial's Confluence export: ``div.nav`` and ``div.footer`` around
    ``div#main-content`` were indexed, and "How do I log out?" was answered
    with the nav bar (trial 26, F8). Read as ``<main>``, but never an empty
    skip-link target nor a part of the page too small to be its body."""
    nav = "<div class='nav'>Home | HR | IT | Travel | Finance | Search | Log out</div>"
    # (longer than the page: chrome may outweigh a short page's body)
    notice = (
        "© 2026 Norrvik AB · Internal use only · Powered by Confluence · "
        "Report a problem with this page to the intranet team · Page history"
    )
    footer = f"<div class='footer'>{notice}</div>"
    body = "<h1>Austin office</h1><p>The Austin office is open from 08:30 to 17:30.</p>"
    pages = {
        "confluence.html": f"{nav}<div id='main-content' class='wiki-content'>{body}</div>{footer}",
        "skip.html": f"<a href='#maincontent'>Skip</a>{nav}<div id='maincontent'>{body}</div>",
        # the page's title above it, as Confluence exports it: read first
        "title.html": "<div id='title-heading'><h1 id='title-text'>Austin office</h1></div>"
        f"{nav}<div id='main-content'>{body.split('</h1>')[1]}</div>{footer}",
        # an empty anchor so named: the body is read, less the nav bar
        "anchor.html": f"{nav}<a id='main-content'></a>{body}{footer}",
        # a title alone so named, the content after it: the whole body
        "small.html": f"<div id='main-content'><h1>Austin</h1></div><p>{'Open daily. ' * 9}</p>",
    }
    texts = {}
    for name, page in pages.items():
        write(tmp_path, name, f"<html><head><title>T</title></head><body>{page}</body></html>")
        [doc] = load(HtmlLoader, context, name)
        texts[name] = doc.text
    expected = "# Austin office\n\nThe Austin office is open from 08:30 to 17:30.\n"
    assert texts["confluence.html"] == expected
    assert texts["skip.html"] == expected
    assert texts["title.html"] == expected.replace("office\n", "office {#title-text}\n", 1)
    assert texts["anchor.html"] == f"{expected}\n{notice}\n"
    assert texts["small.html"].startswith("# Austin\n\nOpen daily.")


def test_html_a_skip_link_target_holding_the_intro_does_not_drop_the_page(tmp_path, context):
    """A review found the rest of a page dropped without a word: the skip
    link's ``#main-content`` on the intro, the body in a sibling (M2). Such
    an element is read alone only when it holds four fifths of the text
    outside the page's header and footer; else the whole body is read."""
    header = "<div class='header'><a href='#main-content'>Skip to content</a> Acme Intranet</div>"
    intro = (
        "<h1>Expense policy</h1><p>This page explains how to claim expenses for travel, meals "
        "and equipment at Acme, who approves them, and which receipts you need to keep for "
        "the auditors.</p>"
    )
    rest = (
        "<h2>Limits</h2><p>Hotels up to EUR 180 per night. Meals up to EUR 60 per day. "
        "Equipment above EUR 500 needs approval.</p>"
        "<h2>Receipts</h2><p>Upload every receipt within 30 days.</p>"
    )
    pages = {
        "intro.html": f"{header}<div id='main-content'>{intro}</div>"
        f"<div class='page-body'>{rest}</div>",
        # the intro longer than all that follows it: still not the page's body
        "long.html": f"{header}<div id='main-content'>{intro}{intro.split('</h1>')[1]}</div>"
        f"<div class='page-body'>{rest}</div>",
    }
    for name, page in pages.items():
        write(tmp_path, name, f"<html><body>{page}</body></html>")
        [doc] = load(HtmlLoader, context, name)
        assert "# Expense policy" in doc.text and "who approves them" in doc.text
        assert "## Limits" in doc.text and "Upload every receipt within 30 days." in doc.text


def test_html_a_bootstrap_tab_bar_is_content(tmp_path, context):
    """A review found a page's tab labels dropped as a ``.nav`` (L3): "Run
    apt install" and "Run brew install" said nothing of which is for Linux.
    A ``.nav`` that is a tab bar (``nav-tabs``, ``nav-pills``,
    ``role=tablist``, or a ``.tab-content`` after it) is read; another
    ``.nav`` outside the content is still chrome."""
    panes = (
        "<div class='tab-content'><div id='linux'><p>Run apt install acme-client.</p></div>"
        "<div id='mac'><p>Run brew install acme-client.</p></div></div>"
    )
    labels = "<li><a href='#linux'>Linux</a></li><li><a href='#mac'>macOS</a></li>"
    bars = {
        "tabs.html": f"<ul class='nav nav-tabs'>{labels}</ul>",
        "pills.html": f"<ul class='nav nav-pills'>{labels}</ul>",
        "tablist.html": f"<ul class='nav' role='tablist'>{labels}</ul>",
        "before.html": f"<ul class='nav'>{labels}</ul>\n<!-- panes -->\n",
    }
    menu = "<div class='nav'>Home | Docs | Log out</div>"
    for name, bar in bars.items():
        write(tmp_path, name, f"<html><body>{menu}<h1>Install</h1>{bar}{panes}</body></html>")
        [doc] = load(HtmlLoader, context, name)
        assert doc.text == (
            "# Install\n\n- Linux\n- macOS\n\nRun apt install acme-client.\n\n"
            "Run brew install acme-client.\n"
        ), name


def test_html_pages_without_main_content_are_not_measured(tmp_path, context, monkeypatch):
    """The body's text is measured (a pass over the whole page) only where
    a chrome element or a ``#main-content`` needs it: a page with neither
    was some 20 % slower to parse for it (review, L4)."""
    from ragloom.builtin.loaders.parsers import html as html_parser

    measured = []
    text = html_parser._text

    def counted(node):
        if node is not None and node.tag == "body":
            measured.append(node)
        return text(node)

    monkeypatch.setattr(html_parser, "_text", counted)
    write(tmp_path, "plain.html", "<html><body><h1>Hours</h1><p>Open 9-17.</p></body></html>")
    [doc] = load(HtmlLoader, context, "plain.html")
    assert doc.text == "# Hours\n\nOpen 9-17.\n" and measured == []


def test_html_chrome_names_never_take_the_pages_content(tmp_path, context):
    """A review found pages emptied: a restaurant's ``div#menu``, a layout's
    ``with-sidebar`` wrapper holding everything, a card's footer price, a
    table's total row."""
    write(
        tmp_path,
        "luigi.html",
        "<html><head><title>Luigi's</title></head><body><div id='header'><h1>Luigi's</h1></div>"
        "<div id='menu'><h2>Mains</h2><p>Spaghetti carbonara costs 14 euros.</p></div>"
        "<div class='footer'><p>Open Tuesday to Sunday, 12:00 to 23:00.</p></div></body></html>",
    )
    write(
        tmp_path,
        "layout.html",
        "<html><body><div class='sidebar'><div class='content'><h1>Refunds</h1>"
        "<p>Annual plans are refunded within 30 days of purchase, in full.</p>"
        "<div class='card'><p>Gold</p><div class='card-footer'>49 dollars a month.</div></div>"
        "<table><tr><td>Platinum</td><td>900</td></tr>"
        "<tr class='table-footer'><td>Total</td><td>990 dollars</td></tr></table>"
        "</div></div><p>Short note.</p></body></html>",
    )
    [luigi] = load(HtmlLoader, context, "luigi.html")
    assert luigi.text == (
        "## Mains\n\nSpaghetti carbonara costs 14 euros.\n\n"
        "Open Tuesday to Sunday, 12:00 to 23:00.\n"
    )
    [layout] = load(HtmlLoader, context, "layout.html")
    for kept in ("Annual plans are refunded", "49 dollars a month.", "| Total | 990 dollars |"):
        assert kept in layout.text


def test_html_content_keeps_its_own_footer_toc_and_card_footer(tmp_path, context):
    """Inside ``<main>`` or ``<article>`` a ``footer`` class, a ``toc`` or a
    ``card-footer`` is the content's own; a row of bold words among normal
    ones is no header."""
    write(
        tmp_path,
        "page.html",
        "<html><body><main><h1>Plans</h1><div class='toc'>On this page: Plans</div>"
        "<div class='card'><p>Team costs $12.</p>"
        "<div class='card-footer'>Billed yearly.</div></div>"
        "<p class='footer'>Prices exclude VAT.</p>"
        "<table><tr><td><b>Team</b> plan</td><td>$12</td></tr><tr><td>Pro</td><td>$29</td></tr>"
        "</table></main><div class='site-footer'>© Acme</div></body></html>",
    )
    [doc] = load(HtmlLoader, context, "page.html")
    assert doc.text == (
        "# Plans\n\nOn this page: Plans\n\nTeam costs $12.\n\nBilled yearly.\n\n"
        "Prices exclude VAT.\n\n| Team plan | $12 |\n| Pro | $29 |\n"
    )


def test_html_help_center_chrome_is_dropped(tmp_path, context):
    """A trial's help-centre export: each page's "Related articles" list,
    all the same, ranked above the warranty page for "warranty cast iron"
    and was quoted as the answer (trial 27, F4); votes, article meta and
    an upsell block were indexed too. The widgets that help-centre themes
    put around an article are dropped, inside ``<main>`` and ``<article>``
    too, and the article is kept."""
    article = (
        "<h1>Skillet 28 cm</h1><div class='article-meta'>Updated 3 months ago · 4 min read</div>"
        "<div class='article-body'><p>Our skillet is pre-seasoned.</p>"
        "<div class='upsell'><h3>Customers also bought</h3><ul><li>Glass lid – $19</li></ul></div>"
        "</div>"
        "<div class='article-votes'><span>Was this article helpful?</span><button>Yes</button>"
        "<span class='article-votes-count'>112 out of 130 found this helpful</span></div>"
        "<div class='article-more-questions'>Have more questions? <a href='/new'>Ask us</a></div>"
        "<footer><div class='article-footer'><div class='article-share'>Share: "
        "<a href='/fb'>Facebook</a></div></div></footer>"
    )
    related = (
        "<section class='related-articles'><h3>Related articles</h3><ul>"
        "<li><a href='/a/1'>Returns policy</a></li><li><a href='/a/4'>Caring for cast iron</a></li>"
        "</ul></section><section class='recent-articles'><h3>Recently viewed articles</h3>"
        "<ul><li><a href='/a/9'>Gift cards</a></li></ul></section>"
    )
    expected = "# Skillet 28 cm\n\nOur skillet is pre-seasoned.\n"
    pages = {
        # Zendesk Guide: the lists inside <main>, after the <article>
        "zendesk.html": f"<main><article class='article'>{article}</article>{related}</main>",
        # the lists inside the <article>, after the body
        "inside.html": f"<main><article>{article}{related}</article></main>",
        # no body marker: a link list is chrome anywhere; a sidebar of links in <main>
        "bare.html": "<main><aside class='article-sidebar'><h3>In this section</h3><ul>"
        "<li><a href='/a/2'>Shipping FAQ</a></li></ul></aside>"
        f"<article>{article.replace('article-body', 'x')}</article>{related}</main>",
        # Help Scout Docs and a WordPress theme
        "helpscout.html": "<div id='contentArea'><article id='fullArticle'><h1>Skillet 28 cm</h1>"
        "<p>Our skillet is pre-seasoned.</p></article><div class='articleRatings'>"
        "Was this article helpful?</div><section class='articleFoot'><p>Last updated on "
        "May 2, 2026</p></section><section class='related'><h3>Related Articles</h3><ul>"
        "<li><a href='/a/1'>Returns policy</a></li></ul></section></div>",
        "wordpress.html": "<main><article><h1>Skillet 28 cm</h1><div class='entry-meta'>Posted "
        "on May 2 by admin</div><div class='entry-content'><p>Our skillet is pre-seasoned.</p>"
        "<div class='sharedaddy'>Share this: <a href='/x'>X</a></div></div><div class='feedback'>"
        "Did this answer your question? 😀 😐</div><div class='social'>Follow us on Mastodon"
        "</div><footer class='entry-footer'>Posted in Cookware</footer></article>"
        "<div id='comments' class='comments-area'><h2>2 comments</h2><p>Ann: mine rusted, "
        "use it with vinegar.</p></div><nav class='post-navigation'>Previous post</nav></main>",
    }
    for name, page in pages.items():
        write(tmp_path, name, f"<html><body>{page}</body></html>")
        [doc] = load(HtmlLoader, context, name)
        assert doc.text == expected, name


def test_html_related_sections_and_link_lists_of_the_content_are_kept(tmp_path, context):
    """What a help centre's chrome is named is content elsewhere: a "See
    also" or "Related" section with prose in the article's body, an
    ``<aside>`` of links there, a page that is a list of links (an index),
    an article about feedback. They are kept."""
    pages = {
        "see-also.html": "<main><article><h1>Returns</h1><div class='article-body'>"
        "<p>Send it back within 30 days.</p><div class='see-also related-articles'>"
        "<h2>See also</h2><p>Damaged items follow the <a href='/damaged'>damage policy</a>,"
        " which refunds the shipping too.</p></div><aside><ul><li><a href='/w'>Warranty</a>"
        "</li></ul></aside><div class='related'><a href='/x'>Exchanges</a></div></div>"
        "<div class='article-votes'>Was this helpful?</div></article></main>",
        # an index: the whole page a list of links, even in a list so named
        "index.html": "<main><h1>Shipping</h1><ul><li><a href='/rates'>Shipping rates</a></li>"
        "<li><a href='/intl'>International shipping</a></li></ul></main>",
        "listed.html": "<main><div class='related-articles'><h1>All articles</h1><ul>"
        "<li><a href='/rates'>Shipping rates</a></li><li><a href='/intl'>International "
        "shipping</a></li></ul></div></main><div class='social'>Follow us</div>",
        # an article about feedback, its wrapper so named
        "feedback.html": "<div class='page feedback'><h1>Sending us feedback</h1><p>Write to "
        "feedback@example.com; we answer within two days.</p></div>",
        "feedback-main.html": "<main class='feedback'><h1>Feedback</h1><p>We read it all.</p>"
        "<section class='feedback'><h2>Surveys</h2><p>We send one survey a year.</p>"
        "</section></main>",
        # a page with no body to be outside of (mail, an EPUB chapter)
        "mail.html": "<table role='presentation'><tr><td><p>Your order shipped.</p>"
        "<p class='helpful'>Helpful tip: preheat the pan.</p></td></tr></table>",
    }
    texts = {}
    for name, page in pages.items():
        write(tmp_path, name, f"<html><body>{page}</body></html>")
        [doc] = load(HtmlLoader, context, name)
        texts[name] = doc.text
    assert texts["see-also.html"] == (
        "# Returns\n\nSend it back within 30 days.\n\n## See also\n\nDamaged items follow the "
        "damage policy, which refunds the shipping too.\n\n- Warranty\n\nExchanges\n"
    )
    assert texts["index.html"] == "# Shipping\n\n- Shipping rates\n- International shipping\n"
    assert texts["listed.html"] == "# All articles\n\n- Shipping rates\n- International shipping\n"
    assert texts["feedback.html"] == (
        "# Sending us feedback\n\nWrite to feedback@example.com; we answer within two days.\n"
    )
    assert texts["feedback-main.html"] == (
        "# Feedback\n\nWe read it all.\n\n## Surveys\n\nWe send one survey a year.\n"
    )
    assert texts["mail.html"] == "Your order shipped.\n\nHelpful tip: preheat the pan.\n"


def test_html_a_body_marker_that_holds_little_of_the_page_is_no_body(tmp_path, context):
    """A teaser card classed ``post-content`` in ``<main>`` was taken as the
    article's body: the page's own sections, with the ids a docs generator
    gives them from their titles (``see-also``, ``feedback``), were then
    outside it and dropped, and the teaser stayed. A body marker (or an
    ``<article>``) is the body only when it holds most of the page's text
    outside its frame and widgets; a section of prose so named is kept
    outside a body too, a comments section of questions and answers in the
    ``<article>`` and an ``<aside>`` callout of one link in ``<main>``."""
    pad = "<p>" + "Every record is stored in three regions and replicated within seconds. " * 6
    pad += "</p>"
    pages = {
        "teaser.html": f"<main><h1>Webhooks</h1>{pad}<section id='see-also'><h2>See also</h2>"
        "<p>Webhook retries use exponential backoff: 5 attempts over 24 hours.</p></section>"
        "<section id='feedback'><h2>Feedback</h2><p>Send the X-Feedback header to rate a "
        "delivery.</p></section><div class='card'><div class='post-content'><p>Latest: we "
        "moved.</p></div></div></main>",
        # an <article> card in <main> is no body either
        "card.html": f"<main><h1>Webhooks</h1>{pad}<div class='share'><a href='/x'>X</a> "
        "<a href='/y'>Y</a></div><article><p>Latest: we moved.</p></article></main>",
        "comments.html": f"<main><article><div class='entry-content'><h1>Ask the vet</h1>{pad}"
        "</div><section class='comments'><h2>Questions and answers</h2><p>Q: Can dogs eat "
        "grapes? A: No, grapes are toxic to dogs.</p></section><div class='feedback'>Did this "
        "answer your question?</div></article></main>",
        "callout.html": f"<main><article><div class='markdown'><h1>Upgrade</h1>{pad}</div>"
        "</article><aside class='theme-admonition'><p><a href='/migrate'>Read the v3 migration "
        "guide before upgrading</a></p></aside><aside><h3>In this section</h3><ul><li>"
        "<a href='/a'>Install</a></li></ul></aside></main>",
        # a list of other posts so named outside the body: chrome, excerpts and all
        "jetpack.html": f"<main><article><div class='entry-content'><h1>Skillets</h1>{pad}"
        "</div></article><div id='jp-relatedposts'><h3>Related</h3><p><a href='/c'>Cleaning"
        "</a> Cast iron needs a little care after each use, and a thin coat of oil.</p></div>"
        "</main>",
        # several bodies (a blog's index of excerpts): together they are the body
        "excerpts.html": "<main><h1>Blog</h1>"
        + "".join(
            f"<article><h2>Post {n}</h2><div class='post-content'>{pad}</div></article>"
            for n in (1, 2)
        )
        + "<div class='related'><h3>Related</h3><ul><li><a href='/a'>Old post</a></li></ul>"
        "</div><div class='social'>Follow us on Mastodon</div></main>",
    }
    texts = {}
    for name, page in pages.items():
        write(tmp_path, name, f"<html><body>{page}</body></html>")
        [doc] = load(HtmlLoader, context, name)
        texts[name] = doc.text.replace(pad[3:-4].strip(), "[PAD]")
    assert texts["teaser.html"] == (
        "# Webhooks\n\n[PAD]\n\n## See also\n\nWebhook retries use exponential "
        "backoff: 5 attempts over 24 hours.\n\n## Feedback\n\nSend the X-Feedback "
        "header to rate a delivery.\n\nLatest: we moved.\n"
    )
    assert texts["card.html"] == "# Webhooks\n\n[PAD]\n\nX Y\n\nLatest: we moved.\n"
    assert texts["comments.html"] == (
        "# Ask the vet\n\n[PAD]\n\n## Questions and answers\n\nQ: Can dogs eat grapes? "
        "A: No, grapes are toxic to dogs.\n"
    )
    assert texts["callout.html"] == (
        "# Upgrade\n\n[PAD]\n\nRead the v3 migration guide before upgrading\n"
    )
    assert texts["jetpack.html"] == "# Skillets\n\n[PAD]\n"
    assert texts["excerpts.html"] == "# Blog\n\n## Post 1\n\n[PAD]\n\n## Post 2\n\n[PAD]\n"


def test_html_headings_are_cited_by_the_ids_the_page_has(tmp_path, context):
    """A wiki's ``<h2 id="SupportHours-Regionalhours">`` was cited as
    ``#regional-hours``, which the page does not have: a browser opened it at
    the top. A heading without an id, or with one no anchor can hold, keeps
    its slug."""
    write(
        tmp_path,
        "hours.html",
        "<html><body><main><h1 id='title-text'>Support hours</h1><p>Intro.</p>"
        "<h2 id='SupportHours-Regionalhours'>Regional hours</h2><p>EMEA 08:00.</p>"
        "<h2 id='two words'>Public holidays</h2><p>Routed west.</p>"
        "<h2>Contact</h2><p>Call us.</p>"
        "<h3 id='x'>Phone</h3><p>Ring us.</p><h3 id='x'>Mail</h3><p>Write to us.</p>"
        "</main></body></html>",
    )
    [doc] = load(HtmlLoader, context, "hours.html")
    assert "{#x}" not in doc.text  # two headings share it: each keeps its own slug
    assert "## Regional hours {#SupportHours-Regionalhours}\n" in doc.text
    find = section_finder(doc.text)
    assert find(doc.text.index("EMEA")) == (
        "Support hours > Regional hours",
        "SupportHours-Regionalhours",
    )
    assert find(doc.text.index("Routed")) == ("Support hours > Public holidays", "public-holidays")
    assert find(doc.text.index("Call us")) == ("Support hours > Contact", "contact")
    assert doc.metadata["title"] == "Support hours"


def test_html_a_bold_first_row_with_an_empty_corner_is_a_header(tmp_path, context):
    write(
        tmp_path,
        "plans.html",
        "<html><body><main><table><tr><td></td><td><b>Free</b></td><td><b>Pro</b></td></tr>"
        "<tr><td>SSO</td><td>No</td><td>Yes</td></tr></table></main></body></html>",
    )
    [doc] = load(HtmlLoader, context, "plans.html")
    assert doc.text == "|  | Free | Pro |\n| --- | --- | --- |\n| SSO | No | Yes |\n"
