"""ragloom-qdrant: the ``qdrant`` store, on Qdrant's own engine in the process
(qdrant-edge), qdrant-client's local mode, or a Qdrant server / Qdrant Cloud.

    stores:
      - {type: qdrant}                                    # embedded, <index_dir>/qdrant
      - {type: qdrant, url: "https://...:6333", api_key: "${QDRANT_API_KEY}"}
      - {type: qdrant, sparse: bm25}                      # dense + BM25 in one collection
"""

from __future__ import annotations

from .config import QdrantConfig
from .errors import QdrantInUseError
from .payload import POINT_NAMESPACE, point_id
from .store import QdrantStore

__version__ = "0.1.0"

__all__ = [
    "POINT_NAMESPACE",
    "QdrantConfig",
    "QdrantInUseError",
    "QdrantStore",
    "__version__",
    "point_id",
]
