"""The built-in stores pass ``ragloom.testing``'s store contract.

``LimitedMemoryStore`` declares only some filter operators, so the suite's
other half runs too: filters with undeclared operators must be refused.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
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

DOCS = Path(__file__).resolve().parent.parent / "docs"


class TestMemoryStore(DenseStoreContract):
    @pytest.fixture
    def store_factory(self):
        return lambda path: MemoryStore()


class TestMemoryStoreDotProduct(DenseStoreContract):
    @pytest.fixture
    def store_factory(self):
        return lambda path: MemoryStore(metric="dot", path=str(path / "elsewhere"))


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


def _pytest(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGLOOM_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(cwd), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
