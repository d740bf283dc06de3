"""Access control: who may read a chunk, as a filter no caller can widen.

Documents carry the principals that may read them in a metadata field
(``principals`` by default): set by a loader, or by ``access.rules`` in the
config at index time. A query made with ``principals=[...]`` gets
``access_filter(...)`` ANDed into the filter of every store, inside the
store, before ranking; nothing a caller's own filter says can undo an AND.
A store that cannot express the filter fails the query (fail closed).
``Labeller`` sets each document's field at index time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from .errors import AccessError, InvalidRequestError
from .filters import And, Condition, Filter, Or, evaluate, parse
from .globs import compile_glob

if TYPE_CHECKING:
    from .settings import AccessSettings
    from .types import Document

__all__ = ["Labeller", "access_filter", "caller_filter", "restrict"]

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
        raise InvalidRequestError("principals must be a list of ids, not one string")
    if access is None:  # no ACL configured: unlabelled chunks are public
        return access_filter(principals, unlabeled="public")
    return access_filter(principals, field=access.field, unlabeled=access.unlabeled)


class Labeller:
    """Sets a document's access field at index time (``access:`` in the config):
    the principals of every matching rule, plus the document's own labels when
    ``access.trust_document_labels`` allows them, plus the labels the loader's
    own configured ``metadata:`` sets (written by the operator: always trusted)."""

    def __init__(self, access: AccessSettings | None) -> None:
        self.access = access
        self._rules = [
            (compile_glob(r.path) if r.path else None, parse(r.match), tuple(r.principals))
            for r in (access.rules if access else [])
        ]
        self.matched: set[int] = set()
        """The rules (by position) that matched a document since ``reset``."""
        self.last: tuple[int, ...] = ()
        """The rules (by position) that matched the document labelled last."""

    def reset(self) -> None:
        self.matched = set()

    def unmatched(self) -> list[str]:
        """The rules with a ``path`` glob that matched no document since
        ``reset``: a glob that misses every document's ``source`` labels
        nothing, and leaves its documents unlabelled (to ``unlabeled``)."""
        rules = self.access.rules if self.access else []
        return [
            f"access.rules[{i}] (path: {rule.path!r})"
            for i, rule in enumerate(rules)
            if rule.path and i not in self.matched
        ]

    def configured(self, loader: Any) -> Any:
        """The access field the loader's config ``metadata:`` sets, if any."""
        if self.access is None:
            return None
        metadata = getattr(loader.config, "metadata", None)
        return metadata.get(self.access.field) if isinstance(metadata, Mapping) else None

    def label(self, doc: Document, configured: Any = None) -> Document:
        access = self.access
        self.last = ()
        if access is None:
            return doc
        field = access.field
        own = doc.metadata.get(field) if access.trusts_documents else None
        granted: set[str] = set(_labels(own)) | set(_labels(configured))
        for number, (glob, match, principals) in enumerate(self._rules):
            if (glob is not None and glob.fullmatch(doc.source)) or (
                match is not None and evaluate(match, doc.metadata)
            ):
                granted.update(principals)
                self.matched.add(number)
                self.last = (*self.last, number)
        metadata = {k: v for k, v in doc.metadata.items() if k != field}
        if granted or (field in doc.metadata and access.trusts_documents):
            metadata[field] = sorted(granted)
        if metadata == doc.metadata:
            return doc
        return replace(doc, metadata=metadata)


def _labels(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]
