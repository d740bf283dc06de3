"""Fixtures of the ray plugin's tests: one local Ray cluster for the whole
session (starting one takes seconds), a private embedding cache per test,
and a plugin manager with the built-ins and this plugin only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pluggy
import pytest
from ragloom.plugins import build_plugin_manager

import ragloom_ray.plugin


@pytest.fixture(scope="session")
def ray_address() -> Iterator[str]:
    """A local Ray cluster (4 logical CPUs), started once; its GCS address lets
    ``ragloom index`` subprocesses join it (``executor: {address: ...}``)."""
    import ray

    # "local": a cluster of the tests' own, even where `ray start` runs one
    options = {"num_cpus": 4, "include_dashboard": False, "log_to_driver": False}
    try:
        context = ray.init(address="local", **options)
    except Exception:  # Ray waits 30 s for its raylet: on a loaded machine, once more
        ray.shutdown()
        context = ray.init(address="local", **options)
    try:
        yield context.address_info["gcs_address"]
    finally:
        ray.shutdown()


@pytest.fixture(autouse=True)
def private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    path = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("RAGLOOM_CACHE_DIR", str(path))
    return path


@pytest.fixture
def pm() -> pluggy.PluginManager:
    manager = build_plugin_manager(load_entry_points=False, env={})
    manager.register(ragloom_ray.plugin, name="ray")
    return manager
