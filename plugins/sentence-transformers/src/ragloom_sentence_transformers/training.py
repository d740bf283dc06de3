"""What ``ragloom tune`` does: read (question, passage) pairs, hold some out,
fine-tune a bi-encoder or a cross-encoder on the rest, and measure both
models on the held-out pairs.

Training is a plain PyTorch loop over sentence-transformers' own losses
(``MultipleNegativesRankingLoss`` for embedders, ``BinaryCrossEntropyLoss``
for cross-encoders): it needs neither ``datasets`` nor ``accelerate``, runs
offline on a CPU, and is seeded end to end (``random``, numpy, torch).
torch and sentence-transformers are imported inside the functions.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragloom.errors import RagloomError

if TYPE_CHECKING:
    from sentence_transformers import CrossEncoder, SentenceTransformer

__all__ = [
    "DocumentSpace",
    "Pair",
    "TrainingData",
    "bm25_negatives",
    "bm25_ranking",
    "evaluate_embedder",
    "evaluate_query_encoder",
    "evaluate_reranker",
    "read_beir_corpus",
    "read_beir_pairs",
    "read_pairs",
    "seed_everything",
    "split_holdout",
    "train_embedder",
    "train_query_encoder",
    "train_reranker",
]

Pair = tuple[str, str]
"""(question, passage): the passage answers the question."""

Progress = Callable[[int, float], None]
"""Called after each training step with (steps done, loss)."""


class PairsError(RagloomError):
    """A pairs file or BEIR folder cannot be read; the message names file and line."""


# -- reading pairs ------------------------------------------------------------


def read_pairs(path: Path) -> list[Pair]:
    """Pairs from a TSV file (``question<TAB>passage`` per line; a first line
    ``question<TAB>passage`` is a header) or a JSON Lines file
    (``{"question": ..., "passage": ...}`` per line), by extension
    (``.jsonl``/``.json`` or anything else as TSV)."""
    pairs: list[Pair] = []
    jsonl = path.suffix.lower() in {".jsonl", ".json", ".ndjson"}
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            if jsonl:
                try:
                    record = json.loads(line)
                    question, passage = record["question"], record["passage"]
                except (ValueError, KeyError, TypeError) as exc:
                    raise PairsError(
                        f'{path}, line {number}: expected {{"question": ..., "passage": ...}} '
                        f"({exc!r})"
                    ) from None
            else:
                parts = line.rstrip("\r\n").split("\t")
                if len(parts) != 2:
                    raise PairsError(
                        f"{path}, line {number}: expected `question<TAB>passage`, found "
                        f"{len(parts)} tab-separated field(s)"
                    )
                question, passage = parts
                if number == 1 and (question.strip().lower(), passage.strip().lower()) == (
                    "question",
                    "passage",
                ):
                    continue
            if not isinstance(question, str) or not isinstance(passage, str):
                raise PairsError(f"{path}, line {number}: question and passage must be text")
            if question.strip() and passage.strip():
                pairs.append((question.strip(), passage.strip()))
    if not pairs:
        raise PairsError(f"{path} holds no (question, passage) pairs")
    return pairs


def read_beir_corpus(directory: Path, wanted: set[str] | None = None) -> dict[str, str]:
    """A BEIR folder's passages, ``{doc id: title, blank line, text}``: every
    document, or only those in ``wanted``."""
    corpus_path = directory / "corpus.jsonl"
    if not corpus_path.is_file() and (directory / "corpus.jsonl.gz").is_file():
        corpus_path = directory / "corpus.jsonl.gz"
    passages: dict[str, str] = {}
    opener: Any = open
    if corpus_path.suffix == ".gz":
        import gzip

        opener = gzip.open
    with opener(corpus_path, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                doc_id = str(record["_id"])
            except (ValueError, KeyError, TypeError) as exc:
                raise PairsError(f"{corpus_path}, line {number}: {exc!r}") from None
            if wanted is None or doc_id in wanted:
                title, text = str(record.get("title") or ""), str(record.get("text") or "")
                passages[doc_id] = f"{title}\n\n{text}".strip() if title else text.strip()
    return passages


def read_beir_pairs(directory: Path, split: str) -> list[Pair]:
    """Pairs from a BEIR folder: each query of ``qrels/<split>.tsv`` with each
    document judged relevant to it (title and text joined by a blank line)."""
    from ragloom.evaluation import RELEVANT, load_beir

    _corpus, queries, qrels = load_beir(directory, split)
    wanted = {
        doc for judged in qrels.values() for doc, grade in judged.items() if grade >= RELEVANT
    }
    passages = read_beir_corpus(directory, wanted)
    pairs = [
        (queries[qid], passages[doc])
        for qid, judged in qrels.items()
        if qid in queries
        for doc, grade in judged.items()
        if grade >= RELEVANT and doc in passages
    ]
    if not pairs:
        raise PairsError(f"{directory}: no judged (query, document) pairs in split {split!r}")
    return pairs


@dataclass(frozen=True)
class TrainingData:
    """Pairs split by question: no held-out question is trained on."""

    train: list[Pair]
    held_out: list[Pair]


def split_holdout(pairs: Sequence[Pair], fraction: float, seed: int) -> TrainingData:
    """Hold out ``fraction`` of the questions (with all their pairs), at random
    but the same for the same ``seed``."""
    questions = list(dict.fromkeys(q for q, _ in pairs))
    random.Random(seed).shuffle(questions)
    count = round(len(questions) * fraction)
    if fraction > 0 and len(questions) >= 2:
        count = min(max(count, 1), len(questions) - 1)
    held = set(questions[:count])
    return TrainingData(
        train=[p for p in pairs if p[0] not in held],
        held_out=[p for p in pairs if p[0] in held],
    )


def seed_everything(seed: int) -> None:
    """Seed ``random``, numpy and torch (CPU and every GPU)."""
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


# -- hard negatives -------------------------------------------------------------


def bm25_ranking(
    questions: Sequence[str], passages: Sequence[str], depth: int
) -> dict[str, list[str]]:
    """Each question's ``depth`` best passages by BM25, best first.

    Uses ragloom's ``bm25`` store, so the analyzer (stemming, stopwords) is
    the one retrieval uses.
    """
    from ragloom import Chunk, Store
    from ragloom.plugins import build_plugin_manager
    from ragloom.registry import Registry

    registry = Registry.from_plugin_manager(build_plugin_manager(load_entry_points=False, env={}))
    store = registry.get("store", "bm25").cls()
    assert isinstance(store, Store)
    store.upsert(
        [Chunk(f"p{i}", f"p{i}", text, 0, 0, len(text), f"p{i}") for i, text in enumerate(passages)]
    )
    return {q: [hit.chunk.text for hit in store.query(text=q, k=depth)] for q in questions}


def bm25_negatives(
    pairs: Sequence[Pair], passages: Sequence[str], per_question: int = 1, depth: int = 20
) -> dict[str, list[str]]:
    """For each question, the passages BM25 ranks highest among ``passages``
    that are not its own: ``{question: [passage, ...]}``, up to
    ``per_question`` each (fewer when BM25 finds fewer in its top ``depth``)."""
    own: dict[str, set[str]] = {}
    for question, passage in pairs:
        own.setdefault(question, set()).add(passage)
    widest = max((len(v) for v in own.values()), default=0)
    ranked = bm25_ranking(list(own), passages, depth + widest)
    return {q: [p for p in ranked[q] if p not in own[q]][:per_question] for q in own}


# -- batching -------------------------------------------------------------------


def no_duplicate_batches(
    rows: Sequence[tuple[str, ...]], batch_size: int, rng: random.Random
) -> list[list[tuple[str, ...]]]:
    """``rows`` shuffled into batches in which no text appears twice, so that
    in-batch negatives are never another copy of the positive."""
    pending = list(rows)
    rng.shuffle(pending)
    batches: list[list[tuple[str, ...]]] = []
    while pending:
        batch: list[tuple[str, ...]] = []
        seen: set[str] = set()
        later: list[tuple[str, ...]] = []
        for row in pending:
            if len(batch) < batch_size and not seen.intersection(row):
                batch.append(row)
                seen.update(row)
            else:
                later.append(row)
        batches.append(batch)
        pending = later
    return batches


def _features(model: Any, texts: list[str]) -> dict[str, Any]:
    from sentence_transformers.util import batch_to_device

    prepare = getattr(model, "preprocess", None) or model.tokenize  # >= 5.x / 3.x
    return batch_to_device(prepare(texts), model.device)


def _optimizer(model: Any, steps: int, learning_rate: float) -> tuple[Any, Any]:
    """AdamW with linear warm-up over the first 10% of steps, then linear decay."""
    import torch

    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    warmup = max(1, steps // 10)

    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (steps - step) / max(1, steps - warmup))

    return optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def _step(model: Any, loss: Any, optimizer: Any, scheduler: Any) -> float:
    import torch

    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    return float(loss.detach())


# -- embedders ------------------------------------------------------------------


def embedder_batches(
    pairs: Sequence[Pair],
    negatives: dict[str, list[str]] | None,
    batch_size: int,
    epochs: int,
    seed: int,
) -> list[list[tuple[str, ...]]]:
    """Every epoch's batches of (question, passage[, negative...]) rows: as many
    negatives in every row as the question with the fewest has (rows must
    have the same width)."""
    rows: list[tuple[str, ...]] = []
    wanted = min((len(v) for v in negatives.values() if v), default=0) if negatives else 0
    for question, passage in pairs:
        if negatives is not None:
            found = negatives.get(question) or []
            if not found:
                continue  # every row of a batch needs a negative
            rows.append((question, passage, *found[:wanted]))
        else:
            rows.append((question, passage))
    rng = random.Random(seed)
    return [batch for _ in range(epochs) for batch in no_duplicate_batches(rows, batch_size, rng)]


def train_embedder(
    model: SentenceTransformer,
    batches: Iterable[list[tuple[str, ...]]],
    *,
    learning_rate: float,
    steps: int,
    query_prefix: str = "",
    document_prefix: str = "",
    progress: Progress | None = None,
) -> None:
    """Fine-tune ``model`` in place with MultipleNegativesRankingLoss: each
    question against its passage, the other passages of its batch and, when
    the rows have a third column, the hard negatives."""
    import torch

    try:  # sentence-transformers >= 6
        from sentence_transformers.sentence_transformer.losses import (
            MultipleNegativesRankingLoss,
        )
    except ImportError:
        from sentence_transformers.losses import (  # type: ignore[no-redef]
            MultipleNegativesRankingLoss,
        )

    loss_fn = MultipleNegativesRankingLoss(model)
    optimizer, scheduler = _optimizer(model, steps, learning_rate)
    model.train()
    try:
        value = float("nan")
        for done, batch in enumerate(batches, start=1):
            if len(batch) >= 2:  # a lone pair has nothing to be contrasted with
                columns = list(zip(*batch))
                texts = [[query_prefix + q for q in columns[0]]]
                texts += [[document_prefix + p for p in column] for column in columns[1:]]
                features = [_features(model, column) for column in texts]
                loss = loss_fn(features, torch.zeros(len(batch)))
                value = _step(model, loss, optimizer, scheduler)
            if progress:
                progress(done, value)
    finally:
        model.eval()


def evaluate_embedder(
    model: SentenceTransformer,
    pairs: Sequence[Pair],
    *,
    query_prefix: str = "",
    document_prefix: str = "",
    batch_size: int = 32,
    k: int = 10,
) -> dict[str, float]:
    """Recall@k and MRR@k of finding each held-out question's passage(s) among
    all held-out passages by cosine similarity."""
    import numpy as np

    questions = list(dict.fromkeys(q for q, _ in pairs))
    passages = list(dict.fromkeys(p for _, p in pairs))
    q_vectors = model.encode(
        [query_prefix + q for q in questions],
        batch_size=batch_size,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    p_vectors = model.encode(
        [document_prefix + p for p in passages],
        batch_size=batch_size,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    scores = np.asarray(q_vectors) @ np.asarray(p_vectors).T
    run = {
        f"q{i}": {f"p{j}": float(scores[i, j]) for j in np.argsort(-scores[i])[: max(k, 100)]}
        for i in range(len(questions))
    }
    return _metrics(run, _qrels(pairs, questions, passages), k)


# -- cross-encoders --------------------------------------------------------------


def reranker_examples(
    pairs: Sequence[Pair],
    passages: Sequence[str],
    negatives: dict[str, list[str]] | None,
    per_positive: int,
    seed: int,
) -> list[tuple[str, str, float]]:
    """(question, passage, label): each pair labelled 1, and ``per_positive``
    negatives labelled 0 for each: BM25's (``negatives``), topped up with
    random passages that are not the question's own."""
    rng = random.Random(seed)
    own: dict[str, set[str]] = {}
    for question, passage in pairs:
        own.setdefault(question, set()).add(passage)
    examples: list[tuple[str, str, float]] = []
    for question, passage in pairs:
        examples.append((question, passage, 1.0))
        chosen = [n for n in (negatives or {}).get(question, []) if n not in own[question]]
        chosen = chosen[:per_positive]
        tries = 0
        while len(chosen) < per_positive and tries < 10 * per_positive:
            tries += 1
            candidate = passages[rng.randrange(len(passages))]
            if candidate not in own[question] and candidate not in chosen:
                chosen.append(candidate)
        examples.extend((question, n, 0.0) for n in chosen)
    return examples


def reranker_batches(
    examples: Sequence[tuple[str, str, float]], batch_size: int, epochs: int, seed: int
) -> list[list[tuple[str, str, float]]]:
    rng = random.Random(seed)
    batches: list[list[tuple[str, str, float]]] = []
    for _ in range(epochs):
        order = list(examples)
        rng.shuffle(order)
        batches.extend(order[i : i + batch_size] for i in range(0, len(order), batch_size))
    return batches


def train_reranker(
    model: CrossEncoder,
    batches: Iterable[list[tuple[str, str, float]]],
    *,
    learning_rate: float,
    steps: int,
    progress: Progress | None = None,
) -> None:
    """Fine-tune ``model`` in place with binary cross-entropy on the labels."""
    import torch

    try:
        from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss
    except ImportError as exc:  # sentence-transformers 3.x
        raise RagloomError(
            "`ragloom tune reranker` needs sentence-transformers 4 or later: "
            "pip install -U 'sentence-transformers>=4'"
        ) from exc

    loss_fn = BinaryCrossEntropyLoss(model)
    optimizer, scheduler = _optimizer(model, steps, learning_rate)
    model.train()
    try:
        for done, batch in enumerate(batches, start=1):
            questions, texts, labels = zip(*batch)
            loss = loss_fn(
                [list(questions), list(texts)],
                torch.tensor(labels, dtype=torch.float32, device=model.device),
            )
            value = _step(model, loss, optimizer, scheduler)
            if progress:
                progress(done, value)
    finally:
        model.eval()


def evaluate_reranker(
    model: CrossEncoder,
    pairs: Sequence[Pair],
    candidates: dict[str, list[str]],
    *,
    batch_size: int = 32,
    k: int = 10,
) -> dict[str, float]:
    """MRR@k and Recall@k of reranking each held-out question's ``candidates``
    (BM25's top passages among the held-out ones)."""
    questions = list(dict.fromkeys(q for q, _ in pairs))
    passages = list(dict.fromkeys(p for _, p in pairs))
    index = {p: j for j, p in enumerate(passages)}
    run: dict[str, dict[str, float]] = {}
    flat = [(i, text) for i, q in enumerate(questions) for text in candidates.get(q, [])]
    if flat:
        scores = model.predict(
            [(questions[i], text) for i, text in flat],
            batch_size=batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        for (i, text), score in zip(flat, scores.reshape(len(flat), -1)[:, -1]):
            run.setdefault(f"q{i}", {})[f"p{index[text]}"] = float(score)
    return _metrics(run, _qrels(pairs, questions, passages), k)


# -- metrics --------------------------------------------------------------------


def _qrels(
    pairs: Sequence[Pair], questions: list[str], passages: list[str]
) -> dict[str, dict[str, int]]:
    q_index = {q: i for i, q in enumerate(questions)}
    p_index = {p: j for j, p in enumerate(passages)}
    qrels: dict[str, dict[str, int]] = {}
    for question, passage in pairs:
        qrels.setdefault(f"q{q_index[question]}", {})[f"p{p_index[passage]}"] = 1
    return qrels


def _metrics(
    run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]], k: int
) -> dict[str, float]:
    from ragloom.evaluation import mrr_at_k, recall_at_k

    return {
        f"Recall@{k}": recall_at_k(run, qrels, k).mean,
        f"MRR@{k}": mrr_at_k(run, qrels, k).mean,
    }


# -- query encoders against fixed document vectors --------------------------------


class DocumentSpace:
    """Fixed document vectors for query-side training: one row per chunk and the
    document each chunk belongs to; a document scores as its best chunk (as
    retrieval ranks documents)."""

    def __init__(self, doc_ids: Sequence[str], vectors: Any) -> None:
        import numpy as np

        self.docs = list(dict.fromkeys(doc_ids))
        self.index = {doc: i for i, doc in enumerate(self.docs)}
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        rows: list[list[int]] = [[] for _ in self.docs]
        for row, doc in enumerate(doc_ids):
            rows[self.index[doc]].append(row)
        width = max((len(r) for r in rows), default=1)
        # padded with the index of an extra all -inf column
        pad = len(doc_ids)
        self.chunks_of = np.array([r + [pad] * (width - len(r)) for r in rows], dtype=np.int64)

    def doc_scores(self, query_vectors: Any) -> Any:
        """``(queries, documents)`` scores, torch in, torch out."""
        import torch

        chunk = query_vectors @ torch.from_numpy(self.vectors).T
        chunk = torch.cat([chunk, torch.full_like(chunk[:, :1], float("-inf"))], dim=1)
        return chunk[:, torch.from_numpy(self.chunks_of)].amax(dim=-1)


def train_query_encoder(
    model: SentenceTransformer,
    questions: Sequence[str],
    positives: Sequence[Sequence[str]],
    space: DocumentSpace,
    *,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
    query_prefix: str = "",
    scale: float = 20.0,
    progress: Progress | None = None,
) -> int:
    """Fine-tune ``model`` as a query encoder in place: each question against
    every document of ``space`` at once (cross-entropy of its relevant
    documents' scores, ``scale`` times the cosine, over all documents'); the
    documents' vectors stay fixed. Returns the number of steps taken."""
    import torch

    targets = [[space.index[d] for d in docs if d in space.index] for docs in positives]
    rows = [i for i, t in enumerate(targets) if t]
    if len(rows) < 1:
        raise RagloomError("none of the questions has a relevant document in the corpus")
    rng = random.Random(seed)
    batches: list[list[int]] = []
    for _ in range(epochs):
        order = list(rows)
        rng.shuffle(order)
        batches.extend(order[i : i + batch_size] for i in range(0, len(order), batch_size))
    optimizer, scheduler = _optimizer(model, len(batches), learning_rate)
    model.train()
    try:
        for done, batch in enumerate(batches, start=1):
            features = _features(model, [query_prefix + questions[i] for i in batch])
            embedded = model(features)["sentence_embedding"]
            embedded = torch.nn.functional.normalize(embedded, dim=-1)
            scores = space.doc_scores(embedded) * scale
            mask = torch.zeros_like(scores, dtype=torch.bool)
            for row, i in enumerate(batch):
                mask[row, targets[i]] = True
            relevant = scores.masked_fill(~mask, float("-inf")).logsumexp(dim=-1)
            loss = (scores.logsumexp(dim=-1) - relevant).mean()
            value = _step(model, loss, optimizer, scheduler)
            if progress:
                progress(done, value)
    finally:
        model.eval()
    return len(batches)


def evaluate_query_encoder(
    model: SentenceTransformer,
    questions: Sequence[str],
    positives: Sequence[Sequence[str]],
    space: DocumentSpace,
    *,
    query_prefix: str = "",
    batch_size: int = 64,
) -> dict[str, float]:
    """nDCG@10, Recall@10 and MRR@10 of ranking every document of ``space`` for
    each question by its best chunk's cosine."""
    import torch
    from ragloom.evaluation import mrr_at_k, ndcg_at_k, recall_at_k

    vectors = model.encode(
        [query_prefix + q for q in questions],
        batch_size=batch_size,
        normalize_embeddings=True,
        convert_to_tensor=True,
        show_progress_bar=False,
    ).cpu()
    with torch.no_grad():
        scores = space.doc_scores(vectors)
        top = scores.topk(min(100, scores.shape[1]), dim=-1)
    run = {
        f"q{i}": {space.docs[j]: float(s) for s, j in zip(top.values[i], top.indices[i].tolist())}
        for i in range(len(questions))
    }
    qrels = {f"q{i}": {d: 1 for d in docs} for i, docs in enumerate(positives)}
    return {
        "nDCG@10": ndcg_at_k(run, qrels, 10).mean,
        "Recall@10": recall_at_k(run, qrels, 10).mean,
        "MRR@10": mrr_at_k(run, qrels, 10).mean,
    }
