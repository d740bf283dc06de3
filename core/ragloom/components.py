"""Base classes for every kind of component.

Each kind has one required method; everything else is derived. A component
class carries a frozen pydantic ``Config`` (``extra="forbid"``) whose fields
are the options a config file may set. Constructors are cheap: connecting,
loading models and reading files happen in ``open()``; ``close()`` releases.

    class Shout(Generator):
        class Config(ComponentConfig):
            suffix: str = "!"

        def generate(self, question, hits, history=()):
            return Answer(question=question, text=hits[0].chunk.text.upper() + self.config.suffix)
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from .types import Answer, Chunk, Document, Hit

if TYPE_CHECKING:
    import numpy as np

    from .executors import IndexWork, Prepared
    from .filters import Filter

__all__ = [
    "Chunker",
    "Component",
    "ComponentConfig",
    "Context",
    "Embedder",
    "Executor",
    "Generator",
    "Loader",
    "Message",
    "QueryTransformer",
    "Reranker",
    "Store",
]

log = logging.getLogger("ragloom")


class ComponentConfig(BaseModel):
    """Base of every component's options: frozen, unknown keys rejected."""

    model_config = ConfigDict(frozen=True, extra="forbid")


@dataclass(frozen=True)
class Context:
    """What the pipeline hands a component in ``open()``.

    ``index_dir`` is the pipeline's index directory; ``name`` is the
    component's name in the config (stores: ``name:`` or ``<type>``);
    ``base_dir`` is the directory relative paths in the config resolve against;
    ``report`` records a problem (an unreadable file, a skipped record) that
    must not stop the run: the index summary lists every one;
    ``report_unreadable`` does the same for a source that exists but cannot be
    read right now (permissions, I/O), so that the index keeps the documents
    it last indexed from it instead of deleting them. ``services``
    holds the other components a component may use (``"embedder"``, for the
    components that declare it in ``needs``). ``filter_fields`` names the
    metadata fields the config always filters on. ``fresh`` tells a store to start
    empty, discarding whatever it persisted, readable or not
    (``ragloom index --rebuild``).

    The defaults (``.ragloom`` and ``.`` relative to the working directory,
    no name, a ``report`` that drops problems) suit a component opened by
    hand in a test; the pipeline always passes every field.
    """

    index_dir: Path = Path(".ragloom")
    base_dir: Path = Path(".")
    name: str = ""
    report: Callable[[str, str], None] = field(default=lambda source, message: None)
    services: dict[str, Any] = field(default_factory=dict)
    fresh: bool = False
    filter_fields: frozenset[str] = frozenset()
    """Metadata fields the config filters every query on (``retrieval.filter``'s
    fields, the access field), plus ``document_id``: a store that indexes
    payload fields may index these up front."""
    filter: Filter | None = None
    """A store's own filter (its ``filter:`` in the config): every query the
    pipeline sends it is restricted to it, and the store may build its
    search structures over the matching chunks only (``bm25`` does, so its
    statistics and whole documents are those of one layer). The store still
    holds every chunk. The built-in stores' ``query`` also keeps to it when
    called directly with no filter or another one (it is ANDed in first);
    ``count``, ``ids`` and ``delete`` see every chunk."""
    keep: Callable[[str], None] = field(default=lambda source: None)
    """Tells the index run to keep what it indexed from ``source`` (a document
    id, or a folder: every document under it). Loaders call
    ``report_unreadable`` rather than this."""

    unchanged: Callable[[str, str | None], bool] = field(default=lambda source, stamp: False)
    """Whether the index run takes the document it indexed from ``source`` (a
    document id) as it is, without the loader reading it: the loader read it
    last when it had ``stamp`` (a file's: :func:`ragloom.reads.file_stamp`; a
    service's ETag or a record's version do too), told the run so through
    ``read``, and nothing since changed what reading it gives (ragloom, the
    readers, the loader's options, the secrets and access rules), nor the
    document's indexed version. When True the loader yields nothing for it:
    the run counts it unchanged. False outside an index run, and for a loader
    whose class does not set ``Loader.stamps``. A loader that cannot stamp
    cheaply never calls it, and reads as before."""
    read: Callable[[str, str | None], None] = field(default=lambda source, stamp: None)
    """Tells the index run that the document the loader yields next as
    ``source`` was read when it had ``stamp`` (None: no stamp to trust, a
    file changed a moment ago): the run records it with the document's
    indexed version, for ``unchanged`` to answer next time."""

    def report_unreadable(self, source: str, message: str) -> None:
        """Report ``source`` (a file or folder) as unreadable for now: the run goes
        on, and the documents indexed from it are kept, not deleted."""
        self.keep(source)
        self.report(source, message)

    def resolve(self, path: str | Path) -> Path:
        """``path`` made absolute against ``base_dir`` (``~`` expanded)."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else (self.base_dir / p)

    def store_dir(self, path: str | Path | None = None, default: str = "store") -> Path:
        """The folder a store keeps its files in: ``path`` (the store's own
        ``path:`` option) resolved against ``base_dir`` when given, else
        ``<index_dir>/<name>`` (``<index_dir>/<default>`` for an unnamed store).
        Not created: the store makes it when it first writes."""
        if path:
            return self.resolve(path)
        return self.index_dir / (self.name or default)


Message = dict[str, str]
"""One turn of chat history: ``{"role": "user" | "assistant", "content": "..."}``."""


class Component(ABC):  # noqa: B024 (the kinds below declare the abstract methods)
    """Common lifecycle: cheap ``__init__``, ``open(context)``, ``close()``, ``with``.

    Each kind marks the method(s) a subclass must implement ``@abstractmethod``:
    a class that misses one cannot be instantiated, and says which."""

    kind: ClassVar[str] = "component"
    Config: ClassVar[type[ComponentConfig]] = ComponentConfig
    needs: ClassVar[frozenset[str]] = frozenset()
    """Other components this one uses through ``context.services`` (``"embedder"``);
    ``ragloom config check`` fails when the config lacks them, and the pipeline
    opens those first."""
    type_name: str = ""
    """The name the class was registered under (``hash``), set when a config
    builds the component; fingerprints record it. Empty for a component built
    by hand, whose fingerprints then use the class name."""

    @classmethod
    def needs_for(cls, config: ComponentConfig) -> frozenset[str]:
        """``needs`` as configured: a component built of others (the ``layers``
        chunker) adds what its parts need. The config checks it."""
        return cls.needs

    def __init__(self, config: ComponentConfig | None = None, **options: Any) -> None:
        if config is None:
            config = self.Config(**options)
        elif options:
            raise TypeError("pass either a Config instance or keyword options, not both")
        self.config = config
        self.context = Context()

    def open(self, context: Context | None = None) -> None:
        """Connect, load models, read persisted state. Called once before use."""
        if context is not None:
            self.context = context

    def close(self) -> None:  # noqa: B027 (optional: most components hold nothing)
        """Release what ``open()`` acquired. Safe to call twice."""

    def __enter__(self) -> Component:
        self.open(self.context)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config!r})"


class Loader(Component):
    """Yields documents with stable ids. Unreadable sources are reported via
    ``self.context.report(source, message)`` and skipped; the run goes on."""

    kind = "loader"
    stamps: ClassVar[bool] = False
    """Set True on a loader class whose ``load`` asks ``Context.unchanged``
    before reading a source and yields nothing for one it answers True to
    (so the index run takes its indexed document as it is), and tells
    ``Context.read`` the stamp of each source it reads. It holds for the
    class that sets it only: a subclass that changes what its parent yields
    (documents derived from each one, metadata from elsewhere) would lose
    them for every source left unread, so it must set it again itself to
    be answered True."""

    @abstractmethod
    def load(self) -> Iterator[Document]:
        raise NotImplementedError

    def with_sources(self, sources: Sequence[str]) -> Loader | None:
        """A loader like this one restricted to ``sources`` (paths), or None if
        none of them belong to it. Used by ``Pipeline.index(sources=...)``."""
        return None


class Chunker(Component):
    """Splits a document into chunks that keep its metadata."""

    kind = "chunker"

    @abstractmethod
    def split(self, document: Document) -> list[Chunk]:
        raise NotImplementedError

    def fingerprint(self) -> dict[str, Any]:
        """What decides the chunks: type and options. Recorded by the index."""
        options = self.config.model_dump(mode="json")
        return {"type": self.type_name or type(self).__name__, **options}


class Embedder(Component):
    """Turns texts into vectors. Implement ``embed_batch``; the rest is derived."""

    kind = "embedder"
    batch_size: ClassVar[int] = 64

    @abstractmethod
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed one batch: returns a float32 array of shape ``(len(texts), dimension)``."""
        raise NotImplementedError

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed any number of texts in batches of ``batch_size``."""
        import numpy as np

        size = int(getattr(self.config, "batch_size", self.batch_size) or self.batch_size)
        parts = [self.embed_batch(texts[i : i + size]) for i in range(0, len(texts), size)]
        if not parts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.ascontiguousarray(np.vstack(parts), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query; override where queries get a prefix or another model."""
        return self.embed_batch([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many queries: ``(len(texts), dimension)`` float32, each row what
        ``embed_query`` gives. Batched like documents when ``embed_query`` is not
        overridden; a plugin that overrides ``embed_query`` (a query prefix, an
        ``input_type``) overrides this too to batch, or gets one call a query."""
        import numpy as np

        if type(self).embed_query is Embedder.embed_query:
            return self.embed_documents(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.ascontiguousarray(np.vstack([self.embed_query(t) for t in texts]), np.float32)

    @classmethod
    def declared_dimension(cls, config: Any) -> int | None:
        """The length of the vectors as ``config`` alone tells it, without
        loading a model or asking a service (``ragloom config check`` compares
        it with each store's ``dimension:``); None when only embedding tells.
        By default a ``dimension`` option; override for models of known width."""
        width = getattr(config, "dimension", None)
        return width if isinstance(width, int) and not isinstance(width, bool) else None

    @property
    def dimension(self) -> int:
        """Length of the vectors: ``declared_dimension``, else derived by
        embedding a probe once, unless overridden."""
        cached = getattr(self, "_dimension", None)
        if cached is None:
            cached = self.declared_dimension(self.config)
        if cached is None:
            cached = int(self.embed_batch(["dimension probe"]).shape[1])
            self._dimension = cached
        return cached

    def fingerprint(self) -> dict[str, Any]:
        """What decides the vectors: backend, model, dimension, prefixes, normalisation.
        An index built under one fingerprint is never queried with another."""
        return {
            "type": self.type_name or type(self).__name__,
            "dimension": self.dimension,
            **self.config.model_dump(mode="json", exclude={"batch_size", "device"}),
        }


class Store(Component):
    """Holds chunks and answers queries.

    ``capabilities`` says what a store answers: ``"dense"`` (vector queries),
    ``"text"`` (keyword queries) or both. ``filter_operators`` lists the
    filter operators it applies natively, inside the query, before ranking;
    a filter using any other operator is rejected before the query runs.

    Threads: the pipeline may call ``query`` and ``count`` from several
    threads at once, but never while a write (``upsert``, ``delete``,
    ``flush``, ``refresh``) runs, and never two writes at once: a store needs
    no locking of its own as long as reads do not mutate shared state.

    State: an index run writes every chunk id of a document before the
    ledger commits it and deletes replaced chunks after, so a store may
    briefly hold chunks no committed document owns; the pipeline never shows
    those to a query. ``open(context)`` with ``context.fresh`` starts empty.
    """

    kind = "store"
    capabilities: ClassVar[frozenset[str]] = frozenset({"dense"})
    filter_operators: ClassVar[frozenset[str]] = frozenset()
    exact_count: ClassVar[bool] = True
    """Whether ``count()`` is exact as soon as a write returns. Every index run
    checks each store's count against the ledger; a store whose count lags
    (an eventually consistent service) sets this False and is not checked."""

    @property
    def location(self) -> str | None:
        """Where the store keeps its chunks, as the config names it (a
        collection, a namespace, a table), when options choose it; None by
        default. Each index run records it, so that a run after the config
        moved the store says so (and, for a store whose count lags, asks for
        ``--repair``) instead of calling it changed outside ragloom. Never a
        secret: no key, no password in a DSN."""
        return None

    @property
    def shared_writes(self) -> bool:
        """Whether processes other than the one running the index may write this
        store at the same time, each through an instance of its own opened with
        the same config: True for a store on a server (a database, a hosted
        index), False (the default) for one whose data a process holds or owns
        on its disk. An executor whose workers write the stores
        (``ragloom.executors.WritesStores``) writes from them only when every
        configured store says True; otherwise the process running the index
        writes them all. Override it as a property when it depends on the
        config (Qdrant: a ``url``, not a ``path``).

        .. versionadded:: 0.1"""
        return False

    @property
    def shared_data(self) -> bool:
        """Whether the instances of this store opened with the same config
        (in this process or in others) read one copy of its data, so that a
        write by one is seen by the rest at once: a server, or an embedded
        engine that the stores of one process share (Qdrant's). Such a store
        is emptied under the pipelines reading it by ``ragloom index
        --rebuild``, which therefore commits its cleared ledger as a new
        corpus version: they refuse queries (``IndexRebuildingError``) until
        it ends, rather than answer "no hits". False for a store each
        instance of which holds its own copy (``memory``, ``bm25``): its
        readers answer from the version they hold. Defaults to
        ``shared_writes or remote_queries``.

        .. versionadded:: 0.1"""
        return self.shared_writes or self.remote_queries

    @property
    def remote_queries(self) -> bool:
        """Whether ``query`` mostly waits on another process (a server over
        the network or a socket) rather than computing here. The pipeline asks
        such stores on its store pool's threads, at once with the query's
        other stores, so that a hybrid query takes about as long as its
        slowest store; stores that compute in this process (False, the
        default) are asked one after another on the caller's thread. Override
        it as a property when it depends on the config.

        .. versionadded:: 0.1"""
        return False

    @abstractmethod
    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray | None = None) -> None:
        """Insert or replace chunks by id (idempotent). ``vectors`` is given to dense stores."""
        raise NotImplementedError

    @abstractmethod
    def query(
        self,
        *,
        vector: np.ndarray | None = None,
        text: str | None = None,
        k: int = 10,
        where: Filter | None = None,
    ) -> list[Hit]:
        """The ``k`` best chunks for the vector (dense) or text (keyword), best
        first, among those matching ``where``."""
        raise NotImplementedError

    @abstractmethod
    def delete(self, *, ids: Sequence[str] | None = None, where: Filter | None = None) -> int:
        """Delete chunks by id or by filter; returns how many were deleted."""
        raise NotImplementedError

    @abstractmethod
    def count(self, where: Filter | None = None) -> int:
        """How many chunks are stored (matching ``where`` if given)."""
        raise NotImplementedError

    def flush(self) -> None:
        """Make every write durable. Called before the ledger commits an index run."""

    def refresh(self) -> None:
        """Pick up what another process wrote since ``open()`` or the last
        ``refresh()``. The pipeline calls it when the index's corpus version
        moves on (another process committed a run) and at the start of every
        index run, so a long-lived pipeline never answers from, or writes back,
        a stale copy. Stores that read a live server see every write at once
        and keep this default, which does nothing; stores that hold their data
        in memory reload it when their files changed."""

    def warm(self) -> None:
        """Build now what the first query would otherwise build (an index
        made lazily after the data changed), so that no query waits for it.
        A server calls it every few seconds, and after moving to a version
        another process committed; it is called with queries running beside
        it, under their lock (never beside a write), and must be cheap when
        there is nothing to build. The default does nothing."""

    def spelled(self, text: str) -> str:
        """A query with its slips of typing as this store's texts spell the
        words ("parkng" as "parking"), for every store to be asked with; the
        text as it is where the store reads none. The pipeline calls it on
        each query before embedding it, under the queries' lock, so it may
        read the store's data; it must be cheap. Not called where an access
        filter applies: a reading drawn from every chunk would tell of words
        the caller may not read. The default reads none (the ``bm25`` store
        reads slips: its ``spelling`` option)."""
        return text

    def ids(self, where: Filter | None = None) -> Iterator[str]:
        """Every stored chunk id (matching ``where`` if given), in any order.

        Optional. ``ragloom index --repair`` uses it to find exactly which
        chunks a store lacks or holds without an owner; a store without it is
        repaired by rebuilding it from the ledger's documents.
        """
        raise NotImplementedError(f"{type(self).__name__} does not list its chunk ids")


class Reranker(Component):
    """Reorders hits for a query and keeps the best ``top_k``."""

    kind = "reranker"

    @abstractmethod
    def rerank(self, query: str, hits: Sequence[Hit], top_k: int | None = None) -> list[Hit]:
        raise NotImplementedError


class Generator(Component):
    """Writes an answer from the question and the retrieved hits, citing them."""

    kind = "generator"

    @abstractmethod
    def generate(
        self, question: str, hits: Sequence[Hit], history: Sequence[Message] = ()
    ) -> Answer:
        raise NotImplementedError

    def stream(
        self, question: str, hits: Sequence[Hit], history: Sequence[Message] = ()
    ) -> Iterator[str | Answer]:
        """Yield pieces of the answer text, then the complete ``Answer`` last.
        Derived from ``generate``; generators that can stream override it."""
        answer = self.generate(question, hits, history)
        yield answer.text
        yield answer


class QueryTransformer(Component):
    """Rewrites a question into one or more search queries."""

    kind = "query_transformer"

    @abstractmethod
    def transform(self, question: str, history: Sequence[Message] = ()) -> list[str]:
        raise NotImplementedError


class Executor(Component):
    """Decides where an index run's chunk and embed work runs and how its
    batches come back (``executor:`` in the config; in this process by default).

    The index run keeps everything that makes the index trustworthy on the
    driver: the diff against the ledger (loading too, unless the executor
    loads: :class:`~ragloom.executors.LoadsDocuments`), the journal entry
    written before any store sees a chunk id, the store writes and the one
    ledger commit after every store has flushed. An executor only turns the
    documents to (re)index into :class:`~ragloom.executors.Prepared` batches
    (chunks and their vectors), wherever it likes.
    """

    kind = "executor"

    @abstractmethod
    def map(self, work: IndexWork, documents: Sequence[Document]) -> Iterator[Prepared]:
        """Chunk and embed ``documents`` in batches and yield each batch's result
        as it is ready, in any order. Every document must come back exactly
        once, either in ``Prepared.documents`` or in ``Prepared.failed``: the run
        refuses to commit otherwise. A batch that fails for good raises (the
        run then fails and commits nothing). ``work.prepare(batch)`` does one
        batch in this process, through the run's stages and the embedding cache;
        ``work.chunker`` and ``work.embedder`` say how to build the components
        elsewhere."""
        raise NotImplementedError


@dataclass(frozen=True)
class KindSpec:
    """One kind of component: its base class, registration hook and config section."""

    name: str
    """``store``: the kind as registries, errors and docs name it."""
    base: type[Component]
    hook: str
    """``register_stores``: the hook that registers classes of this kind."""
    section: str
    """``stores``: the config section that configures it."""
    many: bool
    """Whether the section is a list (``loaders``, ``stores``, ``query_transformers``)."""


COMPONENT_KINDS: tuple[KindSpec, ...] = (
    KindSpec("loader", Loader, "register_loaders", "loaders", many=True),
    KindSpec("chunker", Chunker, "register_chunkers", "chunker", many=False),
    KindSpec("embedder", Embedder, "register_embedders", "embedder", many=False),
    KindSpec("store", Store, "register_stores", "stores", many=True),
    KindSpec("reranker", Reranker, "register_rerankers", "reranker", many=False),
    KindSpec("generator", Generator, "register_generators", "generator", many=False),
    KindSpec(
        "query_transformer",
        QueryTransformer,
        "register_query_transformers",
        "query_transformers",
        many=True,
    ),
    KindSpec("executor", Executor, "register_executors", "executor", many=False),
)
"""The eight kinds, in pipeline order (the executor last: it places the
others' work): the one table registries, config validation, the schema and
the docs read (``hookspecs.py`` declares each
``hook``; a test keeps the two in step)."""

KINDS: dict[str, type[Component]] = {k.name: k.base for k in COMPONENT_KINDS}

Kind = Literal[
    "loader",
    "chunker",
    "embedder",
    "store",
    "reranker",
    "generator",
    "query_transformer",
    "executor",
]
