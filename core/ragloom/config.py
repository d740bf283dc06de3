"""Config files (YAML or TOML, one schema) -> a validated ``PipelineConfig``.

Validation reports every problem at once, each with its path
(``stores[1].collection``), its line where the config came from a file, and
a hint ("did you mean 'collection'?", the package to install, the variable to
set). ``type:`` resolves only against registered names; a config never
imports code. ``${VAR}`` and ``${VAR:-default}`` are read from the
environment; ``$${`` is a literal ``${``. Values that came from the
environment are never written back by ``to_dict()``; ``SecretStr`` options
are redacted in reprs.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from .access import access_filter
from .components import COMPONENT_KINDS, ComponentConfig
from .configfile import (
    Path_,
    empty_placeholder,
    fmt_path,
    interpolate,
    line_of,
    read_config_file,
)
from .errors import (
    ConfigError,
    ConfigIssue,
    ConfigValidationError,
    FilterError,
    OptionProblems,
    UnknownComponentError,
)
from .filters import Condition, Filter, Not, check_supported, to_spec
from .filters import parse as parse_filter
from .generation import ChatGenerator
from .registry import Registry, RegistryEntry, closest
from .settings import AccessSettings, CacheSettings, IndexingSettings, RetrievalSettings

__all__ = [
    "ComponentSpec",
    "PipelineConfig",
    "RetrievalSettings",
    "load_config",
    "validate_config",
]


# ---------------------------------------------------------------------------
# Schema of the file itself (component options are validated per class)
# ---------------------------------------------------------------------------


class _Spec(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str


class _StoreSpec(_Spec):
    name: str | None = None
    weight: float = Field(1.0, ge=0)
    k: int | None = Field(None, gt=0)
    filter: dict[str, Any] | None = None


class _Root(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: Literal[1] = 1
    index_dir: str = ".ragloom"
    loaders: list[_Spec] = Field(default_factory=list)

    @field_validator("index_dir")
    @classmethod
    def _some_folder(cls, value: str) -> str:
        if not value.strip():
            raise ValueError(
                "index_dir is empty (an environment variable set to nothing?): name the "
                "folder of the index, or leave the key out for .ragloom"
            )
        return value

    chunker: _Spec = Field(default_factory=lambda: _Spec(type="recursive"))
    embedder: _Spec | None = None
    stores: list[_StoreSpec] = Field(min_length=1)
    retrieval: RetrievalSettings = Field(default_factory=lambda: RetrievalSettings())
    reranker: _Spec | None = None
    generator: _Spec = Field(default_factory=lambda: _Spec(type="extractive"))
    query_transformers: list[_Spec] = Field(default_factory=list)
    access: AccessSettings | None = None
    cache: CacheSettings = Field(default_factory=lambda: CacheSettings())
    indexing: IndexingSettings = Field(default_factory=lambda: IndexingSettings())
    executor: _Spec | None = None


SECTION_KINDS: dict[str, str] = {k.section: k.name for k in COMPONENT_KINDS}
LIST_SECTIONS = frozenset(k.section for k in COMPONENT_KINDS if k.many)
STORE_KEYS = ("name", "weight", "k", "filter")
QUERY_STORE_KEYS = ("weight", "k", "filter")
"""Store keys that act only at query time (which chunks a store answers with,
how its hits are weighed and cut): a store holds every chunk whatever they say."""


@dataclass(frozen=True)
class ComponentSpec:
    """One configured component: its registry entry and validated options."""

    kind: str
    type: str
    entry: RegistryEntry
    config: ComponentConfig
    loc: Path_
    name: str
    weight: float = 1.0
    k: int | None = None
    filter: Filter | None = None
    """A store's own filter: it answers only with the chunks that match it
    (e.g. ``{layer: sentences}`` under a ``layers`` chunker)."""

    @property
    def path(self) -> str:
        """Where it sits in the config, e.g. ``stores[1]``."""
        return fmt_path(self.loc)

    def create(self) -> Any:
        """A new, unopened instance (cheap), knowing the name it was registered as."""
        component = self.entry.cls(self.config)
        component.type_name = self.type
        return component


@dataclass(frozen=True)
class PipelineConfig:
    """A validated config, ready to build a ``Pipeline``."""

    index_dir: str
    loaders: tuple[ComponentSpec, ...]
    chunker: ComponentSpec
    embedder: ComponentSpec | None
    stores: tuple[ComponentSpec, ...]
    retrieval: RetrievalSettings
    reranker: ComponentSpec | None
    generator: ComponentSpec
    query_transformers: tuple[ComponentSpec, ...]
    access: AccessSettings | None = None
    cache: CacheSettings = field(default_factory=lambda: CacheSettings())
    indexing: IndexingSettings = field(default_factory=lambda: IndexingSettings())
    executor: ComponentSpec | None = None
    """Where index runs chunk and embed; None is the built-in ``inprocess``."""
    base_dir: Path = Path(".")
    source: str | None = None
    env_paths: Mapping[Path_, Any] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The config as a dict that validates to an equal config. Values that
        came from ``${VAR}`` are written as the placeholder; literal secrets
        are redacted."""

        def spec(s: ComponentSpec, extra: dict[str, Any] | None = None) -> dict[str, Any]:
            options = s.config.model_dump(exclude_unset=True)
            out: dict[str, Any] = {"type": s.type, **(extra or {})}
            for key, value in options.items():
                out[key] = _plain(value)
            return out

        data: dict[str, Any] = {"version": 1, "index_dir": self.index_dir}
        if self.loaders:
            data["loaders"] = [spec(s) for s in self.loaders]
        data["chunker"] = spec(self.chunker)
        if self.embedder:
            data["embedder"] = spec(self.embedder)
        stores = []
        for s in self.stores:
            extra: dict[str, Any] = {}
            if s.name != s.type:
                extra["name"] = s.name
            if s.weight != 1.0:
                extra["weight"] = s.weight
            if s.k is not None:
                extra["k"] = s.k
            if s.filter is not None:
                extra["filter"] = to_spec(s.filter)
            stores.append(spec(s, extra))
        data["stores"] = stores
        data["retrieval"] = self.retrieval.model_dump(exclude_defaults=True)
        if self.reranker:
            data["reranker"] = spec(self.reranker)
        data["generator"] = spec(self.generator)
        if self.query_transformers:
            data["query_transformers"] = [spec(s) for s in self.query_transformers]
        if self.access is not None:
            data["access"] = self.access.model_dump(exclude_defaults=True)
        cache = self.cache.model_dump(exclude_defaults=True)
        if cache:
            data["cache"] = cache
        indexing = self.indexing.model_dump(exclude_defaults=True)
        if indexing:
            data["indexing"] = indexing
        if self.executor is not None:
            data["executor"] = spec(self.executor)
        for path, raw in self.env_paths.items():
            _set_path(data, path, raw)
        return data


def _plain(value: Any) -> Any:
    if isinstance(value, SecretStr):
        return "**********"
    if isinstance(value, BaseModel):
        return {k: _plain(v) for k, v in value.model_dump().items()}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def _set_path(data: Any, path: Path_, value: Any) -> None:
    target = data
    for part in path[:-1]:
        try:
            target = target[part]
        except (KeyError, IndexError, TypeError):
            return
    last = path[-1]
    if isinstance(target, dict) and last in target:  # noqa: SIM114 (typed apart)
        target[last] = value
    elif isinstance(target, list) and isinstance(last, int) and last < len(target):
        target[last] = value


def load_config(
    source: str | Path | Mapping[str, Any],
    registry: Registry,
    *,
    env: Mapping[str, str] | None = None,
    base_dir: Path | None = None,
) -> PipelineConfig:
    """Read (if a path) and validate a config; raises ``ConfigValidationError``
    listing every issue."""
    lines: dict[Path_, int] = {}
    name: str | None = None
    if isinstance(source, Mapping):
        data = copy.deepcopy(dict(source))
        base = base_dir or Path.cwd()
    else:
        path = Path(source)
        if not path.exists():
            raise ConfigError(f"config file {path} does not exist; create one with `ragloom init`")
        data, lines = read_config_file(path)
        name = str(path)
        base = base_dir or path.resolve().parent
    return validate_config(data, registry, lines=lines, env=env, source=name, base_dir=base)


def _fields_at(model: type[BaseModel], path: Path_) -> list[str]:
    """The keys the settings model at ``path`` under ``model`` takes
    (``("retrieval",)``: RetrievalSettings'); [] where no model is found."""
    import typing

    for key in path:
        if isinstance(key, int):
            continue  # an item of a list: the list's own model
        field = model.model_fields.get(str(key))
        if field is None:
            return []
        found = [
            t
            for t in (field.annotation, *typing.get_args(field.annotation))
            for t in (t, *typing.get_args(t))
            if isinstance(t, type) and issubclass(t, BaseModel)
        ]
        if not found:
            return []
        model = found[0]
    return list(model.model_fields)


def validate_config(
    data: Mapping[str, Any],
    registry: Registry,
    *,
    lines: Mapping[Path_, int] | None = None,
    env: Mapping[str, str] | None = None,
    source: str | None = None,
    base_dir: Path | None = None,
) -> PipelineConfig:
    lines = lines or {}
    env = os.environ if env is None else env
    issues: list[ConfigIssue] = []

    unset: set[Path_] = set()  # paths whose ${VAR} is unset: one error there is enough

    def add(path: Path_, message: str, hint: str | None = None, *, at: Path_ = ()) -> None:
        """A problem at ``path``; ``at`` (below ``path``) is where its line is."""
        if path in unset:
            return
        issues.append(ConfigIssue(fmt_path(path), message, line_of(lines, (*path, *at)), hint))

    def add_unset(path: Path_, message: str, hint: str | None = None) -> None:
        add(path, message, hint)
        unset.add(path)

    env_paths: dict[Path_, Any] = {}
    data = interpolate(dict(data), env, (), add_unset, env_paths)

    root: _Root | None = None
    try:
        root = _Root.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            loc: Path_ = tuple(err["loc"])
            # component options are checked below against the registered class
            if len(loc) >= 2 and loc[0] in SECTION_KINDS and err["type"] == "extra_forbidden":
                continue
            if err["type"] == "extra_forbidden" and len(loc) == 1:
                guess = closest(str(loc[0]), list(_Root.model_fields))
                add(
                    loc,
                    f"unknown top-level key {loc[0]!r}",
                    f"did you mean {guess!r}?"
                    if guess
                    else f"allowed: {', '.join(_Root.model_fields)}",
                )
            elif err["type"] == "extra_forbidden" and (known := _fields_at(_Root, loc[:-1])):
                guess = closest(str(loc[-1]), known)
                add(
                    loc,
                    f"unknown key {loc[-1]!r}",
                    f"did you mean {guess!r}?" if guess else f"allowed: {', '.join(known)}",
                )
            elif err["type"] == "missing" and loc[-1] == "type":
                add(loc, "missing 'type'", _type_hint(registry, str(loc[0])))
            elif (
                err["type"] == "missing"
                and loc == ("stores",)
                or err["type"] == "too_short"
                and loc == ("stores",)
            ):
                add(loc, "at least one store is required", "add e.g. `stores: [{type: bm25}]`")
            else:
                add(loc, *_explained(err, env_paths.get(loc)))

    specs: dict[str, Any] = {}
    for section, kind in SECTION_KINDS.items():
        value = data.get(section)
        if value is None:
            continue
        if section in LIST_SECTIONS:
            if not isinstance(value, list):
                continue  # reported by the schema
            specs[section] = [
                _component(registry, kind, item, (section, i), add, env_paths)
                for i, item in enumerate(value)
            ]
        else:
            specs[section] = _component(registry, kind, value, (section,), add, env_paths)

    if root is not None:
        if "chunker" not in specs:
            specs["chunker"] = _component(
                registry, "chunker", {"type": "recursive"}, ("chunker",), add
            )
        if "generator" not in specs:
            specs["generator"] = _component(
                registry, "generator", {"type": "extractive"}, ("generator",), add
            )
        _cross_check(specs, add)
        _check_filters(root, specs, add)
        _check_feedback(root, specs, add)
    if issues:
        raise ConfigValidationError(issues, source=source)
    assert root is not None
    return PipelineConfig(
        index_dir=root.index_dir,
        loaders=tuple(specs.get("loaders", [])),
        chunker=specs["chunker"],
        embedder=specs.get("embedder"),
        stores=tuple(specs["stores"]),
        retrieval=root.retrieval,
        reranker=specs.get("reranker"),
        generator=specs["generator"],
        query_transformers=tuple(specs.get("query_transformers", [])),
        access=root.access,
        cache=root.cache,
        indexing=root.indexing,
        executor=specs.get("executor"),
        base_dir=base_dir or Path.cwd(),
        source=source,
        env_paths=env_paths,
    )


_FIXES = {
    "int_parsing": "write a whole number, without quotes or units",
    "int_type": "write a whole number, without quotes or units",
    "int_from_float": "write a whole number, without quotes or units",
    "float_parsing": "write a number, such as 0.5",
    "float_type": "write a number, such as 0.5",
    "bool_parsing": "write true or false",
    "bool_type": "write true or false",
    "list_type": "write a list: [a, b] on one line, or one `- item` per line",
    "dict_type": "write a mapping: `key: value` lines, indented under this key",
    "model_type": "write a mapping: `key: value` lines, indented under this key",
    "model_attributes_type": "write a mapping: `key: value` lines, indented under this key",
    "string_type": "write text (in quotes if it would read as a number or true/false)",
}
"""The fix for each kind of type error pydantic reports (its ``type``)."""


def _fix(err: Any) -> str | None:
    return _FIXES.get(str(err.get("type", "")))


def _explained(err: Any, raw: Any) -> tuple[str, str | None]:
    """A pydantic error's message and fix; for a value a ``${VAR}`` left
    empty (``raw`` as written), that the variable is empty."""
    empty = empty_placeholder(raw, err.get("input"))
    if empty is not None and err.get("type") in _FIXES:
        return empty
    return _message(err), _fix(err)


def _message(err: Any) -> str:
    """A pydantic error's message, without the "Value error, " pydantic puts
    before what a validator raised."""
    return str(err["msg"]).removeprefix("Value error, ")


def _type_hint(registry: Registry, section: str) -> str:
    kind = SECTION_KINDS.get(section)
    if kind is None:
        return ""
    names = registry.names(kind)
    return f"available {kind} types: {', '.join(names)}" if names else ""


def _component(
    registry: Registry,
    kind: str,
    raw: Any,
    path: Path_,
    add: Any,
    env_paths: Mapping[Path_, Any] | None = None,
) -> ComponentSpec | None:
    env_paths = env_paths or {}
    if not isinstance(raw, Mapping) or not isinstance(raw.get("type"), str):
        return None  # reported by the schema
    type_name = raw["type"]
    try:
        entry = registry.get(kind, type_name)
    except UnknownComponentError:
        add((*path, "type"), *registry.unknown_parts(kind, type_name))
        return None
    options = {k: v for k, v in raw.items() if k != "type"}
    extra: dict[str, Any] = {}
    if kind == "store":
        extra = {k: options.pop(k) for k in STORE_KEYS if k in options}
    try:
        config = entry.cls.Config.model_validate(options, context={"registry": registry})
    except ValidationError as exc:
        fields = list(entry.cls.Config.model_fields) + (list(STORE_KEYS) if kind == "store" else [])
        for err in exc.errors():
            loc = (*path, *err["loc"])
            cause = (err.get("ctx") or {}).get("error")
            if isinstance(cause, OptionProblems):  # one issue a problem, each on its line
                for at, message in cause.items:
                    add(loc, message, at=at)
                continue
            if err["type"] == "extra_forbidden":
                opt = str(err["loc"][-1])
                guess = closest(opt, fields)
                hint = (
                    f"did you mean {guess!r}?"
                    if guess
                    else (
                        f"{kind} {type_name!r} takes: {', '.join(fields)}"
                        if fields
                        else f"{kind} {type_name!r} takes no options"
                    )
                )
                add(loc, f"unknown option {opt!r} for {kind} {type_name!r}", hint)
            elif err["type"] == "missing":
                add(loc, f"missing required option {err['loc'][-1]!r} for {kind} {type_name!r}")
            else:
                add(loc, *_explained(err, env_paths.get(loc)))
        return None
    name = str(extra.get("name") or type_name)
    store_filter = None
    if isinstance(extra.get("filter"), Mapping):  # anything else: the schema reports it
        try:
            store_filter = parse_filter(extra["filter"])
            check_supported(store_filter, entry.cls.filter_operators, name)
        except FilterError as exc:
            add((*path, "filter"), str(exc), "write a filter this store can apply, or remove it")
            return None
    return ComponentSpec(
        kind=kind,
        type=type_name,
        entry=entry,
        config=config,
        loc=path,
        name=name,
        weight=float(extra.get("weight", 1.0)),
        k=extra.get("k"),
        filter=store_filter,
    )


def _cross_check(specs: dict[str, Any], add: Any) -> None:
    stores = [s for s in specs.get("stores", []) if s is not None]
    embedder = specs.get("embedder")
    embedder_failed = "embedder" in specs and embedder is None  # already reported
    generator = specs.get("generator")
    for spec in _all_specs(specs):
        needs = spec.entry.cls.needs_for(spec.config)
        if "embedder" in needs and embedder is None and not embedder_failed:
            add(
                (*spec.loc, "type"),
                f"{spec.kind} {spec.type!r} needs an embedder but none is configured",
                "add e.g. `embedder: {type: hash}`",
            )
        if (
            "generator" in needs
            and generator is not None
            and not issubclass(generator.entry.cls, ChatGenerator)
        ):
            add(
                (*spec.loc, "type"),
                f"{spec.kind} {spec.type!r} asks the generator to write text, but generator "
                f"{generator.type!r} is not a chat model",
                "configure an LLM generator (e.g. `generator: {type: openai}` or "
                "`{type: llamacpp}`), or remove this component",
            )
    seen: dict[str, str] = {}
    folders: dict[str, ComponentSpec] = {}
    for spec in stores:
        path = spec.loc
        if spec.name in seen:
            add(
                (*path, "name"),
                f"store name {spec.name!r} is used twice (also {seen[spec.name]})",
                "give each store a distinct `name:`",
            )
        seen[spec.name] = spec.path
        folder = getattr(spec.config, "path", None)
        if isinstance(folder, str) and folder:
            key = f"{spec.type}:{os.path.normpath(os.path.expanduser(folder))}"
            other = folders.setdefault(key, spec)  # one file per type in a folder
            if other is not spec:
                add(
                    (*path, "path"),
                    f"store {spec.name!r} keeps its files in {folder!r}, as store "
                    f"{other.name!r} ({other.path}) does: both would write the same files",
                    "give each store its own `path:`",
                )
        _check_layer_names(spec, specs.get("chunker"), add)
        vector_only = (
            "dense" in spec.entry.cls.capabilities and "text" not in spec.entry.cls.capabilities
        )
        if vector_only and embedder is None and not embedder_failed:
            add(
                (*path, "type"),
                f"store {spec.name!r} searches vectors but no embedder is configured",
                "add e.g. `embedder: {type: hash}`",
            )
        store_dim = getattr(spec.config, "dimension", None)
        embed_dim = _declared_dimension(embedder)
        if store_dim and embed_dim and store_dim != embed_dim:
            add(
                (*path, "dimension"),
                f"store {spec.name!r} expects {store_dim}-dimensional vectors but the embedder "
                f"makes {embed_dim}",
                "make the two dimensions equal",
            )


def _declared_dimension(embedder: Any) -> int | None:
    """The width the embedder's config alone tells (``Embedder.declared_dimension``),
    or None: unknown, or an embedder class that fails to tell (never a config error)."""
    if embedder is None:
        return None
    declared = getattr(embedder.entry.cls, "declared_dimension", None)
    if declared is None:
        width = getattr(embedder.config, "dimension", None)
        return width if isinstance(width, int) else None
    try:
        width = declared(embedder.config)
    except Exception:  # a plugin's bug is not the user's config error
        return None
    return width if isinstance(width, int) and not isinstance(width, bool) else None


def _check_filters(root: _Root, specs: dict[str, Any], add: Any) -> None:
    """Filters written in the config, and access control, must be expressible by
    every store: checked now, before anything runs."""
    stores = [s for s in specs.get("stores", []) if s is not None]
    checks = []
    if root.retrieval.filter is not None:
        try:
            checks.append((("retrieval", "filter"), parse_filter(root.retrieval.filter)))
        except FilterError as exc:
            add(("retrieval", "filter"), str(exc))
    if root.access is not None:
        acl = access_filter(["probe"], field=root.access.field, unlabeled=root.access.unlabeled)
        checks.append((("access", "field"), acl))
    if root.retrieval.deprecated == "exclude":  # what it adds to every query
        checks.append((("retrieval", "deprecated"), parse_filter({"deprecated": {"$ne": True}})))
    hints = {
        "access": "a store that cannot apply access control would leak; remove it",
        "deprecated": "use `deprecated: demote`, or stores that support $ne",
    }
    for path, node in checks:
        for spec in stores:
            try:
                check_supported(node, spec.entry.cls.filter_operators, spec.name)
            except FilterError as exc:
                add(path, str(exc), hints.get(path[-1], "remove that store, or the filter"))


def _check_feedback(root: _Root, specs: dict[str, Any], add: Any) -> None:
    """``retrieval.feedback`` moves the query vector: it needs a store that
    searches vectors, and the embedder that makes them."""
    if root.retrieval.feedback is None:
        return
    stores = [s for s in specs.get("stores", []) if s is not None]
    if stores and not any("dense" in s.entry.cls.capabilities for s in stores):
        add(
            ("retrieval", "feedback"),
            "feedback moves the query vector towards the first hits, but no store searches "
            f"vectors (stores: {', '.join(s.name for s in stores)})",
            "add a vector store (e.g. `{type: memory}`), or remove `feedback`",
        )
    elif "embedder" not in specs:
        add(
            ("retrieval", "feedback"),
            "feedback moves the query vector towards the first hits, but no embedder is "
            "configured to make one",
            "add an embedder (e.g. `embedder: {type: hash}`), or remove `feedback`",
        )


def _check_layer_names(store: ComponentSpec, chunker: ComponentSpec | None, add: Any) -> None:
    """A store's filter on ``layer`` names layers the ``layers`` chunker makes
    (itself, or as a ``route``'s chunker): a misspelt one would leave the
    store silently empty."""
    options = getattr(chunker, "config", None)
    layers = getattr(options, "layers", None)
    parts = getattr(options, "_parts", None) if getattr(chunker, "type", "") == "route" else None
    if parts:  # every layer any route's `layers` chunker makes
        specs = [spec for *_, spec in parts if spec.get("type") == "layers"]
        made = [name for spec in specs for name in spec["layers"]]
        layers = dict.fromkeys(made) if made else None
    if store.filter is None or not isinstance(layers, dict):
        return
    for value in _values_of(store.filter, "layer"):
        if value not in layers:
            guess = closest(str(value), list(layers))
            add(
                (*store.loc, "filter"),
                f"store {store.name!r} filters on layer {value!r}, which the `layers` "
                f"chunker does not make (its layers: {', '.join(layers)})",
                f"did you mean {guess!r}?" if guess else "name one of its layers",
            )


def _values_of(node: Filter, field_name: str) -> list[Any]:
    """The values a filter tree compares ``field_name`` with."""
    if isinstance(node, Condition):
        if node.field != field_name or node.op not in ("$eq", "$ne", "$in", "$nin"):
            return []
        return list(node.value) if isinstance(node.value, (list, tuple)) else [node.value]
    if isinstance(node, Not):
        return _values_of(node.item, field_name)
    return [v for item in node.items for v in _values_of(item, field_name)]


def _all_specs(specs: dict[str, Any]) -> list[ComponentSpec]:
    found: list[ComponentSpec] = []
    for value in specs.values():
        items = value if isinstance(value, list) else [value]
        found.extend(item for item in items if item is not None)
    return found
