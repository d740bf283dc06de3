"""Query and document prefixes: the instructions some embedding models were
trained with, which they need at query (and sometimes document) time.

``query_prefix`` / ``document_prefix`` left unset (None) are chosen
automatically, in this order:

1. the model's own prompts, when it has a non-empty one: ``prompts`` in its
   ``config_sentence_transformers.json`` named ``query`` and ``document``
   (or ``passage`` / ``corpus``); ``ragloom tune`` writes these;
2. the model family, from the model's name (a Hub name's last part, or a
   directory's name): :data:`FAMILIES`;
3. none.

An explicit value always wins; ``""`` turns a prefix off.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath

__all__ = ["FAMILIES", "Family", "automatic_prefixes", "family_of"]

BGE_EN_QUERY = "Represent this sentence for searching relevant passages: "


@dataclass(frozen=True)
class Family:
    """Models whose name matches ``pattern`` (case-insensitive) get these prefixes."""

    name: str
    pattern: str
    query_prefix: str
    document_prefix: str = ""


FAMILIES: tuple[Family, ...] = (
    # BAAI's English BGE models: an instruction on queries, none on passages.
    Family("bge-en", r"^bge-(small|base|large)-en(-v1\.5)?$", BGE_EN_QUERY),
    # E5 (intfloat/e5-*, multilingual-e5-*), but not the *-instruct ones, whose
    # queries take a task description ("Instruct: ...\nQuery: ") that only the
    # user can write.
    Family("e5", r"^(multilingual-)?e5-(?!.*instruct).*$", "query: ", "passage: "),
)
"""Known families, first match wins. Add a family by adding an entry."""

_DOCUMENT_PROMPTS = ("document", "passage", "corpus")


def family_of(model: str) -> Family | None:
    """The family of a model named ``model`` (Hub name or directory path)."""
    name = PurePath(model.replace("\\", "/")).name.lower()
    for family in FAMILIES:
        if re.match(family.pattern, name):
            return family
    return None


def automatic_prefixes(model: str, prompts: Mapping[str, str] | None) -> tuple[str, str]:
    """``(query prefix, document prefix)`` for a model named ``model`` whose
    sentence-transformers config holds ``prompts``."""
    prompts = prompts or {}
    query = prompts.get("query") or ""
    document = next((prompts[k] for k in _DOCUMENT_PROMPTS if prompts.get(k)), "")
    if query or document:
        return query, document
    family = family_of(model)
    if family is not None:
        return family.query_prefix, family.document_prefix
    return "", ""
