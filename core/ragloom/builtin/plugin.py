"""Hook implementations for the built-in components: hookimpls only.

Built-ins register through the same public hooks as any third-party plugin.
"""

from __future__ import annotations

from ..components import (
    Chunker,
    Embedder,
    Executor,
    Generator,
    Loader,
    QueryTransformer,
    Reranker,
    Store,
)
from ..executors import InProcessExecutor
from ..hookspecs import hookimpl
from ..registry import Register
from .chunkers.code import CodeChunker
from .chunkers.fixed import FixedChunker
from .chunkers.html import HtmlChunker
from .chunkers.layers import LayersChunker
from .chunkers.markdown import MarkdownChunker
from .chunkers.parent import ParentChunker
from .chunkers.recursive import RecursiveChunker
from .chunkers.route import RouteChunker
from .chunkers.semantic import SemanticChunker
from .chunkers.sentence import SentenceChunker
from .embedders.hash import HashEmbedder
from .generators.extractive import ExtractiveGenerator
from .loaders.code import CodeLoader
from .loaders.directory import DirectoryLoader
from .loaders.file import FileLoader
from .loaders.html import HtmlLoader
from .loaders.markdown import MarkdownLoader
from .loaders.pdf import PdfLoader
from .loaders.records import CsvLoader, JsonlLoader
from .query_transformers.condense import CondenseTransformer
from .query_transformers.hyde import HydeTransformer
from .query_transformers.multi_query import MultiQueryTransformer
from .rerankers.llm import LLMReranker
from .rerankers.mmr import MMRReranker
from .stores.bm25 import BM25Store
from .stores.memory import MemoryStore


@hookimpl
def register_loaders(register: Register[Loader]) -> None:
    register("file", FileLoader)
    register("directory", DirectoryLoader)
    register("markdown", MarkdownLoader)
    register("html", HtmlLoader)
    register("pdf", PdfLoader)
    register("code", CodeLoader)
    register("jsonl", JsonlLoader)
    register("csv", CsvLoader)


@hookimpl
def register_chunkers(register: Register[Chunker]) -> None:
    register("fixed", FixedChunker)
    register("recursive", RecursiveChunker)
    register("sentence", SentenceChunker)
    register("markdown", MarkdownChunker)
    register("html", HtmlChunker)
    register("code", CodeChunker)
    register("semantic", SemanticChunker)
    register("parent", ParentChunker)
    register("layers", LayersChunker)
    register("route", RouteChunker)


@hookimpl
def register_embedders(register: Register[Embedder]) -> None:
    register("hash", HashEmbedder)


@hookimpl
def register_stores(register: Register[Store]) -> None:
    register("memory", MemoryStore)
    register("bm25", BM25Store)


@hookimpl
def register_generators(register: Register[Generator]) -> None:
    register("extractive", ExtractiveGenerator)


@hookimpl
def register_rerankers(register: Register[Reranker]) -> None:
    register("mmr", MMRReranker)
    register("llm", LLMReranker)


@hookimpl
def register_query_transformers(register: Register[QueryTransformer]) -> None:
    register("condense", CondenseTransformer)
    register("multi-query", MultiQueryTransformer)
    register("hyde", HydeTransformer)


@hookimpl
def register_executors(register: Register[Executor]) -> None:
    register("inprocess", InProcessExecutor)
