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
from typing import TYPE_CHECKING, Literal

from .errors import AccessError
from .filters import And, Condition, Filter, Or

if TYPE_CHECKING:
    from .settings import AccessSettings

__all__ = ["access_filter", "caller_filter", "restrict"]

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


def caller_filter(access: AccessSettings | None, principals: Sequence[str] | None) -> Filter | None:
    """The filter for a query made with ``principals`` under the config's
    ``access:`` section (None when neither applies). With ``access:``
    configured, ``principals=None`` is refused: a query must say whose it is."""
    if principals is None:
        if access is not None:
            raise AccessError(
                "this pipeline enforces access control (`access:` in its config): "
                "pass principals=[...] with the caller's user and group ids "
                "(an empty list reads only what is public)"
            )
        return None
    if isinstance(principals, str):
        raise TypeError("principals must be a list of ids, not one string")
    if access is None:  # no ACL configured: unlabelled chunks are public
        return access_filter(principals, unlabeled="public")
    return access_filter(principals, field=access.field, unlabeled=access.unlabeled)
