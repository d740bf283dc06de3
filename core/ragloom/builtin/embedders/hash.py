"""``hash``: a zero-dependency embedder for tests and offline smoke runs.

Signed feature hashing of word n-grams (and optionally character n-grams
within words) into ``dimension`` buckets, with sublinear term frequency
(``1 + log tf``) and L2 normalisation. No model, no network: the same text
gives the same vector in every process on every machine (the hash is
BLAKE2b, never Python's salted ``hash()``). Similar wording gives similar
vectors; it knows nothing of synonyms, so use a real embedder for real
retrieval quality.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import Field, model_validator

from ...components import ComponentConfig, Embedder

if TYPE_CHECKING:
    import numpy as np

__all__ = ["HashEmbedder"]

_TOKEN = re.compile(r"\w+", re.UNICODE)
_CACHE_LIMIT = 1 << 17


class HashEmbedder(Embedder):
    """Feature-hashing embedder: deterministic, fast, dependency-free (numpy only)."""

    class Config(ComponentConfig):
        dimension: int = Field(512, gt=0)
        """Length of the vectors (number of hash buckets)."""
        ngram_range: tuple[int, int] = (1, 2)
        """Smallest and largest word n-gram hashed, inclusive."""
        char_ngrams: int = Field(0, ge=0)
        """0 = off; otherwise also hash character n-grams of this length within
        each word (padded with ``<`` and ``>``), which helps with morphology."""
        lowercase: bool = True
        """Lowercase the text before tokenising."""
        normalize: bool = True
        """Scale each vector to unit L2 length (empty texts stay all-zero)."""
        batch_size: int = Field(256, gt=0)
        """Texts embedded per ``embed_batch`` call by ``embed_documents``."""

        @model_validator(mode="after")
        def _check_ngram_range(self) -> HashEmbedder.Config:
            low, high = self.ngram_range
            if low < 1 or high < low:
                raise ValueError(
                    "ngram_range must be [min, max] with 1 <= min <= max, "
                    f"got {list(self.ngram_range)}; for example ngram_range: [1, 2]"
                )
            return self

    config: Config

    def __init__(self, config: ComponentConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._buckets: dict[str, tuple[int, float]] = {}

    @property
    def dimension(self) -> int:
        return int(self.config.dimension)

    def features(self, text: str) -> Counter[str]:
        """The hashed features of ``text`` with their counts (for inspection and tests)."""
        cfg = self.config
        if cfg.lowercase:
            text = text.lower()
        tokens = _TOKEN.findall(text)
        counts: Counter[str] = Counter()
        low, high = cfg.ngram_range
        for n in range(low, high + 1):
            if n == 1:
                counts.update("w\x1f" + t for t in tokens)
            else:
                counts.update(
                    f"w{n}\x1f" + " ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)
                )
        size = cfg.char_ngrams
        if size:
            for token in tokens:
                padded = f"<{token}>"
                if len(padded) <= size:
                    counts["c\x1f" + padded] += 1
                else:
                    counts.update(
                        "c\x1f" + padded[i : i + size] for i in range(len(padded) - size + 1)
                    )
        return counts

    def _bucket(self, feature: str) -> tuple[int, float]:
        found = self._buckets.get(feature)
        if found is None:
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            found = (value % self.config.dimension, -1.0 if value >> 63 else 1.0)
            if len(self._buckets) >= _CACHE_LIMIT:
                self._buckets.clear()
            self._buckets[feature] = found
        return found

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if isinstance(texts, str):
            raise TypeError("embed_batch takes a sequence of texts; use embed_query for one text")
        rows: list[int] = []
        cols: list[int] = []
        values: list[float] = []
        for row, text in enumerate(texts):
            for feature, tf in self.features(text).items():
                col, sign = self._bucket(feature)
                rows.append(row)
                cols.append(col)
                values.append(sign * (1.0 + math.log(tf)))
        matrix = np.zeros((len(texts), self.config.dimension), dtype=np.float32)
        if values:
            np.add.at(
                matrix,
                (np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)),
                np.asarray(values, dtype=np.float32),
            )
        if self.config.normalize and len(texts):
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            np.divide(matrix, norms, out=matrix, where=norms > 0)
        return np.ascontiguousarray(matrix, dtype=np.float32)
