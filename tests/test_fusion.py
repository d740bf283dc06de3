from __future__ import annotations

import pytest
from ragloom.fusion import fuse, reciprocal_rank_fusion, weighted_fusion
from ragloom.types import Chunk, Hit


def hit(cid: str, score: float, store: str = "s") -> Hit:
    return Hit(Chunk(cid, "d", cid, 0, 0, 1, cid), score, store, {store: score})


def test_rrf_matches_formula() -> None:
    a = [hit("x", 0.9, "a"), hit("y", 0.8, "a")]
    b = [hit("y", 5.0, "b"), hit("z", 4.0, "b")]
    fused = reciprocal_rank_fusion([a, b], k=60)
    assert [h.chunk.id for h in fused] == ["y", "x", "z"]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)
    assert fused[0].scores["a"] == 0.8 and fused[0].scores["b"] == 5.0
    assert fused[0].scores["fusion"] == fused[0].score


def test_rrf_weights_change_order() -> None:
    a = [hit("x", 1, "a")]
    b = [hit("y", 1, "b")]
    assert fuse([a, b], weights=[1.0, 2.0])[0].chunk.id == "y"
    assert fuse([a, b], weights=[2.0, 1.0])[0].chunk.id == "x"


def test_weighted_fusion_normalises_scores() -> None:
    a = [hit("x", 100.0, "a"), hit("y", 50.0, "a"), hit("z", 0.0, "a")]
    b = [hit("z", 0.9, "b"), hit("y", 0.8, "b"), hit("x", 0.1, "b")]
    fused = weighted_fusion([a, b])
    scores = {h.chunk.id: h.score for h in fused}
    assert scores["x"] == pytest.approx(1.0)
    assert scores["y"] == pytest.approx(0.5 + 0.875)
    assert fused[0].chunk.id == "y"


def test_single_list_passes_through_and_unknown_method_fails() -> None:
    a = [hit("x", 0.3), hit("y", 0.2)]
    assert fuse([a]) == a
    with pytest.raises(ValueError, match="unknown fusion"):
        fuse([a, a], method="borda")


def test_dbsf_uses_mean_and_three_sigma() -> None:
    a = [hit("x", 10.0, "a"), hit("y", 2.0, "a"), hit("z", 0.0, "a")]
    fused = fuse([a, [hit("y", 1.0, "b")]], method="dbsf")
    mean = 4.0
    std = (((10 - mean) ** 2 + (2 - mean) ** 2 + (0 - mean) ** 2) / 3) ** 0.5
    low, high = mean - 3 * std, mean + 3 * std
    scores = {h.chunk.id: h.score for h in fused}
    assert scores["x"] == pytest.approx((10 - low) / (high - low))
    assert scores["y"] == pytest.approx((2 - low) / (high - low) + 1.0)
    assert [h.chunk.id for h in fused][0] == "y"


def test_fusion_keeps_the_vector_of_any_list() -> None:
    import numpy as np

    with_vector = Hit(
        Chunk("x", "d", "x", 0, 0, 1, "x"), 0.5, "dense", {"dense": 0.5}, vector=np.ones(3)
    )
    fused = fuse([[hit("x", 3.0, "bm25")], [with_vector]])
    assert fused[0].vector is not None
    assert set(fused[0].scores) == {"bm25", "dense", "fusion"}
