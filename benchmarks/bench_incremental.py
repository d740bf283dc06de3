"""`ragloom index` on an unchanged corpus of 1,000 documents vs the first run,
with the embedded default config (the stack `ragloom init` writes), in the
same run. The target: the unchanged run takes under 5% of the first."""

from __future__ import annotations

import json
import os
import tempfile
import time
from importlib import resources
from pathlib import Path

import yaml

DOCS = 1000
SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact" / "corpus.jsonl"


def _texts(n: int) -> list[str]:
    if SCIFACT.exists():
        out = []
        with SCIFACT.open(encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                out.append(f"# {record['title']}\n\n{record['text']}\n")
                if len(out) == n:
                    return out
    return [f"# Document {i}\n\nParagraph {i} about topic {i % 37}.\n" for i in range(n)]


def bench_incremental(n: int = DOCS) -> dict[str, float | str]:
    import ragloom

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["RAGLOOM_CACHE_DIR"] = str(root / "cache")  # a cold embedding cache
        docs = root / "docs"
        docs.mkdir()
        for i, text in enumerate(_texts(n)):
            (docs / f"doc-{i:04d}.md").write_text(text, encoding="utf-8")
        template = resources.files("ragloom").joinpath("templates/ragloom.yaml").read_text()
        config = yaml.safe_load(template)
        (root / "ragloom.yaml").write_text(yaml.safe_dump(config))
        with ragloom.load(root / "ragloom.yaml") as pipeline:
            started = time.perf_counter()
            first = pipeline.index()
            first_s = time.perf_counter() - started
            started = time.perf_counter()
            again = pipeline.index()
            again_s = time.perf_counter() - started
        assert first.documents == n and again.unchanged == n and again.chunks == 0
        embedder = config.get("embedder", {}).get("type", "none")
    return {
        "name": f"index an unchanged corpus of {n:,} docs ({embedder} embedder)",
        "baseline": "the first index run of the same corpus",
        "ragloom_s": again_s,
        "baseline_s": first_s,
        "min_speed": 20.0,  # under 5% of the first run
    }


if __name__ == "__main__":
    print(bench_incremental())
