"""One pipeline, many threads: queries with the answer cache on, queries while
another thread indexes (access control on), and per-call runs that never
share their id or problems."""

from __future__ import annotations

import random
import threading
from collections import Counter
from pathlib import Path

import pluggy
import ragloom
from ragloom import hookimpl
from ragloom.events import ProblemReported, RunFinished, RunStarted
from ragloom.ledger import Ledger

from .conftest import basic_config

GROUPS = ("eng", "sales", "hr")


def write_corpus(root: Path, serial: int, rng: random.Random) -> None:
    """Documents owned by one group each (front matter), with a word only they use."""
    docs = root / "docs"
    docs.mkdir(exist_ok=True)
    for path in docs.glob("*.md"):
        if rng.random() < 0.3:
            path.unlink()
    for i in range(rng.randint(3, 8)):
        group = rng.choice(GROUPS)
        (docs / f"{group}-{serial}-{i}.md").write_text(
            f"---\nprincipals: [{group}]\n---\n# Note {serial}.{i}\n\n"
            f"This {group} note talks about budget{group} and plans {serial}.\n"
        )


def test_eight_threads_ask_with_the_answer_cache(corpus: Path, pm: pluggy.PluginManager) -> None:
    config = basic_config(cache={"answers": True})
    questions = [
        "How much does the Pro plan cost?",
        "How long are memories kept?",
        "How is data encrypted?",
        "Can annual plans be refunded?",
    ]
    errors: list[BaseException] = []
    answers: list[str] = []
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()

        def worker(seed: int) -> None:
            rng = random.Random(seed)
            try:
                for _ in range(45):
                    answers.append(pipeline.ask(rng.choice(questions)).text)
            except BaseException as exc:  # noqa: BLE001 (collected and asserted)
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []
    assert len(answers) == 360
    assert sum("$29" in a for a in answers) >= 1


def test_queries_while_indexing_see_one_committed_version_and_no_forbidden_hit(
    tmp_path: Path, pm: pluggy.PluginManager
) -> None:
    rng = random.Random(7)
    write_corpus(tmp_path, 0, rng)
    config = basic_config(
        access={"unlabeled": "deny"},
        chunker={"type": "markdown", "size": 400, "overlap": 0},
    )
    errors: list[BaseException] = []
    seen: list[tuple[int, str, list[tuple[str, str]]]] = []
    committed: dict[int, dict[str, set[str]]] = {}
    stop = threading.Event()
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        pipeline.index()

        def snapshot() -> None:
            ledger = Ledger(pipeline.index_dir / "ledger.sqlite").open()
            try:
                committed[ledger.corpus_version] = {
                    e.id: set(e.chunk_ids) for e in ledger.entries().values()
                }
            finally:
                ledger.close()

        snapshot()

        def reader(seed: int) -> None:
            local = random.Random(seed)
            try:
                while not stop.is_set():
                    group = local.choice(GROUPS)
                    hits = pipeline.retrieve(
                        f"budget{local.choice(GROUPS)} plans", k=8, principals=[group]
                    )
                    seen.append(
                        (
                            hits.corpus_version,
                            group,
                            [(h.chunk.id, h.chunk.document_id) for h in hits],
                        )
                    )
                    for h in hits:
                        assert group in h.chunk.metadata["principals"], (group, h.chunk.id)
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)
                stop.set()

        threads = [threading.Thread(target=reader, args=(s,)) for s in range(4)]
        for t in threads:
            t.start()
        try:
            for serial in range(1, 16):
                write_corpus(tmp_path, serial, rng)
                pipeline.index(allow_mass_delete=True)
                snapshot()
        finally:
            stop.set()
            for t in threads:
                t.join()
    assert errors == []
    assert len(seen) > 50
    versions = Counter(v for v, _, _ in seen)
    assert len(versions) > 3, versions  # the readers really ran across many versions
    for version, group, hits in seen:
        chunks = committed[version]
        for chunk_id, doc_id in hits:
            assert chunk_id in chunks.get(doc_id, ()), (version, chunk_id)
            assert doc_id.split("/")[-1].startswith(group)


def test_concurrent_runs_keep_their_own_id_and_problems(
    corpus: Path, pm: pluggy.PluginManager
) -> None:
    events: list[object] = []
    lock = threading.Lock()

    class Recorder:
        @hookimpl
        def on_event(self, event: object) -> None:
            with lock:
                events.append(event)

    pm.register(Recorder())
    (corpus / "docs" / "empty.md").write_text("   \n")
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        reports = []

        def index() -> None:
            reports.append(pipeline.index(dry_run=True))

        def query() -> None:
            for _ in range(20):
                pipeline.retrieve("refund")

        threads = [threading.Thread(target=index)] + [
            threading.Thread(target=query) for _ in range(3)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    started = {e.run_id: e.operation for e in events if isinstance(e, RunStarted)}
    finished = {e.run_id: e.operation for e in events if isinstance(e, RunFinished)}
    assert started == finished and len(started) == 61
    problems = [e for e in events if isinstance(e, ProblemReported)]
    assert problems and {started[p.run_id] for p in problems} == {"index"}
    assert [s for s, _ in reports[0].problems] == ["docs/empty.md"]
