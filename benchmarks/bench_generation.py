"""Generation overhead: ragloom's answer contract around a chat call (prompt
build, context budget, retry wrapper, citation check) against the bare
openai SDK call with the same messages, to the same local server (llama.cpp
with SmolLM2-135M-Instruct, started here), in the same run.

Both sides send identical requests (temperature 0, the same max_tokens),
interleaved, so the server does the same work for each; the fastest round of
each is compared (other processes on the machine only ever add time, and a
model call is long enough for their noise to swamp a median).
``overhead_ms`` is ragloom's own work measured without a server (the reply
replayed), which the noise of a model call would hide.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

ROUNDS = 12
MAX_TOKENS = 32


def bench_generation(rounds: int = ROUNDS) -> dict[str, float | str]:
    import openai
    from ragloom import Context
    from ragloom.answers import checked_answer
    from ragloom.generation import fit_passages
    from ragloom.testing import CONTRACT_QUESTION, contract_hits
    from ragloom_llamacpp.server import LlamaServer
    from ragloom_openai import OpenAIGenerator

    hits = contract_hits()
    with LlamaServer("smollm2", embedding=False) as server:
        generator = OpenAIGenerator(base_url=server.base_url, model=server.alias,
                                    max_tokens=MAX_TOKENS)  # fmt: skip
        generator.open(Context(name="bench"))
        client = openai.OpenAI(base_url=server.base_url, api_key="none", max_retries=0)
        messages = generator.messages(CONTRACT_QUESTION, hits)

        def baseline() -> str:
            response = client.chat.completions.create(
                model=server.alias, messages=messages, max_tokens=MAX_TOKENS, temperature=0.0
            )
            return response.choices[0].message.content or ""

        def ours() -> Any:
            given = fit_passages(hits, generator.passage_budget(), generator.count_tokens)
            return checked_answer(generator.generate(CONTRACT_QUESTION, given), given)

        given = fit_passages(hits, generator.passage_budget(), generator.count_tokens)
        assert generator.messages(CONTRACT_QUESTION, given) == messages, "the same request"
        reply = baseline()  # warm up both
        ours()
        base_t, our_t = [], []
        for _ in range(rounds):  # interleaved so drift hits both alike
            t = time.perf_counter()
            baseline()
            base_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            ours()
            our_t.append(time.perf_counter() - t)
        overhead = _overhead(generator, hits, reply, CONTRACT_QUESTION)
        generator.close()
        client.close()
    b, o = min(base_t), min(our_t)
    return {
        "name": f"generation around a chat call (SmolLM2, llama.cpp server, {MAX_TOKENS} tokens)",
        "baseline": "the bare openai SDK call, same messages",
        "ragloom_s": o,
        "baseline_s": b,
        "min_speed": 1 / 1.05,  # ragloom adds under 5% to the call
        "overhead_ms": overhead * 1000,
        "overhead_share": overhead / b,
    }


def _overhead(generator: Any, hits: list[Any], reply: str, question: str) -> float:
    """Median seconds of ragloom's own work per answer, the chat call replaced
    by the server's recorded reply: budget, prompt, citations, answer check."""
    from ragloom.answers import checked_answer
    from ragloom.generation import fit_passages

    original = generator.chat
    generator.chat = lambda messages, **options: reply
    try:
        times = []
        for _ in range(200):
            t = time.perf_counter()
            given = fit_passages(hits, generator.passage_budget(), generator.count_tokens)
            checked_answer(generator.generate(question, given), given)
            times.append(time.perf_counter() - t)
    finally:
        generator.chat = original
    return statistics.median(times)


if __name__ == "__main__":
    print(bench_generation())
