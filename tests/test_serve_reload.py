"""The index changes while the server answers: `ragloom index` in another
process, or `POST /v1/index`. Requests keep being answered, each from one
committed corpus version, and the new version is picked up before the next
answer (the core's reload)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import ragloom
import yaml

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
