"""Divide a BEIR folder's judged queries into a tuning part and a held-out part.

The split is by query: every judgement of a query goes to the same side, so
no held-out question is ever tuned on. It is random but reproducible: the
same qrels, fraction and seed give the same split on any machine (queries
are sorted by id before a ``random.Random(seed)`` shuffle).

With ``keep_documents_apart`` queries that share a relevant document are kept
on one side, so no held-out question's answer was a training target either
(SciFact has many claims citing the same abstract).
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import RagloomError
from ..evaluation import RELEVANT, load_beir

__all__ = ["SplitReport", "split_beir", "split_queries"]


@dataclass(frozen=True)
class SplitReport:
    """What :func:`split_beir` wrote."""

    directory: Path
    tune_split: str
    heldout_split: str
    tune_queries: int
    heldout_queries: int
    tune_judgements: int
    heldout_judgements: int
    shared_documents: int
    """Held-out queries with a relevant document that is also relevant to a tuning query."""


def _groups(qrels: Mapping[str, Mapping[str, int]], apart: bool) -> list[list[str]]:
    """Queries in groups that must stay together: one each, or (``apart``) the
    connected sets of queries sharing a relevant document; sorted, so the
    grouping does not depend on dict order."""
    qids = sorted(qrels)
    if not apart:
        return [[q] for q in qids]
    parent = {q: q for q in qids}

    def root(q: str) -> str:
        while parent[q] != q:
            parent[q] = parent[parent[q]]
            q = parent[q]
        return q

    owner: dict[str, str] = {}
    for q in qids:
        for doc, grade in sorted(qrels[q].items()):
            if grade < RELEVANT:
                continue
            if doc in owner:
                parent[root(q)] = root(owner[doc])
            else:
                owner[doc] = q
    grouped: dict[str, list[str]] = {}
    for q in qids:
        grouped.setdefault(root(q), []).append(q)
    return sorted(grouped.values())


def split_queries(
    qrels: Mapping[str, Mapping[str, int]],
    fraction: float,
    seed: int,
    *,
    keep_documents_apart: bool = False,
) -> tuple[list[str], list[str]]:
    """``(tune ids, held-out ids)``, each sorted: about ``fraction`` of the
    queries held out (at least one and at most all but one when there are
    two or more), chosen by ``random.Random(seed)``."""
    if not 0 < fraction < 1:
        raise ValueError(f"the held-out fraction must be between 0 and 1, not {fraction}")
    groups = _groups(qrels, keep_documents_apart)
    random.Random(seed).shuffle(groups)
    total = sum(len(g) for g in groups)
    wanted = min(max(round(total * fraction), 1), max(total - 1, 1))
    held: list[str] = []
    for group in groups:
        if len(held) >= wanted:
            break
        if len(held) + len(group) <= wanted or not held:
            held.extend(group)
    if len(held) == total and total > 1:
        raise RagloomError(
            "every query landed in the held-out part: the queries share documents too widely "
            "to keep them apart; split without keeping documents apart"
        )
    chosen = set(held)
    return sorted(q for q in qrels if q not in chosen), sorted(held)


def _write_qrels(path: Path, qrels: Mapping[str, Mapping[str, int]], qids: list[str]) -> int:
    lines = ["query-id\tcorpus-id\tscore"]
    for qid in qids:
        lines.extend(f"{qid}\t{doc}\t{grade}" for doc, grade in qrels[qid].items())
    text = "\n".join(lines) + "\n"
    if path.exists() and path.read_text("utf-8") != text:
        raise RagloomError(
            f"{path} exists and holds another split: choose another --out or split names, "
            "or delete it"
        )
    path.write_text(text, "utf-8")
    return len(lines) - 1


def _link(source: Path, target: Path) -> None:
    """``target`` shows ``source``'s content: a symbolic link, else a copy."""
    if target.exists() or target.is_symlink():
        if target.resolve() == source.resolve():
            return
        raise RagloomError(f"{target} exists and is not {source}: choose another --out")
    try:
        os.symlink(source.resolve(), target)
    except OSError:
        shutil.copyfile(source, target)


def split_beir(
    directory: str | Path,
    out: str | Path,
    *,
    split: str = "train",
    fraction: float = 0.2,
    seed: int = 42,
    tune_split: str = "tune",
    heldout_split: str = "heldout",
    keep_documents_apart: bool = False,
) -> SplitReport:
    """Write ``out/qrels/<tune_split>.tsv`` and ``out/qrels/<heldout_split>.tsv``
    from ``directory/qrels/<split>.tsv``; when ``out`` is another folder, its
    ``corpus.jsonl`` and ``queries.jsonl`` link to ``directory``'s, so ``out``
    is a BEIR folder of its own. Running it again with the same arguments
    rewrites the same files; a different split is refused, never overwritten."""
    if tune_split == heldout_split:
        raise RagloomError("the tuning and held-out splits need different names")
    source, target = Path(directory), Path(out)
    corpus, _queries, qrels = load_beir(source, split)
    tune, held = split_queries(qrels, fraction, seed, keep_documents_apart=keep_documents_apart)
    (target / "qrels").mkdir(parents=True, exist_ok=True)
    if target.resolve() != source.resolve():
        _link(corpus, target / corpus.name)
        _link(source / "queries.jsonl", target / "queries.jsonl")
    tune_count = _write_qrels(target / "qrels" / f"{tune_split}.tsv", qrels, tune)
    held_count = _write_qrels(target / "qrels" / f"{heldout_split}.tsv", qrels, held)
    trained = {d for q in tune for d, g in qrels[q].items() if g >= RELEVANT}
    shared = sum(
        1 for q in held if any(g >= RELEVANT and d in trained for d, g in qrels[q].items())
    )
    return SplitReport(
        directory=target,
        tune_split=tune_split,
        heldout_split=heldout_split,
        tune_queries=len(tune),
        heldout_queries=len(held),
        tune_judgements=tune_count,
        heldout_judgements=held_count,
        shared_documents=shared,
    )
