"""Loading a model once, on ``open()`` or first use, shared by the embedder
and the reranker."""

from __future__ import annotations

import threading
from typing import Any, Generic, TypeVar

from ragloom import Component, ComponentConfig, Context

from .models import ResolvedModel, resolve_model

__all__ = ["LazyModel"]

M = TypeVar("M")


class LazyModel(Component, Generic[M]):
    """A component holding one model: loaded on ``open()`` (or the first use of
    ``model``), thread-safe, dropped by ``close()``. A second ``open()`` keeps
    the model unless the new context makes ``model:`` point elsewhere.
    Subclasses implement ``_load_model()``, setting ``self._resolved``."""

    def __init__(self, config: ComponentConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._model: M | None = None
        self._resolved: ResolvedModel | None = None
        self._lock = threading.Lock()

    def open(self, context: Context | None = None) -> None:
        super().open(context)
        if self._model is not None and self._resolved is not None:
            try:
                moved = resolve_model(self.config.model, self.context.base_dir)  # type: ignore[attr-defined]
            except FileNotFoundError:
                moved = None
            if moved is None or moved.location != self._resolved.location:
                self._model = None
        self._load()

    def close(self) -> None:
        """Drop the model; the next use loads it again."""
        self._model = None

    @property
    def model(self) -> M:
        """The loaded model (loaded now if need be)."""
        return self._load()

    def _load(self) -> M:
        model = self._model
        if model is not None:
            return model
        with self._lock:
            if self._model is None:
                self._model = self._load_model()
            return self._model

    def _load_model(self) -> M:
        raise NotImplementedError
