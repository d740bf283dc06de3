"""Access control: who may read a chunk, as a filter no caller can widen.

Documents carry the principals that may read them in a metadata field
(``principals`` by default): set by a loader, or by ``access.rules`` in the
config at index time. A query made with ``principals=[...]`` gets
``access_filter(...)`` ANDed into the filter of every store, inside the
store, before ranking; nothing a caller's own filter says can undo an AND.
A store that cannot express the filter fails the query (fail closed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from .filters import And, Condition, Filter, Or

__all__ = ["access_filter", "restrict"]

Unlabeled = Literal["deny", "public"]


def access_filter(
    principals: Sequence[str], *, field: str = "principals", unlabeled: Unlabeled = "deny"
) -> Filter:
    """Chunks readable by any of ``principals``: those whose ``field`` lists one
    of them, plus, when ``unlabeled`` is ``public``, those without the field."""
    allowed = Condition(field, "$in", tuple(str(p) for p in principals))
    if unlabeled == "public":
        return Or((allowed, Condition(field, "$exists", False)))
    return allowed


def restrict(where: Filter | None, acl: Filter | None) -> Filter | None:
    """``where`` ANDed with the access filter (which always comes first)."""
    if acl is None:
        return where
    if where is None:
        return acl
    return And((acl, where))
