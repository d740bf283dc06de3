"""A Ray worker killed (SIGKILL) in the middle of a batch: the actor restarts,
the batch runs again, and the index is exactly the in-process one; nothing is
lost or written twice. Out of retries, the run fails and commits nothing."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import numpy as np
import pytest
import ragloom
import ray.cloudpickle
from ragloom import hookimpl
from ragloom.builtin.embedders.hash import HashEmbedder
from ragloom.errors import RagloomError
from ray_helpers import config, make_corpus, ray_executor, snapshot

DRIVER = os.getpid()


class DyingEmbedder(HashEmbedder):
    """The hash embedder, whose worker process kills itself (SIGKILL) in the
    middle of its first batch, ``deaths`` times in all (one marker file each)."""

    class Config(HashEmbedder.Config):
        markers: str = ""
        deaths: int = 1

    def embed_batch(self, texts):
        if os.getpid() != DRIVER:
            for n in range(self.config.deaths):
                marker = Path(self.config.markers) / f"died-{n}"
                if not marker.exists():
                    marker.write_text(str(os.getpid()))
                    os.kill(os.getpid(), signal.SIGKILL)
        return super().embed_batch(texts)


class Plugin:
    @hookimpl
    def register_embedders(self, register):
        register("dying", DyingEmbedder)


@pytest.fixture
def dying_pm(pm):
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    pm.register(Plugin())
    return pm


def dying(markers: Path, deaths: int) -> dict:
    return {"type": "dying", "dimension": 256, "markers": str(markers), "deaths": deaths}


def test_a_worker_killed_mid_batch_is_retried(tmp_path: Path, dying_pm, ray_address) -> None:
    make_corpus(tmp_path, 30)
    markers = tmp_path / "markers"
    markers.mkdir()
    with ragloom.load(config(".local"), plugin_manager=dying_pm, base_dir=tmp_path) as local:
        local.index()
        expected = snapshot(local)
    executor = ray_executor(ray_address, batch_size=5, max_retries=2)
    cfg = config(".ray", executor, embedder=dying(markers, deaths=2))
    with ragloom.load(cfg, plugin_manager=dying_pm, base_dir=tmp_path) as remote:
        report = remote.index()
        entries, vectors, texts = snapshot(remote)
        counts = {name: store.count() for name, store in remote.stores}
    killed = {p.name: int(p.read_text()) for p in markers.iterdir()}
    assert set(killed) == {"died-0", "died-1"}  # two workers really died mid-batch
    assert all(pid != DRIVER for pid in killed.values())
    assert entries == expected[0] and texts == expected[2]
    assert set(vectors) == set(expected[1])
    for cid, vector in expected[1].items():
        np.testing.assert_allclose(vectors[cid], vector, rtol=1e-5, atol=1e-6)
    assert counts == {"memory": len(texts), "bm25": len(texts)}  # nothing written twice
    assert report.chunks == len(texts) and len(report.added) == 30


def test_out_of_retries_the_run_fails_and_the_next_one_repairs(
    tmp_path: Path, dying_pm, ray_address
) -> None:
    make_corpus(tmp_path, 12)
    markers = tmp_path / "markers"
    markers.mkdir()
    executor = ray_executor(ray_address, batch_size=4, max_retries=0)
    cfg = config(".ray", executor, embedder=dying(markers, deaths=1))
    with ragloom.load(cfg, plugin_manager=dying_pm, base_dir=tmp_path) as remote:
        with pytest.raises(RagloomError, match="max_retries"):
            remote.index()
        assert snapshot(remote)[0] == {}  # nothing committed
    # the marker is there now: the same run goes through, and agrees with in-process
    with ragloom.load(cfg, plugin_manager=dying_pm, base_dir=tmp_path) as remote:
        report = remote.index()
        entries, _, texts = snapshot(remote)
    with ragloom.load(config(".local"), plugin_manager=dying_pm, base_dir=tmp_path) as local:
        local.index()
        expected = snapshot(local)
    assert entries == expected[0] and texts == expected[2]
    assert report.corpus_version == 1 and len(report.added) == 12
