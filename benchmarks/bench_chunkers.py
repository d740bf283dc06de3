"""Chunker benchmarks: ragloom's recursive splitter against LangChain's.

    python benchmarks/bench_chunkers.py

Needs ``langchain-text-splitters`` (a dev dependency). The text is about 2 MB
of markdown-like prose built from the SciFact abstracts in
``/work/shared/data/scifact/corpus.jsonl`` when that file exists (headings,
paragraphs, bullet lists), else from generated sentences.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["bench_recursive", "bench_recursive_documents", "build_prose", "build_text"]

CORPUS = Path("/work/shared/data/scifact/corpus.jsonl")
TARGET_CHARS = 2_000_000
SIZE = 800
OVERLAP = 100
RUNS = 3
FILLER_WORDS = ("the", "of", "cells", "protein", "expression", "risk", "study", "data", "gene")


def build_text(target_chars: int = TARGET_CHARS, seed: int = 0) -> str:
    """About ``target_chars`` characters of markdown-like prose, the same for the same seed."""
    rng = random.Random(seed)
    records = _records(rng)
    parts: list[str] = []
    total = 0
    while total < target_chars:
        rng.shuffle(records)
        for title, body in records:
            section = _section(rng, title, body)
            parts.append(section)
            total += len(section) + 2
            if total >= target_chars:
                break
    return "\n\n".join(parts)


def _records(rng: random.Random) -> list[tuple[str, str]]:
    if CORPUS.is_file():
        records = []
        with CORPUS.open(encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                if row.get("text"):
                    records.append((row.get("title") or "Untitled", row["text"]))
        if records:
            return records
    words = FILLER_WORDS
    out = []
    for i in range(2000):
        sentences = [
            " ".join(rng.choice(words) for _ in range(rng.randint(6, 30))).capitalize() + "."
            for _ in range(rng.randint(3, 14))
        ]
        out.append((f"Record {i}", " ".join(sentences)))
    return out


def _section(rng: random.Random, title: str, body: str) -> str:
    """A heading, then the abstract as paragraphs, sometimes with a bullet list."""
    sentences = [s if s.endswith(".") else s + "." for s in body.split(". ") if s]
    blocks = [f"## {title}"]
    i = 0
    while i < len(sentences):
        take = rng.randint(2, 6)
        group = sentences[i : i + take]
        i += take
        if rng.random() < 0.15:
            blocks.append("\n".join(f"- {s}" for s in group))
        else:
            blocks.append(" ".join(group))
    return "\n\n".join(blocks)


def _best(fn: Callable[[], Any], runs: int = RUNS) -> tuple[float, Any]:
    best = float("inf")
    result = None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def bench_recursive() -> dict[str, Any]:
    """Time ``split_text`` and LangChain's splitter on the same ~2 MB text (best of 3).

    :returns: ``{"name", "ragloom_s", "baseline_s", "ratio"}`` where ``ratio``
        is LangChain's time over ragloom's (above 1: ragloom is faster).
    :raises AssertionError: if the two give different chunks.
    """
    from langchain_text_splitters import RecursiveCharacterTextSplitter
    from ragloom.builtin.chunkers.recursive import DEFAULT_SEPARATORS, split_text

    text = build_text()
    separators = list(DEFAULT_SEPARATORS)
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=SIZE,
        chunk_overlap=OVERLAP,
        separators=separators,
        keep_separator="start",
        strip_whitespace=True,
        is_separator_regex=False,
    )
    baseline_s, expected = _best(lambda: splitter.split_text(text))
    ragloom_s, got = _best(lambda: split_text(text, SIZE, OVERLAP, separators, "start", True))
    assert got == expected, "split_text differs from RecursiveCharacterTextSplitter"
    return {
        "name": f"recursive chunker, {len(text) / 1e6:.1f} MB text",
        "baseline": "LangChain RecursiveCharacterTextSplitter",
        "ragloom_s": ragloom_s,
        "baseline_s": baseline_s,
        "min_speed": 1.3,
        "chars": len(text),
        "chunks": len(got),
    }


PROSE_CHARS = 7_600_000


def build_prose(target_chars: int = PROSE_CHARS) -> str:
    """About ``target_chars`` of plain prose, as a ``.txt`` file holds it:
    SciFact's abstracts as paragraphs, no headings or lists (generated
    sentences without the corpus)."""
    rng = random.Random(1)
    parts: list[str] = []
    total = 0
    records = _records(rng)
    while total < target_chars:
        for _, body in records:
            parts.append(body)
            total += len(body) + 2
            if total >= target_chars:
                break
    return "\n\n".join(parts)


def bench_recursive_documents() -> dict[str, Any]:
    """Like for like, what users call: ``RecursiveChunker.split`` (chunks with
    ids, offsets, labels and metadata) against LangChain's
    ``split_documents(add_start_index=True)`` (Documents with ``start_index``
    and copied metadata), same separators and sizes, on a 7.6 MB ``.txt``
    document (best of 3).

    :raises AssertionError: if the chunk texts or start offsets differ.
    """
    from langchain_core.documents import Document as LangChainDocument
    from langchain_text_splitters import RecursiveCharacterTextSplitter
    from ragloom.builtin.chunkers.recursive import RecursiveChunker
    from ragloom.types import Document

    text = build_prose()
    separators = ["\n\n", "\n", " ", ""]  # LangChain's defaults
    metadata = {"source": "corpus.txt", "path": "corpus.txt", "extension": ".txt"}
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=SIZE,
        chunk_overlap=OVERLAP,
        separators=separators,
        keep_separator="start",
        add_start_index=True,
    )
    chunker = RecursiveChunker(
        RecursiveChunker.Config(size=SIZE, overlap=OVERLAP, separators=separators)
    )
    document = Document(id="corpus.txt", text=text, metadata=metadata)
    baseline_s, expected = _best(
        lambda: splitter.split_documents([LangChainDocument(page_content=text, metadata=metadata)])
    )
    ragloom_s, got = _best(lambda: chunker.split(document))
    assert [c.text for c in got] == [d.page_content for d in expected], "chunk texts differ"
    assert [c.start for c in got] == [d.metadata["start_index"] for d in expected], "starts differ"
    return {
        "name": f"RecursiveChunker.split, {len(text) / 1e6:.1f} MB .txt document",
        "baseline": "LangChain split_documents(add_start_index=True)",
        "ragloom_s": ragloom_s,
        "baseline_s": baseline_s,
        "min_speed": 1.3,
        "chars": len(text),
        "chunks": len(got),
    }


if __name__ == "__main__":
    print(bench_recursive())
    print(bench_recursive_documents())
