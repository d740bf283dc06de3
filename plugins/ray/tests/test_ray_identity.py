"""The same corpus indexed in process and on Ray gives the same chunk ids, the
same ledger and the same vectors (within float tolerance), on a first run and
on an incremental one (edits, deletions, additions)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import ragloom
from ragloom.errors import ConfigValidationError
from ray_helpers import config, make_corpus, ray_executor, snapshot, write_doc


def index_both(root: Path, pm, address: str) -> tuple[tuple, tuple, object, object]:
    local_cfg = config(".local")
    ray_cfg = config(".ray", ray_executor(address))
    with ragloom.load(local_cfg, plugin_manager=pm, base_dir=root) as local:
        local_report = local.index()
        local_state = snapshot(local)
    with ragloom.load(ray_cfg, plugin_manager=pm, base_dir=root) as remote:
        ray_report = remote.index()
        ray_state = snapshot(remote)
    return local_state, ray_state, local_report, ray_report


def assert_same(local: tuple, remote: tuple) -> None:
    local_entries, local_vectors, local_texts = local
    ray_entries, ray_vectors, ray_texts = remote
    assert ray_entries == local_entries
    assert ray_texts == local_texts
    assert set(ray_vectors) == set(local_vectors)
    for cid, vector in local_vectors.items():
        np.testing.assert_allclose(ray_vectors[cid], vector, rtol=1e-5, atol=1e-6)


def test_in_process_and_ray_build_the_same_index(tmp_path: Path, pm, ray_address: str) -> None:
    docs = make_corpus(tmp_path, 40)
    local, remote, local_report, ray_report = index_both(tmp_path, pm, ray_address)
    assert len(local[0]) == 40 and len(local[1]) > 40
    assert_same(local, remote)
    assert ray_report.chunks == local_report.chunks == len(local[1])
    assert sorted(ray_report.added) == sorted(local_report.added)

    rng = random.Random(3)
    files = sorted(docs.glob("*.md"))
    for path in files[:5]:
        write_doc(path, rng)  # changed
    for path in files[5:8]:
        path.unlink()  # deleted
    for i in range(4):
        write_doc(docs / f"new-{i}.md", rng)  # added
    local, remote, local_report, ray_report = index_both(tmp_path, pm, ray_address)
    assert_same(local, remote)
    assert (len(ray_report.changed), len(ray_report.deleted), len(ray_report.added)) == (5, 3, 4)
    assert ray_report.unchanged == local_report.unchanged == 32
    assert ray_report.corpus_version == local_report.corpus_version == 2


def test_a_failing_document_is_reported_and_the_run_goes_on(
    tmp_path: Path, pm, ray_address: str
) -> None:
    """On Ray a document whose chunking raises is reported and left as it was;
    the other documents are indexed and the run commits."""
    from ragloom import Chunker, ComponentConfig, hookimpl

    class Picky(Chunker):
        class Config(ComponentConfig):
            pass

        def split(self, document):
            if "doc-003" in document.id:
                raise ValueError("cannot split this one")
            from ragloom.builtin.chunkers.fixed import FixedChunker

            return FixedChunker(size=200).split(document)

    class Plugin:
        @hookimpl
        def register_chunkers(self, register):
            register("picky", Picky)

    import ray.cloudpickle

    ray.cloudpickle.register_pickle_by_value(__import__(__name__))
    pm.register(Plugin())
    make_corpus(tmp_path, 12)
    cfg = config(".ray", ray_executor(ray_address, batch_size=4), chunker={"type": "picky"})
    with ragloom.load(cfg, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        report = pipeline.index()
        entries = snapshot(pipeline)[0]
    assert "docs/doc-003.md" not in entries and len(entries) == 11
    assert "docs/doc-003.md" not in report.added and len(report.added) == 11
    assert any("cannot split this one" in message for _, message in report.problems)


def test_ray_options_are_validated(pm, tmp_path: Path) -> None:
    cfg = config(".ray", {"type": "ray", "embed_actor": 2})
    with pytest.raises(ConfigValidationError, match="embed_actors"):
        ragloom.load(cfg, plugin_manager=pm, base_dir=tmp_path)
    cfg = config(".ray", {"type": "ray", "batch_size": 0})
    with pytest.raises(ConfigValidationError, match="executor.batch_size"):
        ragloom.load(cfg, plugin_manager=pm, base_dir=tmp_path)
