"""ragloom-sentence-transformers: local embedding models, cross-encoder
rerankers and fine-tuning (``ragloom tune``) on sentence-transformers.

    embedder: {type: sentence-transformers, model: all-MiniLM-L6-v2}
    reranker: {type: cross-encoder, model: cross-encoder/ms-marco-MiniLM-L6-v2, top_k: 5}
"""

from __future__ import annotations

from .embedder import SentenceTransformersEmbedder
from .models import PACKAGED_MODELS, PackagedModel
from .prefixes import FAMILIES, Family
from .reranker import CrossEncoderReranker

__version__ = "0.1.0"

__all__ = [
    "FAMILIES",
    "PACKAGED_MODELS",
    "CrossEncoderReranker",
    "Family",
    "PackagedModel",
    "SentenceTransformersEmbedder",
    "__version__",
]
