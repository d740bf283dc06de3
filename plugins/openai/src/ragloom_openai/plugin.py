"""Hook implementations of ragloom-openai: hookimpls only.

Importing this module does not import the openai SDK: the components do in ``open()``.
"""

from __future__ import annotations

from ragloom import Embedder, Generator, hookimpl
from ragloom.registry import Register

from .embedder import OpenAIEmbedder
from .generator import OpenAIGenerator


@hookimpl
def register_embedders(register: Register[Embedder]) -> None:
    register("openai", OpenAIEmbedder)


@hookimpl
def register_generators(register: Register[Generator]) -> None:
    register("openai", OpenAIGenerator)
