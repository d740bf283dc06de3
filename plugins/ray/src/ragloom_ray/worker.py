"""The embedding actor: builds the chunker and the embedder once, then
prepares batch after batch. Runs on a Ray worker. It touches the index only
through stores the driver named (``writes: auto`` with every store declaring
``shared_writes``): it then holds each batch's chunks and vectors, sends the
driver only their ids, and writes them under the ids the driver journaled
when the driver says so (``write``)."""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragloom.cache import EmbeddingCache, fingerprint_key
from ragloom.components import Context
from ragloom.executors import (
    Prepared,
    StoreRecipe,
    from_recipe,
    held_ids,
    prepare_batch,
    stand_in,
)
from ragloom.types import Chunk, Document

if TYPE_CHECKING:
    import numpy as np
    from ragloom.components import Store

__all__ = ["IndexWorker"]


class IndexWorker:
    """One actor of the pool (wrapped with ``ray.remote`` by the executor).

    ``cache`` is the driver's embedding cache file (None when the run has
    none). The actor reads and writes it like the in-process run does, so a
    rerun embeds only text it has not seen. ``driver_node`` is the Ray node
    the driver runs on: on that node the actor's cache is the driver's own
    file; on another node it is a file of the same path on that node's disk,
    and the vectors also go back to the driver's cache (``cacheable``).

    ``stores`` (empty unless the driver lets workers write) are built and
    opened here; every batch is then held (its chunks and vectors stay here,
    under a token) until ``write`` names the ids to write it under.
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
        stores: tuple[StoreRecipe, ...] = (),
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
        self.stores: list[tuple[str, Store]] = []
        self._held: dict[str, tuple[list[Chunk], np.ndarray | None]] = {}
        for store in stores:
            component = from_recipe(store.recipe)
            context = self._context(index_dir, base_dir, store.name, services)
            component.open(replace(context, filter_fields=store.filter_fields, filter=store.filter))
            self.stores.append((store.name, component))

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
        """Chunk and embed one batch; problems the components reported come back
        with it. With stores to write, the batch is held here (see ``write``)."""
        return self._hold(self._prepare(documents))

    def prepare_loaded(self, group: list[Document], ids: list[str]) -> Prepared:
        """Prepare the documents ``ids`` of a group loaded on the cluster (Ray
        hands the group over from its object store); what goes back names the
        documents by stand-ins, so their text does not travel to the driver."""
        prepared = self._hold(self._prepare(_pick(group, ids)))
        return replace(prepared, documents=[stand_in(d) for d in prepared.documents])

    def write(self, token: str, ids: list[str], batch: Any, loaded: bool) -> int:
        """Write the held batch ``token`` to the stores under ``ids`` (journaled by
        the driver); returns the chunks written. An actor restarted since it
        held the batch (it died) prepares ``batch`` again (``(documents ref,)``,
        or ``(group ref, ids)`` when ``loaded``) and must find the same chunks."""
        held = self._held.pop(token, None)
        if held is None:
            import ray

            documents = _pick(ray.get(batch[0]), batch[1]) if loaded else ray.get(batch[0])
            again = self._prepare(documents)
            held = ([c for cs in again.chunks for c in cs], again.vectors)
        chunks, vectors = held
        chunks = held_ids(chunks, ids)
        if chunks:
            for _, store in self.stores:
                store.upsert(chunks, vectors if "dense" in store.capabilities else None)
        return len(chunks)

    def flush(self) -> None:
        """Flush every store this actor wrote (the driver commits after)."""
        for _, store in self.stores:
            store.flush()

    def _hold(self, prepared: Prepared) -> Prepared:
        """With stores to write: keep the chunks and vectors here under a new
        token and return the batch with id-only chunks and no vectors."""
        if not self.stores:
            return prepared
        token = uuid.uuid4().hex  # never reused, even by this actor restarted
        self._held[token] = ([c for cs in prepared.chunks for c in cs], prepared.vectors)
        return replace(
            prepared,
            chunks=[[_id_only(c) for c in cs] for cs in prepared.chunks],
            vectors=None,
            cacheable=False,
            held=token,
        )

    def _prepare(self, documents: Sequence[Document]) -> Prepared:
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

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> None:
        for _, store in reversed(self.stores):
            store.close()
        if self.cache is not None:
            self.cache.close()


def _pick(group: list[Document], ids: list[str]) -> list[Document]:
    """The documents ``ids`` of a loaded group, in that order."""
    by_id: dict[str, Document] = {}
    for doc in group:
        by_id.setdefault(doc.id, doc)
    return [by_id[i] for i in ids]


def _id_only(chunk: Chunk) -> Chunk:
    """What the driver needs of a held chunk: its id and place, not its text."""
    return Chunk(
        id=chunk.id,
        document_id=chunk.document_id,
        text="",
        index=chunk.index,
        start=chunk.start,
        end=chunk.end,
        label=chunk.label,
    )


def _node() -> str:
    import ray

    return str(ray.get_runtime_context().get_node_id())
