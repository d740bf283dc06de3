"""``retrieval.feedback``: the vector stores asked again with the question's
vector moved towards the first fused hits (Rocchio), so that a document
sharing no word with the question, but much with the best answer, is found."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pluggy
import pytest
import ragloom
from ragloom import hookimpl
from ragloom.builtin.stores.memory import MemoryStore
from ragloom.errors import ConfigValidationError
from ragloom.retrieval import feedback_vector
from ragloom.types import Chunk, Hit

from .conftest import basic_config

DOCUMENTS = {
    # the answer to "aurora borealis"
    "aurora.md": "The aurora borealis glows over Tromso fjords in deep polar winter nights.",
    # no word of the question; most of the answer's other words
    "tromso.md": "Tromso fjords in deep polar winter nights are long, cold and quiet.",
    **{
        f"filler{i}.md": f"Filler note {i} about spreadsheets, invoices and quarterly budgets."
        for i in range(6)
    },
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    for name, text in DOCUMENTS.items():
        (tmp_path / "docs" / name).write_text(text)
    return tmp_path


def config(feedback: dict | None, store: str = "memory", **overrides: Any) -> dict:
    retrieval: dict[str, Any] = {"k": 4}
    if feedback is not None:
        retrieval["feedback"] = feedback
    return basic_config(stores=[{"type": store}], retrieval=retrieval, **overrides)


def names(hits: list[Hit]) -> list[str]:
    return [Path(h.chunk.document_id).stem for h in hits]


def test_feedback_finds_a_document_that_shares_no_word_with_the_question(
    project: Path, pm: pluggy.PluginManager
) -> None:
    with ragloom.load(config(None), plugin_manager=pm, base_dir=project) as pipeline:
        pipeline.index()
        plain = pipeline.retrieve("aurora borealis")
    assert names(plain)[0] == "aurora"
    assert plain[1].score == pytest.approx(0.0, abs=1e-6)  # the rest: nothing in common

    fed_config = config({"docs": 1, "weight": 1.0}, index_dir=".ragloom-fed")
    with ragloom.load(fed_config, plugin_manager=pm, base_dir=project) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve("aurora borealis", explain=True)
        store = dict(pipeline.stores)["memory"]
        question = pipeline.embedder.embed_query("aurora borealis")
        by_hand = store.query(
            vector=_unit(_unit(question) + 1.0 * _unit(np.asarray(hits[0].vector))), k=4
        )
    assert names(hits)[:2] == ["aurora", "tromso"]
    assert hits[1].score > 0.2 and all(h.score < hits[1].score for h in hits[2:])
    # exactly Rocchio: the question's unit vector plus the first hit's, unit length again
    assert [h.chunk.id for h in hits] == [h.chunk.id for h in by_hand]
    assert [h.score for h in hits] == pytest.approx([h.score for h in by_hand], abs=1e-6)
    # the store was asked twice; the explanation says from what
    assert [t.name for t in hits.trace if t.stage == "retrieve"] == ["memory", "memory"]
    assert hits.explanation is not None and hits.explanation.feedback == {
        "docs": 1,
        "weight": 1.0,
        "from": [hits[0].chunk.id],
    }


def _unit(vector: Any) -> np.ndarray:
    vector = np.asarray(vector, dtype=np.float32)
    return vector / np.linalg.norm(vector)


class Vectorless(MemoryStore):
    """A vector store that returns its hits without their vectors (as remote
    stores may): feedback embeds the hits' texts instead."""

    def query(self, **kwargs: Any) -> list[Hit]:
        return [replace(h, vector=None) for h in super().query(**kwargs)]


class Plugin:
    @hookimpl
    def register_stores(self, register: Any) -> None:
        register("vectorless", Vectorless)


def test_hits_without_vectors_are_embedded_for_feedback(
    project: Path, pm: pluggy.PluginManager
) -> None:
    pm.register(Plugin(), name="vectorless")
    results = {}
    for store in ("memory", "vectorless"):
        cfg = config({"docs": 2, "weight": 0.7}, store=store, index_dir=f".ragloom-{store}")
        with ragloom.load(cfg, plugin_manager=pm, base_dir=project) as pipeline:
            pipeline.index()
            hits = pipeline.retrieve("aurora borealis")
        results[store] = [(h.chunk.id, round(h.score, 5)) for h in hits]
        embedded = [t for t in hits.trace if t.stage == "embed"]
        assert len(embedded) == (store == "vectorless")
    assert results["vectorless"] == results["memory"]


def test_feedback_embeds_without_holding_back_an_index_runs_writes(
    project: Path, pm: pluggy.PluginManager
) -> None:
    """The hits a store returned without vectors are embedded outside the
    store lock: a writer waiting for it gets it meanwhile. When the writer
    switched versions, the first lists (all of the pinned version) stand."""
    import threading

    pm.register(Plugin(), name="vectorless")
    cfg = config({"docs": 2, "weight": 0.7}, store="vectorless")
    with ragloom.load(cfg, plugin_manager=pm, base_dir=project) as pipeline:
        pipeline.index()
        embedder = pipeline.embedder
        plain = embedder.embed_documents
        wrote: list[bool] = []
        switch = False

        def embed_documents(texts: list[str]) -> Any:
            def write() -> None:
                with pipeline.state.lock.write():
                    wrote.append(True)
                    if switch:  # as an index run would: another version
                        view = pipeline.state.view
                        pipeline.state.set_view(replace(view, version=view.version + 1))

            writer = threading.Thread(target=write)
            writer.start()
            writer.join(timeout=10)
            return plain(texts)

        embedder.embed_documents = embed_documents  # type: ignore[method-assign]
        hits = pipeline.retrieve("aurora borealis")
        assert wrote == [True]  # the writer got the lock while feedback embedded
        asked = [t.name for t in hits.trace if t.stage == "retrieve"]
        assert asked == ["vectorless", "vectorless"]  # and the store was asked again
        assert names(hits)[0] == "aurora"

        switch, wrote[:] = True, []
        before = pipeline.state.view.version
        hits = pipeline.retrieve("aurora borealis")
        assert wrote == [True]
        # the version moved under the query: no second round, the first one's version
        assert [t.name for t in hits.trace if t.stage == "retrieve"] == ["vectorless"]
        assert hits.corpus_version == before


def chunk(doc: str, index: int, text: str = "text") -> Chunk:
    return Chunk(
        id=f"{doc}::{index}@s",
        document_id=doc,
        text=text,
        index=index,
        start=0,
        end=len(text),
        label=doc,
    )


def test_feedback_vector_stands_a_document_for_the_mean_of_its_chunks() -> None:
    question = np.array([1.0, 0.0, 0.0, 0.0])
    first = Hit(chunk=chunk("a", 0), score=1.0, store="s", vector=np.array([0.0, 2.0, 0.0, 0.0]))
    later = Hit(chunk=chunk("a", 1), score=0.5, store="s", vector=np.array([0.0, 0.0, 0.0, 5.0]))
    other = Hit(chunk=chunk("b", 0), score=0.9, store="t", vector=np.array([9.0, 9.0, 9.0, 0.0]))
    a_in_t = Hit(chunk=chunk("a", 2), score=0.8, store="t", vector=np.array([0.0, 0.0, 3.0, 0.0]))
    again = Hit(chunk=chunk("a", 0), score=0.7, store="t", vector=np.array([0.0, 2.0, 0.0, 0.0]))
    top = [first]
    lists = [[first, later], [other, a_in_t, again]]
    # by document: every chunk of a in any list, each once, each made unit length
    moved = feedback_vector(question, top, lists, by="document", weight=1.0)
    expected = np.array([1.0, 1 / 3, 1 / 3, 1 / 3])
    assert moved == pytest.approx(expected / np.linalg.norm(expected))
    # by chunk: only the chunk itself
    moved = feedback_vector(question, top, lists, by="chunk", weight=2.0)
    expected = np.array([1.0, 2.0, 0.0, 0.0])
    assert moved == pytest.approx(expected / np.linalg.norm(expected))
    assert moved.dtype == np.float32
    # two documents count once each, whatever their number of chunks
    b_top = Hit(chunk=chunk("b", 0), score=0.9, store="t")
    moved = feedback_vector(question, [first, b_top], lists, by="document", weight=1.0)
    b_unit = np.array([1.0, 1.0, 1.0, 0.0]) / np.sqrt(3)
    expected = np.array([1.0, 0.0, 0.0, 0.0]) + (np.array([0, 1 / 3, 1 / 3, 1 / 3]) + b_unit) / 2
    assert moved == pytest.approx(expected / np.linalg.norm(expected), abs=1e-6)


def test_feedback_vector_embeds_what_no_list_holds_with_its_vector() -> None:
    question = np.array([0.0, 3.0])
    asked: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        asked.append(texts)
        return np.array([[4.0, 0.0]] * len(texts))

    bare = Hit(chunk=chunk("a", 0, "alpha text"), score=1.0, store="s")
    moved = feedback_vector(question, [bare], [[bare]], weight=1.0, embed=embed)
    assert asked == [["alpha text"]]
    assert moved == pytest.approx(np.array([1.0, 1.0]) / np.sqrt(2))
    # nothing to embed with, or a zero question: the question as it was
    assert feedback_vector(question, [bare], [[bare]], embed=None) is question
    zero = np.zeros(2)
    assert feedback_vector(zero, [bare], [[bare]], embed=embed) is zero


def test_feedback_needs_a_vector_store(project: Path, pm: pluggy.PluginManager) -> None:
    bad = basic_config(stores=[{"type": "bm25"}], retrieval={"feedback": {"docs": 3}})
    with pytest.raises(ConfigValidationError) as caught:
        ragloom.load(bad, plugin_manager=pm, base_dir=project)
    message = str(caught.value)
    assert "retrieval.feedback" in message and "no store searches vectors" in message
    assert "add a vector store" in message


@pytest.mark.parametrize(
    ("feedback", "word"), [({"docs": 0}, "docs"), ({"weight": -1}, "weight"), ({"n": 2}, "n")]
)
def test_feedback_settings_are_checked(
    project: Path, pm: pluggy.PluginManager, feedback: dict, word: str
) -> None:
    with pytest.raises(ConfigValidationError) as caught:
        ragloom.load(config(feedback), plugin_manager=pm, base_dir=project)
    assert f"retrieval.feedback.{word}" in str(caught.value)


def test_feedback_round_trips_through_the_config_and_its_schema(
    project: Path, pm: pluggy.PluginManager
) -> None:
    from ragloom.registry import Registry
    from ragloom.schema import config_json_schema

    with ragloom.load(config({"docs": 2}), plugin_manager=pm, base_dir=project) as pipeline:
        assert pipeline.to_config()["retrieval"]["feedback"] == {"docs": 2}
        assert pipeline.config.retrieval.feedback is not None
        assert pipeline.config.retrieval.feedback.weight == 0.5
    schema = config_json_schema(Registry.from_plugin_manager(pm))
    feedback = schema["$defs"]["FeedbackSettings"]["properties"]
    assert set(feedback) == {"docs", "weight"}
