"""Text analysis for keyword search: text in, index terms out.

The same ``Analyzer`` runs at index time and at query time, so a query term
matches a chunk term exactly when both came from the same words::

    >>> Analyzer(AnalyzerConfig()).analyze("Pricing: the café's prices")
    ['price', 'cafe', 'price']

The steps, in order:

1. ``lowercase`` the text (``str.lower``).
2. Split it into tokens with ``token_pattern`` (default ``(?u)\\b\\w\\w+\\b``:
   runs of two or more word characters, the pattern of scikit-learn's
   ``CountVectorizer`` and bm25s; single characters are dropped).
3. ``fold_unicode``: NFKD-decompose each token and strip the combining marks,
   so ``café`` and ``cafe`` are one term (``ﬁ`` becomes ``fi``, ``²`` ``2``).
4. Drop tokens shorter than ``min_token_length`` characters.
5. Drop stopwords: ``"language"`` is the built-in list for English (the 33
   words of Lucene's ``EnglishAnalyzer``, Elasticsearch's ``_english_`` and
   bm25s's ``"en"``); other languages have no built-in list, so nothing is
   dropped unless ``stopwords`` is a list. A list is lowercased and folded
   like the text. ``"none"`` keeps every word.
6. ``stem`` with the Snowball stemmer of ``language`` (PyStemmer): any name
   in ``Stemmer.algorithms()``, e.g. ``english``, ``german``, ``porter``;
   ``language: none`` (or ``stem: false``) keeps the words as they are.

Steps 3 to 6 depend only on the token, so their result is cached per token:
after warm-up, analysing a text is one regex scan plus one dict lookup per
token. Nothing is downloaded, ever.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pydantic import Field, field_validator

from .components import ComponentConfig

__all__ = ["ENGLISH_STOPWORDS", "Analyzer", "AnalyzerConfig", "stemmer_languages"]

ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)
"""Lucene's default English stop set (``EnglishAnalyzer``), also bm25s's ``"en"``."""

_STOPWORDS_BY_LANGUAGE: dict[str, frozenset[str]] = {
    "english": ENGLISH_STOPWORDS,
    "porter": ENGLISH_STOPWORDS,
}

DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"

_CACHE_LIMIT = 1_000_000  # distinct tokens remembered before the cache starts over


def stemmer_languages() -> list[str]:
    """The Snowball stemmer names PyStemmer knows (``Stemmer.algorithms()``)."""
    try:
        import Stemmer
    except ImportError as exc:  # pragma: no cover - PyStemmer is a core dependency
        raise ValueError(
            "stemming needs PyStemmer: `pip install PyStemmer`, or set `language: none`"
        ) from exc
    return sorted(Stemmer.algorithms())


class AnalyzerConfig(ComponentConfig):
    """Options of an ``Analyzer``; see the module docstring for the steps."""

    language: str = "english"
    """A Snowball stemmer name from ``Stemmer.algorithms()``, or ``none``."""
    lowercase: bool = True
    """Lowercase the text before splitting it."""
    fold_unicode: bool = True
    """NFKD-decompose tokens and strip combining marks: ``café`` == ``cafe``."""
    stopwords: Literal["language", "none"] | list[str] = "language"
    """``language``: the built-in list for ``language`` (English only; other
    languages drop nothing); ``none``; or your own list of words."""
    stem: bool = True
    """Reduce words to their stem with the ``language`` stemmer."""
    min_token_length: int = Field(1, ge=1)
    """Tokens shorter than this (after folding, before stemming) are dropped."""
    token_pattern: str = DEFAULT_TOKEN_PATTERN
    """Regular expression whose matches are the tokens; no capturing groups."""

    @field_validator("language")
    @classmethod
    def _known_language(cls, value: str) -> str:
        name = value.strip().lower()
        if name == "none":
            return name
        known = stemmer_languages()
        if name not in known:
            from .registry import closest

            guess = closest(name, known)
            hint = f"did you mean {guess!r}? " if guess else ""
            raise ValueError(
                f"unknown language {value!r} for the analyzer; {hint}"
                f"use one of: {', '.join(known)}, or 'none' for no stemming"
            )
        return name

    @field_validator("token_pattern")
    @classmethod
    def _valid_pattern(cls, value: str) -> str:
        try:
            compiled = re.compile(value)
        except re.error as exc:
            raise ValueError(
                f"token_pattern {value!r} is not a valid regular expression: {exc}"
            ) from None
        if compiled.groups:
            raise ValueError(
                f"token_pattern {value!r} has capturing groups; write them as (?:...) "
                "so that each whole match is a token"
            )
        if compiled.match(""):
            raise ValueError(f"token_pattern {value!r} matches the empty string")
        return value


def _fold(token: str) -> str:
    """NFKD-decompose and drop combining marks (accents); ASCII passes untouched."""
    if token.isascii():
        return token
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


class Analyzer:
    """Turns text into index terms; see the module docstring.

    Cheap to build; the stemmer is created on first use. Safe to share
    between threads (the stemmer is guarded by a lock).
    """

    def __init__(self, config: AnalyzerConfig | None = None, **options: Any) -> None:
        if config is None:
            config = AnalyzerConfig(**options)
        elif options:
            raise TypeError("pass either an AnalyzerConfig or keyword options, not both")
        self.config = config
        self._pattern = re.compile(config.token_pattern)
        self._lower = config.lowercase
        self._terms: dict[str, str] = {}  # token as matched -> term, "" if dropped
        self._stemmer: Any = None
        self._lock = threading.Lock()
        stop = config.stopwords
        if stop == "none":
            words: Iterable[str] = ()
        elif stop == "language":
            words = _STOPWORDS_BY_LANGUAGE.get(config.language, ())
        else:
            words = stop
        self._stopwords = frozenset(self._normalize(w) for w in words)

    def __repr__(self) -> str:
        return f"Analyzer({self.config!r})"

    # -- public ------------------------------------------------------------
    def analyze(self, text: str) -> list[str]:
        """The terms of ``text``, in order (repeats kept: they are term frequencies)."""
        tokens = self._pattern.findall(text.lower() if self._lower else text)
        terms = self._terms
        try:
            return [term for token in tokens if (term := terms[token])]
        except KeyError:
            known = self._learn(tokens)
            return [term for token in tokens if (term := known[token])]

    def analyze_many(self, texts: Sequence[str]) -> list[list[str]]:
        """``analyze`` of each text (the new tokens of a text are stemmed in one batch)."""
        analyze = self.analyze
        return [analyze(text) for text in texts]

    @property
    def pattern(self) -> re.Pattern[str]:
        """``token_pattern``, compiled: what a token is."""
        return self._pattern

    def terms_of(self, words: Iterable[str]) -> dict[str, str]:
        """The term of each word (``""`` for one dropped: a stopword, too
        short), lowercased as ``analyze`` lowercases, without caching the new
        ones: for words made up at query time (the spellings one slip from a
        query's word), which would crowd out the words of the texts."""
        lower = self._lower
        return self._learn((w.lower() if lower else w for w in words), remember=False)

    def fingerprint(self) -> dict[str, Any]:
        """What decides the terms: the options and the stemmer's version.
        Terms made under one fingerprint are not comparable with another's."""
        data: dict[str, Any] = {"type": "Analyzer", **self.config.model_dump(mode="json")}
        if self._stems:
            import Stemmer

            data["stemmer_version"] = str(Stemmer.version())
        return data

    # -- internals ---------------------------------------------------------
    @property
    def _stems(self) -> bool:
        return self.config.stem and self.config.language != "none"

    def _normalize(self, word: str) -> str:
        """What a stopword goes through so it compares with folded tokens."""
        if self._lower:
            word = word.lower()
        return _fold(word) if self.config.fold_unicode else word

    def _learn(self, tokens: Iterable[str], *, remember: bool = True) -> dict[str, str]:
        """The term of each of ``tokens``, computing (and, if ``remember``,
        caching) the new ones."""
        terms = self._terms
        known: dict[str, str] = {}
        new: list[str] = []
        for token in dict.fromkeys(tokens):
            term = terms.get(token)
            if term is None:
                new.append(token)
            else:
                known[token] = term
        fold = self.config.fold_unicode
        minimum = self.config.min_token_length
        stop = self._stopwords
        kept: list[str] = []
        words: list[str] = []
        learned: dict[str, str] = {}
        for token in new:
            word = _fold(token) if fold else token
            if len(word) < minimum or word in stop:
                learned[token] = ""
            else:
                kept.append(token)
                words.append(word)
        if self._stems and words:
            with self._lock:
                if self._stemmer is None:
                    import Stemmer

                    self._stemmer = Stemmer.Stemmer(self.config.language)
                    self._stemmer.maxCacheSize = 0  # we cache ourselves
                words = self._stemmer.stemWords(words)
        learned.update(zip(kept, words))
        if remember:
            if len(terms) + len(learned) > _CACHE_LIMIT:
                terms.clear()
            terms.update(learned)
        known.update(learned)
        return known
