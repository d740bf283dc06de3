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
        "properties": _with_variables(properties),
        "required": ["stores"],
        "additionalProperties": False,
        "$defs": _with_variables(defs),
    }


_VARIABLE = {
    "type": "string",
    "pattern": r"\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}",
    "description": "an environment variable, ${VAR} or ${VAR:-default}, read when the "
    "config is loaded",
}
"""What a number or a flag may also be written as (``dimension: "${DIM:-512}"``)."""
_SCALARS = {"integer", "number", "boolean"}


def _with_variables(node: Any) -> Any:
    """``node`` with every number and flag also taking ``${VAR}``, as ``ragloom
    config check`` does (strings take it already)."""
    if isinstance(node, list):
        return [_with_variables(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _with_variables(value) for key, value in node.items()}
    kinds = node.get("type")  # (in a `properties` mapping, a field named "type": a dict)
    kinds = set(kinds) if isinstance(kinds, list) else {kinds} if isinstance(kinds, str) else set()
    if kinds & _SCALARS:
        return {"anyOf": [node, _VARIABLE]}
    return node
