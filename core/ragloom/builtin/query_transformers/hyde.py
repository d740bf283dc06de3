"""``hyde``: Hypothetical Document Embeddings (Gao et al., 2022). The model
writes a short passage that would answer the question; retrieval searches
with it, since a passage lies nearer to passages than a question does.

    query_transformers:
      - {type: hyde}

The passage may be wrong: it is only a search key, never shown or cited.
With ``include_question`` (the default) the question is searched as well,
so keyword stores still see the user's own words.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from ...components import ComponentConfig, Message
from ._chat import ChatTransformer

__all__ = ["HydeTransformer"]

SYSTEM = (
    "Write a short passage (at most {words} words) from a document that answers "
    "the user's question, in the language of the question. Reply with the passage only."
)


class HydeTransformer(ChatTransformer):
    """Question -> a hypothetical answer passage to search with (see the module docs)."""

    class Config(ComponentConfig):
        words: int = Field(100, gt=0, le=500)
        """About how long the passage is."""
        include_question: bool = True
        """Search with the question as asked too."""

    config: Config

    def transform(self, question: str, history: Sequence[Message] = ()) -> list[str]:
        words = self.config.words
        reply = self.ask(SYSTEM.format(words=words), question, max_tokens=2 * words)
        passage = " ".join((reply or "").split())
        queries = ([question] if self.config.include_question else []) + (
            [passage] if passage else []
        )
        return queries or [question]
