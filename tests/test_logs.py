"""Structured logs (`--log-format json`) and redaction of secrets in every log line."""

from __future__ import annotations

import ast
import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import ragloom
from ragloom.logs import JsonFormatter, configure, redact
from ragloom.plugins import build_plugin_manager

from .conftest import basic_config

RAGLOOM = str(Path(sys.executable).parent / "ragloom")


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Authorization: Bearer abc.def-ghi", "abc.def-ghi"),
        ("{'authorization': 'Basic dXNlcjpwYXNz'}", "dXNlcjpwYXNz"),
        ("x-api-key: ragloom-123", "ragloom-123"),
        ("sent Bearer eyJhbGciOiJIUzI1NiJ9.payload", "eyJhbGciOiJIUzI1NiJ9"),
        ("key sk-proj-AbCdEf0123456789 used", "AbCdEf0123456789"),
        ("ragloom-Zx9_yW8-vU7tS6rQ5pO4nM3 in a message", "Zx9_yW8-vU7tS6rQ5pO4nM3"),
        ("dsn=postgresql://app:hunter2@db:5432/rag", "hunter2"),
        ("redis://:s3cret@cache:6379/0", "s3cret"),
        ("GET /x?api_key=abc123&page=2", "abc123"),
        ('{"token": "t0k3n"}', "t0k3n"),
        ("password=pa55word", "pa55word"),
    ],
)
def test_redact_removes_the_secret(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out and "[REDACTED]" in out


def test_redact_keeps_ordinary_text() -> None:
    for text in ["GET /v1/search 200 3.1ms", "https://example.com/a?b=c", "bearer of news"]:
        assert redact(text) == text


def test_json_formatter_writes_one_redacted_object_a_line() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("ragloom.test_logs")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        logger.info(
            "calling %s",
            "postgresql://u:pw@h/db",
            extra={"request_id": "r1", "auth": "Bearer xyz1"},
        )
        try:
            raise ValueError("token=abc")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["message"] == "calling postgresql://u:[REDACTED]@h/db"
    assert first["level"] == "INFO" and first["logger"] == "ragloom.test_logs"
    assert first["request_id"] == "r1" and first["auth"] == "Bearer [REDACTED]"
    assert first["time"].endswith("Z")
    assert "abc" not in second["exception"] and "ValueError" in second["exception"]


def test_configure_replaces_handlers_and_refuses_unknown_formats() -> None:
    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    try:
        stream = io.StringIO()
        configure(logging.INFO, "json", stream=stream)
        configure(logging.INFO, "json", stream=stream)  # again: still one handler
        logging.getLogger("ragloom").info("hello sk-abcdefghijklmnop")
        assert len(root.handlers) == 1
        assert json.loads(stream.getvalue())["message"] == "hello sk-[REDACTED]"
        with pytest.raises(ValueError, match="log format"):
            configure(logging.INFO, "xml")
    finally:
        root.handlers[:] = saved
        root.setLevel(level)


def test_pypdf_warnings_are_left_to_ragloom_s_own_report_unless_verbose() -> None:
    """A damaged PDF is reported once by ragloom ("not a readable PDF ...");
    pypdf's own warnings about it are shown only at INFO and below."""
    root, pypdf = logging.getLogger(), logging.getLogger("pypdf")
    saved, level = list(root.handlers), root.level
    try:
        stream = io.StringIO()
        configure("WARNING", stream=stream)
        logging.getLogger("pypdf._reader").warning("invalid pdf header")
        assert stream.getvalue() == ""
        configure(logging.DEBUG, stream=stream)
        logging.getLogger("pypdf._reader").warning("invalid pdf header")
        assert "invalid pdf header" in stream.getvalue()
    finally:
        root.handlers[:] = saved
        root.setLevel(level)
        pypdf.setLevel(logging.NOTSET)


def test_pypdf_warnings_name_their_file_in_the_python_api(tmp_path: Path) -> None:
    """In an application that never configured logging, pypdf's warnings
    ("EOF marker not found", naming no file) are not printed bare by Python's
    last-resort handler: ragloom's report of the file carries them."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj garbage\n")
    (docs / "ok.md").write_text("# OK\n\nFine text.\n", "utf-8")
    import yaml

    config = basic_config(loaders=[{"type": "directory", "path": "docs", "include": ["*"]}])
    (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(config), "utf-8")
    script = (
        "import ragloom\n"
        "with ragloom.load('ragloom.yaml') as pipeline:\n"
        "    for source, message in pipeline.index().problems:\n"
        "        print(source, '|', message)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "EOF marker not found" not in result.stderr, result.stderr
    said = result.stdout.strip()
    assert said.startswith("docs/broken.pdf | not a readable PDF (") and "pypdf: " in said, said
    assert "EOF marker not found" in said


def test_pypdf_warnings_of_other_threads_are_printed_as_before() -> None:
    """Two threads read PDFs while a third uses pypdf itself: the readers'
    warnings are theirs, the third's is printed by Python's last-resort
    handler once, as it would be without ragloom."""
    script = """
import logging, threading
from ragloom.builtin.loaders.parsers.pdf import _pypdf_warnings
inside, done = threading.Barrier(3), threading.Barrier(3)
kept = {}
def reader(name):
    with _pypdf_warnings() as warned:
        inside.wait()
        logging.getLogger("pypdf._reader").warning("reader %s warns", name)
        done.wait()
    kept[name] = list(warned)
threads = [threading.Thread(target=reader, args=(n,)) for n in "ab"]
for t in threads: t.start()
inside.wait()
logging.getLogger("pypdf._reader").warning("the application's own warning")
done.wait()
for t in threads: t.join()
print(kept)
"""
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("the application's own warning") == 1, result.stderr
    assert "reader" not in result.stderr, result.stderr
    kept = ast.literal_eval(result.stdout.strip())
    assert kept == {"a": ["reader a warns"], "b": ["reader b warns"]}


def test_pypdf_warnings_still_reach_handlers_the_application_set(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from ragloom.builtin.loaders.parsers.pdf import parse_pdf

    said: list[str] = []
    # (the pypdf logger's own level too: a CLI run in this process before, as
    # another test in the same worker may make, sets it to ERROR for a terminal)
    with caplog.at_level(logging.WARNING), caplog.at_level(logging.WARNING, logger="pypdf"):
        assert parse_pdf(b"%PDF-1.4\n1 0 obj garbage\n", report=said.append) is None
    assert any(r.name.startswith("pypdf") for r in caplog.records), caplog.records
    assert "pypdf: " in said[0]


def test_cli_log_format_json(corpus: Path) -> None:
    import yaml

    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()), "utf-8")
    result = subprocess.run(
        [RAGLOOM, "-v", "--log-format", "json", "index"],
        cwd=corpus,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    assert lines and all({"time", "level", "logger", "message"} <= set(e) for e in lines)
    assert any("stage" in e["message"] for e in lines)


def test_server_logs_never_hold_the_key(corpus: Path) -> None:
    from .test_serve import ALICE, live_server

    stream = io.StringIO()
    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    configure(logging.DEBUG, "json", stream=stream)
    try:
        pm = build_plugin_manager(load_entry_points=False, env={})
        pipeline = ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus)
        pipeline.index()
        with live_server(pipeline) as url:
            ok = httpx.post(
                f"{url}/v1/search",
                json={"query": "plan"},
                headers={"Authorization": f"Bearer {ALICE}"},
            )
            bad = httpx.post(
                f"{url}/v1/search",
                json={"query": "plan"},
                headers={"Authorization": "Bearer ragloom-wrong-key-0123456789"},
            )
            assert (ok.status_code, bad.status_code) == (200, 401)
    finally:
        root.handlers[:] = saved
        root.setLevel(level)
    text = stream.getvalue()
    assert ALICE not in text and "ragloom-wrong-key" not in text
    access = [json.loads(line) for line in text.splitlines() if '"ragloom.server.access"' in line]
    searched = [e for e in access if e["path"] == "/v1/search"]
    assert {(e["status"], e["caller"]) for e in searched} == {(200, "alice"), (401, None)}
    assert all(e["request_id"] and e["ms"] >= 0 for e in searched)
