"""What a store's ``query`` returns is held to the store contract before
anything uses it: a plugin that breaks it gets a clear error naming the
store, or is put right (with one warning), and a store that ignores the
access filter leaks nothing."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import ragloom
from ragloom import Hit, hookimpl
from ragloom.builtin.stores.bm25 import BM25Store
from ragloom.errors import StoreError
from ragloom.plugins import build_plugin_manager

from .conftest import basic_config

FAULT: dict[str, str] = {"kind": ""}


class Faulty(BM25Store):
    """bm25, answering as ``FAULT["kind"]`` says a buggy plugin might."""

    def query(self, **kwargs: Any) -> Any:
        kwargs.pop("where", None) if FAULT["kind"] == "ignore_where" else None
        hits = super().query(**kwargs)
        kind = FAULT["kind"]
        if kind == "twice":
            return hits + hits
        if kind == "worst_first":
            return list(reversed(hits))
        if kind == "nan":
            return [replace(hits[0], score=float("nan")), *hits[1:]]
        if kind == "dicts":
            return [{"chunk": h.chunk.id, "score": h.score} for h in hits]
        if kind == "none":
            return None
        if kind == "text_score":
            return [Hit(h.chunk, str(h.score), h.store, h.scores) for h in hits]
        if kind == "tuple":
            return tuple(hits)
        if kind == "print":
            print("querying!")
        return hits

    def open(self, context: Any = None) -> None:
        if FAULT["kind"] == "print":
            print("opening!")
        super().open(context)

    def upsert(self, chunks: Any, vectors: Any = None) -> None:
        if FAULT["kind"] == "print":
            print(f"writing {len(chunks)} chunk(s)")
        super().upsert(chunks, vectors)


class Plugin:
    @hookimpl
    def register_stores(self, register: Any) -> None:
        register("faulty", Faulty)


DOCS = {
    "pay.md": "Refunds are paid within 30 days of a refund request.",
    "notes.md": "Deleted notes are kept for 30 days before a refund of storage.",
    "trial.md": "The trial lasts 30 days and needs no card.",
    "office.md": "The office is closed on public holidays.",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    for name, text in DOCS.items():
        (tmp_path / "docs" / name).write_text(text + "\n", encoding="utf-8")
    return tmp_path


def _pipeline(root: Path, **overrides: Any) -> ragloom.Pipeline:
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(Plugin(), name="faulty")
    config = basic_config(stores=[{"type": "faulty", "name": "kw"}], retrieval={"k": 3})
    config.update(overrides)
    return ragloom.load(config, plugin_manager=pm, base_dir=root)


def _truthful(root: Path, question: str) -> list[tuple[str, float]]:
    FAULT["kind"] = ""
    with _pipeline(root) as pipeline:
        pipeline.index()
        return [(h.chunk.id, h.score) for h in pipeline.retrieve(question)]


@pytest.mark.parametrize("kind", ["twice", "worst_first", "tuple"])
def test_a_store_breaking_order_or_uniqueness_is_put_right_and_said_once(
    project: Path, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    expected = _truthful(project, "refund 30 days")
    assert len(expected) == 3
    FAULT["kind"] = kind
    try:
        with _pipeline(project) as pipeline, caplog.at_level(logging.WARNING, "ragloom"):
            for _ in range(3):
                hits = pipeline.retrieve("refund 30 days")
                assert [(h.chunk.id, h.score) for h in hits] == expected
    finally:
        FAULT["kind"] = ""
    said = [r.getMessage() for r in caplog.records if "breaks the store contract" in r.getMessage()]
    if kind == "tuple":  # a tuple in the right order: accepted as the list it holds
        assert said == []
    else:
        assert len(said) == 1, said
        assert "'kw'" in said[0]
        assert ("more than once" if kind == "twice" else "not best first") in said[0]


def test_nan_scores_rank_last(project: Path, caplog: pytest.LogCaptureFixture) -> None:
    FAULT["kind"] = "nan"
    try:
        with _pipeline(project) as pipeline, caplog.at_level(logging.WARNING, "ragloom"):
            pipeline.index()
            hits = pipeline.retrieve("refund 30 days", k=10)
    finally:
        FAULT["kind"] = ""
    scores = [h.score for h in hits]
    assert scores[-1] != scores[-1]  # the NaN one, last
    assert all(s == s for s in scores[:-1])
    assert "NaN scores" in caplog.text


@pytest.mark.parametrize(
    ("kind", "shown"),
    [
        ("dicts", "a list holding dict"),
        ("none", "NoneType"),
        ("text_score", "a hit whose score is str"),
    ],
)
def test_a_store_returning_other_types_is_a_store_error_naming_it(
    project: Path, kind: str, shown: str
) -> None:
    FAULT["kind"] = ""
    with _pipeline(project) as pipeline:
        pipeline.index()
        FAULT["kind"] = kind
        try:
            with pytest.raises(StoreError) as raised:
                pipeline.retrieve("refund 30 days")
        finally:
            FAULT["kind"] = ""
    message = str(raised.value)
    assert "store 'kw' (faulty)" in message
    assert shown in message
    assert "StoreContract" in message


def test_a_store_ignoring_the_access_filter_leaks_nothing(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    access = {
        "unlabeled": "deny",
        "rules": [
            {"path": "docs/pay.md", "principals": ["group:finance"]},
            {"path": "docs/*.md", "principals": ["group:staff"]},
        ],
    }
    FAULT["kind"] = ""
    with _pipeline(project, access=access) as pipeline:
        pipeline.index()
        honest = pipeline.retrieve("refund 30 days", principals=["group:staff"])
        FAULT["kind"] = "ignore_where"
        try:
            with caplog.at_level(logging.ERROR, "ragloom"):
                staff = pipeline.retrieve("refund 30 days", principals=["group:staff"])
                nobody = pipeline.retrieve("refund 30 days", principals=["bob"])
                finance = pipeline.retrieve("refund 30 days", principals=["group:finance"])
        finally:
            FAULT["kind"] = ""
    # pay.md is the finance group's and the staff's; the rest only the staff's
    assert {h.chunk.source for h in staff} == {h.chunk.source for h in honest}
    assert "docs/pay.md" in {h.chunk.source for h in staff}
    assert list(nobody) == []
    assert {h.chunk.source for h in finance} == {"docs/pay.md"}
    assert caplog.text.count("does not apply the filter") == 1


def test_what_a_plugin_prints_never_reaches_the_json_a_command_prints(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    import ragloom.cli
    import ragloom.plugins
    import yaml

    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(Plugin(), name="faulty")
    monkeypatch.setattr(ragloom.plugins, "_pm", pm)
    monkeypatch.setattr(ragloom.plugins, "_registry", None)
    config = basic_config(stores=[{"type": "faulty", "name": "kw"}], retrieval={"k": 3})
    (project / "ragloom.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.chdir(project)
    FAULT["kind"] = "print"

    def run(*argv: str) -> tuple[object, str]:
        try:
            ragloom.cli.main(list(argv))
        except SystemExit as exc:
            assert not exc.code, capsys.readouterr()
        out, err = capsys.readouterr()
        return json.loads(out), err  # the whole of stdout is the command's JSON

    try:
        assert "writing" in run("index", "--json")[1]
        hits, err = run("search", "--json", "refund 30 days")
        assert hits and "querying!" in err
        answer, err = run("ask", "--json", "How long do refunds take?")
        assert "opening!" in err  # printed while the pipeline opens, before `with`
        assert isinstance(answer, dict) and answer["answer"]
    finally:
        FAULT["kind"] = ""
