"""The ``layers`` chunker: each document cut several ways at once.

    chunker:
      type: layers
      layers:
        passages: {type: recursive, size: 1000, overlap: 100}
        sentences: {type: sentence, size: 400, overlap_sentences: 1}
    stores:
      - {type: memory, name: passages, filter: {layer: passages}}
      - {type: memory, name: sentences, filter: {layer: sentences}}
      - {type: bm25, name: keywords, scope: document, filter: {layer: passages}}

A question may match a whole passage or one sentence of it; one chunk size
is a compromise between the two. Each layer is any chunker spec (a type
and its options); every layer cuts the whole document, and the chunks of
all layers are embedded and held by every store. A chunk's metadata says
its ``layer`` (replacing a document's own ``layer``, if it has one); a
store's ``filter`` makes it answer with one layer only, and fusion (best
``fuse_by: document``) ranks documents on all the lists.

Chunk indices run on across the layers in the order they are written (the
first layer's chunks first), so every chunk id of a document is unique; a
chunk's ``chunk_index`` metadata and its ``#chunk-N`` label follow. The
layers share the document's offsets: ``text[start:end]`` is still each
chunk's text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic import Field, PrivateAttr, ValidationInfo, field_validator, model_validator

from ...components import Chunker, ComponentConfig, Context
from ...errors import OptionProblems
from ...types import Chunk, Document

if TYPE_CHECKING:
    from ...registry import Registry

__all__ = ["LayersChunker"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


class LayersChunker(Chunker):
    """Several chunkers over the same documents; see the module docs."""

    class Config(ComponentConfig):
        """Options of the ``layers`` chunker.

        ``layers`` maps a layer's name (the ``layer`` metadata value of its
        chunks) to a chunker spec: ``{type: <chunker>, <its options>}``.
        """

        layers: dict[str, dict[str, Any]] = Field(min_length=1)
        _parts: dict[str, tuple[type[Chunker], ComponentConfig]] = PrivateAttr(default_factory=dict)

        @field_validator("layers", mode="before")
        @classmethod
        def _specs(cls, value: Any, info: ValidationInfo) -> Any:
            if not isinstance(value, dict):
                return value  # pydantic reports the type
            registry = _registry(info)
            out: dict[str, Any] = {}
            problems: list[tuple[tuple[str | int, ...], str]] = []
            for name, spec in value.items():  # every layer's problems, not the first one's
                try:
                    out[str(name)] = _layer_spec(registry, name, spec)
                except ValueError as exc:
                    problems.append(((name,), str(exc)))
            if problems:
                raise OptionProblems(problems)
            return out

        @model_validator(mode="after")
        def _resolve(self, info: ValidationInfo) -> LayersChunker.Config:
            """Each layer's chunker class, from the registry the config was
            validated with, and its options as that class's ``Config``."""
            registry = _registry(info)
            for name, spec in self.layers.items():
                cls = registry.get("chunker", spec["type"]).cls
                options = {k: v for k, v in spec.items() if k != "type"}
                self._parts[name] = (cls, cls.Config.model_validate(options))
            return self

    config: Config

    def __init__(self, config: ComponentConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._layers: list[tuple[str, Chunker]] = []
        for name, (cls, options) in self.config._parts.items():
            chunker = cls(options)
            chunker.type_name = self.config.layers[name]["type"]
            self._layers.append((name, chunker))

    def fingerprint(self) -> dict[str, Any]:
        """Type and every layer's options, as a list: the order of the layers
        decides the chunk ids, and a mapping's keys would be sorted away. With
        a ``parent`` layer after the first, its ``parent_id`` naming is in it
        too, so an index made before later layers' ids named their layer is
        written again rather than left with both namings."""
        layers = [[name, spec] for name, spec in self.config.layers.items()]
        out: dict[str, Any] = {"type": self.type_name or type(self).__name__, "layers": layers}
        if any(spec.get("type") == "parent" for _, spec in layers[1:]):
            out["parent_ids"] = "per-layer"
        return out

    @classmethod
    def needs_for(cls, config: ComponentConfig) -> frozenset[str]:
        assert isinstance(config, LayersChunker.Config)
        parts = config._parts.values()
        return cls.needs.union(*(part.needs_for(options) for part, options in parts))

    def open(self, context: Context | None = None) -> None:
        super().open(context)
        for _, chunker in self._layers:
            chunker.open(self.context)

    def close(self) -> None:
        for _, chunker in self._layers:
            chunker.close()

    def split(self, document: Document) -> list[Chunk]:
        out: list[Chunk] = []
        for number, (name, chunker) in enumerate(self._layers):
            for chunk in chunker.split(document):
                out.append(_renumbered(chunk, len(out), name, first=number == 0))
        return out


def _renumbered(chunk: Chunk, index: int, layer: str, *, first: bool) -> Chunk:
    """``chunk`` as the ``index``-th chunk of its document, in ``layer``. A
    ``parent_id`` of any layer but the first is named after its layer too, so
    two ``parent`` layers never give one id to two different parents."""
    metadata = {**chunk.metadata, "layer": layer}
    if not first and "parent_id" in metadata:
        metadata["parent_id"] = f"{metadata['parent_id']}::{layer}"
    label = chunk.label
    if "chunk_index" in metadata:
        old = f"#chunk-{metadata['chunk_index']}"
        if label.endswith(old):
            label = f"{label[: -len(old)]}#chunk-{index}"
        metadata["chunk_index"] = index
    return replace(
        chunk, id=f"{chunk.document_id}::{index}", index=index, label=label, metadata=metadata
    )


def _layer_spec(registry: Registry, name: Any, spec: Any) -> dict[str, Any]:
    """A layer's spec, its options validated by its chunker's ``Config``
    (defaults filled in, so the fingerprint names every option)."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(
            f"layer name {name!r} must be a word (letters, digits, `_` or `-`, starting "
            "with a letter or `_`), "
            "e.g. `passages` or `sentences`: it is the chunks' `layer` metadata value"
        )
    return nested_chunker(registry, f"layer {name!r}", spec, outer="layers", role="a layer")[2]


def nested_chunker(
    registry: Registry, where: str, spec: Any, *, outer: str, role: str
) -> tuple[type[Chunker], ComponentConfig, dict[str, Any]]:
    """A chunker spec inside another chunker's options (a layer, a route):
    its class, its options validated by that class's ``Config``, and the
    spec with every default filled in, so that a fingerprint names every
    option. Errors start with ``where``; ``outer`` (the enclosing type) may
    not nest in itself, as ``role``."""
    from pydantic import ValidationError

    from ...errors import UnknownComponentError

    if not isinstance(spec, dict) or not isinstance(spec.get("type"), str):
        raise ValueError(
            f"{where} must be a chunker spec with a `type`, e.g. `{{type: sentence, size: 400}}`"
        )
    if spec["type"] == outer:
        raise ValueError(f"{where}: a `{outer}` chunker cannot be {role} of another")
    try:
        entry = registry.get("chunker", spec["type"])
    except UnknownComponentError:
        message, hint = registry.unknown_parts("chunker", spec["type"])
        raise ValueError(f"{where}: {message}" + (f" ({hint})" if hint else "")) from None
    options = {k: v for k, v in spec.items() if k != "type"}
    try:
        config = entry.cls.Config.model_validate(options, context={"registry": registry})
    except ValidationError as exc:
        known = list(entry.cls.Config.model_fields)
        problems = "; ".join(_problem(err, known) for err in exc.errors())
        raise ValueError(f"{where} ({spec['type']}): {problems}") from None
    return entry.cls, config, {"type": spec["type"], **config.model_dump(mode="json")}


def _problem(err: Any, known: Sequence[str] = ()) -> str:
    """One pydantic error of a nested chunker's options, as ``option: what is
    wrong``; an unknown option with the closest of ``known``."""
    message = str(err["msg"]).removeprefix("Value error, ")
    where = ".".join(str(p) for p in err["loc"])
    if err.get("type") == "extra_forbidden" and err["loc"]:
        import difflib

        close = difflib.get_close_matches(str(err["loc"][-1]), known, n=1)
        message = "unknown option" + (f" (did you mean `{close[0]}`?)" if close else "")
        if known and not close:
            message += f"; it takes {', '.join(known)}"
    return f"{where}: {message}" if where else message


def _registry(info: ValidationInfo) -> Registry:
    """The registry the config is validated against (``validate_config`` passes
    its own), else the process-wide one."""
    registry = (info.context or {}).get("registry")
    if registry is None:
        from ...plugins import get_registry

        registry = get_registry()
    return registry
