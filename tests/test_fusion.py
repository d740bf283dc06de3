from __future__ import annotations

from dataclasses import replace

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
    """Qdrant's formula: sample standard deviation, and a lone hit counts 0.5."""
    a = [hit("x", 10.0, "a"), hit("y", 2.0, "a"), hit("z", 0.0, "a")]
    fused = fuse([a, [hit("y", 1.0, "b")]], method="dbsf")
    mean = 4.0
    std = (((10 - mean) ** 2 + (2 - mean) ** 2 + (0 - mean) ** 2) / 2) ** 0.5
    low, high = mean - 3 * std, mean + 3 * std
    scores = {h.chunk.id: h.score for h in fused}
    assert scores["x"] == pytest.approx((10 - low) / (high - low))
    assert scores["y"] == pytest.approx((2 - low) / (high - low) + 0.5)
    assert [h.chunk.id for h in fused][0] == "y"


def test_dbsf_keeps_the_order_of_outlying_top_scores() -> None:
    """A deep list whose best hits lie beyond mean + 3σ: they keep their
    order (clipped to 1.0 they tied, and the other list decided alone)."""
    deep = [hit("best", 40.0, "a"), hit("second", 30.0, "a"), hit("third", 20.0, "a")]
    deep += [hit(f"tail{i}", 1.0 + i / 1000, "a") for i in range(300)]
    other = [hit(f"o{i}", 1.0 - i / 100, "b") for i in range(3)]
    fused = fuse([deep, other], method="dbsf", limit=3)
    assert [h.chunk.id for h in fused] == ["best", "second", "third"]
    assert fused[0].score > fused[1].score > fused[2].score > 1.0


def test_fusion_keeps_the_vector_of_any_list() -> None:
    import numpy as np

    with_vector = Hit(
        Chunk("x", "d", "x", 0, 0, 1, "x"), 0.5, "dense", {"dense": 0.5}, vector=np.ones(3)
    )
    fused = fuse([[hit("x", 3.0, "bm25")], [with_vector]])
    assert fused[0].vector is not None
    assert set(fused[0].scores) == {"bm25", "dense", "fusion"}


def doc_hit(cid: str, doc: str, score: float, store: str, vector=None) -> Hit:
    return Hit(Chunk(cid, doc, cid, 0, 0, 1, cid), score, store, {store: score}, vector)


def test_fusion_by_document_adds_up_what_different_chunks_earned() -> None:
    # d1 is found by both stores through different chunks; d2's chunk by both
    dense = [doc_hit("d2#0", "d2", 0.9, "dense"), doc_hit("d1#0", "d1", 0.8, "dense")]
    sparse = [doc_hit("d1#3", "d1", 9.0, "bm25"), doc_hit("d3#0", "d3", 1.0, "bm25")]
    by_chunk = fuse([dense, sparse], method="rrf", k=60)
    assert [h.chunk.id for h in by_chunk] == ["d2#0", "d1#3", "d1#0", "d3#0"]
    by_document = fuse([dense, sparse], method="rrf", k=60, by="document")
    assert [h.chunk.document_id for h in by_document] == ["d1", "d2", "d3"]
    first = by_document[0]
    assert first.score == pytest.approx(1 / 62 + 1 / 61)
    assert first.chunk.id == "d1#3"  # the copy that contributed most (rank 1 beats rank 2)
    assert first.scores == {"dense": 0.8, "bm25": 9.0, "fusion": first.score}


def test_fusion_by_document_keeps_each_lists_best_chunk_only() -> None:
    # a document's second chunk in a list neither adds to it nor shifts the ranks
    dense = [
        doc_hit("a#0", "a", 0.9, "dense"),
        doc_hit("a#1", "a", 0.85, "dense"),
        doc_hit("b#0", "b", 0.5, "dense"),
    ]
    sparse = [doc_hit("b#0", "b", 4.0, "bm25"), doc_hit("c#0", "c", 2.0, "bm25")]
    fused = weighted_fusion([dense, sparse], by="document")
    scores = {h.chunk.document_id: h.score for h in fused}
    # min-max over dense's per-document list [0.9, 0.5], then bm25's [4, 2]
    assert scores == pytest.approx({"a": 1.0, "b": 1.0, "c": 0.0})
    assert [h.chunk.id for h in fused] == ["a#0", "b#0", "c#0"]  # ties: first seen
    single = fuse([dense], by="document")
    assert [h.chunk.id for h in single] == ["a#0", "b#0"]
    with pytest.raises(ValueError, match="unknown fusion unit"):
        fuse([dense, sparse], by="page")


def test_fusion_by_document_never_lends_a_chunk_another_chunks_vector() -> None:
    import numpy as np

    dense = [doc_hit("a#1", "a", 0.2, "dense", vector=np.ones(3))]
    sparse = [doc_hit("a#0", "a", 5.0, "bm25"), doc_hit("b#0", "b", 1.0, "bm25")]
    fused = fuse([dense, sparse], weights=[0.5, 1.0], by="document")
    assert fused[0].chunk.id == "a#0" and fused[0].vector is None
    same = fuse([dense, [doc_hit("a#1", "a", 5.0, "bm25")]], weights=[0.5, 1.0], by="document")
    assert same[0].vector is not None


def test_dbsf_ignores_nan_and_rounding_noise() -> None:
    """A NaN score counts 0 and does not spoil its list's statistics; a spread
    within rounding is no spread."""
    from ragloom.fusion import distribution_scores

    dense = [hit(f"c{i}", 0.9 - i / 10, "a") for i in range(4)]
    sparse = [hit("c5", 12.0, "b"), hit("c1", float("nan"), "b"), hit("c2", 3.0, "b")]
    fused = fuse([dense, sparse], method="dbsf")
    assert all(h.score == h.score for h in fused)  # no NaN
    clean = fuse([dense, [sparse[0], sparse[2]]], method="dbsf")
    assert [h.chunk.id for h in fused] == [h.chunk.id for h in clean]
    assert distribution_scores([0.1 + 0.2, 0.3]) == [0.5, 0.5]
    assert (
        distribution_scores([float("inf"), 1.0, 2.0, 3.0])[0]
        == distribution_scores([float("inf"), 1.0, 2.0, 3.0])[3]
    )


def test_weighted_ignores_nan() -> None:
    """A NaN score counts 0 in ``weighted`` too, and leaves the others' range."""
    from ragloom.fusion import minmax_scores

    assert minmax_scores([3.0, float("nan"), 1.0, 2.0]) == [1.0, 0.0, 0.0, 0.5]
    assert minmax_scores([float("inf"), 1.0, float("-inf")]) == [1.0, 1.0, 0.0]
    dense = [hit(f"c{i}", 0.9 - i / 10, "a") for i in range(4)]
    sparse = [hit("c5", 12.0, "b"), hit("c1", float("nan"), "b"), hit("c2", 3.0, "b")]
    fused = fuse([dense, sparse], method="weighted")
    assert all(h.score == h.score for h in fused)


def record(cid: str, record_id: str, score: float, store: str = "bm25") -> Hit:
    chunk = Chunk(cid, cid, f"incident {record_id}", 0, 0, 10, cid, {"record_id": record_id})
    return Hit(chunk=chunk, score=score, store=store, scores={store: score})


def test_a_record_the_question_names_comes_first_from_any_stores_candidates() -> None:
    """RRF weighs ranks only: a record keyword search found far ahead (its id
    in the question) sank below passages both stores placed in the middle,
    and past k. `retrieval.exact_ids` puts it first, scored as the top hit."""
    from ragloom.retrieval import named_records_first

    fused = [hit("post-1", 0.0325), hit("post-8", 0.0320), hit("readme", 0.0300)]
    lists = [
        [record("inc-6", "INC-1006", 1.56), hit("post-8", 0.41), hit("post-1", 0.40)],
        [hit("post-1", 0.8), hit("post-8", 0.7), record("inc-7", "INC-1007", 0.1)],
    ]
    got = named_records_first("What was the root cause of inc-1006?", fused, lists)
    assert [h.chunk.id for h in got] == ["inc-6", "post-1", "post-8"]  # as long as it was
    assert got[0].score == 0.0325 and got[0].scores["named"] == 1.0
    # no id in the question, or none that is a record's: the fused order as it was
    for question in ("What was the root cause?", "What happened in INC-2000?", "Is v2 out?"):
        assert named_records_first(question, fused, lists) == fused
    # two named: in the order the stores found them
    both = named_records_first("INC-1007 and INC-1006?", fused, lists)
    assert [h.chunk.id for h in both[:2]] == ["inc-6", "inc-7"]


def test_a_table_row_the_question_names_comes_first() -> None:
    """A Markdown table of error codes: the chunk with the row labelled with
    the code the question names comes first, where rank fusion tied it with
    the embedder's near miss (each first in one list) and it lost the tie."""
    from ragloom.retrieval import named_records_first

    def rows(cid: str, *codes: str) -> Hit:
        text = "| Code | Message |\n|---|---|\n" + "".join(f"| `{c}` | text |\n" for c in codes)
        return Hit(chunk=Chunk(cid, "errors.md", text, 0, 0, len(text), cid, {}), score=0.0164)

    near, right = rows("near", "E1346", "E1348"), rows("right", "E1347", "E1349")
    fused = [near, right, hit("intro", 0.0150)]
    lists = [[near, hit("intro", 0.5)], [right, hit("intro", 3.0)]]
    got = named_records_first("What does error E1347 mean?", fused, lists)
    assert [h.chunk.id for h in got] == ["right", "near", "intro"]
    # a code named in another cell, or inside a longer label, is no row's label
    mention = rows("mention", "E9000")
    mention = replace(mention, chunk=replace(mention.chunk, text="| E9000 | see E1347 |\n"))
    assert named_records_first("What does E1347 mean?", [mention, near], [[mention, near]]) == [
        mention,
        near,
    ]
    # one hit a document under fuse_by: document, the promoted chunk in its place
    other = hit("other", 0.0140)
    by_doc = named_records_first(
        "What does error E1347 mean?", [near, other], lists, by_document=True
    )
    assert [h.chunk.id for h in by_doc] == ["right", "other"]
    # a feature matrix's short token is no id: "2FA" or "v2.4" promotes no row
    matrix = rows("matrix", "2FA", "v2.4")
    for question in ("How do I enable 2FA?", "What changed in v2.4?"):
        assert named_records_first(question, [near, matrix], [[near, matrix]]) == [near, matrix]


def test_exact_ids_in_a_pipeline_and_switched_off(tmp_path, pm) -> None:
    import ragloom

    from .conftest import basic_config

    (tmp_path / "docs").mkdir()
    rows = "\n".join(f"INC-10{i:02d},service {i} failed,cause {i}" for i in range(1, 13))
    (tmp_path / "docs" / "incidents.csv").write_text("id,title,root_cause\n" + rows + "\n")
    for i in (1, 8):
        (tmp_path / "docs" / f"INC-10{i:02d}.md").write_text(
            f"# Post-mortem INC-10{i:02d}\n\nThe root cause of the incident was a failed deploy.\n"
        )
    loaders = [
        {"type": "directory", "path": "docs", "include": ["*.md"]},
        {"type": "csv", "path": "docs/incidents.csv", "id_field": "id", "field_labels": True,
         "text_fields": ["id", "title", "root_cause"]},
    ]  # fmt: skip
    question = "What was the root cause of INC-1006?"
    with ragloom.load(basic_config(loaders=loaders), plugin_manager=pm, base_dir=tmp_path) as p:
        p.index()
        hits = p.retrieve(question, k=3)
        assert hits[0].chunk.metadata["record_id"] == "INC-1006" and "named" in hits[0].scores
    off = basic_config(loaders=loaders, retrieval={"exact_ids": False})
    with ragloom.load(off, plugin_manager=pm, base_dir=tmp_path) as p:
        assert not any("named" in h.scores for h in p.retrieve(question, k=3))
