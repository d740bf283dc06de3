"""ragloom-openai: OpenAI's embeddings and chat completions, or those of any
OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio) through ``base_url``.

    embedder: {type: openai, model: text-embedding-3-small}
    generator: {type: openai, model: gpt-4o-mini}

The API key comes from ``OPENAI_API_KEY`` (or ``api_key: ${VAR}``); a server
given by ``base_url`` needs none unless it asks for one.
"""

from __future__ import annotations

from .embedder import MODELS, OpenAIEmbedder
from .generator import OpenAIGenerator

__version__ = "0.1.0"

__all__ = ["MODELS", "OpenAIEmbedder", "OpenAIGenerator", "__version__"]
