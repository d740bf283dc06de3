"""Executors: where an index run's chunk and embed work runs.

An index run (:class:`ragloom.indexing.Indexer`) loads the documents, diffs
them against the ledger, and hands the documents to (re)index to the
configured executor (``executor:`` in the config). The executor yields
:class:`Prepared` batches (chunks and vectors); the run journals each
batch's chunk ids before any store sees them, writes the stores, and
commits the ledger once, after every store has flushed. So whatever the
executor does, a run killed at any point leaves the last committed index,
and the next run (on any executor) repairs to exactly the corpus.

``inprocess`` (the default) is the behaviour ragloom always had: batches of
64 documents, chunked and embedded in this process through the run's stages
and the embedding cache. Plugins register others through the
``register_executors`` hook (``ragloom-ray`` runs the work on a Ray cluster);
a worker elsewhere builds the chunker and embedder from ``IndexWork`` and
calls :func:`prepare_batch`.

When every configured store declares ``Store.shared_writes`` (a server many
processes may write at once), an executor that implements
:class:`WritesStores` may write the stores from its workers: a batch then
comes back *held* (its chunk ids, no text or vectors), the run journals the
ids it will own, and only then tells the executor to write the held batch
under exactly those ids (:meth:`WritesStores.write`); before the ledger
commits, :meth:`WritesStores.flush_writes` waits for every write and every
worker's store flush. The journal guarantee is the same: no store sees a
chunk id the journal does not name first.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .components import ComponentConfig, Executor
from .errors import RagloomError

if TYPE_CHECKING:
    import numpy as np

    from .cache import EmbeddingCache
    from .components import Chunker, Embedder
    from .config import ComponentSpec
    from .filters import Filter
    from .types import Chunk, Document

__all__ = [
    "INDEX_BATCH",
    "InProcessExecutor",
    "IndexWork",
    "LoadWork",
    "Loaded",
    "LoadsDocuments",
    "Prepared",
    "StoreRecipe",
    "WritesStores",
    "component_recipe",
    "embed_cached",
    "from_recipe",
    "held_ids",
    "malformed",
    "plain_numbers",
    "prepare_batch",
    "screened",
    "stand_in",
]

INDEX_BATCH = 64
"""Documents per batch of the in-process executor."""


@dataclass(frozen=True)
class Prepared:
    """One batch of documents, chunked and embedded, on its way to the stores.

    ``chunks[i]`` are the chunks of ``documents[i]`` as the chunker made them
    (the run adds each document's stamp to their ids); ``vectors`` has one row
    per chunk, in that order, or is None when no store needs vectors.
    ``failed`` lists documents of the batch left out because their chunking
    failed (their problem is in ``problems``; the run keeps what the index
    held for them). ``problems`` are (source, message) pairs reported where the
    work ran; the run adds them to its report. ``embedded`` and ``cached``
    count texts sent to the embedder and texts whose vectors came from the
    embedding cache; ``cacheable`` says the run should store the fresh
    vectors in its embedding cache (work done elsewhere). ``held`` is set by
    an executor whose workers write the stores (:class:`WritesStores`): the
    chunks and vectors stayed where they were made, ``chunks`` carry their
    ids (text and metadata may be empty), ``vectors`` is None, and the run
    hands the batch back to :meth:`WritesStores.write` with the ids to write
    once it has journaled them; ``held`` is the executor's own handle, opaque
    to the run."""

    documents: list[Document]
    chunks: list[list[Chunk]]
    vectors: np.ndarray | None = None
    failed: tuple[str, ...] = ()
    problems: tuple[tuple[str, str], ...] = ()
    embedded: int = 0
    cached: int = 0
    cacheable: bool = False
    held: Any = None


@dataclass(frozen=True)
class StoreRecipe:
    """One configured store, as a worker elsewhere builds it to write there:
    ``name`` (the config's, which a store may use, e.g. for a table name),
    ``recipe`` (:func:`component_recipe`), and the ``filter_fields`` and
    ``filter`` (the store's own) its ``Context`` gets. Open it with
    ``Context(name=name, index_dir=..., base_dir=..., filter_fields=filter_fields,
    filter=filter, services={"embedder": ...})``, never ``fresh`` (a rebuild
    empties the stores on the driver first)."""

    name: str
    recipe: tuple[type[Any], Any, str]
    filter_fields: frozenset[str] = frozenset()
    filter: Filter | None = None


@dataclass(frozen=True)
class IndexWork:
    """What an executor needs to place an index run's work.

    ``chunker`` and ``embedder`` are the configured components' specs
    (``spec.create()`` builds an unopened instance; their class and options
    pickle, so a worker can build its own); ``vectors`` says whether any store
    needs vectors (when False, nothing is embedded); a worker opens them with a
    ``Context`` on ``index_dir`` and ``base_dir``. ``prepare(batch)`` does one
    batch here, through the run's stages and the embedding cache: the
    in-process executor calls only that. ``embedding_cache`` is the file of
    the run's embedding cache (None when ``cache.embeddings`` is off): a
    worker that can reach it opens its own ``EmbeddingCache`` on it and passes
    it to :func:`prepare_batch`, so unchanged text is not embedded again.
    ``stores`` lists every configured store when each of them declares
    ``Store.shared_writes`` (empty otherwise): an executor that implements
    :class:`WritesStores` may then write them from its workers."""

    chunker: ComponentSpec
    embedder: ComponentSpec | None
    vectors: bool
    index_dir: Path
    base_dir: Path
    prepare: Callable[[Sequence[Document]], Prepared] = field(repr=False)
    embedding_cache: Path | None = None
    stores: tuple[StoreRecipe, ...] = ()


@dataclass(frozen=True)
class LoadWork:
    """What an executor that loads on its workers (:class:`LoadsDocuments`) needs.

    ``loaders`` are ``(key, type name, recipe)`` for each configured loader, in
    config order (:func:`component_recipe`; a worker builds and opens its own).
    ``admit(doc, configured, report)`` must be called on every loaded
    document that ``screened`` returns, where it was loaded: it screens
    secrets (``indexing.secrets``) and applies access labels (``configured`` is
    ``admit.labeller.configured(loader)``), and returns the document to index
    or None to leave it out. It pickles."""

    loaders: tuple[tuple[str, str, tuple[type[Any], Any, str]], ...]
    index_dir: Path
    base_dir: Path
    admit: Any


@dataclass(frozen=True)
class Loaded:
    """One loader's documents as loaded on a worker: what the diff needs.

    ``documents`` are light stand-ins (id and source, no text) in load order,
    ``states`` their state hashes (``ragloom.fingerprints.state_hash`` of the
    admitted document); the executor keeps the documents themselves where
    they were loaded and finds them again by id in ``map``. ``problems`` and
    ``kept`` are what the loader reported (``Context.report`` and
    ``Context.keep``); ``error`` is set when its whole source was unavailable
    (``SourceUnavailableError``: the run keeps what it indexed from it)."""

    loader: str
    documents: list[Document]
    states: list[str]
    problems: tuple[tuple[str, str], ...] = ()
    kept: tuple[str, ...] = ()
    error: str | None = None


@runtime_checkable
class LoadsDocuments(Protocol):
    """An executor that can also load: the run asks it for the documents (a
    full run; a run scoped to some paths loads on the driver), diffs the
    stand-ins it returns against the ledger, and hands the stand-ins of those
    to (re)index back to its ``map``."""

    @property
    def loads_documents(self) -> bool:
        """Whether this executor, as configured, loads on its workers."""
        ...

    def load_documents(self, work: LoadWork) -> Iterator[Loaded]:
        """One :class:`Loaded` per loader of ``work``, in order."""
        ...


@runtime_checkable
class WritesStores(Protocol):
    """An executor whose workers can write the stores themselves, so chunks and
    vectors never travel to the process running the index (its single write
    path stops being the limit). It does so only for a run whose
    ``IndexWork.stores`` is not empty, and marks those batches ``held``."""

    def write(self, prepared: Prepared, ids: Sequence[str]) -> None:
        """Write the held batch ``prepared`` to every store of ``work.stores``,
        its chunks (in ``prepared.chunks`` order, flattened) under ``ids``, which
        the run has journaled. May return before the write is done; a write
        that fails must fail :meth:`flush_writes`. A worker that lost the batch
        (it died) prepares it again and must then find the same chunks
        (:func:`held_ids` checks)."""
        ...

    def flush_writes(self) -> None:
        """Wait for every write of the run and flush every worker's stores.
        Called before the ledger commits; raises if any write failed (the run
        then commits nothing, and the journal names what was written)."""
        ...


def stand_in(doc: Document) -> Document:
    """``doc`` without its text and metadata but its source: what the run's diff,
    ledger and report need of a document loaded elsewhere."""
    from .types import Document

    return Document(id=doc.id, text="", metadata={"source": doc.source})


def plain_numbers(doc: Document) -> Document:
    """``doc`` with numpy numbers in its metadata (``np.int64`` from pandas)
    made Python's, which every store writes as JSON."""
    try:
        json.dumps(doc.metadata)
    except (TypeError, ValueError):
        return replace(doc, metadata=json.loads(json.dumps(doc.metadata, default=_scalar)))
    return doc


def _scalar(value: Any) -> Any:
    """A numpy number (``np.int64`` from pandas) as the number it is; else
    not JSON (``TypeError``)."""
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "shape", None) == ():
        return item()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def screened(
    doc: Any, loader: str, report: Callable[[str, str], None], keep: Callable[[str], None]
) -> Document | None:
    """A loaded ``doc`` as the index takes it (numpy numbers in its metadata
    made Python's), or None when it is no document (``malformed``, a bug of
    loader ``loader``): reported, and its indexed version kept. Wherever
    documents are loaded, before ``admit``."""
    wrong = malformed(doc)
    if wrong is None:
        return plain_numbers(doc)
    said = f"loader {loader} gave {wrong}; skipped, a bug in its plugin"
    report(str(getattr(doc, "id", "?")), said)
    if isinstance(getattr(doc, "id", None), str):
        keep(doc.id)
    return None


def malformed(doc: Any) -> str | None:
    """What makes ``doc`` no document the pipeline can index (a loader's
    bug): not a ``Document``, an id or text that is no string, or metadata
    that is not JSON (every store writes it as JSON). None when it is fine."""
    from .types import Document

    if not isinstance(doc, Document):
        return f"a {type(doc).__name__}, not a ragloom.Document"
    if not isinstance(doc.id, str) or not doc.id:
        return f"a document whose id is {doc.id!r}, not a non-empty string"
    if not isinstance(doc.text, str):
        return f"a document whose text is {type(doc.text).__name__}, not a string"
    try:
        json.dumps(doc.metadata, default=_scalar)
    except (TypeError, ValueError) as exc:
        return f"a document whose metadata is not JSON ({exc})"
    return None


class InProcessExecutor(Executor):
    """Chunks and embeds in this process, 64 documents a batch (the default)."""

    class Config(ComponentConfig):
        pass

    def map(self, work: IndexWork, documents: Sequence[Document]) -> Iterator[Prepared]:
        for start in range(0, len(documents), INDEX_BATCH):
            yield work.prepare(documents[start : start + INDEX_BATCH])


def held_ids(chunks: Sequence[Chunk], ids: Sequence[str]) -> list[Chunk]:
    """``chunks`` renamed to ``ids`` (:meth:`WritesStores.write`'s), each
    checked to be the chunk the run journaled: its id must be the chunker's id
    followed by ``@`` and the document's stamp."""
    if len(ids) != len(chunks):
        raise RagloomError(
            f"a held batch has {len(chunks)} chunks but the run journaled {len(ids)}: the "
            "chunker gave other chunks when the batch was prepared again; nothing was committed"
        )
    renamed: list[Chunk] = []
    for chunk, cid in zip(chunks, ids, strict=True):
        if not cid.startswith(f"{chunk.id}@"):
            raise RagloomError(
                f"a held batch's chunk {chunk.id!r} is not the journaled {cid!r}: the chunker "
                "gave other chunks when the batch was prepared again; nothing was committed"
            )
        renamed.append(replace(chunk, id=cid))
    return renamed


def prepare_batch(
    chunker: Chunker,
    embedder: Embedder | None,
    documents: Sequence[Document],
    *,
    vectors: bool,
    cache: EmbeddingCache | None = None,
    cache_key: str = "",
) -> Prepared:
    """Chunk and embed one batch with opened components, outside any run: what a
    worker of a distributed executor does. A document whose chunking raises is
    left out (in ``failed``, with a problem naming it) and the batch goes on;
    an embedder that raises fails the batch. With ``cache`` (and ``cache_key``,
    :func:`ragloom.cache.fingerprint_key` of the embedder's fingerprint), texts
    found there are not embedded and fresh vectors are put there, as in
    process; the result is then not ``cacheable`` (already cached)."""
    problems: list[tuple[str, str]] = []
    kept: list[Document] = []
    per_doc: list[list[Chunk]] = []
    failed: list[str] = []
    for doc in documents:
        try:
            chunks = chunker.split(doc)
        except Exception as exc:  # one failing document never kills the run
            failed.append(doc.id)
            problems.append((doc.source, f"chunking failed, kept its indexed version: {exc!r}"))
            continue
        kept.append(doc)
        per_doc.append(chunks)
    texts = [c.text for cs in per_doc for c in cs]
    array = None
    embedded = cached = 0
    if vectors and embedder is not None and texts:
        array, embedded = embed_cached(embedder.embed_documents, texts, cache, cache_key, embedder)
        cached = len(texts) - embedded
    return Prepared(
        documents=kept,
        chunks=per_doc,
        vectors=array,
        failed=tuple(failed),
        problems=tuple(problems),
        embedded=embedded,
        cached=cached,
        cacheable=array is not None and cache is None,
    )


EMBED_SLICE = 1024
"""Texts embedded per call when an embedding cache keeps them: a model still
sorts a thousand texts by length for its own batches, and an interrupted
run loses at most one slice's work."""


def embed_cached(
    embed: Callable[[list[str]], np.ndarray],
    texts: list[str],
    cache: EmbeddingCache | None,
    key: str,
    embedder: Embedder,
) -> tuple[np.ndarray, int]:
    """Vectors for ``texts`` (float32, one row each) and how many texts went to
    ``embed``: with a cache, only the distinct texts it does not hold under
    ``key`` (the embedder fingerprint's key) are embedded, and put there."""
    import numpy as np

    if cache is None:
        return embed(texts), len(texts)
    hashes = [cache.text_hash(t) for t in texts]
    found = cache.get_many(key, hashes, embedder.dimension)
    missing = list(dict.fromkeys(h for h in hashes if h not in found))
    if missing:
        from .errors import EmbedderError

        first = {h: i for i, h in reversed(list(enumerate(hashes)))}
        # in slices, each cached once embedded: a run stopped in a huge document
        # (Ctrl-C, a kill, a failure) keeps what it embedded for the next one
        for start in range(0, len(missing), EMBED_SLICE):
            part = missing[start : start + EMBED_SLICE]
            try:
                fresh = embed([texts[first[h]] for h in part])
            except EmbedderError as exc:
                # what the embedder sent before it failed is kept: a rerun sends the rest
                done = exc.done
                if done is not None and getattr(done, "ndim", 0) == 2 and len(done) <= len(part):
                    cache.put_many(key, zip(part, done))
                raise
            cache.put_many(key, zip(part, fresh))
            found.update(zip(part, fresh))
    return np.ascontiguousarray(np.vstack([found[h] for h in hashes]), dtype=np.float32), len(
        missing
    )


def component_recipe(spec: ComponentSpec | None) -> tuple[type[Any], Any, str] | None:
    """``(cls, options, type name)`` of a spec: small, picklable, enough to build
    the component on a worker with :func:`from_recipe`."""
    if spec is None:
        return None
    return (spec.entry.cls, spec.config, spec.type)


def from_recipe(recipe: tuple[type[Any], Any, str]) -> Any:
    """A new, unopened component from :func:`component_recipe`'s tuple."""
    cls, config, type_name = recipe
    component = cls(config)
    component.type_name = type_name
    return component
