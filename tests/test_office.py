"""What the Office readers (Word, PowerPoint, Excel) share: zip bombs are
not unpacked, and a missing library is one line per package."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from ragloom.builtin.loaders.directory import DirectoryLoader
from ragloom.builtin.loaders.parsers import docx as docx_parser
from ragloom.builtin.loaders.parsers import pptx as pptx_parser
from ragloom.builtin.loaders.parsers import xlsx as xlsx_parser

from . import test_docx, test_pptx, test_xlsx
from .formats import read, unpacked_but_media, write

FORMATS: dict[str, tuple[Callable[[], bytes], object, str, str]] = {
    # extension: (a sample file, its parser module, the module it imports, the extra)
    "docx": (lambda: test_docx.saved(test_docx.policy()), docx_parser, "docx", "docx"),
    "pptx": (lambda: test_pptx.saved(test_pptx.deck()), pptx_parser, "pptx", "pptx"),
    "xlsx": (lambda: test_xlsx.saved(test_xlsx.price_list()), xlsx_parser, "openpyxl", "xlsx"),
}


@pytest.mark.parametrize("extension", sorted(FORMATS))
def test_a_zip_bomb_is_not_unpacked(tmp_path: Path, context, monkeypatch, extension) -> None:
    sample, parser, _, _ = FORMATS[extension]
    data = sample()
    unpacked = unpacked_but_media(data)
    monkeypatch.setattr(parser, "MAX_UNPACKED", unpacked - 1)
    assert read(context, write(tmp_path, f"big.{extension}", data)) == []
    [(_, message)] = context.report
    assert f"unpack to {unpacked:,} bytes" in message and "zip bomb" in message


@pytest.mark.parametrize("extension", sorted(FORMATS))
def test_without_its_library_one_line_says_what_to_install(
    tmp_path: Path, context, monkeypatch, extension
) -> None:
    _, _, module, extra = FORMATS[extension]
    monkeypatch.setitem(sys.modules, module, None)  # importing it now fails
    for name in ("a", "b"):
        write(tmp_path, f"docs/{name}.{extension}", b"PK\x03\x04 word/ ppt/ xl/")
    write(tmp_path, "docs/c.md", b"# C\n\nText.\n")
    loader = DirectoryLoader(path="docs", include=["**/*.md", f"**/*.{extension}"])
    loader.open(context)
    assert [d.id for d in loader.load()] == ["docs/c.md"]
    [(source, message)] = context.report
    assert source == "docs"
    assert f"skipped 2 files (docs/a.{extension}, ...; indexed versions kept)" in message
    assert f"pip install 'ragloom[{extra}]'" in message
