"""Retrieval evaluation: metrics against pytrec_eval (trec_eval), test sets, BEIR runs."""

from __future__ import annotations

import json
import random
import shutil
import statistics
from pathlib import Path
from typing import Any

import pluggy
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from ragloom.builtin.loaders.records import CsvLoader, JsonlLoader
from ragloom.errors import ConfigError, ConfigValidationError, RagloomError
from ragloom.evaluation import (
    EvalCase,
    MetricScores,
    evaluate_beir,
    evaluate_run,
    load_beir,
    load_cases,
    mrr_at_k,
    ndcg_at_k,
    precision_at_k,
    ranking,
    recall_at_k,
    run_cases,
)
from ragloom.hookspecs import hookimpl
from ragloom.registry import Registry

from .conftest import basic_config

# ---------------------------------------------------------------------------
# Metrics, by hand
# ---------------------------------------------------------------------------


def test_ranking_breaks_ties_like_trec_eval() -> None:
    # score descending, then document id descending (trec_eval compares docnos)
    assert ranking({"a": 1.0, "c": 1.0, "b": 2.0, "d10": 1.0, "d9": 1.0}) == [
        "b",
        "d9",
        "d10",
        "c",
        "a",
    ]


def test_metrics_by_hand() -> None:
    qrels = {"q1": {"d1": 2, "d2": 1, "d3": 0, "d4": 1}, "q2": {"x": 1}, "q3": {"y": 0}}
    run = {"q1": {"d3": 0.9, "d1": 0.8, "d5": 0.7, "d2": 0.6}, "q3": {"y": 1.0}}
    # q1 ranking: d3 (0), d1 (2), d5 (-), d2 (1); ideal: 2, 1, 1
    dcg = 2 / 1.584962500721156 + 1 / 2.321928094887362
    idcg = 2 + 1 / 1.584962500721156 + 1 / 2
    ndcg = ndcg_at_k(run, qrels, 10)
    assert ndcg.per_query == pytest.approx({"q1": dcg / idcg, "q2": 0.0, "q3": 0.0})
    assert ndcg.name == "nDCG@10"
    assert ndcg.mean == pytest.approx(dcg / idcg / 3)  # q2 (not in the run) counts as 0
    assert recall_at_k(run, qrels, 2).per_query["q1"] == pytest.approx(1 / 3)
    assert recall_at_k(run, qrels, 4).per_query["q1"] == pytest.approx(2 / 3)
    assert precision_at_k(run, qrels, 4).per_query["q1"] == pytest.approx(2 / 4)
    assert precision_at_k(run, qrels, 10).per_query["q1"] == pytest.approx(2 / 10)
    assert mrr_at_k(run, qrels, 10).per_query == {"q1": 0.5, "q2": 0.0, "q3": 0.0}
    assert mrr_at_k(run, qrels, 1).per_query["q1"] == 0.0
    means = evaluate_run(run, qrels, (1, 10))
    assert set(means) == {f"{m}@{k}" for m in ("nDCG", "MRR", "Recall", "P") for k in (1, 10)}
    assert evaluate_run({}, {}) == dict.fromkeys(evaluate_run({}, {}), 0.0)
    # the standard error of a mean over queries: sample deviation / sqrt(n)
    assert ndcg.standard_error == pytest.approx(statistics.stdev([dcg / idcg, 0, 0]) / 3**0.5)
    assert MetricScores("x", {"a": 1.0, "b": 0.0}).standard_error == pytest.approx(0.5)
    assert MetricScores("x", {"a": 0.7}).standard_error == 0.0
    assert MetricScores("x", {"a": 0.7, "b": 0.7}).standard_error == 0.0
    with pytest.raises(ValueError, match="at least 1"):
        ndcg_at_k(run, qrels, 0)


# ---------------------------------------------------------------------------
# Metrics against pytrec_eval
# ---------------------------------------------------------------------------


def trec(run: dict, qrels: dict, measures: set[str]) -> dict[str, dict[str, float]]:
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


def cut(run: dict, k: int) -> dict:
    """The run cut to each query's top k in trec_eval's order."""
    return {qid: {d: scores[d] for d in ranking(scores)[:k]} for qid, scores in run.items()}


def assert_same_as_trec_eval(run: dict, qrels: dict) -> None:
    reference = trec(run, qrels, {"ndcg_cut_10", "recall_10", "recall_100", "P_5"})
    reference_mrr = trec(cut(run, 10), qrels, {"recip_rank"})
    ours = {
        "ndcg_cut_10": ndcg_at_k(run, qrels, 10),
        "recall_10": recall_at_k(run, qrels, 10),
        "recall_100": recall_at_k(run, qrels, 100),
        "P_5": precision_at_k(run, qrels, 5),
    }
    mrr = mrr_at_k(run, qrels, 10)
    for qid in qrels:
        for measure, scores in ours.items():
            expected = reference[qid][measure] if qid in reference else 0.0
            assert scores.per_query[qid] == pytest.approx(expected, abs=1e-9), (qid, measure)
        expected = reference_mrr[qid]["recip_rank"] if qid in reference_mrr else 0.0
        assert mrr.per_query[qid] == pytest.approx(expected, abs=1e-9), (qid, "mrr")
    # means over every query of the qrels: trec_eval -c
    for measure, scores in ours.items():
        total = sum(reference[q][measure] for q in qrels if q in reference)
        assert scores.mean == pytest.approx(total / len(qrels), abs=1e-9), measure


DOC_IDS = [f"d{i}" for i in range(25)]
QUERY_IDS = [f"q{i}" for i in range(6)]


@st.composite
def runs_and_qrels(draw: Any) -> tuple[dict, dict]:
    qrels = {}
    for qid in draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, unique=True)):
        judged = draw(
            st.dictionaries(st.sampled_from(DOC_IDS), st.integers(-1, 3), min_size=1, max_size=12)
        )
        qrels[qid] = judged
    run = {}
    for qid in draw(st.lists(st.sampled_from(QUERY_IDS), unique=True)):
        # few distinct scores, so ties (broken by document id) are common
        scores = draw(
            st.dictionaries(
                st.sampled_from(DOC_IDS),
                st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, -3.25, 7.0]),
                min_size=1,
                max_size=20,
            )
        )
        run[qid] = scores
    return run, qrels


@settings(max_examples=300, deadline=None)
@given(runs_and_qrels())
def test_metrics_match_pytrec_eval(case: tuple[dict, dict]) -> None:
    run, qrels = case
    assert_same_as_trec_eval(run, qrels)


def test_metrics_match_pytrec_eval_on_a_large_seeded_run() -> None:
    rng = random.Random(20240607)
    docs = [f"doc-{i:04d}" for i in range(2000)]
    qrels = {
        f"q{q}": {d: rng.choice([0, 1, 1, 2, 3]) for d in rng.sample(docs, rng.randint(1, 30))}
        for q in range(200)
    }
    run = {
        qid: {d: round(rng.random() * 20, rng.choice([1, 6])) for d in rng.sample(docs, 150)}
        for qid in list(qrels)[:190]  # ten queries have no run entry
    }
    for qid in list(run)[:100]:  # plant relevant documents near the top
        for d in qrels[qid]:
            if rng.random() < 0.5:
                run[qid][d] = 20 + rng.random()
    assert_same_as_trec_eval(run, qrels)


# ---------------------------------------------------------------------------
# Test sets
# ---------------------------------------------------------------------------


@pytest.fixture
def pipeline(corpus: Path, pm: pluggy.PluginManager):
    import ragloom

    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as p:
        p.index()
        yield p


def test_cases_pass_and_fail(pipeline) -> None:
    cases = load_cases(
        {
            "cases": [
                {"question": "How much is the Pro plan?", "must_retrieve": ["docs/pricing.md"]},
                {
                    "question": "Can annual plans be refunded?",
                    "must_retrieve": ["docs/pricing.md#pricing"],  # a chunk label
                    "must_not_retrieve": ["docs/security.md"],
                    "top_k": 1,
                },
                {
                    "question": "How is data encrypted?",
                    "must_retrieve": ["docs/memory.md", "docs/security.md"],
                    "must_not_retrieve": ["docs/security.md"],
                    "top_k": 1,
                },
                {
                    "question": "encrypted",
                    "must_retrieve": ["docs/security.md"],
                    "filters": {"source": "docs/pricing.md"},
                },
                {
                    "question": "encrypted",
                    "must_retrieve": ["docs/security.md"],
                    "filters": {"sourc": "docs/security.md"},  # a field no chunk has
                },
            ]
        }
    )
    report = run_cases(pipeline, cases)
    first, label, failing, filtered, typo = report.results
    assert typo.hits == () and "has a field `sourc` (did you mean `source`?)" in typo.hint
    assert report.to_dict()["cases"][4]["hint"] == typo.hint
    assert filtered.hint == "" and "hint" not in report.to_dict()["cases"][3]
    assert first.passed and first.ranks == {"docs/pricing.md": 1}
    assert label.passed and label.ranks == {"docs/pricing.md#pricing": 1} and not label.forbidden
    assert not failing.passed
    assert failing.ranks == {"docs/memory.md": None, "docs/security.md": 1}
    assert failing.missing == ["docs/memory.md"]
    assert failing.forbidden == {"docs/security.md": 1}
    assert not filtered.passed and filtered.missing == ["docs/security.md"]
    assert all(h.startswith("docs/pricing.md") for h in filtered.hits)
    assert not report.passed and report.failures == [failing, filtered, typo]
    data = report.to_dict()
    assert data["passed"] is False and data["cases"][2]["forbidden"] == {"docs/security.md": 1}
    json.dumps(data)


def test_an_entry_naming_no_indexed_document_is_an_error(pipeline) -> None:
    """A misspelt `must_not_retrieve` entry matched nothing and passed every
    time; every entry must name an indexed document (or a label of one)."""
    from ragloom.errors import ConfigError

    cases = load_cases(
        {
            "cases": [
                {"question": "How much is the Pro plan?", "must_retrieve": ["docs/pricing.md"]},
                {
                    "question": "Is data encrypted?",
                    "must_retrieve": ["docs/security.md#security"],
                    "must_not_retrieve": ["docs/prcing.md"],
                },
            ]
        }
    )
    with pytest.raises(ConfigError) as info:
        run_cases(pipeline, cases)
    message = str(info.value)
    assert "1 entry names no indexed document: case 2 ('Is data encrypted?'): " in message
    assert "must_not_retrieve 'docs/prcing.md'" in message
    assert "did you mean 'docs/pricing.md'?" in message


def test_case_principals_reach_retrieval(corpus: Path, pm) -> None:
    import ragloom

    from .conftest import basic_config

    config = basic_config(
        access={
            "unlabeled": "public",
            "rules": [{"path": "docs/security.md", "principals": ["it"]}],
        }
    )
    cases = [
        EvalCase(
            question="AES-256 encryption", must_retrieve=["docs/security.md"], principals=["it"]
        ),
        EvalCase(
            question="AES-256 encryption",
            must_retrieve=["docs/pricing.md"],
            must_not_retrieve=["docs/security.md"],
            principals=["bob"],
        ),
    ]
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        report = run_cases(pipeline, cases)
    assert [r.passed for r in report.results] == [True, True]


def test_load_cases_reports_every_problem_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "eval.yaml"
    path.write_text(
        "cases:\n"
        "  - question: How much?\n"
        "    must_retrieve: [docs/pricing.md]\n"
        "  - question: Nothing checked\n"
        "  - question: Bad k\n"
        "    must_retrieve: [docs/a.md]\n"
        "    top_k: 0\n"
        "    must_retreive: [docs/b.md]\n",
        "utf-8",
    )
    with pytest.raises(ConfigValidationError) as info:
        load_cases(path)
    issues = {issue.path: issue for issue in info.value.issues}
    assert set(issues) == {"cases[1]", "cases[2].top_k", "cases[2].must_retreive"}
    assert "checks nothing" in issues["cases[1]"].message and issues["cases[1]"].line == 4
    assert issues["cases[2].top_k"].line == 7
    assert issues["cases[2].must_retreive"].line == 8
    assert issues["cases[2].must_retreive"].hint == "did you mean 'must_retrieve'?"
    assert info.value.source == str(path)
    with pytest.raises(RagloomError, match="does not exist"):
        load_cases(tmp_path / "missing.yaml")
    with pytest.raises(ConfigValidationError):
        load_cases({"cases": []})
    # an unknown key under `answer:` is matched against the answer check's keys
    path.write_text(
        "cases:\n  - question: Q\n    answer: {must_mention: [x]}\n", "utf-8"
    )  # fmt: skip
    with pytest.raises(ConfigValidationError) as info:
        load_cases(path)
    (issue,) = info.value.issues
    assert issue.path == "cases[0].answer.must_mention"
    assert issue.hint in ("did you mean 'must_contain'?", "did you mean 'must_not_contain'?")
    # the top level said as a test set's, not a config's
    path.write_text("- question: Q\n  must_retrieve: [docs/a.md]\n", "utf-8")
    with pytest.raises(ConfigError, match="a test set is a mapping whose `cases:` lists"):
        load_cases(path)
    path.write_text("# nothing yet\n", "utf-8")
    with pytest.raises(ConfigError, match="is empty .*examples/quickstart/eval.yaml") as empty:
        load_cases(path)
    assert "ragloom init" not in str(empty.value)


# ---------------------------------------------------------------------------
# BEIR
# ---------------------------------------------------------------------------


CORPUS = [
    (
        "101",
        "Aspirin and heart attacks",
        "Daily low-dose aspirin lowers the risk of a first myocardial infarction in older adults.",
    ),
    (
        "102",
        "Vitamin D and bone fractures",
        "Vitamin D supplements did not reduce hip fractures in community-dwelling adults.",
    ),
    ("103", "Statins", "Statin therapy reduces LDL cholesterol and cardiovascular events."),
    ("104", "Sleep and memory", "Slow-wave sleep consolidates declarative memory in students."),
    ("105", "", "Coffee consumption is associated with lower liver enzyme levels."),
    ("106", "Exercise", "Aerobic exercise improves insulin sensitivity in type 2 diabetes. " * 40),
]
QUERIES = [
    ("1", "aspirin prevents myocardial infarction"),
    ("2", "vitamin D supplements reduce hip fractures"),
    ("3", "sleep consolidates memory"),
    ("4", "aerobic exercise insulin sensitivity"),
    ("5", "a query without judgements"),
]
QRELS = "query-id\tcorpus-id\tscore\n1\t101\t1\n2\t102\t1\n3\t104\t2\n3\t105\t1\n4\t106\t1\n"


@pytest.fixture
def beir_dir(tmp_path: Path) -> Path:
    root = tmp_path / "tiny-beir"
    (root / "qrels").mkdir(parents=True)
    with (root / "corpus.jsonl").open("w", encoding="utf-8") as f:
        for _id, title, text in CORPUS:
            f.write(json.dumps({"_id": _id, "title": title, "text": text, "metadata": {}}) + "\n")
    with (root / "queries.jsonl").open("w", encoding="utf-8") as f:
        for _id, text in QUERIES:
            f.write(json.dumps({"_id": _id, "text": text}) + "\n")
    (root / "qrels" / "test.tsv").write_text(QRELS, "utf-8")
    return root


@pytest.fixture
def record_pm(pm: pluggy.PluginManager) -> pluggy.PluginManager:
    """The built-ins, with ``jsonl``/``csv`` registered if the built-in plugin does not yet."""
    if ("loader", "jsonl") not in Registry.from_plugin_manager(pm):

        class RecordLoaders:
            @hookimpl
            def register_loaders(self, register) -> None:
                register("jsonl", JsonlLoader)
                register("csv", CsvLoader)

        pm.register(RecordLoaders(), name="test-record-loaders")
    return pm


def test_load_beir(beir_dir: Path) -> None:
    corpus, queries, qrels = load_beir(beir_dir, "test")
    assert corpus == beir_dir / "corpus.jsonl"
    assert list(queries) == ["1", "2", "3", "4"]  # query 5 has no judgements
    assert qrels == {"1": {"101": 1}, "2": {"102": 1}, "3": {"104": 2, "105": 1}, "4": {"106": 1}}


def test_load_beir_errors(beir_dir: Path) -> None:
    with pytest.raises(RagloomError, match=r"train\.tsv not found \(splits here: test\)"):
        load_beir(beir_dir, "train")
    (beir_dir / "qrels" / "test.tsv").write_text(QRELS + "7\t101\n", "utf-8")
    with pytest.raises(RagloomError, match=r"test\.tsv, line 7: expected"):
        load_beir(beir_dir, "test")
    (beir_dir / "qrels" / "test.tsv").write_text("1 0 101 1\n2 0 102 1\n", "utf-8")  # TREC
    assert load_beir(beir_dir, "test")[2] == {"1": {"101": 1}, "2": {"102": 1}}


@pytest.mark.parametrize(
    "stores",
    [
        [{"type": "bm25"}],
        [{"type": "memory"}],
        [{"type": "memory"}, {"type": "bm25"}],
    ],
    ids=["bm25", "memory", "hybrid"],
)
def test_evaluate_beir(beir_dir: Path, tmp_path: Path, record_pm, stores: list) -> None:
    config = {
        "chunker": {"type": "recursive", "size": 300, "overlap": 0},
        "embedder": {"type": "hash", "dimension": 512},
        "stores": stores,
        "loaders": [{"type": "directory", "path": "not-used"}],
    }
    events = []
    report = evaluate_beir(
        config,
        beir_dir,
        "test",
        index_dir=tmp_path / "idx",
        plugin_manager=record_pm,
        progress=lambda phase, done, total: events.append((phase, done, total)),
    )
    assert report.queries == 4 and report.documents == 6 and report.indexed == 6
    assert report.chunks_written > 6  # document 106 is long: several chunks, one document
    assert set(report.run) == {"1", "2", "3", "4"}
    assert report.run["4"] and max(report.run["4"], key=report.run["4"].get) == "106"
    assert len(report.run["4"]) == len(set(report.run["4"]))
    # the bm25 store finds only documents sharing a word with the query: not 105
    assert report.metrics["Recall@100"] == (0.875 if stores == [{"type": "bm25"}] else 1.0)
    assert report.metrics["nDCG@10"] > 0.9 and report.metrics["MRR@10"] > 0.9
    assert set(report.metrics) >= {"nDCG@10", "Recall@10", "Recall@100", "MRR@10"}
    assert set(report.standard_errors) == set(report.metrics)
    per_query = ndcg_at_k(report.run, load_beir(beir_dir, "test")[2], 10).per_query
    assert report.standard_errors["nDCG@10"] == pytest.approx(
        statistics.stdev(per_query.values()) / len(per_query) ** 0.5
    )
    assert len(report.query_ms) == 4 and report.mean_query_ms > 0
    assert any(
        k.startswith("index/embed") or k.startswith("index/upsert") for k in report.stage_seconds
    )
    assert any(k.startswith("query/retrieve:") for k in report.stage_seconds)
    assert ("query", 4, 4) in events
    json.dumps(report.to_dict())
    # the timer is gone from the plugin manager again
    assert not [n for n, _ in record_pm.list_name_plugin() if "evaluation.timer" in str(n)]

    again = evaluate_beir(
        config,
        beir_dir,
        "test",
        index_dir=tmp_path / "idx",
        plugin_manager=record_pm,
        limit_queries=2,
    )
    assert again.indexed == 0 and again.documents == 6 and again.queries == 2
    assert set(again.run) == {"1", "2"}


def beir_config(stores: list) -> dict:
    """A config for the tiny BEIR set: hash vectors, its ``stores``."""
    return {
        "chunker": {"type": "recursive", "size": 300, "overlap": 0},
        "embedder": {"type": "hash", "dimension": 512},
        "stores": stores,
        "loaders": [{"type": "directory", "path": "not-used"}],
    }


def test_a_judged_query_without_text_scores_0_and_is_said(
    beir_dir: Path, tmp_path: Path, record_pm
) -> None:
    """Dropped, it would lift the mean over the others (trec_eval counts it 0)."""
    config = beir_config([{"type": "memory"}, {"type": "bm25"}])
    full = evaluate_beir(
        config, beir_dir, "test", index_dir=tmp_path / "i", plugin_manager=record_pm
    )
    with (beir_dir / "qrels" / "test.tsv").open("a", encoding="utf-8") as qrels:
        qrels.write("99\t101\t1\n")  # judged, but queries.jsonl has no query 99
    more = evaluate_beir(
        config, beir_dir, "test", index_dir=tmp_path / "i", plugin_manager=record_pm
    )
    assert more.queries == full.queries + 1
    assert more.metrics["nDCG@10"] == pytest.approx(full.metrics["nDCG@10"] * 4 / 5)
    assert any("1 judged query(ies) have no text" in m and "'99'" in m for _, m in more.problems)


def test_judgements_no_run_can_meet_are_said(beir_dir: Path, tmp_path: Path, record_pm) -> None:
    """A relevant document not in the corpus (an id's typo) and a query that
    judges nothing relevant: counted as trec_eval counts them, and said; a
    clean set says neither."""
    config = beir_config([{"type": "memory"}, {"type": "bm25"}])
    clean = evaluate_beir(config, beir_dir, index_dir=tmp_path / "i", plugin_manager=record_pm)
    assert not any("not in the index" in m or "judge no document" in m for _, m in clean.problems)
    with (beir_dir / "qrels" / "test.tsv").open("a", encoding="utf-8") as qrels:
        qrels.write("1\tkb-9999\t2\n5\t101\t0\n")  # a typo'd relevant id; query 5: nothing relevant
    noted = evaluate_beir(config, beir_dir, index_dir=tmp_path / "i", plugin_manager=record_pm)
    said = [m for _, m in noted.problems]
    assert any("1 relevant judgement(s) name a document not in the index" in m and "'kb-9999'" in m
               and "query '1'" in m for m in said)  # fmt: skip
    assert any("1 query(ies) judge no document relevant (first: '5')" in m for m in said)
    assert noted.queries == clean.queries + 1


def test_a_query_id_given_twice_keeps_its_first_text_and_a_bom_is_no_json(
    beir_dir: Path, tmp_path: Path, record_pm
) -> None:
    config = beir_config([{"type": "memory"}, {"type": "bm25"}])
    clean = evaluate_beir(config, beir_dir, index_dir=tmp_path / "i", plugin_manager=record_pm)
    queries = beir_dir / "queries.jsonl"
    text = queries.read_text("utf-8")
    first_line = text.splitlines()[0]
    # saved by a Windows tool, with query 1 pasted again at the end
    pasted = json.dumps({"_id": "1", "text": "what is a banana"})
    queries.write_bytes(
        b"\xef\xbb\xbf" + (text + pasted + "\n").encode()
    )  # saved by a Windows tool, with query 1 pasted again at the end
    (beir_dir / "qrels" / "test.tsv").write_bytes(
        b"\xef\xbb\xbf" + (beir_dir / "qrels" / "test.tsv").read_bytes()
    )
    again = evaluate_beir(config, beir_dir, index_dir=tmp_path / "i", plugin_manager=record_pm)
    assert again.metrics == clean.metrics  # the first text of query 1, every judgement read
    lines = len(text.splitlines()) + 1
    assert any(f"1 query id(s) given twice (first: '1' on lines 1 and {lines})" in m
               for _, m in again.problems)  # fmt: skip
    assert json.loads(first_line)["_id"] == "1"
    _, loaded, qrels = load_beir(beir_dir, "test")
    assert loaded["1"] == json.loads(first_line)["text"] and "1" in qrels


def test_evaluate_beir_takes_a_config_file_as_ragloom_load_does(
    beir_dir: Path, tmp_path: Path, record_pm
) -> None:
    import yaml

    config = {**beir_config([{"type": "bm25"}]), "index_dir": "idx"}
    (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(config), "utf-8")
    by_path = evaluate_beir(tmp_path / "ragloom.yaml", beir_dir, "test", plugin_manager=record_pm)
    assert by_path.index_dir.startswith(str(tmp_path / "idx"))  # relative to the file's folder
    by_dict = evaluate_beir(config, beir_dir, "test", base_dir=tmp_path, plugin_manager=record_pm)
    assert by_path.metrics == by_dict.metrics and by_path.queries == 4


def test_evaluate_beir_default_index_dir(beir_dir: Path, tmp_path: Path, record_pm) -> None:
    from ragloom.evaluation import default_beir_index_dir

    config = {"index_dir": "idx", "stores": [{"type": "bm25", "path": "elsewhere"}]}
    report = evaluate_beir(config, beir_dir, "test", base_dir=tmp_path, plugin_manager=record_pm)
    expected = default_beir_index_dir(config, beir_dir, tmp_path)
    assert report.index_dir == str(expected)
    assert expected.parent == tmp_path / "idx" / "beir"
    assert expected.name.startswith("tiny-beir-")
    assert (expected / "bm25").is_dir() and not (tmp_path / "elsewhere").exists()
    assert not (tmp_path / "idx" / "ledger.sqlite").exists()  # the project's index is untouched
    other = {**config, "chunker": {"type": "recursive", "size": 100, "overlap": 0}}
    assert default_beir_index_dir(other, beir_dir, tmp_path) != expected
    # what `tune fusion` changes (a store's weight and k, the fusion) keeps the index
    tuned = {
        **config,
        "stores": [{"type": "bm25", "path": "elsewhere", "weight": 0.7, "k": 300}],
        "retrieval": {"fusion": "weighted"},
    }
    assert default_beir_index_dir(tuned, beir_dir, tmp_path) == expected
    renamed = {**config, "stores": [{"type": "bm25", "path": "elsewhere", "name": "kw"}]}
    assert default_beir_index_dir(renamed, beir_dir, tmp_path) != expected
    # a bm25 store's scoring options score the terms it holds: the same index
    scored = {**config, "stores": [{"type": "bm25", "path": "elsewhere", "k1": 0.9, "b": 0.4}]}
    assert default_beir_index_dir(scored, beir_dir, tmp_path) == expected
    scope = {**config, "stores": [{"type": "bm25", "path": "elsewhere", "scope": "document"}]}
    assert default_beir_index_dir(scope, beir_dir, tmp_path) != expected
    # another dataset in a folder of the same name: another index
    twin = tmp_path / "v2" / beir_dir.name
    shutil.copytree(beir_dir, twin)
    assert default_beir_index_dir(config, twin, tmp_path).name != expected.name
    assert default_beir_index_dir(config, twin, tmp_path).name.startswith("tiny-beir-")


def test_a_corpus_cut_to_a_slice_is_evaluated_not_refused(
    beir_dir: Path, tmp_path: Path, record_pm
) -> None:
    """The benchmark's index is its own: a corpus cut by more than half since
    the last evaluation is indexed as it is, not refused as a mass delete."""
    config = beir_config([{"type": "memory"}, {"type": "bm25"}])
    full = evaluate_beir(config, beir_dir, index_dir=tmp_path / "i", plugin_manager=record_pm)
    corpus = beir_dir / "corpus.jsonl"
    lines = corpus.read_text("utf-8").splitlines(keepends=True)
    corpus.write_text("".join(lines[:2]), "utf-8")
    cut = evaluate_beir(config, beir_dir, index_dir=tmp_path / "i", plugin_manager=record_pm)
    assert cut.documents == 2 < full.documents


def test_metrics_match_pytrec_eval_with_ties_everywhere() -> None:
    """Two scores for 25 documents: every cutoff falls inside a tie."""
    rng = random.Random(1)
    run = {"q": {d: rng.choice([1.0, 2.0]) for d in DOC_IDS}}
    qrels = {"q": {d: rng.choice([0, 1, 2]) for d in DOC_IDS}, "missing": {"d1": 1}}
    assert_same_as_trec_eval(run, qrels)
