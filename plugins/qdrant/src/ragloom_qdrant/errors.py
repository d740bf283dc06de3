"""The plugin's own error: an embedded Qdrant another process holds.

``QdrantInUseError`` is a ``StoreError`` (the pipeline and the CLI report it
as any store's failure) and a ``BlockingIOError``, Python's error for a lock
another holder has, which is what it is: the engine's folder is locked by
another process (a running ``ragloom serve``, an index run). Nothing is
wrong with the store, so ``ragloom status`` reports such a store as held
elsewhere and not checked, rather than as queries refused.
"""

from __future__ import annotations

from ragloom.errors import StoreError

__all__ = ["QdrantInUseError"]


class QdrantInUseError(StoreError, BlockingIOError):
    """An embedded Qdrant folder (edge shard or local mode) is open in
    another process: an embedded engine belongs to one process at a time."""
