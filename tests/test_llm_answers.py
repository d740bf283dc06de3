"""What a chat model's reply becomes (``ragloom.answers.AnswerWriter``): the
streamed pieces are the final text, whatever the model writes and however
the pieces fall; a sources list the model appends is removed; look-alike
markers are checked like markers; escapes never pass; an uncited or empty
reply is not presented as grounded; the chat history takes its share of the
context budget. Found by a trial with SmolLM2 behind llama.cpp."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pluggy
import pytest
from ragloom.answers import AnswerWriter
from ragloom.evaluation.cases import AnswerCheck, check_answer
from ragloom.generation import Reply
from ragloom.server.service import answer_json
from ragloom.testing import contract_hits

from .test_generation import Plugin, Scripted, scripted

HITS = dict(enumerate(contract_hits()[:5], start=1))


@pytest.fixture
def llm_pm(pm: pluggy.PluginManager) -> pluggy.PluginManager:
    pm.register(Plugin(), name="scripted")
    Scripted.calls = []
    return pm


def written(reply: str, size: int | None = None) -> tuple[str, AnswerWriter]:
    """The reply fed whole (``size`` None) or in pieces of ``size`` characters;
    checks that what was shown is the writer's text."""
    writer = AnswerWriter(HITS)
    if size is None:
        shown = writer.write(reply)
    else:
        shown = "".join(writer.feed(reply[i : i + size]) for i in range(0, len(reply), size))
        shown += writer.finish()
    assert shown == writer.text
    return writer.text, writer


def every_split(reply: str) -> str:
    """The text, the same however the reply is cut into pieces."""
    whole, _ = written(reply)
    for size in (1, 2, 3, 5, 7):
        assert written(reply, size)[0] == whole, (reply, size)
    for cut in range(1, len(reply)):
        writer = AnswerWriter(HITS)
        shown = writer.feed(reply[:cut]) + writer.feed(reply[cut:]) + writer.finish()
        assert shown == whole, (reply, cut)
    return whole


@pytest.mark.parametrize(
    ("reply", "text", "cited"),
    [
        (
            "Costs $12 [1].\n\nSources:\n[1] docs/pricing.md#prices\n[2] docs/security.md#admin",
            "Costs $12 [1].",
            [1],
        ),
        ("Costs $12.\nSources: [1][2]", "Costs $12.", []),
        ("Costs $12 [2]. Sources: [3] docs/official-prices.md#verified", "Costs $12 [1].", [2]),
        ("Costs $12 [1].\n\n**Sources:**\n- [1] a.md\n- [4] b.md", "Costs $12 [1].", [1]),
        ("Costs $12 [1].\n\n## References\n1. pricing.md\n2. faq.md", "Costs $12 [1].", [1]),
        ("Costs $12.\n**Sources:** [1][2]", "Costs $12.", []),
        ("Costs $12.\nReference:\n[1] docs/pricing-faq.md", "Costs $12.", []),
        ("Costs $12.\n\n## Bibliography\n- [1] Pricing FAQ", "Costs $12.", []),
        (
            "Costs $12.\n\nSources:\n1. docs/pricing-faq.md [1]\n2. docs/faq.md [2]",
            "Costs $12.",
            [],
        ),
        ("Costs $12 [1].\nSources:\n[2] Pricing FAQ\n[3] The plans page", "Costs $12 [1].", [1]),
    ],
)
def test_a_sources_list_the_model_writes_is_removed(reply: str, text: str, cited: list) -> None:
    assert every_split(reply) == text
    _, writer = written(reply)
    assert writer.removed_sources
    assert sorted(writer.citations.numbers) == cited  # the list's markers cite nothing


@pytest.mark.parametrize(
    "reply",
    [
        "Sources of revenue include ads [1].",
        "The plan has three sources: ads, fees and grants [2].",
        "References: see the manual [2] for the limits.\nAnd more [1].",
        "Costs $12 [1].\nSources vary by region.",
        "So the answer is yes [1]. Source code is on GitHub.",
        "Sources:\n- Grants [1]\n- Donations [2]",  # the whole answer: a list, kept
        "Costs $12.\nReferences:\n[1] The Team plan costs $12 per user.\n[2] It renews yearly.",
        "Source: the 2023 report says $12 [1].\nIt renews yearly [2].",
        # claims, when in doubt: no period, a colon, a time, a version
        "Costs $12.\nSources:\n[1] The Team plan costs $12 per user per month",
        "Costs $12.\nSources:\n[1] Team plan: $12/user/month.",
        "Opens at:\nSources:\n- 10:30 [1]\n- v2.1 [2]",
    ],
)
def test_text_that_only_starts_like_a_sources_list_is_kept(reply: str) -> None:
    text = every_split(reply)
    _, writer = written(reply)
    assert not writer.removed_sources
    assert text.replace("[1]", "").replace("[2]", "") == reply.replace("[1]", "").replace("[2]", "")


@pytest.mark.parametrize(
    ("reply", "text", "dropped"),
    [
        ("Costs $12 [ 2 ].", "Costs $12 [1].", []),
        ("See [1-3].", "See [1][2][3].", []),
        ("See [Source 2] and 【3】.", "See [1] and [2].", []),
        ("Costs $12 [12345].", "Costs $12.", [12345]),
        ("Costs $12 [2; 7].", "Costs $12 [1].", [7]),
    ],
)
def test_marker_look_alikes_are_checked_like_markers(reply: str, text: str, dropped: list) -> None:
    assert every_split(reply) == text
    assert written(reply)[1].citations.dropped == dropped


def test_escapes_and_outer_whitespace_never_reach_the_text() -> None:
    reply = "  \n Hi \x1b]0;PWNED\x07there \x1b[31mred\x1b[0m [1].\x07  \n"
    assert every_split(reply) == "Hi there red [1].\\x07"


def test_a_refusal_in_the_models_words_streams_as_it_ends(
    corpus: Path, llm_pm: pluggy.PluginManager
) -> None:
    with scripted(corpus, llm_pm, replies=["  I could not find the price.  \n"] * 2) as pipeline:
        stream = pipeline.stream("How much does the Pro plan cost?")
        pieces = list(stream)
        asked = pipeline.ask("How much does the Pro plan cost?")
    assert "".join(pieces) == stream.answer.text == asked.text == "I could not find the price."
    assert stream.answer.grounded is False and "uncited" not in stream.answer.metadata


def test_an_uncited_answer_is_not_grounded_anywhere(
    corpus: Path, llm_pm: pluggy.PluginManager
) -> None:
    with scripted(corpus, llm_pm, replies=["The capital of France is Paris [9]."]) as pipeline:
        answer = pipeline.ask("What is the capital of France?")
    assert answer.text == "The capital of France is Paris."
    assert answer.grounded is False and answer.metadata["uncited"] is True
    assert answer.metadata["dropped_citations"] == [9]
    out = answer_json(answer)
    assert out["grounded"] is False and out["uncited"] is True and out["truncated"] is False
    assert out["dropped_citations"] == [9]
    # `ragloom eval`: neither a refusal nor an answer from the documents
    must_refuse = check_answer(AnswerCheck(must_refuse=True), answer.text, False, uncited=True)
    assert must_refuse.refusal and "answered" in must_refuse.refusal
    contains = check_answer(AnswerCheck(must_contain=["Paris"]), answer.text, False, uncited=True)
    assert contains.refusal and "without citing" in contains.refusal


def test_an_empty_reply_is_a_failure_not_a_refusal(
    corpus: Path, llm_pm: pluggy.PluginManager, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        caplog.at_level(logging.WARNING, "ragloom"),
        scripted(corpus, llm_pm, replies=["  \n", ""]) as pipeline,
    ):
        answer = pipeline.ask("How much does the Pro plan cost?")
        stream = pipeline.stream("How much does the Pro plan cost?")
        streamed = "".join(stream)
    assert answer.degraded and "could not be generated" in answer.text
    assert stream.answer.degraded and streamed == stream.answer.text
    assert "reply was empty" in caplog.text


_CHAT = Scripted.chat


def _cut_chat(self, messages, *, max_tokens, temperature):
    return Reply(_CHAT(self, messages, max_tokens=max_tokens, temperature=temperature), cut=True)


def _cut_stream(self, messages, *, max_tokens, temperature):
    text = _CHAT(self, messages, max_tokens=max_tokens, temperature=temperature)
    yield from (text[i : i + 2] for i in range(0, len(text), 2))
    yield Reply("", cut=True)  # how a backend says that max_tokens cut the stream


def test_an_answer_cut_at_max_tokens_says_so(
    corpus: Path, llm_pm: pluggy.PluginManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Scripted, "chat", _cut_chat)
    monkeypatch.setattr(Scripted, "chat_stream", _cut_stream)
    with scripted(corpus, llm_pm, replies=["The Pro plan costs $29 [1] and"] * 2) as pipeline:
        answer = pipeline.ask("How much does the Pro plan cost?")
        stream = pipeline.stream("How much does the Pro plan cost?")
        list(stream)
    assert answer.metadata["truncated"] is True and stream.answer.metadata["truncated"] is True
    assert answer_json(answer)["truncated"] is True


def test_the_chat_history_takes_its_share_of_the_budget(
    corpus: Path, llm_pm: pluggy.PluginManager
) -> None:
    turn = "word " * 60  # about 75 tokens by the estimate
    history = [
        {"role": "user", "content": f"first question {turn}"},
        {"role": "assistant", "content": f"first answer {turn}"},
        {"role": "user", "content": f"second question {turn}"},
        {"role": "assistant", "content": f"second answer {turn}"},
    ]
    with scripted(corpus, llm_pm, max_context_tokens=400) as pipeline:
        alone = pipeline.ask("How much does the Pro plan cost?", k=3)
        sent_alone = Scripted.calls[-1]
        chatted = pipeline.ask("How much does the Pro plan cost?", k=3, history=history)
        sent = Scripted.calls[-1]
    # at most half the budget goes to the history: its oldest turns are left out
    kept = [m["content"] for m in sent[1:-1]]
    assert 0 < len(kept) < 4 and kept[-1].startswith("second answer")
    history_tokens = sum(len(t) // 4 + 5 for t in kept)
    assert history_tokens <= 200
    # and the passages get what is left, so the prompt stays within the budget
    passages = sent[-1]["content"].count("<source ")
    assert passages <= sent_alone[-1]["content"].count("<source ")
    assert len(chatted.hits) == passages and len(alone.hits) >= passages


@pytest.mark.parametrize(
    "reply",
    [
        "Released on [2024-01-15] [2].",  # a date: no range of passages
        "Use the pattern [0-9]+ to match digits [1].",  # a character class
        "See [3-1] backwards.",
        "Index it as arr[ 2 ] in the code [1].",  # code, right after a word
        "Between [1-40] of them.",  # beyond the passages given
    ],
)
def test_what_only_looks_like_a_range_of_markers_is_left_as_written(reply: str) -> None:
    text = every_split(reply)
    kept = reply.replace(" [2].", " [1].") if "[2024" in reply else reply
    assert text == kept, text


def test_a_sources_heading_over_the_answers_own_list_is_kept() -> None:
    reply = "Vitamin D comes from two places.\nSources:\n- Sunlight [1]\n- Fatty fish [2]"
    assert every_split(reply) == reply
    assert not written(reply)[1].removed_sources


def test_a_reply_that_is_only_a_list_of_sources_holds_no_answer(
    corpus: Path, llm_pm: pluggy.PluginManager, caplog: pytest.LogCaptureFixture
) -> None:
    assert written("Sources:\n[1] docs/pricing-faq.md")[0] == ""
    with (
        caplog.at_level(logging.WARNING, "ragloom"),
        scripted(corpus, llm_pm, replies=["Sources:\n[1] docs/pricing-faq.md"]) as pipeline,
    ):
        answer = pipeline.ask("How much does the Pro plan cost?")
    assert answer.degraded and "only a list of sources" in caplog.text


def test_text_that_starts_like_a_heading_streams_without_waiting_for_the_end() -> None:
    """ "Sources" at a piece's end may go on as "Sources of revenue": it waits
    for the next piece, not for the end of the reply; nor does a line that
    opens with "Source:" and is a sentence, once its line is complete."""
    writer = AnswerWriter(HITS)
    assert writer.feed("Ads pay [1].\nSources") == "Ads pay [1]."
    assert writer.feed(" of revenue vary [2].") == "\nSources of revenue vary [2]."
    writer = AnswerWriter(HITS)
    assert writer.feed("Ads pay [1].\nSource: the 2023 report [2]") == "Ads pay [1]."
    shown = writer.feed(".\nMore") + writer.feed(" text.")
    assert shown == "\nSource: the 2023 report [2].\nMore text."
    assert writer.finish() == ""


def test_markers_inside_a_fenced_code_block_are_code() -> None:
    reply = "Set it so [1]:\n\n```python\nsources = [1, 2]\nprint(sources[0])\n```\n\nDone [2]."
    assert every_split(reply) == reply
    tilde = "~~~~\nx = [7]\n~~~\nstill code [7]\n~~~~\nCited [7]."
    assert every_split(tilde) == "~~~~\nx = [7]\n~~~\nstill code [7]\n~~~~\nCited."


def test_cjk_markers_right_after_a_word() -> None:
    assert every_split("团队版每月12美元【1】。") == "团队版每月12美元[1]。"


def test_line_ends_split_across_pieces_and_long_runs() -> None:
    assert every_split("Line one.\r\nLine two [1].") == "Line one.\nLine two [1]."
    # a model looping on newlines, then answering: each piece is read once
    writer = AnswerWriter(HITS)
    shown = "".join(writer.feed("\n") for _ in range(3000)) + writer.feed("Costs $12 [1].")
    assert shown + writer.finish() == "Costs $12 [1]." == writer.text
    spaced = "a [1]." + " " * 20000 + "b"
    assert written(spaced)[0] == spaced
    listed = "a [1].\nSources:\n" + " " * 10000 + "x"
    assert written(listed)[0] == listed


def test_a_reply_of_forged_markers_only_degrades_and_says_why(
    corpus: Path, llm_pm: pluggy.PluginManager, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        caplog.at_level(logging.WARNING, "ragloom"),
        scripted(corpus, llm_pm, replies=["[9] [12]"]) as pipeline,
    ):
        answer = pipeline.ask("How much does the Pro plan cost?")
    assert answer.degraded
    assert "citation markers of passages it was not given" in caplog.text


def test_a_cut_mark_on_a_piece_that_carries_text(
    corpus: Path, llm_pm: pluggy.PluginManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    def stream(self, messages, *, max_tokens, temperature):
        yield "The Pro plan costs $29 [1]"
        yield Reply(" and", cut=True)

    monkeypatch.setattr(Scripted, "chat_stream", stream)
    with scripted(corpus, llm_pm) as pipeline:
        answer_stream = pipeline.stream("How much does the Pro plan cost?")
        shown = "".join(answer_stream)
    assert shown == answer_stream.answer.text == "The Pro plan costs $29 [1] and"
    assert answer_stream.answer.metadata["truncated"] is True


def test_the_chat_route_says_length_for_an_answer_cut_off(
    corpus: Path, llm_pm: pluggy.PluginManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenAI clients look at ``finish_reason`` to know an answer is whole."""
    from ragloom.server import Caller, create_app
    from starlette.testclient import TestClient

    monkeypatch.setattr(Scripted, "chat", _cut_chat)
    monkeypatch.setattr(Scripted, "chat_stream", _cut_stream)
    body = {"model": "ragloom", "messages": [{"role": "user", "content": "Pro plan cost?"}]}
    with (
        scripted(corpus, llm_pm, replies=["The Pro plan costs $29 [1] and"] * 2) as pipeline,
        TestClient(create_app(pipeline, anonymous=Caller("x"))) as client,
    ):
        for _ in range(200):  # the app opens the pipeline in the background
            if client.get("/readyz").status_code == 200:
                break
            time.sleep(0.05)
        whole = client.post("/v1/chat/completions", json=body).json()
        streamed = client.post("/v1/chat/completions", json={**body, "stream": True}).text
    assert whole["choices"][0]["finish_reason"] == "length"
    assert whole["ragloom"]["truncated"] is True
    assert '"finish_reason": "length"' in streamed or '"finish_reason":"length"' in streamed
