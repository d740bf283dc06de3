"""The memory store's ``index: hnsw`` (an HNSW graph from usearch) on small
data: the store contract at every precision, recall against exact search,
writes, filters that must still return k hits, and the graph's file kept
in step with the matrix (a crash between the two writes, garbage, a
changed setting, ``--rebuild``, another process's write)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from ragloom.builtin.stores import _ann
from ragloom.builtin.stores._persist import FileStore
from ragloom.builtin.stores.memory import MemoryStore
from ragloom.components import Context
from ragloom.errors import StoreError
from ragloom.filters import parse
from ragloom.testing import DenseStoreContract
from ragloom.testing._store_data import ALL_IDS, direction
from ragloom.types import Chunk

N, DIM = 2_000, 32


# -- the store contract, with the graph in front ---------------------------
class TestHnswStore(DenseStoreContract):
    @pytest.fixture
    def store_factory(self):
        return lambda path: MemoryStore(index="hnsw")


class TestHnswStoreDotProduct(DenseStoreContract):
    @pytest.fixture
    def store_factory(self):
        return lambda path: MemoryStore(index="hnsw", metric="dot")


class TestHnswStoreFloat16(DenseStoreContract):
    @pytest.fixture
    def store_factory(self):
        return lambda path: MemoryStore(index="hnsw", precision="float16")


class TestHnswStoreInt8(DenseStoreContract):
    """An int8 graph with cosine; the order test as for the exact int8 store
    (see test_store_contract.TestMemoryStoreInt8)."""

    @pytest.fixture
    def store_factory(self):
        return lambda path: MemoryStore(index="hnsw", precision="int8")

    def test_nearest_neighbour_order(self, filled) -> None:
        ids = sorted(ALL_IDS)
        for query, order in ((direction(0.0), ids), (direction(72.0), ids[::-1])):
            hits = self.search(filled, "dense", k=len(ids), vector=query)
            assert [h.chunk.id for h in hits] == order


class TestHnswStoreInt8Dot(TestHnswStoreInt8):
    """int8 with a dot product: the graph holds float16 (usearch's int8 dot
    product would ignore the per-row scales)."""

    @pytest.fixture
    def store_factory(self):
        return lambda path: MemoryStore(index="hnsw", precision="int8", metric="dot")


# -- helpers ---------------------------------------------------------------
def clustered(n: int = N, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(40, DIM))
    return (centres[rng.integers(0, 40, n)] + 0.6 * rng.normal(size=(n, DIM))).astype(np.float32)


def numbered(n: int = N, start: int = 0) -> list[Chunk]:
    return [
        Chunk(f"c{i}", f"d{i}", f"text {i}", 0, 0, 6, f"d{i}#0", {"n": i, "tenth": i % 10})
        for i in range(start, start + n)
    ]


def opened(tmp_path: Path, fresh: bool = False, **options) -> MemoryStore:
    store = MemoryStore(**options)
    store.open(Context(index_dir=tmp_path, base_dir=tmp_path, name="memory", fresh=fresh))
    return store


def ids(hits) -> list[str]:
    return [h.chunk.id for h in hits]


def recall(store: MemoryStore, exact: MemoryStore, queries: np.ndarray, **query) -> float:
    found = []
    for q in queries:
        want = set(ids(exact.query(vector=q, k=10, **query)))
        got = set(ids(store.query(vector=q, k=10, **query)))
        found.append(len(want & got) / len(want))
    return float(np.mean(found))


@pytest.fixture
def pair(tmp_path: Path) -> tuple[MemoryStore, MemoryStore]:
    """The same 2,000 clustered rows in an hnsw store and an exact one."""
    data = clustered()
    hnsw = opened(tmp_path / "hnsw", index="hnsw")
    exact = opened(tmp_path / "exact")
    for store in (hnsw, exact):
        store.upsert(numbered(), data)
    return hnsw, exact


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts graphs built from the matrix (rather than read from memory.ann)."""
    counted: list[int] = []
    original = MemoryStore._build_ann

    def counting(self: MemoryStore) -> None:
        counted.append(self._n)
        original(self)

    monkeypatch.setattr(MemoryStore, "_build_ann", counting)
    return counted


# -- answers -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("precision", "metric"),
    [("float32", "cosine"), ("float16", "cosine"), ("int8", "cosine"), ("int8", "dot")],
)
def test_recall_against_exact_search_and_exact_scores(
    tmp_path: Path, precision: str, metric: str
) -> None:
    """The graph finds what exact search finds at the same precision, and
    each hit's score is the exact score (candidates are rescored)."""
    data, queries = clustered(), clustered(40, seed=1)
    hnsw = opened(tmp_path / "h", index="hnsw", precision=precision, metric=metric)
    exact = opened(tmp_path / "e", precision=precision, metric=metric)
    for store in (hnsw, exact):
        store.upsert(numbered(), data)
    assert hnsw._ann is not None and len(hnsw._ann) == N
    assert recall(hnsw, exact, queries) >= 0.95
    want = {h.chunk.id: h.score for h in exact.query(vector=queries[0], k=50)}
    for hit in hnsw.query(vector=queries[0], k=10):
        assert hit.score == pytest.approx(want[hit.chunk.id], abs=1e-6)


def test_the_graph_answers_not_a_full_scan(pair, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unfiltered query scores only the graph's candidates: twice k,
    since the graph ranks on its int8 copy."""
    hnsw, _ = pair
    scored: list[int] = []
    original = MemoryStore._scores

    def spy(self, q, rows=None):
        scored.append(self._n if rows is None else len(rows))
        return original(self, q, rows)

    monkeypatch.setattr(MemoryStore, "_scores", spy)
    assert len(hnsw.query(vector=clustered(1, seed=3)[0], k=10)) == 10
    assert scored == [20]


def test_upserts_replace_vectors_in_the_graph(pair) -> None:
    hnsw, exact = pair
    far = -clustered(1, seed=5)[0]
    moved = numbered(1, start=7)
    for store in (hnsw, exact):
        store.upsert(moved, far[None, :])
    assert ids(hnsw.query(vector=far, k=1)) == ["c7"]
    old = clustered()[7]
    assert "c7" not in ids(hnsw.query(vector=old, k=5))
    # new rows after a rewrite, in one call with a duplicate id (the last wins)
    fresh = numbered(3, start=N)
    vectors = clustered(3, seed=6)
    for store in (hnsw, exact):
        store.upsert([*fresh, fresh[0]], np.vstack([vectors, -vectors[:1]]))
    assert hnsw.count() == N + 3 and len(hnsw._ann) == N + 3
    assert ids(hnsw.query(vector=-vectors[0], k=1)) == [f"c{N}"]
    assert recall(hnsw, exact, clustered(30, seed=1)) >= 0.95


def test_deletes_leave_the_graph(pair, builds: list[int]) -> None:
    hnsw, exact = pair
    queries = clustered(30, seed=1)
    doomed = {h.chunk.id for q in queries[:5] for h in hnsw.query(vector=q, k=3)}
    for store in (hnsw, exact):
        store.delete(ids=sorted(doomed))
        store.delete(where=parse({"tenth": 0}))
    assert hnsw.count() == exact.count() == len(hnsw._ann)
    for q in queries:
        got = ids(hnsw.query(vector=q, k=10))
        assert not doomed & set(got) and len(got) == 10, (doomed, got)
        assert all(int(cid[1:]) % 10 for cid in got), got
    assert recall(hnsw, exact, queries) >= 0.95
    assert builds == [], builds  # removed from the graph, not rebuilt
    # more removed than left: a fresh graph of what is left
    for store in (hnsw, exact):
        store.delete(where=parse({"n": {"$lt": 1_600}}))
    assert builds == [hnsw.count()], builds
    assert hnsw._ann.removed == 0
    assert recall(hnsw, exact, queries) >= 0.95
    # emptied: no graph, and a new embedder's width is welcome
    hnsw.delete(where=parse({"n": {"$gte": 0}}))
    assert hnsw._ann is None and hnsw.query(vector=queries[0], k=3) == []
    hnsw.upsert(numbered(2), np.eye(2, 8, dtype=np.float32))
    assert ids(hnsw.query(vector=np.eye(1, 8, dtype=np.float32)[0], k=1)) == ["c0"]


@pytest.mark.parametrize(
    ("where", "matching"),
    [
        ({"n": 1234}, 1),  # one row
        ({"n": {"$in": [3, 500, 999, 1500, 1999]}}, 5),  # fewer rows than k
        ({"n": {"$lt": 60}}, 60),  # 3%: exact on the matching rows
        ({"tenth": 3}, 200),  # 10%: the graph, searched wider
        ({"tenth": {"$ne": 3}}, 1_800),  # most rows
    ],
)
def test_a_filter_still_returns_k_hits(pair, where: dict, matching: int) -> None:
    hnsw, exact = pair
    where = parse(where)
    queries = clustered(20, seed=2)
    for q in queries:
        got = hnsw.query(vector=q, k=10, where=where)
        assert len(got) == min(10, matching)
        assert len(ids(got)) == len(set(ids(got)))
        assert {h.chunk.id for h in got} <= set(exact.ids(where))
    assert recall(hnsw, exact, queries, where=where) >= 0.95


def test_a_filter_the_candidates_miss_widens_then_goes_exact(pair) -> None:
    """Rows that match the filter but lie far from the query are not among
    the first candidates: the search widens until k of them match."""
    hnsw, exact = pair
    q = clustered(1, seed=4)[0]
    far = [h.chunk.id for h in exact.query(vector=-q, k=300)]
    where = parse({"n": {"$in": [int(cid[1:]) for cid in far]}})
    got = hnsw.query(vector=q, k=10, where=where)
    assert ids(got) == ids(exact.query(vector=q, k=10, where=where))


# -- files -------------------------------------------------------------------
def test_the_graph_is_saved_beside_the_matrix_and_read_back(
    tmp_path: Path, builds: list[int]
) -> None:
    data = clustered()
    store = opened(tmp_path, index="hnsw")
    store.upsert(numbered(), data)
    before = ids(store.query(vector=data[5], k=10))
    store.close()
    folder = tmp_path / "memory"
    assert sorted(p.name for p in folder.iterdir()) == ["memory.ann", "memory.npz"]
    builds.clear()
    again = opened(tmp_path, index="hnsw", expansion_search=200)
    assert builds == [] and len(again._ann) == N  # read, not rebuilt
    assert again._ann.expansion_search == 200  # the config's, not the file's
    assert ids(again.query(vector=data[5], k=10)) == before


def test_a_crash_between_the_two_writes_costs_a_rebuild_not_an_answer(
    tmp_path: Path, builds: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """memory.ann is written first: a crash before memory.npz leaves a graph
    of rows the matrix does not hold. Its token disagrees, so it is rebuilt
    from the matrix on open, and saved."""
    data = clustered()
    store = opened(tmp_path, index="hnsw")
    store.upsert(numbered(1_000), data[:1_000])
    store.flush()
    store.delete(where=parse({"n": {"$lt": 500}}))
    store.upsert(numbered(1_000, start=1_000), data[1_000:])

    def crash(self: FileStore) -> None:
        raise KeyboardInterrupt("killed between the two writes")

    with monkeypatch.context() as patched, pytest.raises(KeyboardInterrupt):
        patched.setattr(FileStore, "flush", crash)
        store.flush()  # memory.ann written, memory.npz not
    builds.clear()
    again = opened(tmp_path, index="hnsw")
    assert builds == [1_000] and again.count() == 1_000
    for q in data[:1_000:50]:  # only what the matrix holds is found
        got = ids(again.query(vector=q, k=10))
        assert len(got) == 10 and all(int(cid[1:]) < 1_000 for cid in got)
    builds.clear()
    opened(tmp_path, index="hnsw")
    assert builds == []  # the rebuilt graph was saved with the matrix's token


def flipped(data: bytes) -> bytes:
    """``data`` with 100 bytes in its middle inverted."""
    middle = len(data) // 2
    inverted = bytes(255 - b for b in data[middle : middle + 100])
    return data[:middle] + inverted + data[middle + 100 :]


@pytest.mark.parametrize(
    "spoil",
    [
        lambda f: f.unlink(),
        lambda f: f.write_bytes(b"garbage"),
        lambda f: f.write_bytes(f.read_bytes()[:-100]),
        lambda f: f.write_bytes(flipped(f.read_bytes())),
        lambda f: f.write_bytes(b""),
    ],
    ids=["missing", "garbage", "truncated", "corrupted", "empty"],
)
def test_a_missing_or_spoilt_graph_is_rebuilt(tmp_path: Path, builds: list[int], spoil) -> None:
    data = clustered()
    store = opened(tmp_path, index="hnsw")
    store.upsert(numbered(), data)
    store.close()
    spoil(tmp_path / "memory" / "memory.ann")
    builds.clear()
    again = opened(tmp_path, index="hnsw")
    assert builds == [N]
    # a graph built anew (on two threads: not the same graph) finds the same
    exact = opened(tmp_path / "exact")
    exact.upsert(numbered(), data)
    assert recall(again, exact, clustered(30, seed=1)) >= 0.95


def test_a_reader_that_cannot_save_the_rebuilt_graph_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragloom.builtin.stores import memory

    data = clustered()
    store = opened(tmp_path, index="hnsw")
    store.upsert(numbered(), data)
    store.close()
    (tmp_path / "memory" / "memory.ann").unlink()

    def read_only(path: Path, write) -> None:
        raise PermissionError(13, "Read-only file system", str(path))

    monkeypatch.setattr(memory, "atomic_write", read_only)
    again = opened(tmp_path, index="hnsw")
    assert len(again._ann) == N and ids(again.query(vector=data[3], k=1)) == ["c3"]


def test_changed_settings_rebuild_the_graph(tmp_path: Path, builds: list[int]) -> None:
    data = clustered()
    store = opened(tmp_path, index="hnsw")
    store.upsert(numbered(), data)
    store.close()
    for options in ({"connectivity": 8}, {"metric": "dot"}, {"metric": "cosine"}):
        builds.clear()
        again = opened(tmp_path, index="hnsw", **options)
        assert builds == [N], options
        assert again._ann.spec["connectivity"] == options.get("connectivity", 16)
        again.close()  # the next round starts from this one's files
    for precision in ("float16", "int8"):  # the graph is int8 whatever the matrix
        builds.clear()
        again = opened(tmp_path, index="hnsw", precision=precision)
        assert builds == [] and ids(again.query(vector=data[3], k=1)) == ["c3"]
        again.close()


def test_a_float32_graph_of_an_older_release_is_rebuilt_as_int8(
    tmp_path: Path, builds: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Graphs used to hold the matrix's own type: such a ``memory.ann`` is
    rebuilt once on open (its header's type disagrees), then read."""
    import ragloom.builtin.stores.memory as memory_module

    data = clustered()
    with monkeypatch.context() as patch:
        patch.setattr(memory_module, "graph_dtype", lambda metric: "f32")
        old = opened(tmp_path, index="hnsw")
        old.upsert(numbered(), data)
        old.close()
    builds.clear()
    store = opened(tmp_path, index="hnsw")
    assert builds == [N] and store._ann.spec["dtype"] == "i8"
    assert ids(store.query(vector=data[3], k=1)) == ["c3"]
    store.close()
    builds.clear()
    assert opened(tmp_path, index="hnsw").count() == N and builds == []


def test_switching_to_exact_drops_the_graph_and_back_rebuilds_it(
    tmp_path: Path, builds: list[int]
) -> None:
    data = clustered()
    store = opened(tmp_path, index="hnsw")
    store.upsert(numbered(), data)
    store.close()
    exact = opened(tmp_path)
    assert exact._ann is None
    exact.delete(ids=["c1"])
    exact.close()
    assert not (tmp_path / "memory" / "memory.ann").exists()
    builds.clear()
    back = opened(tmp_path, index="hnsw")
    assert builds == [N - 1] and "c1" not in ids(back.query(vector=data[1], k=5))


def test_rebuild_starts_from_nothing_whatever_is_there(tmp_path: Path) -> None:
    """``ragloom index --rebuild`` opens stores fresh: both files go unread."""
    store = opened(tmp_path, index="hnsw")
    store.upsert(numbered(), clustered())
    store.close()
    folder = tmp_path / "memory"
    (folder / "memory.npz").write_bytes(b"garbage")
    with pytest.raises(StoreError, match="rebuild"):
        opened(tmp_path, index="hnsw")
    fresh = opened(tmp_path, fresh=True, index="hnsw")
    assert fresh.count() == 0 and not (folder / "memory.ann").exists()
    fresh.upsert(numbered(10), clustered(10))
    fresh.close()
    assert opened(tmp_path, index="hnsw").count() == 10


def test_refresh_sees_another_writers_flush(tmp_path: Path, builds: list[int]) -> None:
    """A reader reloads matrix and graph when a writer flushed; it does not
    rebuild, and it drops its own unflushed writes."""
    data = clustered()
    writer = opened(tmp_path, index="hnsw")
    writer.upsert(numbered(1_000), data[:1_000])
    writer.flush()
    reader = opened(tmp_path, index="hnsw")
    writer.delete(ids=["c3"])
    writer.upsert(numbered(1_000, start=1_000), data[1_000:])
    writer.flush()
    builds.clear()
    reader.refresh()
    assert builds == [] and reader.count() == len(reader._ann) == N - 1
    assert ids(reader.query(vector=data[1_500], k=1)) == ["c1500"]
    assert "c3" not in ids(reader.query(vector=data[3], k=5))
    reader.upsert(numbered(1, start=5_000), -data[:1])
    reader.refresh()
    assert reader.count() == N - 1 and "c5000" not in ids(reader.query(vector=-data[0], k=3))


def test_a_second_process_reads_the_graph(tmp_path: Path) -> None:
    import subprocess

    data = clustered()
    store = opened(tmp_path, index="hnsw")
    store.upsert(numbered(), data)
    store.close()
    np.save(tmp_path / "q.npy", data[42])
    script = (
        "import numpy as np, sys; from pathlib import Path\n"
        "from ragloom.builtin.stores.memory import MemoryStore\n"
        "from ragloom.components import Context\n"
        "p = Path(sys.argv[1]); s = MemoryStore(index='hnsw')\n"
        "s.open(Context(index_dir=p, base_dir=p, name='memory'))\n"
        "s._build_ann = None  # reading must not rebuild\n"
        "print(s.query(vector=np.load(p / 'q.npy'), k=1)[0].chunk.id)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "c42"


# -- without usearch ---------------------------------------------------------
def test_without_usearch_the_config_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "usearch" else real(name, *a)
    )
    with pytest.raises(ValueError, match=r"pip install 'ragloom\[ann\]'"):
        MemoryStore(index="hnsw")
    MemoryStore()  # exact search needs nothing


def test_without_usearch_opening_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "usearch", None)  # import fails
    with pytest.raises(StoreError, match=r"pip install 'ragloom\[ann\]'"):
        _ann.import_usearch()


def test_a_float_store_links_int8_rows_and_keeps_exact_scores(tmp_path: Path) -> None:
    """A float32 store's cosine graph holds each row scaled to ±127 (a quarter
    of the matrix's bytes); a zero row stays zero; the hits' scores are
    the matrix's."""
    data = clustered(200)
    data[7] = 0.0
    store = opened(tmp_path, index="hnsw")
    store.upsert(numbered(200), data)
    assert store._ann is not None and store._ann.spec["dtype"] == "i8"
    rows = store._graph_rows(slice(0, 200))
    assert rows.dtype == np.int8 and not rows[7].any()
    assert (np.abs(np.delete(rows, 7, axis=0)).max(axis=1) == 127).all()
    unit = data[3] / np.linalg.norm(data[3])
    hits = store.query(vector=data[3], k=5)
    assert hits[0].chunk.id == "c3" and hits[0].score == pytest.approx(1.0, abs=1e-6)
    second = hits[1].vector / np.linalg.norm(hits[1].vector)
    assert hits[1].score == pytest.approx(float(unit @ second), abs=1e-5)


def test_graph_types() -> None:
    assert _ann.graph_dtype("cosine") == "i8"
    assert _ann.graph_dtype("dot") == "f16"


def test_files_copied_elsewhere_still_agree(tmp_path: Path, builds: list[int]) -> None:
    """The token travels in both files: a copied index folder reads its graph."""
    store = opened(tmp_path / "a", index="hnsw")
    store.upsert(numbered(), clustered())
    store.close()
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    builds.clear()
    assert opened(tmp_path / "b", index="hnsw").count() == N and builds == []


# -- through the command -----------------------------------------------------
def test_the_command_recovers_from_any_graph_file(tmp_path: Path) -> None:
    """``ragloom index`` / ``search`` with ``index: hnsw``: a damaged
    memory.ann is rebuilt quietly; garbage everywhere, ``--rebuild``."""
    import os

    from .test_index_state import cli, project

    root = project(tmp_path, stores=[{"type": "memory", "index": "hnsw"}])
    assert cli("index", cwd=root).returncode == 0
    graph = root / ".ragloom" / "memory" / "memory.ann"
    assert graph.stat().st_size > 0
    graph.write_bytes(os.urandom(999))
    found = cli("search", "AES-256", "--json", cwd=root)
    assert found.returncode == 0 and '"docs/security.md"' in found.stdout, found.stderr
    for path in (root / ".ragloom").rglob("*"):
        if path.is_file() and path.name != "index.lock":
            path.write_bytes(os.urandom(512))
    rebuilt = cli("index", "--rebuild", cwd=root)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert '"docs/security.md"' in cli("search", "AES-256", "--json", cwd=root).stdout
