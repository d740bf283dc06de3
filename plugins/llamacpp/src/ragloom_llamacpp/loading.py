"""Loading a GGUF with llama-cpp-python: one ``Llama`` per component, opened in
``open()`` (or on first use), guarded by a lock (a llama.cpp context serves
one call at a time), dropped by ``close()``."""

from __future__ import annotations

import contextlib
import io
import os
import threading
from typing import Any

from ragloom import Component, ComponentConfig, Context
from ragloom.errors import ComponentError

from .models import ModelNotFoundError, ResolvedModel, resolve_model

__all__ = ["INSTALL_HINT", "LlamaModel", "default_threads"]

INSTALL_HINT = (
    "pip install llama-cpp-python (it builds from source where PyPI has no wheel; on a "
    "machine whose CPU differs from the build machine's, build portable: "
    'CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON '
    '-DGGML_BMI2=ON")'
)


def default_threads() -> int:
    """Threads for llama.cpp when ``n_threads`` is not set: half the CPUs this
    process may use (llama.cpp's own default: one per physical core), 1 to 8.
    More threads than free cores makes llama.cpp much slower, not faster: its
    threads spin while they wait for each other."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    return max(1, min(8, count // 2))


class LlamaModel(Component):
    """A component holding one ``llama_cpp.Llama``. Subclasses set ``error``
    (their kind's error class) and ``what``, and may extend ``_llama_options``."""

    error: type[ComponentError] = ComponentError
    what = "llamacpp"

    def __init__(self, config: ComponentConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._llama: Any = None
        self._resolved: ResolvedModel | None = None
        self._load_lock = threading.Lock()
        self._lock = threading.RLock()  # one llama.cpp call at a time

    def open(self, context: Context | None = None) -> None:
        super().open(context)
        self.llama  # noqa: B018 (loads the model now, not on the first question)

    def close(self) -> None:
        llama, self._llama = self._llama, None
        if llama is not None:
            with self._lock:
                llama.close()

    @property
    def resolved(self) -> ResolvedModel:
        if self._resolved is None:
            try:
                self._resolved = resolve_model(
                    self.config.model_path,  # type: ignore[attr-defined]
                    self.context.base_dir,
                )
            except ModelNotFoundError as exc:
                raise self.error(f"{self.what}: {exc}") from None
        return self._resolved

    @property
    def llama(self) -> Any:
        """The loaded ``Llama`` (loaded now if need be)."""
        llama = self._llama
        if llama is not None:
            return llama
        with self._load_lock:
            if self._llama is None:
                self._llama = self._load()
            return self._llama

    def _llama_options(self) -> dict[str, Any]:
        config: Any = self.config
        threads = config.n_threads or default_threads()
        return {"n_ctx": config.n_ctx, "n_threads": threads, "n_threads_batch": threads}

    def _load(self) -> Any:
        resolved = self.resolved
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            message = f"{self.what} needs llama-cpp-python ({exc}): {INSTALL_HINT}"
            raise self.error(message) from None
        said = io.StringIO()  # llama.cpp's log lines (printed by llama-cpp-python)
        try:
            with contextlib.redirect_stderr(said):
                return Llama(model_path=str(resolved.path), verbose=False, **self._llama_options())
        except (ValueError, RuntimeError, OSError) as exc:
            log = " ".join(said.getvalue().split())[-300:]
            raise self.error(
                f"{self.what}: could not load model_path {resolved.spec!r} ({resolved.path}): "
                f"{exc}{f' ({log})' if log else ''}; is it a GGUF file that this "
                "llama-cpp-python can read?"
            ) from None
