"""ragloom-cohere: Cohere's hosted reranking and embeddings.

    embedder: {type: cohere, model: embed-v4.0}
    reranker: {type: cohere, model: rerank-v3.5, top_k: 5}

The API key comes from ``CO_API_KEY`` (or ``COHERE_API_KEY``, or ``api_key: ${VAR}``).
"""

from __future__ import annotations

from .embedder import MODELS, CohereEmbedder
from .reranker import CohereReranker

__version__ = "0.1.0"

__all__ = ["MODELS", "CohereEmbedder", "CohereReranker", "__version__"]
