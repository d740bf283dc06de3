"""API keys: the keys file, hashing, constant-time lookup."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from ragloom.errors import ConfigValidationError
from ragloom.server import Caller, KeyRing, generate_key, hash_key, load_keys
from ragloom.server.keys import parse_key_header

RAGLOOM = str(Path(sys.executable).parent / "ragloom")


def test_keys_file_with_hashes_env_keys_and_admin(tmp_path: Path) -> None:
    key_a, key_b = generate_key(), generate_key()
    path = tmp_path / "keys.yaml"
    path.write_text(
        "keys:\n"
        f"  - {{name: bot, sha256: {hash_key(key_a)}, principals: [group:support]}}\n"
        "  - {name: ops, key: '${OPS_KEY}', principals: [ops], admin: true}\n",
        "utf-8",
    )
    ring = load_keys(path, env={"OPS_KEY": key_b})
    assert ring.authenticate(key_a) == Caller("bot", ("group:support",))
    assert ring.authenticate(key_b) == Caller("ops", ("ops",), admin=True)
    assert ring.authenticate("ragloom-unknown-0123456789") is None
    assert ring.authenticate("") is None and ring.authenticate(None) is None
    assert key_b not in repr(ring)  # only digests are kept


def test_every_problem_of_a_keys_file_at_once(tmp_path: Path) -> None:
    path = tmp_path / "keys.yaml"
    path.write_text(
        "keys:\n"
        "  - {name: a, sha256: nothex}\n"
        "  - {name: a, key: short}\n"
        "  - {sha256: " + "0" * 64 + ", key: '${MISSING}', admn: true}\n",
        "utf-8",
    )
    with pytest.raises(ConfigValidationError) as caught:
        load_keys(path, env={})
    text = str(caught.value)
    for expected in ("keys[0].sha256", "keys[1].key", "keys[2].name", "admn", "MISSING"):
        assert expected in text, text
    assert "line 2" in text


def test_a_key_from_an_unset_variable_is_one_problem(tmp_path: Path) -> None:
    """Its empty value was also "a key must be at least 16 characters": a
    consequence, said as a second problem of the same line."""
    path = tmp_path / "keys.yaml"
    path.write_text("keys:\n  - {name: ops, key: '${RAGLOOM_OPS_KEY}'}\n", "utf-8")
    with pytest.raises(ConfigValidationError) as caught:
        load_keys(path, env={})
    (issue,) = caught.value.issues
    assert issue.path == "keys[0].key" and "RAGLOOM_OPS_KEY is not set" in issue.message


@pytest.mark.parametrize(
    "key", ["schlüssel-geheim-123456", "tab\tin-the-key-123456", " padded-key-0123456 "]
)
def test_a_key_clients_could_send_differently_is_refused(tmp_path: Path, key: str) -> None:
    """HTTP clients encode a header past ASCII differently (UTF-8, Latin-1):
    such a key would match for some of them and not for others."""
    path = tmp_path / "keys.yaml"
    path.write_text(yaml.safe_dump({"keys": [{"name": "a", "key": key}]}), "utf-8")
    with pytest.raises(ConfigValidationError, match=r"keys\[0\]\.key.*printable ASCII"):
        load_keys(path, env={})


def test_key_headers() -> None:
    assert parse_key_header("Bearer abc", None) == "abc"
    assert parse_key_header("bearer  abc ", None) == "abc"
    assert parse_key_header("Basic abc", None) is None
    assert parse_key_header(None, "k") == "k"
    assert parse_key_header(None, None) is None


def test_keyring_of_plain_keys() -> None:
    ring = KeyRing.of({"ragloom-one-0123456789abc": Caller("one")})
    assert len(ring) == 1 and ring.authenticate("ragloom-one-0123456789abc").name == "one"


def test_generate_key_command(tmp_path: Path) -> None:
    result = subprocess.run(
        [RAGLOOM, "serve", "--generate-key"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0
    key = result.stdout.split()[1]
    assert key.startswith("ragloom-") and hash_key(key) in result.stdout


def test_serve_without_keys_is_a_usage_error(tmp_path: Path) -> None:
    result = subprocess.run(
        [RAGLOOM, "serve"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and "--keys" in result.stderr


def _ready(server: subprocess.Popen, url: str) -> None:
    """Wait until the server at ``url`` answers ``/readyz`` (it must not exit)."""
    import time

    import httpx

    deadline = time.monotonic() + 120
    while True:
        assert server.poll() is None, server.communicate()[1]
        assert time.monotonic() < deadline, "ragloom serve did not become ready"
        try:
            if httpx.get(f"{url}/readyz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_on_a_port_in_use_is_one_line_and_no_banner(corpus: Path) -> None:
    """uvicorn would log the bind error after the "serving" banner and exit 3."""
    import socket

    from .conftest import basic_config

    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()), "utf-8")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [RAGLOOM, "serve", "--no-auth", "--no-mcp", "--port", str(port)],
            cwd=corpus, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert result.returncode == 1, result.stderr
    said = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert said == [
        f"error: cannot listen on 127.0.0.1:{port}: Address already in use; another "
        "server listens there: stop it, or pick another --port"
    ], result.stderr
    assert "serving" not in result.stderr


def test_the_serve_command_answers_with_its_keys_file(corpus: Path) -> None:
    """The real command: ``ragloom --log-format json serve --keys keys.yaml``,
    its own process, driven over HTTP; its JSON access log names the caller
    and never holds a key."""
    import json
    import os

    import httpx
    import yaml

    from .conftest import basic_config

    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()), "utf-8")
    key = generate_key()
    (corpus / "keys.yaml").write_text(
        yaml.safe_dump(
            {"keys": [{"name": "bot", "sha256": hash_key(key), "principals": ["group:a"]}]}
        ),
        "utf-8",
    )
    env = dict(os.environ)
    indexed = subprocess.run(
        [RAGLOOM, "index"], cwd=corpus, env=env, capture_output=True, text=True, timeout=120
    )
    assert indexed.returncode == 0, indexed.stderr
    port = _free_port()
    server = subprocess.Popen(
        [RAGLOOM, "--log-format", "json", "serve", "--keys", "keys.yaml", "--port", str(port),
         "--no-mcp"],
        cwd=corpus, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        _ready(server, url)
        found = httpx.post(
            f"{url}/v1/search",
            json={"query": "Pro plan price"},
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
        )
        assert found.status_code == 200, found.text
        assert found.json()["hits"]
        refused = httpx.post(f"{url}/v1/search", json={"query": "x"}, timeout=30)
        assert refused.status_code == 401
        not_admin = httpx.post(f"{url}/v1/index", json={}, headers={"X-API-Key": key}, timeout=30)
        assert not_admin.status_code == 403
        assert not_admin.json()["error"]["code"] == "forbidden"
    finally:
        server.terminate()
        _, stderr = server.communicate(timeout=60)
    assert key not in stderr
    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    access = [e for e in lines if e["logger"] == "ragloom.server.access"]
    assert {(e["path"], e["status"], e["caller"]) for e in access} >= {
        ("/v1/search", 200, "bot"),
        ("/v1/search", 401, None),
        ("/v1/index", 403, "bot"),
    }
    # the text line says the same: who, and the request id to find it by
    found_line = next(e for e in access if (e["path"], e["status"]) == ("/v1/search", 200))
    assert found_line["message"].endswith(f"caller=bot id={found_line['request_id']}")
    assert next(e for e in access if e["status"] == 401)["message"].endswith(
        f"caller=- id={next(e for e in access if e['status'] == 401)['request_id']}"
    )


def test_a_newline_in_the_request_path_cannot_forge_an_access_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``%0A`` in a URL arrives as a newline in the path: the text access line
    would end there and the rest read as a line of its own."""
    import logging

    import ragloom
    from ragloom.plugins import build_plugin_manager
    from ragloom.server import create_app
    from starlette.testclient import TestClient

    from .conftest import basic_config

    (tmp_path / "docs").mkdir()
    pm = build_plugin_manager(load_entry_points=False, env={})
    pipeline = ragloom.load(basic_config(), plugin_manager=pm, base_dir=tmp_path)
    with (
        caplog.at_level(logging.INFO, logger="ragloom.server.access"),
        TestClient(create_app(pipeline, keys=KeyRing.of({"k" * 20: Caller("bot", ())}))) as c,
    ):
        c.get("/v1/x%0AINFO ragloom.server.access: GET /v1/search 200 1.0ms%1b[2J")
    (line,) = [r.getMessage() for r in caplog.records if r.name == "ragloom.server.access"]
    assert "\n" not in line and "\x1b" not in line
    assert line.startswith("GET /v1/x\\x0aINFO ragloom.server.access") and "\\x1b[2J" in line


@pytest.mark.parametrize(("sent", "code"), [("SIGINT", 0), ("SIGTERM", -15)])
def test_stopping_the_server_is_its_normal_end(corpus: Path, sent: str, code: int) -> None:
    """Ctrl-C ended it with exit 1 and ``error: interrupted`` (uvicorn raises
    the signal again once it has stopped), which a supervisor counts as a
    failure; SIGTERM ends it by the signal, as any server it lets go."""
    import signal

    from .conftest import basic_config

    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()), "utf-8")
    port = _free_port()
    server = subprocess.Popen(
        [RAGLOOM, "serve", "--no-auth", "--no-mcp", "--port", str(port)],
        cwd=corpus, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as at a terminal
    )  # fmt: skip
    try:
        _ready(server, f"http://127.0.0.1:{port}")
        server.send_signal(getattr(signal, sent))
        _, stderr = server.communicate(timeout=60)
    finally:
        server.kill()
    assert server.returncode == code, stderr
    assert "error" not in stderr.lower(), stderr
