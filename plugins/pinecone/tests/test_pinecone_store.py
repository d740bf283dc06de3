"""The pinecone store's own behaviour: index creation, limits, texts, ids, deletes."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from pydantic import ValidationError
from ragloom import Chunk, Context
from ragloom.errors import DimensionMismatchError, StoreError, UnsupportedFilterError
from ragloom.filters import evaluate, parse
from ragloom.testing import contract_chunks, contract_vectors
from ragloom.testing.servers import (
    PINECONE_MAX_REQUEST_BYTES,
    FakePinecone,
    pinecone_filter_matches,
)

from ragloom_pinecone import PineconeStore
from ragloom_pinecone.records import decode_id, encode_id


class _Embedder:
    dimension = 8


def opened(server: FakePinecone, index: str = "contract", **options: object) -> PineconeStore:
    store = PineconeStore(index=index, controller_host=server.url, **options)
    store._sleep = lambda seconds: None
    store.open(Context(name="pc", services={"embedder": _Embedder()}))
    return store


def chunks(n: int, text: str = "x") -> list[Chunk]:
    return [Chunk(f"d{i // 10}::{i}@s", f"d{i // 10}", text, i, 0, len(text), f"d{i}#0",
                  {"n": i}) for i in range(n)]  # fmt: skip


def unit(n: int, dim: int) -> np.ndarray:
    vectors = np.random.default_rng(0).normal(size=(n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_create_waits_until_ready(pinecone_server: FakePinecone) -> None:
    pinecone_server.ready_after = 2
    store = opened(pinecone_server, "fresh-docs", create=True, metric="dotproduct")
    created = pinecone_server.calls("/indexes")[0].body
    field = created["schema"]["fields"]["_values"]
    assert field == {"type": "dense_vector", "dimension": 8, "metric": "dotproduct"}
    assert created["deployment"] == {"deployment_type": "managed", "cloud": "aws",
                                     "region": "us-east-1"}  # fmt: skip
    # once before creating it (404), then until ready (not ready twice)
    assert len(pinecone_server.calls("/indexes/fresh-docs")) == 4
    store.upsert(chunks(3), unit(3, 8))
    assert store.count() == 3


def test_missing_index_without_create_says_what_to_do(pinecone_server: FakePinecone) -> None:
    with pytest.raises(StoreError, match="'nope' does not exist.*`create: true`"):
        opened(pinecone_server, "nope")


def test_existing_index_of_another_shape_fails_clearly(pinecone_server: FakePinecone) -> None:
    with pytest.raises(DimensionMismatchError, match="holds 16-d vectors.*makes 8-d"):
        opened(pinecone_server)  # the embedder makes 8-d vectors
    pinecone_server.add_index("dots", 8, "dotproduct")
    with pytest.raises(StoreError, match="ranks by dotproduct.*`metric: dotproduct`"):
        opened(pinecone_server, "dots")


def test_config_needs_exactly_one_target() -> None:
    with pytest.raises(ValidationError, match="exactly one of `index`"):
        PineconeStore()
    with pytest.raises(ValidationError, match="exactly one of `index`"):
        PineconeStore(index="a", host="https://a.example")


def test_batches_stay_within_count_and_size(pinecone_server: FakePinecone) -> None:
    pinecone_server.add_index("wide", 3072)
    store = PineconeStore(index="wide", controller_host=pinecone_server.url, batch_size=1000)
    store.open(Context(name="pc"))
    store.upsert(chunks(240), unit(240, 3072))
    sizes = [len(c.raw) for c in pinecone_server.calls("/vectors/upsert")]
    assert len(sizes) > 1 and max(sizes) <= PINECONE_MAX_REQUEST_BYTES, sizes
    assert store.count() == 240
    pinecone_server.clear()
    small = opened(pinecone_server, "wide2", create=True, batch_size=1000)
    small.upsert(chunks(2500), unit(2500, 8))
    counts = [len(c.body["vectors"]) for c in pinecone_server.calls("/vectors/upsert")]
    assert counts == [1000, 1000, 500] and small.count() == 2500


def test_text_too_large_for_metadata(pinecone_server: FakePinecone) -> None:
    big = chunks(1, "word " * 10_000)
    full = opened(pinecone_server, "texts", create=True)
    with pytest.raises(StoreError, match="store_text: truncate"):
        full.upsert(big, unit(1, 8))
    cut = opened(pinecone_server, "texts", store_text="truncate")
    cut.upsert(big, unit(1, 8))
    [hit] = cut.query(vector=unit(1, 8)[0], k=1)
    assert hit.chunk.metadata["text_truncated"] is True
    assert 30_000 < len(hit.chunk.text) < len(big[0].text)
    assert big[0].text.startswith(hit.chunk.text)


def test_store_text_none_keeps_text_out_of_pinecone(
    pinecone_server: FakePinecone, tmp_path
) -> None:  # noqa: ANN001
    store = PineconeStore(index="contract", controller_host=pinecone_server.url, store_text="none")
    store.open(Context(index_dir=tmp_path, name="pc"))
    store.upsert(contract_chunks(), contract_vectors())
    records = pinecone_server.vectors("contract")
    assert all("text" not in metadata for _, metadata in records.values())
    assert (tmp_path / "pc" / "texts.sqlite").exists()
    [hit] = store.query(vector=contract_vectors()[0], k=1)
    assert hit.chunk == contract_chunks()[0]


def test_ids_survive_non_ascii_and_length(pinecone_server: FakePinecone) -> None:
    store = opened(pinecone_server, "ids", create=True)
    odd = ["docs/über café.md::0@ab", "%41::1@x", "d::" + "é" * 400 + "@s"]
    for cid in odd:
        vid = encode_id(cid)
        assert vid.isascii() and len(vid) <= 512
    assert decode_id(encode_id(odd[0])) == odd[0] and decode_id(encode_id(odd[1])) == odd[1]
    items = [Chunk(cid, "d", "t", 0, 0, 1, "l", {}) for cid in odd]
    store.upsert(items, unit(3, 8))
    assert set(store.ids()) == set(odd)
    assert store.delete(ids=odd) == 3 and store.count() == 0


def test_delete_by_document_uses_prefixes_and_never_over_deletes(
    pinecone_server: FakePinecone,
) -> None:
    store = opened(pinecone_server, "docs", create=True)
    items = [
        Chunk("a::0@s", "a", "t", 0, 0, 1, "l", {"document_id": "a"}),
        Chunk("a::1@s", "a", "t", 1, 0, 1, "l", {"document_id": "a"}),
        Chunk("a::b::0@s", "a::b", "t", 0, 0, 1, "l", {"document_id": "a::b"}),
        Chunk("odd-id", "a", "t", 2, 0, 1, "l", {"document_id": "a"}),  # no prefix
    ]
    store.upsert(items, unit(4, 8))
    pinecone_server.clear()
    assert store.delete(where=parse({"document_id": "a"})) == 3
    assert set(store.ids()) == {"a::b::0@s"}
    prefixes = {c.query.get("prefix", [""])[0] for c in pinecone_server.calls("/vectors/list")}
    assert "a::" in prefixes
    assert not [c for c in pinecone_server.calls("/vectors/delete") if "filter" in c.body]


def test_delete_where_counts_only_what_matches(pinecone_server: FakePinecone) -> None:
    store = opened(pinecone_server, "many", create=True)
    store.upsert(chunks(250), unit(250, 8))
    where = parse({"n": {"$gte": 200}})
    assert store.count(where) == 50
    assert store.delete(where=where) == 50
    assert store.count() == 200 and store.count(where) == 0


def test_namespaces_are_separate_and_fresh_empties_only_its_own(
    pinecone_server: FakePinecone,
) -> None:
    one = opened(pinecone_server, "ns", create=True, namespace="one")
    two = opened(pinecone_server, "ns", namespace="two")
    one.upsert(chunks(3), unit(3, 8))
    two.upsert(chunks(5), unit(5, 8))
    again = PineconeStore(index="ns", controller_host=pinecone_server.url, namespace="one")
    again.open(Context(name="pc", fresh=True))
    assert again.count() == 0 and two.count() == 5


def test_filters_sent_are_pinecone_filters(pinecone_server: FakePinecone) -> None:
    store = opened(pinecone_server, "f", create=True)
    store.upsert(contract_chunks(), unit(10, 8))
    where = parse({"$not": {"year": {"$gte": 2024}}, "published": {"$gte": "2023-01-01"}})
    pinecone_server.clear()
    hits = store.query(vector=unit(1, 8)[0], k=10, where=where)
    sent = pinecone_server.calls("/query")[0].body["filter"]
    assert "$not" not in json.dumps(sent)
    expected = {c.id for c in contract_chunks() if evaluate(where, c.metadata)}
    assert {h.chunk.id for h in hits} == expected == {"c02", "c05", "c06", "c09"}
    metadata = pinecone_server.vectors("f")[encode_id("c02")][1]
    assert pinecone_filter_matches(sent, metadata)


def test_long_string_ranges_are_refused_up_front(pinecone_server: FakePinecone) -> None:
    store = opened(pinecone_server, "f", create=True)
    pinecone_server.clear()
    with pytest.raises(UnsupportedFilterError, match="at most 39 characters"):
        store.query(vector=unit(1, 8)[0], k=3, where=parse({"path": {"$gt": "a" * 40}}))
    assert pinecone_server.calls("/query") == []


def test_null_and_nested_metadata_round_trip(pinecone_server: FakePinecone) -> None:
    store = opened(pinecone_server, "meta", create=True)
    chunk = replace(chunks(1)[0], metadata={"a": None, "b": {"c": [1, 2.5]}, "d": 1.0, "e": 1})
    store.upsert([chunk], unit(1, 8))
    [hit] = store.query(vector=unit(1, 8)[0], k=1, where=parse({"a": None}))
    assert hit.chunk.metadata == chunk.metadata
    assert type(hit.chunk.metadata["d"]) is float and type(hit.chunk.metadata["e"]) is int


def test_a_pinecone_index_takes_writes_from_other_processes() -> None:
    assert PineconeStore(index="docs", api_key="k").shared_writes is True
