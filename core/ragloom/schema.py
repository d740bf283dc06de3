"""JSON Schema of the config file, with every registered component's options."""

from __future__ import annotations

from typing import Any

from .components import COMPONENT_KINDS
from .config import RetrievalSettings
from .registry import Registry
from .settings import AccessSettings, CacheSettings, IndexingSettings

__all__ = ["config_json_schema"]


def _component_schema(entry: Any, defs: dict[str, Any], store: bool) -> dict[str, Any]:
    schema = entry.cls.Config.model_json_schema(ref_template="#/$defs/{model}")
    defs.update(schema.pop("$defs", {}))
    properties = {"type": {"const": entry.name}, **schema.get("properties", {})}
    if store:
        properties.update(
            {
                "name": {"type": "string", "description": "unique name (default: the type)"},
                "weight": {"type": "number", "minimum": 0, "description": "fusion weight"},
                "k": {"type": "integer", "minimum": 1, "description": "hits asked of this store"},
                "filter": {
                    "type": "object",
                    "description": "the store answers only with the chunks that match it",
                },
            }
        )
    return {
        "type": "object",
        "title": f"{entry.kind} {entry.name}",
        "description": (entry.cls.__doc__ or "").strip().splitlines()[0]
        if entry.cls.__doc__
        else "",
        "properties": properties,
        "required": ["type", *schema.get("required", [])],
        "additionalProperties": False,
    }


def config_json_schema(registry: Registry) -> dict[str, Any]:
    """The schema a ragloom.yaml validates against (for editors and CI)."""
    defs: dict[str, Any] = {}
    kinds: dict[str, dict[str, Any]] = {}
    for spec in COMPONENT_KINDS:
        kind = spec.name
        kinds[kind] = {
            "anyOf": [
                _component_schema(e, defs, kind == "store") for e in registry if e.kind == kind
            ]
        }
    properties: dict[str, Any] = {
        "version": {"const": 1},
        "index_dir": {"type": "string", "default": ".ragloom"},
    }
    for section, model in (
        ("retrieval", RetrievalSettings),
        ("access", AccessSettings),
        ("cache", CacheSettings),
        ("indexing", IndexingSettings),
    ):
        schema = model.model_json_schema(ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        properties[section] = schema
    for spec in COMPONENT_KINDS:
        if spec.many:
            properties[spec.section] = {"type": "array", "items": kinds[spec.name]}
        else:
            properties[spec.section] = kinds[spec.name]
    properties["stores"]["minItems"] = 1
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ragloom pipeline config",
        "type": "object",
        "properties": properties,
        "required": ["stores"],
        "additionalProperties": False,
        "$defs": defs,
    }
