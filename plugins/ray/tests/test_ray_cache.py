"""Ray workers read and write the embedding cache: a rerun on Ray embeds no
unchanged text, an in-process run finds what the workers embedded, and a Ray
run finds what an in-process run embedded."""

from __future__ import annotations

import random
from pathlib import Path

import ragloom
from ray_helpers import config, make_corpus, ray_executor, snapshot, write_doc


def index(root: Path, pm, index_dir: str, executor: dict | None):
    with ragloom.load(config(index_dir, executor), plugin_manager=pm, base_dir=root) as pipeline:
        report = pipeline.index()
        state = snapshot(pipeline)
    return report, state


def test_a_rerun_on_ray_embeds_only_new_text(tmp_path: Path, pm, ray_address: str) -> None:
    docs = make_corpus(tmp_path, 24, seed=5)
    on_ray = ray_executor(ray_address)
    first, state = index(tmp_path, pm, ".ray-1", on_ray)
    texts = set(state[2].values())
    assert first.embedded == len(texts) and first.cached == first.chunks - len(texts)

    # the same corpus into a new index, on Ray: every vector from the cache
    again, again_state = index(tmp_path, pm, ".ray-2", on_ray)
    assert again.chunks == first.chunks and again.embedded == 0 and again.cached == again.chunks
    assert again_state[0] == state[0]

    # in process, a third index: the workers' vectors are in the driver's cache
    local, _ = index(tmp_path, pm, ".local", None)
    assert local.embedded == 0 and local.cached == local.chunks

    # two documents edited: only their new text is embedded, on Ray
    rng = random.Random(9)
    for path in sorted(docs.glob("*.md"))[:2]:
        write_doc(path, rng)
    edited, edited_state = index(tmp_path, pm, ".ray-1", on_ray)
    new_texts = set(edited_state[2].values()) - texts
    assert len(edited.changed) == 2 and new_texts
    assert edited.embedded == len(new_texts)
    assert edited.cached == edited.chunks - len(new_texts)

    # and the in-process run finds those too
    local, _ = index(tmp_path, pm, ".local", None)
    assert len(local.changed) == 2 and local.embedded == 0
