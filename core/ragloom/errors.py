"""Every exception ragloom raises on purpose.

The tree::

    RagloomError                      base of everything below; never raised itself
    ├── ConfigError                   a config file or dict is wrong (CLI exit code 2)
    │   └── ConfigValidationError     carries every ConfigIssue found, each with path and line
    ├── PluginError                   a plugin or registration is wrong
    │   ├── UnknownComponentError     a config names a type nobody registered
    │   └── DuplicateComponentError   two plugins register the same (kind, name)
    ├── FilterError                   a metadata filter is malformed or unsupported
    │   └── UnsupportedFilterError    a store cannot express an operator in the filter
    ├── IndexStateError               the index does not fit the config, or is locked
    │   ├── IndexDirError             the index folder cannot be created
    │   └── IndexDamagedError         the ledger is no readable ledger: --rebuild moves it aside
    ├── AccessError                   a query on an access-controlled pipeline named no principals
    └── ComponentError                a component failed while running (CLI exit code 1)
        ├── LoaderError
        │   └── SourceUnavailableError  a loader's whole source is missing or unreadable
        ├── EmbedderError
        ├── StoreError
        │   └── DimensionMismatchError
        ├── RerankerError
        └── GeneratorError

    KeyboardInterrupt                 Ctrl-C (Python's own; CLI exit code 1)
    └── Terminated                    SIGTERM under the ``ragloom`` command (exit code 143)

Every message says what happened, where, and what to do about it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "AccessError",
    "ComponentError",
    "ConfigError",
    "ConfigIssue",
    "ConfigValidationError",
    "DimensionMismatchError",
    "DuplicateComponentError",
    "EmbedderError",
    "FilterError",
    "GeneratorError",
    "IndexDamagedError",
    "IndexDirError",
    "IndexStateError",
    "InvalidRequestError",
    "LoaderError",
    "OptionProblems",
    "PluginError",
    "RagloomError",
    "RerankerError",
    "SourceUnavailableError",
    "StoreError",
    "Terminated",
    "UnknownComponentError",
    "UnsupportedFilterError",
]


class RagloomError(Exception):
    """Base class of every error ragloom raises on purpose."""


class OptionProblems(ValueError):
    """Several problems in one component option, each at its own place: a
    ``Config`` validator raises it (pydantic keeps it as the error's cause)
    so that a config check reports each on its own line, with that line's
    number. ``items``: (the path of the problem inside the option's value,
    e.g. ``(0, "chunker")`` for the chunker of a ``routes`` list's first
    route; its message). Its text is the messages joined with ``; ``."""

    def __init__(self, items: list[tuple[tuple[str | int, ...], str]]) -> None:
        self.items = items
        super().__init__("; ".join(message for _, message in items))


class ConfigError(RagloomError):
    """A config is wrong; nothing has run yet."""


@dataclass(frozen=True)
class ConfigIssue:
    """One problem in a config: where it is and what to do about it.

    ``path`` looks like ``stores[1].collection``; ``line`` is 1-based when the
    config came from a file and the position is known.
    """

    path: str
    message: str
    line: int | None = None
    hint: str | None = None

    def __str__(self) -> str:
        where = self.path or "<root>"
        if self.line is not None:
            where = f"{where} (line {self.line})"
        text = f"{where}: {self.message}"
        if self.hint:
            text += f" — {self.hint}"
        return text


class ConfigValidationError(ConfigError):
    """Raised with every issue found in one pass, never just the first."""

    def __init__(self, issues: list[ConfigIssue], source: str | None = None) -> None:
        self.issues = list(issues)
        self.source = source
        head = f"{len(self.issues)} error(s) in {source or 'config'}"
        super().__init__(head + ":\n" + "\n".join(f"  {issue}" for issue in self.issues))


class PluginError(RagloomError):
    """A plugin failed to load or registered something invalid."""


class UnknownComponentError(PluginError):
    """A config names a component type that no installed plugin registers."""


class DuplicateComponentError(PluginError):
    """Two plugins registered the same name for the same kind."""


class FilterError(RagloomError):
    """A metadata filter is malformed; the message names the offending path."""


class UnsupportedFilterError(FilterError):
    """A store cannot express an operator used in a filter; nothing was dropped."""


class IndexStateError(RagloomError):
    """The index on disk does not fit the config, or is in use by another run."""


class IndexDirError(IndexStateError):
    """The index folder (``path``) cannot be created: a read-only mount, no
    permission, a file in its place."""

    def __init__(self, message: str, path: object = None) -> None:
        super().__init__(message)
        self.path = path


class IndexDamagedError(IndexStateError):
    """The index ledger is not a readable ledger (garbage, a torn file):
    ``ragloom index --rebuild`` moves it aside and indexes everything again.
    A ledger another process holds, a read-only one, or a full or failing
    disk raise a plain ``IndexStateError``: the ledger is good, and moving it
    aside would lose it."""


class IndexRebuildingError(IndexStateError):
    """A query while ``ragloom index --rebuild`` runs (or after one was killed):
    the index holds no documents until it commits them."""


class AccessError(RagloomError):
    """A query on a pipeline with ``access:`` configured did not say whose it is."""


class InvalidRequestError(RagloomError, ValueError, TypeError):
    """A call's own arguments are wrong: an empty question, ``k`` out of range
    or not a whole number, principals given as one string, sources no loader
    covers. Also a ``ValueError`` and a ``TypeError``, as it was before it
    joined the tree."""


class ComponentError(RagloomError):
    """A component failed while running."""


class LoaderError(ComponentError):
    """A loader could not read a source."""


class SourceUnavailableError(LoaderError):
    """A loader's whole source (its folder, file or service) is missing or
    unreadable: an unmounted share, a renamed folder. ``load()`` raises it
    before yielding anything; the index run reports it, keeps every document
    that loader indexed before, and exits non-zero."""


class EmbedderError(ComponentError):
    """An embedder failed to embed a batch.

    ``done``, when the embedder sets it, holds the vectors of the texts
    before the batch that failed (their first ``len(done)``, in order): the
    index run puts them in the embedding cache before it fails, so that a
    rerun sends only what is missing."""

    done: object = None  # a float32 array, one row a text


class StoreError(ComponentError):
    """A store failed to write, read or delete."""


class DimensionMismatchError(StoreError):
    """Vectors of one dimension were given to a store holding another."""


class RerankerError(ComponentError):
    """A reranker failed."""


class GeneratorError(ComponentError):
    """A generator failed to produce an answer."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the command is, as Ctrl-C is: the run stops the
    way an interrupted one does (its store writes journaled, its lock let
    go), says so, and exits 143 as a process ended by the signal would. Only
    the first SIGTERM raises it (see ``ragloom.cli_support.on_sigterm``)."""
