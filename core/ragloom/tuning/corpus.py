"""The vectors of a BEIR corpus's chunks under a config, for training a query
encoder against them.

:func:`corpus_vectors` chunks the corpus with the config's loader setup (the
one ``ragloom eval --beir`` uses) and chunker, and embeds the chunks with the
config's embedder through the embedding cache: after an evaluation (or any
index run of the same corpus and embedder) nothing is embedded again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import RagloomError

if TYPE_CHECKING:
    import numpy as np
    import pluggy

__all__ = ["CorpusVectors", "corpus_vectors"]


@dataclass(frozen=True)
class CorpusVectors:
    """One row per chunk: the id of its document (the BEIR ``_id``) and its vector."""

    doc_ids: tuple[str, ...]
    vectors: np.ndarray
    fingerprint: Mapping[str, Any]
    """The embedder fingerprint the vectors were made under."""
    embedded: int
    """Chunks that were not in the embedding cache (embedded now)."""


def corpus_vectors(
    config: Mapping[str, Any],
    directory: str | Path,
    *,
    base_dir: Path | None = None,
    plugin_manager: pluggy.PluginManager | None = None,
) -> CorpusVectors:
    """Every chunk of a BEIR corpus, embedded by ``config``'s embedder."""
    from ..cache import fingerprint_key
    from ..executors import embed_cached
    from ..pipeline import Pipeline
    from ..plugins import build_plugin_manager
    from .fusion import _beir_config

    if not config.get("embedder"):
        raise RagloomError("the config has no embedder: there are no vectors to train against")
    cfg, _ = _beir_config(config, Path(directory), None, base_dir)
    pm = plugin_manager or build_plugin_manager()
    pipeline = Pipeline.from_config(cfg, plugin_manager=pm, base_dir=base_dir)
    doc_ids: list[str] = []
    texts: list[str] = []
    with pipeline:
        embedder = pipeline.embedder
        assert embedder is not None
        for loader in pipeline.loaders:
            for document in loader.load():
                for chunk in pipeline.chunker.split(document):
                    doc_ids.append(str(chunk.metadata.get("record_id", document.id)))
                    texts.append(chunk.text)
        fingerprint = embedder.fingerprint()
        vectors, embedded = embed_cached(
            embedder.embed_documents,
            texts,
            pipeline.embedding_cache,
            fingerprint_key(fingerprint),
            embedder,
        )
    return CorpusVectors(tuple(doc_ids), vectors, fingerprint, embedded)
