"""Hook implementations of ragloom-llamacpp: hookimpls only.

Importing this module does not import llama-cpp-python: the components load
it, and the model, in ``open()``.
"""

from __future__ import annotations

from ragloom import Embedder, Generator, hookimpl
from ragloom.registry import Register

from .embedder import LlamaCppEmbedder
from .generator import LlamaCppGenerator


@hookimpl
def register_generators(register: Register[Generator]) -> None:
    register("llamacpp", LlamaCppGenerator)


@hookimpl
def register_embedders(register: Register[Embedder]) -> None:
    register("llamacpp", LlamaCppEmbedder)
