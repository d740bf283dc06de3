from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pluggy
import pytest
from ragloom import Store, hookimpl
from ragloom.components import Context
from ragloom.plugins import build_plugin_manager
from ragloom.registry import Registry
from ragloom.types import Chunk

# the contract suites' asserts get pytest's detailed messages (before any test imports them)
pytest.register_assert_rewrite("ragloom.testing")

DOCS = {
    "pricing.md": "# Pricing\n\nThe Pro plan costs $29 per user per month.\n\n"
    "## Refunds\n\nAnnual plans can be refunded within 30 days of purchase.\n",
    "memory.md": "# Memory\n\nMemories are kept for 90 days on the Free plan.\n"
    "Deleting a meeting deletes its memories within 24 hours.\n",
    "security.md": "# Security\n\nAll data is encrypted at rest with AES-256 "
    "and in transit with TLS 1.3.\n",
}


@pytest.fixture(autouse=True)
def private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Each test gets its own embedding cache: nothing is shared between tests
    or written to the user's cache directory."""
    path = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("RAGLOOM_CACHE_DIR", str(path))
    return path


@pytest.fixture
def pm() -> pluggy.PluginManager:
    """A plugin manager with only the built-ins: hermetic."""
    return build_plugin_manager(load_entry_points=False, env={})


@pytest.fixture
def registry(pm: pluggy.PluginManager) -> Registry:
    return Registry.from_plugin_manager(pm)


@pytest.fixture
def context(tmp_path: Path) -> Context:
    """A loader's context whose reports are kept: ``context.report``, a list
    of ``(source, message)`` (test_loaders.py has its own, with ``reports``)."""
    from .test_loaders import Reports

    return Context(base_dir=tmp_path, report=Reports(), index_dir=tmp_path / ".ragloom")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, "utf-8")
    return tmp_path


def basic_config(**overrides: object) -> dict:
    config: dict = {
        "loaders": [{"type": "directory", "path": "docs"}],
        "chunker": {"type": "recursive", "size": 200, "overlap": 20},
        "embedder": {"type": "hash", "dimension": 256},
        "stores": [{"type": "memory"}, {"type": "bm25"}],
        "retrieval": {"k": 3},
        "generator": {"type": "extractive"},
    }
    config.update(overrides)
    return config


class DictStore(Store):
    """A text store holding its chunks in a dict, for tests whose store
    differs only in ``query``: ``upsert``, ``delete`` and ``count`` done."""

    capabilities = frozenset({"text"})

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        self.chunks: dict[str, Chunk] = {}

    def upsert(self, chunks: Sequence[Chunk], vectors: Any = None) -> None:
        self.chunks.update((c.id, c) for c in chunks)

    def delete(self, *, ids=None, where=None) -> int:
        gone = [i for i in ids or () if i in self.chunks]
        for chunk_id in gone:
            del self.chunks[chunk_id]
        return len(gone)

    def count(self, where=None) -> int:
        return len(self.chunks)


def register_store(pm: pluggy.PluginManager, type_name: str, cls: type[Store]) -> None:
    """Register ``cls`` with ``pm`` as the store type ``type_name``, as a
    plugin's ``register_stores`` hook would."""

    class Plugin:
        @hookimpl
        def register_stores(self, register: Any) -> None:
            register(type_name, cls)

    pm.register(Plugin(), name=type_name)
