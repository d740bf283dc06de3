"""`ragloom serve`: POST /v1/search over loopback HTTP vs `Pipeline.retrieve`
in process, same index (10,000 chunks, memory + bm25, RRF), same queries,
same run.

The server is the real command (`ragloom serve`, its own process, one
uvicorn worker) on 127.0.0.1; the client is httpx with a kept-alive
connection. What the server adds per request is the difference of the two
medians: HTTP and JSON both ways, the API key check, the middleware, and the
hop into the pipeline's thread pool; the median of GET /healthz, measured
between the same requests, is the part that is the round trip alone (on a
busy machine, mostly waiting to be scheduled). Bounded: QUERIES sequential requests
(and as many in-process calls), then THREADS clients for CONCURRENT
requests, each loop also stopped by a time limit.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import yaml

CHUNKS = 10_000
QUERIES = 300
CONCURRENT = 600
THREADS = 4
TIME_LIMIT = 60.0
RAGLOOM = str(Path(sys.executable).parent / "ragloom")
KEY = "ragloom-bench-0123456789abcdef0123"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _client(url: str) -> Any:
    """A kept-alive httpx client with Nagle's algorithm off, as a latency-minded
    client has it (with it on, a request's header and body writes wait for the
    server's delayed ACK: tens of milliseconds that are not the server's)."""
    import httpx

    nodelay = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
    return httpx.Client(
        base_url=url,
        headers={"Authorization": f"Bearer {KEY}"},
        timeout=30,
        transport=httpx.HTTPTransport(socket_options=nodelay),
    )


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_serve(n: int = CHUNKS) -> dict[str, float | str]:
    import ragloom
    from bench_retrieve import _records
    from ragloom.server import hash_key

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {**os.environ, "RAGLOOM_CACHE_DIR": str(root / "cache")}
        os.environ["RAGLOOM_CACHE_DIR"] = env["RAGLOOM_CACHE_DIR"]
        records = _records(n)
        with (root / "corpus.jsonl").open("w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record) + "\n")
        config = {
            "loaders": [{"type": "jsonl", "path": "corpus.jsonl", "id_field": "id"}],
            "chunker": {"type": "fixed", "size": 2000, "overlap": 0},
            "embedder": {"type": "hash", "dimension": 384},
            "stores": [{"type": "memory"}, {"type": "bm25"}],
            "retrieval": {"k": 10},
        }
        (root / "ragloom.yaml").write_text(yaml.safe_dump(config), "utf-8")
        (root / "keys.yaml").write_text(
            yaml.safe_dump({"keys": [{"name": "bench", "sha256": hash_key(KEY)}]}), "utf-8"
        )
        queries = [records[(i * 7919) % n]["text"][:60] for i in range(QUERIES)]
        port = _free_port()
        with ragloom.load(root / "ragloom.yaml") as pipeline:
            assert pipeline.index().chunks == n
            server = subprocess.Popen(
                [RAGLOOM, "serve", "--keys", "keys.yaml", "--port", str(port),
                 "--max-concurrency", "32", "--no-mcp"],
                cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            try:
                url = f"http://127.0.0.1:{port}"
                with _client(url) as http:
                    _wait_ready(http, server)
                    for q in queries[:20]:  # warm both paths
                        pipeline.retrieve(q)
                        http.post("/v1/search", json={"query": q})
                    local_s, http_s, empty_s = [], [], []
                    stop = time.monotonic() + TIME_LIMIT
                    for q in queries:  # interleaved so drift hits both alike
                        started = time.perf_counter()
                        hits = pipeline.retrieve(q)
                        local_s.append(time.perf_counter() - started)
                        started = time.perf_counter()
                        response = http.post("/v1/search", json={"query": q})
                        http_s.append(time.perf_counter() - started)
                        started = time.perf_counter()
                        http.get("/healthz")  # the round trip alone: HTTP and scheduling
                        empty_s.append(time.perf_counter() - started)
                        assert response.status_code == 200, response.text
                        assert [h["id"] for h in response.json()["hits"]] == [
                            h.chunk.id for h in hits
                        ]
                        if time.monotonic() > stop:
                            break
                throughput = _concurrent(url, queries)
            finally:
                server.terminate()
                server.wait(30)
    p50, p99 = statistics.median(http_s), _percentile(http_s, 0.99)
    local = statistics.median(local_s)
    print(
        f"serve /v1/search ({n:,} chunks, memory + bm25): {len(http_s)} sequential requests, "
        f"{1 / statistics.mean(http_s):.0f} req/s, p50 {p50 * 1000:.2f} ms, "
        f"p99 {p99 * 1000:.2f} ms; in-process retrieve p50 {local * 1000:.2f} ms, "
        f"p99 {_percentile(local_s, 0.99) * 1000:.2f} ms; the server adds "
        f"{(p50 - local) * 1000:.2f} ms per request (p50), of which an empty round trip "
        f"(GET /healthz) is {statistics.median(empty_s) * 1000:.2f} ms; "
        f"{THREADS} concurrent clients: {throughput:.0f} req/s"
    )
    return {
        "name": f"ragloom serve POST /v1/search, {n:,} chunks, loopback (median)",
        "baseline": "Pipeline.retrieve in process, same queries",
        "ragloom_s": p50,
        "baseline_s": local,
        "min_speed": 0.3,  # HTTP, JSON, auth and the thread hop: at most ~2.3x the query itself
    }


def _wait_ready(http: object, server: subprocess.Popen) -> None:
    import httpx

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError("ragloom serve exited")
        try:
            if http.get("/readyz").status_code == 200:  # type: ignore[attr-defined]
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError("ragloom serve did not become ready")


def _concurrent(url: str, queries: list[str]) -> float:
    """Requests per second with THREADS clients, CONCURRENT requests in all."""
    per_thread = CONCURRENT // THREADS
    errors: list[str] = []

    def client(offset: int) -> None:
        with _client(url) as http:
            for i in range(per_thread):
                q = queries[(offset + i) % len(queries)]
                response = http.post("/v1/search", json={"query": q})
                if response.status_code != 200:
                    errors.append(response.text)

    threads = [threading.Thread(target=client, args=(t * 37,)) for t in range(THREADS)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIME_LIMIT)
    seconds = time.perf_counter() - started
    assert not errors, errors[:3]
    return per_thread * THREADS / seconds


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    print(bench_serve())
