"""`ragloom mcp`: the MCP server on stdio, driven by the MCP SDK's own client
(``stdio_client`` + ``ClientSession``) against the real command."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, TextIO

import pytest
import yaml

from .conftest import basic_config

RAGLOOM = str(Path(sys.executable).parent / "ragloom")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mcp")
    docs = root / "docs"
    (docs / "hr").mkdir(parents=True)
    (docs / "pricing.md").write_text(
        "# Pricing\n\nThe Pro plan costs $29 per user per month.\n\n"
        "## Refunds\n\nAnnual plans can be refunded within 30 days of purchase.\n",
        "utf-8",
    )
    (docs / "hr" / "salaries.md").write_text(
        "# Salaries\n\nThe salary bands are reviewed every April. PAYGRADE-Q7.\n", "utf-8"
    )
    config = basic_config(
        access={
            "unlabeled": "public",
            "rules": [{"path": "docs/hr/**", "principals": ["group:hr"]}],
        }
    )
    (root / "ragloom.yaml").write_text(yaml.safe_dump(config), "utf-8")
    env = {**os.environ, "RAGLOOM_CACHE_DIR": str(root / "cache")}
    indexed = subprocess.run(
        [RAGLOOM, "index"], cwd=root, env=env, capture_output=True, text=True, timeout=120
    )
    assert indexed.returncode == 0, indexed.stderr
    return root


def session(project: Path, *args: str, errlog: TextIO | None = None) -> Any:
    """Run ``func(session)`` against ``ragloom mcp ARGS`` over stdio (its
    stderr to ``errlog``, a file, when given)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=RAGLOOM,
        args=["mcp", *args],
        cwd=str(project),
        env={**os.environ, "RAGLOOM_CACHE_DIR": str(project / "cache")},
    )

    def run(func: Any) -> Any:
        async def main() -> Any:
            client = stdio_client(params) if errlog is None else stdio_client(params, errlog)
            async with client as streams, ClientSession(*streams[:2]) as s:
                await s.initialize()
                return await func(s)

        return asyncio.run(main())

    return run


def test_tools_have_schemas_and_no_principals_argument(project: Path) -> None:
    async def check(s: Any) -> Any:
        return await s.list_tools()

    tools = {t.name: t for t in session(project, "--principal", "alice")(check).tools}
    assert set(tools) == {"search", "ask"}
    for tool in tools.values():
        properties = tool.input_schema["properties"]
        assert "principals" not in properties and tool.output_schema is not None
    assert set(tools["search"].input_schema["properties"]) == {"query", "k", "filters"}
    assert {"answer", "citations", "grounded"} <= set(tools["ask"].output_schema["properties"])


def test_search_and_ask_return_structured_citations(project: Path) -> None:
    async def calls(s: Any) -> Any:
        found = await s.call_tool("search", {"query": "refund annual plan", "k": 2})
        answered = await s.call_tool("ask", {"question": "How much does the Pro plan cost?"})
        return found, answered

    found, answered = session(project, "--principal", "alice")(calls)
    assert not found.is_error and not answered.is_error
    hits = found.structured_content["hits"]
    assert hits[0]["source"] == "docs/pricing.md" and "refunded" in hits[0]["text"]
    assert hits[0]["uri"] == "ragloom://documents/docs/pricing.md"
    answer = answered.structured_content
    assert "$29" in answer["answer"] and answer["grounded"]
    citation = answer["citations"][0]
    assert citation["number"] == 1 and citation["label"].startswith("docs/pricing.md")
    assert citation["uri"] == "ragloom://documents/docs/pricing.md"
    assert "$29" in answered.content[0].text  # the same, as text, for text-only clients


def test_resources_are_the_documents_the_principal_may_read(project: Path) -> None:
    async def resources(s: Any) -> Any:
        listed = await s.list_resources()
        text = await s.read_resource("ragloom://documents/docs/pricing.md")
        try:
            hidden: Any = await s.read_resource("ragloom://documents/docs/hr/salaries.md")
        except Exception as exc:
            hidden = exc
        return listed, text, hidden

    listed, text, hidden = session(project, "--principal", "alice")(resources)
    assert [r.uri for r in listed.resources] == ["ragloom://documents/docs/pricing.md"]
    content = text.contents[0].text
    assert content.startswith("# Pricing") and "refunded within 30 days" in content
    assert content.count("The Pro plan costs $29") == 1  # overlapping chunks put back once
    assert isinstance(hidden, Exception) and "PAYGRADE" not in str(hidden)

    listed, text, hidden = session(project, "--principal", "group:hr")(resources)
    assert {r.name for r in listed.resources} == {"docs/pricing.md", "docs/hr/salaries.md"}
    assert "PAYGRADE-Q7" in hidden.contents[0].text


def test_principals_come_from_the_command_line_not_the_model(project: Path) -> None:
    async def sneak(s: Any) -> Any:
        searched = await s.call_tool(
            "search",
            {"query": "salary bands PAYGRADE", "filters": {"principals": "group:hr"}},
        )
        smuggled = await s.call_tool(
            "search", {"query": "salary bands", "principals": ["group:hr"]}
        )
        # hits leave `path` out: a filter on it would tell it by hit counts
        located = [
            await s.call_tool(
                tool, {key: "pricing refunds", "filters": {"$not": {"path": {"$gte": "/"}}}}
            )
            for tool, key in (("search", "query"), ("ask", "question"))
        ]
        return searched, smuggled, located

    searched, smuggled, located = session(project, "--principal", "alice")(sneak)
    # a filter on the access field is refused: it would tell who may read what
    assert searched.is_error and searched.content[0].text.startswith("invalid_filter: ")
    assert "PAYGRADE" not in searched.content[0].text
    for result in located:
        assert result.is_error, result
        assert result.content[0].text.startswith("invalid_filter: filters may not test 'path'")
    assert smuggled.is_error or "PAYGRADE" not in repr(smuggled.structured_content["hits"])


def test_bad_arguments_are_tool_errors(project: Path) -> None:
    async def bad(s: Any) -> Any:
        return await s.call_tool("search", {"query": "x", "filters": {"year": {"$regex": "x"}}})

    result = session(project, "--principal", "alice")(bad)
    # the code first, as docs/mcp.md says (the SDK prefixed a raised ToolError's text)
    assert result.is_error and result.content[0].text.startswith("invalid_filter: ")

    calls = [
        ("search", {"query": "refunds", "k": 0}, "k must be 1 or more"),
        ("search", {"query": "refunds", "k": -1}, "k must be 1 or more"),
        ("ask", {"question": "refunds?", "k": -5}, "k must be 1 or more"),
        ("search", {"query": "   "}, "query is empty"),
        ("ask", {"question": ""}, "question is empty"),
        ("search", {"query": "x" * 16_000}, "at most 8,000"),
    ]

    async def wrong(s: Any) -> Any:
        return [await s.call_tool(tool, arguments) for tool, arguments, _ in calls]

    for result, (_, _, said) in zip(session(project, "--principal", "alice")(wrong), calls):
        text = result.content[0].text
        assert result.is_error and text.startswith("invalid_request: ") and said in text, text

    async def mistyped(s: Any) -> Any:
        return await s.call_tool("search", {"query": 5, "k": "many"})

    result = session(project, "--principal", "alice")(mistyped)
    text = result.content[0].text
    # one line, as the HTTP API says it: no pydantic type codes or links
    assert result.is_error and text.startswith("validation_error: "), text
    assert "query: Input should be a valid string" in text and "k: " in text
    assert "pydantic" not in text and "\n" not in text

    async def as_text(s: Any) -> Any:  # not converted: "5" is no number, as over HTTP
        return [
            await s.call_tool("search", {"query": "refunds", "k": "5"}),
            await s.call_tool("ask", {"question": "refunds?", "k": "5"}),
        ]

    for result in session(project, "--principal", "alice")(as_text):
        text = result.content[0].text
        assert result.is_error and text.startswith("validation_error: ") and "k: " in text, text


def test_a_query_the_index_refuses_says_why_over_stdio(tmp_path: Path) -> None:
    """The agent got "the server log says why (request None)": on stdio the
    server log is the subprocess's stderr, which agent hosts often drop, and
    there was no request id to find in it. Its one user started it, so the
    reason (and the fix) is passed on, redacted as the log is."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nzebra crossing\n", "utf-8")
    config = tmp_path / "ragloom.yaml"
    config.write_text(yaml.safe_dump(basic_config()), "utf-8")
    env = {**os.environ, "RAGLOOM_CACHE_DIR": str(tmp_path / "cache")}
    indexed = subprocess.run(
        [RAGLOOM, "index"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert indexed.returncode == 0, indexed.stderr
    # not the index's embedder: every query is refused until a rebuild
    config.write_text(
        yaml.safe_dump(basic_config(embedder={"type": "hash", "dimension": 64})), "utf-8"
    )

    async def search(s: Any) -> Any:
        return await s.call_tool("search", {"query": "zebra"})

    with (tmp_path / "stderr.txt").open("w", encoding="utf-8") as errlog:
        result = session(tmp_path, errlog=errlog)(search)
    text = result.content[0].text
    assert result.is_error and text.startswith("index_unavailable: "), text
    assert "hash (256-d)" in text and "hash (64-d)" in text and "--rebuild" in text, text
    assert "None" not in text and "server log" not in text, text
    # the log line names a request id of its own, not None
    [line] = [
        line
        for line in (tmp_path / "stderr.txt").read_text("utf-8").splitlines()
        if "failed: IndexStateError" in line
    ]
    assert re.search(r"request [0-9a-f]{16} failed", line), line


@pytest.mark.parametrize(
    "command", [("mcp",), ("serve", "--no-auth", "--port", "0")], ids=["mcp", "serve"]
)
def test_no_principal_under_access_control_is_refused_at_start(
    project: Path, command: tuple[str, ...]
) -> None:
    """Without keys, whose the server is comes from --principal: else every
    request would be no one's, and find only unlabelled documents, with no
    hint why."""
    result = subprocess.run(
        [RAGLOOM, *command],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2 and "--principal" in result.stderr, result.stderr
