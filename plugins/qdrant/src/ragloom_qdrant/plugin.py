"""Hook implementations of ragloom-qdrant: hookimpls only.

Importing this module imports neither qdrant-client nor qdrant-edge: the
store loads them in ``open()``.
"""

from __future__ import annotations

from ragloom import Store, hookimpl
from ragloom.registry import Register

from .store import QdrantStore


@hookimpl
def register_stores(register: Register[Store]) -> None:
    register("qdrant", QdrantStore)
