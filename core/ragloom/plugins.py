"""The plugin manager: built-ins, entry points, and load restrictions.

Plugins are modules with ``@hookimpl`` functions, published through the
entry-point group ``ragloom``. Built-ins in ``DEFAULT_PLUGINS`` go through
the same hooks. Two environment variables restrict loading:

``RAGLOOM_LOAD_PLUGINS=a,b``
    load only these entry-point plugins (by entry-point or distribution
    name); an empty value loads none. Built-ins are always loaded.
``RAGLOOM_DISABLE_PLUGINS=a,b``
    never load these (entry-point or distribution names, or
    ``ragloom.builtin.plugin`` for the built-in components).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import re
import sys
from collections.abc import Mapping
from importlib.metadata import entry_points

import pluggy

from . import hookspecs, stages
from .errors import PluginError, Terminated
from .registry import Registry

__all__ = [
    "DEFAULT_PLUGINS",
    "ENTRY_POINT_GROUP",
    "build_plugin_manager",
    "get_plugin_manager",
    "get_registry",
]

ENTRY_POINT_GROUP = "ragloom"
CORE_PLUGIN = "ragloom.core"

log = logging.getLogger("ragloom")

DEFAULT_PLUGINS: tuple[str, ...] = ("ragloom.builtin.plugin",)

_pm: pluggy.PluginManager | None = None
_registry: Registry | None = None


def _names(value: str | None) -> set[str] | None:
    if value is None:
        return None
    return {part.strip() for part in value.split(",") if part.strip()}


def build_plugin_manager(
    *, load_entry_points: bool = True, env: Mapping[str, str] | None = None
) -> pluggy.PluginManager:
    """A fresh plugin manager with built-ins and (optionally) installed plugins.

    Tests build their own; the CLI and ``ragloom.load`` share ``get_plugin_manager()``.
    """
    env = os.environ if env is None else env
    only = _names(env.get("RAGLOOM_LOAD_PLUGINS"))
    blocked = _names(env.get("RAGLOOM_DISABLE_PLUGINS")) or set()

    pm = pluggy.PluginManager("ragloom")
    pm.add_hookspecs(hookspecs)
    pm.register(stages, name=CORE_PLUGIN)  # core's run_stage: never blocked
    for module_name in DEFAULT_PLUGINS:
        if module_name in blocked:
            continue
        pm.register(importlib.import_module(module_name), name=module_name)

    if load_entry_points:
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            dist_name = ep.dist.name if ep.dist is not None else None
            names = {ep.name} | ({dist_name} if dist_name else set())
            if names & blocked:
                pm.set_blocked(ep.name)
                continue
            if only is not None and not names & only:
                continue
            if pm.is_blocked(ep.name):
                continue
            if pm.get_plugin(ep.name) is not None:
                raise PluginError(
                    f"two installed distributions publish a ragloom plugin named {ep.name!r} "
                    f"(the second is {dist_name}); uninstall one of them"
                )
            try:
                # what it prints while it imports goes to stderr: stdout is
                # `--json` output, or `ragloom mcp`'s protocol
                with contextlib.redirect_stdout(sys.stderr):
                    plugin = ep.load()
            except Exception as exc:
                interrupted = _interruption(exc)
                if interrupted is not None:  # Ctrl-C or SIGTERM: no broken plugin
                    raise interrupted from exc
                raise PluginError(
                    f"plugin {ep.name!r} from {dist_name or 'an unknown distribution'} "
                    f"failed to import ({exc!r}); reinstall it, or skip it with "
                    f"RAGLOOM_DISABLE_PLUGINS={ep.name}"
                ) from exc
            try:
                pm.register(plugin, name=ep.name)
            except pluggy.PluginValidationError as exc:
                raise PluginError(
                    f"plugin {ep.name!r} from {dist_name or 'an unknown distribution'}: "
                    f"{exc}. A hook implementation takes the hook's own parameter names "
                    "(docs/hooks/); fix the plugin, or skip it with "
                    f"RAGLOOM_DISABLE_PLUGINS={ep.name}"
                ) from exc
            _say_unmarked(pm, plugin, ep.name)
            if ep.dist is not None:
                pm._plugin_distinfo.append((plugin, _DistFacade(ep.dist)))  # type: ignore[arg-type]

    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise PluginError(
            f"{exc}. Hook implementations must be named after a ragloom hook "
            "(register_loaders, register_stores, run_stage, on_event...)"
        ) from exc
    return pm


_WRAPPED = re.compile(r"^\s*(KeyboardInterrupt|Terminated):", re.MULTILINE)
"""An interruption as a library keeps it in its own error's text (pydantic's
schema build, in Rust, keeps no exception: ``...validator:\n  KeyboardInterrupt: ``)."""


def _interruption(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM that made a plugin's import fail, when a library
    under the import caught it and raised an error of its own: a fresh one of
    its kind (``Terminated`` for SIGTERM), to be raised instead of blaming the
    plugin; None when ``exc`` is a plugin's own failure."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return type(cause)()
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    found = _WRAPPED.search(str(exc))
    if found is None:
        return None
    return Terminated() if found.group(1) == "Terminated" else KeyboardInterrupt()


def _say_unmarked(pm: pluggy.PluginManager, plugin: object, name: str) -> None:
    """Warn of a function of ``plugin`` named after a hook but not marked
    ``@hookimpl``: pluggy passes it over, and what it would register is
    simply missing ("unknown store type" later, about a type it names)."""
    hooks = set(pm.hook.__dict__)
    for attribute in sorted(hooks & set(dir(plugin))):
        method = getattr(plugin, attribute, None)
        if callable(method) and pm.parse_hookimpl_opts(plugin, attribute) is None:
            log.warning(
                "plugin %r defines %s() without @ragloom.hookimpl: it is not called; "
                "mark it with @hookimpl",
                name,
                attribute,
            )


class _DistFacade:
    """What ``pm.list_plugin_distinfo()`` returns, as pluggy's own facade does."""

    def __init__(self, dist: object) -> None:
        self._dist = dist

    @property
    def project_name(self) -> str:
        return str(self._dist.metadata["name"])  # type: ignore[attr-defined]

    @property
    def version(self) -> str:
        return str(self._dist.version)  # type: ignore[attr-defined]


def get_plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager (the only global state)."""
    global _pm
    if _pm is None:
        _pm = build_plugin_manager()
    return _pm


def get_registry() -> Registry:
    """The registry built from ``get_plugin_manager()``."""
    global _registry
    if _registry is None:
        _registry = Registry.from_plugin_manager(get_plugin_manager())
    return _registry
