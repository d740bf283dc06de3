"""The embedding actor: builds the chunker and the embedder once, then
prepares batch after batch. Runs on a Ray worker; nothing here touches the
index (the driver journals and writes what it returns)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragloom.components import Context
from ragloom.executors import Prepared, from_recipe, prepare_batch
from ragloom.types import Document

__all__ = ["IndexWorker"]


class IndexWorker:
    """One actor of the pool (wrapped with ``ray.remote`` by the executor)."""

    def __init__(
        self,
        chunker: tuple[type[Any], Any, str],
        embedder: tuple[type[Any], Any, str] | None,
        vectors: bool,
        index_dir: str,
        base_dir: str,
    ) -> None:
        self._problems: list[tuple[str, str]] = []
        self.vectors = vectors
        self.embedder = from_recipe(embedder) if embedder is not None else None
        services: dict[str, Any] = {}
        if self.embedder is not None:
            self.embedder.open(self._context(index_dir, base_dir, embedder[2] if embedder else ""))
            services["embedder"] = self.embedder
        self.chunker = from_recipe(chunker)
        self.chunker.open(self._context(index_dir, base_dir, chunker[2], services))

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

    def prepare(self, documents: Sequence[Document]) -> Prepared:
        """Chunk and embed one batch; problems the components reported come back with it."""
        self._problems = []
        prepared = prepare_batch(self.chunker, self.embedder, documents, vectors=self.vectors)
        if self._problems:
            prepared = replace(prepared, problems=(*self._problems, *prepared.problems))
        return prepared

    def pid(self) -> int:
        return os.getpid()
