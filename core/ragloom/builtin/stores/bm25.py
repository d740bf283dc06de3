"""``bm25``: keyword search with BM25, on bm25s (default) or rank-bm25.

Texts go through a configurable ``Analyzer`` (``ragloom.analysis``: lowercase,
split, fold accents, drop stopwords, stem) at index and at query time. Only
chunks sharing at least one term with the query are hits, and filters are
applied before ranking: chunks that do not match never compete for the top k.

Backends:

- ``bm25s`` (default): the BM25 weight of every (chunk, term) pair is
  precomputed into a sparse matrix, so a query sums a few of its columns.
  ``method`` picks the scoring: ``lucene`` (default), ``robertson``,
  ``atire``, ``bm25l`` or ``bm25+``.
- ``rank-bm25``: the reference pure-Python implementation; ``variant`` picks
  ``okapi``, ``l`` or ``plus``. Slow beyond tens of thousands of chunks.

``variant`` also works with bm25s, mapped to the same formula:
``okapi`` -> ``robertson`` (rank-bm25 floors negative IDFs at a quarter of the
mean IDF where bm25s floors them at 0, so rankings may differ on terms found
in more than half the chunks), ``l`` -> ``bm25l``, ``plus`` -> ``bm25+``.

A store with its own filter (``filter:`` in the config, e.g. one layer of
a ``layers`` chunker) holds every chunk but builds its index, statistics
and whole documents over the matching chunks only.

Neither library adds documents incrementally: writes mark the index stale and
the next query rebuilds it from the analysed terms kept in memory. With
bm25s, the index built is also kept on disk (``keep_index``, on by default)
in ``<index_dir>/<name>/scores/``, named by a digest of exactly what it was
built from (the term lists, the vocabulary's size and the scoring
parameters): the next process to open the store with the same terms (a CLI
command, a server after an index run) memory-maps it instead of building it
again, and a stale or damaged one is never used.

Persisted atomically to ``<index_dir>/<name>/bm25.npz``: the chunks (texts
and metadata), their terms, and the analyzer's fingerprint. When the
analyzer configured differs from the one the file was written with, the
stored texts are analysed again on open (and logged), so changing analyzer
options never needs re-loading the documents. A ``bm25.json`` written by an
earlier version is read the same way and replaced on the next flush.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, NamedTuple

from pydantic import Field, model_validator

from ... import ledger
from ...analysis import Analyzer, AnalyzerConfig
from ...components import ComponentConfig
from ...errors import StoreError
from ...filters import ALL_OPERATORS, Filter, beyond, check_supported, evaluate
from ...ledger import stamp_of
from ...spelling import is_english, one_slip_away, swapped
from ...types import Chunk, Hit
from ._persist import FileStore, chunk_from_dict, chunk_to_dict

if TYPE_CHECKING:
    import numpy as np

__all__ = ["BM25Store"]

log = logging.getLogger("ragloom")

VARIANT_METHODS = {"okapi": "robertson", "l": "bm25l", "plus": "bm25+"}
"""rank-bm25 ``variant`` -> the bm25s ``method`` computing the same formula."""
DEFAULT_DELTA = {"bm25l": 0.5, "bm25+": 1.0}
_FORMAT = 2


class BM25Store(FileStore):
    """BM25 keyword search over chunk texts (bm25s or rank-bm25)."""

    capabilities = frozenset({"text"})
    filter_operators = ALL_OPERATORS

    class Config(ComponentConfig):
        path: str | None = None
        """Directory for the store's file; default ``<index_dir>/<store name>``."""
        backend: Literal["bm25s", "rank-bm25"] = "bm25s"
        """``bm25s`` (sparse matrix, fast) or ``rank-bm25`` (reference, slow)."""
        method: Literal["lucene", "robertson", "atire", "bm25l", "bm25+"] = "lucene"
        """bm25s scoring method; only with ``backend: bm25s``."""
        variant: Literal["okapi", "l", "plus"] = "okapi"
        """rank-bm25 class (BM25Okapi, BM25L, BM25Plus); with bm25s, mapped to a method."""
        k1: float = Field(1.5, ge=0)
        """Term-frequency saturation."""
        b: float = Field(0.75, ge=0, le=1)
        """Length normalisation."""
        delta: float | None = Field(None, ge=0)
        """BM25L/BM25+ only: term-frequency floor; default 0.5 (BM25L), 1.0 (BM25+)."""
        analyzer: AnalyzerConfig = AnalyzerConfig()
        """Text analysis at index and query time."""
        scope: Literal["chunk", "document"] = "chunk"
        """What BM25 ranks: each ``chunk`` on its own, or each ``document`` as a
        whole (its chunks' terms together, overlaps counted once), answered
        with the document's best chunk for the query and the document's score:
        one hit per document."""
        spelling: bool = True
        """Search a query's slip of typing as the indexed word it is one slip
        from: a word no chunk says and no English dictionary knows ("parkng",
        "Torronto") is searched as the word one slip away (a letter missed,
        doubled, mistyped, or two swapped; never at the first letter, and a
        capitalised word never by a mistyped letter: ``ragloom.spelling``)
        that the most chunks say, none where two are said by as many. Only
        with an English analyzer (``language: english`` or ``porter``: the
        dictionary is English). ``false`` searches every word as typed."""
        keep_index: bool = True
        """bm25s only: keep the built search index (its score matrix) in a
        ``scores/`` folder beside the store's file, so that the next process
        opening the same terms memory-maps it instead of building it again
        (building takes about 25 s at 550,000 chunks). Costs disk, up to about
        the store file's size; ``false`` builds it in memory in every process."""

        @model_validator(mode="after")
        def _consistent(self) -> BM25Store.Config:
            given = self.model_fields_set
            if self.backend == "rank-bm25" and "method" in given:
                raise ValueError(
                    f"`method: {self.method}` is a bm25s option; with `backend: rank-bm25` "
                    "choose the formula with `variant` (okapi, l or plus), "
                    "or set `backend: bm25s`"
                )
            if self.backend == "bm25s" and {"method", "variant"} <= given:
                mapped = VARIANT_METHODS[self.variant]
                if mapped != self.method:
                    raise ValueError(
                        f"`variant: {self.variant}` (bm25s method {mapped!r}) contradicts "
                        f"`method: {self.method}`; with `backend: bm25s` set only `method`"
                    )
            if self.delta is not None and self.formula not in DEFAULT_DELTA:
                raise ValueError(
                    f"`delta` only applies to BM25L and BM25+ (method bm25l or bm25+, "
                    f"variant l or plus), not to {self.formula!r}; remove it"
                )
            return self

        @property
        def formula(self) -> str:
            """The scoring in bm25s's names: ``method``, or ``variant`` mapped."""
            given = self.model_fields_set
            if self.backend == "bm25s" and ("method" in given or "variant" not in given):
                return self.method
            return VARIANT_METHODS[self.variant]

        @property
        def effective_delta(self) -> float | None:
            if self.formula not in DEFAULT_DELTA:
                return None
            return self.delta if self.delta is not None else DEFAULT_DELTA[self.formula]

    config: Config
    file_name = "bm25.npz"
    legacy_names = ("bm25.json",)

    def __init__(self, config: ComponentConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._analyzer = Analyzer(self.config.analyzer)
        self._lock = threading.Lock()

    def _reset(self) -> None:
        super()._reset()
        self._chunks: dict[str, Chunk] = {}
        self._terms: dict[str, np.ndarray] = {}  # chunk id -> int32 term ids
        self._vocab: dict[str, int] = {}  # term -> id, ids 0..len-1 in insertion order
        self._overlaps: dict[str, int] = {}  # chunk id -> leading terms its predecessor holds
        self._index: _Index | None = None

    def fingerprint(self) -> dict[str, Any]:
        """What decides the scores: backend, formula, parameters, analyzer."""
        return {
            "type": self.type_name or type(self).__name__,
            "backend": self.config.backend,
            "formula": self.config.formula,  # in bm25s's names
            **({"variant": self.config.variant} if self.config.backend == "rank-bm25" else {}),
            "k1": self.config.k1,
            "b": self.config.b,
            "delta": self.config.effective_delta,
            "analyzer": self._analyzer.fingerprint(),
            **({"scope": "document"} if self.config.scope == "document" else {}),
        }

    # -- persistence -------------------------------------------------------
    def _open_legacy(self, directory: Path) -> None:
        legacy = directory / "bm25.json"
        if legacy.exists():
            try:
                data = json.loads(legacy.read_text("utf-8"))
                chunks = [chunk_from_dict(c) for c in data["chunks"]]
            except Exception as exc:
                raise self.unreadable(legacy, exc) from exc
            self._reanalyse(chunks, "an earlier format")

    def _load(self, file: Path) -> None:
        import numpy as np

        with np.load(file, allow_pickle=False) as data:
            meta = json.loads(bytes(data["meta"]).decode("utf-8"))
            words = json.loads(bytes(data["vocab"]).decode("utf-8"))
            flat, lengths = data["terms"].astype(np.int32), data["lengths"]
        chunks = [chunk_from_dict(c) for c in meta["chunks"]]
        if len(lengths) != len(chunks) or int(lengths.sum()) != len(flat):
            raise ValueError("its term lists do not match its chunks")
        if len(flat) and (int(flat.min()) < 0 or int(flat.max()) >= len(words)):
            raise ValueError("a term id lies outside its vocabulary")
        if meta.get("analyzer") != self._analyzer.fingerprint():
            self._reanalyse(chunks, "another analyzer")
            return
        self._vocab = {w: i for i, w in enumerate(words)}
        ends = np.cumsum(lengths)
        for chunk, start, end in zip(chunks, ends - lengths, ends):
            self._chunks[chunk.id] = chunk
            self._terms[chunk.id] = flat[start:end]

    def _reanalyse(self, chunks: list[Chunk], why: str) -> None:
        log.info(
            "bm25 store %r: %d chunk(s) were analysed by %s; analysing them again with %s",
            self.context.name or "bm25",
            len(chunks),
            why,
            self.config.analyzer,
        )
        self._add(chunks)
        # the file holds these chunks, analysed otherwise: the next flush (an
        # index run's, under the index lock) writes the new terms; a reader's
        # close writes nothing, so it never puts an older state over a newer run
        self._dirty, self._outdated = False, True

    def _write(self, handle: IO[bytes]) -> None:
        import numpy as np

        if self._file is not None:  # indexes kept for the terms this file replaces
            shutil.rmtree(self._file.parent / "scores", ignore_errors=True)
        arrays = [self._terms[cid] for cid in self._chunks]
        flat = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int32)
        # write only the terms still in use, renumbered densely
        used = np.bincount(flat, minlength=len(self._vocab)) > 0
        renumber = (np.cumsum(used) - 1).astype(np.int32)
        words = [w for w, keep in zip(self._vocab, used.tolist()) if keep]
        meta = {
            "format": _FORMAT,
            "analyzer": self._analyzer.fingerprint(),
            "chunks": [chunk_to_dict(c) for c in self._chunks.values()],
        }

        def as_bytes(value: Any) -> np.ndarray:
            return np.frombuffer(json.dumps(value).encode("utf-8"), dtype=np.uint8)

        buffer = io.BytesIO()
        np.savez(
            buffer,
            meta=as_bytes(meta),
            vocab=as_bytes(words),
            terms=renumber[flat] if len(flat) else flat,
            lengths=np.array([len(a) for a in arrays], dtype=np.int64),
        )
        handle.write(buffer.getvalue())

    # -- data --------------------------------------------------------------
    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray | None = None) -> None:
        self._add(chunks)

    def _add(self, chunks: Sequence[Chunk]) -> None:
        import numpy as np

        if not chunks:
            return
        vocab = self._vocab
        intern = vocab.setdefault
        for chunk, terms in zip(chunks, self._analyzer.analyze_many([c.text for c in chunks])):
            self._chunks[chunk.id] = chunk
            self._terms[chunk.id] = np.array([intern(t, len(vocab)) for t in terms], dtype=np.int32)
            self._overlaps.pop(chunk.id, None)
        self._index = None
        self._dirty = True

    def delete(self, *, ids: Sequence[str] | None = None, where: Filter | None = None) -> int:
        if ids is None and where is None:
            raise StoreError("delete needs ids= or where=; to empty a store, rebuild the index")
        if where is not None:
            check_supported(where, self.filter_operators, self.context.name or "bm25")
        doomed = {i for i in (ids or ()) if i in self._chunks}
        if where is not None:
            doomed |= {cid for cid, c in self._chunks.items() if evaluate(where, c.metadata)}
        for cid in doomed:
            del self._chunks[cid]
            del self._terms[cid]
            self._overlaps.pop(cid, None)
        if doomed:
            self._index = None
            self._dirty = True
        return len(doomed)

    def count(self, where: Filter | None = None) -> int:
        if where is None:
            return len(self._chunks)
        check_supported(where, self.filter_operators, self.context.name or "bm25")
        return sum(1 for c in self._chunks.values() if evaluate(where, c.metadata))

    def ids(self, where: Filter | None = None) -> Iterator[str]:
        if where is None:
            return iter(list(self._chunks))
        check_supported(where, self.filter_operators, self.context.name or "bm25")
        return iter([cid for cid, c in self._chunks.items() if evaluate(where, c.metadata)])

    def overlap_terms(self, previous: Chunk, chunk: Chunk) -> int:
        """How many of ``chunk``'s leading terms repeat the end of ``previous``,
        the chunk before it in its document (the chunker's overlap): 0 when
        they do not overlap or ``chunk``'s text is not its span of the document."""
        shared = self._overlaps.get(chunk.id)
        if shared is None:
            span = previous.end - chunk.start
            text = chunk.text
            exact = len(text) == chunk.end - chunk.start
            shared = (
                len(self._analyzer.analyze(text[:span])) if exact and 0 < span < len(text) else 0
            )
            self._overlaps[chunk.id] = shared
        return shared

    # -- search ------------------------------------------------------------
    def warm(self) -> None:
        """Build the search index (lazily made on the first query after a
        write or a reload: about a second at 45,000 chunks)."""
        if self._chunks:
            self._ensure_index()

    def kept(self, kind: str) -> Path | None:
        """Where the bm25s index of ``kind`` (``chunks`` or ``documents``) is
        kept on disk, as a name's stem (the digest is added), or None."""
        if not self.config.keep_index or self._file is None or self.config.backend != "bm25s":
            return None
        return self._file.parent / "scores" / kind

    def _ensure_index(self) -> _Index:
        index = self._index
        if index is None:
            with self._lock:
                index = self._index
                if index is None:
                    index = self._index = _Index.build(self)
        return index

    def spelled(self, text: str) -> str:
        """The query with each slip of typing (``spelling``) written as the
        spelling it is searched as: "How much is parkng?" as "How much is
        parking?", for the other stores (a dense one embeds it) to be asked
        with too."""
        if not self._reads_slips() or not self._chunks:
            return text
        index = self._ensure_index()
        slips = _slips(text, self._analyzer, index)
        if not slips:
            return text
        pattern = self._analyzer.pattern
        return pattern.sub(lambda m: slips.get(m.group(), (0, m.group()))[1], text)

    def _reads_slips(self) -> bool:
        return self.config.spelling and self._analyzer.config.language in _ENGLISH

    def query(
        self,
        *,
        vector: np.ndarray | None = None,
        text: str | None = None,
        k: int = 10,
        where: Filter | None = None,
    ) -> list[Hit]:
        import numpy as np

        name = self.context.name or "bm25"
        if text is None:
            raise StoreError(f"the bm25 store {name!r} answers text queries")
        if where is not None:
            check_supported(where, self.filter_operators, name)
        if k <= 0 or not self._chunks:
            return []
        index = self._ensure_index()
        vocab = index.vocab
        ids = [vocab[t] for t in self._analyzer.analyze(text) if t in vocab]
        if vocab and self._reads_slips():
            ids += [term for term, _ in _slips(text, self._analyzer, index).values()]
        if not ids:
            return []
        rows = index.candidates(ids)  # chunks with at least one query term
        where = beyond(where, self.context.filter)  # the index holds only its matches
        if where is not None and len(rows):
            chunks = index.chunks
            keep = np.fromiter(
                (evaluate(where, chunks[r].metadata) for r in rows.tolist()),
                dtype=bool,
                count=len(rows),
            )
            rows = rows[keep]
        if not len(rows):
            return []
        if index.documents is not None:
            return _best_documents(index, index.documents, ids, rows, k, name)
        scores = index.scores(ids, rows)
        if len(rows) > k:
            best = np.argpartition(-scores, k - 1)[:k]
            rows, scores = rows[best], scores[best]
        order = np.lexsort((rows, -scores))  # best first; ties in insertion order
        return [
            Hit(chunk=index.chunks[r], score=s, store=name, scores={name: s})
            for r, s in zip(rows[order].tolist(), scores[order].tolist())
        ]


_ENGLISH = frozenset({"english", "porter"})
"""The analyzer languages whose queries ``spelling`` reads (its dictionary is English)."""
_SLIPS_ASKED = 32
"""A query's words, at most, that are looked up as slips (a query of 10,000
made-up words would take seconds)."""


def _slips(text: str, analyzer: Analyzer, index: _Index) -> dict[str, tuple[int, str]]:
    """A query's slips of typing (``spelling``), each word as the indexed term
    it is searched as and the spelling of it ("parkng": ``(id of "park",
    "parking")``). A word whose term no chunk has is read as the term of a
    spelling one forgivable slip away (``ragloom.spelling``): of several, the
    one the most chunks say together with the query's other words ("the
    crosing to Craignure": "crossing", not "closing"), then the one not
    reached by a mistyped letter, then the one the most chunks say; none
    where two are alike in all three."""
    vocab = index.vocab
    found: dict[str, tuple[int, str]] = {}
    beside: Any = None  # the rows that say the query's other words
    asked = 0
    # (the analyzer's tokens: "redis_url" is one, and no slip of "redis")
    for word in dict.fromkeys(analyzer.pattern.findall(text)):
        if not word.isalpha():
            continue  # ("Foxp3", "Sall4": a name with a figure is as typed)
        said = analyzer.analyze(word)
        if not said or any(term in vocab for term in said):
            continue  # a stopword, or a word the chunks say
        asked += 1
        if asked > _SLIPS_ASKED:
            break
        spellings = index.slips.get(word)
        if spellings is None:  # (once per word and index: 0.2 to 1 ms)
            spellings = _spellings_of(word, analyzer, index)
            if len(index.slips) >= _SLIPS_KEPT:
                index.slips.clear()
            index.slips[word] = spellings
        if len(spellings) > 1 and beside is None:
            known = [vocab[t] for t in analyzer.analyze(text) if t in vocab]
            beside = index.candidates(known) if known else ()
        if (slip := _likeliest(spellings, index, beside)) is not None:
            found[word] = slip
    return found


_SLIPS_KEPT = 10_000
"""Words whose spellings an index keeps, at most."""


class _Spelling(NamedTuple):
    term: int
    spelled: str
    retyped: bool  # reached by a mistyped letter
    chunks: int  # how many chunks say its term


def _spellings_of(word: str, analyzer: Analyzer, index: _Index) -> tuple[_Spelling, ...]:
    """The indexed terms ``word`` may be a slip for, each with its spelling (an
    English word where one spelling of the term is, capitalised as ``word``)."""
    vocab = index.vocab
    lower = word.lower()
    spellings = analyzer.terms_of(one_slip_away(word))
    found = []
    for term in sorted({t for t in spellings.values() if t in vocab}):
        forms = sorted(s for s, t in spellings.items() if t == term)
        english = [s for s in forms if is_english(s)]
        spelled = (english or forms)[0]
        retyped = all(len(s) == len(lower) and not swapped(lower, s) for s in forms)
        chunks = len(index.candidates([vocab[term]]))
        cased = spelled.capitalize() if word[:1].isupper() else spelled
        found.append(_Spelling(vocab[term], cased, retyped, chunks))
    return tuple(found)


def _likeliest(
    spellings: Sequence[_Spelling], index: _Index, beside: Any
) -> tuple[int, str] | None:
    """Of a word's spellings, the one said most beside the query's other words
    (``beside``: their rows), then not retyped, then said most; None on a tie."""
    import numpy as np

    if not spellings:
        return None
    if len(spellings) == 1:
        return spellings[0].term, spellings[0].spelled

    def key(spelling: _Spelling) -> tuple[int, bool, int]:
        together = 0
        if len(beside):
            rows = index.candidates([spelling.term])
            together = len(np.intersect1d(rows, beside, assume_unique=True))
        return together, not spelling.retyped, spelling.chunks

    ranked = sorted(spellings, key=key, reverse=True)
    if key(ranked[0]) == key(ranked[1]):
        return None
    return ranked[0].term, ranked[0].spelled


def _best_documents(
    index: _Index, documents: _Documents, ids: list[int], rows: np.ndarray, k: int, name: str
) -> list[Hit]:
    """``scope: document``: the best ``k`` documents among those of the
    candidate chunk ``rows``, each as its best chunk among them, scored as
    the document."""
    import numpy as np

    owner = documents.of_row[rows]
    found = np.unique(owner)
    scores = documents.index.scores(ids, found)
    if len(found) > k:
        best = np.argpartition(-scores, k - 1)[:k]
        found, scores = found[best], scores[best]
    order = np.lexsort((found, -scores))  # best first; ties in insertion order
    # each document's best chunk: by document, then chunk score, then row
    by_doc = np.lexsort((rows, -index.scores(ids, rows), owner))
    owners = owner[by_doc]
    firsts = np.ones(len(by_doc), dtype=bool)
    firsts[1:] = owners[1:] != owners[:-1]
    passage = dict(zip(owners[firsts].tolist(), rows[by_doc][firsts].tolist()))
    return [
        Hit(chunk=index.chunks[passage[d]], score=s, store=name, scores={name: s})
        for d, s in zip(found[order].tolist(), scores[order].tolist())
    ]


class _Index:
    """A built BM25 index over a snapshot of the store: rows are chunks in
    insertion order. ``candidates`` are the rows holding any of the term ids;
    ``scores`` their BM25 scores for the query. With ``scope: document``,
    ``documents`` ranks the documents they belong to."""

    documents: _Documents | None = None

    def __init__(self, chunks: list[Chunk], vocab: dict[str, int], n: int) -> None:
        self.chunks = chunks
        self.vocab = vocab
        self.n = n
        self.slips: dict[str, tuple[_Spelling, ...]] = {}  # a query's word -> its spellings

    @staticmethod
    def build(store: BM25Store) -> _Index:
        config = store.config
        chunks = list(store._chunks.values())
        own = store.context.filter
        if own is not None:  # the store's own filter: the rest is not searched at all
            chunks = [c for c in chunks if evaluate(own, c.metadata)]
        docs = [store._terms[c.id] for c in chunks]
        vocab = dict(store._vocab)
        if not any(len(d) for d in docs):
            return _Index(chunks, {}, len(chunks))  # nothing to match
        index = _Index.over(chunks, vocab, docs, config, store.kept("chunks"))
        if config.scope == "document":
            index.documents = _Documents(store, chunks, vocab)
        return index

    @staticmethod
    def over(
        chunks: list[Chunk],
        vocab: dict[str, int],
        docs: list[np.ndarray],
        config: Any,
        kept: Path | None = None,
    ) -> _Index:
        """The configured backend's index of ``docs`` (term ids), a row per
        chunk; with bm25s and ``kept`` (a folder name's stem), read from or
        written to disk there."""
        if config.backend == "rank-bm25":
            return _RankBM25Index(chunks, vocab, docs, config)
        return _BM25sIndex(chunks, vocab, docs, config, kept)

    def candidates(self, ids: list[int]) -> np.ndarray:
        import numpy as np

        indptr, indices = self._postings()
        parts = [indices[indptr[t] : indptr[t + 1]] for t in set(ids)]
        if len(parts) == 1:
            return parts[0]  # one term: its postings, already in row order
        mask = np.zeros(self.n, dtype=bool)
        for part in parts:
            mask[part] = True
        return np.flatnonzero(mask)

    def _postings(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def scores(self, ids: list[int], rows: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class _Documents:
    """The store's documents as BM25 units: each document version (chunks
    sharing a document id and version stamp) is its chunks' terms in chunk
    order, each chunk's overlap with the one before it dropped. ``of_row``
    maps a chunk row to its document's row in ``index``."""

    def __init__(self, store: BM25Store, chunks: list[Chunk], vocab: dict[str, int]) -> None:
        import numpy as np

        groups: dict[tuple[str, str], list[int]] = {}
        for row, chunk in enumerate(chunks):
            # a document being re-indexed has two versions in the store until
            # the run commits: they are two documents here, never one
            version = stamp_of(chunk.id) if "@" in chunk.id else ""
            groups.setdefault((chunk.document_id, version), []).append(row)
        self.of_row = np.empty(len(chunks), dtype=np.int64)
        texts: list[np.ndarray] = []
        firsts: list[Chunk] = []
        for number, rows in enumerate(groups.values()):
            rows.sort(key=lambda r: (chunks[r].index, chunks[r].start))
            self.of_row[rows] = number
            parts, previous = [], None
            for row in rows:
                chunk = chunks[row]
                terms = store._terms[chunk.id]
                if previous is not None:
                    terms = terms[store.overlap_terms(previous, chunk) :]
                parts.append(terms)
                previous = chunk
            texts.append(np.concatenate(parts))
            firsts.append(chunks[rows[0]])
        self.index = _Index.over(firsts, vocab, texts, store.config, store.kept("documents"))


class _BM25sIndex(_Index):
    def __init__(
        self,
        chunks: list[Chunk],
        vocab: dict[str, int],
        docs: list[np.ndarray],
        config: Any,
        kept: Path | None = None,
    ) -> None:
        import logging

        import bm25s

        # bm25s sets its own logger to DEBUG; its per-build lines are noise here
        logging.getLogger("bm25s").setLevel(logging.WARNING)
        super().__init__(chunks, vocab, len(chunks))
        delta = config.effective_delta
        params = {
            "k1": config.k1,
            "b": config.b,
            "delta": 0.5 if delta is None else delta,
            "method": config.formula,
        }
        folder = None
        if kept is not None:
            folder = kept.with_name(f"{kept.name}-{_digest(docs, len(vocab), params)}")
            self.model = _read_kept(folder, len(docs), len(vocab))
            if self.model is not None:
                self._postings_from_model()
                return
        self.model = bm25s.BM25(**params, backend="numpy")
        corpus = [d.tolist() for d in docs]
        self.model.index((corpus, vocab), create_empty_token=False, show_progress=False)
        # the queries give term ids: bm25s's own copies of the vocabulary are unused
        self.model.vocab_dict, self.model.unique_token_ids_set = {}, set()
        self._postings_from_model()
        if folder is not None:
            # a folder of that name that was not read whole is damaged: replaced
            _keep(self.model, folder, damaged=folder.is_dir())

    def _postings_from_model(self) -> None:
        matrix = self.model.scores
        self._indptr, self._indices = matrix["indptr"], matrix["indices"]

    def _postings(self) -> tuple[np.ndarray, np.ndarray]:
        return self._indptr, self._indices

    def scores(self, ids: list[int], rows: np.ndarray) -> np.ndarray:
        return self.model.get_scores_from_ids(ids)[rows]


def _digest(docs: list[np.ndarray], terms: int, params: dict[str, Any]) -> str:
    """What a bm25s index is built from, as a name: the term lists (in row
    order), the vocabulary's size, the scoring parameters and bm25s's version."""
    import bm25s
    import numpy as np

    digest = hashlib.blake2b(digest_size=16)
    about = {"bm25s": bm25s.__version__, "terms": terms, "rows": len(docs), **params}
    digest.update(json.dumps(about, sort_keys=True).encode())
    digest.update(np.fromiter((len(d) for d in docs), dtype=np.int64, count=len(docs)).data)
    for terms_of_row in docs:
        digest.update(np.ascontiguousarray(terms_of_row, dtype=np.int32).data)
    return digest.hexdigest()


def _read_kept(folder: Path, rows: int, terms: int) -> Any:
    """The bm25s index kept in ``folder`` (memory-mapped), or None when there
    is none or it does not hold ``rows`` rows over ``terms`` terms whole (it is
    then built again, and written over)."""
    import bm25s

    if not folder.is_dir():
        return None
    try:
        model = bm25s.BM25.load(folder, mmap=True)
        matrix = model.scores
        indptr, indices, data = matrix["indptr"], matrix["indices"], matrix["data"]
        absent = getattr(model, "nonoccurrence_array", None)  # bm25l and bm25+: a score a term
        whole = (
            matrix["num_docs"] == rows
            and len(indptr) == terms + 1
            and len(indices) == len(data) == int(indptr[-1])
            and (not len(indices) or (int(indices.min()) >= 0 and int(indices.max()) < rows))
            and (absent is None or (getattr(absent, "ndim", 0) == 1 and len(absent) == terms))
        )
    except Exception as exc:  # unreadable: built again
        reason = str(exc)
        if "allow_pickle" in reason:  # numpy's guess for bytes that hold no array
            reason = "not a file bm25s wrote"
        log.warning("bm25 index kept in %s is unreadable (%s); building again", folder, reason)
        return None
    if not whole:
        log.warning("bm25 index kept in %s is not whole; building it again", folder)
        return None
    log.debug("bm25 index read from %s", folder)
    return model


def _keep(model: Any, folder: Path, *, damaged: bool = False) -> None:
    """Write ``model`` to ``folder`` through a temporary folder renamed into
    place (a ``damaged`` one there moved aside first), then delete the folders
    of earlier indexes of its kind. Best effort: a read-only or full disk
    leaves the index in memory only."""
    existing = next((p for p in (folder.parent, *folder.parents) if p.is_dir()), None)
    if existing is None or ledger.read_only_mount(existing):
        return  # nothing is written on a read-only mount, not even an attempt
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    except OSError as exc:
        log.debug("bm25 index not kept in %s: %s", folder.parent, exc)
        return
    try:
        model.save(tmp, show_progress=False)
        for file in tmp.iterdir():
            with open(file, "rb") as handle:
                os.fsync(handle.fileno())
        if damaged:  # a run killed while deleting it, a disk error: aside
            aside = Path(tempfile.mkdtemp(prefix=f".{folder.name}.damaged.", dir=folder.parent))
            with contextlib.suppress(OSError):
                os.replace(folder, aside / "index")
            shutil.rmtree(aside, ignore_errors=True)
        os.rename(tmp, folder)  # fails when another process kept the same index first
    except OSError as exc:
        if not folder.is_dir():
            log.debug("bm25 index not kept in %s: %s", folder, exc)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    kind = folder.name.rsplit("-", 1)[0]
    with contextlib.suppress(OSError):
        for old in folder.parent.iterdir():
            earlier = old != folder and old.name.rsplit("-", 1)[0] == kind
            # a temporary folder left by a process killed while writing one
            abandoned = (
                old.name.startswith(f".{kind}-") and time.time() - old.stat().st_mtime > 3600
            )
            if earlier or abandoned:
                shutil.rmtree(old, ignore_errors=True)


class _RankBM25Index(_Index):
    def __init__(
        self, chunks: list[Chunk], vocab: dict[str, int], docs: list[np.ndarray], config: Any
    ) -> None:
        import numpy as np
        import rank_bm25

        super().__init__(chunks, vocab, len(chunks))
        self.words = list(vocab)
        words = self.words
        corpus = [[words[i] for i in d.tolist()] for d in docs]
        variant = {"robertson": "okapi", "bm25l": "l", "bm25+": "plus"}[config.formula]
        options: dict[str, Any] = {"k1": config.k1, "b": config.b}
        if config.effective_delta is not None:
            options["delta"] = config.effective_delta
        cls = {"okapi": rank_bm25.BM25Okapi, "l": rank_bm25.BM25L, "plus": rank_bm25.BM25Plus}
        self.model = cls[variant](corpus, **options)
        # postings (rows holding each term), for the candidates
        lengths = np.fromiter((len(d) for d in docs), dtype=np.int64, count=len(docs))
        flat = np.concatenate(docs)
        rows = np.repeat(np.arange(len(docs), dtype=np.int64), lengths)
        by_term = np.lexsort((rows, flat))
        terms, rows = flat[by_term], rows[by_term]
        first = np.ones(len(terms), dtype=bool)  # one posting per (term, row)
        first[1:] = (terms[1:] != terms[:-1]) | (rows[1:] != rows[:-1])
        counts = np.bincount(terms[first], minlength=len(vocab))
        self._indptr = np.concatenate([[0], np.cumsum(counts)])
        self._indices = rows[first]

    def _postings(self) -> tuple[np.ndarray, np.ndarray]:
        return self._indptr, self._indices

    def scores(self, ids: list[int], rows: np.ndarray) -> np.ndarray:
        import numpy as np

        terms = [self.words[i] for i in ids]
        return np.asarray(self.model.get_batch_scores(terms, rows.tolist()), dtype=np.float64)
