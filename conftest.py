"""How `make test` spreads the suite over its workers (pytest-xdist,
``--dist loadgroup``): each test file runs whole on one worker, so its module
fixtures are built once; a plugin whose tests share a session-wide resource (a
Ray cluster, an embedded PostgreSQL, a llama.cpp server, a loaded model) runs
whole on one worker, so that resource is started once. Without ``-n`` the
marks change nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
# plugin test folders whose session fixtures start something expensive
SHARED_SESSION = {
    "plugins/ray",
    "plugins/pgvector",
    "plugins/openai",
    "plugins/llamacpp",
    "plugins/sentence-transformers",
}


def _group(path: Path) -> str:
    try:
        relative = path.resolve().relative_to(ROOT).as_posix()
    except ValueError:  # a test file outside the checkout
        return str(path)
    for folder in SHARED_SESSION:
        if relative.startswith(folder + "/"):
            return folder
    return relative


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(_group(item.path)))
