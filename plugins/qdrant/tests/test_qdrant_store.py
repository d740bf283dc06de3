"""What the contract does not cover: options, collections that do not fit,
one process per embedded folder, payload indexes, ids, hybrid fusion."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError
from ragloom import Chunk, Context
from ragloom.errors import DimensionMismatchError, StoreError
from ragloom.filters import parse
from ragloom.fusion import reciprocal_rank_fusion
from ragloom.testing import contract_chunks, contract_vectors

from ragloom_qdrant import POINT_NAMESPACE, QdrantStore, point_id

ENGINES = ["edge", "local"]


def opened(folder: Path, name: str = "q", fresh: bool = False, **options: Any) -> QdrantStore:
    store = QdrantStore(**options)
    store.open(Context(index_dir=folder, base_dir=folder, name=name, fresh=fresh))
    return store


def filled(folder: Path, **options: Any) -> QdrantStore:
    store = opened(folder, **options)
    store.upsert(contract_chunks(), contract_vectors())
    return store


class FakeEmbedder:
    """What a store reads of the embedder in ``open()``."""

    def __init__(self, dimension: int, similarity: str | None = None) -> None:
        self.dimension = dimension
        self.similarity = similarity

    def fingerprint(self) -> dict[str, Any]:
        return {"dimension": self.dimension}


# -- options -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"url": "http://q:6333", "path": "x"}, "either `url`"),
        ({"url": "http://q:6333", "engine": "local"}, "`engine`"),
        ({"api_key": "k"}, "only apply to a Qdrant server"),
        ({"prefer_grpc": True}, "only apply to a Qdrant server"),
        ({"k1": 1.2}, "only apply with `sparse: bm25`"),
        ({"server_fusion": True}, "only apply with `sparse: bm25`"),
        ({"collection": "../etc"}, "collection"),
        ({"url": "q.example.com:6333"}, "needs a scheme"),
        ({"exact": True, "ef": 64}, "`ef` does not apply"),
        ({"distance": "hamming"}, "distance"),
        ({"collectoin": "x"}, "collectoin"),
    ],
)
def test_bad_options_are_refused_with_what_to_do(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        QdrantStore(**options)


def test_the_api_key_is_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    store = QdrantStore(url="https://x.cloud.qdrant.io:6333", api_key="sk-very-secret")
    assert "sk-very-secret" not in repr(store) and "sk-very-secret" not in repr(store.config)


def test_point_ids_are_uuid5_of_chunk_ids() -> None:
    import uuid

    assert point_id("docs/a.md::0") == str(uuid.uuid5(POINT_NAMESPACE, "docs/a.md::0"))
    assert point_id("a") != point_id("b") and point_id("a") == point_id("a")


def test_path_and_collection_place_the_embedded_data(tmp_path: Path) -> None:
    store = opened(tmp_path, path="data/qdrant", collection="docs.v1")
    store.upsert(contract_chunks(), contract_vectors())
    store.close()
    assert (tmp_path / "data" / "qdrant" / "docs.v1" / "edge_config.json").exists()
    assert not (tmp_path / "q").exists()  # not <index_dir>/<name>
    again = opened(tmp_path, path=str(tmp_path / "data" / "qdrant"), collection="docs.v1")
    assert again.count() == 10
    again.close()


@pytest.mark.parametrize("engine", ENGINES)
def test_the_folders_it_creates_are_private(tmp_path: Path, engine: str) -> None:
    """The engines write document text (payloads, the write-ahead log) with
    the process umask; the folders ragloom creates for them are its owner's
    only, as index_dir is. A folder that exists is left as it is."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    index_dir = shared / "project" / ".ragloom"
    store = QdrantStore(engine=engine)
    store.open(Context(index_dir=index_dir, base_dir=shared, name="q"))
    store.upsert(contract_chunks(), contract_vectors())
    store.close()
    for folder in (shared / "project", index_dir, index_dir / "q"):
        assert folder.stat().st_mode & 0o077 == 0, folder
    assert shared.stat().st_mode & 0o777 == 0o755  # there before: left as it was


def test_a_store_without_sparse_answers_vectors_only(tmp_path: Path) -> None:
    assert QdrantStore().capabilities == frozenset({"dense"})
    assert QdrantStore(sparse="bm25").capabilities == frozenset({"dense", "text"})
    assert QdrantStore.capabilities == frozenset({"dense"})  # what `config check` reads
    store = filled(tmp_path)
    try:
        with pytest.raises(StoreError, match="vector queries"):
            store.query(text="alpha")
    finally:
        store.close()


# -- collections that do not fit ----------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
def test_another_dimension_fails_at_open_and_at_upsert(tmp_path: Path, engine: str) -> None:
    filled(tmp_path, engine=engine).close()
    store = QdrantStore(engine=engine)
    context = Context(
        index_dir=tmp_path, base_dir=tmp_path, name="q", services={"embedder": FakeEmbedder(384)}
    )
    with pytest.raises(DimensionMismatchError, match="16-dimensional.*384.*--rebuild"):
        store.open(context)
    store = opened(tmp_path, engine=engine)  # no embedder: the width shows at the upsert
    try:
        with pytest.raises(DimensionMismatchError):
            store.upsert(contract_chunks()[:1], np.ones((1, 384), dtype=np.float32))
        assert store.count() == 10
    finally:
        store.close()


@pytest.mark.parametrize("engine", ENGINES)
def test_another_distance_or_vector_name_fails_clearly(tmp_path: Path, engine: str) -> None:
    filled(tmp_path, engine=engine).close()
    with pytest.raises(StoreError, match="cosine distance, this store by dot.*distance: cosine"):
        opened(tmp_path, engine=engine, distance="dot")
    with pytest.raises(StoreError, match="no dense vector named 'text'.*'dense'"):
        opened(tmp_path, engine=engine, vector_name="text")
    embedder = FakeEmbedder(16, similarity="dot")  # the embedder says dot: the same refusal
    store = QdrantStore(engine=engine)
    context = Context(
        index_dir=tmp_path, base_dir=tmp_path, name="q", services={"embedder": embedder}
    )
    with pytest.raises(StoreError, match="cosine distance, this store by dot"):
        store.open(context)


@pytest.mark.parametrize("engine", ENGINES)
def test_sparse_settings_must_match_the_collection(tmp_path: Path, engine: str) -> None:
    filled(tmp_path, engine=engine).close()
    with pytest.raises(StoreError, match="no 'bm25' sparse vectors.*--rebuild"):
        opened(tmp_path, engine=engine, sparse="bm25")
    other = tmp_path / "other"
    filled(other, engine=engine, sparse="bm25").close()
    with pytest.raises(StoreError, match="other settings \\(analyzer differ\\).*--rebuild"):
        opened(other, engine=engine, sparse="bm25", analyzer={"language": "none"})
    with pytest.raises(StoreError, match="avg_len, k1"):
        opened(other, engine=engine, sparse="bm25", k1=1.2, avg_len=100)
    store = opened(other, engine=engine)  # dense only: the BM25 vectors are ignored
    assert store.count() == 10
    store.close()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_rebuild_starts_afresh_whatever_the_collection_was(tmp_path: Path, engine: str) -> None:
    filled(tmp_path, engine=engine).close()
    store = QdrantStore(engine=engine, sparse="bm25")
    store.open(
        Context(
            index_dir=tmp_path,
            base_dir=tmp_path,
            name="q",
            fresh=True,
            services={"embedder": FakeEmbedder(8)},
        )
    )
    try:
        assert store.count() == 0
        store.upsert(contract_chunks()[:2], np.ones((2, 8), dtype=np.float32))
        assert [h.chunk.id for h in store.query(text="alpha")] == ["c01"]
    finally:
        store.close()


def test_a_folder_of_the_other_engine_is_refused(tmp_path: Path) -> None:
    filled(tmp_path, engine="edge").close()
    with pytest.raises(StoreError, match="written by the 'edge' engine: set `engine: edge`"):
        opened(tmp_path, engine="local")
    filled(tmp_path / "l", engine="local").close()
    with pytest.raises(StoreError, match="written by the 'local' engine"):
        opened(tmp_path / "l", engine="edge")


@pytest.mark.parametrize(("was", "now"), [("local", "edge"), ("edge", "local")])
def test_a_fresh_open_with_the_other_engine_forgets_the_first_ones_copy(
    tmp_path: Path, was: str, now: str
) -> None:
    """``--rebuild``, as the refusal above advises: the other engine's copy of
    the collection goes, or every later open would be refused again."""
    filled(tmp_path, engine=was).close()
    store = opened(tmp_path, engine=now, fresh=True)
    try:
        store.upsert(contract_chunks()[:2], contract_vectors()[:2])
    finally:
        store.close()
    again = opened(tmp_path, engine=now)  # not refused
    try:
        assert again.count() == 2
    finally:
        again.close()


def test_a_collection_of_other_points_is_refused_when_read(tmp_path: Path) -> None:
    from qdrant_client import QdrantClient, models

    client = QdrantClient(path=str(tmp_path / "q"))
    client.create_collection(
        "ragloom", vectors_config={"dense": models.VectorParams(size=4, distance="Cosine")}
    )
    client.upsert("ragloom", [models.PointStruct(id=1, vector={"dense": [1, 0, 0, 0]}, payload={})])
    client.close()
    store = opened(tmp_path, engine="local")
    try:
        with pytest.raises(StoreError, match="holds no ragloom chunk.*collection of its own"):
            store.query(vector=np.ones(4, dtype=np.float32))
    finally:
        store.close()


# -- one process per embedded folder --------------------------------------------------------
HOLDER = """
import sys, time
from ragloom import Context
from ragloom_qdrant import QdrantStore
from pathlib import Path
path = Path(sys.argv[1])
store = QdrantStore(engine=sys.argv[2])
store.open(Context(index_dir=path, base_dir=path, name="q"))
print("open", flush=True)
sys.stdin.read()
store.close()
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_another_process_cannot_open_the_folder(tmp_path: Path, engine: str) -> None:
    """An embedded engine belongs to one process: the second one is told, at
    open, to run Qdrant as a server; once the first closes, it opens."""
    filled(tmp_path, engine=engine).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(HOLDER), str(tmp_path), engine],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(StoreError, match="open in another process.*as a server.*`url:`"):
            opened(tmp_path, engine=engine)
    finally:
        holder.communicate("", timeout=60)
    store = opened(tmp_path, engine=engine)
    assert store.count() == 10
    store.close()


@pytest.mark.parametrize("engine", ENGINES)
def test_stores_of_one_process_share_the_engine(tmp_path: Path, engine: str) -> None:
    first, second = opened(tmp_path, engine=engine), opened(tmp_path, engine=engine)
    try:
        first.upsert(contract_chunks(), contract_vectors())
        assert second.count() == 10  # no refresh needed
        third = opened(tmp_path, engine=engine, fresh=True)  # a rebuild, meanwhile
        assert first.count() == 0 and second.count() == 0
        third.upsert(contract_chunks()[:3], contract_vectors()[:3])
        assert sorted(second.ids()) == ["c01", "c02", "c03"]
        third.close()
        first.close()
        assert second.count() == 3  # still open: the last to close closes the engine
    finally:
        second.close()


# -- writes and reads ----------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
def test_upserts_go_in_batches_and_later_duplicates_win(tmp_path: Path, engine: str) -> None:
    store = opened(tmp_path, engine=engine, batch_size=3)
    try:
        chunks = contract_chunks()
        again = replace(chunks[0], text="replaced")
        store.upsert([*chunks, again], np.vstack([contract_vectors(), contract_vectors()[:1]]))
        assert store.count() == 10
        assert sorted(store.ids()) == sorted(c.id for c in chunks)
        first = store.query(vector=contract_vectors()[0], k=1)[0]
        assert first.chunk == again
    finally:
        store.close()


def test_metadata_qdrant_cannot_hold_fails_before_any_write(tmp_path: Path) -> None:
    store = opened(tmp_path)
    try:
        chunks = contract_chunks()
        bad = replace(chunks[5], metadata={"size": float("inf")})
        with pytest.raises(StoreError, match="c06.*'size'.*store it as a string"):
            store.upsert([*chunks[:5], bad], contract_vectors()[:6])
        huge = replace(chunks[5], metadata={"id": 2**70})
        with pytest.raises(StoreError, match="64 bits"):
            store.upsert([huge], contract_vectors()[:1])
        assert store.count() == 0
    finally:
        store.close()


def test_payload_indexes_cover_the_filtered_fields(tmp_path: Path) -> None:
    store = QdrantStore(index_fields=["year"])
    store.open(
        Context(
            index_dir=tmp_path,
            base_dir=tmp_path,
            name="q",
            filter_fields=frozenset({"document_id", "principals"}),
        )
    )
    try:
        store.upsert(contract_chunks(), contract_vectors())
        info = store._engine.info()  # type: ignore[union-attr]
        assert info is not None
        indexed = info.payload_indexes
        # each field's values of the types it holds: year has numbers and "2024";
        # no contract chunk has a document_id in its metadata: nothing to index
        wanted = {"_fields", "_filter.principals.s"}
        assert wanted | {"_filter.year.n", "_filter.year.s"} == indexed
        store.upsert([replace(contract_chunks()[0], metadata={"year": True})], np.ones((1, 16)))
        assert "_filter.year.b" in store._engine.info().payload_indexes  # type: ignore[union-attr]
    finally:
        store.close()


@pytest.mark.parametrize("engine", ENGINES)
def test_hit_vectors_only_when_asked(tmp_path: Path, engine: str) -> None:
    plain = filled(tmp_path / "a", engine=engine)
    with_vectors = filled(tmp_path / "b", engine=engine, return_vectors=True)
    try:
        query = contract_vectors()[3]
        assert all(h.vector is None for h in plain.query(vector=query, k=3))
        hits = with_vectors.query(vector=query, k=3)
        assert np.allclose(hits[0].vector, query, atol=1e-6)
    finally:
        plain.close()
        with_vectors.close()


@pytest.mark.parametrize("options", [{"distance": "euclid"}, {"distance": "manhattan"}])
def test_distances_rank_best_first_with_higher_scores(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    store = filled(tmp_path, **options)
    try:
        hits = store.query(vector=contract_vectors()[0], k=4)
        assert [h.chunk.id for h in hits] == ["c01", "c02", "c03", "c04"]
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
    finally:
        store.close()


@pytest.mark.parametrize(
    "options",
    [
        {"quantization": "int8", "on_disk": True},
        {"hnsw_m": 8, "hnsw_ef_construct": 32, "ef": 16},
        {"exact": True},
        {"engine": "local", "quantization": "int8", "hnsw_m": 8},
    ],
)
def test_index_options_make_a_working_collection(tmp_path: Path, options: dict[str, Any]) -> None:
    store = filled(tmp_path, **options)
    try:
        hits = store.query(vector=contract_vectors()[9], k=3, where=parse({"year": {"$gte": 2024}}))
        assert [h.chunk.id for h in hits] == ["c10", "c07", "c03"]
    finally:
        store.close()


def test_queries_from_several_threads(tmp_path: Path) -> None:
    store = filled(tmp_path)
    try:
        where = parse({"category": {"$in": ["pricing", "security"]}})
        expected = [h.chunk.id for h in store.query(vector=contract_vectors()[4], k=3, where=where)]
        results: list[list[str]] = []

        def run() -> None:
            for _ in range(20):
                hits = store.query(vector=contract_vectors()[4], k=3, where=where)
                results.append([h.chunk.id for h in hits])

        threads = [threading.Thread(target=run) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(results) == 80 and all(r == expected for r in results)
    finally:
        store.close()


def test_delete_by_ids_and_filter_counts_each_chunk_once(tmp_path: Path) -> None:
    store = filled(tmp_path)
    try:
        deleted = store.delete(ids=["c01", "c02", "nope"], where=parse({"category": "pricing"}))
        assert deleted == 3  # c01, c02 by id and filter, c10 by filter
        assert store.count() == 7
    finally:
        store.close()


# -- hybrid ------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
def test_hybrid_query_fuses_both_halves_as_the_pipeline_would(tmp_path: Path, engine: str) -> None:
    store = filled(tmp_path, engine=engine, sparse="bm25")
    try:
        vector, text = contract_vectors()[6], "alpha bravo pricing notes"
        dense = store.query(vector=vector, k=5)
        keyword = store.query(text=text, k=5)
        expected = reciprocal_rank_fusion([dense, keyword], k=60)
        hybrid = store.query(vector=vector, text=text, k=5)
        assert [h.chunk.id for h in hybrid] == [h.chunk.id for h in expected][:5]
        top = hybrid[0]
        assert top.scores["q"] == top.score == expected[0].score
        halves = {"q.dense": dense, "q.bm25": keyword}
        for key, hits in halves.items():  # each half's score kept beside the fused one
            if key in top.scores:
                assert top.scores[key] == next(h.score for h in hits if h.chunk == top.chunk)
    finally:
        store.close()


def _word_chunks(count: int = 40) -> tuple[list[Chunk], np.ndarray]:
    """Chunks with random words and vectors, each text of another length: no
    ties, so every order is defined."""
    rng = np.random.default_rng(5)
    words = [f"{a}{b}" for a in "bcdfghklmn" for b in "aeiou"]  # 50 words
    chunks = []
    for i in range(count):
        text = " ".join(rng.choice(words, size=3 + i))
        chunks.append(Chunk(f"w{i:02d}", f"d{i}", text, 0, 0, len(text), f"w{i:02d}#0", {}))
    return chunks, rng.standard_normal((count, 16)).astype(np.float32)


def _by_score(hits: list[Any], top: int = 5) -> dict[float, set[str]]:
    """The ids at each score above the ``top``-th hit's: what a fusion decides,
    whatever order it gives equal scores."""
    cutoff = round(hits[top - 1].score, 6)
    groups: dict[float, set[str]] = {}
    for h in hits:
        if round(h.score, 6) > cutoff:
            groups.setdefault(round(h.score, 6), set()).add(h.chunk.id)
    return groups


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("fusion", ["rrf", "dbsf"])
def test_server_fusion_agrees_with_fusion_in_the_store(
    tmp_path: Path, engine: str, fusion: str
) -> None:
    """Qdrant's RRF (given k + 1: it ranks from 0) and DBSF (mean ∓ 3 sample
    standard deviations, not clipped) fuse as the store does."""
    chunks, vectors = _word_chunks()
    stores = []
    for name, server in (("a", False), ("b", True)):
        store = opened(tmp_path / name, engine=engine, sparse="bm25", fusion=fusion,
                       server_fusion=server)  # fmt: skip
        store.upsert(chunks, vectors)
        stores.append(store)
    here, there = stores
    try:
        for i, text in enumerate(["ba ce di", "ko", "hu na mi fe"]):
            vector = vectors[i] + vectors[i + 1]
            ours = here.query(vector=vector, text=text, k=8)
            theirs = there.query(vector=vector, text=text, k=8)
            if fusion == "rrf":  # equal scores, the same chunks at each (ties in any order)
                assert _by_score(ours) == _by_score(theirs), text
            else:  # the same formula; Qdrant computes in float32
                assert [h.chunk.id for h in ours[:5]] == [h.chunk.id for h in theirs[:5]], text
                for a, b in zip(ours[:5], theirs[:5]):
                    assert a.score == pytest.approx(b.score, rel=1e-4)
    finally:
        here.close()
        there.close()


def test_bm25_scores_follow_term_counts_and_idf(tmp_path: Path) -> None:
    store = opened(tmp_path, sparse="bm25", avg_len=4)
    texts = [
        "zephyr zephyr quartz basalt",
        "zephyr quartz basalt granite",
        "quartz basalt granite slate",
    ]
    chunks = [Chunk(f"k{i}", f"d{i}", t, 0, 0, len(t), f"k{i}#0", {}) for i, t in enumerate(texts)]
    try:
        store.upsert(chunks, np.eye(3, 4, dtype=np.float32))
        hits = store.query(text="zephyr", k=5)
        assert [h.chunk.id for h in hits] == ["k0", "k1"]
        # Lucene BM25: idf = ln(1 + (N - n + .5) / (n + .5)); tf / (tf + k1 (1 - b + b len/avg))
        idf = np.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
        assert hits[0].score == pytest.approx(idf * 2 / (2 + 1.5), rel=1e-5)
        assert store.query(text="the and of", k=5) == []  # stopwords only: no terms
    finally:
        store.close()


def test_only_a_server_takes_writes_from_other_processes() -> None:
    """``shared_writes``: a Qdrant server (``url``) may be written by an
    executor's workers at once; an embedded collection belongs to one process."""
    assert QdrantStore(url="http://127.0.0.1:6333").shared_writes is True
    assert QdrantStore().shared_writes is False
    assert QdrantStore(path="q").shared_writes is False
