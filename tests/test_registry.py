from __future__ import annotations

import types

import pluggy
import pytest
from ragloom import ComponentConfig, Store, hookimpl
from ragloom.builtin.stores.memory import MemoryStore
from ragloom.errors import DuplicateComponentError, PluginError, UnknownComponentError
from ragloom.plugins import build_plugin_manager
from ragloom.registry import Registry


def plugin(**hooks) -> types.ModuleType:
    module = types.ModuleType("fake_plugin")
    for name, func in hooks.items():
        setattr(module, name, hookimpl(func))
    return module


def test_builtins_register_through_hooks(registry: Registry) -> None:
    names = {(e.kind, e.name) for e in registry}
    assert {
        ("loader", "file"),
        ("loader", "directory"),
        ("chunker", "fixed"),
        ("chunker", "recursive"),
        ("embedder", "hash"),
        ("store", "memory"),
        ("store", "bm25"),
        ("generator", "extractive"),
    } <= names
    entry = registry.get("store", "memory")
    assert entry.cls is MemoryStore
    assert entry.plugin == "ragloom.builtin.plugin"
    assert entry.distribution == "ragloom" and entry.version


def test_unknown_name_suggests_closest_and_package(registry: Registry) -> None:
    with pytest.raises(UnknownComponentError, match="did you mean 'memory'"):
        registry.get("store", "memroy")
    with pytest.raises(UnknownComponentError, match="pip install ragloom-qdrant"):
        registry.get("store", "qdrant")


def test_duplicate_registration_names_both_providers(pm: pluggy.PluginManager) -> None:
    def register_stores(register):
        register("memory", MemoryStore)

    pm.register(plugin(register_stores=register_stores), name="copycat")
    with pytest.raises(DuplicateComponentError) as info:
        Registry.from_plugin_manager(pm)
    assert "ragloom" in str(info.value) and "copycat" in str(info.value)


def test_registering_a_non_component_fails(pm: pluggy.PluginManager) -> None:
    def register_stores(register):
        register("weird", dict)

    pm.register(plugin(register_stores=register_stores), name="weird")
    with pytest.raises(PluginError, match="not a subclass of ragloom.Store"):
        Registry.from_plugin_manager(pm)


def test_misspelt_hookimpl_fails_loudly() -> None:
    pm = build_plugin_manager(load_entry_points=False, env={})

    @hookimpl
    def register_storez(register):  # typo
        pass

    module = types.ModuleType("typo")
    module.register_storez = register_storez
    pm.register(module, name="typo")
    with pytest.raises(pluggy.PluginValidationError):
        pm.check_pending()


def test_disable_builtin_plugin() -> None:
    pm = build_plugin_manager(
        load_entry_points=False, env={"RAGLOOM_DISABLE_PLUGINS": "ragloom.builtin.plugin"}
    )
    assert len(Registry.from_plugin_manager(pm)) == 0


def test_custom_store_with_config(pm: pluggy.PluginManager) -> None:
    class Tiny(Store):
        capabilities = frozenset({"text"})

        class Config(ComponentConfig):
            size: int = 3

        def upsert(self, chunks, vectors=None):
            pass

        def query(self, *, vector=None, text=None, k=10, where=None):
            return []

        def delete(self, *, ids=None, where=None):
            return 0

        def count(self, where=None):
            return 0

    def register_stores(register):
        register("tiny", Tiny)

    pm.register(plugin(register_stores=register_stores), name="tiny-plugin")
    registry = Registry.from_plugin_manager(pm)
    entry = registry.get("store", "tiny")
    assert entry.plugin == "tiny-plugin" and entry.distribution is None
    assert entry.cls(size=5).config.size == 5


def test_a_component_missing_its_required_method_cannot_be_built() -> None:
    class Half(Store):
        def upsert(self, chunks, vectors=None):
            pass

    with pytest.raises(TypeError, match="count, delete, query"):
        Half()


def test_registering_an_incomplete_class_names_what_it_lacks(pm: pluggy.PluginManager) -> None:
    class Half(Store):
        def upsert(self, chunks, vectors=None):
            pass

    def register_stores(register):
        register("half", Half)

    pm.register(plugin(register_stores=register_stores), name="half-plugin")
    with pytest.raises(PluginError, match="'half-plugin'.*does not implement count, delete, query"):
        Registry.from_plugin_manager(pm)


@pytest.mark.parametrize(
    ("attributes", "said"),
    [
        ({"filter_operators": frozenset({"eq", "$in"})}, "unknown operators ['eq']"),
        ({"capabilities": frozenset({"keyword"})}, "capabilities ['keyword']"),
        ({"capabilities": frozenset()}, "capabilities []"),
    ],
)
def test_a_store_declaring_unknown_capabilities_or_operators_is_refused(
    attributes: dict, said: str
) -> None:
    """A typo there passed `config check`, then refused valid filters (or
    gave the store neither text nor a vector)."""
    from ragloom.builtin.stores.bm25 import BM25Store
    from ragloom.errors import PluginError
    from ragloom.registry import Registry, RegistryEntry

    typo = type("Typo", (BM25Store,), attributes)
    registry = Registry()
    with pytest.raises(PluginError) as info:
        registry.add(RegistryEntry("store", "typo", typo, "plugin-x", None))
    assert "plugin 'plugin-x' registered store 'typo' as Typo" in str(info.value)
    assert said in str(info.value)
