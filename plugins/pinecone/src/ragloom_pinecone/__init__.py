"""ragloom-pinecone: the ``pinecone`` store, dense vector search in a Pinecone index.

    stores:
      - {type: pinecone, index: docs, namespace: handbook, create: true}
      - {type: bm25}

The API key comes from ``PINECONE_API_KEY`` (or ``api_key: ${VAR}``).
"""

from __future__ import annotations

from .store import PineconeStore

__version__ = "0.1.0"

__all__ = ["PineconeStore", "__version__"]
