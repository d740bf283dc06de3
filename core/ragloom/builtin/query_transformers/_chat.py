"""What the LLM query transformers share: the pipeline's chat-model generator,
one short call, and a fallback to the question when the call fails."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from ...components import QueryTransformer
from ...errors import ComponentError

if TYPE_CHECKING:
    from ...generation import ChatGenerator

__all__ = ["ChatTransformer"]

log = logging.getLogger("ragloom")


class ChatTransformer(QueryTransformer):
    """A query transformer that asks the pipeline's generator (a chat model).

    When the call fails the question is used as it is and a warning is
    logged: retrieval goes on with what the user asked.
    """

    needs = frozenset({"generator"})

    @property
    def model(self) -> ChatGenerator:
        from ...generation import ChatGenerator

        generator = self.context.services.get("generator")
        if not isinstance(generator, ChatGenerator):
            raise ComponentError(
                f"query transformer {self.type_name or type(self).__name__!r} needs a chat-model "
                "generator (e.g. `generator: {type: openai}`)"
            )
        return generator

    def ask(self, system: str, user: str, *, max_tokens: int = 256) -> str | None:
        """The model's reply, or None (logged) when the call failed."""
        model = self.model  # a missing or unfit generator is a config error: raised
        try:
            reply = model.chat(
                [{"role": "system", "content": system}, {"role": "user", "content": user}],
                max_tokens=max_tokens,
                temperature=0.0,
            )
        except Exception as exc:  # the call failed: retrieval goes on with the question as asked
            log.warning(
                "query transformer %s failed (%r); using the question as asked",
                self.type_name or type(self).__name__,
                exc,
            )
            return None
        return reply.strip() if isinstance(reply, str) else None


_LIST_MARKER = re.compile(r"^\s*(?:\d{1,2}[.)]|[-*•])\s+")
_LABEL = re.compile(r"^(?:standalone question|question|query|search query)\s*:\s*", re.IGNORECASE)


def clean_line(text: str) -> str:
    """One line of a model's reply without list markers, a label or quotes."""
    line = _LABEL.sub("", _LIST_MARKER.sub("", text.strip()))
    return line.strip().strip('"').strip("'").strip()
