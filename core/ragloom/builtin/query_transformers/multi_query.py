"""``multi-query``: the question plus ``n`` rewrites of it in other words;
retrieval runs once per query and fusion merges the lists, so a passage
worded unlike the question is still found.

    query_transformers:
      - {type: multi-query, n: 3}
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from ...components import ComponentConfig, Message
from ._chat import ChatTransformer, clean_line

__all__ = ["MultiQueryTransformer"]

SYSTEM = (
    "Write {n} different search queries that would find passages answering the "
    "user's question: other words, other angles, same meaning and language. "
    "One query per line, nothing else."
)


class MultiQueryTransformer(ChatTransformer):
    """The question and up to ``n`` rewrites (see the module docs)."""

    class Config(ComponentConfig):
        n: int = Field(3, gt=0, le=10)
        """How many rewrites to ask for."""
        include_question: bool = True
        """Search with the question as asked too."""

    config: Config

    def transform(self, question: str, history: Sequence[Message] = ()) -> list[str]:
        n = self.config.n
        reply = self.ask(SYSTEM.format(n=n), question, max_tokens=64 * n)
        rewrites = [clean_line(line) for line in (reply or "").splitlines()]
        queries = ([question] if self.config.include_question else []) + [q for q in rewrites if q][
            :n
        ]
        return list(dict.fromkeys(queries)) or [question]
