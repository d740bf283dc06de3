"""`ragloom serve`: the HTTP API, started on 127.0.0.1 and driven by real
HTTP clients (httpx, and the openai SDK for the OpenAI-compatible chat).

The helpers at the top (``live_server``, ``keys``, ``sse_events``) are
shared by the other tests/test_serve_*.py and tests/test_mcp*.py modules.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import ragloom
from ragloom import Answer, Citation, ComponentConfig, Generator, hookimpl
from ragloom.plugins import build_plugin_manager
from ragloom.server import Caller, KeyRing, ServerSettings, create_app

from .conftest import basic_config

ALICE = "ragloom-alice-0123456789abcdef"
ADMIN = "ragloom-admin-0123456789abcdef"
KEYS = KeyRing.of(
    {
        ALICE: Caller("alice", ("alice",)),
        ADMIN: Caller("ops", ("ops",), admin=True),
    }
)


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


# -- shared helpers -----------------------------------------------------------


@contextmanager
def live_server(pipeline: ragloom.Pipeline, *, ready: bool = True, **kwargs: Any) -> Iterator[str]:
    """``create_app(pipeline, **kwargs)`` served by uvicorn on 127.0.0.1 (a
    free port), in a thread; yields its base URL once ``/readyz`` says ready
    (with ``ready=False``, as soon as it listens)."""
    import uvicorn

    kwargs.setdefault("keys", KEYS)
    app = create_app(pipeline, **kwargs)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_config=None, access_log=False, lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
            time.sleep(0.02)
        port = server.servers[0].sockets[0].getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        while ready and httpx.get(f"{url}/readyz").status_code != 200:
            assert time.monotonic() < deadline, "pipeline did not open"
            time.sleep(0.05)
        yield url
    finally:
        server.should_exit = True
        thread.join(30)


def sse_events(text: str) -> list[tuple[str, Any]]:
    """``(event, data)`` of a server-sent event stream (``message`` when unnamed)."""
    events = []
    for block in text.strip().split("\n\n"):
        name, data = "message", []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        payload = "\n".join(data)
        events.append((name, payload if payload == "[DONE]" else json.loads(payload)))
    return events


class Gate:
    """What a :class:`Sleepy` generator is doing: ``entered`` is set once a
    call is inside ``generate``, ``finished`` once one has returned; a call
    waits until ``release`` is set (or its ``seconds`` run out)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.finished = threading.Event()


GATES: dict[str, Gate] = {}


class Sleepy(Generator):
    """Answers once its gate is released (or after ``seconds``), citing the
    best hit: a generator that is still busy, for limits and timeouts."""

    class Config(ComponentConfig):
        seconds: float = 30.0
        gate: str = "default"

    def generate(self, question, hits, history=()):  # type: ignore[no-untyped-def]
        gate = GATES[self.config.gate]
        gate.entered.set()
        gate.release.wait(self.config.seconds)
        gate.finished.set()
        if not hits:
            return Answer(question, "nothing", grounded=False)
        best = hits[0].chunk
        return Answer(
            question, "slowly [1]", citations=(Citation(1, best.id, best.label, best.source),)
        )


class SleepyPlugin:
    @hookimpl
    def register_generators(self, register):  # type: ignore[no-untyped-def]
        register("sleepy", Sleepy)


@contextmanager
def sleepy_pipeline(root: Path, seconds: float = 30.0) -> Iterator[tuple[ragloom.Pipeline, Gate]]:
    """A pipeline whose generator waits at a gate; the gate is released when
    the block ends, so no thread outlives the test."""
    name = f"gate-{len(GATES)}"
    gate = GATES[name] = Gate()
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(SleepyPlugin(), name="sleepy")
    config = basic_config(generator={"type": "sleepy", "seconds": seconds, "gate": name})
    pipeline = ragloom.load(config, plugin_manager=pm, base_dir=root)
    pipeline.index()
    try:
        yield pipeline, gate
    finally:
        gate.release.set()


class Unopenable(Generator):
    """A generator whose model cannot be loaded."""

    def open(self, context):  # type: ignore[no-untyped-def]
        raise OSError("cannot load /models/secret-path/model.bin")

    def generate(self, question, hits, history=()):  # type: ignore[no-untyped-def]
        raise AssertionError("never opened")


class UnopenablePlugin:
    @hookimpl
    def register_generators(self, register):  # type: ignore[no-untyped-def]
        register("unopenable", Unopenable)


# -- fixtures -----------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from .conftest import DOCS

    root = tmp_path_factory.mktemp("serve")
    (root / "docs").mkdir()
    for name, text in DOCS.items():
        (root / "docs" / name).write_text(text, "utf-8")
    pipeline = ragloom.load(
        basic_config(),
        plugin_manager=build_plugin_manager(load_entry_points=False, env={}),
        base_dir=root,
    )
    pipeline.index()
    with live_server(pipeline, settings=ServerSettings(max_body_bytes=16_384)) as url:
        yield url


@pytest.fixture(scope="module")
def client(server: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server, headers=auth(ALICE), timeout=30) as c:
        yield c


# -- health, schema -----------------------------------------------------------


def test_health_and_readiness_need_no_key(server: str) -> None:
    assert httpx.get(f"{server}/healthz").json() == {"status": "ok"}
    assert httpx.get(f"{server}/readyz").json() == {"status": "ready"}


def test_a_pipeline_that_cannot_open_is_never_ready(corpus: Path) -> None:
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(UnopenablePlugin(), name="unopenable")
    config = basic_config(generator={"type": "unopenable"})
    pipeline = ragloom.load(config, plugin_manager=pm, base_dir=corpus)
    failures: list[BaseException] = []
    with live_server(pipeline, ready=False, on_open_failure=failures.append) as url:
        deadline = time.monotonic() + 60
        while not failures:
            assert time.monotonic() < deadline, "the failure was not reported"
            time.sleep(0.05)
        assert isinstance(failures[0], OSError)
        assert httpx.get(f"{url}/healthz").status_code == 200  # alive, not ready
        for response in (
            httpx.get(f"{url}/readyz"),
            httpx.post(f"{url}/v1/search", json={"query": "x"}, headers=auth(ALICE)),
        ):
            assert response.status_code == 503
            assert response.json()["error"]["code"] == "not_ready"
            assert "failed to open" in response.json()["error"]["message"]
            assert "secret-path" not in response.text  # the details are for the log
            assert response.headers["retry-after"]


def test_openapi_schema_is_served_and_root_is_the_playground(server: str) -> None:
    schema = httpx.get(f"{server}/openapi.json").json()
    paths = set(schema["paths"])
    assert {"/v1/search", "/v1/ask", "/v1/index", "/v1/chat/completions", "/readyz"} <= paths
    assert {"HTTPBearer", "APIKeyHeader"} <= set(schema["components"]["securitySchemes"])
    root = httpx.get(f"{server}/")
    assert root.status_code == 200 and "ragloom playground" in root.text
    missing = httpx.get(f"{server}/nowhere")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    # a trailing slash is no route either: not a redirect (empty, to the client's Host)
    for method, path in (
        ("POST", "/v1/search/"),
        ("GET", "/healthz/"),
        ("GET", "/v1/models/"),
        ("POST", "/mcp/"),
        ("GET", "/docs/"),
    ):
        slashed = httpx.request(method, f"{server}{path}", headers={"Host": "evil.example"})
        assert slashed.status_code == 404, (path, slashed.status_code, slashed.headers)
        assert slashed.json()["error"]["code"] == "not_found" and "location" not in slashed.headers


def test_every_status_without_a_key_is_one_the_schema_documents(server: str) -> None:
    """Each operation, asked without a key and with an empty body, answers a
    status its schema lists: a key's 401 comes from a layer around the route,
    which the route alone did not declare (trial 20, F7)."""
    schema = httpx.get(f"{server}/openapi.json").json()
    asked = 0
    for path, operations in schema["paths"].items():
        url = server + path.replace("{model_id}", "nope")
        for method, operation in operations.items():
            body = {"json": {}} if "requestBody" in operation else {}
            response = httpx.request(method.upper(), url, timeout=30, **body)
            assert str(response.status_code) in operation["responses"], (
                method,
                path,
                response.status_code,
                sorted(operation["responses"]),
            )
            asked += 1
    assert asked >= 8
    models = schema["paths"]["/v1/models"]["get"]["responses"]
    assert {"200", "401", "429"} <= set(models)
    assert "401" not in schema["paths"]["/healthz"]["get"]["responses"]  # no key asked there


# -- search, ask --------------------------------------------------------------


def test_search_returns_hits_from_one_corpus_version(client: httpx.Client) -> None:
    data = client.post("/v1/search", json={"query": "Pro plan price", "k": 2}).json()
    assert data["corpus_version"] >= 1 and len(data["hits"]) == 2
    best = data["hits"][0]
    assert best["source"] == "docs/pricing.md" and "$29" in best["text"]
    assert best["rank"] == 1 and set(best["scores"]) >= {"memory", "bm25", "fusion"}
    assert "path" not in best["metadata"]  # where the file lies on the server is not sent
    assert "explain" not in best


def test_search_explain(client: httpx.Client) -> None:
    data = client.post("/v1/search", json={"query": "Pro plan price", "explain": True}).json()
    assert data["queries"] == ["Pro plan price"]
    assert data["access_filter"] == {
        "$or": [{"principals": {"$in": ["alice"]}}, {"principals": {"$exists": False}}]
    }
    assert data["store_filters"] == {}  # no store of this config has a filter of its own
    why = data["hits"][0]["explain"]
    assert why["fused_rank"] == 1 and set(why["stores"]) == {"memory", "bm25"}
    assert why["stores"]["bm25"]["rank"] >= 1


def test_search_with_a_filter(client: httpx.Client) -> None:
    data = client.post(
        "/v1/search", json={"query": "plan", "filters": {"source": "docs/memory.md"}}
    ).json()
    assert data["hits"] and {h["source"] for h in data["hits"]} == {"docs/memory.md"}


def test_ask_answers_with_citations(client: httpx.Client) -> None:
    data = client.post(
        "/v1/ask", json={"question": "How much does the Pro plan cost?", "trace": True}
    ).json()
    assert "$29" in data["answer"] and data["grounded"] and not data["degraded"]
    assert data["citations"][0]["source"] == "docs/pricing.md"
    assert data["citations"][0]["label"].startswith("docs/pricing.md")
    assert {t["stage"] for t in data["trace"]} >= {"embed_query", "retrieve", "fuse", "generate"}


def test_ask_not_found(client: httpx.Client) -> None:
    data = client.post("/v1/ask", json={"question": "Who is the CEO of Zorblax?"}).json()
    assert not data["grounded"] and data["citations"] == []


def test_ask_streams_pieces_then_the_checked_answer(client: httpx.Client) -> None:
    with client.stream(
        "POST", "/v1/ask", json={"question": "How long are memories kept?", "stream": True}
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse_events(response.read().decode())
    names = [name for name, _ in events]
    assert names[-1] == "answer" and set(names[:-1]) == {"delta"}
    text = "".join(data["text"] for name, data in events if name == "delta")
    answer = events[-1][1]
    assert text == answer["answer"] and "90 days" in text
    assert answer["citations"][0]["source"] == "docs/memory.md"


# -- OpenAI-compatible chat, with the openai SDK --------------------------------


def test_chat_completions_with_the_openai_sdk(server: str) -> None:
    import openai

    sdk = openai.OpenAI(base_url=f"{server}/v1", api_key=ALICE, max_retries=0)
    assert [m.id for m in sdk.models.list()] == ["ragloom"]
    assert sdk.models.retrieve("ragloom").id == "ragloom"
    with pytest.raises(openai.NotFoundError):
        sdk.models.retrieve("gpt-4o")
    completion = sdk.chat.completions.create(
        model="ragloom",
        messages=[
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "How much does the Pro plan cost?"},
        ],
        temperature=0.2,
    )
    message = completion.choices[0].message
    assert "$29" in message.content and "Sources:\n[1] docs/pricing.md" in message.content
    assert completion.choices[0].finish_reason == "stop"
    citations = completion.model_extra["citations"]
    assert citations[0]["source"] == "docs/pricing.md" and citations[0]["number"] == 1
    assert completion.model_extra["ragloom"]["grounded"] is True


def test_chat_streaming_with_the_openai_sdk(server: str) -> None:
    import openai

    sdk = openai.OpenAI(base_url=f"{server}/v1", api_key=ALICE, max_retries=0)
    stream = sdk.chat.completions.create(
        model="ragloom",
        messages=[{"role": "user", "content": "How long are memories kept on the Free plan?"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert "90 days" in text and "Sources:\n[1] docs/memory.md" in text
    last = [c for c in chunks if c.choices][-1]
    assert last.choices[0].finish_reason == "stop"
    assert last.model_extra["citations"][0]["source"] == "docs/memory.md"
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens > 0


def test_chat_errors_reach_the_sdk_as_its_exceptions(server: str) -> None:
    import openai

    sdk = openai.OpenAI(base_url=f"{server}/v1", api_key=ALICE, max_retries=0)
    with pytest.raises(openai.NotFoundError) as unknown:
        sdk.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    assert unknown.value.body["code"] == "model_not_found"
    bad = openai.OpenAI(base_url=f"{server}/v1", api_key="sk-not-a-key-at-all", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        bad.chat.completions.create(model="ragloom", messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(openai.BadRequestError):
        sdk.chat.completions.create(
            model="ragloom",
            messages=[{"role": "user", "content": "hi"}],
            tools=[{"type": "function", "function": {"name": "f", "parameters": {}}}],
        )
    with pytest.raises(openai.BadRequestError) as two:  # 400, as serve.md says
        sdk.chat.completions.create(
            model="ragloom", messages=[{"role": "user", "content": "hi"}], n=2
        )
    assert two.value.body["code"] == "unsupported" and two.value.body["param"] == "n"
    with pytest.raises(openai.BadRequestError) as long:  # as /v1/ask's history
        sdk.chat.completions.create(
            model="ragloom",
            messages=[
                {"role": "user", "content": "x" * 9_000},
                {"role": "assistant", "content": "ok"},
                {"role": "user", "content": "hi"},
            ],
        )
    assert "9,000 characters" in long.value.body["message"]


def test_chat_takes_ragloom_options_in_the_body(server: str) -> None:
    import openai

    sdk = openai.OpenAI(base_url=f"{server}/v1", api_key=ALICE, max_retries=0)
    completion = sdk.chat.completions.create(
        model="ragloom",
        messages=[{"role": "user", "content": "How much does the Pro plan cost?"}],
        extra_body={"ragloom": {"filters": {"source": "docs/security.md"}}},
    )
    assert all(c["source"] == "docs/security.md" for c in completion.model_extra["citations"])


# -- auth ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer ragloom-wrong-0123456789abcdef"},
        {"Authorization": f"Basic {ALICE}"},
        {"Authorization": "Bearer"},
        {"X-API-Key": "nope"},
    ],
)
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v1/search"),
        ("POST", "/v1/ask"),
        ("POST", "/v1/index"),
        ("POST", "/v1/chat/completions"),
        ("GET", "/v1/models"),
        ("GET", "/v1/models/ragloom"),
        ("POST", "/mcp"),
    ],
)
def test_no_key_or_a_wrong_key_is_401(
    server: str, method: str, path: str, headers: dict[str, str]
) -> None:
    response = httpx.request(method, f"{server}{path}", json={"query": "x"}, headers=headers)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert response.headers["www-authenticate"] == "Bearer"


def test_x_api_key_header_works_too(server: str) -> None:
    response = httpx.post(
        f"{server}/v1/search", json={"query": "refund"}, headers={"X-API-Key": ALICE}
    )
    assert response.status_code == 200


def test_index_needs_an_admin_key(server: str) -> None:
    denied = httpx.post(f"{server}/v1/index", json={}, headers=auth(ALICE))
    assert denied.status_code == 403 and denied.json()["error"]["code"] == "forbidden"
    done = httpx.post(f"{server}/v1/index", json={"dry_run": True}, headers=auth(ADMIN))
    assert done.status_code == 200, done.text
    assert done.json()["dry_run"] and done.json()["unchanged"] == 3
    # every file read, as `ragloom index --reread` reads them
    again = httpx.post(f"{server}/v1/index", json={"reread": True}, headers=auth(ADMIN))
    assert again.status_code == 200, again.text
    assert again.json()["unchanged"] == 3 and again.json()["unread"] == 0
    wrong = httpx.post(f"{server}/v1/index", json={"reread": "yes"}, headers=auth(ADMIN))
    assert wrong.status_code == 422
    # a rebuild of some sources is the request's mistake, not the server's (the fuzzer's find)
    both = httpx.post(
        f"{server}/v1/index", json={"rebuild": True, "sources": ["a.md"]}, headers=auth(ADMIN)
    )
    assert both.status_code == 422 and "takes no `sources`" in both.text, both.text


def test_principals_in_the_body_are_refused(client: httpx.Client) -> None:
    response = client.post("/v1/search", json={"query": "plan", "principals": ["group:hr"]})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "validation_error"


# -- errors as JSON -----------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"query": "   "}, 422, "validation_error"),
        ({"query": "x", "k": 0}, 422, "validation_error"),
        ({"query": "x", "k": 5000}, 400, "invalid_request"),
        ({"query": "x", "filters": {"year": {"$regex": "2."}}}, 400, "invalid_filter"),
        ({"query": "x", "filters": {"$or": "nope"}}, 400, "invalid_filter"),
        ({"query": "x", "surprise": 1}, 422, "validation_error"),
        ({"query": "x" * 9000}, 422, "validation_error"),
        # values of another JSON type are not taken for what they are not
        ({"query": "x", "k": "5"}, 422, "validation_error"),
        ({"query": "x", "k": True}, 422, "validation_error"),
        ({"query": "x", "explain": "yes"}, 422, "validation_error"),
        ({"query": 42}, 422, "validation_error"),
    ],
)
def test_bad_requests_are_json_errors(
    client: httpx.Client, body: dict[str, Any], status: int, code: str
) -> None:
    response = client.post("/v1/search", json=body)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code and error["message"] and error["request_id"]
    assert response.headers["x-request-id"] == error["request_id"]
    assert "Traceback" not in response.text


def test_malformed_json_and_deep_nesting_are_400(client: httpx.Client) -> None:
    headers = {"content-type": "application/json"}
    broken = client.post("/v1/search", content=b'{"query": ', headers=headers)
    assert broken.status_code == 400 and broken.json()["error"]["code"] == "invalid_json"
    deep = client.post("/v1/search", content=b"[" * 2000 + b"]" * 2000, headers=headers)
    assert deep.status_code in (400, 422) and "error" in deep.json()


def test_json_sent_as_form_data_is_told_to_say_json(client: httpx.Client) -> None:
    """``curl -d '{...}'`` sends a good JSON body as form data."""
    body = b'{"query": "refunds", "k": 1}'
    for headers, said in (
        (
            {"content-type": "application/x-www-form-urlencoded"},
            "application/x-www-form-urlencoded",
        ),
        ({}, "without a Content-Type"),
    ):
        response = client.post("/v1/search", content=body, headers=headers)
        error = response.json()["error"]
        assert response.status_code == 415 and error["code"] == "unsupported_media_type"
        assert said in error["message"] and "application/json" in error["message"]
    good = client.post("/v1/search", content=body, headers={"content-type": "application/json"})
    assert good.status_code == 200


def test_body_size_limit(client: httpx.Client) -> None:
    big = client.post("/v1/search", json={"query": "x", "filters": {"a": "b" * 20_000}})
    assert big.status_code == 413 and big.json()["error"]["code"] == "body_too_large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"query": "x", "filters": {"a": "'
        for _ in range(20):
            yield b"b" * 1000
        yield b'"}}'

    chunked = client.post(
        "/v1/search", content=chunks(), headers={"content-type": "application/json"}
    )
    assert chunked.status_code == 413


def test_unknown_route_and_wrong_method(client: httpx.Client) -> None:
    assert client.get("/v1/nothing").json()["error"]["code"] == "not_found"
    wrong = client.get("/v1/search")
    assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "method_not_allowed"


def test_request_id_is_kept_when_sane(client: httpx.Client) -> None:
    kept = client.post("/v1/search", json={"query": "x"}, headers={"X-Request-ID": "abc-123"})
    assert kept.headers["x-request-id"] == "abc-123"
    odd = client.post("/v1/search", json={"query": "x"}, headers={"X-Request-ID": "a b\x01"})
    assert odd.headers["x-request-id"] != "a b\x01"


def test_why_the_index_cannot_be_queried_is_said_only_to_a_local_caller() -> None:
    """Over HTTP the reason stays in the log (it names the index's path on
    the server); ``ragloom mcp`` on stdio (``local``) gets it redacted as the
    log is; no message says "(request None)" when there is no id."""
    from ragloom.errors import ComponentError, IndexStateError
    from ragloom.server.errors import from_exception

    refused = IndexStateError(
        "index /srv/.ragloom was built with embedder hash (256-d), the config says hash "
        "(512-d) for postgresql://app:hunter2@db/docs: run `ragloom index --rebuild`"
    )
    http = from_exception(refused, "3f9c0b1e2d4a5b6c")
    assert http.code == "index_unavailable" and http.message == (
        "the index cannot be queried right now; the server log says why (request 3f9c0b1e2d4a5b6c)"
    )
    local = from_exception(refused, "3f9c0b1e2d4a5b6c", local=True)
    assert local.code == "index_unavailable" and "run `ragloom index --rebuild`" in local.message
    assert "hunter2" not in local.message and "app:[REDACTED]@db" in local.message
    for exc in (refused, ComponentError("boom"), RuntimeError("bug")):
        message = from_exception(exc, None).message
        assert "request" not in message and "None" not in message, message


# -- limits: concurrency, timeouts -------------------------------------------------


def test_excess_concurrency_is_429_with_retry_after(corpus: Path) -> None:
    settings = ServerSettings(max_concurrency=1, retry_after=3)
    with (
        sleepy_pipeline(corpus) as (pipeline, gate),
        live_server(pipeline, settings=settings) as url,
    ):
        results: list[httpx.Response] = []
        slow = threading.Thread(
            target=lambda: results.append(
                httpx.post(
                    f"{url}/v1/ask", json={"question": "Pro plan?"}, headers=auth(ALICE), timeout=60
                )
            )
        )
        slow.start()
        assert gate.entered.wait(30)  # the first one holds the only slot
        refused = httpx.post(f"{url}/v1/search", json={"query": "x"}, headers=auth(ALICE))
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "3"
        assert refused.json()["error"]["code"] == "too_many_requests"
        assert httpx.get(f"{url}/healthz").status_code == 200  # not limited
        assert not gate.finished.is_set()  # refused while the first one was still running
        gate.release.set()
        slow.join()
        assert results[0].status_code == 200
        assert (
            httpx.post(f"{url}/v1/search", json={"query": "x"}, headers=auth(ALICE)).status_code
            == 200
        )


def _stall(url: str, key: str | None) -> socket.socket:
    """A request to /v1/search whose body stops after 3 of 100 bytes."""
    host, port = url.removeprefix("http://").split(":")
    conn = socket.create_connection((host, int(port)))
    head = f"POST /v1/search HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
    if key is not None:
        head += f"Authorization: Bearer {key}\r\n"
    conn.sendall((head + "Content-Length: 100\r\n\r\n").encode() + b'{"q')
    return conn


def test_stalled_bodies_hold_no_slot_without_a_key_and_time_out_with_one(corpus: Path) -> None:
    """Slowloris: bodies that never arrive. Without a valid key a request
    takes no concurrency slot; with one, the body must arrive within the
    request time limit (408), and the slot comes back."""
    settings = ServerSettings(max_concurrency=2, request_timeout=1.5)
    with (
        sleepy_pipeline(corpus) as (pipeline, _gate),
        live_server(pipeline, settings=settings) as url,
    ):
        strangers = [_stall(url, None) for _ in range(6)] + [_stall(url, "wrong") for _ in range(6)]
        time.sleep(0.3)
        good = httpx.post(f"{url}/v1/search", json={"query": "x"}, headers=auth(ALICE))
        assert good.status_code == 200, good.text
        holders = [_stall(url, ALICE) for _ in range(2)]
        time.sleep(0.3)
        busy = httpx.post(f"{url}/v1/search", json={"query": "x"}, headers=auth(ALICE))
        assert busy.status_code == 429  # the two slots are held, for now
        for conn in holders:
            conn.settimeout(10)
            reply = conn.recv(65536).decode()
            while "request_timeout" not in reply and (more := conn.recv(65536)):
                reply += more.decode()
            assert reply.startswith("HTTP/1.1 408"), reply
            assert '"code":"request_timeout"' in reply.replace(" ", "")
        again = httpx.post(f"{url}/v1/search", json={"query": "x"}, headers=auth(ALICE))
        assert again.status_code == 200
        for conn in strangers + holders:
            conn.close()


def test_a_request_past_the_time_limit_is_504(corpus: Path) -> None:
    settings = ServerSettings(request_timeout=0.5)
    with (
        sleepy_pipeline(corpus) as (pipeline, gate),
        live_server(pipeline, settings=settings) as url,
    ):
        late = httpx.post(
            f"{url}/v1/ask", json={"question": "Pro plan?"}, headers=auth(ALICE), timeout=30
        )
        assert late.status_code == 504 and late.json()["error"]["code"] == "timeout"
        # the answer came while the generator was still at work, not after it
        assert gate.entered.is_set() and not gate.finished.is_set()
        streamed = httpx.post(
            f"{url}/v1/ask",
            json={"question": "Pro plan?", "stream": True},
            headers=auth(ALICE),
            timeout=30,
        )
        assert streamed.status_code == 504
        assert streamed.json()["error"]["code"] == "timeout"
        chat = httpx.post(
            f"{url}/v1/chat/completions",
            json={"model": "ragloom", "messages": [{"role": "user", "content": "Pro plan?"}],
                  "stream": True},
            headers=auth(ALICE),
            timeout=30,
        )  # fmt: skip
        assert chat.status_code == 504
        assert not gate.finished.is_set()
        gate.release.set()  # before the server closes the pipeline, which waits for it


def test_a_search_after_a_killed_rebuild_is_503_saying_so(corpus: Path) -> None:
    """The ledger a killed `--rebuild` left is empty and marked: a server
    opened on it says the index is being rebuilt, not "no hits"."""
    from ragloom.ledger import Ledger

    config = basic_config()
    pm = build_plugin_manager(load_entry_points=False, env={})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        ledger_path = pipeline.index_dir / "ledger.sqlite"
    ledger = Ledger(ledger_path).open()
    ledger.clear(rebuilding=time.time())  # what a rebuild commits first, then killed
    ledger.close()
    pipeline = ragloom.load(config, plugin_manager=pm, base_dir=corpus)
    with live_server(pipeline, ready=False) as url:
        deadline = time.monotonic() + 60
        while (ready := httpx.get(f"{url}/readyz")).json().get("status") != "ready":
            message = ready.json()["error"]["message"]
            if "being rebuilt" in message:
                break  # open, and not ready: what a load balancer must hear
            assert time.monotonic() < deadline, message
            time.sleep(0.05)
        assert ready.status_code == 503 and ready.headers["retry-after"]
        assert ready.json()["error"]["message"] == "not ready: the index is being rebuilt"
        response = httpx.post(f"{url}/v1/search", json={"query": "Pro plan"}, headers=auth(ALICE))
        assert response.status_code == 503, response.text
        error = response.json()["error"]
        assert error["code"] == "index_unavailable"
        assert "the index is being rebuilt" in error["message"]
        assert "run `ragloom index` to complete it" in error["message"]


def test_an_index_run_without_keys_is_told_how_to_get_one(corpus: Path) -> None:
    """`serve --no-auth` gave every caller "the key 'anonymous' ... needs admin:
    true", which no one could act on: there is no key to change."""
    from ragloom.server.auth import ANONYMOUS

    pm = build_plugin_manager(load_entry_points=False, env={})
    pipeline = ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus)
    with live_server(pipeline, keys=None, anonymous=Caller(ANONYMOUS)) as url:
        refused = httpx.post(f"{url}/v1/index", json={})
        assert refused.status_code == 403
        message = refused.json()["error"]["message"]
        assert "this server runs with --no-auth" in message and "--keys" in message
        assert "the key 'anonymous'" not in message


def test_a_nan_in_a_filter_is_invalid_filter_not_no_hits(client: httpx.Client) -> None:
    """NaN is not JSON, yet the body's reader took it, and the search
    answered 200 with no hits."""
    body = b'{"query": "x", "filters": {"price": {"$lt": NaN}}}'
    response = client.post("/v1/search", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_filter" and "price.$lt: NaN" in error["message"]
