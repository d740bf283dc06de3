"""Hook implementations of ragloom-pinecone: hookimpls only.

Importing this module does not import the pinecone SDK: the store does in ``open()``.
"""

from __future__ import annotations

from ragloom import Store, hookimpl
from ragloom.registry import Register

from .store import PineconeStore


@hookimpl
def register_stores(register: Register[Store]) -> None:
    register("pinecone", PineconeStore)
