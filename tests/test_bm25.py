from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError
from ragloom.builtin.stores.bm25 import BM25Store
from ragloom.components import Context
from ragloom.config import validate_config
from ragloom.errors import ConfigValidationError, StoreError
from ragloom.filters import parse
from ragloom.types import Chunk

from .conftest import basic_config

SCIFACT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "scifact"
BACKENDS = [{"backend": "bm25s"}, {"backend": "rank-bm25"}]

TEXTS = [
    ("pro", "The Pro plan costs 29 dollars per month.", {"tier": "pro", "year": 2024}),
    ("refund", "Refunds are possible within 30 days of purchase.", {"tier": "all", "year": 2023}),
    ("prices", "Prices change every year; pricing is per seat.", {"tier": "all", "year": 2024}),
    ("aes", "Data is encrypted with AES-256 at rest.", {"tier": "pro", "year": 2024}),
    ("cafe", "The café serves coffee to every team.", {"tier": "free", "year": 2022}),
    ("memory", "Memories are kept for 90 days on the free plan.", {"tier": "free", "year": 2022}),
]


def chunk(cid: str, text: str, meta: dict | None = None) -> Chunk:
    return Chunk(cid, f"doc-{cid}", text, 0, 0, len(text), f"{cid}.md#0", dict(meta or {}))


def chunks() -> list[Chunk]:
    return [chunk(cid, text, meta) for cid, text, meta in TEXTS]


def opened(store: BM25Store, tmp_path: Path, name: str = "bm25") -> BM25Store:
    store.open(Context(index_dir=tmp_path, base_dir=tmp_path, name=name))
    return store


def ids(hits) -> list[str]:
    return [h.chunk.id for h in hits]


@pytest.fixture(scope="module")
def scifact() -> tuple[list[Chunk], list[str]]:
    with open(SCIFACT / "corpus.jsonl", encoding="utf-8") as handle:
        docs = [json.loads(line) for _, line in zip(range(500), handle)]
    with open(SCIFACT / "queries.jsonl", encoding="utf-8") as handle:
        queries = [json.loads(line)["text"] for _, line in zip(range(150), handle)]
    return [chunk(d["_id"], f"{d['title']} {d['text']}") for d in docs], queries


# -- ranking ------------------------------------------------------------------


@pytest.mark.parametrize("options", BACKENDS)
def test_ranking_sanity(tmp_path: Path, options: dict) -> None:
    store = opened(BM25Store(**options), tmp_path)
    store.upsert(chunks())
    assert ids(store.query(text="refund policy", k=3)) == ["refund"]  # only term-sharing chunks
    assert ids(store.query(text="encrypted data at rest", k=1)) == ["aes"]
    assert set(ids(store.query(text="pricing", k=5))) == {"prices"}  # stemmed: prices ~ pricing
    assert ids(store.query(text="cafe", k=5)) == ["cafe"]  # folded: café ~ cafe
    plan = store.query(text="free plan days", k=10)
    assert ids(plan)[0] == "memory" and set(ids(plan)) == {"memory", "pro", "refund"}
    assert all(a.score >= b.score for a, b in zip(plan, plan[1:]))
    assert plan[0].store == "bm25" and plan[0].scores == {"bm25": plan[0].score}
    assert store.query(text="the of and", k=5) == []  # only stopwords
    assert store.query(text="zebra", k=5) == []
    assert store.query(text="plan", k=0) == []


def test_empty_store_and_bad_queries(tmp_path: Path) -> None:
    store = opened(BM25Store(), tmp_path)
    assert store.query(text="anything", k=5) == []
    store.upsert([chunk("blank", ""), chunk("stop", "the of and")])
    assert store.query(text="anything", k=5) == []
    with pytest.raises(StoreError, match="text queries"):
        store.query(vector=np.ones(3, dtype=np.float32), k=1)


@pytest.mark.parametrize("options", BACKENDS)
def test_filters_apply_before_ranking(tmp_path: Path, options: dict) -> None:
    store = opened(BM25Store(**options), tmp_path)
    store.upsert(chunks())
    assert ids(store.query(text="plan days", k=1)) == ["memory"]
    # the best chunk is filtered out: the next matching one still fills k=1
    assert ids(store.query(text="plan days", k=1, where=parse({"tier": {"$ne": "free"}}))) in (
        ["pro"],
        ["refund"],
    )
    pro = store.query(text="plan days", k=5, where=parse({"tier": "pro"}))
    assert ids(pro) == ["pro"]
    both = parse({"$or": [{"year": {"$lt": 2023}}, {"tier": "pro"}]})
    assert set(ids(store.query(text="plan days encrypted", k=10, where=both))) == {
        "memory",
        "pro",
        "aes",
    }
    assert store.query(text="plan", k=5, where=parse({"year": {"$gt": 2030}})) == []


@pytest.mark.parametrize("options", BACKENDS)
def test_writes_rebuild_the_index_lazily(tmp_path: Path, options: dict) -> None:
    store = opened(BM25Store(**options), tmp_path)
    store.upsert(chunks())
    assert ids(store.query(text="coffee", k=3)) == ["cafe"]
    tea = chunk("cafe", "Tea only, no more of that drink.", {"tier": "free"})
    store.upsert([tea, chunk("new", "Coffee beans")])
    assert ids(store.query(text="coffee", k=3)) == ["new"]
    assert store.count() == 7
    assert store.delete(ids=["new", "missing"]) == 1
    assert store.query(text="coffee", k=3) == []
    assert store.delete(where=parse({"tier": "free"})) == 2
    assert store.count() == 4 and store.count(parse({"tier": "pro"})) == 2
    with pytest.raises(StoreError, match="ids= or where="):
        store.delete()


def test_ties_keep_insertion_order(tmp_path: Path) -> None:
    store = opened(BM25Store(), tmp_path)
    store.upsert([chunk(f"c{i}", "same words here") for i in range(5)])
    assert ids(store.query(text="words", k=3)) == ["c0", "c1", "c2"]


# -- persistence --------------------------------------------------------------


@pytest.mark.parametrize("options", BACKENDS)
def test_persistence_and_reopen(tmp_path: Path, options: dict) -> None:
    store = opened(BM25Store(**options), tmp_path)
    store.upsert(chunks())
    store.delete(ids=["aes"])
    before = store.query(text="free plan days", k=10)
    store.close()
    assert (tmp_path / "bm25" / "bm25.npz").exists()
    assert not (tmp_path / "bm25" / "bm25.json").exists()
    again = opened(BM25Store(**options), tmp_path)
    assert again.count() == 5
    after = again.query(text="free plan days", k=10)
    assert ids(after) == ids(before)
    assert [h.score for h in after] == pytest.approx([h.score for h in before])
    assert after[0].chunk == before[0].chunk  # metadata and offsets survive
    assert again.query(text="encrypted", k=1) == []


def test_unreadable_file_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "bm25").mkdir()
    (tmp_path / "bm25" / "bm25.npz").write_bytes(b"not a zip")
    with pytest.raises(StoreError, match="rebuild"):
        opened(BM25Store(), tmp_path)


def test_analyzer_change_reanalyses_stored_texts(tmp_path: Path, caplog) -> None:
    store = opened(BM25Store(analyzer={"stem": False}), tmp_path)
    store.upsert(chunks())
    assert store.query(text="price", k=5) == []  # unstemmed: price != prices, pricing
    store.close()
    with caplog.at_level(logging.INFO, logger="ragloom"):
        stemmed = opened(BM25Store(), tmp_path)
    assert "analysing them again" in caplog.text
    assert ids(stemmed.query(text="price", k=5)) == ["prices"]
    file = tmp_path / "bm25" / "bm25.npz"
    written = (file.stat().st_ino, file.stat().st_mtime_ns)
    stemmed.close()  # a reader closing writes nothing (a newer run may have written the file)
    assert (file.stat().st_ino, file.stat().st_mtime_ns) == written
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="ragloom"):
        stemmed = opened(BM25Store(), tmp_path)
    assert "analysing them again" in caplog.text
    stemmed.flush()  # an index run's flush writes the new terms
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="ragloom"):
        same = opened(BM25Store(), tmp_path)
    assert "analysing them again" not in caplog.text
    assert ids(same.query(text="price", k=5)) == ["prices"]


def test_reads_the_earlier_json_format(tmp_path: Path) -> None:
    from ragloom.builtin.stores._persist import chunk_to_dict

    folder = tmp_path / "bm25"
    folder.mkdir()
    legacy = folder / "bm25.json"
    legacy.write_text(json.dumps({"chunks": [chunk_to_dict(c) for c in chunks()]}), "utf-8")
    store = opened(BM25Store(), tmp_path)
    assert store.count() == 6
    assert ids(store.query(text="refunds", k=1)) == ["refund"]
    store.close()  # a reader writes nothing
    assert legacy.exists() and not (folder / "bm25.npz").exists()
    store = opened(BM25Store(), tmp_path)
    store.flush()  # an index run's flush writes the current format
    assert (folder / "bm25.npz").exists() and not legacy.exists()


# -- configuration ------------------------------------------------------------


def test_options_and_fingerprint() -> None:
    assert BM25Store().config.formula == "lucene"
    assert BM25Store(variant="okapi").config.formula == "robertson"
    assert BM25Store(variant="l").config.formula == "bm25l"
    assert BM25Store(method="bm25+").config.effective_delta == 1.0
    assert BM25Store(method="bm25l", delta=0.3).config.effective_delta == 0.3
    assert BM25Store(backend="rank-bm25").config.formula == "robertson"
    store = BM25Store(analyzer={"language": "german"}, k1=1.2)
    fp = store.fingerprint()
    assert fp["backend"] == "bm25s" and fp["formula"] == "lucene" and fp["k1"] == 1.2
    assert fp["analyzer"]["language"] == "german"
    json.dumps(fp)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"backend": "rank-bm25", "method": "lucene"}, "bm25s option"),
        ({"variant": "okapi", "method": "lucene"}, "contradicts"),
        ({"delta": 0.5}, "only applies to BM25L and BM25\\+"),
        ({"backend": "rank-bm25", "delta": 1.0}, "only applies"),
        ({"backend": "whoosh"}, "bm25s"),
        ({"method": "bm25"}, "lucene"),
        ({"b": 1.5}, "less than or equal to 1"),
        ({"analyzer": {"language": "elvish"}}, "unknown language"),
    ],
)
def test_invalid_options(options: dict, match: str) -> None:
    with pytest.raises(ValidationError, match=match):
        BM25Store.Config(**options)


def test_valid_combinations() -> None:
    BM25Store.Config(variant="okapi", method="robertson")
    BM25Store.Config(backend="rank-bm25", variant="plus", delta=0.5)
    BM25Store.Config(method="atire")


def test_nested_analyzer_in_a_config_file(registry) -> None:
    stores = [{"type": "bm25", "method": "bm25+", "analyzer": {"language": "german", "stem": True}}]
    config = validate_config(basic_config(stores=stores), registry, env={})
    spec = config.stores[0]
    assert spec.config.analyzer.language == "german"
    assert config.to_dict()["stores"][0] == stores[0]
    again = validate_config(config.to_dict(), registry, env={})
    assert again.stores[0].config == spec.config
    bad = basic_config(stores=[{"type": "bm25", "backend": "rank-bm25", "method": "atire"}])
    with pytest.raises(ConfigValidationError, match="variant"):
        validate_config(bad, registry, env={})


# -- the two backends on a realistic corpus -----------------------------------


def _top(store: BM25Store, queries: list[str], k: int = 10) -> list[list]:
    return [store.query(text=q, k=k) for q in queries]


def test_backends_agree_on_bm25_plus(scifact) -> None:
    docs, queries = scifact
    fast, slow = BM25Store(method="bm25+"), BM25Store(backend="rank-bm25", variant="plus")
    fast.upsert(docs)
    slow.upsert(docs)
    for a, b in zip(_top(fast, queries), _top(slow, queries)):
        assert ids(a) == ids(b)
        assert [h.score for h in a] == pytest.approx([h.score for h in b], rel=1e-4)


def test_robertson_matches_rank_bm25_okapi(scifact) -> None:
    """Same formula up to a constant factor (k1 + 1) and the IDF of terms in
    more than half the chunks: rank-bm25 floors it at a quarter of the mean
    IDF, bm25s at 0. Queries without such terms get the same ranking."""
    docs, queries = scifact
    fast, slow = BM25Store(method="robertson"), BM25Store(backend="rank-bm25", variant="okapi")
    fast.upsert(docs)
    slow.upsert(docs)
    index = fast._ensure_index()
    indptr, vocab = index.model.scores["indptr"], index.vocab
    common = {t for t, i in vocab.items() if indptr[i + 1] - indptr[i] > len(docs) / 2}
    assert common  # "cell", "result"... are in more than half the abstracts
    clean = same = overlap = 0
    for q, a, b in zip(queries, _top(fast, queries), _top(slow, queries)):
        same += ids(a) == ids(b)
        overlap += len(set(ids(a)) & set(ids(b)))
        if not common & set(fast._analyzer.analyze(q)):
            clean += 1
            assert ids(a) == ids(b), q
            ratio = [y.score / x.score for x, y in zip(a, b) if x.score]
            assert ratio == pytest.approx([1.5 + 1] * len(ratio), rel=1e-4)
    assert clean >= 0.8 * len(queries)
    assert same >= 0.8 * len(queries)
    assert overlap >= 9.5 * len(queries)


def test_default_lucene_and_okapi_agree_on_most_results(scifact) -> None:
    docs, queries = scifact
    lucene, okapi = BM25Store(), BM25Store(backend="rank-bm25")
    lucene.upsert(docs)
    okapi.upsert(docs)
    overlap = sum(
        len(set(ids(a)) & set(ids(b))) for a, b in zip(_top(lucene, queries), _top(okapi, queries))
    )
    assert overlap >= 9 * len(queries)


def test_filters_before_ranking_on_scifact(scifact) -> None:
    docs, queries = scifact
    tagged = [
        Chunk(c.id, c.document_id, c.text, 0, 0, 0, c.label, {"half": i % 2})
        for i, c in enumerate(docs)
    ]
    for options in BACKENDS:
        store = BM25Store(**options)
        store.upsert(tagged)
        everything = store.query(text=queries[0], k=len(docs))
        odd = store.query(text=queries[0], k=5, where=parse({"half": 1}))
        assert ids(odd) == [h.chunk.id for h in everything if h.chunk.metadata["half"] == 1][:5]


# -- scope: document -------------------------------------------------------------


def _chunked(docs: list[Chunk], size: int, overlap: int) -> list[Chunk]:
    """Each one-chunk document split by the recursive chunker, with overlap."""
    from ragloom.builtin.chunkers.recursive import RecursiveChunker
    from ragloom.types import Document

    chunker = RecursiveChunker(size=size, overlap=overlap)
    return [c for d in docs for c in chunker.split(Document(d.document_id, d.text))]


@pytest.mark.parametrize("options", BACKENDS)
def test_document_scope_scores_a_chunked_document_as_the_whole_text(scifact, options) -> None:
    docs, queries = scifact
    parts = _chunked(docs[:200], size=300, overlap=60)
    assert len(parts) > 2 * 200  # most abstracts span several overlapping chunks
    assert any(b.start < a.end for a, b in zip(parts, parts[1:]) if a.document_id == b.document_id)
    whole, scoped, by_chunk = (
        BM25Store(**options),
        BM25Store(scope="document", **options),
        BM25Store(**options),
    )
    whole.upsert(docs[:200])
    scoped.upsert(parts)
    by_chunk.upsert(parts)
    for query in queries[:40]:
        want = whole.query(text=query, k=10)
        got = scoped.query(text=query, k=10)
        # the overlaps counted once: the same documents, the same scores
        assert [h.chunk.document_id for h in got] == [h.chunk.document_id for h in want]
        assert [h.score for h in got] == pytest.approx([h.score for h in want], rel=1e-9)
        # each hit is its document's best chunk for the query
        scores = {h.chunk.id: h.score for h in by_chunk.query(text=query, k=len(parts))}
        for hit in got:
            own = [c for c in parts if c.document_id == hit.chunk.document_id]
            assert scores[hit.chunk.id] == max(scores.get(c.id, 0.0) for c in own)


def test_document_scope_ranks_a_document_by_all_its_chunks() -> None:
    spread = [  # "apollo" in one chunk, "guidance" in the next
        Chunk("a::0@1", "a", "The apollo mission flew in summer.", 0, 0, 34, "a#0"),
        Chunk("a::1@1", "a", "Its guidance computer was small.", 1, 34, 66, "a#1"),
    ]
    single = [Chunk("b::0@1", "b", "The apollo program had many flights.", 0, 0, 36, "b#0")]
    filler = [chunk(cid, text, meta) for cid, text, meta in TEXTS]
    by_chunk, by_document = BM25Store(), BM25Store(scope="document")
    for store in (by_chunk, by_document):
        store.upsert(spread + single + filler)
    found = by_document.query(text="apollo guidance", k=5)
    assert [h.chunk.document_id for h in found] == ["a", "b"]  # one hit per document
    # a's hit is its chunk that matches the rarer term
    assert found[0].chunk.id == "a::1@1"
    assert found[0].scores == {"bm25": found[0].score}
    assert len(by_chunk.query(text="apollo guidance", k=5)) == 3


def test_document_scope_keeps_two_versions_of_a_document_apart() -> None:
    # while a run re-indexes a document, both versions are in the store: the
    # retriever keeps the committed one, so neither may absorb the other
    old = Chunk("a::0@old", "a", "Quarterly revenue grew.", 0, 0, 23, "a#0")
    new = Chunk("a::0@new", "a", "Quarterly revenue fell sharply.", 0, 0, 31, "a#0")
    store = BM25Store(scope="document")
    store.upsert([old, new, *(chunk(c, t, m) for c, t, m in TEXTS)])
    assert sorted(ids(store.query(text="quarterly revenue", k=5))) == ["a::0@new", "a::0@old"]
    store.delete(ids=["a::0@old"])
    assert ids(store.query(text="quarterly revenue", k=5)) == ["a::0@new"]


def test_document_scope_filters_chunks_before_ranking() -> None:
    parts = [
        Chunk("a::0@1", "a", "Solar panels on roofs.", 0, 0, 22, "a#0", {"public": True}),
        Chunk("a::1@1", "a", "Solar storage batteries.", 1, 22, 46, "a#1", {"public": False}),
        Chunk("b::0@1", "b", "Solar farms in deserts.", 0, 0, 23, "b#0", {"public": False}),
    ]
    store = BM25Store(scope="document")
    store.upsert(parts)
    found = store.query(text="solar batteries", k=5, where=parse({"public": True}))
    assert ids(found) == ["a::0@1"]  # the only chunk the filter lets through


def test_document_scope_is_in_the_fingerprint_and_validated() -> None:
    assert "scope" not in BM25Store().fingerprint()
    assert BM25Store(scope="document").fingerprint()["scope"] == "document"
    with pytest.raises(ValidationError):
        BM25Store(scope="page")


# -- the index kept on disk (keep_index) ------------------------------------------


def _no_build(monkeypatch) -> None:
    """Fail any bm25s index build: what answers must come from disk."""
    import bm25s

    def refuse(*args, **kwargs):
        raise AssertionError("the index was built again")

    monkeypatch.setattr(bm25s.BM25, "index", refuse)


def _kept(tmp_path: Path) -> list[str]:
    folder = tmp_path / "bm25" / "scores"
    return sorted(p.name.rsplit("-", 1)[0] for p in folder.iterdir()) if folder.is_dir() else []


@pytest.mark.parametrize("scope", ["chunk", "document"])
def test_a_kept_index_answers_the_next_process_as_a_built_one(
    tmp_path: Path, scifact, monkeypatch, scope: str
) -> None:
    docs, queries = scifact
    parts = _chunked(docs[:150], size=300, overlap=60)
    store = opened(BM25Store(scope=scope), tmp_path)
    store.upsert(parts)
    store.flush()
    built = [store.query(text=q, k=10) for q in queries[:30]]  # builds, and keeps it
    store.close()
    kinds = ["chunks", "documents"] if scope == "document" else ["chunks"]
    assert _kept(tmp_path) == kinds
    reference = opened(BM25Store(scope=scope, keep_index=False), tmp_path / "copy")
    reference.upsert(parts)
    rebuilt = [reference.query(text=q, k=10) for q in queries[:30]]
    assert not (tmp_path / "copy" / "bm25" / "scores").exists()  # keep_index: false
    _no_build(monkeypatch)
    again = opened(BM25Store(scope=scope), tmp_path)
    for want, same, got in zip(built, rebuilt, (again.query(text=q, k=10) for q in queries[:30])):
        assert ids(got) == ids(want) == ids(same)
        assert [h.score for h in got] == pytest.approx([h.score for h in want], rel=1e-6)


def test_a_kept_index_is_never_used_for_other_terms_or_settings(
    tmp_path: Path, monkeypatch
) -> None:
    store = opened(BM25Store(), tmp_path)
    store.upsert(chunks())
    store.flush()
    assert ids(store.query(text="free plan", k=1)) == ["memory"]
    store.close()
    first = sorted((tmp_path / "bm25" / "scores").iterdir())
    # another process changed the terms: the kept index is not theirs
    writer = opened(BM25Store(), tmp_path)
    writer.delete(ids=["memory"])
    writer.upsert([chunk("plan", "The free plan has no support.", {})])
    writer.flush()
    writer.close()
    assert not (tmp_path / "bm25" / "scores").exists()  # the write dropped the stale one
    reader = opened(BM25Store(), tmp_path)
    assert ids(reader.query(text="free plan", k=1)) == ["plan"]
    assert ids(reader.query(text="memories kept", k=5)) == []  # the deleted chunk's words
    second = sorted((tmp_path / "bm25" / "scores").iterdir())
    assert len(second) == 1 and second != first  # the earlier one deleted
    # other scoring settings over the same terms: built, not read
    other = opened(BM25Store(k1=0.9, b=0.4), tmp_path)
    scores = [h.score for h in other.query(text="free plan", k=3)]
    plain = BM25Store(k1=0.9, b=0.4)
    plain.upsert(list(reader._chunks.values()))
    assert scores == pytest.approx([h.score for h in plain.query(text="free plan", k=3)])


def test_a_damaged_kept_index_is_built_again(tmp_path: Path, caplog) -> None:
    store = opened(BM25Store(), tmp_path)
    store.upsert(chunks())
    store.flush()
    want = store.query(text="plan days", k=5)
    store.close()
    (folder,) = (tmp_path / "bm25" / "scores").iterdir()
    for damage in (b"garbage", None):
        data = folder / "data.csc.index.npy"
        if damage is None:  # a whole array, of the wrong length
            np.save(data, np.zeros(3, dtype=np.float32))
        else:
            data.write_bytes(damage)
        with caplog.at_level(logging.WARNING, logger="ragloom"):
            again = opened(BM25Store(), tmp_path)
            got = again.query(text="plan days", k=5)
        assert ids(got) == ids(want)
        assert [h.score for h in got] == pytest.approx([h.score for h in want])
        assert "again" in caplog.text and "allow_pickle" not in caplog.text
        caplog.clear()
        (folder,) = (tmp_path / "bm25" / "scores").iterdir()  # written over: whole again
        with caplog.at_level(logging.WARNING, logger="ragloom"):
            assert ids(opened(BM25Store(), tmp_path).query(text="plan days", k=5)) == ids(want)
        assert "again" not in caplog.text


def test_an_index_that_cannot_be_kept_is_still_answered(tmp_path: Path) -> None:
    (tmp_path / "bm25").mkdir()
    (tmp_path / "bm25" / "scores").write_text("a file where the folder goes")
    store = opened(BM25Store(), tmp_path)
    store.upsert(chunks())
    store.flush()
    assert ids(store.query(text="free plan", k=1)) == ["memory"]
    store.close()
    assert (tmp_path / "bm25" / "scores").is_file()


def test_a_rank_bm25_store_keeps_nothing(tmp_path: Path) -> None:
    store = opened(BM25Store(backend="rank-bm25"), tmp_path)
    store.upsert(chunks())
    assert ids(store.query(text="free plan", k=1)) == ["memory"]
    store.close()
    assert not (tmp_path / "bm25" / "scores").exists()


def test_a_kept_bm25_plus_index_has_its_term_floor_checked(tmp_path: Path, caplog) -> None:
    """bm25l and bm25+ keep a score per term for chunks without it: one of
    another length made every query fail (shorter) or shifted scores (longer)."""
    store = opened(BM25Store(method="bm25+"), tmp_path)
    store.upsert(chunks())
    store.flush()
    want = store.query(text="plan days", k=5)
    store.close()
    (folder,) = (tmp_path / "bm25" / "scores").iterdir()
    floor = folder / "nonoccurrence_array.index.npy"
    for length in (2, 10_000):
        np.save(floor, np.ones(length, dtype=np.float32))
        with caplog.at_level(logging.WARNING, logger="ragloom"):
            got = opened(BM25Store(method="bm25+"), tmp_path).query(text="plan days", k=5)
        assert [h.score for h in got] == pytest.approx([h.score for h in want])
        assert "not whole" in caplog.text
        caplog.clear()


SLIPS = [
    ("park", "Parking costs SGD 5 per day at the Marina One car park."),
    ("meal", "Meals are paid up to EUR 25 a day."),
    ("ferry", "The Strome Ferry leaves at 9am."),
    ("zip", "Upload the logs as a zip file."),
    ("toronto", "The Toronto office opens at 8am."),
    ("cart", "Leave the cart by the door."),
    ("card", "Show your card at the door."),
]


@pytest.mark.parametrize("options", BACKENDS)
def test_a_slip_of_typing_is_searched_as_the_word_the_chunks_say(
    tmp_path: Path, options: dict
) -> None:
    store = opened(BM25Store(**options), tmp_path)
    store.upsert([chunk(cid, text) for cid, text in SLIPS])

    def found(query: str) -> list[str]:
        return [h.chunk.id for h in store.query(text=query, k=3)]

    assert found("How much is parkng?") == ["park"]  # a letter missed
    assert found("What about Torronto?") == ["toronto"]  # a name's letter doubled
    assert found("What about the Stroma?") == []  # a name is never another letter
    assert found("Do you take gzip?") == []  # never at the first letter: another tool
    assert found("Is my cat allowed?") == []  # an English word is as typed
    assert found("Where is my carx?") == []  # "cart" or "card", said by as many: neither
    # of two spellings, the one the chunks say beside the query's other words
    # ("closing" is said more, but not with Craignure)
    store.upsert(
        [
            chunk("crossing", "The crossing to Craignure takes 45 minutes."),
            chunk("shop", "The shop is closing at 6pm. Closing days are listed."),
            chunk("cafe", "The cafe is closing early."),
        ]
    )
    assert found("the crosing to Craignure")[0] == "crossing"
    assert store.spelled("the crosing to Craignure") == "the crossing to Craignure"
    # a word the analyzer keeps whole is read whole ("redis" of "redis_url" is no slip)
    store.upsert([chunk("redis", "Set rediss_url and redis_url in the config.")])
    assert store.spelled("where is redis_url set?") == "where is redis_url set?"
    store.close()
    unspelled = opened(BM25Store(spelling=False, **options), tmp_path / "off")
    unspelled.upsert([chunk(cid, text) for cid, text in SLIPS])
    assert unspelled.query(text="How much is parkng?", k=3) == []
    unspelled.close()
    # the dictionary is English: a German analyzer's words are searched as typed
    german = opened(BM25Store(analyzer={"language": "german"}, **options), tmp_path / "de")
    german.upsert([chunk("park", "Parken kostet 5 Euro am Tag.")])
    assert german.query(text="Parkn", k=3) == []
    assert [h.chunk.id for h in german.query(text="Parken", k=3)] == ["park"]
    german.close()
