"""The eight component kinds are listed once (``COMPONENT_KINDS``); the hook
specs, the registry, config validation and the schema follow that table."""

from __future__ import annotations

import inspect

import pytest
from ragloom import hookspecs
from ragloom.components import COMPONENT_KINDS, Component
from ragloom.config import LIST_SECTIONS, SECTION_KINDS
from ragloom.registry import HOOK_KINDS, Registry
from ragloom.schema import config_json_schema


def test_every_kind_has_its_hookspec_and_every_register_hook_a_kind() -> None:
    specs = {
        name
        for name, func in inspect.getmembers(hookspecs, inspect.isfunction)
        if name.startswith("register_") and hasattr(func, "ragloom_spec")
    }
    kinds = {k.hook for k in COMPONENT_KINDS}
    assert kinds <= specs, f"kinds without a hookspec: {sorted(kinds - specs)}"
    # register_commands registers CLI commands, not components
    assert specs - kinds == {"register_commands"}


def test_tables_derive_from_component_kinds() -> None:
    assert {k.hook: k.name for k in COMPONENT_KINDS} == HOOK_KINDS
    assert {k.section: k.name for k in COMPONENT_KINDS} == SECTION_KINDS
    assert {"loaders", "stores", "query_transformers"} == LIST_SECTIONS
    for kind in COMPONENT_KINDS:
        assert issubclass(kind.base, Component) and kind.base.kind == kind.name


def test_schema_has_every_section_the_config_accepts(registry: Registry) -> None:
    from ragloom.config import _Root

    schema = config_json_schema(registry)
    assert set(schema["properties"]) == set(_Root.model_fields)
    for kind in COMPONENT_KINDS:
        section = schema["properties"][kind.section]
        assert (section.get("type") == "array") == kind.many


def test_a_config_that_config_check_accepts_fits_the_schema(registry) -> None:
    """Numbers and flags from the environment (``dimension: "${DIM:-512}"``,
    as docs/config.md writes them) included: an editor or CI gate on the
    schema must not flag a config ragloom takes."""
    import jsonschema

    schema = config_json_schema(registry)
    good = {
        "loaders": [{"type": "directory", "path": "${DOCS_DIR:-docs}"}],
        "chunker": {"type": "recursive", "size": "${CHUNK:-800}", "overlap": 100},
        "embedder": {"type": "hash", "dimension": "${DIMENSION:-512}"},
        "stores": [{"type": "memory", "weight": "${W:-1.0}"}, {"type": "bm25"}],
        "retrieval": {"k": 5},
    }
    jsonschema.validate(good, schema)
    with pytest.raises(jsonschema.ValidationError):  # a plain word is still no number
        jsonschema.validate({**good, "chunker": {"type": "recursive", "size": "big"}}, schema)
