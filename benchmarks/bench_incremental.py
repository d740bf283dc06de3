"""Index runs over unchanged corpora, each against a baseline in the same run.

- ``bench_incremental``: `ragloom index` on an unchanged corpus of 1,000
  documents vs the first run, with the embedded default config (the stack
  `ragloom init` writes). The target: the unchanged run takes under 5% of
  the first.
- ``bench_unchanged_files``: `ragloom index` over a folder of unchanged PDFs,
  files left unread (their stat as when indexed) vs every file read again
  (``--reread``, what every run did before files were stamped). Target: 10x.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import textwrap
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


PDFS = 200
PDF_PAGES = 15


def bench_unchanged_files(n: int = PDFS, pages: int = PDF_PAGES) -> dict[str, float | str]:
    """`ragloom index` from cron over a folder of ``n`` unchanged PDFs (``pages``
    pages of SciFact abstracts each), both runs through ``Pipeline.index``:
    by default (a file whose stat is as when it was indexed is not read)
    against ``reread=True`` (every file read and parsed again, as every run
    did before files were stamped), in the same run."""
    import ragloom

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.test_structured_loaders import make_pdf

    texts = _texts(n * pages)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["RAGLOOM_CACHE_DIR"] = str(root / "cache")
        docs = root / "docs"
        docs.mkdir()
        for i in range(n):
            lines = [
                "\n".join(textwrap.wrap(_plain(texts[i * pages + p]), 90)[:45])
                for p in range(pages)
            ]
            (docs / f"report-{i:03d}.pdf").write_bytes(make_pdf(lines))
        time.sleep(2.1)  # settled: a file changed in the last two seconds is read again
        config = {
            "loaders": [{"type": "directory", "path": "docs", "include": ["**/*.pdf"]}],
            "chunker": {"type": "markdown", "size": 800, "overlap": 100},
            "embedder": {"type": "hash"},
            "stores": [{"type": "memory"}, {"type": "bm25"}],
        }
        with ragloom.load(config, base_dir=root) as pipeline:
            assert len(pipeline.index().added) == n
            reread, stamped = [], []
            for _ in range(3):
                started = time.perf_counter()
                report = pipeline.index(reread=True)
                reread.append(time.perf_counter() - started)
                assert report.unchanged == n and report.unread == 0
                started = time.perf_counter()
                report = pipeline.index()
                stamped.append(time.perf_counter() - started)
                assert report.unchanged == n and report.unread == n
    return {
        "name": f"index a folder of {n} unchanged PDFs ({n * pages:,} pages)",
        "baseline": "the same run reading every file (--reread)",
        "ragloom_s": min(stamped),
        "baseline_s": min(reread),
        "min_speed": 10.0,
    }


def _plain(text: str) -> str:
    """``text`` in the PDF's WinAnsi encoding (what the test PDF writer draws)."""
    return text.encode("cp1252", "replace").decode("cp1252")


if __name__ == "__main__":
    print(bench_incremental())
    print(bench_unchanged_files())
