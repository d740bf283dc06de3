"""A loader plugin's bugs are reported where they are, and lose nothing: a
loader that raises part way fails alone (its documents kept, the other
loaders go on), and a document that is no document (text None, metadata
that is not JSON) is skipped with a line naming the loader, its indexed
version kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import ragloom
from ragloom import Document, Loader, hookimpl
from ragloom.components import ComponentConfig
from ragloom.plugins import build_plugin_manager

from .conftest import basic_config

BUG: dict[str, str] = {"kind": ""}


class Faq(Loader):
    """Three FAQ entries; ``BUG["kind"]`` breaks the second one."""

    class Config(ComponentConfig):
        pass

    def load(self):  # type: ignore[no-untyped-def]
        for i, text in enumerate(["Refunds take 30 days.", "Trials last 14 days.", "No fax."]):
            doc = Document(f"faq#{i}", text, {"source": "faq.txt"})
            if i == 1 and BUG["kind"] == "raise":
                raise KeyError("answer")
            if i == 1 and BUG["kind"] == "text_none":
                doc = Document(doc.id, None, doc.metadata)  # type: ignore[arg-type]
            if i == 1 and BUG["kind"] == "numpy_meta":  # np.int64 from pandas: fine
                doc = Document(doc.id, doc.text, {"source": "faq.txt", "n": np.int64(3)})
            if i == 1 and BUG["kind"] == "bad_meta":
                doc = Document(doc.id, doc.text, {"source": "faq.txt", "when": object()})
            yield doc


class Plugin:
    @hookimpl
    def register_loaders(self, register: Any) -> None:
        register("faq", Faq)


def _pipeline(root: Path) -> ragloom.Pipeline:
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(Plugin(), name="faq")
    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / "docs" / "other.md").write_text("# Other\n\nThe office has a quokka.\n")
    config = basic_config(loaders=[{"type": "faq"}, {"type": "directory", "path": "docs"}])
    return ragloom.load(config, plugin_manager=pm, base_dir=root)


def _ids(pipeline: ragloom.Pipeline) -> set[str]:
    hits = pipeline.retrieve("refunds trials fax quokka days office", k=20)
    return {h.chunk.document_id for h in hits}


@pytest.fixture(autouse=True)
def _no_bug() -> Any:
    BUG["kind"] = ""
    yield
    BUG["kind"] = ""


def test_a_loader_that_raises_part_way_fails_alone_and_keeps_its_documents(
    tmp_path: Path,
) -> None:
    with _pipeline(tmp_path) as pipeline:
        assert len(pipeline.index().added) == 4
        (tmp_path / "docs" / "new.md").write_text("# New\n\nThe new wombat.\n")
        BUG["kind"] = "raise"
        report = pipeline.index()
        assert report.deleted == () and report.added == ("docs/new.md",), report
        assert len(report.errors) == 1
        error = report.errors[0][1]
        assert "loader faq (Faq) failed after document 'faq#0'" in error
        assert "KeyError('answer')" in error and "kept" in error
        assert {"faq#0", "faq#1", "faq#2"} <= _ids(pipeline)


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("text_none", "a document whose text is NoneType, not a string"),
        ("bad_meta", "a document whose metadata is not JSON"),
    ],
)
def test_a_malformed_document_is_skipped_naming_the_loader_and_its_version_kept(
    tmp_path: Path, kind: str, said: str
) -> None:
    with _pipeline(tmp_path) as pipeline:
        assert len(pipeline.index().added) == 4
        BUG["kind"] = kind
        report = pipeline.index()
        assert report.deleted == () and report.errors == (), report
        assert "faq#1" in report.kept
        problems = dict(report.problems)
        assert said in problems["faq#1"] and "loader faq" in problems["faq#1"]
        assert "faq#1" in _ids(pipeline)
        # a first run with the bug: the document is not indexed, the rest is
    with _pipeline(tmp_path / "fresh") as pipeline:
        report = pipeline.index()
        assert sorted(report.added) == ["docs/other.md", "faq#0", "faq#2"]


def test_a_run_limited_to_sources_names_a_loader_that_cannot_limit_itself(
    tmp_path: Path,
) -> None:
    """`ragloom index faq.txt` blamed the path when the loader simply has no
    ``with_sources``."""
    from ragloom.errors import RagloomError

    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(Plugin(), name="faq")
    config = basic_config(loaders=[{"type": "faq"}])
    with (
        ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline,
        pytest.raises(RagloomError) as info,
    ):
        pipeline.index(sources=[str(tmp_path / "faq.txt")])
    message = str(info.value)
    assert "is covered by a configured loader" in message
    assert "loader faq cannot limit a run to some sources" in message
    assert "with_sources()" in message


def test_numpy_numbers_in_metadata_are_no_malformed_document(tmp_path: Path) -> None:
    BUG["kind"] = "numpy_meta"
    with _pipeline(tmp_path) as pipeline:
        report = pipeline.index()
    assert "faq#1" in report.added and not report.problems, report
