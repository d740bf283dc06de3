"""Deterministic text embeddings and relevance shared by the fakes, so rankings mean something."""

from __future__ import annotations

import hashlib
import math
import re

from .base import RecordedRequest

# -- text features shared by the fakes ---------------------------------------------------

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "my",
        "of",
        "on",
        "or",
        "the",
        "their",
        "there",
        "this",
        "to",
        "was",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "you",
        "your",
    ]
)


def _terms(text: str, limit: int | None = None) -> list[str]:
    """Lower-cased words without stop words, crudely stemmed (plural, -ing, -ed)."""
    words = _WORD.findall(text.lower())
    if limit is not None:
        words = words[:limit]
    out = []
    for word in words:
        if word in _STOP:
            continue
        for suffix in ("ing", "ed", "es", "s"):
            if len(word) > len(suffix) + 2 and word.endswith(suffix):
                word = word[: -len(suffix)]
                break
        out.append(word)
    return out


def text_embedding(text: str, dimension: int) -> list[float]:
    """A deterministic unit vector from the words of ``text`` (feature hashing
    of stemmed words and word pairs, signed): texts sharing words are close.
    The empty or stop-word-only text gets a fixed unit vector."""
    vector = [0.0] * dimension
    terms = _terms(text)
    features = terms + [f"{a} {b}" for a, b in zip(terms, terms[1:])]
    for feature in features or [""]:
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        slot = int.from_bytes(digest[:4], "little") % dimension
        sign = 1.0 if digest[4] & 1 else -1.0
        vector[slot] += sign * (1.0 if " " not in feature else 0.5)
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def text_relevance(query: str, document: str, max_words: int | None = None) -> float:
    """A relevance score in [0, 1] of ``document`` for ``query``, from the words they
    share (cosine of term counts); depends on the two texts only, as Cohere's
    scores do, so scores from separate requests compare."""
    q, d = _terms(query), _terms(document, max_words)
    if not q or not d:
        return 0.0
    qc: dict[str, int] = {}
    dc: dict[str, int] = {}
    for t in q:
        qc[t] = qc.get(t, 0) + 1
    for t in d:
        dc[t] = dc.get(t, 0) + 1
    dot = sum(n * dc.get(t, 0) for t, n in qc.items())
    norm = math.sqrt(sum(n * n for n in qc.values())) * math.sqrt(sum(n * n for n in dc.values()))
    return round(dot / norm, 6) if norm else 0.0


def _bearer_ok(request: RecordedRequest, api_key: str | None) -> bool:
    if api_key is None:
        return True
    return request.headers.get("authorization", "") == f"Bearer {api_key}"


# -- Cohere ------------------------------------------------------------------------------
