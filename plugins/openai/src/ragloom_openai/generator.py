"""The ``openai`` generator: chat completions from OpenAI, or any server that speaks them.

    generator: {type: openai, model: gpt-4o-mini}
    generator: {type: openai, model: llama3.2, base_url: "http://localhost:11434/v1"}

Only the chat call is here; the prompt, the context budget, refusal, the
citation check and the degraded answer are core's (``ragloom.ChatGenerator``).
Each call runs under ``ragloom.remote``'s retry policy (429 honouring
``Retry-After``, 5xx, timeouts, cut-short or malformed answers). Streaming
sends ``stream: true`` and yields the tokens as the server sends them; the
stream is retried until its first piece of text arrives, never after (the
caller has seen text by then): a stream that breaks later, or ends without
the model's ``finish_reason``, raises ``GeneratorError``, and the pipeline
degrades the answer to the best passages.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

from pydantic import Field, SecretStr
from ragloom import ChatGenerator, ChatOptions, Message, Reply
from ragloom.errors import GeneratorError
from ragloom.remote import RemoteOptions, retry

from .client import KEY_VARIABLE, api_key, classify, connect, is_openai

__all__ = ["OpenAIGenerator"]


class OpenAIGenerator(ChatGenerator):
    """Chat completions (``gpt-4o-mini`` by default); see the module docs."""

    class Config(ChatOptions, RemoteOptions):
        model: str = Field("gpt-4o-mini", description="A chat model.")
        timeout: float = Field(60.0, gt=0, description="Seconds to wait for one response.")
        api_key: SecretStr | None = Field(None, description="Default: $OPENAI_API_KEY.")
        base_url: str | None = Field(
            None, description="An OpenAI-compatible server, e.g. http://localhost:11434/v1."
        )
        max_tokens_parameter: Literal["auto", "max_tokens", "max_completion_tokens"] = Field(
            "auto",
            description="How `max_tokens` is sent: auto is max_completion_tokens to OpenAI, "
            "max_tokens to another server.",
        )

    config: Config

    def __init__(self, config: Any = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._client: Any = None
        self._sleep: Callable[[float], None] = time.sleep

    def open(self, context: Any = None) -> None:
        super().open(context)
        key = api_key(self.config.api_key, self.config.base_url, GeneratorError, "openai generator")
        self._client = connect(key, self.config.base_url, self.config.timeout)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        self._client = None

    # -- the chat call ------------------------------------------------------------------
    def chat(
        self, messages: Sequence[Message], *, max_tokens: int | None, temperature: float
    ) -> str:
        request = self._request(messages, max_tokens, temperature)
        response = self._retry(lambda: self._client.chat.completions.create(**request))
        choices = getattr(response, "choices", None) or []
        message = getattr(choices[0], "message", None) if choices else None
        content = getattr(message, "content", None)
        if not isinstance(content, str):
            refusal = getattr(message, "refusal", None)
            why = f"a refusal ({refusal})" if refusal else "no text"
            raise GeneratorError(f"{self._what} answered {why}")
        return Reply(content, cut=getattr(choices[0], "finish_reason", None) == "length")

    def chat_stream(
        self, messages: Sequence[Message], *, max_tokens: int | None, temperature: float
    ) -> Iterator[str]:
        request = {**self._request(messages, max_tokens, temperature), "stream": True}
        stream, first, finished = self._retry(lambda: self._start(request))
        pieces = len(first)
        try:
            yield from first
            if finished:
                return
            try:
                for chunk in stream:
                    text, finish = _delta(chunk)
                    if text:
                        pieces += 1
                        yield text
                    if finish:
                        if finish == "length":
                            yield Reply("", cut=True)
                        return
            except GeneratorExit:
                raise
            except Exception as exc:
                failure = classify(exc)
                if failure is None:
                    raise
                raise GeneratorError(
                    f"{self._what}: the stream broke after {pieces} piece(s) of text "
                    f"({failure.describe()})"
                ) from exc
            raise GeneratorError(
                f"{self._what}: the stream ended after {pieces} piece(s) of text without the "
                "model finishing (no finish_reason): the connection was cut"
            )
        finally:
            stream.close()

    # -- helpers ------------------------------------------------------------------------
    @property
    def _what(self) -> str:
        where = f" at {self.config.base_url}" if self.config.base_url else ""
        return f"openai chat (model {self.config.model!r}{where})"

    def _request(
        self, messages: Sequence[Message], max_tokens: int | None, temperature: float
    ) -> dict[str, Any]:
        if self._client is None:
            self.open(self.context)
        request: dict[str, Any] = {
            "model": self.config.model,
            "messages": list(messages),
            "temperature": temperature,
        }
        if max_tokens is not None:
            parameter = self.config.max_tokens_parameter
            if parameter == "auto":
                openai = is_openai(self.config.base_url)
                parameter = "max_completion_tokens" if openai else "max_tokens"
            request[parameter] = max_tokens
        return request

    def _retry(self, call: Callable[[], Any]) -> Any:
        return retry(
            call,
            self.config.retry_policy(),
            classify=classify,
            error=GeneratorError,
            what=self._what,
            key_variable=KEY_VARIABLE,
            hint="the `model` option (and `max_tokens`, `temperature`)",
            sleep=self._sleep,
        )

    def _start(self, request: dict[str, Any]) -> tuple[Any, list[str], bool]:
        """Open the stream and read it up to its first piece of text (or its end):
        what fails until then is retried like any request."""
        stream = self._client.chat.completions.create(**request)
        first: list[str] = []
        try:
            for chunk in stream:
                text, finish = _delta(chunk)
                if text:
                    first.append(text)
                if finish:
                    if finish == "length":
                        first.append(Reply("", cut=True))
                    return stream, first, True
                if first:
                    return stream, first, False
        except BaseException:
            stream.close()
            raise
        stream.close()
        raise _StreamCut("the stream ended before any text, without the model finishing")


class _StreamCut(ConnectionError):
    """A stream that ended before its first text and before ``finish_reason``:
    retried like a dropped connection."""


def _delta(chunk: Any) -> tuple[str, str | None]:
    """The text and ``finish_reason`` of one streamed chunk (usage chunks have neither)."""
    choices = getattr(chunk, "choices", None) or []
    if not choices:
        return "", None
    choice = choices[0]
    text = getattr(getattr(choice, "delta", None), "content", None)
    return (text if isinstance(text, str) else ""), getattr(choice, "finish_reason", None)
