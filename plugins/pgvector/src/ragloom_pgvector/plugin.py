"""Hook implementations of ragloom-pgvector: hookimpls only.

Importing this module imports neither psycopg nor pgvector: the store loads
them in ``open()``.
"""

from __future__ import annotations

from ragloom import Store, hookimpl
from ragloom.registry import Register

from .store import PgvectorStore


@hookimpl
def register_stores(register: Register[Store]) -> None:
    register("pgvector", PgvectorStore)
