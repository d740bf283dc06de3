"""The playground's eval view over HTTP and from the command line: which test
sets a server allows (``ragloom serve --eval-file``), the time limit on a
run, and the per-case nDCG/Recall. The group-A/group-B access tests and the
browser tests are in ``tests/test_playground.py``."""

from __future__ import annotations

import math
import threading
from pathlib import Path

import httpx
import pytest
import ragloom
from click.testing import CliRunner
from ragloom import Answer, ComponentConfig, Generator, hookimpl
from ragloom.cli import cli
from ragloom.errors import ConfigValidationError
from ragloom.evaluation import CaseResult, EvalCase
from ragloom.plugins import build_plugin_manager
from ragloom.server import Caller, ServerSettings, create_app
from ragloom.server.evals import case_metrics

from .conftest import basic_config
from .test_serve import ALICE, auth, live_server

SMOKE = """\
cases:
  - question: How much does the Pro plan cost?
    must_retrieve: [docs/pricing.md]
    top_k: 2
  - question: Is data encrypted?
    must_retrieve: [docs/security.md]
    must_not_retrieve: [docs/pricing.md]
    top_k: 1
"""


def result(must: list[str], ranks: dict[str, int | None], hits: int, top_k: int) -> CaseResult:
    case = EvalCase(question="q", must_retrieve=must, top_k=top_k)
    return CaseResult(case, ranks, {}, tuple(f"h{i}" for i in range(hits)))


def test_case_metrics_count_each_entry_at_its_first_rank() -> None:
    ndcg, recall = case_metrics(result(["x", "y"], {"x": 2, "y": None}, hits=4, top_k=4))  # type: ignore[misc]
    assert recall == 0.5
    assert ndcg == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert case_metrics(result(["x", "y"], {"x": 2, "y": 1}, hits=3, top_k=3)) == (1.0, 1.0)
    assert case_metrics(result(["x"], {"x": None}, hits=3, top_k=3)) == (0.0, 0.0)
    # two entries matched by one hit: both found, the second just after it
    ndcg, recall = case_metrics(result(["a", "a#s"], {"a": 3, "a#s": 3}, hits=3, top_k=3))  # type: ignore[misc]
    assert recall == 1.0 and 0 < ndcg < 1


def test_case_metrics_are_none_without_must_retrieve() -> None:
    case = EvalCase(question="q", must_not_retrieve=["x"])
    assert case_metrics(CaseResult(case, {}, {}, ("h",))) is None


def test_eval_files_are_named_by_the_server(corpus: Path, tmp_path: Path) -> None:
    smoke = tmp_path / "smoke.yaml"
    smoke.write_text(SMOKE, "utf-8")
    pipeline = ragloom.load(basic_config(), base_dir=corpus)
    pipeline.index()
    settings = ServerSettings(eval_files=(smoke,))
    with live_server(pipeline, settings=settings) as url:
        listed = httpx.get(f"{url}/v1/playground/evals", headers=auth(ALICE))
        assert listed.json() == {"files": [{"name": "smoke.yaml", "cases": 2, "error": None}]}
        assert str(tmp_path) not in listed.text  # the server's paths stay on the server
        assert httpx.get(f"{url}/v1/playground/evals").status_code == 401
        ran = httpx.post(
            f"{url}/v1/playground/eval", json={"file": "smoke.yaml"}, headers=auth(ALICE)
        )
        assert ran.status_code == 200, ran.text
        report = ran.json()
        assert report["passed"] and report["retrieval"] == {"passed": 2, "total": 2}
        assert [c["ndcg"] for c in report["cases"]] == [1.0, 1.0]
        for name in (str(smoke), "../smoke.yaml", f"{tmp_path.name}/smoke.yaml", "SMOKE.yaml"):
            refused = httpx.post(
                f"{url}/v1/playground/eval", json={"file": name}, headers=auth(ALICE)
            )
            assert refused.status_code == 404 and refused.json()["error"]["code"] == "not_found"
        # an edit shows at the next run, without a restart
        smoke.write_text(SMOKE.replace("[docs/security.md]", "[docs/memory.md]"), "utf-8")
        again = httpx.post(
            f"{url}/v1/playground/eval", json={"file": "smoke.yaml"}, headers=auth(ALICE)
        ).json()
        assert again["cases"][1]["missing"] == ["docs/memory.md"] and not again["passed"]
        smoke.write_text("cases: []\n", "utf-8")
        broken = httpx.post(
            f"{url}/v1/playground/eval", json={"file": "smoke.yaml"}, headers=auth(ALICE)
        )
        assert broken.status_code == 400 and "cannot be read now" in broken.text
        listed = httpx.get(f"{url}/v1/playground/evals", headers=auth(ALICE))
        assert listed.json()["files"][0]["cases"] is None
        assert "smoke.yaml" in listed.json()["files"][0]["error"]
        smoke.unlink()
        gone = httpx.post(
            f"{url}/v1/playground/eval", json={"file": "smoke.yaml"}, headers=auth(ALICE)
        )
        assert gone.status_code == 400 and "does not exist" in gone.text
        for response in (broken, listed, gone):
            assert str(tmp_path) not in response.text  # nor in an error


def test_no_eval_files_by_default(corpus: Path) -> None:
    pipeline = ragloom.load(basic_config(), base_dir=corpus)
    pipeline.index()
    with live_server(pipeline) as url:
        assert httpx.get(f"{url}/v1/playground/evals", headers=auth(ALICE)).json() == {"files": []}
        refused = httpx.post(
            f"{url}/v1/playground/eval", json={"file": "eval.yaml"}, headers=auth(ALICE)
        )
        assert refused.status_code == 404
        assert "--eval-file" in refused.json()["error"]["message"]


def test_bad_eval_files_stop_the_app_from_being_built(corpus: Path, tmp_path: Path) -> None:
    pipeline = ragloom.load(basic_config(), base_dir=corpus)
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    for folder in ("one", "two"):
        (tmp_path / folder / "eval.yaml").write_text(SMOKE, "utf-8")
    twins = (tmp_path / "one" / "eval.yaml", tmp_path / "two" / "eval.yaml")
    with pytest.raises(ValueError, match="two eval files are named 'eval.yaml'"):
        create_app(pipeline, settings=ServerSettings(eval_files=twins), anonymous=Caller("x"))
    bad = tmp_path / "bad.yaml"
    bad.write_text("cases:\n  - question: x\n    must_retrive: [a]\n", "utf-8")
    with pytest.raises(ConfigValidationError, match="must_retrive"):
        create_app(pipeline, settings=ServerSettings(eval_files=(bad,)), anonymous=Caller("x"))


def test_serve_refuses_a_bad_eval_file_before_serving(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("cases:\n  - question: x\n    must_retrive: [a]\n", "utf-8")
    runner = CliRunner()
    result = runner.invoke(cli, ["serve", "--no-auth", "--eval-file", str(bad)])
    assert result.exit_code == 2, result.output
    assert "must_retrive" in result.output and "did you mean 'must_retrieve'" in result.output
    missing = runner.invoke(cli, ["serve", "--no-auth", "--eval-file", str(tmp_path / "no.yaml")])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b"):
        (tmp_path / folder / "eval.yaml").write_text(SMOKE, "utf-8")
    twins = ["--eval-file", str(tmp_path / "a" / "eval.yaml")]
    twins += ["--eval-file", str(tmp_path / "b" / "eval.yaml")]
    result = runner.invoke(cli, ["serve", "--no-auth", *twins])
    assert result.exit_code == 2 and "rename one" in result.output


# -- the time limit ----------------------------------------------------------------

CALLS: list[str] = []
RELEASE = threading.Event()


class Waiting(Generator):
    """Records each call, then waits until ``RELEASE`` is set."""

    class Config(ComponentConfig):
        pass

    def generate(self, question, hits, history=()):  # type: ignore[no-untyped-def]
        CALLS.append(question)
        RELEASE.wait(30)
        return Answer(question, "nothing", grounded=False)


class WaitingPlugin:
    @hookimpl
    def register_generators(self, register):  # type: ignore[no-untyped-def]
        register("waiting", Waiting)


def test_an_eval_past_the_time_limit_is_504_and_starts_no_further_case(
    corpus: Path, tmp_path: Path
) -> None:
    slow = tmp_path / "slow.yaml"
    slow.write_text(
        "cases:\n"
        "  - {question: first, answer: {must_refuse: true}}\n"
        "  - {question: second, answer: {must_refuse: true}}\n",
        "utf-8",
    )
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(WaitingPlugin(), name="waiting")
    pipeline = ragloom.load(basic_config(generator={"type": "waiting"}), plugin_manager=pm,
                            base_dir=corpus)  # fmt: skip
    pipeline.index()
    CALLS.clear()
    RELEASE.clear()
    settings = ServerSettings(request_timeout=0.5, eval_files=(slow,))
    try:
        with live_server(pipeline, settings=settings) as url:
            late = httpx.post(
                f"{url}/v1/playground/eval", json={"file": "slow.yaml"}, headers=auth(ALICE),
                timeout=30,
            )  # fmt: skip
            assert late.status_code == 504 and late.json()["error"]["code"] == "timeout"
            assert CALLS == ["first"]  # answered while the first case was still at work
            RELEASE.set()  # the first case ends in the background...
    finally:
        RELEASE.set()
    assert CALLS == ["first"]  # ...and the second never started (the pool is shut down)
