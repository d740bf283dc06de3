"""The page in force before the one it replaced: how ``extractive`` answers
where some passages are of documents marked ``deprecated: true`` (see
``ragloom.builtin.loaders._deprecated``).

A question is answered from the current pages where one of them answers;
from the deprecated ones where the question asks about them: by a word
that qualifies the document ("the *previous* travel policy", "the *old*
API docs"; not "my old laptop", "the previous year", "legacy clients"), or
by a year or version that only a deprecated page's title, section or path
names ("the hotel limit in the 2024 travel policy").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ._versions import YEAR, versions_in

__all__ = ["asks_of_old", "old_words", "is_deprecated"]

_QUALIFIERS = ("old", "older", "previous", "former", "earlier", "legacy", "superseded", "outdated")
"""Words that date a document ("the previous policy"); not the states a
topic may be in ("an archived project", "a deprecated flag")."""
_DOCUMENTS = (
    "policy|policies|page|pages|guide|guides|docs|doc|documentation|handbook|rules|manual|"
    "edition|terms|procedure|spec|specification|agreement|contract|regulations?|guidelines?|faq"
)
"""What names a document (not "version" or "release": "upgrade from the
previous version" asks the current docs)."""
_OLD_DOCUMENT = re.compile(
    rf"\b({'|'.join(_QUALIFIERS)})\s+(?:[\w-]+\s+){{0,2}}?(?:{_DOCUMENTS})\b", re.IGNORECASE
)
"""A word that qualifies a document as out of date: "the previous (travel) policy"."""


def is_deprecated(metadata: Mapping[str, Any]) -> bool:
    return metadata.get("deprecated") is True


def old_words(question: str) -> set[str]:
    """The words that say the question is about an old document ("previous"
    of "the previous policy"): which page, not what it says."""
    return {match.group(1).lower() for match in _OLD_DOCUMENT.finditer(question)}


_MAJOR = re.compile(r"(?<![\w.-])v\d{1,2}(?![\w.-])")
"""A major version as a name ("the v1 API"), which a deprecated page's title may hold."""


def asks_of_old(question: str, metadata: Iterable[Mapping[str, Any]]) -> bool:
    """Whether the question asks about what a deprecated page says (module
    docs). ``metadata``: the candidates' chunks' metadata."""
    if _OLD_DOCUMENT.search(question):
        return True
    asked = set(YEAR.findall(question)) | versions_in(question) | set(_MAJOR.findall(question))
    if not asked:
        return False
    old: set[str] = set()
    new: set[str] = set()
    for fields in metadata:
        where = " ".join(str(fields.get(key) or "") for key in ("title", "section", "source"))
        named = (set(YEAR.findall(where)) | versions_in(where) | set(_MAJOR.findall(where))) & asked
        (old if is_deprecated(fields) else new).update(named)
    return bool(old - new)
