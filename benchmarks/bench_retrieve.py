"""`Pipeline.retrieve` (memory + bm25, RRF) on 50,000 chunks vs the same work
done by hand in the same run: embed the query, query both stores, fuse.

What the pipeline adds is the framework: the run object and its events, the
`run_stage` hook around every stage, the check for a corpus version
committed by another process, the store lock, and dropping chunks that are
not the committed version of their document. The target: that costs under
25% of the query itself."""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path

CHUNKS = 50_000
QUERIES = 200
SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact" / "corpus.jsonl"


def _records(n: int) -> list[dict[str, str]]:
    records: list[dict[str, str]] = []
    if SCIFACT.exists():
        with SCIFACT.open(encoding="utf-8") as handle:
            sentences = [
                s.strip()
                for line in handle
                for s in json.loads(line)["text"].split(". ")
                if len(s.split()) > 5
            ]
        for i in range(n):
            records.append({"id": str(i), "text": sentences[i % len(sentences)] + f" (part {i})"})
        return records
    return [{"id": str(i), "text": f"Paragraph {i} about topic {i % 997}."} for i in range(n)]


def bench_retrieve(n: int = CHUNKS) -> dict[str, float | str]:
    import ragloom
    from ragloom.fusion import fuse

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["RAGLOOM_CACHE_DIR"] = str(root / "cache")
        records = _records(n)
        with (root / "corpus.jsonl").open("w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record) + "\n")
        config = {
            "loaders": [{"type": "jsonl", "path": "corpus.jsonl", "id_field": "id"}],
            "chunker": {"type": "fixed", "size": 2000, "overlap": 0},
            "embedder": {"type": "hash", "dimension": 384},
            "stores": [{"type": "memory"}, {"type": "bm25"}],
            "retrieval": {"k": 10},
        }
        queries = [records[(i * 7919) % n]["text"][:60] for i in range(QUERIES)]
        with ragloom.load(config, base_dir=root) as pipeline:
            report = pipeline.index()
            assert report.chunks == n, report
            stores = [store for _, store in pipeline.stores]
            embedder = pipeline.embedder
            candidates = 30

            def by_hand(q: str) -> list:
                vector = embedder.embed_query(q)
                lists = [
                    stores[0].query(vector=vector, k=candidates),
                    stores[1].query(text=q, k=candidates),
                ]
                return fuse(lists, method="rrf", k=60)[:10]

            for q in queries[:20]:  # warm both paths
                pipeline.retrieve(q)
                by_hand(q)
            pipeline_s, hand_s = [], []
            for q in queries:
                started = time.perf_counter()
                hits = pipeline.retrieve(q)
                pipeline_s.append(time.perf_counter() - started)
                started = time.perf_counter()
                baseline = by_hand(q)
                hand_s.append(time.perf_counter() - started)
                assert [h.chunk.id for h in hits] == [h.chunk.id for h in baseline]
    return {
        "name": f"Pipeline.retrieve, memory + bm25 + RRF, {n:,} chunks (median)",
        "baseline": "hash embed + both stores' query + fuse, called by hand",
        "ragloom_s": statistics.median(pipeline_s),
        "baseline_s": statistics.median(hand_s),
        "min_speed": 0.8,  # the framework adds at most 25%
    }


if __name__ == "__main__":
    print(bench_retrieve())
