"""Hook implementations for the built-in components: hookimpls only.

Built-ins register through the same public hooks as any third-party plugin.
"""

from __future__ import annotations

from ..components import Chunker, Embedder, Generator, Loader, Reranker, Store
from ..hookspecs import hookimpl
from ..registry import Register
from .bm25_store import BM25Store
from .code_chunker import CodeChunker
from .code_loader import CodeLoader
from .directory_loader import DirectoryLoader
from .extractive import ExtractiveGenerator
from .file_loader import FileLoader
from .fixed_chunker import FixedChunker
from .hash_embedder import HashEmbedder
from .html_chunker import HtmlChunker
from .html_loader import HtmlLoader
from .markdown_chunker import MarkdownChunker
from .markdown_loader import MarkdownLoader
from .memory_store import MemoryStore
from .mmr_reranker import MMRReranker
from .parent_chunker import ParentChunker
from .pdf_loader import PdfLoader
from .record_loaders import CsvLoader, JsonlLoader
from .recursive_chunker import RecursiveChunker
from .semantic_chunker import SemanticChunker
from .sentence_chunker import SentenceChunker


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
