"""The embedding actor: builds the chunker and the embedder once, then
prepares batch after batch. Runs on a Ray worker; nothing here touches the
index (the driver journals and writes what it returns)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragloom.cache import EmbeddingCache, fingerprint_key
from ragloom.components import Context
from ragloom.executors import Prepared, from_recipe, prepare_batch, stand_in
from ragloom.types import Document

__all__ = ["IndexWorker"]


class IndexWorker:
    """One actor of the pool (wrapped with ``ray.remote`` by the executor).

    ``cache`` is the driver's embedding cache file (None when the run has
    none). The actor reads and writes it like the in-process run does, so a
    rerun embeds only text it has not seen. ``driver_node`` is the Ray node
    the driver runs on: on that node the actor's cache is the driver's own
    file; on another node it is a file of the same path on that node's disk,
    and the vectors also go back to the driver's cache (``cacheable``).
    """

    def __init__(
        self,
        chunker: tuple[type[Any], Any, str],
        embedder: tuple[type[Any], Any, str] | None,
        vectors: bool,
        index_dir: str,
        base_dir: str,
        cache: str | None = None,
        driver_node: str = "",
    ) -> None:
        self._problems: list[tuple[str, str]] = []
        self._setup_problems: list[tuple[str, str]] = []  # reported with the first batch
        self.vectors = vectors
        self.embedder = from_recipe(embedder) if embedder is not None else None
        services: dict[str, Any] = {}
        if self.embedder is not None:
            self.embedder.open(self._context(index_dir, base_dir, embedder[2] if embedder else ""))
            services["embedder"] = self.embedder
        self.chunker = from_recipe(chunker)
        self.chunker.open(self._context(index_dir, base_dir, chunker[2], services))
        self.cache: EmbeddingCache | None = None
        self.cache_key = ""
        self.shared_cache = False  # the cache file is the driver's
        if cache is not None and self.embedder is not None and vectors:
            self.cache = EmbeddingCache(Path(cache))
            try:
                self.cache.db  # noqa: B018 (opens the file: fail here, not mid-batch)
            except (OSError, sqlite3.Error) as exc:
                self._setup_problems.append(
                    (cache, f"embedding cache unusable on a ray worker, embedding all: {exc}")
                )
                self.cache = None
            else:
                self.cache_key = fingerprint_key(self.embedder.fingerprint())
                self.shared_cache = _node() == driver_node

    def _context(
        self, index_dir: str, base_dir: str, name: str, services: dict[str, Any] | None = None
    ) -> Context:
        return Context(
            index_dir=Path(index_dir),
            base_dir=Path(base_dir),
            name=name,
            report=self._report,
            services=services or {},
        )

    def _report(self, source: str, message: str) -> None:
        self._problems.append((source, message))

    def ready(self) -> int:
        """Answers once the constructor (the model's loading) is done."""
        return os.getpid()

    def prepare(self, documents: Sequence[Document]) -> Prepared:
        """Chunk and embed one batch; problems the components reported come back with it."""
        self._problems, self._setup_problems = self._setup_problems, []
        prepared = prepare_batch(
            self.chunker,
            self.embedder,
            documents,
            vectors=self.vectors,
            cache=self.cache,
            cache_key=self.cache_key,
        )
        if prepared.vectors is not None and self.cache is not None and not self.shared_cache:
            prepared = replace(prepared, cacheable=True)  # the driver's cache wants them too
        if self._problems:
            prepared = replace(prepared, problems=(*self._problems, *prepared.problems))
        return prepared

    def prepare_loaded(self, group: list[Document], ids: list[str]) -> Prepared:
        """Prepare the documents ``ids`` of a group loaded on the cluster (Ray
        hands the group over from its object store); what goes back names the
        documents by stand-ins, so their text does not travel to the driver."""
        by_id: dict[str, Document] = {}
        for doc in group:
            by_id.setdefault(doc.id, doc)
        prepared = self.prepare([by_id[i] for i in ids])
        return replace(prepared, documents=[stand_in(d) for d in prepared.documents])

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()


def _node() -> str:
    import ray

    return str(ray.get_runtime_context().get_node_id())
