"""The built-in stores pass ``ragloom.testing``'s store contract, and the
contract catches broken stores.

``LimitedMemoryStore`` declares only some filter operators, so the suite's
other half runs too: filters with undeclared operators must be refused.
``broken_stores.py`` holds the template's ``TinyStore`` with one bug each
(a count that ignores ``where``, a delete that drops conditions, a fresh
open that reads old files, a ``refresh()`` that misses deletes...): each
must fail the tests written for its bug, and the unbroken controls pass.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from ragloom.builtin.stores.bm25 import BM25Store
from ragloom.builtin.stores.memory import MemoryStore
from ragloom.filters import evaluate
from ragloom.testing import (
    FILTER_CASES,
    DenseStoreContract,
    TextStoreContract,
    contract_chunks,
)
from ragloom.testing._store_data import ALL_IDS, direction

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TEMPLATE_SRC = ROOT / "contrib" / "template" / "src"


class TestMemoryStore(DenseStoreContract):
    @pytest.fixture
    def store_factory(self):
        return lambda path: MemoryStore()


class TestMemoryStoreDotProduct(DenseStoreContract):
    @pytest.fixture
    def store_factory(self):
        return lambda path: MemoryStore(metric="dot", path=str(path / "elsewhere"))


class TestMemoryStoreFloat16(DenseStoreContract):
    @pytest.fixture
    def store_factory(self):
        return lambda path: MemoryStore(precision="float16")


class TestMemoryStoreInt8(DenseStoreContract):
    """int8 is approximate: a component is off by up to 0.5/127, so rows 2
    degrees apart in cosine (0.0024) may swap, and the contract's "between"
    query (3 and 5 degrees away) is out of its reach. Rows 8 degrees apart
    (0.0097) keep their order; recall against float32 is in test_stores.py."""

    @pytest.fixture
    def store_factory(self):
        return lambda path: MemoryStore(precision="int8", metric="dot")

    def test_nearest_neighbour_order(self, filled) -> None:
        ids = sorted(ALL_IDS)
        for query, order in ((direction(0.0), ids), (direction(72.0), ids[::-1])):
            hits = self.search(filled, "dense", k=len(ids), vector=query)
            assert [h.chunk.id for h in hits] == order


class LimitedMemoryStore(MemoryStore):
    filter_operators = frozenset({"$eq", "$in", "$or", "$gte"})


class TestLimitedMemoryStore(DenseStoreContract):
    @pytest.fixture
    def store_factory(self):
        return lambda path: LimitedMemoryStore()


class TestBM25Store(TextStoreContract):
    @pytest.fixture
    def store_factory(self):
        return lambda path: BM25Store()


BM25_CONFIGS = [
    {"method": "robertson"},
    {"method": "atire"},
    {"method": "bm25l"},
    {"method": "bm25+"},
    {"backend": "rank-bm25"},
    {"backend": "rank-bm25", "variant": "l"},
    {"backend": "rank-bm25", "variant": "plus"},
    {"analyzer": {"stem": False, "stopwords": "none", "language": "none"}},
    {"scope": "document"},  # the contract's documents are one chunk each
    {"scope": "document", "backend": "rank-bm25"},
]


@pytest.mark.parametrize(
    "options", BM25_CONFIGS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items())
)
class TestBM25StoreConfigs(TextStoreContract):
    @pytest.fixture
    def store_factory(self, options: dict):
        return lambda path: BM25Store(**options)


def test_filter_cases_cover_every_operator() -> None:
    from ragloom.filters import ALL_OPERATORS, operators

    used = set().union(*(operators(case.where) for case in FILTER_CASES))
    assert used == ALL_OPERATORS


def test_every_filter_case_matches_something_and_not_everything_mostly() -> None:
    chunks = contract_chunks()
    sizes = {case.name: len(case.reference(chunks)) for case in FILTER_CASES}
    assert sum(0 < size < len(chunks) for size in sizes.values()) >= len(sizes) - 2, sizes
    for case in FILTER_CASES:
        assert case.expected is not None, f"{case.name} has no hand-written answer"
        assert {c.id for c in chunks if evaluate(case.where, c.metadata)} == case.expected


def test_a_wrong_store_fails_the_contract(tmp_path: Path) -> None:
    """A store that drops the filter after ranking (top k, then filter) fails."""
    module = tmp_path / "test_wrong_store.py"
    module.write_text(
        "import pytest\n"
        "from ragloom.builtin.stores.memory import MemoryStore\n"
        "from ragloom.filters import evaluate\n"
        "from ragloom.testing import DenseStoreContract\n\n"
        "class LateFilter(MemoryStore):\n"
        "    def query(self, *, vector=None, text=None, k=10, where=None):\n"
        "        hits = super().query(vector=vector, k=k)\n"
        "        return [h for h in hits if evaluate(where, h.chunk.metadata)]\n\n"
        "class TestLateFilter(DenseStoreContract):\n"
        "    @pytest.fixture\n"
        "    def store_factory(self):\n"
        "        return lambda path: LateFilter()\n",
        "utf-8",
    )
    result = _pytest(tmp_path, module.name, "-k", "before_vector_ranking or test_filter")
    assert result.returncode == 1, result.stdout
    assert "test_filter_applies_before_vector_ranking FAILED" in result.stdout or re.search(
        r"FAILED .*test_filter_applies_before_vector_ranking", result.stdout
    ), result.stdout


CONTROLS = {"TinyStore", "LimitedTinyStore", "UnfilteredTinyStore", "MinimalTinyStore"}
"""The stores of broken_stores.py that pass the contract: the template's TinyStore,
and TinyStore declaring a few operators, none, or neither ``ids()`` nor ``Hit.vector``."""

BREAKS: dict[str, set[str]] = {
    # passed the contract before count/delete/ids had to refuse undeclared operators
    "CountIgnoresWhere": {
        "test_filter",
        "test_delete_by_filter",
        "test_operator_declared_or_refused",
        "test_empty_store",
        "test_access_filter_never_leaks",
    },
    "OverDeletes": {
        "test_delete_by_filter",
        "test_filter",
        "test_operator_declared_or_refused",
        "test_caller_filter_cannot_widen_access",
    },
    "IgnoresUnsupportedOperators": {
        "test_filter",
        "test_delete_by_filter",
        "test_operator_declared_or_refused",
    },
    "IdsIgnoresWhere": {"test_filter", "test_ids_lists_exactly_the_stored_chunks"},
    "IdsKeepsDeleted": {
        "test_ids_lists_exactly_the_stored_chunks",
        "test_delete_by_filter",
        "test_refresh_sees_what_another_instance_wrote",
    },
    "IgnoresFresh": {
        "test_fresh_open_starts_empty",
        "test_fresh_open_then_writes",
        "test_fresh_open_ignores_damaged_files",
    },
    "FreshOnlyHides": {"test_fresh_open_starts_empty"},
    "DamagedOpensEmpty": {"test_damaged_files_fail_loudly"},
    "NoRefresh": {"test_refresh_sees_what_another_instance_wrote"},
    "RefreshMissesDeletes": {"test_refresh_sees_what_another_instance_wrote"},
    "WrongHitVector": {"test_hit_vectors_are_the_stored_vectors"},
    "TextScores": {"test_hits_name_the_store"},
}
"""Per broken store of broken_stores.py, contract tests that must fail on it."""


@pytest.fixture(scope="module")
def broken_store_failures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[str]]:
    """Run the contract on every store of broken_stores.py: ``{store: failed tests}``."""
    tmp_path = tmp_path_factory.mktemp("broken")
    source = Path(__file__).with_name("broken_stores.py").read_text("utf-8")
    (tmp_path / "broken_stores.py").write_text(source, "utf-8")
    # the controls run the whole contract, each broken store the tests meant to catch it
    selected = [f"Test{store}" for store in sorted(CONTROLS)] + [
        f"(Test{store} and ({' or '.join(sorted(tests))}))"
        for store, tests in sorted(BREAKS.items())
    ]
    result = _pytest(
        tmp_path, "broken_stores.py", "-k", " or ".join(selected), pythonpath=[TEMPLATE_SRC]
    )
    failures: dict[str, set[str]] = {}
    for match in re.finditer(r"^FAILED broken_stores\.py::Test(\w+)::(\w+)", result.stdout, re.M):
        failures.setdefault(match.group(1), set()).add(match.group(2))
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    assert re.search(r"\d+ passed", summary) and "error" not in summary, (
        result.stdout[-3000:] + result.stderr
    )
    return failures


def test_every_broken_store_has_expectations() -> None:
    source = Path(__file__).with_name("broken_stores.py").read_text("utf-8")
    defined = set(re.findall(r"^class (\w+)\(", source, re.M))
    assert defined == (CONTROLS | set(BREAKS)) - {"TinyStore"}


@pytest.mark.slow
@pytest.mark.parametrize("store", sorted(CONTROLS))
def test_unbroken_stores_pass_the_contract(
    broken_store_failures: dict[str, set[str]], store: str
) -> None:
    assert not broken_store_failures.get(store), broken_store_failures[store]


@pytest.mark.slow
@pytest.mark.parametrize("store", sorted(BREAKS))
def test_a_broken_store_fails_the_contract(
    broken_store_failures: dict[str, set[str]], store: str
) -> None:
    """Each bug of broken_stores.py is caught by the contract tests written for it."""
    failed = broken_store_failures.get(store, set())
    missed = BREAKS[store] - failed
    assert not missed, f"{store} passed {sorted(missed)} (it failed only {sorted(failed)})"


def test_docs_example_passes_the_contract(tmp_path: Path) -> None:
    """The example of docs/testing.md, a store and its contract tests, passes."""
    text = (DOCS / "testing.md").read_text("utf-8")
    for match in re.finditer(r"^### `(?P<path>[\w./-]+\.py)`$", text, re.MULTILINE):
        rest = text[match.end() :]
        block = re.search(r"^```python\n(.*?)^```", rest, re.MULTILINE | re.DOTALL)
        assert block, f"no python block under {match.group(0)}"
        target = tmp_path / match.group("path")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.group(1), "utf-8")
    tests = sorted(p.name for p in (tmp_path / "tests").glob("test_*.py"))
    assert tests, "docs/testing.md has no tests/test_*.py example"
    result = _pytest(tmp_path, "tests")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"\b\d{2,} passed", result.stdout), result.stdout


def test_register_stores_example_passes_the_contract(tmp_path: Path) -> None:
    """The example store of docs/hooks/register_stores.md passes DenseStoreContract."""
    page = (DOCS / "hooks" / "register_stores.md").read_text("utf-8")
    example = page[page.index("## Example") :]
    block = re.search(r"^```python\n(.*?)^```", example, re.MULTILINE | re.DOTALL)
    assert block, "docs/hooks/register_stores.md has no python block under '## Example'"
    (tmp_path / "jsonstore_example.py").write_text(block.group(1), "utf-8")
    (tmp_path / "test_jsonstore_example.py").write_text(
        "import pytest\n"
        "from jsonstore_example import JsonStore\n"
        "from ragloom.testing import DenseStoreContract\n\n"
        "class TestJsonStore(DenseStoreContract):\n"
        "    @pytest.fixture\n"
        "    def store_factory(self):\n"
        "        return lambda path: JsonStore()\n",
        "utf-8",
    )
    result = _pytest(tmp_path, "test_jsonstore_example.py")
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr
    assert re.search(r"\b\d{3,} passed", result.stdout), result.stdout


def _pytest(
    cwd: Path, *args: str, pythonpath: Sequence[Path] = ()
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGLOOM_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    paths = [str(cwd), *map(str, pythonpath), env.get("PYTHONPATH")]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
