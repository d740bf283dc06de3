"""The embedding cache on a batch that mixes hits and misses: every vector
lands on its own chunk. The memory store alone answers, so a BM25 store
cannot mask a chunk stored under another chunk's vector."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pluggy
import ragloom

from .conftest import basic_config


def paragraphs(*texts: str) -> str:
    return "\n\n".join(texts) + "\n"


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / "docs" / name).write_text(text)


def assert_every_vector_is_its_own(pipeline: ragloom.Pipeline, chunks: int) -> None:
    """Each stored vector is the embedder's vector of its chunk's text, and
    searching a chunk's text finds that chunk first."""
    (_, store), embedder = next(iter(pipeline.stores)), pipeline.embedder
    assert embedder is not None
    hits = store.query(vector=embedder.embed_query("anything"), k=1000)
    assert len(hits) == chunks
    for hit in hits:
        expected = embedder.embed_documents([hit.chunk.text])[0]
        norms = np.linalg.norm(hit.vector) * np.linalg.norm(expected)
        cosine = float(hit.vector @ expected / norms)
        assert cosine > 0.9999, f"{hit.chunk.label} is stored under another text's vector"
        best = pipeline.retrieve(hit.chunk.text, k=1)[0]
        assert best.chunk.id == hit.chunk.id, (hit.chunk.text, best.chunk.text)


def test_vectors_of_cached_and_fresh_texts_land_on_their_chunks(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    (tmp_path / "docs").mkdir()
    write(
        tmp_path,
        {
            "a.md": paragraphs("Aardvarks eat ants at night.", "Anteaters have long tongues."),
            "c.md": paragraphs("Camels store fat in humps.", "Cobras raise their hoods."),
            "e.md": paragraphs("Eagles nest on high cliffs.", "Eels live in dark rivers."),
        },
    )
    config = basic_config(
        chunker={"type": "recursive", "size": 40, "overlap": 0},
        stores=[{"type": "memory"}],
    )
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        first = pipeline.index()
        assert (first.embedded, first.cached, first.chunks) == (6, 0, 6)
        # one batch: b (new), c (its first paragraph cached, its second new), d (new)
        write(
            tmp_path,
            {
                "b.md": paragraphs("Badgers dig deep burrows.", "Bats hunt moths by sound."),
                "c.md": paragraphs("Camels store fat in humps.", "Crabs walk sideways."),
                "d.md": paragraphs("Dolphins sleep with one eye open.", "Ducks migrate south."),
            },
        )
        second = pipeline.index()
        assert (second.embedded, second.cached) == (5, 1), second
        assert_every_vector_is_its_own(pipeline, chunks=10)
        # a rebuild embeds nothing: a b c d e, every text from the cache
        rebuilt = pipeline.index(rebuild=True)
        assert (rebuilt.embedded, rebuilt.cached) == (0, 10), rebuilt
        assert_every_vector_is_its_own(pipeline, chunks=10)
        # and a rebuild that mixes: a and e cached, between them three new texts
        write(tmp_path, {"c.md": paragraphs("Cats purr when content.", "Cows chew the cud.")})
        (tmp_path / "docs" / "b.md").write_text("Bison roam the great plains.\n")
        mixed = pipeline.index(rebuild=True)
        assert (mixed.embedded, mixed.cached) == (3, 6), mixed
        assert_every_vector_is_its_own(pipeline, chunks=9)


def test_an_interrupted_run_keeps_what_it_embedded_of_a_huge_document(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """One document of thousands of chunks was embedded in one call and
    cached after it: Ctrl-C after many minutes kept nothing, and the rerun
    started over. Slices are cached as they are embedded."""
    import pytest
    from ragloom.executors import EMBED_SLICE

    (tmp_path / "docs").mkdir()
    words = [f"Record {i} of the big log says value {i * 7} was seen." for i in range(3000)]
    (tmp_path / "docs" / "big.txt").write_text("\n\n".join(words) + "\n")
    config = basic_config(chunker={"type": "recursive", "size": 60, "overlap": 0})
    sent: list[int] = []

    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        embedder = pipeline.embedder
        assert embedder is not None
        real = embedder.embed_documents

        def stopped(texts):  # Ctrl-C while the third slice is embedded
            sent.append(len(texts))
            if len(sent) == 3:
                raise KeyboardInterrupt
            return real(texts)

        embedder.embed_documents = stopped  # type: ignore[method-assign]
        with pytest.raises(KeyboardInterrupt):
            pipeline.index()
        assert sent[:2] == [EMBED_SLICE, EMBED_SLICE]
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        report = pipeline.index()
    assert report.cached == 2 * EMBED_SLICE and report.embedded == report.chunks - 2 * EMBED_SLICE
