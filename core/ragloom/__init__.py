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
    Executor,
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
from .events import Event, ProblemReported, RunFinished, RunStarted, StageCall, StageFinished
from .generation import ChatGenerator, ChatOptions, Reply
from .hookspecs import hookimpl
from .pipeline import AnswerStream, IndexReport, Pipeline, load
from .registry import Register
from .types import Answer, Chunk, Citation, Document, Hit

__all__ = [
    "Answer",
    "AnswerStream",
    "ChatGenerator",
    "ChatOptions",
    "Reply",
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
    "Event",
    "Executor",
    "Generator",
    "Hit",
    "IndexReport",
    "Loader",
    "Message",
    "Pipeline",
    "PluginError",
    "ProblemReported",
    "QueryTransformer",
    "RagloomError",
    "Register",
    "Reranker",
    "RunFinished",
    "RunStarted",
    "StageCall",
    "StageFinished",
    "Store",
    "__version__",
    "hookimpl",
    "load",
]
