"""The index changes while the server answers: `ragloom index` in another
process, or `POST /v1/index`. Requests keep being answered, each from one
committed corpus version, and the new version is picked up before the next
answer (the core's reload)."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import ragloom
import yaml
from ragloom.server.settings import ServerSettings

from .conftest import basic_config
from .test_serve import ADMIN, ALICE, auth, live_server

RAGLOOM = str(Path(sys.executable).parent / "ragloom")


def test_index_in_another_process_and_over_http_while_serving(corpus: Path) -> None:
    config = corpus / "ragloom.yaml"
    config.write_text(yaml.safe_dump(basic_config()), "utf-8")
    env = dict(os.environ)
    first = subprocess.run(
        [RAGLOOM, "index"], cwd=corpus, env=env, capture_output=True, text=True, timeout=120
    )
    assert first.returncode == 0, first.stderr
    pipeline = ragloom.load(config)
    with live_server(pipeline) as url, httpx.Client(base_url=url, headers=auth(ALICE)) as http:

        def search(query: str) -> dict:
            response = http.post("/v1/search", json={"query": query, "k": 3}, timeout=30)
            assert response.status_code == 200, response.text
            return response.json()

        before = search("kiwi orchard harvest")
        assert all(h["source"] != "docs/kiwi.md" for h in before["hits"])

        # keep querying while another process indexes: every answer succeeds,
        # and the versions they come from never go backwards
        versions: list[int] = []
        stop = threading.Event()
        failures: list[str] = []

        def hammer() -> None:
            with httpx.Client(base_url=url, headers=auth(ALICE)) as own:
                while not stop.is_set():
                    r = own.post("/v1/ask", json={"question": "kiwi orchard harvest"}, timeout=30)
                    if r.status_code != 200:
                        failures.append(r.text)
                    else:
                        versions.append(r.json()["corpus_version"])

        worker = threading.Thread(target=hammer)
        worker.start()
        try:
            (corpus / "docs" / "kiwi.md").write_text(
                "# Kiwi\n\nThe kiwi orchard harvest starts in May.\n", "utf-8"
            )
            second = subprocess.run(
                [RAGLOOM, "index"],
                cwd=corpus,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert second.returncode == 0, second.stderr
            after = search("kiwi orchard harvest")
        finally:
            stop.set()
            worker.join()
        assert not failures, failures[:3]
        assert versions == sorted(versions)
        assert after["corpus_version"] == before["corpus_version"] + 1
        assert after["hits"][0]["source"] == "docs/kiwi.md"

        # the same over HTTP, by an admin key: a deletion this time
        (corpus / "docs" / "kiwi.md").unlink()
        report = http.post("/v1/index", json={}, headers=auth(ADMIN), timeout=120)
        assert report.status_code == 200, report.text
        assert report.json()["deleted"] == ["docs/kiwi.md"]
        gone = search("kiwi orchard harvest")
        assert gone["corpus_version"] == report.json()["corpus_version"]
        assert all(h["source"] != "docs/kiwi.md" for h in gone["hits"])


def _wait_for(condition: Any, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_catch_up_moves_to_another_pipelines_commit_and_builds_bm25(corpus: Path, pm) -> None:
    server = ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus)
    with server, ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as writer:
        writer.index()
        assert server.catch_up() is True  # moved to version 1
        (_, bm25) = server.stores[1]
        assert bm25._index is not None  # built before any query
        assert server.catch_up() is False
        (corpus / "docs" / "kiwi.md").write_text("# Kiwi\n\nKiwi orchards are harvested in May.\n")
        writer.index()
        assert bm25._index is not None and server.retriever.state.view.version == 1
        assert server.catch_up() is True
        assert server.retriever.state.view.version == 2 and bm25._index is not None
        hits = server.retrieve("kiwi orchard harvest")
        assert hits.corpus_version == 2 and hits[0].chunk.document_id == "docs/kiwi.md"
    (corpus / "docs" / "kiwi.md").unlink()
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as writer:
        writer.index()
    assert server.catch_up() is False  # closed: left so, not opened again
    assert server.retriever.state._view is None


@contextlib.contextmanager
def served_while_indexing(corpus: Path, pm: Any, watch_interval: float) -> Iterator[tuple]:
    """A server over an indexed ``corpus`` and a second pipeline that indexes
    beside it (as `ragloom index` from cron would): ``(url, state, writer)``,
    ``state`` the server pipeline's."""
    config = basic_config()
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as writer:
        writer.index()
    pipeline = ragloom.load(config, plugin_manager=pm, base_dir=corpus)
    settings = ServerSettings(watch_interval=watch_interval)
    with (
        live_server(pipeline, settings=settings) as url,
        ragloom.load(config, plugin_manager=pm, base_dir=corpus) as writer,
    ):
        yield url, pipeline.retriever.state, writer


KIWI = "# Kiwi\n\nKiwi orchards are harvested in May.\n"


def test_the_server_moves_to_a_commit_before_any_query(corpus: Path, pm) -> None:
    """The first query after `ragloom index` from cron waited for the stores
    to reload (about 1.9 s at 45,000 chunks): the server's watcher does it
    first, every `watch_interval` seconds."""
    with served_while_indexing(corpus, pm, 0.05) as (_, state, writer):
        assert _wait_for(lambda: state._view is not None and state.view.version == 1)
        (corpus / "docs" / "kiwi.md").write_text(KIWI)
        writer.index()
        assert _wait_for(lambda: state.view.version == 2)  # no request was made
        watcher = next(t for t in threading.enumerate() if t.name == "ragloom-watch")
    assert _wait_for(lambda: not watcher.is_alive(), 10)  # stopped with the server


def test_without_a_watch_the_first_query_moves(corpus: Path, pm) -> None:
    def version(url: str, query: str) -> int:
        response = httpx.post(
            f"{url}/v1/search", json={"query": query}, headers=auth(ALICE), timeout=30
        )
        return response.json()["corpus_version"]

    with served_while_indexing(corpus, pm, 0) as (url, state, writer):
        assert not any(t.name == "ragloom-watch" for t in threading.enumerate())
        assert version(url, "Pro plan") == 1
        (corpus / "docs" / "kiwi.md").write_text(KIWI)
        writer.index()
        time.sleep(0.3)
        assert state.view.version == 1
        assert version(url, "kiwi") == 2


def test_an_index_that_cannot_be_queried_is_logged_once_without_tracebacks(
    corpus: Path, pm, caplog: Any
) -> None:
    """Each /readyz probe logged a warning, and each failed query a full
    traceback, for an error whose message already says what to do."""
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as writer:
        writer.index()
    other = basic_config(embedder={"type": "hash", "dimension": 64})  # not the index's
    pipeline = ragloom.load(other, plugin_manager=pm, base_dir=corpus)
    with caplog.at_level(logging.INFO), live_server(pipeline, ready=False) as url:
        for _ in range(4):
            assert httpx.get(f"{url}/readyz").status_code == 503
        for _ in range(3):
            response = httpx.post(
                f"{url}/v1/search", json={"query": "Pro plan"}, headers=auth(ALICE), timeout=30
            )
            assert response.status_code == 503
            assert response.json()["error"]["code"] == "index_unavailable"
    unready = [r for r in caplog.records if r.getMessage().startswith("not ready:")]
    assert len(unready) == 1 and "--rebuild" in unready[0].getMessage()
    failed = [r for r in caplog.records if "failed: IndexStateError" in r.getMessage()]
    assert len(failed) == 3 and all(r.exc_info is None for r in failed)


def test_over_http_a_refused_query_points_to_the_log_under_its_request_id(
    corpus: Path, pm, caplog: Any
) -> None:
    """Over HTTP the reason names the index's path on the server: the API and
    MCP at /mcp say only where to look, the request id the log line has
    (MCP's said "request None"; `ragloom mcp` on stdio says why instead)."""
    import asyncio

    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as writer:
        writer.index()
    other = basic_config(embedder={"type": "hash", "dimension": 64})  # not the index's
    pipeline = ragloom.load(other, plugin_manager=pm, base_dir=corpus)

    async def mcp_search(url: str) -> Any:
        import httpx2
        from mcp import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        async with (
            httpx2.AsyncClient(headers=auth(ALICE), timeout=30) as http,
            streamable_http_client(f"{url}/mcp", http_client=http) as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            return await session.call_tool("search", {"query": "Pro plan"})

    with caplog.at_level(logging.INFO), live_server(pipeline, ready=False) as url:
        deadline = time.monotonic() + 60
        while "opening" in (said := httpx.get(f"{url}/readyz").json()["error"]["message"]):
            assert time.monotonic() < deadline, said
            time.sleep(0.05)
        response = httpx.post(
            f"{url}/v1/search", json={"query": "Pro plan"}, headers=auth(ALICE), timeout=30
        )
        result = asyncio.run(mcp_search(url))
    request_id = response.headers["x-request-id"]
    assert response.json()["error"]["message"] == (
        f"the index cannot be queried right now; the server log says why (request {request_id})"
    )
    text = result.content[0].text
    mcp_said = re.fullmatch(
        r"index_unavailable: the index cannot be queried right now; the server log says why "
        r"\(request ([0-9a-f]{16})\)",
        text,
    )
    assert result.is_error and mcp_said, text
    logged = [r.getMessage() for r in caplog.records if "failed: IndexStateError" in r.getMessage()]
    assert [m.split(" failed:")[0] for m in logged] == [
        f"request {request_id}",
        f"request {mcp_said[1]}",
    ]
