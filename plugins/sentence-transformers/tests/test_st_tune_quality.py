"""`ragloom tune` makes retrieval better, not just different: each model is
tuned on the tiny random BERT with a fixed seed, then measured here, with the
plugin's own embedder and reranker, on held-out questions about plans the
training never saw (and by the command's own held-out report). The tuned
cross-encoder then passes ``SemanticRerankerContract``: the passage that
answers the contract's question ranks first, a question it was not trained on.

Tuning a random model is seeded end to end, so the figures are the same on
every run of one machine; the margins asked for are under the gains measured
when this was written (embedder: MRR@10 0.20 -> 0.47 by the command's report,
0.21 -> 0.40 on the held-out topics here). A tuning that does nothing, or
makes ranking worse (a loss with its sign flipped, labels swapped), fails."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from ragloom import Context
from ragloom.testing.rerankers import CONTRACT_QUERY, RerankerContract, SemanticRerankerContract

from ragloom_sentence_transformers import CrossEncoderReranker, SentenceTransformersEmbedder
from ragloom_sentence_transformers.tune import tune

Pair = tuple[str, str]

# -- the embedder: three questions about each topic -------------------------

TOPICS = [
    "pro", "free", "team", "annual", "trial", "billing", "support", "storage", "search", "sso",
    "invoice", "export", "password", "login", "upload", "meeting", "note", "security",
    "encryption", "data", "account", "model", "vector", "index", "passage", "document", "query",
    "answer", "file", "user", "seat",
]  # fmt: skip
HELD_OUT_TOPICS = TOPICS[::3]
EMBEDDER_TEMPLATES = [
    ("how much does the {t} plan cost", "the {t} plan costs {n} per user per month"),
    ("can i get a refund on the {t} plan", "refunds on the {t} plan are possible within {n} days"),
    (
        "how long are memories kept on the {t} plan",
        "memories are kept for {n} days on the {t} plan",
    ),
]

# -- the reranker: five questions about each plan; "pro" only in the contract ---

PLANS = ["free", "team", "annual", "trial", "starter", "basic", "business", "family"]
PLANS += ["student", "premium", "gold", "silver"]
HELD_OUT_PLANS = ["bronze", "platinum", "startup", "nonprofit"]
RERANKER_TEMPLATES = [
    ("how much does the {t} plan cost?", "the {t} plan costs ${n} per user per month."),
    ("can {t} plans be refunded?", "{t} plans can be refunded within {n} days of purchase."),
    (
        "how long are memories kept on the {t} plan?",
        "memories are kept for {n} days on the {t} plan.",
    ),
    (
        "is data encrypted on the {t} plan?",
        "data on the {t} plan is encrypted at rest with aes-256.",
    ),
    (
        "is single sign-on available on the {t} plan?",
        "single sign-on is available on the {t} plan.",
    ),
]


def make_pairs(topics: Sequence[str], templates: Sequence[Pair], seed: int) -> list[Pair]:
    rng = random.Random(seed)
    return [
        (q.format(t=t), p.format(t=t, n=rng.randint(2, 99))) for t in topics for q, p in templates
    ]


def write_pairs(path: Path, pairs: Sequence[Pair]) -> Path:
    path.write_text("question\tpassage\n" + "".join(f"{q}\t{p}\n" for q, p in pairs), "utf-8")
    return path


def mrr(scores: np.ndarray) -> float:
    """Mean reciprocal rank when question i's answer is passage i (ties count against)."""
    ranks = [int((row >= row[i]).sum()) for i, row in enumerate(scores)]
    return float(np.mean([1.0 / r for r in ranks]))


def tuned(kind: str, base: Path, pairs: Path, out: Path, *options: str) -> dict:
    result = CliRunner().invoke(
        tune,
        [
            kind,
            "--pairs",
            str(pairs),
            "--base",
            str(base),
            "--out",
            str(out),
            "--seed",
            "7",
            "--holdout",
            "0.25",
            *options,
        ],  # fmt: skip
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return json.loads((out / "ragloom-tune.json").read_text())


# -- embedder -------------------------------------------------------------------


def embedder_mrr(model: Path, held_out: Sequence[Pair]) -> float:
    embedder = SentenceTransformersEmbedder(model=str(model), device="cpu")
    embedder.open(Context())
    try:
        questions = np.vstack([embedder.embed_query(q) for q, _ in held_out])
        passages = embedder.embed_documents([p for _, p in held_out])
    finally:
        embedder.close()
    return mrr(questions @ passages.T)


def test_tune_embedder_improves_retrieval_on_held_out_topics(
    tiny_model: Path, tmp_path: Path
) -> None:
    train = make_pairs([t for t in TOPICS if t not in HELD_OUT_TOPICS], EMBEDDER_TEMPLATES, 0)
    held_out = make_pairs(HELD_OUT_TOPICS, EMBEDDER_TEMPLATES, 1)
    assert len(train) == 60 and len(held_out) == 33
    out = tmp_path / "tuned"
    report = tuned(
        "embedder", tiny_model, write_pairs(tmp_path / "train.tsv", train), out,
        "--batch-size", "8", "--epochs", "4", "--learning-rate", "2e-3",
    )  # fmt: skip
    # the command's own measure, on the 25% of training questions it held out
    assert report["held_out_pairs"] == 15
    assert report["after"]["MRR@10"] >= report["before"]["MRR@10"] + 0.15, report
    assert report["after"]["Recall@10"] >= report["before"]["Recall@10"], report
    # ours, on topics it never saw, through the plugin's embedder
    before, after = embedder_mrr(tiny_model, held_out), embedder_mrr(out, held_out)
    assert after >= before + 0.1, (before, after)


# -- reranker -------------------------------------------------------------------


@pytest.fixture(scope="module")
def tuned_reranker(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """``ragloom tune reranker`` on the tiny BERT: (model directory, report)."""
    folder = tmp_path_factory.mktemp("tuned-reranker")
    pairs = write_pairs(folder / "train.tsv", make_pairs(PLANS, RERANKER_TEMPLATES, 0))
    assert "pro plan" not in pairs.read_text()
    out = folder / "model"
    report = tuned(
        "reranker", tiny_model, pairs, out, "--batch-size", "16", "--epochs", "10",
        "--learning-rate", "2e-3", "--negatives", "3", "--hard-negatives",
    )  # fmt: skip
    return out, report


@pytest.fixture(scope="module")
def untuned_reranker(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The base of the tuning: the tiny BERT with the same fresh head, seeded alike."""
    from sentence_transformers import CrossEncoder

    from ragloom_sentence_transformers import training

    training.seed_everything(7)  # as `ragloom tune --seed 7` does before it loads the base
    out = tmp_path_factory.mktemp("untuned-reranker") / "model"
    CrossEncoder(str(tiny_model), num_labels=1, device="cpu").save(str(out))
    return out


def reranker_scores(model: Path, held_out: Sequence[Pair]) -> np.ndarray:
    """Each held-out question's score of every held-out passage, through the plugin."""
    reranker = CrossEncoderReranker(model=str(model), device="cpu")
    reranker.open(Context())
    try:
        passages = [p for _, p in held_out]
        return np.array([reranker.scores(q, passages) for q, _ in held_out])
    finally:
        reranker.close()


def test_tune_reranker_improves_ranking_on_held_out_plans(
    tuned_reranker: tuple[Path, dict], untuned_reranker: Path
) -> None:
    model, report = tuned_reranker
    assert report["train_pairs"] + report["held_out_pairs"] == 60
    assert report["examples"] == report["train_pairs"] * 4
    # the command's own measure: BM25's candidates of its held-out questions, reranked
    assert report["after"]["MRR@10"] >= report["before"]["MRR@10"] + 0.1, report
    # ours: every passage about plans it never saw (their names spelt out letter
    # by letter: not in the tiny vocabulary), ranked for each question through
    # the plugin's reranker. Measured 0.22 -> 0.29: the tiny model learns the
    # question's intent on known plans far better than on unknown ones.
    held_out = make_pairs(HELD_OUT_PLANS, RERANKER_TEMPLATES, 1)
    before = mrr(reranker_scores(untuned_reranker, held_out))
    after = mrr(reranker_scores(model, held_out))
    assert after >= before + 0.04, (before, after)


class TestTunedCrossEncoder(RerankerContract, SemanticRerankerContract):
    """The cross-encoder trained above, through ``CrossEncoderReranker``:
    the whole reranker contract, the semantic part included."""

    @pytest.fixture
    def reranker_factory(self, tuned_reranker: tuple[Path, dict]):
        model, _ = tuned_reranker
        return lambda **options: CrossEncoderReranker(
            **{"model": str(model), "device": "cpu", **options}
        )


def test_the_contract_question_was_not_trained_on(tuned_reranker: tuple[Path, dict]) -> None:
    model, _ = tuned_reranker
    trained = (model.parent / "train.tsv").read_text().lower()
    assert CONTRACT_QUERY.lower() not in trained and "$29" not in trained
