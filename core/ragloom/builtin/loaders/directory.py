"""The ``directory`` loader: every matching file under a folder, one document each.

    loader:
      - type: directory
        path: docs
        include: ["**/*.md", "**/*.pdf"]
        exclude: ["drafts", "**/*.tmp.md"]

Files are read by :func:`~ragloom.builtin.loaders._read.read_document`, the
same code the ``file``, ``markdown``, ``html``, ``pdf`` and ``code`` loaders
use, so ids and metadata agree between them; each file is read by its format
(:func:`~ragloom.builtin.loaders._read.file_format`: by extension, else by its
first bytes).
"""

from __future__ import annotations

import copy
import errno
import logging
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from pydantic import Field, field_validator

from ...components import Loader
from ...errors import LoaderError, SourceUnavailableError
from ...globs import PatternUse, compile_glob
from ...globs import check_pattern as _check_pattern
from ...types import Document
from .._languages import LANGUAGES
from ._denied import DENIED_DIRECTORIES, DENIED_FILES, SYSTEM_FOLDERS, denied
from ._files import (
    HTML_EXTENSIONS,
    MARKDOWN_EXTENSIONS,
    PPTX_EXTENSIONS,
    RST_EXTENSIONS,
    TABLE_EXTENSIONS,
    TEXT_EXTENSIONS,
    XLSX_EXTENSIONS,
    TextFileOptions,
    absolute,
    is_within,
    path_text,
    source_id,
)
from ._generated import GENERATED_SUFFIXES, generated_output
from ._read import read_document

__all__ = [
    "DEFAULT_INCLUDE",
    "DENIED_DIRECTORIES",
    "DENIED_FILES",
    "RECORD_EXTENSIONS",
    "TOOL_CONFIG_FILES",
    "DirectoryLoader",
    "compile_glob",
]

log = logging.getLogger(__name__)

RECORD_EXTENSIONS = (".jsonl", ".jsonl.gz")
"""Files of records, which the ``jsonl`` loader reads one document a record:
left out by an ``include``, they are named in a note that says so."""

TOOL_CONFIG_FILES = frozenset(
    {
        "angular.json", "app.json", "babel.config.json", "biome.json", "bower.json",
        "composer.json", "cspell.json", "deno.json", "firebase.json", "jsconfig.json",
        "lerna.json", "manifest.json", "nx.json", "package-lock.json", "package.json",
        "pyrightconfig.json", "renovate.json", "turbo.json", "vercel.json",
        "mkdocs.yml", "mkdocs.yaml", "docker-compose.yml", "docker-compose.yaml",
        "compose.yml", "compose.yaml", "codecov.yml", "environment.yml", "pnpm-lock.yaml",
        "pnpm-workspace.yaml", "readthedocs.yml", "readthedocs.yaml", "ragloom.yaml",
        "ragloom.yml", "ragloom.toml", "pyproject.toml", "cargo.toml", "netlify.toml",
        "poetry.lock", "uv.lock", "pubspec.yaml", "action.yml", "action.yaml",
    }
)  # fmt: skip
"""The names of a tree's tool configs (a JavaScript project's
``package.json``, ``tsconfig.json`` and ``tsconfig.*.json`` too): not named
in the note on readable files an ``include`` leaves out, nor is a file in a
dot-folder (``.vscode/settings.json``) or a dotfile (``.eslintrc.json``)."""

DEFAULT_INCLUDE = tuple(
    f"**/*{extension}"
    for extension in (
        *sorted(MARKDOWN_EXTENSIONS),
        *sorted(TEXT_EXTENSIONS),
        *sorted(RST_EXTENSIONS),
        *sorted(HTML_EXTENSIONS),
        ".pdf",
        ".docx",
        *sorted(PPTX_EXTENSIONS),
        ".epub",
        ".eml",
        ".ipynb",
        *LANGUAGES,
    )
)
"""Every extension a format is known for: Markdown, plain text,
reStructuredText, HTML, PDF, Word, PowerPoint, EPUB, e-mail, notebooks and
source code; not tables (``.csv``, ``.tsv``, ``.xlsx``), which an ``include`` must
name."""


class DirectoryLoader(Loader):
    """Loads every file under ``path`` that ``include`` selects, one document each,
    read by its format (Markdown, HTML, PDF, source code, reStructuredText or plain text).

    Options:

    - ``path``: the root folder (relative paths resolve against ``context.base_dir``).
    - ``include`` / ``exclude``: glob patterns matched against the path relative
      to the root, with forward slashes, case-sensitively. ``*`` and ``?`` stay
      within one path segment, ``[abc]`` is a character class, and a ``**``
      segment matches zero or more folders, so ``**/*.md`` matches ``a.md`` as
      well as ``x/y/a.md``. A file is loaded when some ``include`` pattern matches
      it and no ``exclude`` pattern matches it *or one of its folders*, so
      ``exclude: [drafts]`` drops the whole ``drafts/`` folder. After a whole
      walk, an ``exclude`` pattern that matched nothing is reported, and so is
      an ``include`` pattern whose ``**/`` version would have matched
      (:class:`~ragloom.globs.PatternUse`).
    - ``max_file_size``: bigger files (bytes) are reported and skipped.
    - ``follow_symlinks``: when False (the default) symlinked files and folders
      are skipped; when True they are followed (loops are detected) and keep
      the link's path as their id. A link to a folder the walk reaches by its
      own path (``docs/again -> real``) adds nothing: that folder's documents
      keep their real path's ids, whichever name sorts first. A link is
      judged by its target's real path too: ``docs/repo -> ../.git``, a link
      into ``~/.ssh`` or to ``~/.aws/credentials``, or into the index
      directory is skipped like its target.
    - ``encoding``, ``metadata``: as for the ``file`` loader (``encoding: auto``
      by default: UTF-8, else a confident guess, else the file is reported).

    Files named in :data:`DENIED_FILES` and anything inside a folder named in
    :data:`DENIED_DIRECTORIES` (and the index directory) are always skipped,
    silently but for a debug log: they are not errors. A folder below the root
    that a documentation tool built (a MkDocs, Sphinx, Jekyll, Hugo or
    Docusaurus site, known by the files in or beside it:
    :func:`~ragloom.builtin.loaders._generated.generated_output`) is skipped
    with one report line each, saying how to index it; minified bundles and
    source maps (:data:`~ragloom.builtin.loaders._generated.GENERATED_SUFFIXES`)
    are skipped unless an ``include`` pattern ends in their suffix
    (``**/*.min.js``). Binary, undecodable,
    oversized and empty files are reported through ``context.report`` and
    skipped; files and folders that exist but cannot be read right now are
    reported through ``context.report_unreadable``, so the index keeps what it
    holds of them. ``load()`` never raises for a bad file; it raises
    :class:`~ragloom.errors.SourceUnavailableError` when the root itself is
    missing, not a folder, or cannot be listed (an unmounted share): the index
    then keeps every document this loader indexed before.

    The tree is walked in sorted order, at any depth: a folder nested past
    what the system lets a path name (``PATH_MAX``) is reported through
    ``context.report_unreadable``, and the rest is loaded. Ids (and
    ``source``) are paths relative to ``context.base_dir``, stable across
    runs; ``relative_path`` in the metadata is relative to the loader's root.
    """

    stamps = True  # files unchanged since they were indexed are not read (ragloom.reads)

    class Config(TextFileOptions):
        path: str
        include: list[str] = list(DEFAULT_INCLUDE)
        exclude: list[str] = []
        max_file_size: int = Field(default=10_000_000, gt=0)
        follow_symlinks: bool = False

        @field_validator("include")
        @classmethod
        def _some_include(cls, value: list[str]) -> list[str]:
            if not value:
                raise ValueError(
                    "include is empty, so nothing would be loaded; list at least "
                    "one pattern such as '**/*.md'"
                )
            return [_valid_pattern(p) for p in value]

        @field_validator("exclude")
        @classmethod
        def _valid_exclude(cls, value: list[str]) -> list[str]:
            return [_valid_pattern(p) for p in value]

    config: Config

    def __init__(self, config: Config | None = None, **options: object) -> None:
        super().__init__(config, **options)
        self._include = _any_of(self.config.include)
        self._exclude = _any_of(self.config.exclude)
        # minified bundles and source maps load only when a pattern names their suffix
        self._include_built = _any_of(
            [p for p in self.config.include if p.lower().endswith(GENERATED_SUFFIXES)]
        )
        self._sources: tuple[Path, ...] | None = None
        # files a narrowed ``include`` leaves out that ragloom reads: what the
        # default loads, and tables (.csv, .tsv, .xlsx: a price list left out
        # of `ragloom init`'s include, with nothing said); and .json, .yaml
        # and .toml files, read as plain text, where the user wrote the `include` (the
        # default's leaves a tree's package.json and tsconfig.json out unsaid)
        self._readable = _any_of(
            [
                *DEFAULT_INCLUDE,
                *(f"**/*{e}" for e in sorted(TABLE_EXTENSIONS | XLSX_EXTENSIONS)),
                *(
                    ["**/*.json", "**/*.yaml", "**/*.yml", "**/*.toml"]
                    if "include" in self.config.model_fields_set
                    else []
                ),
            ]
        )
        # files of records (.jsonl) it leaves out: read whole as plain text,
        # JSON and all, they are the `jsonl` loader's, one document a record
        self._records = _any_of([f"**/*{e}" for e in RECORD_EXTENSIONS])
        self._left_out: list[str] = []
        self._left_records: list[Path] = []
        self._use: tuple[PatternUse, PatternUse] | None = None  # include, exclude

    # -- loading -----------------------------------------------------------

    def load(self) -> Iterator[Document]:
        root = self._root()
        where = source_id(root, self.context)
        if not root.is_dir():
            if root.exists():
                raise SourceUnavailableError(
                    f"{where} is a file, not a directory; use `type: file` to load one file"
                )
            if root.is_symlink():
                raise SourceUnavailableError(
                    f"{where} is a symbolic link that leads to no directory (its target is "
                    f"gone or unmounted, or the link loops: {os.readlink(root)}); fix the link "
                    "or `path:`"
                )
            raise SourceUnavailableError(
                f"{where}: directory not found (unmounted, renamed or deleted?); check "
                f"`path:` (relative paths resolve against {absolute(self.context.base_dir)})"
            )
        try:
            os.scandir(root).close()
        except OSError as exc:
            raise SourceUnavailableError(
                f"{where}: cannot list the directory: {exc.strerror or exc}; check its permissions"
            ) from None
        self._left_out = []
        self._left_records = []
        # judged on a whole walk only: a scoped run lists too little to say
        self._use = (
            (PatternUse(self.config.include), PatternUse(self.config.exclude))
            if self._sources is None
            else None
        )
        paths = self._walk(root, root) if self._sources is None else self._selected(root)
        # files whose format needs a package that is not installed, by what it says
        missing: dict[str, list[str]] = {}
        for path in paths:
            try:
                document = read_document(
                    path,
                    context=self.context,
                    encoding=self.config.encoding,
                    metadata={
                        **self.config.metadata,
                        "relative_path": path_text(path.relative_to(root).as_posix()),
                    },
                    max_size=self.config.max_file_size,
                )
            except LoaderError as exc:
                source = source_id(path, self.context)
                self.context.keep(source)  # the environment's doing: what is indexed stays
                missing.setdefault(str(exc), []).append(source)
                continue
            if document is not None:
                yield document
        if self._left_out:
            # silently, a user's .py or .sh files were missing from every answer
            kinds = sorted({Path(name).suffix or Path(name).name for name in self._left_out})
            count = len(self._left_out)
            self.context.report(
                where,
                f"{count} file{'s' if count > 1 else ''} that ragloom can read "
                f"({', '.join(kinds[:6])}{', ...' if len(kinds) > 6 else ''}) "
                f"{'are' if count > 1 else 'is'} left out by `include` "
                f"(such as {self._left_out[0]}); add {'their' if count > 1 else 'its'} "
                f"pattern to `include` to index {'them' if count > 1 else 'it'}, or "
                f"`exclude` {'them' if count > 1 else 'it'} to silence this",
            )
        if self._left_records:
            self._say_records(where)
        if self._use is not None:
            # `*.html` matches only at the top and `v1` only a top folder: said, not
            # guessed at; an include's `**/*.pptx` may well find nothing
            include, exclude = self._use
            unused = [
                *include.unused("include", only_misplaced=True),
                *exclude.unused("exclude", only_misplaced=True, literals=True),
            ]
            for line in unused:
                self.context.report(where, line)
        for reason, sources in missing.items():
            # one line a package: the cause is the environment, not the files
            count = f"{len(sources)} files" if len(sources) > 1 else "1 file"
            self.context.report(
                source_id(root, self.context),
                f"skipped {count} ({sources[0]}{', ...' if len(sources) > 1 else ''}; "
                f"indexed versions kept): {reason}",
            )

    def _say_records(self, where: str) -> None:
        """One note for the files of records ``include`` leaves out, naming
        the loader that reads them (an ``include`` pattern would index each
        as one plain-text document, its JSON lines quoted as they are). With
        no ``include`` set, it names the default's, not one the user never
        wrote (an eval set kept beside the docs)."""
        count = len(self._left_records)
        kinds = sorted(
            {e for p in self._left_records for e in RECORD_EXTENSIONS if p.name.endswith(e)}
        )
        first = self._left_records[0]
        relative = path_text(first.relative_to(self._root()).as_posix())
        left = (
            f"left out by `include` (such as {relative})"
            if "include" in self.config.model_fields_set
            else f"left out (such as {relative}): the directory loader's default include "
            "reads no .jsonl"
        )
        self.context.report(
            where,
            f"{count} file{'s' if count > 1 else ''} of records ({', '.join(kinds)}) "
            f"{'are' if count > 1 else 'is'} {left}; a "
            f"`jsonl` loader reads {'each' if count > 1 else 'it'} as one document per record "
            f"(`type: jsonl`, `path: {source_id(first, self.context)}` and the fields that "
            "hold the text in "
            f"`text_fields`), or `exclude` {'them' if count > 1 else 'it'} to silence this",
        )

    def with_sources(self, sources: Sequence[str]) -> DirectoryLoader | None:
        """A copy of this loader that loads only ``sources``: files, and files
        under folders, that lie under this loader's root and pass its filters.
        This loader itself when a source is the root or a folder above it; None
        when no source lies under the root (or every file source is filtered out).
        Sources are paths relative to ``context.base_dir`` or absolute."""
        root = self._root()
        picked: list[Path] = []
        for source in sources:
            path = absolute(self.context.resolve(source))
            if is_within(root, path):
                return self
            if not is_within(path, root):
                continue
            if self.config.follow_symlinks:
                path = self._unaliased(path, root)
            parts = path.relative_to(root).parts
            if self._passes(path, parts):
                picked.append(path)
        if not picked:
            return None
        clone = copy.copy(self)
        clone._sources = tuple(dict.fromkeys(picked))
        return clone

    # -- walking -----------------------------------------------------------

    def _root(self) -> Path:
        return absolute(self.context.resolve(self.config.path))

    def _walk(self, top: Path, root: Path) -> Iterator[Path]:
        """Files under ``top`` that pass every filter, in sorted order: a
        folder's entries by name, each folder walked where its name sorts.

        The walk keeps a stack of the folders it is in, each with the entries
        left to see, instead of recursing: a tree nested thousands of folders
        deep (a runaway build tool, a backup copied into itself) neither hits
        Python's recursion limit nor costs each file a step per folder above
        it. A folder's real path, which catches symlink loops, is its parent's
        plus its name unless it is a link, so it costs no ``lstat`` per folder
        above it either."""
        follow = self.config.follow_symlinks
        index_dir = absolute(self.context.resolve(self.context.index_dir))
        visited: set[str] = set()
        top_parts = top.relative_to(root).parts
        # a folder being walked: its path, parts (from the root), real path, entries left
        stack: list[tuple[Path, tuple[str, ...], str, Iterator[os.DirEntry[str]]]] = []
        real_top = os.path.realpath(top)
        if (entries := self._listing(top, root, real_top, visited)) is not None:
            stack.append((top, top_parts, real_top, entries))
        while stack:
            directory, above, real_directory, entries = stack[-1]
            entry = next(entries, None)
            if entry is None:
                stack.pop()
                continue
            path = directory / entry.name
            parts = (*above, entry.name)
            try:
                link = entry.is_symlink()
                if link and not follow:
                    log.debug("skipping %s: a symlink (set follow_symlinks: true to load it)", path)
                    continue
                is_dir = entry.is_dir()
                is_file = not is_dir and entry.is_file()
            except OSError as exc:
                self.context.report(
                    source_id(path, self.context), f"cannot read: {exc.strerror or exc}"
                )
                continue
            if self._use is not None:
                relative = "/".join(parts)
                if is_file:
                    self._use[0].see(relative)
                self._use[1].see(relative, folder=is_dir)
            # the folders above passed the filters on the way down: only the last step is new
            known = len(above)
            if is_dir:
                if path == index_dir or self._skip_reason(parts, is_dir=True, known=known):
                    continue
                if link and self._target_skip_reason(path, root, is_dir=True):
                    continue
                real = (
                    os.path.join(real_directory, entry.name)
                    # on Windows realpath resolves a junction, which is_symlink() is not
                    if not link and os.name == "posix"
                    else os.path.realpath(path)
                )
                if real in visited:
                    log.debug("skipping %s: symlink loop back to %s", path, real)
                    continue
                if link and self._walked_directly(real, root):
                    # an alias (``docs/again -> real``) adds nothing: its folder
                    # keeps its own path's ids, whichever name sorts first
                    log.debug("skipping %s: a link to %s, walked by its own path", path, real)
                    continue
                if (listed := self._listing(path, root, real, visited)) is not None:
                    stack.append((path, parts, real, listed))
            elif is_file:
                if reason := self._skip_reason(parts, is_dir=False, known=known):
                    if reason == "not included":
                        self._note_left_out(path, "/".join(parts))
                    continue
                if link and self._target_skip_reason(path, root, is_dir=False):
                    continue
                yield path
            elif link and not path.exists():
                self.context.report(
                    source_id(path, self.context), "broken symlink (its target is missing)"
                )
            elif not self._skip_reason(parts, is_dir=False, known=known):
                # a FIFO, socket or device its patterns take: said, as the file loader does
                self.context.report(
                    source_id(path, self.context),
                    "not a regular file (a device, socket or pipe); skipped",
                )

    def _listing(
        self, directory: Path, root: Path, real: str, visited: set[str]
    ) -> Iterator[os.DirEntry[str]] | None:
        """The entries of ``directory`` (whose real path ``real`` joins
        ``visited``) sorted by name, for the walk to go through; None, with a
        note, when it cannot be listed or a documentation tool built it."""
        visited.add(real)
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:  # what it held stays indexed until it can be read again
            fix = (
                # nested past what the system lets a path name (PATH_MAX): a tree a
                # build tool or a backup loop nested thousands of folders deep
                "its path is longer than the system allows; move it nearer the root or `exclude` it"
                if exc.errno == errno.ENAMETOOLONG
                else "check its permissions"
            )
            self.context.report_unreadable(
                source_id(directory, self.context),
                f"cannot list directory: {exc.strerror or exc}; {fix} (the documents indexed "
                "from it are kept)",
            )
            return None
        if directory != root and (built := generated_output(directory, [e.name for e in entries])):
            # the root is what the user pointed at: a built site they asked for
            self.context.report(
                source_id(directory, self.context),
                f"skipped: generated documentation output ({built}), a copy of pages "
                "that may be stale; point a loader's `path` at it to index it, or "
                "`exclude` it to silence this",
            )
            return None
        return iter(entries)

    def _selected(self, root: Path) -> Iterator[Path]:
        """Files named by ``with_sources``, deduplicated, in walk order."""
        found: dict[Path, None] = {}
        index_dir = absolute(self.context.resolve(self.context.index_dir))
        for source in self._sources or ():
            if not self._reachable(source, root, index_dir) or self._built_above(source, root):
                continue
            parts = source.relative_to(root).parts
            is_dir = source.is_dir()
            if not self._passes(source, parts):
                continue
            if self.config.follow_symlinks and self._target_skip_reason(
                source, root, is_dir=is_dir
            ):
                continue  # reached through a link to something denied
            if is_dir:
                found.update(dict.fromkeys(self._walk(source, root)))
            elif source.is_file() or source.is_symlink():
                found[source] = None
            else:  # gone: what was indexed from it is deleted (the run's scope is it)
                self.context.report(source_id(source, self.context), "not found; skipped")
        yield from sorted(found, key=lambda p: p.relative_to(root).parts)

    def _passes(self, path: Path, parts: tuple[str, ...]) -> bool:
        """Whether the filters let ``path`` through. A path that is gone may
        have been a file or a folder (``ragloom index docs/old`` after
        ``rm -r docs/old``): either that would pass does."""
        if path.exists() or path.is_symlink():
            return self._skip_reason(parts, is_dir=path.is_dir()) is None
        return any(self._skip_reason(parts, is_dir=d) is None for d in (True, False))

    def _reachable(self, path: Path, root: Path, index_dir: Path) -> bool:
        """Whether a walk from ``root`` could reach ``path``: it is not in the
        index directory and, unless symlinks are followed, no step on the way
        (``path`` included) is a symlink. Names are judged by ``_skip_reason``."""
        if is_within(path, index_dir):
            return False
        if self.config.follow_symlinks:
            return True
        parts = path.relative_to(root).parts
        for i in range(1, len(parts) + 1):
            step = root.joinpath(*parts[:i])
            if step.is_symlink():
                log.debug("skipping %s: through a symlink %s", path, step)
                return False
        return True

    def _walked_directly(self, real: str, root: Path) -> bool:
        """Whether the folder whose real path is ``real`` lies inside the
        root's real path and a walk from the root reaches it by its own path:
        no step on the way is a link, the index directory or a folder the
        filters drop. A link to such a folder adds nothing; one to a folder
        outside the tree, or to one the filters leave out, is followed."""
        real_root = os.path.realpath(root)
        if not is_within(Path(real), Path(real_root)):
            return False
        parts = Path(real).relative_to(real_root).parts
        index_dir = absolute(self.context.resolve(self.context.index_dir))
        for i in range(1, len(parts) + 1):
            step = root.joinpath(*parts[:i])
            if step.is_symlink() or step == index_dir or not step.is_dir():
                return False
            if self._skip_reason(parts[:i], is_dir=True, known=i - 1) is not None:
                return False
        return True

    def _unaliased(self, path: Path, root: Path) -> Path:
        """``path`` by the way a walk from ``root`` reaches it: a folder on the
        way that is a link to a folder walked by its own path is replaced by
        that path, so ``ragloom index docs/again`` (``again -> real``) runs
        on ``docs/real``, as a whole walk would."""
        for _ in range(40):  # as many links as the system follows in one path
            parts = path.relative_to(root).parts
            for i in range(1, len(parts) + 1):
                step = root.joinpath(*parts[:i])
                if not (step.is_symlink() and step.is_dir()):
                    continue
                real = os.path.realpath(step)
                if self._walked_directly(real, root):
                    direct = Path(real).relative_to(os.path.realpath(root)).parts
                    path = root.joinpath(*direct, *parts[i:])
                    break
            else:
                return path
        return path

    def _built_above(self, path: Path, root: Path) -> bool:
        """Whether a folder between ``root`` and ``path`` is generated output,
        which a walk from ``root`` skips (``path`` itself, a folder, is judged
        when it is walked)."""
        parts = path.relative_to(root).parts
        for i in range(1, len(parts)):
            folder = root.joinpath(*parts[:i])
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            if generated_output(folder, names):
                return True
        return False

    def _note_left_out(self, path: Path, relative: str) -> None:
        """Keep, for the run's notes, a file ``include`` leaves out that
        ragloom reads (``relative`` to the root), unless another loader of
        the config reads it, or it is a tool's (:func:`_tool_file`)."""
        readable = self._readable is not None and self._readable.fullmatch(relative)
        records = self._records is not None and self._records.fullmatch(relative)
        if not (readable or records) or self._read_elsewhere(path):
            return
        if readable:
            if _tool_file(relative):
                return
            self._left_out.append(relative)
        else:
            self._left_records.append(path)

    def _read_elsewhere(self, path: Path) -> bool:
        """Whether another loader of the config reads the file ``path`` itself
        (its ``path:``: a csv or jsonl loader's file)."""
        here = Path(path).absolute()
        return here in self.context.services.get("loader_paths", ())

    def _skip_reason(self, parts: tuple[str, ...], *, is_dir: bool, known: int = 0) -> str | None:
        """Why a path (given relative to the root) is not loaded, judged by name
        alone; None when it is. Denylisted paths are logged at debug level.
        ``known``: how many of the first ``parts`` name folders that passed
        already (the walk's way down), which ``exclude`` need not match again."""
        reason = denied(parts, is_dir=is_dir)
        if reason is not None:
            log.debug("skipping %s: %s", "/".join(parts), reason)
            return reason
        if self._exclude is not None:
            for i in range(known + 1, len(parts) + 1):
                if self._exclude.fullmatch("/".join(parts[:i])):
                    return "excluded"
        if (
            not is_dir
            and parts
            and parts[-1].lower().endswith(GENERATED_SUFFIXES)
            and not (self._include_built and self._include_built.fullmatch("/".join(parts)))
        ):
            log.debug("skipping %s: minified or a source map (generated)", "/".join(parts))
            return "generated"
        if not is_dir and not (self._include and self._include.fullmatch("/".join(parts))):
            return "not included"
        return None

    def _target_skip_reason(self, path: Path, root: Path, *, is_dir: bool) -> str | None:
        """Why what ``path`` leads to through symlinks is not loaded, though its
        own name passes: its real path lies in the index directory, or the
        segments that real path does not share with the root's real path
        (``/home/me/.ssh/id`` for a root ``/home/me/docs``: ``.ssh``, ``id``)
        are denied, so that ``docs/repo -> ~/project/.git`` or
        ``docs/notes.md -> ~/.aws/credentials`` stay out. None when neither."""
        real = Path(os.path.realpath(path))
        real_index = Path(os.path.realpath(self.context.resolve(self.context.index_dir)))
        if is_within(real, real_index):
            log.debug("skipping %s: links into the index directory %s", path, real_index)
            return "links into the index directory"
        real_root = Path(os.path.realpath(root))
        if not is_within(real, real_root):
            system = next((str(f) for f in SYSTEM_FOLDERS if is_within(real, f)), None)
            if system is not None:
                log.debug("skipping %s: links to %s, in %s", path, real, system)
                return f"links to {real}, in the system folder {system} (always skipped)"
        try:
            shared = Path(os.path.commonpath([real, real_root]))
        except ValueError:  # on different drives (Windows)
            shared = Path(real.anchor)
        reason = denied(real.relative_to(shared).parts, is_dir=is_dir)
        if reason is not None:
            log.debug("skipping %s: links to %s, %s", path, real, reason)
            return f"links to {real}, {reason}"
        return None


# -- globs -----------------------------------------------------------------


def _tool_file(relative: str) -> bool:
    """Whether a file (its path relative to the root) is a tool's, not a
    document an ``include`` may have left out: in a dot-folder, a dotfile,
    or one of :data:`TOOL_CONFIG_FILES`."""
    parts = relative.split("/")
    name = parts[-1].lower()
    return (
        any(part.startswith(".") for part in parts)
        or name in TOOL_CONFIG_FILES
        or (name.startswith("tsconfig") and name.endswith(".json"))
    )


def _valid_pattern(pattern: str) -> str:
    """``pattern`` normalised, once it compiles (ValueError, for the config, if not)."""
    compile_glob(pattern)
    return _check_pattern(pattern)


def _any_of(patterns: Sequence[str]) -> re.Pattern[str] | None:
    """One regex that matches what any of the globs matches (None for no globs):
    one match per path instead of one per pattern."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{compile_glob(p).pattern})" for p in patterns), re.DOTALL)
