"""Every built-in loader passes ``ragloom.testing.LoaderContract`` (and, for
those that read many sources, ``ReportingLoaderContract``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ragloom.builtin.loaders.code import CodeLoader
from ragloom.builtin.loaders.directory import DirectoryLoader
from ragloom.builtin.loaders.file import FileLoader
from ragloom.builtin.loaders.html import HtmlLoader
from ragloom.builtin.loaders.markdown import MarkdownLoader
from ragloom.builtin.loaders.pdf import PdfLoader
from ragloom.builtin.loaders.records import CsvLoader, JsonlLoader
from ragloom.errors import SourceUnavailableError
from ragloom.testing import LoaderContract, ReportingLoaderContract
from ragloom.testing.loaders import load_in
from ragloom.types import Document

Writer = Callable[[Path], int]


def _files(suffix: str, body: Callable[[str], str | bytes], count: int = 3) -> Writer:
    def write(root: Path) -> int:
        (root / "sub").mkdir(parents=True)
        for i in range(count):
            path = root / ("sub" if i == count - 1 else "") / f"doc{i}{suffix}"
            content = body(f"Document {i} says the guild meets on day {i}.")
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, "utf-8")
        return count

    return write


def _pdf(text: str) -> bytes:
    """A one-page PDF holding ``text`` (pypdf writes it; reportlab is not needed)."""
    from io import BytesIO

    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(width=300, height=200)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
    )
    stream = DecodedStreamObject()
    stream.set_data(f"BT /F1 10 Tf 10 100 Td ({text}) Tj ET".encode("latin-1"))
    page[NameObject("/Contents")] = writer._add_object(stream)
    out = BytesIO()
    writer.write(out)
    return out.getvalue()


class TestDirectory(ReportingLoaderContract):
    @pytest.fixture
    def loader_factory(self) -> Any:
        return lambda root: DirectoryLoader(path=str(root))

    @pytest.fixture
    def write_sources(self) -> Writer:
        def write(root: Path) -> int:
            _files(".md", lambda text: f"# Notes\n\n{text}\n")(root)
            (root / "sub" / "deeper").mkdir()
            (root / "sub" / "deeper" / "page.html").write_text(
                "<html><body><p>The guild meets.</p></body></html>", "utf-8"
            )
            (root / "sub" / "minutes.pdf").write_bytes(_pdf("Minutes of the guild."))
            (root / "tool.py").write_text("def meet() -> int:\n    return 1\n", "utf-8")
            return 6

        return write

    @pytest.fixture
    def write_unreadable(self) -> Callable[[Path], str]:
        def write(root: Path) -> str:
            (root / "broken.pdf").write_bytes(b"%PDF-1.4 cut short")
            return "broken.pdf"

        return write


def _one_file(name: str, body: str | bytes) -> Writer:
    def write(root: Path) -> int:
        root.mkdir(parents=True)
        if isinstance(body, bytes):
            (root / name).write_bytes(body)
        else:
            (root / name).write_text(body, "utf-8")
        return 1

    return write


class TestMarkdown(LoaderContract):
    @pytest.fixture
    def loader_factory(self) -> Any:
        return lambda root: MarkdownLoader(path=str(root / "notes.md"))

    @pytest.fixture
    def write_sources(self) -> Writer:
        return _one_file("notes.md", "---\ntitle: Notes\n---\n# Notes\n\nThe guild meets.\n")


class TestHtml(LoaderContract):
    @pytest.fixture
    def loader_factory(self) -> Any:
        return lambda root: HtmlLoader(path=str(root / "notes.html"))

    @pytest.fixture
    def write_sources(self) -> Writer:
        return _one_file(
            "notes.html", "<html><body><h1>Notes</h1><p>The guild meets.</p></body></html>"
        )


class TestCode(LoaderContract):
    @pytest.fixture
    def loader_factory(self) -> Any:
        return lambda root: CodeLoader(path=str(root / "guild.py"))

    @pytest.fixture
    def write_sources(self) -> Writer:
        return _one_file("guild.py", '"""The guild."""\n\n\ndef meet() -> int:\n    return 1\n')


class TestPdf(LoaderContract):
    @pytest.fixture
    def loader_factory(self) -> Any:
        return lambda root: PdfLoader(path=str(root / "notes.pdf"))

    @pytest.fixture
    def write_sources(self) -> Writer:
        return _one_file("notes.pdf", _pdf("The guild meets on Mondays."))


class TestFile(LoaderContract):
    @pytest.fixture
    def loader_factory(self) -> Any:
        return lambda root: FileLoader(path=str(root / "notes.txt"))

    @pytest.fixture
    def write_sources(self) -> Writer:
        return _one_file("notes.txt", "The guild meets weekly.\n")


def _records(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


class TestJsonl(ReportingLoaderContract):
    @pytest.fixture
    def loader_factory(self) -> Any:
        return lambda root: JsonlLoader(
            path=str(root / "faq.jsonl"), id_field="id", text_fields=["answer"]
        )

    @pytest.fixture
    def write_sources(self) -> Writer:
        def write(root: Path) -> int:
            root.mkdir(parents=True)
            rows = [{"id": f"q{i}", "answer": f"Answer {i}: on day {i}."} for i in range(4)]
            (root / "faq.jsonl").write_text(_records(rows), "utf-8")
            return 4

        return write

    @pytest.fixture
    def write_unreadable(self) -> Callable[[Path], str]:
        def write(root: Path) -> str:
            with (root / "faq.jsonl").open("a", encoding="utf-8") as handle:
                handle.write('{"id": "q9", "answer": "cut sh\n')
            return "faq.jsonl"

        return write


class TestCsv(ReportingLoaderContract):
    @pytest.fixture
    def loader_factory(self) -> Any:
        return lambda root: CsvLoader(
            path=str(root / "faq.csv"), id_field="id", text_fields=["answer"]
        )

    @pytest.fixture
    def write_sources(self) -> Writer:
        def write(root: Path) -> int:
            root.mkdir(parents=True)
            lines = ["id,answer"] + [f"q{i},Answer {i} on day {i}." for i in range(3)]
            (root / "faq.csv").write_text("\n".join(lines) + "\n", "utf-8")
            return 3

        return write

    @pytest.fixture
    def write_unreadable(self) -> Callable[[Path], str]:
        def write(root: Path) -> str:
            with (root / "faq.csv").open("a", encoding="utf-8") as handle:
                handle.write("q9,\n")  # no text
            return "faq.csv"

        return write


class AbsoluteIds(DirectoryLoader):
    """Names each document by its absolute path."""

    def load(self) -> Iterator[Document]:
        for document in super().load():
            yield Document(str(Path(document.metadata["path"]).resolve()), document.text,
                           document.metadata)  # fmt: skip


class QuietWhenMissing(DirectoryLoader):
    """Gives no documents when its folder is gone."""

    def load(self) -> Iterator[Document]:
        try:
            yield from super().load()
        except SourceUnavailableError:
            return


def test_the_contract_catches_ids_that_move_and_a_missing_root_taken_for_empty(
    tmp_path: Path,
) -> None:
    contract = LoaderContract()
    write = _files(".md", lambda text: f"# Notes\n\n{text}\n")

    def load_with(cls: type[DirectoryLoader]) -> Callable[..., Any]:
        return lambda project, root: load_in(cls(path=str(root)), project)

    # the control: the directory loader itself passes both
    contract.test_ids_and_texts_are_stable_wherever_the_project_lies(
        load_with(DirectoryLoader), write, tmp_path / "control"
    )
    contract.test_a_missing_root_is_unavailable_not_empty(
        load_with(DirectoryLoader), write, tmp_path / "control-missing"
    )
    contract.test_each_source_is_one_document(load_with(AbsoluteIds), write, tmp_path / "a")
    with pytest.raises(AssertionError, match="in another folder gave other ids"):
        contract.test_ids_and_texts_are_stable_wherever_the_project_lies(
            load_with(AbsoluteIds), write, tmp_path / "b"
        )
    with pytest.raises(pytest.fail.Exception, match="DID NOT RAISE"):
        contract.test_a_missing_root_is_unavailable_not_empty(
            load_with(QuietWhenMissing), write, tmp_path / "c"
        )
