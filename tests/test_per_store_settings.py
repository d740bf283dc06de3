"""A store's own ``k`` and ``weight`` (``stores: [{type: ..., k: 2, weight: 3}]``)
reach retrieval: two stores that rank the same documents in opposite orders,
so the fused order shows whose weight won and whose list was cut."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pluggy
import pytest
import ragloom
from ragloom import ComponentConfig
from ragloom.fusion import FUSION_METHODS
from ragloom.types import Hit

from .conftest import DictStore, basic_config, register_store

DOCUMENTS = {"a.md": "Alpha.\n", "b.md": "Bravo.\n", "c.md": "Charlie.\n"}


class Ranked(DictStore):
    """Holds chunks in memory and ranks them in the order its ``order`` option
    gives their documents, whatever the query; records the ``k`` it was asked for."""

    capabilities = frozenset({"text"})

    class Config(ComponentConfig):
        order: list[str]

    config: Config
    asked: dict[str, list[int]] = {}

    def query(self, *, vector=None, text=None, k=10, where=None) -> list[Hit]:
        type(self).asked.setdefault(self.context.name, []).append(k)
        order = self.config.order
        ranked = sorted(self.chunks.values(), key=lambda c: order.index(c.document_id))[:k]
        name = self.context.name
        return [
            Hit(chunk=c, score=float(len(order) - i), store=name, scores={name: len(order) - i})
            for i, c in enumerate(ranked)
        ]


@pytest.fixture
def project(tmp_path: Path, pm: pluggy.PluginManager) -> Path:
    register_store(pm, "ranked", Ranked)
    Ranked.asked = {}
    (tmp_path / "docs").mkdir()
    for name, text in DOCUMENTS.items():
        (tmp_path / "docs" / name).write_text(text)
    return tmp_path


def ranked(name: str, order: list[str], **settings: object) -> dict:
    return {"type": "ranked", "name": name, "order": [f"docs/{o}.md" for o in order], **settings}


def documents(hits: Sequence[Hit]) -> list[str]:
    return [h.chunk.document_id.removeprefix("docs/").removesuffix(".md") for h in hits]


@pytest.mark.parametrize("fusion", FUSION_METHODS)
def test_the_heavier_store_wins_when_stores_disagree(
    project: Path, pm: pluggy.PluginManager, fusion: str
) -> None:
    def top(forward: float, backward: float) -> list[str]:
        config = basic_config(
            stores=[
                ranked("forward", ["a", "b", "c"], weight=forward),
                ranked("backward", ["c", "b", "a"], weight=backward),
            ],
            retrieval={"k": 3, "fusion": fusion},
            index_dir=f".ragloom-{forward}-{backward}",  # the store keeps nothing on disk
        )
        with ragloom.load(config, plugin_manager=pm, base_dir=project) as pipeline:
            pipeline.index()
            return documents(pipeline.retrieve("anything"))

    assert top(3.0, 1.0)[0] == "a"
    assert top(1.0, 3.0)[0] == "c"
    assert top(1.0, 0.0) == ["a", "b", "c"]  # weight 0: that store's list counts for nothing
    assert top(0.0, 1.0) == ["c", "b", "a"]


def test_a_stores_k_limits_its_own_list_only(project: Path, pm: pluggy.PluginManager) -> None:
    config = basic_config(
        stores=[ranked("forward", ["a", "b", "c"], k=1), ranked("backward", ["c", "b", "a"])],
        retrieval={"k": 3, "candidates": 10},
    )
    with ragloom.load(config, plugin_manager=pm, base_dir=project) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve("anything")
    assert Ranked.asked == {"forward": [1], "backward": [10]}
    by_document = {d: set(h.scores) - {"fusion"} for d, h in zip(documents(hits), hits)}
    assert by_document == {"a": {"forward", "backward"}, "b": {"backward"}, "c": {"backward"}}
    # a: ranks 1 and 3; c: rank 1 in one list only (rrf, k=60)
    assert documents(hits) == ["a", "c", "b"]
