"""bm25 store top-10 query over 100k SciFact chunks vs bm25s called directly.

Corpus: the 5,183 SciFact abstracts (``../shared/data/scifact``) cut into
chunks the way an overlapping chunker would: the titles, then every window
of 1, 2 and 3 consecutive sentences of each abstract (90k texts up to the
2-sentence windows), the first 100,000 of those. Queries: the first 100
SciFact claims.

Both sides use the same analyzer (ragloom's default: English stemming and
stopwords) and the same scoring (bm25s ``lucene``, k1 1.5, b 0.75); the
baseline is bm25s's own ``index`` on the analysed texts and ``retrieve``
top-10 on the analysed query. Query analysis is timed on both sides. The
store's query also works out which chunks share a query term (only those
are hits) and then selects the top k among those candidates only, where
bm25s's ``retrieve`` runs ``argpartition`` over all 100k scores, most of
them ties at 0: that is most of its time (``bm25s_get_scores_s`` is its
scoring alone). Top-10 lists must be equal for 90% of the queries; where
they differ, it is chunks with equal scores (repeated sentences) in
another order. rank-bm25's ``BM25Okapi.get_scores``, the old store's
engine, is timed on a few queries for reference (``rank_bm25_s``).
"""

from __future__ import annotations

import json
import re
import statistics
import time
from pathlib import Path

from ragloom.analysis import Analyzer
from ragloom.builtin.stores.bm25 import BM25Store
from ragloom.types import Chunk

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "scifact"
N, K, QUERIES, RANK_BM25_QUERIES = 100_000, 10, 100, 5
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


def scifact_chunks(n: int = N, data: Path = DATA) -> list[tuple[str, str]]:
    """``(id, text)`` of the first ``n`` sentence windows (see the module docstring)."""
    with open(data / "corpus.jsonl", encoding="utf-8") as handle:
        docs = [json.loads(line) for line in handle]
    out = [(f"{doc['_id']}:title", doc["title"]) for doc in docs]
    for size in (1, 2, 3):
        for doc in docs:
            sentences = [s for s in _SENTENCE.split(doc["text"]) if s.strip()]
            for start in range(len(sentences) - size + 1):
                out.append(
                    (f"{doc['_id']}:{size}:{start}", " ".join(sentences[start : start + size]))
                )
    return out[:n]


def scifact_queries(n: int = QUERIES, data: Path = DATA) -> list[str]:
    with open(data / "queries.jsonl", encoding="utf-8") as handle:
        return [json.loads(line)["text"] for _, line in zip(range(n), handle)]


def bench_bm25(n: int = N) -> dict[str, float | str]:
    import bm25s
    import rank_bm25

    corpus = scifact_chunks(n)
    queries = scifact_queries()
    ids = [cid for cid, _ in corpus]

    store = BM25Store()
    t = time.perf_counter()
    store.upsert([Chunk(cid, cid, text, 0, 0, len(text), cid, {}) for cid, text in corpus])
    store.query(text="warm up", k=K)  # builds the index
    store_build_s = time.perf_counter() - t

    analyzer = Analyzer(store.config.analyzer)
    tokens = analyzer.analyze_many([text for _, text in corpus])
    retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    t = time.perf_counter()
    retriever.index(tokens, show_progress=False)
    bm25s_build_s = time.perf_counter() - t

    def baseline(q: str) -> list[str]:
        terms = analyzer.analyze(q)
        docs, scores = retriever.retrieve([terms], k=K, show_progress=False)
        return [ids[i] for i, s in zip(docs[0].tolist(), scores[0].tolist()) if s > 0]

    def ours(q: str) -> list[str]:
        return [h.chunk.id for h in store.query(text=q, k=K)]

    same = sum(ours(q) == baseline(q) for q in queries)
    assert same >= 0.9 * len(queries), f"top-{K} differ from bm25s on {len(queries) - same} queries"
    base_t, our_t = [], []
    for q in queries:  # interleaved so drift hits both alike
        t = time.perf_counter()
        baseline(q)
        base_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        ours(q)
        our_t.append(time.perf_counter() - t)
    b, o = statistics.median(base_t), statistics.median(our_t)
    scoring_t = []  # bm25s's scoring alone, without its top-k selection
    for q in queries:
        t = time.perf_counter()
        retriever.get_scores(analyzer.analyze(q) or [""])
        scoring_t.append(time.perf_counter() - t)

    okapi = rank_bm25.BM25Okapi(tokens)
    rank_t = []
    for q in queries[:RANK_BM25_QUERIES]:
        t = time.perf_counter()
        okapi.get_scores(analyzer.analyze(q))
        rank_t.append(time.perf_counter() - t)
    r = statistics.median(rank_t)
    return {
        "name": (
            f"bm25 store query (bm25s), top-{K} of {len(corpus):,} SciFact chunks; "
            f"rank-bm25: {r * 1000:.0f} ms"
        ),
        "baseline": "bm25s retrieve, same analyzer",
        "ragloom_s": o,
        "baseline_s": b,
        "min_speed": 1 / 1.5,
        "rank_bm25_s": r,
        "bm25s_get_scores_s": statistics.median(scoring_t),
        "same_top_k": f"{same}/{len(queries)}",
        "store_build_s": store_build_s,
        "bm25s_build_s": bm25s_build_s,
    }


def bench_bm25_reopen(n: int = N, rounds: int = 3) -> dict[str, float | str]:
    """What a new process pays for its first keyword query (a ``ragloom
    search``, a server started or moved to a new version): open the store
    from its file and answer, with the search index kept on disk by the
    process before (``keep_index``, the default) against building it
    (``keep_index: false``), over the same file, ``rounds`` times each."""
    import tempfile

    from ragloom.components import Context

    corpus = scifact_chunks(n)
    queries = scifact_queries()
    with tempfile.TemporaryDirectory() as tmp:
        context = Context(index_dir=Path(tmp), base_dir=Path(tmp), name="bm25")
        store = BM25Store()
        store.open(context)
        store.upsert([Chunk(cid, cid, text, 0, 0, len(text), cid, {}) for cid, text in corpus])
        store.flush()
        want = [h.chunk.id for h in store.query(text=queries[0], k=K)]  # keeps the index
        store.close()
        times: dict[bool, list[float]] = {True: [], False: []}
        for number in range(rounds):
            for keep in (False, True):  # interleaved so drift hits both alike
                started = time.perf_counter()
                reader = BM25Store(keep_index=keep)
                reader.open(context)
                got = [h.chunk.id for h in reader.query(text=queries[1 + number], k=K)]
                times[keep].append(time.perf_counter() - started)
                assert got and reader.query(text=queries[0], k=K) and got is not want
                assert [h.chunk.id for h in reader.query(text=queries[0], k=K)] == want
                reader.close()
    return {
        "name": f"bm25 store opened + first query, {n:,} chunks, search index kept on disk",
        "baseline": "the same with keep_index: false (index built on open)",
        "ragloom_s": statistics.median(times[True]),
        "baseline_s": statistics.median(times[False]),
        "min_speed": 1.5,
    }


if __name__ == "__main__":
    result = bench_bm25()
    print(result)
    print(f"speed {result['baseline_s'] / result['ragloom_s']:.2f}x (target >= 0.67x)")
