"""``condense``: a follow-up question and the chat history become one
standalone question ("And on the Free plan?" -> "How long are memories kept
on the Free plan?"), so retrieval sees what the user means.

    query_transformers:
      - type: condense
    generator: {type: openai}

Without history the question is used as it is (no call).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from ...components import ComponentConfig, Message
from ._chat import ChatTransformer, clean_line

__all__ = ["CondenseTransformer"]

SYSTEM = (
    "Rewrite the user's last question as one standalone question that can be "
    "understood without the conversation. Keep names, numbers and the language "
    "of the question. Reply with the question only."
)


class CondenseTransformer(ChatTransformer):
    """History + follow-up -> one standalone question (see the module docs)."""

    class Config(ComponentConfig):
        max_turns: int = Field(6, gt=0)
        """How many of the latest turns of history the model sees."""

    config: Config

    def transform(self, question: str, history: Sequence[Message] = ()) -> list[str]:
        turns = [m for m in history if m.get("role") in ("user", "assistant")]
        if not turns:
            return [question]
        shown = "\n".join(
            f"{m['role']}: {' '.join(str(m.get('content', '')).split())}"
            for m in turns[-self.config.max_turns :]
        )
        reply = self.ask(SYSTEM, f"Conversation:\n{shown}\n\nLast question: {question}")
        if not reply:
            return [question]
        standalone = clean_line(reply.splitlines()[0])
        return [standalone or question]
