"""The built-in ``file`` and ``directory`` loaders, on real files under ``tmp_path``."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError
from ragloom.builtin.loaders._read import read_document
from ragloom.builtin.loaders.directory import DirectoryLoader, compile_glob
from ragloom.builtin.loaders.file import FileLoader
from ragloom.components import Context
from ragloom.errors import SourceUnavailableError
from ragloom.types import content_hash


class Reports(list):
    """Collects ``context.report`` calls as ``(source, message)`` pairs."""

    def __call__(self, source: str, message: str) -> None:
        self.append((source, message))

    def sources(self) -> list[str]:
        return [source for source, _ in self]

    def message(self, source: str) -> str:
        return next(message for s, message in self if s == source)


@pytest.fixture
def reports() -> Reports:
    return Reports()


@pytest.fixture
def context(tmp_path: Path, reports: Reports) -> Context:
    return Context(base_dir=tmp_path, report=reports, index_dir=tmp_path / ".ragloom")


def write(root: Path, relative: str, content: str | bytes = "text\n") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_bytes(content.encode("utf-8"))
    return path


def symlink(link: Path, target: Path) -> None:
    try:
        link.symlink_to(target, target_is_directory=target.is_dir())
    except (OSError, NotImplementedError) as exc:  # Windows without developer mode
        pytest.skip(f"cannot create symlinks here: {exc}")


def load_dir(context: Context, path: str = ".", **options: object) -> list:
    loader = DirectoryLoader(path=path, **options)
    loader.open(context)
    return list(loader.load())


def ids(documents: list) -> list[str]:
    return [d.id for d in documents]


# -- file loader -------------------------------------------------------------


def test_file_loader_document_and_metadata(tmp_path: Path, context: Context, reports: Reports):
    path = write(tmp_path, "docs/guide.md", "Intro line\n\n# Getting Started\n\nBody.\n")
    loader = FileLoader(path="docs/guide.md", metadata={"team": "support", "tags": ["a", "b"]})
    loader.open(context)
    [doc] = list(loader.load())
    info = path.stat()
    assert doc.id == "docs/guide.md"
    assert doc.text == "Intro line\n\n# Getting Started\n\nBody.\n"
    assert dict(doc.metadata) == {
        "source": "docs/guide.md",
        "path": str(path),
        "mtime": info.st_mtime,
        "size": info.st_size,
        "content_hash": content_hash(doc.text),
        "extension": ".md",
        "title": "Getting Started",
        "team": "support",
        "tags": ["a", "b"],
    }
    assert isinstance(doc.metadata["mtime"], float)
    assert Path(doc.metadata["path"]).is_absolute()
    assert doc.source == "docs/guide.md"
    assert reports == []


def test_file_loader_absolute_path_inside_base_dir_gets_relative_id(tmp_path, context):
    write(tmp_path, "a/b/c.txt", "hello")
    loader = FileLoader(path=str(tmp_path / "a" / "b" / ".." / "b" / "c.txt"))
    loader.open(context)
    [doc] = loader.load()
    assert doc.id == "a/b/c.txt"
    assert doc.metadata["title"] == "c"
    assert doc.metadata["extension"] == ".txt"


def test_file_loader_outside_base_dir_uses_absolute_posix_id(tmp_path, reports):
    outside = write(tmp_path, "outside/notes.txt", "hello")
    base = tmp_path / "project"
    base.mkdir()
    loader = FileLoader(path=str(outside))
    loader.open(Context(base_dir=base, report=reports))
    [doc] = loader.load()
    assert doc.id == outside.as_posix()
    assert doc.metadata["source"] == doc.id
    assert "\\" not in doc.id


@pytest.mark.parametrize(
    ("name", "text", "title"),
    [
        ("plain.md", "no heading here\n", "plain"),
        ("notes.txt", "# Not markdown\n", "notes"),
        ("closing.md", "## Sub\n# Main Title ##\n", "Main Title"),
        ("fenced.md", "```\n# comment in code\n```\n# Real\n", "Real"),
        (
            "front.md",
            "---\nauthor: x\n# not a heading\n---\n# After Front Matter\n",
            "After Front Matter",
        ),
        ("front-title.md", "---\ntitle: From Front\n---\n# Heading\n", "From Front"),
        ("setext.md", "Intro\n\nSetext Title\n============\n", "Setext Title"),
        ("hashtag.md", "#hashtag\n# Proper\n", "Proper"),
        ("long.markdown", "  # Indented Title\n", "Indented Title"),
    ],
)
def test_file_loader_title(tmp_path, context, name, text, title):
    write(tmp_path, name, text)
    [doc] = _load_file(context, name)
    assert doc.metadata["title"] == title


def _load_file(context: Context, path: str, **options: object) -> list:
    loader = FileLoader(path=path, **options)
    loader.open(context)
    return list(loader.load())


def test_file_loader_metadata_may_override_title(tmp_path, context):
    write(tmp_path, "a.md", "# Heading\n")
    [doc] = _load_file(context, "a.md", metadata={"title": "Custom"})
    assert doc.metadata["title"] == "Custom"


@pytest.mark.parametrize(
    ("text", "marked"),
    [
        ("# Travel Policy 2024\n\nStatus: superseded.\n\nTrips need approval.\n", True),
        ('# Legacy\n\n!!! danger "Deprecated"\n    This page describes 1.x.\n', True),
        ("# Old API\n\n**Deprecated:** use the v2 API.\n", True),
        ("# Guide\n\nThis page is no longer maintained; see the wiki.\n", True),
        ("# Policy\n\nThis policy has been replaced by the 2026 Travel Policy.\n", True),
        ("---\nstatus: Superseded\n---\n# Policy\n\nTrips need approval.\n", True),
        ("---\ndeprecated: false\n---\n# Policy\n\nStatus: superseded.\n", False),
        # a changelog's change type, a page about deprecations, one that replaces another
        ("# Changelog\n\n## [1.2.0]\n\n### Deprecated\n\n- the old flag\n", None),
        ("# Deprecations\n\nThis page lists the deprecated settings.\n", None),
        ("# Settings\n\nThe `foo` setting is deprecated; use `bar`.\n", None),
        ("# Travel Policy 2026\n\nThis policy replaces the 2024 Travel Policy.\n", None),
        ("# Guide\n\n" + "Text. " * 150 + "\n\nThis page is no longer maintained.\n", None),
        # the ways an ADR says it was replaced
        ("# ADR 3: Use Postgres\n\n## Status\n\nSuperseded by [ADR 7](0007.md)\n", True),
        ("# ADR 3: Use Postgres\n\nStatus: Superseded by ADR 0007\n\nWe need a DB.\n", True),
        ("---\nstatus: Superseded by ADR-0007\n---\n# ADR 3\n\nWe need a DB.\n", True),
        ('---\ndeprecated: "false"\n---\n# Policy\n\nStatus: superseded.\n', False),
        ("---\ndeprecated: 2024-05-01\n---\n# Policy\n\nTrips need approval.\n", True),
        ("# Old guide\n\n:::caution Deprecated\nUse the new guide.\n:::\n", True),
        # a mark of one item of a current page is none of the page's
        ("# Changelog\n\n## 2.0.0\n\n**Deprecated**\n\n- `foo()`: use `bar()`.\n", None),
        ("# Release notes\n\nDeprecated: the `--old` flag; use `--new`.\n", None),
        ("# API\n\n**Deprecated:** `GET /v1/users/{id}/avatar`; use the new route.\n", None),
        ('# Config\n\n!!! warning "Deprecated"\n    The `legacy_mode` key goes in 3.0.\n', None),
        ("# Projects\n\nArchived\n\n- Project Apollo\n\nActive\n\n- Project Zeus\n", None),
        ("# Leave\n\nThis policy is no longer applicable to contractors.\n", None),
        ("# Holidays\n\nThis information is no longer current after 31 December.\n", None),
        # a title that says the page's state after its subject, a page about the old thing
        ("# v1 API (deprecated)\n\nDeprecated: the v1 API was deprecated in 2025.\n", True),
        ("# Travel policy 2023 — superseded\n\nTrips need approval.\n", True),
        ("# v1 API\n\nThis page describes the deprecated v1 API. Use v2.\n", True),
        ("# Deprecated features\n\nThe `--old` flag is deprecated.\n", None),
        # a benefit retired, a project archived, a migration guide: current pages
        ("# Health benefits (retired)\n\nThe gym benefit ended in 2024.\n", None),
        ("# Projects | Archived\n\n- Apollo\n", None),
        ("# Foo - Archived\n\nFoo is a tool.\n", None),
        ("# Fields\n\nThis page describes the deprecated fields and how to replace them.\n", None),
        # a discontinued product's page is still the truth about it
        ("# Fry Pan 26 cm (TT-26-NS)\n\nStatus: discontinued\n\nIt is replaced by TT-28.\n", None),
        ("---\nstatus: discontinued\n---\n# Fry Pan 26 cm\n\nIts coating is PTFE.\n", None),
    ],
)
def test_a_page_that_says_it_was_replaced_is_marked_deprecated(tmp_path, context, text, marked):
    """At its top, where a reader sees it (module ``_deprecated``); the
    front matter's own ``deprecated`` wins."""
    write(tmp_path, "page.md", text)
    [doc] = _load_file(context, "page.md")
    assert doc.metadata.get("deprecated") is marked


def test_file_loader_normalises_newlines_and_bom(tmp_path, context):
    write(tmp_path, "crlf.txt", b"\xef\xbb\xbfone\r\ntwo\rthree\n")
    [doc] = _load_file(context, "crlf.txt")
    assert doc.text == "one\ntwo\nthree\n"
    assert doc.metadata["content_hash"] == content_hash("one\ntwo\nthree\n")


def test_file_loader_missing_path_is_an_unavailable_source(context):
    # the config names the file: its absence must not delete its document silently
    with pytest.raises(SourceUnavailableError, match="nope/missing.md: file not found"):
        _load_file(context, "nope/missing.md")


def test_file_loader_directory_is_an_unavailable_source(tmp_path, context):
    (tmp_path / "docs").mkdir()
    with pytest.raises(SourceUnavailableError, match="type: directory"):
        _load_file(context, "docs")


def test_file_loader_invalid_utf8_is_reported(tmp_path, context, reports):
    write(tmp_path, "latin.txt", "café".encode("latin-1"))
    assert _load_file(context, "latin.txt", encoding="utf-8") == []
    message = reports.message("latin.txt")
    assert "not valid utf-8" in message
    assert "encoding" in message
    reports.clear()
    # auto (the default): four bytes are too few for a confident guess
    assert _load_file(context, "latin.txt") == []
    assert reports.message("latin.txt").startswith("could not decode: not UTF-8")
    [doc] = _load_file(context, "latin.txt", encoding="latin-1")
    assert doc.text == "café"


def test_file_loader_binary_is_reported(tmp_path, context, reports):
    write(tmp_path, "image.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert _load_file(context, "image.md") == []
    assert "binary" in reports.message("image.md")


def test_utf16_file_is_not_mistaken_for_binary(tmp_path, context, reports):
    write(tmp_path, "wide.txt", "hello wide world".encode("utf-16"))
    [doc] = _load_file(context, "wide.txt", encoding="utf-16")
    assert doc.text == "hello wide world"
    assert reports == []


@pytest.mark.parametrize("content", ["", "  \n\t\n"])
def test_empty_file_is_reported_and_skipped(tmp_path, context, reports, content):
    write(tmp_path, "empty.md", content)
    assert _load_file(context, "empty.md") == []
    assert "empty file" in reports.message("empty.md")


def test_read_error_is_reported(tmp_path, context, reports, monkeypatch):
    write(tmp_path, "locked.txt", "secret")

    def refuse(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", refuse)
    assert _load_file(context, "locked.txt") == []
    assert "cannot read file: Permission denied" in reports.message("locked.txt")


def test_read_document_respects_max_size(tmp_path, context, reports):
    path = write(tmp_path, "big.txt", "x" * 100)
    assert read_document(path, context=context, max_size=99) is None
    assert "max_file_size" in reports.message("big.txt")
    assert read_document(path, context=context, max_size=100) is not None


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"metadata": {"source": "x"}}, "set by the loader"),
        ({"metadata": {"nested": {"a": 1}}}, "string, number"),
        ({"encoding": "klingon-8"}, "unknown encoding"),
        ({"recursive": True}, "recursive"),
    ],
)
def test_file_loader_config_is_validated(options, fragment):
    with pytest.raises(ValidationError, match=fragment):
        FileLoader(path="a.md", **options)


def test_file_loader_with_sources(tmp_path, context):
    write(tmp_path, "docs/a.md", "# A\n")
    loader = FileLoader(path="docs/a.md")
    loader.open(context)
    assert loader.with_sources(["docs/a.md"]) is loader
    assert loader.with_sources([str(tmp_path / "docs" / "a.md")]) is loader
    assert loader.with_sources(["docs"]) is loader
    assert loader.with_sources(["."]) is loader
    assert loader.with_sources(["docs/b.md", "other"]) is None
    assert loader.with_sources([]) is None


# -- directory loader: ids, order, metadata ----------------------------------


def test_directory_ids_are_stable_and_sorted(tmp_path, context, reports):
    for name in ["b.md", "a.txt", "sub/z.md", "sub/deeper/c.rst", "a/x.markdown"]:
        write(tmp_path, f"docs/{name}", f"content of {name}\n")
    first = load_dir(context, "docs")
    second = load_dir(context, str(tmp_path / "docs"))
    assert ids(first) == [
        "docs/a/x.markdown",
        "docs/a.txt",
        "docs/b.md",
        "docs/sub/deeper/c.rst",
        "docs/sub/z.md",
    ]
    assert ids(second) == ids(first)
    assert [d.hash for d in second] == [d.hash for d in first]
    assert reports == []


@contextlib.contextmanager
def nested(top: Path, depth: int, bottom: str) -> Iterator[None]:
    """``top/d/d/.../d``, ``depth`` folders deep, with the file ``bottom`` in
    the last, made and removed a folder at a time through descriptors: the
    path may be longer than the system lets one name, and ``os.makedirs`` and
    ``shutil.rmtree`` (pytest's cleanup, before Python 3.13) recurse once a
    folder, past Python's recursion limit."""
    if os.mkdir not in os.supports_dir_fd:
        pytest.skip("needs os.mkdir(dir_fd=...) to nest folders past the path limit (not Windows)")
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        file = os.open(bottom, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(file, b"# Bottom\n\nat the bottom\n")
        os.close(file)
        yield
    finally:  # back up from the deepest folder made, removing each on the way
        with contextlib.suppress(FileNotFoundError):
            os.unlink(bottom, dir_fd=fd)
        while not os.path.samestat(os.fstat(fd), os.stat(top)):
            outer = os.open("..", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = outer
            os.rmdir("d", dir_fd=fd)
        os.close(fd)


def test_a_folder_nested_over_a_thousand_deep_is_walked(tmp_path, context, reports):
    # a runaway build tool or a backup copied into itself: the recursive walk
    # stopped the whole loader with RecursionError, past ~1000 folders
    write(tmp_path, "docs/top.md", "# Top\n\nat the top\n")
    with nested(tmp_path / "docs", 1200, "bottom.md"):
        got = load_dir(context, "docs")
    assert ids(got) == ["docs/" + "d/" * 1200 + "bottom.md", "docs/top.md"]
    assert got[0].metadata["relative_path"] == "d/" * 1200 + "bottom.md"
    assert reports == []


def test_a_folder_nested_past_the_path_limit_is_noted_and_the_rest_loaded(tmp_path, reports):
    kept: list[str] = []
    context = Context(base_dir=tmp_path, report=reports, keep=kept.append)
    write(tmp_path, "docs/top.md", "# Top\n\nat the top\n")
    depth = 2100  # "d/" a folder: 4200 bytes, past Linux's 4096 (and macOS's 1024)
    with nested(tmp_path / "docs", depth, "bottom.md"):
        got = load_dir(context, "docs")
    assert ids(got) == ["docs/top.md"]
    [(source, message)] = reports
    assert kept == [source] and source.startswith("docs/d/d/") and source.endswith("/d")
    assert "longer than the system allows; move it nearer the root or `exclude` it" in message
    assert "permissions" not in message


def test_directory_metadata(tmp_path, context):
    path = write(tmp_path, "docs/guides/setup.md", "# Setup\n\nSteps.\n")
    [doc] = load_dir(context, "docs", metadata={"collection": "handbook"})
    assert doc.id == "docs/guides/setup.md"
    assert doc.metadata["source"] == "docs/guides/setup.md"
    assert doc.metadata["relative_path"] == "guides/setup.md"
    assert doc.metadata["path"] == str(path)
    assert doc.metadata["title"] == "Setup"
    assert doc.metadata["extension"] == ".md"
    assert doc.metadata["size"] == path.stat().st_size
    assert doc.metadata["mtime"] == path.stat().st_mtime
    assert doc.metadata["content_hash"] == content_hash("# Setup\n\nSteps.\n")
    assert doc.metadata["collection"] == "handbook"


def test_directory_and_file_loader_agree(tmp_path, context):
    write(tmp_path, "docs/a.md", "# Same\n")
    [from_dir] = load_dir(context, "docs")
    [from_file] = _load_file(context, "docs/a.md")
    assert from_dir.id == from_file.id
    assert from_dir.text == from_file.text
    assert {k: v for k, v in from_dir.metadata.items() if k != "relative_path"} == dict(
        from_file.metadata
    )


def test_directory_outside_base_dir_uses_absolute_ids(tmp_path, reports):
    write(tmp_path, "elsewhere/a.md", "# A\n")
    (tmp_path / "project").mkdir()
    context = Context(base_dir=tmp_path / "project", report=reports)
    [doc] = load_dir(context, "../elsewhere")
    assert doc.id == (tmp_path / "elsewhere" / "a.md").as_posix()
    assert doc.metadata["relative_path"] == "a.md"


# -- include / exclude --------------------------------------------------------


def test_default_include_matches_known_formats_at_root_and_nested(tmp_path, context):
    for name in [
        "a.md",
        "b.txt",
        "c.markdown",
        "d.rst",
        "e.py",
        "f.png",
        "g.mdx",
        "n/h.md",
        "n/i.json",
        "n/j.html",
        "n/k.ts",
        "n/l.yaml",
    ]:
        write(tmp_path, f"root/{name}")
    assert ids(load_dir(context, "root")) == [
        "root/a.md",
        "root/b.txt",
        "root/c.markdown",
        "root/d.rst",
        "root/e.py",
        "root/g.mdx",
        "root/n/h.md",
        "root/n/j.html",
        "root/n/k.ts",
    ]


def test_include_and_exclude(tmp_path, context):
    for name in [
        "top.md",
        "top.txt",
        "docs/a.md",
        "docs/deep/b.md",
        "docs/drafts/wip.md",
        "drafts/c.md",
        "docs/secret-plan.md",
        "notes/x.md",
    ]:
        write(tmp_path, name)
    got = load_dir(
        context,
        include=["**/*.md"],
        exclude=["drafts", "**/secret-*.md", "notes/"],
    )
    assert ids(got) == ["docs/a.md", "docs/deep/b.md", "docs/drafts/wip.md", "top.md"]
    got = load_dir(context, include=["*.md", "docs/**/*.md"], exclude=["**/drafts"])
    assert ids(got) == ["docs/a.md", "docs/deep/b.md", "docs/secret-plan.md", "top.md"]
    got = load_dir(context, include=["docs/*.md", "./top.*"])
    assert ids(got) == ["docs/a.md", "docs/secret-plan.md", "top.md", "top.txt"]


def test_readable_files_a_narrowed_include_leaves_out_are_noted_once(tmp_path, context, reports):
    """`ragloom init` writes `include` for documents only: a folder's .py and
    .sh files were left out with nothing said. Files ragloom cannot read
    (an image) and those `exclude` names are not mentioned."""
    for name in ["a.md", "tools/backup.sh", "app/main.py", "logo.png", "build/gen.py"]:
        write(tmp_path, name)
    write(tmp_path, "prices.csv", "sku,price\nVC-300,249.00\n")
    got = load_dir(context, include=["**/*.md"], exclude=["build"])
    assert ids(got) == ["a.md"]
    assert reports == [
        (
            ".",
            "3 files that ragloom can read (.csv, .py, .sh) are left out by `include` (such as "
            "app/main.py); add their pattern to `include` to index them, or `exclude` them "
            "to silence this",
        )
    ]
    reports.clear()
    assert ids(load_dir(context)) == ["a.md", "app/main.py", "build/gen.py", "tools/backup.sh"]
    assert reports == [
        (
            ".",
            "1 file that ragloom can read (.csv) is left out by `include` (such as "
            "prices.csv); add its pattern to `include` to index it, or `exclude` it "
            "to silence this",
        )
    ]
    # a file another loader of the config reads (a csv loader's `path:`) is not
    # left out: the note said it was, under the csv loader `ragloom init` suggests
    reports.clear()
    from dataclasses import replace

    read = replace(context, services={"loader_paths": ((tmp_path / "prices.csv").absolute(),)})
    load_dir(read)
    assert reports == []


def test_files_of_records_a_narrowed_include_leaves_out_are_noted_with_their_loader(
    tmp_path, context, reports
):
    """`ragloom init --docs docs` left a `faq.jsonl` out with nothing said,
    where a `.csv` beside it was noted (trial 26, F5). Included, it is read
    as plain text, JSON and all: the note names the `jsonl` loader, which
    reads one document a record, not an `include` pattern."""
    write(tmp_path, "docs/a.md")
    write(tmp_path, "docs/faq.jsonl", '{"question": "Dogs?", "answer": "On Fridays."}\n')
    write(tmp_path, "docs/old/faq-2024.jsonl.gz", "")
    got = load_dir(context, "docs", include=["**/*.md"])
    assert ids(got) == ["docs/a.md"]
    assert reports == [
        (
            "docs",
            "2 files of records (.jsonl, .jsonl.gz) are left out by `include` (such as "
            "faq.jsonl); a `jsonl` loader reads each as one document per record "
            "(`type: jsonl`, `path: docs/faq.jsonl` and the fields that hold the text in "
            "`text_fields`), or `exclude` them to silence this",
        )
    ]
    # read by a jsonl loader of the config: nothing to say of it
    reports.clear()
    from dataclasses import replace

    jsonl = (tmp_path / "docs" / "faq.jsonl").absolute()
    read = replace(context, services={"loader_paths": (jsonl,)})
    load_dir(read, "docs", include=["**/*.md"], exclude=["old"])
    assert reports == []
    # excluded, or included: nothing either
    load_dir(context, "docs", include=["**/*.md"], exclude=["**/*.jsonl", "old"])
    assert ids(load_dir(context, "docs", include=["**/*.md", "**/*.jsonl"], exclude=["old"])) == [
        "docs/a.md",
        "docs/faq.jsonl",
    ]
    assert reports == []


def test_files_of_records_the_default_include_leaves_out_blame_no_include(
    tmp_path, context, reports
):
    """With no `include` set, an eval set kept beside the docs was noted on
    every run as "left out by `include`", an include the user never wrote
    (review, L5): the note names the default include."""
    write(tmp_path, "docs/a.md")
    write(tmp_path, "docs/testset.jsonl", '{"question": "Dogs?"}\n')
    assert ids(load_dir(context, "docs")) == ["docs/a.md"]
    assert reports == [
        (
            "docs",
            "1 file of records (.jsonl) is left out (such as testset.jsonl): the directory "
            "loader's default include reads no .jsonl; a `jsonl` loader reads it as one "
            "document per record (`type: jsonl`, `path: docs/testset.jsonl` and the fields "
            "that hold the text in `text_fields`), or `exclude` it to silence this",
        )
    ]


def test_json_files_a_written_include_leaves_out_are_noted(tmp_path, context, reports):
    """`ragloom init`'s include left `docs/data/holiday-closures.json` out
    with nothing said, where a `.csv` and a `.jsonl` beside it were noted
    (trial 27, F16). A `.json` file is read as plain text, so the note says
    to add its pattern to `include`; the default include, which a tree's
    `package.json` and `tsconfig.json` fall outside of, says nothing of it."""
    write(tmp_path, "docs/a.md")
    write(tmp_path, "docs/data/holiday-closures.json", '{"closures": [{"warehouse": "Buffalo"}]}')
    assert ids(load_dir(context, "docs", include=["**/*.md"])) == ["docs/a.md"]
    assert reports == [
        (
            "docs",
            "1 file that ragloom can read (.json) is left out by `include` (such as "
            "data/holiday-closures.json); add its pattern to `include` to index it, or "
            "`exclude` it to silence this",
        )
    ]
    reports.clear()
    # a YAML sample is a document too (a second trial's CLI config sample),
    # a tree's mkdocs.yml and pyproject.toml are tools'
    write(tmp_path, "docs/samples/cli.yaml", "carrier: ups\n")
    write(tmp_path, "docs/mkdocs.yml", "site_name: x\n")
    write(tmp_path, "docs/pyproject.toml", "[project]\n")
    assert ids(load_dir(context, "docs", include=["**/*.md", "**/*.json"])) == [
        "docs/a.md",
        "docs/data/holiday-closures.json",
    ]
    assert reports == [
        (
            "docs",
            "1 file that ragloom can read (.yaml) is left out by `include` (such as "
            "samples/cli.yaml); add its pattern to `include` to index it, or "
            "`exclude` it to silence this",
        )
    ]
    (tmp_path / "docs/samples/cli.yaml").unlink()
    reports.clear()
    got = load_dir(context, "docs", include=["**/*.md", "**/*.json"])
    assert ids(got) == ["docs/a.md", "docs/data/holiday-closures.json"]
    assert "Buffalo" in got[1].text
    assert reports == []
    assert ids(load_dir(context, "docs")) == ["docs/a.md"]
    assert reports == []


def test_a_trees_tool_configs_are_not_noted_as_left_out(tmp_path, context, reports):
    """With a written `include`, the note named a tree's `package.json`,
    `tsconfig.json` and `.vscode/settings.json` (its example, too): a
    tool's config, in a dot-folder or so named, is no document left out
    (review L4, L5); a data file beside them still is."""
    write(tmp_path, "docs/a.md")
    for name in [
        "docs/package.json",
        "docs/package-lock.json",
        "docs/tsconfig.json",
        "docs/tsconfig.build.json",
        "docs/.eslintrc.json",
        "docs/.vscode/settings.json",
        "docs/.github/workflows/ci.yml",
    ]:
        write(tmp_path, name, "{}")
    assert ids(load_dir(context, "docs", include=["**/*.md"])) == ["docs/a.md"]
    assert reports == []
    reports.clear()
    write(tmp_path, "docs/holiday-closures.json", '{"closures": []}')
    load_dir(context, "docs", include=["**/*.md"])
    assert reports == [
        (
            "docs",
            "1 file that ragloom can read (.json) is left out by `include` (such as "
            "holiday-closures.json); add its pattern to `include` to index it, or "
            "`exclude` it to silence this",
        )
    ]


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("**/*.md", ["a.md", "x/a.md", "x/y/z/a.md", ".hidden.md"], ["a.txt", "a.mdx", "x/a.md/b"]),
        ("*.md", ["a.md"], ["x/a.md"]),
        ("docs/**", ["docs", "docs/a.md", "docs/x/y"], ["docsx/a.md", "a/docs/b"]),
        ("a/**/b.md", ["a/b.md", "a/x/b.md", "a/x/y/b.md"], ["ab.md", "a/xb.md"]),
        ("**", ["a", "a/b/c"], []),
        ("?.txt", ["a.txt"], ["ab.txt", "/.txt"]),
        ("[ab]*.md", ["a.md", "bx.md"], ["c.md"]),
        ("[!ab]*.md", ["c.md"], ["a.md", "b.md"]),
        ("[0-9].md", ["7.md"], ["x.md"]),
        ("file[1.md", ["file[1.md"], ["file1.md"]),
        ("a+b (1).md", ["a+b (1).md"], ["aab (1).md"]),
    ],
)
def test_compile_glob(pattern, matches, misses):
    regex = compile_glob(pattern)
    for path in matches:
        assert regex.fullmatch(path), (pattern, path)
    for path in misses:
        assert not regex.fullmatch(path), (pattern, path)


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"include": []}, "include is empty"),
        ({"include": ["/abs/*.md"]}, "relative"),
        ({"exclude": ["../x"]}, "relative"),
        ({"exclude": ["a\\b"]}, "forward slashes"),
        ({"include": ["[z-a]*.md"]}, r"not a valid glob: bad character range z-a"),
        ({"exclude": ["drafts/[9-0]"]}, r"not a valid glob"),
        ({"max_file_size": 0}, "greater than 0"),
        ({"metadata": {"relative_path": "x"}}, "set by the loader"),
    ],
)
def test_directory_config_is_validated(options, fragment):
    with pytest.raises(ValidationError, match=fragment):
        DirectoryLoader(path="docs", **options)


# -- denylist ------------------------------------------------------------------


SECRETS = [
    ".env",
    ".env.production",
    "id_rsa",
    "id_rsa.pub",
    "id_ed25519",
    "keys/id_ecdsa",
    "a.pem",
    "server.KEY",
    "cert.p12",
    "cert.pfx",
    ".netrc",
    ".npmrc",
    ".pypirc",
    "credentials.json",
    "config/credentials-prod.json",
    ".git/config",
    ".git/notes.md",
    "node_modules/x.md",
    "pkg/node_modules/y/readme.md",
    "__pycache__/m.txt",
    ".venv/lib/readme.md",
    ".ragloom/state.md",
    "sub/.hg/x.md",
    ".svn/entries.txt",
]


def test_denylist_is_always_skipped_silently(tmp_path, context, reports, caplog):
    for name in SECRETS:
        write(tmp_path, name, "API_KEY=hunter2\n")
    write(tmp_path, "notes.txt", "keep me\n")
    caplog.set_level("DEBUG", logger="ragloom")
    # even when include asks for everything, and for the secrets by name
    got = load_dir(context, include=["**", ".env", "**/*.pem", "**/*.md"])
    assert ids(got) == ["notes.txt"]
    assert reports == []
    assert any("always skipped" in record.getMessage() for record in caplog.records)


def test_custom_index_dir_is_skipped(tmp_path, reports):
    write(tmp_path, "index/chunks.txt", "indexed\n")
    write(tmp_path, "a.txt", "a\n")
    context = Context(base_dir=tmp_path, index_dir=Path("index"), report=reports)
    assert ids(load_dir(context)) == ["a.txt"]


# -- generated output ------------------------------------------------------------


def mkdocs_site(root: Path, folder: str = "site") -> None:
    """What `mkdocs build` leaves: stale copies of the pages, a sitemap, a search index."""
    write(root, f"{folder}/index.html", "<h1>Ferrule</h1><p>The current release is 2.4.1.</p>")
    write(root, f"{folder}/guide/index.html", "<p>Old guide.</p>")
    write(root, f"{folder}/sitemap.xml", "<urlset/>")
    write(root, f"{folder}/search/search_index.json", '{"docs": []}')


def test_built_docs_below_the_root_are_skipped_with_a_note(tmp_path, context, reports):
    """`ragloom init --docs .` in a project indexed MkDocs' `site/`: the stale
    copy of a page answered "the current release" with the old version."""
    write(tmp_path, "docs/index.md", "# Ferrule\n\nThe current release is 2.5.0.\n")
    mkdocs_site(tmp_path)
    write(tmp_path, "docs/_build/html/.buildinfo", "# Sphinx build info\n")
    write(tmp_path, "docs/_build/html/index.html", "<p>Sphinx copy.</p>")
    write(tmp_path, "docs/_build/html/_sources/index.rst.txt", "Sphinx source copy.\n")
    assert ids(load_dir(context)) == ["docs/index.md"]
    assert reports.sources() == ["docs/_build/html", "site"]
    said = reports.message("site")
    assert said.startswith(
        "skipped: generated documentation output (MkDocs: sitemap.xml and search/search_index.json)"
    )
    assert "point a loader's `path` at it to index it" in said
    assert "(Sphinx: .buildinfo)" in reports.message("docs/_build/html")
    # excluded, it is not looked into, so nothing is said
    reports.clear()
    assert ids(load_dir(context, exclude=["site", "docs/_build"])) == ["docs/index.md"]
    assert reports == []


def test_a_users_own_site_folder_is_not_taken_for_build_output(tmp_path, context, reports):
    """Marker files decide, not names: a `site/` or `build/` of real documents
    (even with a sitemap, or a `search/` folder of its own) loads."""
    write(tmp_path, "site/visit.md", "# Visiting the site\n")
    write(tmp_path, "site/sitemap.xml", "<urlset/>")
    write(tmp_path, "site/search/how.md", "# How to search\n")
    write(tmp_path, "site/search/search_index.md", "# Our search index\n")
    write(tmp_path, "build/steps.md", "# Build steps\n")
    write(tmp_path, "_site/page.md", "# Page\n")  # no Jekyll _config.yml beside it
    got = load_dir(context)
    assert ids(got) == [
        "_site/page.md",
        "build/steps.md",
        "site/search/how.md",
        "site/search/search_index.md",
        "site/visit.md",
    ]
    assert reports == []


def test_a_jekyll_site_is_known_by_the_config_beside_it(tmp_path, context, reports):
    write(tmp_path, "_site/index.html", "<p>Built.</p>")
    write(tmp_path, "index.md", "# Home\n")
    write(tmp_path, "_config.yml", "title: Blog\n")
    assert ids(load_dir(context)) == ["index.md"]
    assert "(Jekyll: _config.yml beside it)" in reports.message("_site")


def test_the_root_itself_may_be_a_built_site(tmp_path, context, reports):
    """A user who points `path:` at a built site asked for it."""
    mkdocs_site(tmp_path)
    assert ids(load_dir(context, path="site")) == ["site/guide/index.html", "site/index.html"]
    assert reports == []


def test_a_scoped_run_skips_what_a_full_run_skips(tmp_path, context, reports):
    mkdocs_site(tmp_path)
    write(tmp_path, "a.md", "# A\n")
    loader = DirectoryLoader(path=".")
    loader.open(context)
    only = loader.with_sources(["site/index.html", "a.md"])
    assert ids(only.load()) == ["a.md"]
    assert ids(loader.with_sources(["site"]).load()) == []
    assert reports.sources() == ["site"]


def test_minified_bundles_and_source_maps_load_only_when_named(tmp_path, context, reports):
    """`bundle.min.js` was indexed as code under the default `include`."""
    write(tmp_path, "assets/bundle.min.js", "!function(e){var t={};}")
    write(tmp_path, "assets/theme.min.css", "body{margin:0}")
    write(tmp_path, "assets/bundle.min.js.map", '{"version":3}')
    write(tmp_path, "assets/app.js", "export const answer = 42;\n")
    assert ids(load_dir(context)) == ["assets/app.js"]
    assert ids(load_dir(context, include=["**/*.js", "**/*.css", "**/*"])) == ["assets/app.js"]
    assert reports == []  # not "left out by `include`" either: a wider include would not help
    got = load_dir(context, include=["**/*.js", "**/*.min.js", "assets/theme.min.css"])
    assert ids(got) == ["assets/app.js", "assets/bundle.min.js", "assets/theme.min.css"]


# -- patterns that match nothing ----------------------------------------------------


def test_an_exclude_that_matches_nothing_says_what_would(tmp_path, context, reports):
    """`exclude: ["*.html"]` left `site/**/*.html` in, and `["v1"]` left
    `docs/v1/` in, with nothing said: `*` stays within one segment and
    patterns match from the loader's root."""
    for name in ["a.md", "pages/one.html", "pages/deep/two.html", "docs/v1/old.md"]:
        write(tmp_path, name)
    got = load_dir(context, exclude=["*.html", "v1", "drafts"])
    assert "docs/v1/old.md" in ids(got) and "pages/one.html" in ids(got)
    assert reports == [
        (
            ".",
            "exclude pattern '*.html' matched nothing; '**/*.html' would match 2 files "
            "(such as pages/deep/two.html): patterns match paths from the top of `path`, "
            "so start one with '**/' to match at any depth",
        ),
        (
            ".",
            "exclude pattern 'v1' matched nothing; '**/v1' would match 1 folder (docs/v1): "
            "patterns match paths from the top of `path`, so start one with '**/' to "
            "match at any depth",
        ),
        (
            ".",
            "exclude pattern 'drafts' matched nothing; patterns match paths relative to "
            "`path`; fix it or remove it",
        ),
    ]


def test_patterns_that_match_are_not_noted(tmp_path, context, reports):
    """Every pattern that matched a file or folder is quiet, even one whose
    files another pattern also takes; so is an include's `**/*.epub` in a
    folder without one (the config `ragloom init` writes lists many kinds),
    and an exclude of a folder that is skipped anyway."""
    for name in ["a.md", "docs/b.md", "docs/c.tmp.md", "node_modules/x.js", "drafts/d.md"]:
        write(tmp_path, name)
    got = load_dir(
        context,
        include=["**/*.md", "docs/*.md", "**/*.epub"],
        exclude=["drafts", "**/*.tmp.md", "node_modules"],
    )
    assert ids(got) == ["a.md", "docs/b.md"]
    assert reports == []
    # an include pattern is said only when its `**/` version would take files
    write(tmp_path, "pages/x.html", "<p>x</p>")
    load_dir(context, include=["**/*.md", "*.html", "*.tsv"])
    assert [m for _, m in reports if m.startswith("include pattern")] == [
        "include pattern '*.html' matched nothing; '**/*.html' would match 1 file "
        "(pages/x.html): patterns match paths from the top of `path`, so start one "
        "with '**/' to match at any depth",
    ]


def test_a_defensive_exclude_that_matches_nothing_is_quiet(tmp_path, context, reports):
    """`**/.tox/**` or `**/*.draft.md` before there is any: no mistake, said
    on no run; a literal path that is not there (a typo) is said."""
    write(tmp_path, "a.md")
    load_dir(context, exclude=["**/.tox/**", "**/*.draft.md", "archive"])
    assert [m for _, m in reports] == [
        "exclude pattern 'archive' matched nothing; patterns match paths relative to "
        "`path`; fix it or remove it"
    ]


def test_a_scoped_run_says_nothing_of_patterns(tmp_path, context, reports):
    """A run limited to some files lists too little to judge a pattern by."""
    write(tmp_path, "a.md")
    write(tmp_path, "drafts/b.md")
    loader = DirectoryLoader(path=".", exclude=["drafts"])
    loader.open(context)
    assert ids(loader.with_sources(["a.md"]).load()) == ["a.md"]
    assert reports == []


def test_pattern_notes_hold_when_unchanged_files_are_not_read(tmp_path, pm, monkeypatch) -> None:
    """The second run reads no file (ragloom.reads): patterns are matched on
    the paths the walk lists, so the notes are the same, and none is false."""
    import ragloom

    from .conftest import basic_config

    monkeypatch.setattr("ragloom.reads.RACY_SECONDS", 0)
    write(tmp_path, "docs/a.md", "# A\n\nThe aardvark eats ants.\n")
    write(tmp_path, "docs/v1/b.md", "# B\n\nThe badger digs.\n")
    write(tmp_path, "docs/drafts/c.md", "# C\n\nThe cat sleeps.\n")
    loaders = [{"type": "directory", "path": "docs", "exclude": ["drafts", "v2"]}]
    config = basic_config(loaders=loaders)
    runs = []
    for _ in range(2):
        with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
            runs.append(pipeline.index())
    first, again = runs
    assert again.unread == 2 and again.unchanged == 2
    said = [m for _, m in first.problems]
    assert said == [
        "exclude pattern 'v2' matched nothing; patterns match paths relative to `path`; "
        "fix it or remove it"
    ]
    assert [m for _, m in again.problems] == said


# -- bad files are reported, the rest loads -----------------------------------


def test_bad_files_are_reported_and_the_rest_loads(tmp_path, context, reports):
    write(tmp_path, "good.md", "# Good\n")
    write(tmp_path, "image.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    write(tmp_path, "latin.txt", "naïve".encode("latin-1"))
    write(tmp_path, "empty.md", "")
    write(tmp_path, "big.txt", "x" * 2048)
    write(tmp_path, "z/ok.txt", "fine\n")
    got = load_dir(context, max_file_size=1024)
    assert ids(got) == ["good.md", "z/ok.txt"]
    assert sorted(reports.sources()) == ["big.txt", "empty.md", "image.md", "latin.txt"]
    assert "binary" in reports.message("image.md")
    assert "not utf-8" in reports.message("latin.txt").lower()
    assert "empty file" in reports.message("empty.md")
    assert "2048 bytes" in reports.message("big.txt")
    assert "max_file_size" in reports.message("big.txt")


def test_unmatched_binary_files_are_not_reported(tmp_path, context, reports):
    write(tmp_path, "photo.png", b"\x00\x01\x02")
    write(tmp_path, "a.md", "# A\n")
    assert ids(load_dir(context)) == ["a.md"]
    assert reports == []


def test_missing_root_is_an_unavailable_source(context):
    # an unmounted share must not look like a folder whose files were all deleted
    with pytest.raises(SourceUnavailableError, match="no-such-dir: directory not found"):
        load_dir(context, "no-such-dir")


@pytest.mark.parametrize("target", ["docs", "gone"], ids=["loop", "dangling"])
def test_root_that_is_a_broken_link_says_so(tmp_path, context, target):
    (tmp_path / "docs").symlink_to(target)  # docs -> docs loops; docs -> gone leads nowhere
    with pytest.raises(SourceUnavailableError, match="symbolic link that leads to no directory"):
        load_dir(context, "docs")


def test_root_that_is_a_file_is_an_unavailable_source(tmp_path, context):
    write(tmp_path, "a.md", "# A\n")
    with pytest.raises(SourceUnavailableError, match="type: file"):
        load_dir(context, "a.md")


def test_an_unlistable_folder_is_reported_as_unreadable(tmp_path, monkeypatch):
    import os

    kept: list[str] = []
    reports = Reports()
    context = Context(base_dir=tmp_path, report=reports, keep=kept.append)
    write(tmp_path, "docs/a.md", "# A\n\nalpha\n")
    write(tmp_path, "docs/locked/b.md", "# B\n\nbravo\n")
    real = os.scandir

    def scandir(path):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert [d.id for d in load_dir(context, "docs")] == ["docs/a.md"]
    assert kept == ["docs/locked"] and "Permission denied" in reports.message("docs/locked")


# -- symlinks -------------------------------------------------------------------


def test_symlinks_are_skipped_by_default_and_followed_on_request(tmp_path, context, reports):
    write(tmp_path, "outside/shared.md", "# Shared\n")
    write(tmp_path, "outside/dir/inner.md", "# Inner\n")
    write(tmp_path, "root/own.md", "# Own\n")
    symlink(tmp_path / "root" / "link.md", tmp_path / "outside" / "shared.md")
    symlink(tmp_path / "root" / "linked", tmp_path / "outside" / "dir")
    assert ids(load_dir(context, "root")) == ["root/own.md"]
    followed = load_dir(context, "root", follow_symlinks=True)
    assert ids(followed) == ["root/link.md", "root/linked/inner.md", "root/own.md"]
    assert followed[0].metadata["relative_path"] == "link.md"
    assert followed[0].text == "# Shared\n"
    assert reports == []


def test_symlink_loops_terminate(tmp_path, context, reports):
    write(tmp_path, "root/a/doc.md", "# Doc\n")
    symlink(tmp_path / "root" / "a" / "back", tmp_path / "root")
    assert ids(load_dir(context, "root", follow_symlinks=True)) == ["root/a/doc.md"]


def test_broken_symlink_is_reported_when_following(tmp_path, context, reports):
    write(tmp_path, "root/a.md", "# A\n")
    symlink(tmp_path / "root" / "gone.md", tmp_path / "nowhere.md")
    assert ids(load_dir(context, "root")) == ["root/a.md"]
    assert reports == []
    assert ids(load_dir(context, "root", follow_symlinks=True)) == ["root/a.md"]
    assert "broken symlink" in reports.message("root/gone.md")


def test_a_pipe_among_the_files_is_said_not_skipped_silently(tmp_path, context, reports):
    """A FIFO the patterns take was only a debug line: "an unreadable file is
    reported" held for the file loader, not the directory loader."""
    write(tmp_path, "root/a.md", "# A\n")
    os.mkfifo(tmp_path / "root" / "pipe.md")
    os.mkfifo(tmp_path / "root" / "pipe.bin")  # not one it would load: nothing said
    assert ids(load_dir(context, "root")) == ["root/a.md"]
    assert "not a regular file" in reports.message("root/pipe.md")
    assert len(reports) == 1
    # reached through a followed link, a pipe is a pipe, not "a broken symlink"
    os.mkfifo(tmp_path / "elsewhere.fifo")
    symlink(tmp_path / "root" / "linked.md", tmp_path / "elsewhere.fifo")
    assert ids(load_dir(context, "root", follow_symlinks=True)) == ["root/a.md"]
    assert "not a regular file" in reports.message("root/linked.md")


def test_symlink_to_secret_file_is_skipped(tmp_path, context, reports):
    write(tmp_path, "keys/id_rsa", "PRIVATE KEY\n")
    write(tmp_path, "root/a.md", "# A\n")
    symlink(tmp_path / "root" / "innocent.md", tmp_path / "keys" / "id_rsa")
    assert ids(load_dir(context, "root", follow_symlinks=True)) == ["root/a.md"]
    assert reports == []


# -- with_sources ---------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in [
        "a.md",
        "b.txt",
        "guide/one.md",
        "guide/two.md",
        "guide/deep/three.md",
        "guide/image.png",
        "drafts/wip.md",
        "node_modules/x.md",
    ]:
        write(tmp_path, f"docs/{name}", f"{name}\n")
    write(tmp_path, "other/c.md", "c\n")
    return tmp_path


def restricted(context: Context, sources: list[str], **options: object):
    loader = DirectoryLoader(path="docs", exclude=["drafts"], **options)
    loader.open(context)
    return loader, loader.with_sources(sources)


def test_with_sources_files_and_directories(tree, context, reports):
    one = str(tree / "docs" / "guide" / "one.md")
    loader, only = restricted(context, ["docs/guide", "docs/a.md", one])
    assert only is not None and only is not loader
    assert only.config == loader.config
    assert ids(only.load()) == [
        "docs/a.md",
        "docs/guide/deep/three.md",
        "docs/guide/one.md",
        "docs/guide/two.md",
    ]
    # the original is untouched
    assert len(list(loader.load())) == 5
    assert reports == []


def test_with_sources_outside_root_is_none(tree, context):
    _, only = restricted(context, ["other/c.md", "other", "elsewhere.md"])
    assert only is None


def test_with_sources_root_or_parent_returns_the_loader(tree, context):
    loader, only = restricted(context, ["docs"])
    assert only is loader
    assert restricted(context, ["."])[1] is not None
    assert ids(restricted(context, [str(tree)])[1].load()) == ids(loader.load())


def test_with_sources_respects_globs_and_denylist(tree, context):
    for sources in (
        ["docs/guide/image.png"],
        ["docs/drafts/wip.md"],
        ["docs/drafts"],
        ["docs/node_modules/x.md"],
        ["docs/node_modules"],
    ):
        assert restricted(context, sources)[1] is None, sources
    _, only = restricted(context, ["docs/guide/image.png", "docs/b.txt"])
    assert ids(only.load()) == ["docs/b.txt"]


def test_with_sources_missing_file_is_reported(tree, context, reports):
    _, only = restricted(context, ["docs/removed.md", "docs/a.md"])
    assert ids(only.load()) == ["docs/a.md"]
    assert "not found" in reports.message("docs/removed.md")


def test_with_sources_does_not_follow_symlinks_unless_asked(tree, context):
    symlink(tree / "docs" / "ext", tree / "other")
    _, only = restricted(context, ["docs/ext/c.md"])
    assert only is not None
    assert list(only.load()) == []
    _, only = restricted(context, ["docs/ext/c.md"], follow_symlinks=True)
    assert ids(only.load()) == ["docs/ext/c.md"]


def test_office_files_and_rtf_are_named_with_what_to_save_them_as(
    tmp_path: Path, context: Context, reports
) -> None:
    """A .docx was "binary file (NUL byte ...)", which did not say the format
    has no reader; an .rtf included by hand was indexed and quoted with its
    control words."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<w:document/>")
    write(tmp_path, "pricing.docx", buffer.getvalue())
    write(tmp_path, "old.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64)
    write(tmp_path, "plan.rtf", r"{\rtf1\ansi{\fonttbl\f0 Helvetica;}\f0\pard The plan.\par}")
    write(tmp_path, "a.md", "# A\n\nText.\n")
    got = load_dir(context, include=["**/*"])
    assert ids(got) == ["a.md"]
    said = dict(reports)
    # a zip that only claims to be a Word document: read as one, and reported
    assert said["pricing.docx"].startswith("not a readable Word document (")
    assert "a Microsoft Office file" in said["old.doc"]
    assert said["plan.rtf"].startswith("an RTF document, which ragloom has no reader for")


def test_code_and_data_files_are_not_read_for_a_deprecation_mark(tmp_path, context):
    """An OpenAPI operation's ``deprecated: true``, a docstring's
    ``Deprecated: the FOO setting``: marks of items, in files that are no
    prose page."""
    write(tmp_path, "openapi.yaml", "paths:\n  /old:\n    get:\n      deprecated: true\n")
    write(tmp_path, "settings.py", '"""Settings.\n\nDeprecated: use the v2 module.\n"""\n')
    for name in ("openapi.yaml", "settings.py"):
        [doc] = _load_file(context, name)
        assert "deprecated" not in doc.metadata, name


def test_a_link_to_a_folder_walked_directly_adds_nothing(tmp_path, context, reports):
    """``docs/again -> real`` sorted first and took the folder: its documents
    moved to the link's path, and the next run was refused as a mass deletion."""
    write(tmp_path, "root/real/z1.md", "# Z1\n")
    write(tmp_path, "root/real/sub/z2.md", "# Z2\n")
    write(tmp_path, "root/top.md", "# Top\n")
    write(tmp_path, "outside/o.md", "# O\n")
    before = ids(load_dir(context, "root", follow_symlinks=True))
    symlink(tmp_path / "root" / "again", tmp_path / "root" / "real")
    symlink(tmp_path / "root" / "a", tmp_path / "root" / "real" / "sub")
    symlink(tmp_path / "root" / "ext", tmp_path / "outside")
    after = ids(load_dir(context, "root", follow_symlinks=True))
    assert after == sorted([*before, "root/ext/o.md"])
    assert before == ["root/real/sub/z2.md", "root/real/z1.md", "root/top.md"]
    # a scoped run through the alias runs on the folder's own path
    loader = DirectoryLoader(path="root", follow_symlinks=True)
    loader.open(context)
    only = loader.with_sources(["root/a/z2.md"])
    assert only is not None and ids(only.load()) == ["root/real/sub/z2.md"]
    only = loader.with_sources(["root/again"])
    assert only is not None and ids(only.load()) == before[:2]
    assert reports == []


def test_a_link_to_an_excluded_folder_inside_the_tree_is_still_followed(tmp_path, context, reports):
    write(tmp_path, "root/drafts/final/f.md", "# F\n")
    symlink(tmp_path / "root" / "published", tmp_path / "root" / "drafts" / "final")
    docs = load_dir(context, "root", follow_symlinks=True, exclude=["drafts"])
    assert ids(docs) == ["root/published/f.md"]
