"""``ragloom tune fusion``: learn fusion settings on a tuning split, write them
into a config that validates, and score what ``ragloom eval --beir`` then
measures, never lower than the config's own settings."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pluggy
import pytest
import yaml
from click.testing import CliRunner
from ragloom.cli import cli
from ragloom.cli_tune import tune
from ragloom.config import load_config
from ragloom.errors import ConfigError, RagloomError
from ragloom.evaluation import evaluate_beir
from ragloom.registry import Registry
from ragloom.tuning import FusionChoice, apply_choice, tune_fusion

TOPICS = [
    "astronomy", "botany", "chemistry", "dentistry", "ecology", "forestry", "geology",
    "hydrology", "immunology", "jurisprudence", "kinetics", "linguistics", "metallurgy",
    "neurology", "oceanography", "paleontology", "quantum", "radiology", "seismology",
    "toxicology", "urology", "virology", "welding", "xenobiology", "yachting", "zoology",
]  # fmt: skip


@pytest.fixture(autouse=True)
def tune_in_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ragloom tune`` as cli.py registers it (a no-op once it does)."""
    monkeypatch.setitem(cli.commands, "tune", cli.commands.get("tune", tune))


def write_topics(
    root: Path, documents: Callable[[int, str], list[dict]], query: Callable[[str], str]
) -> Path:
    """A BEIR folder under ``root``: per topic ``documents(i, topic)`` (one of
    them ``d<i>``, the relevant one) and the query ``query(topic)``."""
    (root / "qrels").mkdir(parents=True)
    with (
        open(root / "corpus.jsonl", "w", encoding="utf-8") as corpus,
        open(root / "queries.jsonl", "w", encoding="utf-8") as queries,
    ):
        for i, topic in enumerate(TOPICS):
            for document in documents(i, topic):
                corpus.write(json.dumps(document) + "\n")
            queries.write(json.dumps({"_id": f"q{i}", "text": query(topic)}) + "\n")
    (root / "qrels" / "tune.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i}\t1\n" for i in range(len(TOPICS)))
    )
    return root


def write_beir(root: Path) -> Path:
    """One document per topic; each query names its topic, so BM25 finds it first."""

    def documents(i: int, topic: str) -> list[dict]:
        text = f"A short note on {topic} and what it studies, with examples."
        return [{"_id": f"d{i}", "title": topic, "text": text}]

    return write_topics(root, documents, lambda topic: f"what is {topic}")


def config(tmp_path: Path) -> dict:
    """BM25 beside a dense store whose 2-bucket hash vectors rank at random:
    equal-weight RRF lets the noise push right answers down."""
    return {
        "index_dir": str(tmp_path / "index"),
        "chunker": {"type": "recursive", "size": 400, "overlap": 0},
        "embedder": {"type": "hash", "dimension": 2},
        "stores": [{"type": "memory"}, {"type": "bm25"}],
        "generator": {"type": "extractive"},
    }


def test_tune_fusion_improves_and_eval_measures_the_same(
    tmp_path: Path, pm: pluggy.PluginManager, registry: Registry
) -> None:
    beir = write_beir(tmp_path / "beir")
    cfg = config(tmp_path)
    report = tune_fusion(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    before = evaluate_beir(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    assert report.before_score == pytest.approx(before.metrics["nDCG@10"], abs=1e-9)
    assert report.before == FusionChoice("rrf", 60, (1.0, 1.0), (300, 300))
    assert report.best_score > report.before_score + 0.05
    assert report.stores == ("memory", "bm25")
    # the noisy store counts for less than BM25 in what was chosen
    best = report.best
    assert best.weights[0] < best.weights[1] or best.ks[0] < best.ks[1]

    tuned = apply_choice(cfg, best)
    load_config(tuned, registry, base_dir=tmp_path)  # validates
    after = evaluate_beir(tuned, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    assert after.metrics["nDCG@10"] == pytest.approx(report.best_score, abs=1e-9)
    assert after.metrics["nDCG@10"] > before.metrics["nDCG@10"]


def test_tune_fusion_never_scores_lower_than_the_config(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """Only one method allowed, starting from already good settings: the
    result is those settings or better."""
    beir = write_beir(tmp_path / "beir")
    cfg = config(tmp_path)
    cfg["stores"] = [{"type": "memory", "weight": 0.1, "k": 10}, {"type": "bm25", "k": 50}]
    cfg["retrieval"] = {"fusion": "weighted"}
    report = tune_fusion(cfg, beir, "tune", methods=["rrf"], plugin_manager=pm, base_dir=tmp_path)
    assert report.before == FusionChoice("weighted", 60, (0.1, 1.0), (10, 50))
    assert report.best_score >= report.before_score


def test_apply_choice_writes_fusion_into_the_config(registry: Registry, tmp_path: Path) -> None:
    data = {"stores": [{"type": "memory"}, {"type": "bm25"}], "retrieval": {"k": 5, "rrf_k": 60}}
    out = apply_choice(data, FusionChoice("weighted", 60, (1.0, 0.4), (50, 100)))
    assert out["retrieval"] == {"k": 5, "fusion": "weighted"}
    assert out["stores"] == [
        {"type": "memory", "weight": 1.0, "k": 50},
        {"type": "bm25", "weight": 0.4, "k": 100},
    ]
    assert data["stores"] == [{"type": "memory"}, {"type": "bm25"}]  # a copy
    rrf = apply_choice(data, FusionChoice("rrf", 10, (1.0, 2.0), (20, 20)))
    assert rrf["retrieval"]["rrf_k"] == 10
    load_config({**out, "embedder": {"type": "hash"}}, registry, base_dir=tmp_path)


def test_tune_fusion_refuses_what_it_cannot_tune(tmp_path: Path, pm: pluggy.PluginManager) -> None:
    beir = write_beir(tmp_path / "beir")
    one = {**config(tmp_path), "stores": [{"type": "bm25"}], "embedder": None}
    with pytest.raises(ConfigError, match="two or more stores"):
        tune_fusion(one, beir, "tune", plugin_manager=pm)
    with pytest.raises(ConfigError, match="unknown metric"):
        tune_fusion(config(tmp_path), beir, "tune", metric="nDCG", plugin_manager=pm)
    with pytest.raises(RagloomError, match="unknown fusion method"):
        tune_fusion(config(tmp_path), beir, "tune", methods=["max"], plugin_manager=pm)


def test_command_writes_a_tuned_config(
    tmp_path: Path, pm: pluggy.PluginManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ragloom.plugins

    monkeypatch.setattr(ragloom.plugins, "_pm", pm)
    monkeypatch.setattr(ragloom.plugins, "_registry", None)
    beir = write_beir(tmp_path / "beir")
    source = tmp_path / "ragloom.yaml"
    source.write_text(
        "# my config\n" + yaml.safe_dump({**config(tmp_path), "index_dir": "index"}), "utf-8"
    )
    out = tmp_path / "tuned.yaml"
    args = ["-c", str(source), "tune", "fusion", "--beir", str(beir), "--out", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "nDCG@10" in result.output and "(best)" in result.output
    assert "tuning queries are too few to tell settings apart" in result.output  # a tiny split
    tuned = yaml.safe_load(out.read_text("utf-8"))
    assert tuned["index_dir"] == "index"  # the file's own values, not resolved ones
    assert all("weight" in s and "k" in s for s in tuned["stores"])
    assert "my config" not in out.read_text("utf-8").split("\n", 1)[1]
    assert "is not beside" not in result.output
    # written into another folder: its relative paths would resolve there, said
    (tmp_path / "conf").mkdir()
    elsewhere = [*args[:-1], str(tmp_path / "conf" / "tuned.yaml")]
    moved = CliRunner().invoke(cli, elsewhere)
    assert moved.exit_code == 0, moved.output
    assert "is not beside" in moved.output and "relative paths in it" in moved.output
    # refuses to overwrite without --force, and never the config itself
    assert CliRunner().invoke(cli, args).exit_code == 2
    assert CliRunner().invoke(cli, [*args, "--force", "--significance", "-1"]).exit_code == 2
    clobber = ["-c", str(source), "tune", "fusion", "--beir", str(beir), "--out", str(source)]
    assert CliRunner().invoke(cli, [*clobber, "--force"]).exit_code == 2
    # an index folder it cannot create: the error says how to index elsewhere
    (tmp_path / "blocker").write_text("a file where the index would go")
    source.write_text(yaml.safe_dump({**config(tmp_path), "index_dir": "blocker/i"}), "utf-8")
    blocked = CliRunner().invoke(cli, [*args, "--force"])
    assert blocked.exit_code == 1
    assert "`ragloom tune fusion ... --index-dir DIR`" in blocked.output


def test_the_scorer_ranks_as_fuse_does() -> None:
    """The tuner's array scorer against ragloom.fusion.fuse itself, for every
    method, by chunk and by document, on lists with ties, overlaps and
    different lengths."""
    import random

    from ragloom.fusion import fuse
    from ragloom.tuning.fusion import _Lists, _Scorer
    from ragloom.types import Chunk, Hit

    rng = random.Random(0)

    def hit(i: int, score: float) -> Hit:
        meta = {"record_id": f"d{i // 3}"}
        chunk = Chunk(f"c{i}", f"doc{i // 3}", "text", 0, 0, 4, f"c{i}", meta)
        return Hit(chunk, score)

    for trial in range(60):
        per_store = []
        for _ in range(2):
            ids = rng.sample(range(60), rng.randint(5, 40))
            scores = sorted((round(rng.random(), 1) for _ in ids), reverse=True)  # ties
            per_store.append([hit(i, s) for i, s in zip(ids, scores)])
        choice = FusionChoice(
            rng.choice(["rrf", "weighted", "dbsf"]),
            rng.choice([1, 5, 60]),
            (1.0, rng.choice([0.3, 1.0, 2.0])),
            (rng.choice([5, 10, 40]), rng.choice([5, 10, 40])),
            by=rng.choice(["chunk", "document"]),
        )
        uniform = choice.weights == (1.0, 1.0)
        fused = fuse(
            [hits[:k] for hits, k in zip(per_store, choice.ks)],
            method=choice.method,
            k=choice.rrf_k,
            weights=None if uniform else list(choice.weights),
            limit=100,
            by=choice.by,
        )
        expected: dict[str, float] = {}
        for h in fused:
            doc = h.chunk.metadata["record_id"]
            expected[doc] = max(expected.get(doc, h.score), h.score)
        scorer = _Scorer({}, {}, "nDCG@10")
        got = scorer.ranking(_Lists(per_store), choice)
        assert list(got) == list(expected), (trial, choice)
        assert got == pytest.approx(expected, abs=0), (trial, choice)


def write_tf_beir(root: Path) -> Path:
    """Per topic two look-alike notes naming it once, then the one that is
    about it, naming it five times. With ``k1: 0`` BM25 ignores how often a
    word occurs and scores the three alike; ties go to the look-alikes (first
    indexed, and first by trec_eval's document-id order)."""

    def documents(i: int, topic: str) -> list[dict]:
        once = f"{topic} is named once in this note among many plain filler words"
        about = f"{topic} {topic} {topic} {topic} {topic} filler words about it"
        return [
            *({"_id": f"z{i}x{j}", "text": once} for j in range(2)),
            {"_id": f"d{i}", "text": about},
        ]

    return write_topics(root, documents, lambda topic: topic)


def test_tune_fusion_tunes_bm25_k1_and_b_and_eval_measures_the_same(
    tmp_path: Path, pm: pluggy.PluginManager, registry: Registry
) -> None:
    beir = write_tf_beir(tmp_path / "beir")
    cfg = config(tmp_path)
    cfg["stores"] = [{"type": "memory"}, {"type": "bm25", "k1": 0.0}]
    # 3 of the 26 queries fail with k1 0: the fix takes k1 and rrf_k together, and
    # neither alone beats chance on so few queries, so any gain is kept here
    fixed = tune_fusion(
        cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path, bm25=False, significance=0
    )
    assert fixed.best.options == ()
    report = tune_fusion(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path, significance=0)
    assert report.best.store_options(0) == {}  # the memory store has none to tune
    assert report.best.store_options(1).get("k1", 0.0) > 0  # term frequency counts again
    assert report.best_score == 1.0
    assert report.best_score > fixed.best_score + 0.1
    assert "k1" in report.best.describe(report.stores)

    tuned = apply_choice(cfg, report.best)
    assert tuned["stores"][1]["k1"] == report.best.store_options(1)["k1"]
    load_config(tuned, registry, base_dir=tmp_path)  # validates
    after = evaluate_beir(tuned, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    assert after.metrics["nDCG@10"] == pytest.approx(report.best_score, abs=1e-9)
    # asking again wrote nothing into the index the stores share
    again = evaluate_beir(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    assert again.metrics["nDCG@10"] == pytest.approx(report.before_score, abs=1e-9)


def write_split_beir(root: Path) -> Path:
    """Per topic a document naming it in its first paragraph and a rare word
    (the topic spelt backwards) in its second; each query asks for both. Two
    one-line notes name one word each: a chunk of the document holds no more
    of the query than they do, and is longer. Only the whole document holds
    both words."""

    def documents(i: int, topic: str) -> list[dict]:
        rare = topic[::-1]
        notes = [
            {"_id": f"z{i}x{j}", "text": f"{word} is noted in a plain filler line."}
            for j, word in enumerate((topic, rare))
        ]
        text = (
            f"{topic} opens the first paragraph of this rather longer text.\n\n"
            f"{rare} comes in the second paragraph of this same longer text."
        )
        return [*notes, {"_id": f"d{i}", "text": text}]

    return write_topics(root, documents, lambda topic: f"{topic} {topic[::-1]}")


def test_tune_fusion_finds_bm25_document_scope_and_eval_measures_the_same(
    tmp_path: Path, pm: pluggy.PluginManager, registry: Registry
) -> None:
    beir = write_split_beir(tmp_path / "beir")
    cfg = config(tmp_path)
    cfg["chunker"] = {"type": "recursive", "size": 90, "overlap": 0}
    report = tune_fusion(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    assert report.best.store_options(1).get("scope") == "document"
    # the last query's gain is one query's: within chance (see the significance tests)
    assert report.best_score > 0.95 and report.before_score < 0.8
    assert "scope document" in report.best.describe(report.stores)

    tuned = apply_choice(cfg, report.best)
    assert tuned["stores"][1]["scope"] == "document"
    load_config(tuned, registry, base_dir=tmp_path)  # validates
    after = evaluate_beir(tuned, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    assert after.metrics["nDCG@10"] == pytest.approx(report.best_score, abs=1e-9)
    assert after.chunks_written > after.documents  # the documents were chunked


def test_apply_choice_writes_fusion_by_document(registry: Registry, tmp_path: Path) -> None:
    data = {"stores": [{"type": "memory"}, {"type": "bm25"}], "retrieval": {"fuse_by": "document"}}
    out = apply_choice(data, FusionChoice("rrf", 60, (1.0, 1.0), (50, 50), by="document"))
    assert out["retrieval"]["fuse_by"] == "document"
    back = apply_choice(out, FusionChoice("rrf", 60, (1.0, 1.0), (50, 50)))
    assert "fuse_by" not in back["retrieval"]
    load_config({**out, "embedder": {"type": "hash"}}, registry, base_dir=tmp_path)
    assert "by document" in FusionChoice("rrf", 60, (1.0,), (5,), by="document").describe(["m"])


def test_a_gain_within_chance_is_not_kept() -> None:
    """``beats_by``: a gain counts only beyond ``significance`` standard errors
    of the paired differences. One query helped and none other is exactly one
    standard error, at any number of queries: never kept at 1, kept at 0."""
    from ragloom.tuning.fusion import beats_by

    old = [0.5] * 40
    one = [0.5] * 39 + [1.0]
    assert beats_by(one, old, 0.0)
    assert not beats_by(one, old, 1.0)
    three = [0.5] * 37 + [1.0] * 3
    assert beats_by(three, old, 1.0)
    assert not beats_by(three, old, 2.0)  # 3 of 40: 0.0375 against a standard error of 0.021
    mixed = [1.0, 0.0] * 20  # as many queries lost as won
    assert not beats_by(mixed, old, 0.0)
    assert not beats_by(old, old, 0.0)
    # a single query: no spread to weigh its gain against, so none beyond chance
    assert not beats_by([1.0], [0.5], 1.0)
    assert beats_by([1.0], [0.5], 0.0)


def test_the_ascent_keeps_only_changes_beyond_chance() -> None:
    """Coordinate ascent with the significance gate: a weight that helps one
    query of 30 is not kept; a weight that helps ten is."""
    from ragloom.tuning.fusion import _ascend, beats_by

    start = FusionChoice("weighted", 60, (1.0, 1.0), (300, 300))

    def per_query(choice: FusionChoice) -> list[float]:
        helped = {0.9: 1, 0.5: 10}.get(choice.weights[1], 0)
        return [1.0] * helped + [0.5] * (30 - helped)

    def score(choice: FusionChoice) -> float:
        return sum(per_query(choice)) / 30

    def gate(significance: float) -> Callable[[FusionChoice, FusionChoice], bool]:
        return lambda new, old: beats_by(per_query(new), per_query(old), significance)

    loose, _ = _ascend(score, start, 300, gate(0.0))
    assert loose.weights[1] == 0.5  # the best of all, found either way
    strict, strict_score = _ascend(score, start, 300, gate(1.0))
    assert strict.weights[1] == 0.5 and strict_score == pytest.approx(20 / 30)

    def per_query_small(choice: FusionChoice) -> list[float]:
        helped = 1 if choice.weights[1] == 0.9 else 0
        return [1.0] * helped + [0.5] * (30 - helped)

    def small_gate(significance: float) -> Callable[[FusionChoice, FusionChoice], bool]:
        return lambda new, old: beats_by(per_query_small(new), per_query_small(old), significance)

    def small_score(choice: FusionChoice) -> float:
        return sum(per_query_small(choice)) / 30

    assert _ascend(small_score, start, 300, small_gate(0.0))[0].weights[1] == 0.9
    assert _ascend(small_score, start, 300, small_gate(1.0))[0] == start


def test_significance_zero_keeps_any_gain_and_negative_is_refused(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    beir = write_beir(tmp_path / "beir")
    cfg = config(tmp_path)
    with pytest.raises(RagloomError, match="significance"):
        tune_fusion(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path, significance=-1)
    loose = tune_fusion(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path, significance=0)
    strict = tune_fusion(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path, significance=3)
    assert loose.best_score >= strict.best_score >= strict.before_score
    assert loose.best_score > loose.before_score
    # no step beats chance by infinitely many standard errors: every search
    # stays where it started, the config's own values in each method and unit
    frozen = tune_fusion(
        cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path, significance=float("inf")
    )
    for choice, _ in frozen.per_method.values():
        assert (choice.rrf_k, choice.weights, choice.ks) == (60, (1.0, 1.0), (300, 300))
        assert choice.options in ((), ((), ()))
    assert loose.best != frozen.best  # the same search, with its steps taken


def test_the_bm25_step_keeps_a_move_back_to_the_configured_scope() -> None:
    """The bm25 step starts from the other scope's winner; a kept move back to
    the configured scope (so no option differs from the config) is returned,
    not the start."""
    from types import SimpleNamespace

    from ragloom.tuning.fusion import _ascend_options

    bm25 = SimpleNamespace(config=SimpleNamespace(scope="chunk", k1=1.5, b=0.75))
    pipeline = SimpleNamespace(config=SimpleNamespace(stores=[SimpleNamespace(), bm25]))
    start = FusionChoice("weighted", 60, (1.0, 1.0), (300, 300), ((), (("scope", "document"),)))

    def beats(new: FusionChoice, old: FusionChoice) -> bool:
        return new.store_options(1) == {} and old.store_options(1) != {}

    tuned = _ascend_options(lambda c: 0.0, start, [1], pipeline, None, beats)
    assert tuned.options == () and tuned.weights == start.weights


def test_tune_fusion_asks_each_store_with_its_own_filter(
    tmp_path: Path, pm: pluggy.PluginManager, registry: Registry
) -> None:
    """A ``layers`` index, each store answering with one layer: the lists the
    tuner scores are those retrieval fuses, before and after tuning."""
    beir = write_split_beir(tmp_path / "beir")
    cfg = config(tmp_path)
    cfg["chunker"] = {
        "type": "layers",
        "layers": {
            "whole": {"type": "recursive", "size": 4000, "overlap": 0},
            "small": {"type": "recursive", "size": 40, "overlap": 0},
        },
    }
    cfg["stores"] = [
        {"type": "memory", "filter": {"layer": "small"}},
        {"type": "bm25", "filter": {"layer": "whole"}},
    ]
    report = tune_fusion(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    before = evaluate_beir(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    assert report.before_score == pytest.approx(before.metrics["nDCG@10"], abs=1e-9)

    tuned = apply_choice(cfg, report.best)
    assert [s["filter"] for s in tuned["stores"]] == [{"layer": "small"}, {"layer": "whole"}]
    load_config(tuned, registry, base_dir=tmp_path)  # validates
    after = evaluate_beir(tuned, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    assert after.metrics["nDCG@10"] == pytest.approx(report.best_score, abs=1e-9)

    # the filters matter here: without them the same stores score otherwise
    cfg["stores"] = [{"type": "memory"}, {"type": "bm25"}]
    mixed = evaluate_beir(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    assert mixed.metrics["nDCG@10"] != pytest.approx(before.metrics["nDCG@10"], abs=1e-6)


def test_tune_fusion_applies_the_configs_retrieval_filter(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """``retrieval.filter`` holds for every query retrieval answers, so the
    lists the tuner scores are filtered by it too (after each store's own)."""
    beir = write_split_beir(tmp_path / "beir")
    cfg = config(tmp_path)
    cfg["retrieval"] = {"filter": {"record_id": {"$nin": ["d0", "d1", "d2", "d3", "d4"]}}}
    report = tune_fusion(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    before = evaluate_beir(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    assert report.before_score == pytest.approx(before.metrics["nDCG@10"], abs=1e-9)
    del cfg["retrieval"]  # the filter matters here: without it the same stores score otherwise
    unfiltered = evaluate_beir(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    assert unfiltered.metrics["nDCG@10"] > before.metrics["nDCG@10"] + 0.01


def write_feedback_beir(root: Path) -> Path:
    """Per topic the relevant document shares no word with the query (the
    topic's name) but four rare words with a note that names the topic: only
    the question moved towards that note (feedback) finds it."""

    def documents(i: int, topic: str) -> list[dict]:
        words = " ".join(f"{topic[::-1]}{j}" for j in range(4))
        return [
            {"_id": f"n{i}", "text": f"{topic} {words}"},
            {"_id": f"d{i}", "text": f"{words} in depth and at length"},
        ]

    return write_topics(root, documents, lambda topic: topic)


def test_tune_fusion_chooses_feedback_and_eval_measures_the_same(
    tmp_path: Path, pm: pluggy.PluginManager, registry: Registry
) -> None:
    beir = write_feedback_beir(tmp_path / "beir")
    cfg = config(tmp_path)
    cfg["embedder"] = {"type": "hash", "dimension": 256}
    plain = tune_fusion(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path, feedback=False)
    assert plain.best.feedback is None
    report = tune_fusion(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    assert report.best.feedback is not None
    assert report.best_score > plain.best_score + 0.2
    assert "feedback from" in report.best.describe(report.stores)

    tuned = apply_choice(cfg, report.best)
    docs, weight = report.best.feedback
    assert tuned["retrieval"]["feedback"] == {"docs": docs, "weight": weight}
    load_config(tuned, registry, base_dir=tmp_path)  # validates
    after = evaluate_beir(tuned, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    assert after.metrics["nDCG@10"] == pytest.approx(report.best_score, abs=1e-9)

    # a config with feedback is scored with it, and written without it when
    # that scores better (here: never), as any other setting
    again = tune_fusion(tuned, beir, "tune", plugin_manager=pm, base_dir=tmp_path)
    assert again.before.feedback == report.best.feedback
    assert again.before_score == pytest.approx(report.best_score, abs=1e-9)
    assert again.best.feedback is not None
    back = apply_choice(tuned, replace(report.best, feedback=None))
    assert "feedback" not in back["retrieval"]


def test_no_feedback_keeps_the_configs_own(
    tmp_path: Path, pm: pluggy.PluginManager, registry: Registry
) -> None:
    beir = write_feedback_beir(tmp_path / "beir")
    cfg = config(tmp_path)
    cfg["embedder"] = {"type": "hash", "dimension": 256}
    cfg["retrieval"] = {"feedback": {"docs": 4, "weight": 0.6}}  # not on the grid
    report = tune_fusion(cfg, beir, "tune", plugin_manager=pm, base_dir=tmp_path, feedback=False)
    assert report.before.feedback == (4, 0.6)
    assert report.best.feedback == (4, 0.6)
    after = evaluate_beir(
        apply_choice(cfg, report.best), beir, "tune", plugin_manager=pm, base_dir=tmp_path
    )
    assert after.metrics["nDCG@10"] == pytest.approx(report.best_score, abs=1e-9)
    assert report.best_score >= report.before_score
