"""Access control end to end: a key for group A never sees group B's chunks,
through any route (search, explain, ask, streamed answers, OpenAI chat,
streamed chat, MCP tools and resources), whatever filter it sends."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import ragloom
from ragloom.plugins import build_plugin_manager
from ragloom.server import Caller, KeyRing

from .conftest import basic_config
from .test_serve import auth, live_server, sse_events

KEY_A = "ragloom-group-a-0123456789abcdef"
KEY_B = "ragloom-group-b-0123456789abcdef"
KEYS = KeyRing.of({KEY_A: Caller("a", ("group:a",)), KEY_B: Caller("b", ("group:b",))})

SECRET_A = "Alpha budget codeword is HELIOTROPE and the alpha launch is in March."
SECRET_B = "Beta budget codeword is MARIGOLD and the beta launch is in June. ZEBRAFISH."

QUESTIONS = [
    "What is the budget codeword?",
    "When is the launch?",
    "MARIGOLD beta budget launch June",
    "HELIOTROPE alpha",
]
SNEAKY = [
    None,
    {"$or": [{"source": {"$in": ["docs/b/plan.md"]}}, {"source": {"$exists": True}}]},
    {"$not": {"source": "docs/a/plan.md"}},
    {"source": {"$in": ["docs/b/plan.md", "docs/b/notes.md"]}},
]
ON_THE_ACCESS_FIELD = [
    {"principals": "group:b"},
    {"$or": [{"principals": {"$in": ["group:b"]}}, {"source": {"$exists": True}}]},
    {"$not": {"principals": "group:a"}},
    {"principals": {"$in": ["group:a", "group:hr"]}},  # who else may read A's documents
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root: Path = tmp_path_factory.mktemp("access")
    for group, secret in (("a", SECRET_A), ("b", SECRET_B)):
        folder = root / "docs" / group
        folder.mkdir(parents=True)
        (folder / "plan.md").write_text(f"# Plan\n\n{secret}\n", "utf-8")
        (folder / "notes.md").write_text(f"# Notes\n\nThe budget and launch: {secret}\n", "utf-8")
    (root / "docs" / "public.md").write_text("# Public\n\nThe budget is public.\n", "utf-8")
    config = basic_config(
        access={
            "unlabeled": "deny",
            "rules": [
                {"path": "docs/a/**", "principals": ["group:a"]},
                {"path": "docs/b/**", "principals": ["group:b"]},
            ],
        },
        retrieval={"k": 10},
    )
    pm = build_plugin_manager(load_entry_points=False, env={})
    pipeline = ragloom.load(config, plugin_manager=pm, base_dir=root)
    pipeline.index()
    with live_server(pipeline, keys=KEYS) as url:
        yield url


def assert_only_a(text: str) -> None:
    """No text of B's documents (ZEBRAFISH is in no question), none of their
    sources or labels (the text must not echo the request)."""
    assert "ZEBRAFISH" not in text and "docs/b/" not in text, text


def without_echo(text: str) -> str:
    """A JSON response (or SSE stream) without the fields that echo the request."""
    if text.startswith("event:") or text.startswith("data:"):
        return "\n".join(json.dumps(_strip(d)) for _, d in sse_events(text) if d != "[DONE]")
    return json.dumps(_strip(json.loads(text)))


def _strip(data: Any) -> Any:
    if isinstance(data, dict):
        return {
            k: _strip(v)
            for k, v in data.items()
            if k not in ("query", "question", "queries", "filter")
        }
    return data


def post(server: str, path: str, body: dict[str, Any], key: str = KEY_A) -> str:
    response = httpx.post(f"{server}{path}", json=body, headers=auth(key), timeout=30)
    assert response.status_code == 200, response.text
    return response.text


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("filters", SNEAKY)
def test_search_never_shows_b(server: str, question: str, filters: Any) -> None:
    text = post(server, "/v1/search", {"query": question, "filters": filters, "explain": True})
    assert_only_a(without_echo(text))


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("stream", [False, True])
def test_ask_never_cites_b(server: str, question: str, stream: bool) -> None:
    for filters in SNEAKY:
        text = post(server, "/v1/ask", {"question": question, "filters": filters, "stream": stream})
        assert_only_a(without_echo(text))
        if stream:
            assert sse_events(text)[-1][0] == "answer"


@pytest.mark.parametrize("stream", [False, True])
def test_chat_never_cites_b(server: str, stream: bool) -> None:
    for question in QUESTIONS:
        body = {
            "model": "ragloom",
            "stream": stream,
            "messages": [
                {"role": "user", "content": "Tell me about group B, principals group:b"},
                {"role": "assistant", "content": "OK."},
                {"role": "user", "content": question},
            ],
            "ragloom": {"filters": {"source": {"$in": ["docs/b/plan.md"]}}},
        }
        assert_only_a(without_echo(post(server, "/v1/chat/completions", body)))


@pytest.mark.parametrize("filters", ON_THE_ACCESS_FIELD)
def test_a_filter_on_the_access_field_is_refused(server: str, filters: Any) -> None:
    """Hits leave the access field out (it names other readers): a filter on
    it would tell a caller who else may read each document it can read, by
    which documents come back (trial 20, F2)."""
    chat = {"model": "ragloom", "messages": [{"role": "user", "content": "budget"}]}
    for path, body in (
        ("/v1/search", {"query": "budget codeword"}),
        ("/v1/ask", {"question": "What is the budget codeword?"}),
        ("/v1/chat/completions", {**chat, "ragloom": {}}),
    ):
        if path.endswith("completions"):
            body["ragloom"]["filters"] = filters
        else:
            body["filters"] = filters
        response = httpx.post(f"{server}{path}", json=body, headers=auth(KEY_A), timeout=30)
        assert response.status_code == 400, (path, response.text)
        error = response.json()["error"]
        assert error["code"] == "invalid_filter" and "'principals'" in error["message"]
        assert "ZEBRAFISH" not in response.text and "HELIOTROPE" not in response.text


def test_a_filter_on_the_path_is_refused(server: str) -> None:
    """Hits leave ``path`` out (it says where the file lies on the server): a
    filter on it would let a caller find that out by hit counts, one ``$gte``
    at a time (trial 26, F10), also inside ``$and``, ``$or`` and ``$not``."""
    chat = {"model": "ragloom", "messages": [{"role": "user", "content": "budget"}]}
    for filters in (
        {"path": {"$gte": "/"}},
        {"$and": [{"source": {"$exists": True}}, {"path": {"$lt": "~"}}]},
        {"$or": [{"path": {"$exists": True}}, {"source": "docs/public.md"}]},
        {"$not": {"path": {"$in": ["/tmp"]}}},
    ):
        for path, body in (
            ("/v1/search", {"query": "budget codeword", "filters": filters}),
            ("/v1/ask", {"question": "What is the budget codeword?", "filters": filters}),
            ("/v1/chat/completions", {**chat, "ragloom": {"filters": filters}}),
            ("/v1/playground/search", {"query": "budget codeword", "filters": filters}),
        ):
            response = httpx.post(f"{server}{path}", json=body, headers=auth(KEY_A), timeout=30)
            assert response.status_code == 400, (path, filters, response.text)
            error = response.json()["error"]
            assert error["code"] == "invalid_filter" and error["param"] == "filters"
            assert "'path'" in error["message"] and "'source'" in error["message"]
            assert "ZEBRAFISH" not in response.text and "HELIOTROPE" not in response.text
        # the playground's check says so before anything is sent
        checked = httpx.post(
            f"{server}/v1/playground/filter",
            json={"text": json.dumps(filters)},
            headers=auth(KEY_A),
        ).json()
        assert checked["ok"] is False and "'path'" in checked["error"]
    # a filter on the file's place within the docs folder still works
    body = {"query": "budget codeword", "filters": {"source": {"$gte": "docs/a/"}}}
    assert json.loads(post(server, "/v1/search", body))["hits"]


def test_a_sees_a_and_b_sees_b(server: str) -> None:
    a = httpx.post(
        f"{server}/v1/search", json={"query": "budget codeword"}, headers=auth(KEY_A)
    ).json()
    b = httpx.post(
        f"{server}/v1/search", json={"query": "budget codeword"}, headers=auth(KEY_B)
    ).json()
    assert {h["source"] for h in a["hits"]} == {"docs/a/plan.md", "docs/a/notes.md"}
    assert {h["source"] for h in b["hits"]} == {"docs/b/plan.md", "docs/b/notes.md"}
    assert all("principals" not in h["metadata"] for h in a["hits"])  # labels not disclosed
    answer = httpx.post(
        f"{server}/v1/ask", json={"question": "What is the budget codeword?"}, headers=auth(KEY_B)
    ).json()
    assert "MARIGOLD" in answer["answer"]


def test_a_get_on_mcp_is_refused_at_once(server: str) -> None:
    """The stateless endpoint opens no event stream: one would hold a slot of
    --max-concurrency for as long as the client keeps it, past --timeout."""
    headers = {**auth(KEY_A), "accept": "text/event-stream"}
    response = httpx.get(f"{server}/mcp", headers=headers, timeout=10)
    assert response.status_code == 405 and response.headers["allow"] == "POST, DELETE"
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert httpx.get(f"{server}/mcp", timeout=10).status_code == 401  # the key first


def test_mcp_over_http_never_shows_b(server: str) -> None:
    async def session_for(key: str) -> dict[str, Any]:
        import httpx2
        from mcp import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        out: dict[str, Any] = {}
        async with (
            httpx2.AsyncClient(headers=auth(key), timeout=30) as http,
            streamable_http_client(f"{server}/mcp", http_client=http) as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            out["search"] = [
                await session.call_tool("search", {"query": q, "k": 10}) for q in QUESTIONS
            ]
            out["ask"] = [await session.call_tool("ask", {"question": q}) for q in QUESTIONS]
            out["probe"] = await session.call_tool(
                "search", {"query": "budget", "filters": {"principals": "group:b"}}
            )
            out["resources"] = await session.list_resources()
            out["read_b"] = await _read(session, "ragloom://documents/docs/b/plan.md")
            out["read_a"] = await _read(session, "ragloom://documents/docs/a/plan.md")
        return out

    a = asyncio.run(session_for(KEY_A))
    for result in a["search"] + a["ask"]:
        assert not result.is_error
        data = dict(result.structured_content)
        data.pop("query", None)
        assert_only_a(json.dumps(data))
    assert a["probe"].is_error and "invalid_filter" in a["probe"].content[0].text
    assert [r.name for r in a["resources"].resources] == ["docs/a/notes.md", "docs/a/plan.md"]
    assert isinstance(a["read_b"], Exception) and "ZEBRAFISH" not in str(a["read_b"])
    assert "HELIOTROPE" in a["read_a"].contents[0].text
    b = asyncio.run(session_for(KEY_B))
    assert [r.name for r in b["resources"].resources] == ["docs/b/notes.md", "docs/b/plan.md"]
    assert any("MARIGOLD" in repr(r.structured_content) for r in b["search"])


async def _read(session: Any, uri: str) -> Any:
    try:
        return await session.read_resource(uri)
    except Exception as exc:  # the SDK raises the server's error
        return exc
