"""The ``route`` chunker sends each document to the chunker its kind needs,
and the ``markdown`` chunker reads no headings in source code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import ragloom
from ragloom.builtin.chunkers._chunking import document_sections, source_code
from ragloom.builtin.chunkers.markdown import MarkdownChunker
from ragloom.builtin.chunkers.route import RouteChunker
from ragloom.components import Context
from ragloom.errors import ConfigError
from ragloom.types import Document

from .conftest import basic_config

SCRIPT = """#!/bin/bash
# Nightly backup
# Runs from cron at 02:00
set -e
tar czf /backup/site.tgz /srv/site
# Rotate old archives
find /backup -mtime +14 -delete
"""

PYTHON = '''"""Invoices."""


def total(lines):
    """The sum of the lines."""
    return sum(line.amount for line in lines)


class Client:
    def create_invoice(self, lines):
        return {"total": total(lines)}
'''

GUIDE = """---
language: en
---
# Guide

## Install

Run the installer.

## Backups

Backups run every night.
"""


def document(doc_id: str, text: str, **metadata: Any) -> Document:
    extension = Path(doc_id).suffix
    return Document(
        id=doc_id, text=text, metadata={"source": doc_id, "extension": extension, **metadata}
    )


def opened(chunker: Any) -> Any:
    chunker.open(Context(name="chunker"))
    return chunker


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "backup.sh").write_text(SCRIPT)
    (docs / "invoices.py").write_text(PYTHON)
    (docs / "guide.md").write_text(GUIDE)
    (docs / "Dockerfile").write_text(
        "# Base image\nFROM python:3.12\n# Install\nRUN pip install x\n"
    )
    return tmp_path


ROUTED = {
    "type": "route",
    "routes": [
        {"match": {"extension": {"$in": [".py", ".sh"]}}, "chunker": {"type": "code"}},
    ],
    "default": {"type": "markdown", "size": 800, "overlap": 100},
}


MARKDOWN_LAYERS = {
    "match": {"extension": ".md"},
    "chunker": {
        "type": "layers",
        "layers": {"passages": {"type": "recursive"}, "sentences": {"type": "sentence"}},
    },
}
"""A route that cuts Markdown files in passages and sentences."""


def chunks_by_document(pipeline: Any) -> dict[str, list[Any]]:
    (_, store), *_ = pipeline.stores
    out: dict[str, list[Any]] = {}
    for chunk in sorted(store._chunks, key=lambda c: (c.document_id, c.index)):
        out.setdefault(chunk.document_id, []).append(chunk)
    return out


def test_each_file_goes_to_its_route(folder: Path, pm) -> None:
    config = basic_config(
        loaders=[{"type": "directory", "path": "docs", "include": ["**/*"]}], chunker=ROUTED
    )
    with ragloom.load(config, plugin_manager=pm, base_dir=folder) as pipeline:
        assert pipeline.index().added
        chunks = chunks_by_document(pipeline)
    python = chunks["docs/invoices.py"]
    assert {c.metadata.get("symbol") for c in python} >= {"total", "Client"}
    assert all("section" not in c.metadata for c in python)
    script = chunks["docs/backup.sh"]  # the code chunker: labels by lines, no sections
    assert [c.label for c in script] == ["docs/backup.sh#L1-L7"]
    guide = chunks["docs/guide.md"]  # the default: Markdown sections
    assert [c.metadata.get("section") for c in guide] == ["Guide > Install", "Guide > Backups"]
    # no route names Dockerfile: the default markdown chunker, which reads
    # no heading in source code either
    (dockerfile,) = chunks["docs/Dockerfile"]
    assert "section" not in dockerfile.metadata and dockerfile.label == "docs/Dockerfile#chunk-0"


def test_the_first_matching_route_wins_and_the_default_takes_the_rest() -> None:
    chunker = opened(
        RouteChunker(
            routes=[
                {"match": {"team": "ops"}, "chunker": {"type": "fixed", "size": 50, "overlap": 0}},
                {"match": {"extension": ".md"}, "chunker": {"type": "sentence", "size": 60}},
            ],
        )
    )
    ops = document("docs/guide.md", GUIDE, team="ops")
    assert chunker.chunker_for(ops).type_name == "fixed"
    assert chunker.chunker_for(document("docs/guide.md", GUIDE)).type_name == "sentence"
    assert chunker.chunker_for(document("notes.txt", "plain")).type_name == "recursive"
    fixed = chunker.split(ops)
    assert max(len(c.text) for c in fixed) <= 50 and len(fixed) > 1


def test_markdown_reads_no_heading_in_source_code() -> None:
    chunker = opened(MarkdownChunker(size=800, overlap=100))
    (script,) = chunker.split(document("ops/backup.sh", SCRIPT))
    assert script.label == "ops/backup.sh#chunk-0" and "section" not in script.metadata
    makefile = chunker.split(document("Makefile", "# Build\nall:\n\tcc x.c\n", extension=""))
    assert [c.label for c in makefile] == ["Makefile#chunk-0"]
    # front matter may say `language: en`: a Markdown file keeps its headings
    guide = chunker.split(document("docs/guide.md", GUIDE, language="en"))
    sections = [c.metadata.get("section") for c in guide]
    assert sections == [None, "Guide > Install", "Guide > Backups"]  # the front matter first


def test_changing_a_route_chunks_every_document_again(folder: Path, pm) -> None:
    loaders = [{"type": "directory", "path": "docs", "include": ["**/*"]}]
    with ragloom.load(
        basic_config(loaders=loaders, chunker=ROUTED), plugin_manager=pm, base_dir=folder
    ) as pipeline:
        pipeline.index()
        assert not pipeline.index().changed
    other = {
        **ROUTED,
        "routes": [{**ROUTED["routes"][0], "chunker": {"type": "code", "size": 300}}],
    }
    with ragloom.load(
        basic_config(loaders=loaders, chunker=other), plugin_manager=pm, base_dir=folder
    ) as pipeline:
        assert len(pipeline.index().changed) == 4


def test_a_route_to_a_chunker_that_needs_the_embedder_gets_it(folder: Path, pm) -> None:
    chunker = {
        "type": "route",
        "routes": [{"match": {"extension": ".md"}, "chunker": {"type": "semantic"}}],
    }
    config = basic_config(chunker=chunker)
    with ragloom.load(config, plugin_manager=pm, base_dir=folder) as pipeline:
        assert pipeline.index().added
        assert "docs/guide.md" in chunks_by_document(pipeline)


@pytest.mark.parametrize(
    ("chunker", "said"),
    [
        ({"type": "route", "routes": []}, "routes"),
        (
            {
                "type": "route",
                "routes": [{"match": {"ext": {"$like": 1}}, "chunker": {"type": "code"}}],
            },
            "routes[0].match.ext.$like: unknown field operator",
        ),
        (
            {"type": "route", "routes": [{"match": {"a": 1}, "chunker": {"type": "cod"}}]},
            "routes[0]: unknown chunker type 'cod'",
        ),
        (
            {
                "type": "route",
                "routes": [{"match": {"a": 1}, "chunker": {"type": "code", "sise": 3}}],
            },
            "routes[0] (code): sise: unknown option (did you mean `size`?)",
        ),
        (
            {
                "type": "route",
                "routes": [{"match": {"extension": "py"}, "chunker": {"type": "code"}}],
            },
            "routes[0].match.extension: 'py' matches no document",
        ),
        (
            {
                "type": "route",
                "routes": [{"match": {"extension": {"$in": [".PY"]}}, "chunker": {"type": "code"}}],
            },
            "in lower case, `.py`",
        ),
        (
            {"type": "route", "routes": [{"match": {}, "chunker": {"type": "code"}}]},
            "routes[0].match: name a field",
        ),
        (
            {"type": "route", "routes": [{"match": {"a": 1}, "chunker": {"type": "route"}}]},
            "cannot be a route of another",
        ),
        (
            {
                "type": "route",
                "routes": [{"match": {"a": 1}, "chunker": {"type": "code"}}],
                "default": {"size": 3},
            },
            "default must be a chunker spec with a `type`",
        ),
        (
            {"type": "route", "routes": [{"chunker": {"type": "code"}}]},
            "match",
        ),
    ],
)
def test_a_wrong_route_is_named(tmp_path: Path, pm, chunker: dict, said: str) -> None:
    with pytest.raises(ConfigError, match=None) as caught:
        ragloom.load(basic_config(chunker=chunker), plugin_manager=pm, base_dir=tmp_path)
    assert said in str(caught.value)


@pytest.mark.parametrize("chunker_type", ["recursive", "fixed", "sentence", "parent", "markdown"])
def test_no_chunker_reads_a_heading_in_source_code(chunker_type: str, pm) -> None:
    from ragloom.registry import Registry

    cls = Registry.from_plugin_manager(pm).get("chunker", chunker_type).cls
    chunker = opened(cls())
    script = document("ops/deploy", SCRIPT, extension="", language="bash")  # by its shebang
    for code in (document("ops/backup.sh", SCRIPT), script, document("app/settings.py", PYTHON)):
        for chunk in chunker.split(code):
            assert "section" not in chunk.metadata, (code.id, chunk.label)
            assert chunk.label.startswith(f"{code.id}#chunk-"), chunk.label
    # a Markdown file whose front matter says `language: en` keeps its headings
    guide = document("docs/guide.md", GUIDE, language="en")
    assert not source_code(guide)
    assert document_sections(guide)(GUIDE.index("Run the")) == ("Guide > Install", "install")


def test_a_store_filter_names_a_layer_a_route_makes(tmp_path: Path, pm) -> None:
    layered = {
        "type": "route",
        "routes": [MARKDOWN_LAYERS],
    }
    stores = [{"type": "memory", "filter": {"layer": "sentence"}}, {"type": "bm25"}]
    with pytest.raises(ConfigError) as caught:
        ragloom.load(
            basic_config(chunker=layered, stores=stores), plugin_manager=pm, base_dir=tmp_path
        )
    assert "filters on layer 'sentence'" in str(caught.value)
    assert "did you mean 'sentences'?" in str(caught.value)
    stores[0]["filter"] = {"layer": "sentences"}
    ragloom.load(basic_config(chunker=layered, stores=stores), plugin_manager=pm, base_dir=tmp_path)


def test_every_wrong_route_is_reported_at_once(tmp_path: Path, pm) -> None:
    """A route's chunker is checked even when its match is wrong, and a route
    pydantic cannot read (no `chunker`) does not hide the other routes'
    problems: one config check names them all."""
    chunker = {
        "type": "route",
        "routes": [
            {"match": {"extension": "py"}, "chunker": {"type": "code", "sise": 3}},
            {"match": {"extension": ".sh"}},
            {"match": {"extension": ".md"}, "chunker": {"type": "markdown", "size": -1}},
            {"match": {"extension": ".csv"}, "chunker": {"type": "fixed"}},
        ],
        "default": {"type": "sentense"},
    }
    with pytest.raises(ConfigError) as caught:
        ragloom.load(basic_config(chunker=chunker), plugin_manager=pm, base_dir=tmp_path)
    said = [str(issue) for issue in caught.value.issues]
    assert len(said) == 5, said
    text = "\n".join(said)
    assert "routes[0].match.extension: 'py' matches no document" in text
    assert "routes[0] (code): sise: unknown option" in text
    assert "chunker.routes[1].chunker" in text and "missing" in text
    assert "routes[2] (markdown): size" in text
    assert "default: unknown chunker type 'sentense'" in text
    assert "routes[3]" not in text  # the right route is not blamed


def test_chunks_no_store_would_answer_with_are_reported(folder: Path, pm) -> None:
    """Under stores that each filter on `layer`, the chunks of a route that is
    not `layers` would be held and never found: the run says which documents,
    and says nothing once a store takes them."""
    layered = {
        "type": "route",
        "routes": [
            MARKDOWN_LAYERS,
            {"match": {"extension": {"$in": [".py", ".sh"]}}, "chunker": {"type": "code"}},
        ],
    }
    stores = [
        {"type": "memory", "name": "passages", "filter": {"layer": "passages"}},
        {"type": "bm25", "name": "sentences", "filter": {"layer": "sentences"}},
    ]
    loaders = [{"type": "directory", "path": "docs", "include": ["**/*"]}]
    config = basic_config(loaders=loaders, chunker=layered, stores=stores)
    with ragloom.load(config, plugin_manager=pm, base_dir=folder) as pipeline:
        report = pipeline.index()
    # one note for the run: the code route's files and the default's
    # Dockerfile; never the layered guide
    ((source, said),) = report.problems
    assert source == "stores" and "match no store's filter" in said, said
    assert "5 chunk(s) of 3 document(s) (docs/Dockerfile, docs/backup.sh, docs/invoices.py)" in said
    assert "no `layer`" in said and "guide.md" not in said
    assert report.ok
    # a store without a filter answers with every chunk: nothing to say
    stores.append({"type": "bm25", "name": "everything"})
    config = basic_config(loaders=loaders, chunker=layered, stores=stores)
    with ragloom.load(config, plugin_manager=pm, base_dir=folder) as pipeline:
        report = pipeline.index(rebuild=True)
    assert not report.problems and report.added


def test_the_note_names_the_fields_the_store_filters_look_at(folder: Path, pm) -> None:
    stores = [
        {"type": "memory", "name": "prose", "filter": {"extension": ".md"}},
        {"type": "bm25", "name": "words", "filter": {"extension": {"$in": [".md", ".txt"]}}},
    ]
    loaders = [{"type": "directory", "path": "docs", "include": ["**/*"]}]
    config = basic_config(loaders=loaders, chunker=ROUTED, stores=stores)
    with ragloom.load(config, plugin_manager=pm, base_dir=folder) as pipeline:
        ((source, said),) = pipeline.index().problems
    assert (
        source == "stores"
        and "3 document(s) (docs/Dockerfile, docs/backup.sh, docs/invoices.py)" in said
    )
    assert 'the first has `extension` ""' in said and "layer" not in said, said
