"""ragloom: a pluggable retrieval-augmented generation framework.

    import ragloom
    pipeline = ragloom.load("ragloom.yaml")
    pipeline.index()
    print(pipeline.ask("How much does the Pro plan cost?").text)
"""

from __future__ import annotations

__version__ = "0.1.0"

from .components import (
    Chunker,
    Component,
    ComponentConfig,
    Context,
    Embedder,
    Generator,
    Loader,
    Message,
    QueryTransformer,
    Reranker,
    Store,
)
from .errors import (
    ComponentError,
    ConfigError,
    ConfigValidationError,
    PluginError,
    RagloomError,
)
from .hookspecs import hookimpl
from .types import Answer, Chunk, Citation, Document, Hit

__all__ = [
    "Answer",
    "Chunk",
    "Chunker",
    "Citation",
    "Component",
    "ComponentConfig",
    "ComponentError",
    "ConfigError",
    "ConfigValidationError",
    "Context",
    "Document",
    "Embedder",
    "Generator",
    "Hit",
    "Loader",
    "Message",
    "PluginError",
    "QueryTransformer",
    "RagloomError",
    "Reranker",
    "Store",
    "__version__",
    "hookimpl",
]
