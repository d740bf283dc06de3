"""Permission-aware retrieval: the caller's principals become a filter ANDed
into every store query, which no caller filter can widen."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import ragloom
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ragloom import Document, Loader, hookimpl
from ragloom.components import ComponentConfig
from ragloom.config import validate_config
from ragloom.errors import AccessError, ConfigValidationError
from ragloom.filters import evaluate, parse
from ragloom.plugins import build_plugin_manager

from .conftest import basic_config

USERS = ["alice", "bob", "carol", "group:eng", "group:hr"]
WORDS = ["salary", "roadmap", "holiday", "budget", "launch", "policy"]


class Records(Loader):
    """Documents straight from the config: text, and principals when given."""

    class Config(ComponentConfig):
        records: list[dict]

    def load(self):
        for i, record in enumerate(self.config.records):
            meta = {"source": f"rec-{i}", "kind": record.get("kind", "note")}
            if "principals" in record:
                meta["principals"] = record["principals"]
            yield Document(f"rec-{i}", record["text"], meta)


class RecordsPlugin:
    @hookimpl
    def register_loaders(self, register):
        register("records", Records)


def make_pm():
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(RecordsPlugin(), name="records")
    return pm


def readable(meta_principals: list[str] | None, caller: list[str], unlabeled: str) -> bool:
    if meta_principals is None:
        return unlabeled == "public"
    return bool(set(meta_principals) & set(caller))


def pipeline_for(root: Path, records: list[dict], unlabeled: str, reranker: bool):
    config = basic_config(
        loaders=[{"type": "records", "records": records}],
        access={"unlabeled": unlabeled},
        retrieval={"k": 50, "fusion": "rrf"},
    )
    if reranker:
        config["reranker"] = {"type": "mmr", "lambda_mult": 0.3}
    return ragloom.load(config, plugin_manager=make_pm(), base_dir=root)


record = st.fixed_dictionaries(
    {
        "text": st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join),
        "kind": st.sampled_from(["note", "memo"]),
    },
    optional={"principals": st.lists(st.sampled_from(USERS), max_size=3, unique=True)},
)
sneaky_filters = st.sampled_from(
    [
        None,
        {"kind": "note"},
        {"$or": [{"kind": "note"}, {"kind": {"$ne": "note"}}]},
        {"$or": [{"principals": {"$exists": False}}, {"principals": {"$exists": True}}]},
        {"$not": {"principals": {"$in": ["alice"]}}},
        {"principals": {"$in": USERS}},
        {"$or": [{}, {"kind": "memo"}]},
    ]
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    records=st.lists(record, min_size=1, max_size=12),
    caller=st.lists(st.sampled_from(USERS), max_size=2, unique=True),
    where=sneaky_filters,
    unlabeled=st.sampled_from(["deny", "public"]),
    reranker=st.booleans(),
    query=st.sampled_from(WORDS),
)
def test_no_hit_ever_reaches_a_principal_that_may_not_read_it(
    records, caller, where, unlabeled, reranker, query
) -> None:
    with (
        tempfile.TemporaryDirectory() as tmp,
        pipeline_for(Path(tmp), records, unlabeled, reranker) as pipeline,
    ):
        pipeline.index()
        hits = pipeline.retrieve(query, filters=where, k=50, principals=caller)
        answer = pipeline.ask(query, filters=where, principals=caller)
    for hit in [*hits, *answer.hits]:
        index = int(hit.chunk.document_id.split("-")[1])
        assert readable(records[index].get("principals"), caller, unlabeled), (hit, caller)
    # and nothing readable is lost: the memory store returns every chunk it may,
    # so the hits are exactly the readable records that match the caller's filter
    expected = {
        f"rec-{i}"
        for i, r in enumerate(records)
        if readable(r.get("principals"), caller, unlabeled)
        and evaluate(parse(where), {k: v for k, v in r.items() if k != "text"})
    }
    assert {h.chunk.document_id for h in hits} == expected
    allowed_ids = {h.chunk.id for h in hits}
    assert {c.chunk_id for c in answer.citations} <= allowed_ids | {h.chunk.id for h in answer.hits}


def test_access_rules_label_documents_at_index_time(corpus: Path, pm) -> None:
    config = basic_config(
        access={
            "rules": [
                {"path": "docs/security.md", "principals": ["group:security"]},
                {"path": "docs/**", "principals": ["group:staff"]},
                {"match": {"source": "docs/pricing.md"}, "principals": ["group:sales"]},
            ]
        }
    )
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        sales = pipeline.retrieve("plan refunds encrypted", principals=["group:sales"], k=10)
        assert {h.chunk.source for h in sales} == {"docs/pricing.md"}
        assert sales[0].chunk.metadata["principals"] == ["group:sales", "group:staff"]
        staff = pipeline.retrieve("plan refunds encrypted", principals=["group:staff"], k=10)
        assert {h.chunk.source for h in staff} == {
            "docs/pricing.md",
            "docs/security.md",
            "docs/memory.md",
        }
        assert pipeline.retrieve("encrypted", principals=["mallory"]) == []
        with pytest.raises(AccessError, match="principals"):
            pipeline.retrieve("encrypted")


def test_changing_rules_relabels_unchanged_documents(corpus: Path, pm) -> None:
    rule = {"path": "docs/security.md", "principals": ["group:security"]}
    config = basic_config(access={"rules": [rule]})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        assert pipeline.retrieve("AES-256", principals=["group:security"], k=1)
    rule["principals"] = ["group:it"]
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        report = pipeline.index()
        assert report.changed == ("docs/security.md",)
        assert pipeline.retrieve("AES-256", principals=["group:security"], k=1) == []
        assert pipeline.retrieve("AES-256", principals=["group:it"], k=1)


def test_without_access_config_principals_still_restrict(corpus: Path, pm) -> None:
    """No ``access:`` section: unlabelled chunks are public, labelled ones are
    read by their principals only, and a query without principals sees all."""
    (corpus / "private").mkdir()
    (corpus / "private" / "keys.md").write_text("The AES-256 master keys are kept by Alice.\n")
    config = basic_config(
        loaders=[
            {"type": "directory", "path": "docs"},
            {"type": "directory", "path": "private", "metadata": {"principals": ["alice"]}},
        ]
    )
    public = {"docs/pricing.md", "docs/memory.md", "docs/security.md"}
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()

        def sources(principals: list[str] | None) -> set[str]:
            hits = pipeline.retrieve("AES-256 keys plan", principals=principals, k=10)
            return {h.chunk.source for h in hits}

        assert sources(["anyone"]) == public
        assert sources([]) == public
        assert sources(["bob", "group:eng"]) == public
        assert sources(["alice"]) == public | {"private/keys.md"}
        assert sources(None) == public | {"private/keys.md"}
        answer = pipeline.ask("Who keeps the AES-256 master keys?", principals=["bob"])
        assert "private/keys.md" not in {h.chunk.source for h in answer.hits}


def test_store_that_cannot_enforce_access_fails_config_check(registry, pm) -> None:
    from ragloom.builtin.stores.bm25 import BM25Store

    class EqOnly(BM25Store):
        filter_operators = frozenset({"$eq"})

    class Plugin:
        @hookimpl
        def register_stores(self, register):
            register("eq-only", EqOnly)

    pm.register(Plugin(), name="eq-only")
    from ragloom.registry import Registry

    config = basic_config(stores=[{"type": "eq-only"}], access={})
    del config["embedder"]
    with pytest.raises(ConfigValidationError, match=r"access.*'eq-only'.*\$in"):
        validate_config(config, Registry.from_plugin_manager(pm), env={})


def test_bad_access_rule_is_a_config_error(registry) -> None:
    config = basic_config(access={"rules": [{"path": "x/**"}], "unlabeled": "maybe"})
    with pytest.raises(ConfigValidationError) as info:
        validate_config(config, registry, env={})
    paths = {i.path for i in info.value.issues}
    assert "access.unlabeled" in paths and "access.rules[0].principals" in paths
    backwards = basic_config(access={"rules": [{"path": "docs/[z-a]*", "principals": ["a"]}]})
    with pytest.raises(ConfigValidationError, match=r"access.rules\[0\].*bad character range"):
        validate_config(backwards, registry, env={})


def test_cli_principal_option(corpus: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    config = basic_config(
        access={
            "rules": [{"path": "docs/security.md", "principals": ["it"]}],
            "unlabeled": "public",
        }
    )
    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(config))
    exe = str(Path(sys.executable).parent / "ragloom")

    def run(*args):
        return subprocess.run(
            [exe, *args],
            cwd=corpus,
            capture_output=True,
            text=True,
            env={**os.environ},
            timeout=120,
        )

    assert run("index").returncode == 0
    denied = run("search", "AES-256 encrypted", "--json", "--principal", "bob")
    assert "docs/security.md" not in {h["source"] for h in json.loads(denied.stdout)}
    allowed = run("search", "AES-256 encrypted", "--json", "--principal", "bob", "--principal=it")
    assert json.loads(allowed.stdout)[0]["source"] == "docs/security.md"
    missing = run("ask", "AES-256")
    assert missing.returncode == 2 and "--principal" in missing.stderr


def test_a_document_cannot_grant_itself_readers_when_rules_label(tmp_path: Path) -> None:
    (tmp_path / "docs" / "hr").mkdir(parents=True)
    (tmp_path / "docs" / "hr" / "salaries.md").write_text(
        "---\nprincipals: [group:everyone]\n---\n# Salaries\n\nThe salary bands are secret.\n"
    )
    (tmp_path / "docs" / "team.md").write_text(
        "---\nprincipals: [group:eng]\n---\n# Team\n\nThe team roadmap is public to eng.\n"
    )
    rules = [{"path": "docs/hr/**", "principals": ["group:hr"]}]

    def hits(access: dict, principals: list[str], query: str) -> set[str]:
        config = basic_config(access=access, index_dir=f".ragloom-{len(access)}")
        with ragloom.load(config, plugin_manager=make_pm(), base_dir=tmp_path) as pipeline:
            pipeline.index()
            found = pipeline.retrieve(query, principals=principals, k=5)
            return {h.chunk.source for h in found}

    # rules in place: a document's own labels are ignored, the rules decide
    assert hits({"rules": rules}, ["group:everyone"], "salary bands") == set()
    assert hits({"rules": rules}, ["group:hr"], "salary bands") == {"docs/hr/salaries.md"}
    assert hits({"rules": rules}, ["group:eng"], "team roadmap") == set()
    # trusted explicitly, or without rules: the front matter labels count
    trusted = {"rules": rules, "trust_document_labels": True}
    assert hits(trusted, ["group:everyone"], "salary bands") == {"docs/hr/salaries.md"}
    assert hits({"unlabeled": "deny"}, ["group:eng"], "team roadmap") == {"docs/team.md"}


def test_the_loaders_configured_label_is_always_trusted(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "plan.md").write_text("# Plan\n\nThe launch plan for spring.\n")
    config = basic_config(
        loaders=[{"type": "directory", "path": "docs", "metadata": {"principals": ["group:pm"]}}],
        access={"rules": [{"path": "nothing/**", "principals": ["nobody"]}]},
    )
    with ragloom.load(config, plugin_manager=make_pm(), base_dir=tmp_path) as pipeline:
        pipeline.index()
        assert pipeline.retrieve("launch plan", principals=["group:pm"], k=1)
        assert pipeline.retrieve("launch plan", principals=["group:eng"], k=1) == []


def test_a_path_rule_that_matches_no_document_is_named_on_every_run(tmp_path: Path) -> None:
    """A glob that misses every source (a loader that puts ``file#id`` in
    ``source``, a path relative to the wrong folder) labelled nothing, with
    nothing said: its documents fell to ``unlabeled``."""
    records = [{"text": "salary bands"}, {"text": "holiday policy"}]
    config = basic_config(
        loaders=[{"type": "records", "records": records}],
        access={
            "unlabeled": "deny",
            "rules": [
                {"path": "rec-0", "principals": ["group:hr"]},
                {"path": "docs/hr/*.md", "principals": ["group:hr"]},
            ],
        },
    )
    with ragloom.load(config, plugin_manager=make_pm(), base_dir=tmp_path) as pipeline:
        for _ in range(2):
            problems = pipeline.index().problems
            said = [message for source, message in problems if source == "access"]
            assert len(said) == 1, problems
            assert "access.rules[1] (path: 'docs/hr/*.md') matched no document" in said[0]
        assert [h.chunk.source for h in pipeline.retrieve("salary", principals=["group:hr"])] == [
            "rec-0"
        ]
