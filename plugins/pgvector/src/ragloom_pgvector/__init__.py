"""ragloom-pgvector: dense and full-text retrieval inside one PostgreSQL.

    stores:
      - {type: pgvector}                                  # embedded server under the index
      - {type: pgvector, dsn: "${DATABASE_URL}", table: docs}   # a real server

One table holds the chunks, their vectors (pgvector, HNSW by default) and a
generated ``tsvector`` column, so one store answers vector queries, keyword
queries, or both fused; metadata filters become parameterised SQL over JSONB.
"""

from __future__ import annotations

from .options import PgvectorOptions
from .store import PgvectorStore

__version__ = "0.1.0"

__all__ = ["PgvectorOptions", "PgvectorStore", "__version__"]
