"""The corpus of one index run: which loaders run, what they load, and what
every loaded document goes through before the diff against the ledger.

- :func:`scoped_loaders`: the configured loaders, restricted to the paths
  of ``ragloom index PATH...``, and the scope deletions are limited to.
- :class:`Admission`: secrets screened (``indexing.secrets``), personal
  data redacted (``indexing.personal_data``), then access labels applied.
  It pickles, so an executor that loads on its workers runs it there
  (``LoadWork.admit``).
- :func:`load_here` runs the loaders in this process; :func:`load_on` lets
  an executor run them (``ragloom.executors.LoadsDocuments``), so that only
  stand-ins of the documents reach this process.
- :class:`Loaded`: the documents, and what the run needs to decide what a
  document missing from them means (:meth:`Loaded.keeps`).

``indexing.py`` turns a :class:`Loaded` into the diff, the writes and the
commit.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .access import Labeller
from .errors import InvalidRequestError, SourceUnavailableError
from .executors import LoadsDocuments, LoadWork, component_recipe, screened
from .fingerprints import loader_key, state_hash
from .reads import Reuse, stamps
from .types import Document, content_hash

log = logging.getLogger("ragloom")

if TYPE_CHECKING:
    from .components import Loader
    from .config import PipelineConfig
    from .ledger import LedgerEntry
    from .runs import Run
    from .secrets import Secret

__all__ = ["Admission", "Loaded", "in_scope_of", "load_here", "load_on", "scoped_loaders"]

LoaderItem = tuple[str, str, "Loader"]
"""A loader of the run: (its key in the ledger, its type name, the loader)."""


@dataclass(frozen=True)
class Admission:
    """What every loaded document goes through before the diff, wherever it was
    loaded: secrets screened (``indexing.secrets``: redacted, or the document
    left out), email addresses and phone numbers redacted
    (``indexing.personal_data: redact``), then the access labels applied. It
    pickles, so an executor that loads on its workers runs it there
    (``LoadWork.admit``)."""

    policy: str
    labeller: Labeller
    personal_data: str = "keep"

    def __call__(
        self, doc: Document, configured: object, report: Callable[[str, str], None]
    ) -> Document | None:
        if self.policy != "allow":
            screened = _screen_secrets(doc, self.policy, report)
            if screened is None:
                return None
            doc = screened
        if self.personal_data == "redact":
            doc = _redact_personal_data(doc, report)
        return self.labeller.label(doc, configured)


def _screen_secrets(
    doc: Document, policy: str, report: Callable[[str, str], None]
) -> Document | None:
    """``doc`` with its secrets redacted (``redact``), or None when it holds
    some and ``indexing.secrets`` is ``skip``; either way reported. Its
    metadata is screened too: front matter and an HTML title go to every
    hit's ``metadata``."""
    from .secrets import find_secrets, redact

    found = find_secrets(doc.text)
    fields: dict[str, list[Secret]] = {}
    metadata = _screened(doc.metadata, "", "", fields)
    if not found and not fields:
        return doc
    every = [*found, *(s for hits in fields.values() for s in hits)]
    kinds = ", ".join(sorted({s.kind for s in every}))
    where = []
    record = doc.metadata.get("record_id")
    if found and record is not None:
        # a record of a .jsonl or .csv: its line in the file, not in its text
        at = next((f"{k} {doc.metadata[k]}" for k in ("line", "row") if k in doc.metadata), "")
        where.append(f"record {record}" + (f", {at} of the file" if at else ""))
    elif found:
        where.append("line " + ", ".join(str(n) for n in sorted({s.line for s in found})[:5]))
    if fields:
        where.append("metadata " + ", ".join(sorted(fields)[:5]))
    said = f"{kinds}; {'; '.join(where)}"
    # a secret in the file's name is not said again in the report (CI keeps its logs)
    shown = str(metadata.get("source", doc.source)) if "source" in fields else doc.source
    if policy == "skip":
        report(
            shown,
            f"holds {len(every)} secret(s) ({said}): left out of the "
            "index; remove them, or set `indexing.secrets: redact`",
        )
        return None
    text = redact(doc.text, found) if found else doc.text
    report(shown, f"{len(every)} secret(s) redacted ({said})")
    metadata = {**metadata, "content_hash": content_hash(text)}
    return replace(doc, id=_redacted_id(doc.id), text=text, metadata=metadata)


def _redact_personal_data(doc: Document, report: Callable[[str, str], None]) -> Document:
    """``doc`` with the email addresses and phone numbers in its text and in
    its metadata's strings redacted (``indexing.personal_data: redact``), and
    how many reported; its id, ``source`` and ``path`` (the file's name) are
    left as they are."""
    from .personal import find_personal_data
    from .secrets import redact

    found = find_personal_data(doc.text)
    counts = {kind: sum(s.kind == kind for s in found) for kind in ("email", "phone")}

    def screened(value: Any) -> Any:
        if isinstance(value, str):
            hits = find_personal_data(value)
            for hit in hits:
                counts[hit.kind] += 1
            return redact(value, hits) if hits else value
        if isinstance(value, Mapping):
            return {k: screened(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            items = [screened(v) for v in value]
            return items if isinstance(value, list) else tuple(items)
        return value

    metadata = {
        key: value if key in ("source", "path") else screened(value)
        for key, value in doc.metadata.items()
    }
    if not any(counts.values()):
        return doc
    names = {"email": "email address(es)", "phone": "phone number(s)"}
    said = ", ".join(f"{n} {names[kind]}" for kind, n in counts.items() if n)
    # (its source as the secrets screening left it: a secret in a file's name stays hidden)
    shown = str(doc.metadata.get("source", doc.source))
    report(shown, f"{said} redacted (`indexing.personal_data: redact`)")
    text = redact(doc.text, found) if found else doc.text
    metadata["content_hash"] = content_hash(text)
    return replace(doc, text=text, metadata=metadata)


def _redacted_id(doc_id: str) -> str:
    """A document id (a file's path) with the secrets in it redacted, as its
    ``source`` is, each with a digest of what it hid: ids must stay unique
    (two files named after two keys) and the same from run to run, and they
    go to every caller (``document_id``, chunk ids, citations)."""
    from .secrets import redact

    hits = _secrets_in(doc_id, "path")  # read as a config writes it, as the metadata is
    return redact(doc_id, hits, digest=True) if hits else doc_id


def _secrets_in(value: str, key: str) -> list[Secret]:
    """The secrets in ``value``, read after its field's name as a config file
    writes it (``secret_access_key = ...`` names what the bare value does
    not say), as spans into ``value``."""
    from .secrets import find_secrets

    said = f"{key} = "
    return [
        replace(s, start=s.start - len(said), end=s.end - len(said))
        for s in find_secrets(said + value)
        if s.start >= len(said)
    ]


def _screened(value: Any, key: str, name: str, fields: dict[str, list[Secret]]) -> Any:
    """``value`` (metadata, or a part of it) with the secrets in its strings
    redacted, each string read after its field's name, as a config file writes
    it (``secret_access_key: ...`` names what the bare value does not say);
    each field that held any into ``fields`` (``a.b``, ``a[0]``)."""
    from .secrets import redact

    if isinstance(value, str):
        hits = _secrets_in(value, key)
        if not hits:
            return value
        fields[name] = hits
        return redact(value, hits)
    if isinstance(value, Mapping):
        prefix = f"{name}." if name else ""
        return {k: _screened(v, str(k), f"{prefix}{k}", fields) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [_screened(v, key, f"{name}[{i}]", fields) for i, v in enumerate(value)]
        return items if isinstance(value, list) else tuple(items)
    return value


@dataclass
class Loaded:
    """The documents one run loaded, first of each id only."""

    documents: list[Document] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    failed: dict[str, str] = field(default_factory=dict)
    """Loader key -> message, for each loader whose whole source was unavailable."""
    ran: set[str] = field(default_factory=set)
    """The keys of the loaders that loaded their whole source."""
    loader_of: dict[str, str] = field(default_factory=dict)
    """Document id -> the key of the loader that loaded it."""
    states: dict[str, str] = field(default_factory=dict)
    """Document id -> state hash, where the loading executor computed it."""
    reads: list[Reuse] = field(default_factory=list)
    """The files read this run with a stamp to trust, as the ledger records
    them once the run commits (``ragloom.reads``)."""
    unread: int = 0
    """Documents taken as indexed without reading their files."""

    def add(self, doc: Document, loader: str, run: Run) -> bool:
        """Keep ``doc`` unless a document with its id came first (reported)."""
        if doc.id in self.seen:
            run.report(doc.source, f"two documents have the id {doc.id!r}; kept the first")
            return False
        self.seen.add(doc.id)
        self.loader_of[doc.id] = loader
        self.documents.append(doc)
        return True

    def keeps(self, entry: LedgerEntry, kept: Iterable[str]) -> bool:
        """Whether an indexed document that was not loaded stays in the index:
        its loader's source was unavailable, or its file or folder could not be
        read (``kept``: the run's ``Run.kept``)."""
        if self.failed and entry.loader not in self.ran:
            # a loader failed, and no loader that ran is known to have loaded
            # this document: the failed one may have (its key differs when its
            # options were edited since the document was added), so it stays
            # until a run in which every loader loads its source
            return True
        for source in kept:
            folder = source.rstrip("/") + "/"
            if entry.id == source or entry.source == source or entry.source.startswith(folder):
                return True
        return False


def scoped_loaders(
    config: PipelineConfig, loaders: Sequence[Loader], sources: Sequence[str | Path] | None
) -> tuple[list[Path] | None, list[LoaderItem]]:
    """The loaders of this run as (key, name, loader), restricted to
    ``sources`` when given, and the scope deletions are limited to."""
    items = [(loader_key(s), s.type, ld) for s, ld in zip(config.loaders, loaders)]
    if sources is None:
        return None, items
    scope = [config.base_dir / Path(s) for s in sources]
    restricted = [
        (key, name, ld.with_sources([str(s) for s in sources])) for key, name, ld in items
    ]
    chosen = [(key, name, ld) for key, name, ld in restricted if ld is not None]
    if not chosen:
        from .components import Loader

        unable = [name for _, name, ld in items if type(ld).with_sources is Loader.with_sources]
        why = (
            f" (loader {', '.join(unable)} cannot limit a run to some sources: it does not "
            "implement with_sources(); run `ragloom index` without SOURCES)"
            if unable
            else ""
        )
        raise InvalidRequestError(
            f"none of {', '.join(map(str, sources))} is covered by a configured loader{why}"
        )
    return scope, chosen


def in_scope_of(entry: LedgerEntry, scope: list[Path], base_dir: Path) -> bool:
    """Whether an indexed document lies under one of the run's ``scope`` paths:
    by its path, or by its id as the file loaders write it (a name with
    escapes, ``docs/a\x5cx41.md``, or a redacted secret, names no path)."""
    from types import SimpleNamespace

    from .builtin.loaders._files import source_id

    path = (base_dir / entry.source).resolve()
    where = SimpleNamespace(base_dir=base_dir)
    # a file's document: its id is its source (redacted, with a digest); a
    # record's (jsonl, csv) is the record's own, which names no path
    a_file = entry.id == entry.source or (
        "[REDACTED: " in entry.id and "[REDACTED: " in entry.source
    )
    for root in scope:
        named = source_id(root, where)  # type: ignore[arg-type]
        for written in {named, _redacted_id(named)} if a_file else ():
            if entry.id == written or entry.id.startswith(written.rstrip("/") + "/"):
                return True
        root = root.resolve()
        if path == root or root in path.parents:
            return True
    return False


def load_here(run: Run, loaders: Iterable[LoaderItem], admit: Admission) -> Loaded:
    """Run each loader in this process (a ``load`` stage each) and admit what
    it loads; a loader whose source is unavailable is listed in ``failed``."""
    loaded = Loaded()
    reads = run.reads
    for key, name, loader in loaders:
        docs: list[Any] = []
        if reads is not None:
            reads.begin(key if stamps(loader) else None)

        def load(ld: Loader = loader, into: list[Any] = docs) -> list[Any]:
            into.extend(ld.load())
            return into

        try:
            given = run.stage("load", name, loader, load)
        except SourceUnavailableError as exc:
            loaded.failed[key] = f"loader {name}: {exc}"
            continue
        except Exception as exc:
            # a bug in the loader's plugin, met part way: what it loaded
            # before is not enough to tell deleted documents from unread
            # ones, so it counts as failed and every document it indexed
            # is kept; the other loaders go on
            last = getattr(docs[-1], "id", None) if docs else None
            after = f"after document {last!r}" if last else "before its first document"
            loaded.failed[key] = (
                f"loader {name} ({type(loader).__name__}) failed {after}: {exc!r}, a bug in "
                "its plugin or a file it cannot handle (run with -v for the traceback)"
            )
            log.debug("loader %s failed", name, exc_info=True)
            continue
        loaded.ran.add(key)
        if given is not None and given is not docs:  # a run_stage wrapper's own list
            docs = list(given)
        if reads is not None:
            for row in reads.taken():
                _take_unread(loaded, row, admit, run)
        configured = admit.labeller.configured(loader)
        for loaded_doc in docs:
            doc = screened(loaded_doc, name, run.report, run.keep)
            if doc is None:
                continue
            if doc.id in loaded.seen:
                loaded.add(doc, key, run)  # reported, not kept
                continue
            said = len(run.problems)
            admitted = admit(doc, configured, run.report)
            if admitted is None or not loaded.add(admitted, key, run):
                continue
            stamp = reads.stamps.get((key, doc.id)) if reads is not None else None
            if reads is not None and stamp and admitted.id == doc.id and len(run.problems) == said:
                # nothing redacted, nothing said: what its file gave is recorded
                state = loaded.states[admitted.id] = state_hash(admitted)
                rules = admit.labeller.last
                loaded.reads.append(Reuse(key, doc.id, stamp, admitted.id, state, reads.key, rules))
    return loaded


def _take_unread(loaded: Loaded, row: Reuse, admit: Admission, run: Run) -> None:
    """A document taken as indexed without its file read (``ragloom.reads``):
    a stand-in with its indexed state, the access rules that matched it
    counted as matched again."""
    doc = Document(id=row.doc_id, text="", metadata={"source": row.source})
    if loaded.add(doc, row.loader, run):
        loaded.states[row.doc_id] = row.state
        loaded.unread += 1
        admit.labeller.matched.update(row.rules)


def load_on(
    run: Run,
    executor: LoadsDocuments,
    config: PipelineConfig,
    index_dir: Path,
    admit: Admission,
) -> Loaded:
    """Every configured loader run by ``executor`` on its workers: only light
    stand-ins of the documents (id, source, state hash) reach this process."""
    loaded = Loaded()
    specs = config.loaders
    work = LoadWork(
        loaders=tuple((loader_key(s), s.type, component_recipe(s)) for s in specs),
        index_dir=index_dir,
        base_dir=config.base_dir,
        admit=admit,
    )
    names = {loader_key(s): s.type for s in specs}
    for part in executor.load_documents(work):
        for source, message in part.problems:
            run.report(source, message)
        for source in part.kept:
            run.keep(source)
        if part.error is not None:
            loaded.failed[part.loader] = f"loader {names[part.loader]}: {part.error}"
            continue
        loaded.ran.add(part.loader)
        for doc, state in zip(part.documents, part.states, strict=True):
            if loaded.add(doc, part.loader, run):
                loaded.states[doc.id] = state
    return loaded
