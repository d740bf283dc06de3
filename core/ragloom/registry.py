"""The registry: (kind, name) -> component class, with who registered it.

Built from a plugin manager by calling every ``register_*`` hook once per
plugin, so each entry knows the plugin, distribution and version behind it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from .components import COMPONENT_KINDS, KINDS, Component
from .errors import DuplicateComponentError, PluginError, UnknownComponentError

if TYPE_CHECKING:
    import pluggy

__all__ = ["KNOWN_PROVIDERS", "Register", "Registry", "RegistryEntry", "closest"]

C = TypeVar("C", bound=Component)
C_contra = TypeVar("C_contra", bound=Component, contravariant=True)

# (kind, name) -> distribution that provides it, for "pip install" hints.
KNOWN_PROVIDERS: dict[tuple[str, str], str] = {
    ("embedder", "openai"): "ragloom-openai",
    ("generator", "openai"): "ragloom-openai",
    ("embedder", "sentence-transformers"): "ragloom-sentence-transformers",
    ("reranker", "cross-encoder"): "ragloom-sentence-transformers",
    ("store", "qdrant"): "ragloom-qdrant",
    ("store", "pinecone"): "ragloom-pinecone",
    ("embedder", "cohere"): "ragloom-cohere",
    ("reranker", "cohere"): "ragloom-cohere",
    ("generator", "cohere"): "ragloom-cohere",
    ("generator", "llamacpp"): "ragloom-llamacpp",
    ("embedder", "llamacpp"): "ragloom-llamacpp",
    ("store", "pgvector"): "ragloom-pgvector",
    ("executor", "ray"): "ragloom-ray",
}

HOOK_KINDS: dict[str, str] = {k.hook: k.name for k in COMPONENT_KINDS}
"""``register_stores`` -> ``store``, for every kind."""


class Register(Protocol, Generic[C_contra]):
    """The callback a ``register_*`` hook receives: ``register(name, cls)``."""

    def __call__(self, name: str, cls: type[C_contra]) -> None: ...


@dataclass(frozen=True)
class RegistryEntry:
    """One registered component class and where it came from."""

    kind: str
    name: str
    cls: type[Component]
    plugin: str
    distribution: str | None = None
    version: str | None = None

    @property
    def provider(self) -> str:
        if self.distribution:
            return f"{self.distribution} {self.version or ''}".strip()
        return f"plugin {self.plugin}"


def closest(name: str, choices: list[str]) -> str | None:
    """The closest of ``choices`` to ``name``, if any is close enough."""
    found = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
    return found[0] if found else None


class Registry:
    """Registered component classes by kind and name."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], RegistryEntry] = {}

    @classmethod
    def from_plugin_manager(cls, pm: pluggy.PluginManager) -> Registry:
        """Call every ``register_*`` hookimpl, one plugin at a time."""
        registry = cls()
        dists = {id(plugin): dist for plugin, dist in pm.list_plugin_distinfo()}
        plugins = pm.get_plugins()
        for hook_name, kind in HOOK_KINDS.items():
            hook = getattr(pm.hook, hook_name)
            for impl in reversed(hook.get_hookimpls()):  # pluggy's call order
                dist = dists.get(id(impl.plugin))
                distribution = dist.project_name if dist is not None else None
                version = dist.version if dist is not None else None
                if distribution is None and impl.plugin_name.startswith("ragloom."):
                    distribution, version = "ragloom", _core_version()

                def register(
                    name: str,
                    component: type[Component],
                    *,
                    _kind: str = kind,
                    _plugin: str = impl.plugin_name,
                    _dist: str | None = distribution,
                    _version: str | None = version,
                ) -> None:
                    registry.add(RegistryEntry(_kind, name, component, _plugin, _dist, _version))

                # call through pluggy, restricted to this plugin, so that the
                # plugin's registrations are attributed to it
                others = [p for p in plugins if p is not impl.plugin]
                caller = pm.subset_hook_caller(hook_name, remove_plugins=others)
                try:
                    caller(register=register)
                except PluginError:
                    raise
                except Exception as exc:  # a broken plugin is named, not hidden
                    raise PluginError(
                        f"plugin {impl.plugin_name!r} failed in {hook_name}: {exc!r}"
                    ) from exc
        return registry

    def add(self, entry: RegistryEntry) -> None:
        base = KINDS[entry.kind]
        if not isinstance(entry.name, str) or not entry.name:
            raise PluginError(
                f"plugin {entry.plugin!r} registered a {entry.kind} with an invalid "
                f"name {entry.name!r}: use a short non-empty string such as 'my-store'"
            )
        if not (isinstance(entry.cls, type) and issubclass(entry.cls, base)):
            raise PluginError(
                f"plugin {entry.plugin!r} registered {entry.kind} {entry.name!r} as "
                f"{entry.cls!r}, which is not a subclass of ragloom.{base.__name__}"
            )
        missing = sorted(getattr(entry.cls, "__abstractmethods__", ()))
        if missing:
            raise PluginError(
                f"plugin {entry.plugin!r} registered {entry.kind} {entry.name!r} as "
                f"{entry.cls.__name__}, which does not implement {', '.join(missing)}: "
                f"a {entry.kind} must define {'it' if len(missing) == 1 else 'them'}"
            )
        if entry.kind == "store":
            _check_store_class(entry)
        key = (entry.kind, entry.name)
        if key in self._entries:
            first = self._entries[key]
            raise DuplicateComponentError(
                f"{entry.kind} {entry.name!r} is registered twice: by {first.provider} "
                f"(plugin {first.plugin}) and by {entry.provider} (plugin {entry.plugin}). "
                "Uninstall one, or block one with RAGLOOM_DISABLE_PLUGINS."
            )
        self._entries[key] = entry

    def get(self, kind: str, name: str) -> RegistryEntry:
        """The entry for ``(kind, name)``, or an error with the closest name and
        the package to install."""
        try:
            return self._entries[(kind, name)]
        except KeyError:
            raise UnknownComponentError(self.unknown_message(kind, name)) from None

    def unknown_message(self, kind: str, name: str) -> str:
        message, hint = self.unknown_parts(kind, name)
        return f"{message}; {hint}" if hint else message

    def unknown_parts(self, kind: str, name: str) -> tuple[str, str | None]:
        """(what is wrong, what to do) for an unregistered ``(kind, name)``."""
        names = self.names(kind)
        message = f"unknown {kind} type {name!r}"
        provider = KNOWN_PROVIDERS.get((kind, str(name)))
        if provider:
            return message, f"it is provided by {provider}: pip install {provider}"
        guess = closest(str(name), names)
        if guess:
            return message, f"did you mean {guess!r}?"
        if names:
            return message, f"available: {', '.join(sorted(names))}"
        return message, None

    def names(self, kind: str) -> list[str]:
        return sorted(name for (k, name) in self._entries if k == kind)

    def __contains__(self, key: tuple[str, str]) -> bool:
        return key in self._entries

    def __iter__(self) -> Iterator[RegistryEntry]:
        return iter(sorted(self._entries.values(), key=lambda e: (e.kind, e.name)))

    def __len__(self) -> int:
        return len(self._entries)


def _core_version() -> str:
    from . import __version__

    return __version__


def _check_store_class(entry: RegistryEntry) -> None:
    """A store's declared ``capabilities`` and ``filter_operators`` (when set
    on the class, not computed from its config) name only what ragloom
    knows: a typo (``eq`` for ``$eq``, ``keyword`` for ``text``) would pass
    a config check and then refuse valid filters, or pass the store neither
    text nor a vector."""
    from .filters import ALL_OPERATORS

    # a property (set from the config) is checked by the store contract instead
    capabilities = getattr(entry.cls, "capabilities", None)
    operators = getattr(entry.cls, "filter_operators", None)
    problems = []
    if isinstance(capabilities, (set, frozenset)):
        unknown = sorted(str(c) for c in capabilities - {"dense", "text"})
        if unknown or not capabilities:
            problems.append(
                f"capabilities {sorted(map(str, capabilities))} (a store answers "
                "'dense' queries, 'text' queries, or both)"
            )
    if isinstance(operators, (set, frozenset)):
        unknown = sorted(str(o) for o in operators - ALL_OPERATORS)
        if unknown:
            problems.append(
                f"filter_operators with unknown operators {unknown} (they are "
                f"{', '.join(sorted(ALL_OPERATORS))})"
            )
    if problems:
        raise PluginError(
            f"plugin {entry.plugin!r} registered store {entry.name!r} as "
            f"{entry.cls.__name__}, which declares {' and '.join(problems)}"
        )
