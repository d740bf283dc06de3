"""The ``layers`` chunker and a store's own ``filter``: each document cut
several ways, each store answering with one layer, as if it were the only
layer indexed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pluggy
import pytest
import ragloom
from ragloom.access import restrict
from ragloom.builtin.chunkers.layers import LayersChunker
from ragloom.builtin.chunkers.recursive import RecursiveChunker
from ragloom.builtin.chunkers.sentence import SentenceChunker
from ragloom.config import load_config
from ragloom.errors import ConfigValidationError
from ragloom.filters import beyond, parse
from ragloom.registry import Registry
from ragloom.types import Document

TEXT = (
    "Orbital Coffee roasts beans in small batches. Each batch is tasted before it ships. "
    "The Espresso blend costs $18 a bag. The Filter blend costs $15 a bag and is lighter.\n\n"
    "Orders ship on Mondays and Thursdays. Shipping is free above $40. Returns are accepted "
    "within 14 days when the bag is unopened. Gift cards never expire and can be topped up.\n"
)
DOCS = {
    "coffee.txt": TEXT,
    "harbor.txt": "Harbor Shipping moves containers between ports. Zone A ships in two days. "
    "Zone B ships in five days and costs more. Customs papers are checked at the dock.\n",
    "ledger.txt": "Ledgerly keeps the books of small firms. The Pro edition runs payroll for "
    "fifty employees. The Lite edition exports to CSV only. Support answers within a day.\n",
}
LAYERS = {
    "passages": {"type": "recursive", "size": 160, "overlap": 20},
    "sentences": {"type": "sentence", "size": 70, "overlap_sentences": 0},
}


def test_each_layer_is_its_chunker_and_indices_run_on() -> None:
    document = Document(id="coffee.txt", text=TEXT, metadata={"source": "coffee.txt"})
    chunks = LayersChunker(layers=LAYERS).split(document)
    passages = RecursiveChunker(size=160, overlap=20).split(document)
    sentences = SentenceChunker(size=70, overlap_sentences=0).split(document)
    assert len(chunks) == len(passages) + len(sentences) and len(sentences) > 3
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert len({c.id for c in chunks}) == len(chunks)
    for chunk, alone in zip(chunks, [*passages, *sentences]):
        assert (chunk.text, chunk.start, chunk.end) == (alone.text, alone.start, alone.end)
        assert TEXT[chunk.start : chunk.end] == chunk.text
        assert chunk.id == f"coffee.txt::{chunk.index}"
        assert chunk.metadata["chunk_index"] == chunk.index
    assert [c.metadata["layer"] for c in chunks] == ["passages"] * len(passages) + [
        "sentences"
    ] * len(sentences)
    # the first layer keeps its own ids; a later layer's labels follow the new index
    assert [c.id for c in chunks[: len(passages)]] == [c.id for c in passages]
    first_sentence = chunks[len(passages)]
    assert first_sentence.label == f"coffee.txt#chunk-{len(passages)}"


def test_two_parent_layers_never_share_a_parent_id() -> None:
    document = Document(id="coffee.txt", text=TEXT, metadata={"source": "coffee.txt"})
    layers = {
        "wide": {"type": "parent", "parents": "recursive", "parent_size": 300, "child_size": 80,
                 "child_overlap": 0},
        "narrow": {"type": "parent", "parents": "recursive", "parent_size": 120, "child_size": 60,
                   "child_overlap": 0},
    }  # fmt: skip
    chunks = LayersChunker(layers=layers).split(document)
    parents: dict[str, set[str]] = {}
    for chunk in chunks:
        parents.setdefault(chunk.metadata["parent_id"], set()).add(chunk.metadata["parent_text"])
    assert all(len(texts) == 1 for texts in parents.values())  # one id, one parent
    wide = [c for c in chunks if c.metadata["layer"] == "wide"]
    narrow = [c for c in chunks if c.metadata["layer"] == "narrow"]
    assert wide[0].metadata["parent_id"] == "coffee.txt::parent-0"  # the first layer's, as alone
    assert narrow[0].metadata["parent_id"] == "coffee.txt::parent-0::narrow"
    # an index made before this naming is written again, not left with both
    assert LayersChunker(layers=layers).fingerprint()["parent_ids"] == "per-layer"
    assert "parent_ids" not in LayersChunker(layers=LAYERS).fingerprint()


def test_the_fingerprint_names_every_option_of_every_layer() -> None:
    chunker = LayersChunker(layers=LAYERS)
    layers = dict(chunker.fingerprint()["layers"])
    assert layers["sentences"]["unit"] == "characters"  # a default, filled in
    other = LayersChunker(layers={**LAYERS, "sentences": {"type": "sentence", "size": 90}})
    assert other.fingerprint() != chunker.fingerprint()


@pytest.mark.parametrize(
    ("layers", "expected"),
    [
        ({"s": {"type": "sentance"}}, "unknown chunker type 'sentance'"),
        ({"s": {"type": "sentence", "size": -1}}, "layer 's' (sentence): size"),
        ({"s": {"type": "sentence", "sise": 9}}, "layer 's' (sentence): sise"),
        ({"s": {"size": 9}}, "must be a chunker spec with a `type`"),
        ({"two words": {"type": "sentence"}}, "must be a word"),
        ({"s": {"type": "layers", "layers": {}}}, "cannot be a layer of another"),
        ({}, "at least 1 item"),
    ],
)
def test_a_bad_layer_is_a_config_error_at_its_path(
    registry: Registry, layers: dict, expected: str
) -> None:
    data = {"chunker": {"type": "layers", "layers": layers}, "stores": [{"type": "bm25"}]}
    with pytest.raises(ConfigValidationError) as caught:
        load_config(data, registry)
    assert "chunker.layers" in str(caught.value)
    assert expected in str(caught.value)


def test_a_layer_may_be_a_plugin_chunker(pm: pluggy.PluginManager, registry: Registry) -> None:
    """The layer's type is looked up in the registry the config is validated with."""

    class Halves(ragloom.Chunker):
        def split(self, document: Document) -> list[ragloom.Chunk]:
            middle = len(document.text) // 2
            return [
                ragloom.Chunk(f"{document.id}::{i}", document.id, document.text[a:b], i, a, b,
                              f"{document.id}#half-{i}", {"chunk_index": i})
                for i, (a, b) in enumerate([(0, middle), (middle, len(document.text))])
            ]  # fmt: skip

    class Plugin:
        @ragloom.hookimpl
        def register_chunkers(self, register: Any) -> None:
            register("halves", Halves)

    pm.register(Plugin(), name="halves")
    own = Registry.from_plugin_manager(pm)
    data = {
        "chunker": {"type": "layers", "layers": {"half": {"type": "halves"}, **LAYERS}},
        "stores": [{"type": "bm25"}],
    }
    with pytest.raises(ConfigValidationError, match="unknown chunker type 'halves'"):
        load_config(data, registry)  # validated before the plugin was registered
    config = load_config(data, own)
    chunker = config.chunker.create()
    chunks = chunker.split(Document(id="d", text=TEXT, metadata={}))
    assert [c.label for c in chunks[:2]] == ["d#half-0", "d#half-1"]
    assert chunks[2].metadata["layer"] == "passages" and chunks[2].index == 2


def project(tmp_path: Path, stores: list[dict], chunker: dict | None = None) -> dict:
    docs = tmp_path / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for name, text in DOCS.items():
        (docs / name).write_text(text, "utf-8")
    return {
        "index_dir": str(tmp_path / "index"),
        "loaders": [{"type": "directory", "path": str(docs)}],
        "chunker": chunker or {"type": "layers", "layers": LAYERS},
        "embedder": {"type": "hash", "dimension": 64},
        "stores": stores,
        "retrieval": {"k": 8, "candidates": 40},
    }


QUESTIONS = [
    "How much does the Filter blend cost?",
    "When do orders ship?",
    "Which zone ships in two days?",
    "Who runs payroll for fifty employees?",
    "returns unopened bag",
]


def found(tmp_path: Path, pm: pluggy.PluginManager, config: dict) -> list[list[tuple]]:
    """Each question's hits as (chunk id without its version, layer, rounded score)."""
    with ragloom.Pipeline.from_config(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        pipeline.index()
        out = []
        for question in QUESTIONS:
            hits = pipeline.retrieve(question)
            out.append(
                [
                    (
                        h.chunk.id.rpartition("@")[0],
                        h.chunk.metadata.get("layer"),
                        round(h.score, 9),
                    )
                    for h in hits
                ]
            )
        return out


@pytest.mark.parametrize(
    "store",
    [
        {"type": "bm25", "scope": "document"},
        {"type": "bm25"},
        {"type": "memory"},
    ],
)
def test_a_filtered_store_answers_as_if_its_layer_were_alone(
    tmp_path: Path, pm: pluggy.PluginManager, store: dict
) -> None:
    """bm25's statistics and whole documents, and memory's ranking, over one
    layer of a layered index equal those of an index of that layer alone."""
    layered = project(tmp_path / "a", [{**store, "filter": {"layer": "passages"}}])
    alone = project(tmp_path / "b", [store], chunker=LAYERS["passages"])
    got = found(tmp_path / "a", pm, layered)
    want = found(tmp_path / "b", pm, alone)
    assert any(got)
    assert [[(i, s) for i, _, s in hits] for hits in got] == [
        [(i, s) for i, _, s in hits] for hits in want
    ]
    assert {layer for hits in got for _, layer, _ in hits} == {"passages"}
    # unfiltered, the same store answers with both layers, and otherwise
    mixed = project(tmp_path / "c", [store])
    both = found(tmp_path / "c", pm, mixed)
    assert {layer for hits in both for _, layer, _ in hits} == {"passages", "sentences"}


def test_every_store_answers_with_its_layer_and_fusion_ranks_documents(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    config = project(
        tmp_path,
        [
            {"type": "memory", "name": "passages", "filter": {"layer": "passages"}},
            {"type": "memory", "name": "sentences", "filter": {"layer": "sentences"}},
            {
                "type": "bm25",
                "name": "keywords",
                "scope": "document",
                "filter": {"layer": "passages"},
                "weight": 2,
            },
        ],  # fmt: skip
    )
    config["retrieval"] = {"k": 3, "fusion": "weighted", "fuse_by": "document"}
    layer_of = {"passages": "passages", "sentences": "sentences", "keywords": "passages"}
    with ragloom.Pipeline.from_config(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        report = pipeline.index()
        assert len(report.added) == 3
        hits = pipeline.retrieve("How much does the Filter blend cost?", explain=True)
        assert hits[0].chunk.document_id.endswith("coffee.txt")
        assert len({h.chunk.document_id for h in hits}) == len(hits)  # one hit a document
        seen = set()
        for explained in hits.explanation.hits:
            seen.update(explained.stores)
        assert seen == {"passages", "sentences", "keywords"}
        view = pipeline.retriever.sync()
        harbor = parse({"document_id": "docs/harbor.txt"})
        for spec, (name, store) in zip(pipeline.config.stores, pipeline.stores):
            ask: dict[str, Any] = {"text": "ships"}
            if "dense" in store.capabilities:
                ask = {"vector": pipeline.embedder.embed_query("ships")}
            # asked as the retriever asks it, each store answers with its layer only
            listed = store.query(k=50, where=spec.filter, **ask)
            assert listed and {h.chunk.metadata["layer"] for h in listed} == {layer_of[name]}
            # a caller's filter narrows a store's own: both apply
            listed = store.query(k=50, where=restrict(harbor, spec.filter), **ask)
            assert {(h.chunk.document_id, h.chunk.metadata["layer"]) for h in listed} == {
                ("docs/harbor.txt", layer_of[name])
            }
        narrowed = pipeline.retrieve("ships", filters={"document_id": "docs/harbor.txt"})
        assert [h.chunk.document_id for h in narrowed] == ["docs/harbor.txt"]
        # every store holds every chunk: the ledger's count check passes on a second run
        again = pipeline.index()
        assert again.unchanged == 3 and view.exists


def test_a_store_filter_is_checked_with_the_config(registry: Registry, tmp_path: Path) -> None:
    base = {"chunker": {"type": "layers", "layers": LAYERS}}
    with pytest.raises(ConfigValidationError) as caught:
        load_config({**base, "stores": [{"type": "bm25", "filter": {"layer": {"$near": 1}}}]},
                    registry)  # fmt: skip
    assert "stores[0].filter" in str(caught.value)
    config = load_config(
        {**base, "stores": [{"type": "bm25", "filter": {"layer": "sentences"}, "weight": 2}]},
        registry,
        base_dir=tmp_path,
    )
    spec = config.stores[0]
    assert spec.filter is not None
    again = load_config(config.to_dict(), registry, base_dir=tmp_path)
    assert again.stores[0].filter == spec.filter and again.stores[0].weight == 2


class Headed(ragloom.Chunker):
    """Paragraphs, each headed by its document's id: texts that are not their spans."""

    def split(self, document: Document) -> list[ragloom.Chunk]:
        out, start = [], 0
        for part in document.text.split("\n\n"):
            end, index = start + len(part), len(out)
            metadata = {**document.metadata, "document_id": document.id, "chunk_index": index}
            text, label = f"{document.id}: {part}", f"{document.source}#p{index}"
            out.append(ragloom.Chunk(f"{document.id}::{index}", document.id, text, index,
                                     start, end, label, metadata))  # fmt: skip
            start = end + 2
        return out


@pytest.mark.parametrize(
    "stores",
    [
        [{"type": "memory"}],
        # the first dense store answers with the sentences only: the reader
        # goes on to a store that holds the first layer
        [
            {"type": "memory", "name": "s", "filter": {"layer": "sentences"}},
            {"type": "memory", "name": "p", "filter": {"layer": "paragraphs"}},
        ],
    ],
)
def test_a_layered_document_reads_back_once(
    tmp_path: Path, pm: pluggy.PluginManager, stores: list[dict]
) -> None:
    """The server's document reader joins the first layer's chunks, not every layer's."""
    from ragloom.server.documents import read_document

    class Plugin:
        @ragloom.hookimpl
        def register_chunkers(self, register: Any) -> None:
            register("headed", Headed)

    pm.register(Plugin(), name="headed")
    layers = {"paragraphs": {"type": "headed"}, "sentences": LAYERS["sentences"]}
    config = project(tmp_path, stores, {"type": "layers", "layers": layers})
    with ragloom.Pipeline.from_config(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        pipeline.index()
        found = read_document(pipeline, "docs/coffee.txt", None)
    assert found is not None
    _, text, metadata = found
    paragraphs = TEXT.split("\n\n")
    assert text == "\n\n".join(f"docs/coffee.txt: {p}" for p in paragraphs)
    assert metadata["layer"] == "paragraphs"


def test_a_layer_that_needs_the_embedder_is_checked_with_the_config(registry: Registry) -> None:
    data = {
        "chunker": {"type": "layers", "layers": {"topics": {"type": "semantic"}, **LAYERS}},
        "stores": [{"type": "bm25"}],
    }
    with pytest.raises(ConfigValidationError, match="needs an embedder"):
        load_config(data, registry)
    load_config({**data, "embedder": {"type": "hash"}}, registry)


@pytest.mark.parametrize(
    "store_filter",
    [{"layer": "sentence"}, {"layer": {"$in": ["passages", "sentence"]}},
     {"$not": {"layer": "sentence"}}],
)  # fmt: skip
def test_a_store_filter_naming_no_layer_is_a_config_error(
    registry: Registry, store_filter: dict
) -> None:
    """A misspelt layer would leave the store empty without a word."""
    data = {
        "chunker": {"type": "layers", "layers": LAYERS},
        "stores": [{"type": "bm25"}, {"type": "bm25", "name": "b", "filter": store_filter}],
    }
    with pytest.raises(ConfigValidationError) as caught:
        load_config(data, registry)
    message = str(caught.value)
    assert "stores[1].filter" in message and "did you mean 'sentences'?" in message
    assert "layer 'sentence'" in message


def test_every_bad_layer_is_reported_at_once(registry: Registry) -> None:
    layers = {
        "passages": {"type": "recursive", "size": 100},  # overlap 100 by default: too large
        "sentences": {"type": "sentance"},
    }
    data = {"chunker": {"type": "layers", "layers": layers}, "stores": [{"type": "bm25"}]}
    with pytest.raises(ConfigValidationError) as caught:
        load_config(data, registry)
    message = str(caught.value)
    assert "layer 'passages' (recursive): overlap (100) must be smaller than size (100)" in message
    unknown = "layer 'sentences': unknown chunker type 'sentance' (did you mean 'sentence'?)"
    assert unknown in message
    assert "Value error" not in message


@pytest.mark.parametrize("precision", ["float32", "int8"])
@pytest.mark.parametrize("layer", ["small", "large"])
def test_the_memory_store_answers_its_own_filter_as_any_filter(
    tmp_path: Path, precision: str, layer: str
) -> None:
    """A store's own filter is found once after each write, and its rows kept
    together when few (``small``, 30% of rows) or scored in place (``large``):
    the hits are those the same filter gives a store that has no filter of its own."""
    import numpy as np
    from ragloom.builtin.stores.memory import MemoryStore
    from ragloom.components import Context
    from ragloom.types import Chunk

    rng = np.random.default_rng(7)

    def chunks(start: int, n: int) -> list[Chunk]:
        return [
            Chunk(f"d{i % 17}::{i}", f"d{i % 17}", f"text {i}", i, 0, 1, f"d#{i}",
                  {"layer": "small" if i % 10 < 3 else "large", "document_id": f"d{i % 17}",
                   "n": i})
            for i in range(start, start + n)
        ]  # fmt: skip

    own = parse({"layer": layer})
    mine = MemoryStore(precision=precision)
    mine.open(Context(index_dir=tmp_path / "a", name="mine", filter=own))
    plain = MemoryStore(precision=precision)
    plain.open(Context(index_dir=tmp_path / "b", name="mine"))

    def same_answers() -> None:
        for _ in range(5):
            q = rng.normal(size=16).astype(np.float32)
            unasked = [(h.chunk.id, round(h.score, 5)) for h in mine.query(vector=q, k=7)]
            assert unasked == [
                (h.chunk.id, round(h.score, 5)) for h in plain.query(vector=q, k=7, where=own)
            ]  # called without a filter, it still answers within its own
            for where in (own, restrict(parse({"n": {"$lt": 150}}), own), parse({"n": 3})):
                got = [
                    (h.chunk.id, round(h.score, 5)) for h in mine.query(vector=q, k=7, where=where)
                ]
                # a filter that does not start with the store's own is ANDed with it
                within = where if beyond(where, own) is not where else restrict(where, own)
                want = [
                    (h.chunk.id, round(h.score, 5))
                    for h in plain.query(vector=q, k=7, where=within)
                ]
                assert got == want and (where == parse({"n": 3}) or len(got) == 7)
                if where != parse({"n": 3}):
                    assert {mine._chunks[mine._row[i]].metadata["layer"] for i, _ in got} == {layer}

    first, vectors = chunks(0, 200), rng.normal(size=(200, 16)).astype(np.float32)
    for store in (mine, plain):
        store.upsert(first, vectors)
    same_answers()
    assert mine._own is not None and (mine._own.matrix is not None) == (layer == "small")
    more, extra = chunks(200, 60), rng.normal(size=(60, 16)).astype(np.float32)
    for store in (mine, plain):  # writes: the own rows are found again
        store.upsert(more, extra)
        store.delete(ids=[c.id for c in first[:40]])
    assert mine._own is None
    same_answers()


def test_reordering_the_layers_writes_every_document_again(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    """The order decides the chunk ids: a new order is a new chunker."""
    config = project(tmp_path, [{"type": "bm25"}])
    with ragloom.Pipeline.from_config(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        pipeline.index()
    swapped = {"type": "layers", "layers": dict(reversed(list(LAYERS.items())))}
    config = project(tmp_path, [{"type": "bm25"}], swapped)
    with ragloom.Pipeline.from_config(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        report = pipeline.index()
        assert len(report.changed) == len(DOCS) and report.unchanged == 0
        ((_, store),) = pipeline.stores
        firsts = [c for c in store._chunks.values() if c.index == 0]
        assert len(firsts) == len(DOCS)  # no document kept its old numbering
        assert {c.metadata["layer"] for c in firsts} == {"sentences"}


def test_a_narrow_query_filter_scores_only_its_rows(tmp_path: Path) -> None:
    """Under a store filter, a query filter matching few rows still takes the
    small product over those rows (not a scan of every row of the layer)."""
    import numpy as np
    from ragloom.builtin.stores import memory as memory_module
    from ragloom.builtin.stores.memory import MemoryStore
    from ragloom.components import Context
    from ragloom.types import Chunk

    rng = np.random.default_rng(3)
    chunks = [
        Chunk(f"d{i}::0", f"d{i}", "t", 0, 0, 1, f"d{i}#0",
              {"layer": "a" if i % 3 else "b", "document_id": f"d{i}"})
        for i in range(300)
    ]  # fmt: skip
    own = parse({"layer": "b"})  # 100 of the 300 rows
    store = MemoryStore()
    store.open(Context(index_dir=tmp_path, name="m", filter=own))
    store.upsert(chunks, rng.normal(size=(300, 8)).astype(np.float32))
    scanned: list[int] = []
    product = memory_module._product

    def counting(matrix: np.ndarray, scales: object, q: np.ndarray) -> np.ndarray:
        scanned.append(len(matrix))
        return product(matrix, scales, q)

    memory_module._product = counting
    try:
        q = rng.normal(size=8).astype(np.float32)
        hits = store.query(vector=q, k=5, where=restrict(parse({"document_id": "d3"}), own))
        assert [h.chunk.id for h in hits] == ["d3::0"] and scanned == [1]
        store.query(vector=q, k=5, where=own)
        assert scanned[-1] == 100  # the own rows alone, kept together
    finally:
        memory_module._product = product
