"""A server process answering with a pipeline it opened once, while cron runs
`ragloom index` on a changing corpus 50 times: zero errors, no lost or stale
document, and every answer drawn from one committed corpus version."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import yaml
from ragloom.ledger import Ledger

from .conftest import basic_config

RAGLOOM = str(Path(sys.executable).parent / "ragloom")

READER = textwrap.dedent(
    """
    import json, random, sys, time
    from pathlib import Path
    import ragloom

    root, out = Path(sys.argv[1]), open(sys.argv[2], "w")
    stop = root / "stop"
    rng = random.Random(11)
    with ragloom.load(root / "ragloom.yaml") as pipeline:
        out.write(json.dumps({"ready": True}) + "\\n")
        out.flush()
        while not stop.exists():
            token = rng.randrange(120)
            try:
                answer = pipeline.ask(f"tok{token}", k=5)
                hits = [[h.chunk.id, h.chunk.document_id, h.chunk.text] for h in answer.hits]
                record = {"token": token, "version": answer.metadata["corpus_version"],
                          "hits": hits}
            except Exception as exc:
                record = {"token": token, "error": repr(exc)}
            out.write(json.dumps(record) + "\\n")
            out.flush()
    """
)


def write(doc: Path, number: int, serial: int) -> None:
    doc.write_text(f"# Doc {number}\n\nThis page mentions tok{number} in edition ed{serial}.\n")


def test_server_and_cron_indexing_together(tmp_path: Path) -> None:
    rng = random.Random(5)
    docs = tmp_path / "docs"
    docs.mkdir()
    live = set(rng.sample(range(120), 60))
    for number in live:
        write(docs / f"d{number}.md", number, 0)
    config = basic_config(chunker={"type": "markdown", "size": 400, "overlap": 0})
    (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(config))
    committed: dict[int, dict[str, set[str]]] = {}

    def index() -> None:
        result = subprocess.run(
            [RAGLOOM, "index"], cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
        assert result.returncode == 0, result.stderr
        ledger = Ledger(tmp_path / ".ragloom" / "ledger.sqlite").open()
        try:
            committed[ledger.corpus_version] = {
                e.id: set(e.chunk_ids) for e in ledger.entries().values()
            }
        finally:
            ledger.close()

    index()
    log = tmp_path / "reader.jsonl"
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(tmp_path), str(log)],
        env={**os.environ},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not (log.exists() and log.read_text().strip()):
            assert reader.poll() is None, reader.stderr.read() if reader.stderr else ""
            assert time.monotonic() < deadline, "the reader never started"
            time.sleep(0.05)
        for serial in range(1, 51):
            for number in rng.sample(sorted(live), 4):  # edits
                write(docs / f"d{number}.md", number, serial)
            for number in rng.sample(sorted(live), 2):  # deletions
                (docs / f"d{number}.md").unlink()
                live.discard(number)
            for number in rng.sample(sorted(set(range(120)) - live), 2):  # additions
                write(docs / f"d{number}.md", number, serial)
                live.add(number)
            index()
    finally:
        (tmp_path / "stop").touch()
        reader.wait(timeout=60)
    assert reader.returncode == 0, reader.stderr.read() if reader.stderr else ""

    records = [json.loads(line) for line in log.read_text().splitlines()][1:]
    errors = [r for r in records if "error" in r]
    assert errors == []
    versions = {r["version"] for r in records}
    assert len(records) > 100 and len(versions) > 10, (len(records), len(versions))
    for record in records:
        version, token = record["version"], record["token"]
        assert version in committed, f"answer from version {version}, never committed"
        state = committed[version]
        for chunk_id, doc_id, _text in record["hits"]:
            assert chunk_id in state.get(doc_id, ()), (
                f"version {version}: {chunk_id} is not the committed version of {doc_id}"
            )
        wanted = f"docs/d{token}.md"
        found = {doc_id for _, doc_id, _ in record["hits"]}
        if wanted in state:
            assert wanted in found, f"version {version}: {wanted} exists but was not found"
        else:
            assert wanted not in found, f"version {version}: deleted {wanted} came back"
