from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ragloom.builtin.stores.bm25 import BM25Store
from ragloom.builtin.stores.memory import MemoryStore
from ragloom.components import Context
from ragloom.errors import DimensionMismatchError, UnsupportedFilterError
from ragloom.filters import parse
from ragloom.types import Chunk

TEXTS = [
    ("a", "The Pro plan costs 29 dollars per month", {"category": "pricing", "year": 2024}),
    ("b", "Refunds are possible within 30 days", {"category": "pricing", "year": 2023}),
    ("c", "Data is encrypted with AES-256 at rest", {"category": "security", "year": 2024}),
    ("d", "Memories are kept for 90 days", {"category": "memory", "year": 2022}),
]


def chunks() -> list[Chunk]:
    return [
        Chunk(
            cid, f"doc-{cid}", text, 0, 0, len(text), f"{cid}.md#0", {"source": f"{cid}.md", **meta}
        )
        for cid, text, meta in TEXTS
    ]


def vectors() -> np.ndarray:
    return np.eye(4, 8, dtype=np.float32) + 0.01


def opened(store, tmp_path: Path, name: str):
    store.open(Context(index_dir=tmp_path, base_dir=tmp_path, name=name))
    return store


def test_memory_nearest_neighbour_order_and_filter(tmp_path: Path) -> None:
    store = opened(MemoryStore(), tmp_path, "memory")
    store.upsert(chunks(), vectors())
    q = np.zeros(8, dtype=np.float32)
    q[2], q[0] = 1.0, 0.5
    hits = store.query(vector=q, k=2)
    assert [h.chunk.id for h in hits] == ["c", "a"]
    assert hits[0].score > hits[1].score and hits[0].store == "memory"
    filtered = store.query(vector=q, k=10, where=parse({"category": "pricing"}))
    assert [h.chunk.id for h in filtered] == ["a", "b"]
    assert store.query(vector=q, k=10, where=parse({"year": {"$gt": 2030}})) == []


def many(n: int) -> list[Chunk]:
    return [Chunk(f"c{i}", f"doc-{i}", f"text {i}", 0, 0, 6, f"{i}.md#0", {}) for i in range(n)]


@pytest.mark.parametrize("tied", [3, 40, 400])
def test_memory_top_k_is_exact_with_ties_in_insertion_order(tmp_path: Path, tied: int) -> None:
    """The top k by a score threshold: tied best rows come in insertion order,
    whether a few tie at the cut or most of the store does (the fallback)."""
    rng = np.random.default_rng(tied)
    n = 1000
    vectors = rng.normal(size=(n, 8)).astype(np.float32)
    vectors[:, 0] = np.abs(vectors[:, 0]) * 0.1  # every row's score well under the tied ones'
    best = np.sort(rng.choice(n, size=tied, replace=False))
    vectors[best] = np.eye(8, dtype=np.float32)[0]
    store = opened(MemoryStore(metric="dot"), tmp_path, "memory")
    store.upsert(many(n), vectors)
    q = np.eye(8, dtype=np.float32)[0]
    hits = store.query(vector=q, k=10)
    expected = sorted(range(n), key=lambda i: (-float(vectors[i] @ q), i))[:10]
    assert [h.chunk.id for h in hits] == [f"c{i}" for i in expected]
    assert [h.score for h in hits[: min(tied, 10)]] == [1.0] * min(tied, 10)


def test_memory_top_k_leaves_out_a_row_whose_score_is_nan(tmp_path: Path) -> None:
    store = opened(MemoryStore(metric="dot"), tmp_path, "memory")
    vectors = np.eye(5, 4, dtype=np.float32)
    vectors[1] = np.nan
    store.upsert(many(5), vectors)
    hits = store.query(vector=np.array([1.0, 1.0, 1.0, 1.0], np.float32), k=3)
    assert [h.chunk.id for h in hits] == ["c0", "c2", "c3"]


def test_memory_upsert_is_idempotent_and_replaces(tmp_path: Path) -> None:
    store = opened(MemoryStore(), tmp_path, "memory")
    store.upsert(chunks(), vectors())
    store.upsert(chunks(), vectors())
    assert store.count() == 4
    replaced = Chunk("a", "doc-a", "new text", 0, 0, 8, "a.md#0", {"source": "a.md"})
    v = np.zeros((1, 8), dtype=np.float32)
    v[0, 7] = 1
    store.upsert([replaced], v)
    q = np.zeros(8, dtype=np.float32)
    q[7] = 1
    top = store.query(vector=q, k=1)[0]
    assert top.chunk.text == "new text" and store.count() == 4


def test_memory_delete_count_and_persistence(tmp_path: Path) -> None:
    store = opened(MemoryStore(), tmp_path, "memory")
    store.upsert(chunks(), vectors())
    assert store.delete(ids=["a", "zzz"]) == 1
    assert store.delete(where=parse({"category": "security"})) == 1
    assert store.count() == 2
    assert store.count(parse({"category": "memory"})) == 1
    store.close()
    assert (tmp_path / "memory" / "memory.npz").exists()
    again = opened(MemoryStore(), tmp_path, "memory")
    assert again.count() == 2
    q = np.zeros(8, dtype=np.float32)
    q[3] = 1
    assert again.query(vector=q, k=1)[0].chunk.id == "d"


def test_a_flush_with_nothing_new_leaves_the_file_but_keeps_a_precision_change(
    tmp_path: Path,
) -> None:
    store = opened(MemoryStore(precision="int8"), tmp_path, "memory")
    store.upsert(chunks(), vectors())
    store.flush()
    file = tmp_path / "memory" / "memory.npz"
    written = (file.stat().st_ino, file.stat().st_mtime_ns)
    store.flush()  # nothing new: the file stays as it is
    assert (file.stat().st_ino, file.stat().st_mtime_ns) == written
    widened = opened(MemoryStore(precision="float32"), tmp_path, "memory")
    widened.close()  # a reader closing writes nothing
    assert np.load(file)["vectors"].dtype == np.int8
    widened = opened(MemoryStore(precision="float32"), tmp_path, "memory")
    widened.flush()  # an index run's flush keeps the precision the config asks for
    assert np.load(file)["vectors"].dtype == np.float32
    assert opened(MemoryStore(precision="float32"), tmp_path, "memory").count() == 4


@pytest.mark.parametrize("kind", ["memory", "bm25"])
def test_close_never_writes_over_a_file_another_process_replaced(
    tmp_path: Path, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A store left with writes it never flushed (a failed index run's) is
    closed after another process committed a run: the newer file stays."""

    def make():
        return opened(MemoryStore() if kind == "memory" else BM25Store(), tmp_path, kind)

    stale = make()
    stale.upsert(chunks()[:1], vectors()[:1])  # never flushed
    writer = make()
    writer.upsert(chunks(), vectors())
    writer.flush()
    file = next((tmp_path / kind).glob("*.npz"))
    written = (file.stat().st_ino, file.stat().st_mtime_ns)
    with caplog.at_level("WARNING", logger="ragloom"):
        stale.close()
    assert (file.stat().st_ino, file.stat().st_mtime_ns) == written
    assert "another process replaced it" in caplog.text
    assert make().count() == 4
    alone = make()  # the file as it read it: close persists, as before
    alone.delete(ids=["a"])
    alone.close()
    assert make().count() == 3


def test_memory_dimension_mismatch(tmp_path: Path) -> None:
    store = opened(MemoryStore(), tmp_path, "memory")
    store.upsert(chunks(), vectors())
    with pytest.raises(DimensionMismatchError, match="rebuild"):
        store.upsert(chunks()[:1], np.ones((1, 3), dtype=np.float32))
    with pytest.raises(DimensionMismatchError):
        store.query(vector=np.ones(3, dtype=np.float32), k=1)


def test_memory_empty_store(tmp_path: Path) -> None:
    store = opened(MemoryStore(), tmp_path, "memory")
    assert store.count() == 0
    assert store.query(vector=np.ones(8, dtype=np.float32), k=5) == []


def test_bm25_ranks_filters_and_persists(tmp_path: Path) -> None:
    store = opened(BM25Store(), tmp_path, "bm25")
    store.upsert(chunks())
    hits = store.query(text="how many days for refunds", k=10)
    assert hits[0].chunk.id == "b"
    assert {h.chunk.id for h in hits} == {"b", "d"}  # only chunks sharing a term
    assert store.query(text="days", k=10, where=parse({"category": "memory"}))[0].chunk.id == "d"
    assert store.query(text="days", k=10, where=parse({"year": {"$gte": 2023}}))[0].chunk.id == "b"
    assert store.query(text="nothing matches zebra", k=5) == []
    store.close()
    again = opened(BM25Store(), tmp_path, "bm25")
    assert again.count() == 4
    assert again.query(text="encrypted", k=1)[0].chunk.id == "c"
    assert again.delete(where=parse({"year": {"$lt": 2024}})) == 2
    assert again.query(text="refunds", k=3) == []


@pytest.mark.parametrize("variant", ["okapi", "l", "plus"])
def test_bm25_variants(tmp_path: Path, variant: str) -> None:
    store = opened(BM25Store(variant=variant), tmp_path, "bm25")
    store.upsert(chunks())
    assert store.query(text="encrypted data", k=1)[0].chunk.id == "c"


def test_stores_reject_unsupported_operators(tmp_path: Path) -> None:
    class Limited(BM25Store):
        filter_operators = frozenset({"$eq"})

    store = opened(Limited(), tmp_path, "limited")
    store.upsert(chunks())
    with pytest.raises(UnsupportedFilterError, match=r"'limited'.*\$gte"):
        store.query(text="days", k=3, where=parse({"year": {"$gte": 2000}}))


def _clustered(n: int, dim: int = 64, seed: int = 0) -> np.ndarray:
    """Vectors around 50 centres, as embeddings of related texts are."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(50, dim))
    return (centres[rng.integers(0, 50, n)] + 0.6 * rng.normal(size=(n, dim))).astype(np.float32)


def _numbered(n: int) -> list[Chunk]:
    return [Chunk(f"c{i}", f"d{i}", f"text {i}", 0, 0, 6, f"d{i}#0", {"n": i}) for i in range(n)]


@pytest.mark.parametrize(("precision", "factor"), [("float16", 2), ("int8", 4)])
def test_lower_precision_holds_less_and_finds_the_same(
    tmp_path: Path, precision: str, factor: int
) -> None:
    """float16 and int8 hold the matrix in that type (2x and 4x less than
    float32, int8's per-row scales aside) and rank nearly as float32 does."""
    data, queries = _clustered(3000), _clustered(40, seed=1)
    exact = opened(MemoryStore(), tmp_path / "f32", "memory")
    small = opened(MemoryStore(precision=precision), tmp_path / precision, "memory")
    exact.upsert(_numbered(3000), data)
    small.upsert(_numbered(3000), data)
    assert small._live().nbytes * factor == exact._live().nbytes
    overlap = []
    for q in queries:
        want = {h.chunk.id for h in exact.query(vector=q, k=10)}
        got = small.query(vector=q, k=10)
        overlap.append(len(want & {h.chunk.id for h in got}) / 10)
        assert got[0].vector.dtype == np.float32
        assert got[0].score == pytest.approx(
            float(got[0].vector @ (q / np.linalg.norm(q))), abs=1e-3
        )
    assert np.mean(overlap) >= 0.9, overlap
    # filtered queries (few matches, and most) score the same rows
    where = parse({"n": {"$lt": 100}})
    assert all(
        h.chunk.metadata["n"] < 100 for h in small.query(vector=queries[0], k=5, where=where)
    )
    small.delete(ids=[h.chunk.id for h in small.query(vector=queries[0], k=3)])
    assert small.count() == 2997


def test_precision_is_kept_on_disk_and_converted_when_the_config_changes(tmp_path: Path) -> None:
    data = _clustered(500)
    store = opened(MemoryStore(precision="int8"), tmp_path, "memory")
    store.upsert(_numbered(500), data)
    before = [h.chunk.id for h in store.query(vector=data[7], k=5)]
    store.close()
    saved = np.load(tmp_path / "memory" / "memory.npz")
    assert saved["vectors"].dtype == np.int8 and saved["scales"].shape == (500,)
    again = opened(MemoryStore(precision="int8"), tmp_path, "memory")
    assert [h.chunk.id for h in again.query(vector=data[7], k=5)] == before
    again.close()
    widened = opened(MemoryStore(precision="float32"), tmp_path, "memory")
    assert widened._live().dtype == np.float32
    assert [h.chunk.id for h in widened.query(vector=data[7], k=5)] == before
    widened.close()
    halved = opened(MemoryStore(precision="float16"), tmp_path, "memory")
    assert halved._live().dtype == np.float16 and halved.count() == 500
