"""The loader contract: the tests every ``ragloom.Loader`` passes, built-in or plugin.

Subclass ``LoaderContract`` and give it two fixtures: ``loader_factory``, a
callable ``(root: Path) -> Loader`` building an *unopened* loader that reads
what lies in the folder ``root`` (a folder of files, or one file in it), and
``write_sources``, a callable ``(root: Path) -> int`` that writes the
sources of one document or more there (creating ``root``) and returns how
many documents the loader should give::

    import pytest
    from ragloom.testing import LoaderContract

    class TestMyLoader(LoaderContract):
        @pytest.fixture
        def loader_factory(self):
            return lambda root: MyLoader(path=str(root / "notes"))

        @pytest.fixture
        def write_sources(self):
            def write(root):
                (root / "notes").mkdir(parents=True)
                for name in ("a", "b", "c"):
                    (root / "notes" / f"{name}.note").write_text(f"Note {name}.")
                return 3
            return write

A loader of many sources that reports a bad one and goes on subclasses
``ReportingLoaderContract`` instead, with a third fixture,
``write_unreadable``: ``(root: Path) -> str``, which adds one source the
loader cannot read (a corrupt file, a malformed record) after
``write_sources`` ran, and returns a part of its name that the report shows.

What it checks:

- each source gives one document, with a unique, non-empty id, text, and a
  ``source`` in its metadata;
- the same sources give the same ids and texts on every load, from another
  instance too, and wherever the project lies: ids that name the project's
  folder would make every document new once it moves (a restore, another
  machine), and the old ones deleted;
- a root that is missing (an unmounted share, a renamed folder) raises
  ``SourceUnavailableError`` rather than giving no documents: an index run
  would delete every document the loader indexed before;
- (``ReportingLoaderContract``) an unreadable source is reported through
  ``Context.report`` and skipped, and the others still load.

The loader is opened with ``Context(base_dir=project)``, ``root`` being a
folder inside ``project``: paths in its options may be relative to it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..components import Context, Loader
from ..errors import SourceUnavailableError
from ..types import Document

if TYPE_CHECKING:
    LoaderFactory = Callable[[Path], Loader]

__all__ = ["CONTRACT_LOADER_NAME", "LoaderContract", "ReportingLoaderContract"]

CONTRACT_LOADER_NAME = "contract"


def load_in(loader: Loader, project: Path) -> tuple[list[Document], list[tuple[str, str]]]:
    """Open ``loader`` in the project folder ``project`` and load: its
    documents, and what it reported (``(source, message)`` pairs)."""
    reports: list[tuple[str, str]] = []
    loader.open(
        Context(
            index_dir=project / ".ragloom",
            base_dir=project,
            name=CONTRACT_LOADER_NAME,
            report=lambda source, message: reports.append((source, message)),
        )
    )
    return list(loader.load()), reports


class LoaderContract:
    """What every loader passes (see the module docs)."""

    @pytest.fixture
    def load(
        self, loader_factory: LoaderFactory
    ) -> Iterator[Callable[..., tuple[list[Document], list[tuple[str, str]]]]]:
        """``load(project, root)``: the documents and the reports of one load."""
        opened: list[Loader] = []

        def run(project: Path, root: Path) -> tuple[list[Document], list[tuple[str, str]]]:
            loader = loader_factory(root)
            opened.append(loader)
            return load_in(loader, project)

        yield run
        for loader in opened:
            loader.close()

    def test_each_source_is_one_document(
        self, load: Any, write_sources: Callable[[Path], int], tmp_path: Path
    ) -> None:
        root = tmp_path / "project" / "data"
        expected = write_sources(root)
        assert expected >= 1, "write_sources must write the sources of one document or more"
        documents, reports = load(tmp_path / "project", root)
        assert not reports, f"readable sources were reported: {reports}"
        assert len(documents) == expected, f"{len(documents)} document(s), not {expected}"
        ids = [d.id for d in documents]
        assert all(isinstance(i, str) and i for i in ids), f"empty or non-text ids: {ids}"
        assert len(set(ids)) == len(ids), f"ids repeat: {ids}"
        for document in documents:
            assert isinstance(document, Document)
            assert isinstance(document.text, str) and document.text.strip(), document.id
            assert document.metadata.get("source"), f"{document.id!r} has no metadata source"

    def test_ids_and_texts_are_stable_wherever_the_project_lies(
        self, load: Any, write_sources: Callable[[Path], int], tmp_path: Path
    ) -> None:
        first = tmp_path / "one" / "project"
        write_sources(first / "data")
        documents, _ = load(first, first / "data")
        again, _ = load(first, first / "data")
        seen = {d.id: d.text for d in documents}
        assert {d.id: d.text for d in again} == seen, "a second load gave other documents"
        moved = tmp_path / "two" / "elsewhere"
        shutil.copytree(first, moved)
        there, _ = load(moved, moved / "data")
        assert {d.id: d.text for d in there} == seen, (
            "the same project in another folder gave other ids: an index run after a move "
            "(a restore, another machine) would add every document again and delete the old"
        )

    def test_a_missing_root_is_unavailable_not_empty(
        self, load: Any, write_sources: Callable[[Path], int], tmp_path: Path
    ) -> None:
        project = tmp_path / "project"
        write_sources(project / "data")
        shutil.rmtree(project / "data")  # unmounted, renamed, deleted
        with pytest.raises(SourceUnavailableError):
            load(project, project / "data")


class ReportingLoaderContract(LoaderContract):
    """A loader of many sources: one it cannot read is reported, the rest load."""

    def test_an_unreadable_source_is_reported_and_the_rest_load(
        self,
        load: Any,
        write_sources: Callable[[Path], int],
        write_unreadable: Callable[[Path], str],
        tmp_path: Path,
    ) -> None:
        root = tmp_path / "project" / "data"
        expected = write_sources(root)
        named = write_unreadable(root)
        documents, reports = load(tmp_path / "project", root)
        assert len(documents) == expected, (
            f"{len(documents)} document(s) beside the unreadable source, not {expected}"
        )
        assert any(named in f"{source} {message}" for source, message in reports), (
            f"the unreadable source ({named!r}) was not reported: {reports}"
        )
