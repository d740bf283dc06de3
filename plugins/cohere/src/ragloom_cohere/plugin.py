"""Hook implementations of ragloom-cohere: hookimpls only.

Importing this module does not import the cohere SDK: the components do in ``open()``.
"""

from __future__ import annotations

from ragloom import Embedder, Reranker, hookimpl
from ragloom.registry import Register

from .embedder import CohereEmbedder
from .reranker import CohereReranker


@hookimpl
def register_embedders(register: Register[Embedder]) -> None:
    register("cohere", CohereEmbedder)


@hookimpl
def register_rerankers(register: Register[Reranker]) -> None:
    register("cohere", CohereReranker)
