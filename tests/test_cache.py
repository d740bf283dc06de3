"""Embedding cache and answer cache."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest
import ragloom
from ragloom import hookimpl
from ragloom.builtin.embedders.hash import HashEmbedder
from ragloom.cache import AnswerCache, EmbeddingCache, normalise_question
from ragloom.errors import RagloomError
from ragloom.events import StageFinished
from ragloom.types import Answer, Chunk, Citation, Hit

from .conftest import basic_config


class Counter:
    def __init__(self) -> None:
        self.embedded = 0

    @hookimpl
    def on_event(self, event):
        if isinstance(event, StageFinished) and event.stage == "embed" and event.count:
            self.embedded += event.count


def test_rebuilding_an_unchanged_corpus_embeds_nothing(corpus: Path, pm) -> None:
    counter = Counter()
    pm.register(counter, name="counter")
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        first = pipeline.index()
        assert first.embedded == first.chunks > 0 and first.cached == 0
        again = pipeline.index(rebuild=True)
    assert again.embedded == 0 and again.cached == first.chunks
    assert counter.embedded == first.chunks
    # another index directory shares the cache
    other = basic_config(index_dir=".other-index")
    with ragloom.load(other, plugin_manager=pm, base_dir=corpus) as pipeline:
        report = pipeline.index()
        assert report.embedded == 0 and report.cached == first.chunks
        assert pipeline.retrieve("AES-256", k=1)[0].chunk.source == "docs/security.md"


def test_another_fingerprint_never_reuses_vectors(corpus: Path, pm) -> None:
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
    changed = basic_config(index_dir=".other", embedder={"type": "hash", "dimension": 128})
    with ragloom.load(changed, plugin_manager=pm, base_dir=corpus) as pipeline:
        report = pipeline.index()
    assert report.cached == 0 and report.embedded == report.chunks


def test_identical_texts_are_embedded_once(tmp_path: Path, pm) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (docs / name).write_text("Exactly the same words in every file.\n")
    with ragloom.load(basic_config(), plugin_manager=pm, base_dir=tmp_path) as pipeline:
        report = pipeline.index()
    assert report.chunks == 3 and report.embedded == 1 and report.cached == 2


def test_cache_can_be_turned_off(corpus: Path, pm) -> None:
    config = basic_config(cache={"embeddings": False})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        again = pipeline.index(rebuild=True)
    assert again.cached == 0 and again.embedded == again.chunks


def test_a_cache_path_that_cannot_be_a_folder_names_the_setting(corpus: Path, pm) -> None:
    (corpus / "taken").write_text("a file where the cache folder goes")
    config = basic_config(cache={"path": "taken/embeddings.sqlite"})
    with (
        ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline,
        pytest.raises(RagloomError, match=r"embedding cache .*taken.* cannot be opened") as info,
    ):
        pipeline.index()
    assert "RAGLOOM_CACHE_DIR" in str(info.value) and "embeddings: false" in str(info.value)
    off = basic_config(cache={"embeddings": False})
    with ragloom.load(off, plugin_manager=pm, base_dir=corpus) as pipeline:
        assert pipeline.index().added  # the failed run committed nothing; this one does


def test_a_cache_that_fills_up_mid_run_is_left_and_the_run_goes_on(
    corpus: Path, pm, monkeypatch, caplog
) -> None:
    """The cache only saves work: its volume filling up half-way through a
    run is said once, and the run indexes everything without it."""
    import sqlite3

    config = basic_config(cache={"path": str(corpus / "cache.sqlite")})
    puts = []

    def full(self, rows):
        puts.append(len(rows))
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(EmbeddingCache, "_put_rows", full)
    monkeypatch.setattr("ragloom.executors.EMBED_SLICE", 1)  # a put for each text
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        report = pipeline.index()
        assert report.ok and report.chunks > 1 and report.embedded == report.chunks
        assert len(puts) == 1  # tried once, then left alone
        assert pipeline.retrieve("AES-256")[0].chunk.document_id == "docs/security.md"
    said = [r.getMessage() for r in caplog.records if "could not be written" in r.getMessage()]
    assert len(said) == 1 and "the disk holding it is full" in said[0]


def test_embedding_cache_round_trip(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "e.sqlite")
    vectors = HashEmbedder(dimension=16).embed_batch(["one", "two"])
    hashes = [cache.text_hash("one"), cache.text_hash("two")]
    cache.put_many("fp", zip(hashes, vectors))
    found = cache.get_many("fp", [*hashes, cache.text_hash("three")], 16)
    assert set(found) == set(hashes)
    assert np.array_equal(found[hashes[1]], vectors[1])
    assert cache.get_many("other-fp", hashes, 16) == {}
    assert cache.get_many("fp", hashes, 32) == {}  # wrong width is never served


def answer_config(**cache: object) -> dict:
    return basic_config(cache={"answers": True, **cache}, access={"unlabeled": "public"})


def test_a_new_cache_file_is_its_owners_alone(tmp_path: Path) -> None:
    """Vectors say much of the texts they embed: the file was 0644 in a
    folder anyone could list, while the index directory is 0700."""
    cache = EmbeddingCache(tmp_path / "cache" / "embeddings.sqlite")
    cache.put_many("fp", [(cache.text_hash("a text"), np.ones(4, dtype=np.float32))])
    cache.close()
    assert (cache.path.stat().st_mode & 0o777) == 0o600


def test_answer_cache_hits_and_keys(corpus: Path, pm) -> None:
    with ragloom.load(answer_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        first = pipeline.ask("How much does the Pro plan cost?", principals=["alice"])
        assert not first.metadata.get("cached")
        again = pipeline.ask("  how much does the PRO plan cost ", principals=["alice"])
        assert again.metadata.get("cached") and again.text == first.text
        assert again.citations == first.citations
        other = pipeline.ask("How much does the Pro plan cost?", principals=["bob"])
        assert not other.metadata.get("cached")
        filtered = pipeline.ask(
            "How much does the Pro plan cost?", {"source": "docs/pricing.md"}, principals=["alice"]
        )
        assert not filtered.metadata.get("cached")
        idle = pipeline.index()  # cron finding nothing new: the same version, the cache stays
        assert idle.unchanged and not (idle.added or idle.changed or idle.deleted)
        kept = pipeline.ask("How much does the Pro plan cost?", principals=["alice"])
        assert kept.metadata.get("cached") and kept.text == first.text
        assert kept.metadata["corpus_version"] == first.metadata["corpus_version"]
        (corpus / "docs" / "pricing.md").write_text("# Pricing\n\nThe Pro plan costs $35.\n")
        pipeline.index()  # a new corpus version: nothing cached survives it
        fresh = pipeline.ask("How much does the Pro plan cost?", principals=["alice"])
    assert not fresh.metadata.get("cached") and "$35" in fresh.text


def test_answer_cache_ttl_and_size(tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path / "a.sqlite", ttl=0.2, max_entries=2)
    chunk = Chunk("c", "d", "text", 0, 0, 4, "d#c", {"source": "d"})
    answer = Answer("q", "a [1]", (Citation(1, "c", "d#c", "d", "text"),), (Hit(chunk, 1.0),))
    for key in ("k1", "k2", "k3"):
        cache.put(key, answer)
    assert len(cache) == 2 and cache.get("k1") is None
    assert cache.get("k3").citations == answer.citations
    time.sleep(0.25)
    assert cache.get("k3") is None


def test_answer_cache_key_includes_everything() -> None:
    base = dict(
        question="Q?", corpus_version=1, filters=None, principals=["a"], k=None, config_hash="c"
    )
    key = AnswerCache.key(**base)
    assert AnswerCache.key(**{**base, "question": " q "}) == key
    for change in (
        {"corpus_version": 2},
        {"filters": {"x": 1}},
        {"principals": ["b"]},
        {"principals": None},
        {"k": 3},
        {"config_hash": "d"},
    ):
        assert AnswerCache.key(**{**base, **change}) != key, change
    assert normalise_question("  Hello   World?? ") == "hello world"


def test_access_is_checked_before_the_answer_cache(corpus: Path, pm) -> None:
    with ragloom.load(answer_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        pipeline.ask("Pro plan cost", principals=["alice"])
        with pytest.raises(ragloom.RagloomError, match="principals"):
            pipeline.ask("Pro plan cost")


# -- last use and pruning -------------------------------------------------------

DAY = 86_400.0


def _filled(path: Path, n: int, fingerprint: str = "fp") -> tuple[EmbeddingCache, list[str]]:
    cache = EmbeddingCache(path)
    hashes = [cache.text_hash(f"text {i}") for i in range(n)]
    vectors = np.random.default_rng(0).random((n, 16), dtype=np.float32)
    cache.put_many(fingerprint, zip(hashes, vectors))
    return cache, hashes


def _set_used(cache: EmbeddingCache, hashes: list[str], when: float) -> None:
    for h in hashes:
        cache.db.execute("UPDATE uses SET used = ? WHERE text_hash = ?", (when, h))


def _used(cache: EmbeddingCache, h: str) -> float:
    return cache.db.execute("SELECT used FROM uses WHERE text_hash = ?", (h,)).fetchone()[0]


def test_a_vector_keeps_its_last_use_to_the_day(tmp_path: Path) -> None:
    cache, hashes = _filled(tmp_path / "e.sqlite", 3)
    now = time.time()
    assert all(now - 60 < _used(cache, h) <= now for h in hashes)  # written now
    _set_used(cache, hashes[:2], now - 10 * DAY)
    _set_used(cache, hashes[2:], now - 3600)  # an hour ago: a read leaves it
    assert len(cache.get_many("fp", hashes, 16)) == 3
    assert _used(cache, hashes[0]) > now - 60  # read now: used now
    assert _used(cache, hashes[2]) == pytest.approx(now - 3600)  # no write for an hour's gain
    cache.get_many("other", hashes, 16)  # another embedder's read touches nothing
    assert _used(cache, hashes[2]) == pytest.approx(now - 3600)


def test_a_ragloom_that_keeps_no_last_uses_shares_the_file(tmp_path: Path) -> None:
    # a cache file written before last uses were kept, and written again by
    # such a ragloom (another project's venv) after this one kept them: both
    # read and write it, and its vectors count as used the day they are seen
    import sqlite3

    path = tmp_path / "e.sqlite"

    def older_ragloom_writes(h: str) -> None:
        old = sqlite3.connect(path)
        old.execute(
            "CREATE TABLE IF NOT EXISTS vectors (fingerprint TEXT NOT NULL, text_hash TEXT "
            "NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (fingerprint, text_hash)) WITHOUT ROWID"
        )
        blob = np.ones(4, np.float32).tobytes()
        old.execute("INSERT OR REPLACE INTO vectors VALUES ('fp', ?, ?)", (h, blob))
        old.commit()
        old.close()

    older_ragloom_writes("h1")
    cache = EmbeddingCache(path)
    cache.put_many("fp", [("h2", np.ones(4, np.float32))])
    older_ragloom_writes("h3")  # the file as this ragloom left it
    info = cache.info()
    assert info.entries == 3 and info.by_embedder == {"fp": 3}
    assert info.oldest_use is not None and info.oldest_use > time.time() - 60
    assert cache.prune(older_than=DAY).entries_removed == 0  # dated now, not 1970
    assert set(cache.get_many("fp", ["h1", "h2", "h3"], 4)) == {"h1", "h2", "h3"}
    assert _used(cache, "h3") > time.time() - 60


def test_prune_drops_what_was_not_used_lately(tmp_path: Path) -> None:
    cache, hashes = _filled(tmp_path / "e.sqlite", 6)
    now = time.time()
    _set_used(cache, hashes[:4], now - 40 * DAY)
    dry = cache.prune(older_than=30 * DAY, dry_run=True)
    assert (dry.entries_before, dry.entries_removed, dry.dry_run) == (6, 4, True)
    assert cache.info().entries == 6  # a dry run changes nothing
    done = cache.prune(older_than=30 * DAY)
    assert done.entries_removed == 4 and not done.dry_run
    assert set(cache.get_many("fp", hashes, 16)) == set(hashes[4:])
    with pytest.raises(ValueError, match="say what to prune"):
        cache.prune()


def test_prune_to_a_size_drops_the_least_recently_used(tmp_path: Path) -> None:
    from ragloom.cache import ROW_BYTES

    cache, hashes = _filled(tmp_path / "e.sqlite", 400)  # 16 dimensions: 64 bytes each
    now = time.time()
    for i, h in enumerate(hashes):  # the later, the more recently used
        _set_used(cache, [h], now - (400 - i) * DAY)
    before = cache.info()
    budget = 100 * (64 + ROW_BYTES)  # room for the 100 most recently used
    dry = cache.prune(max_bytes=budget, dry_run=True)
    assert dry.entries_removed == 300 and dry.bytes_after == budget
    report = cache.prune(max_bytes=budget)
    kept = {h for (h,) in cache.db.execute("SELECT text_hash FROM vectors")}  # no read: no touch
    assert report.entries_removed == 300 and kept == set(hashes[300:])
    assert report.bytes_after < before.bytes  # compacted: the file shrank
    assert cache.prune(max_bytes=10**12).entries_removed == 0
    # by age and size at once: whichever drops more
    both = cache.prune(older_than=50.5 * DAY, max_bytes=budget)
    assert both.entries_removed == 50 and len(cache.get_many("fp", hashes, 16)) == 50


def test_prune_to_a_size_counts_each_vector_by_its_own_bytes(tmp_path: Path) -> None:
    # old small vectors and recent large ones: the size asked for is about
    # what is left, not the count times the mean size
    cache = EmbeddingCache(tmp_path / "e.sqlite")
    rng = np.random.default_rng(2)
    small = [(f"s{i}", rng.random(384, dtype=np.float32)) for i in range(200)]
    large = [(f"l{i}", rng.random(3072, dtype=np.float32)) for i in range(100)]
    cache.put_many("small", small)
    cache.put_many("large", large)
    _set_used(cache, [h for h, _ in small], time.time() - 10 * DAY)
    from ragloom.cache import ROW_BYTES

    budget = 100 * (3072 * 4 + ROW_BYTES) + 10 * (384 * 4 + ROW_BYTES)
    report = cache.prune(max_bytes=budget)
    assert report.entries_removed == 190  # the large, and the 10 most recent small ones, stay
    assert len(cache.get_many("large", [h for h, _ in large], 3072)) == 100
    assert 0.7 * budget <= report.bytes_after <= 1.3 * budget


def test_prune_rewrites_the_older_layout_at_half_the_size(tmp_path: Path) -> None:
    # files written before kept vectors in a WITHOUT ROWID table, where a
    # 1.5 KB vector overflows its page: about twice the bytes on disk
    import sqlite3

    path = tmp_path / "e.sqlite"
    old = sqlite3.connect(path)
    old.execute(
        "CREATE TABLE vectors (fingerprint TEXT NOT NULL, text_hash TEXT NOT NULL, "
        "vector BLOB NOT NULL, PRIMARY KEY (fingerprint, text_hash)) WITHOUT ROWID"
    )
    vectors = np.random.default_rng(1).random((300, 384), dtype=np.float32)
    old.executemany(
        "INSERT INTO vectors VALUES ('fp', ?, ?)",
        [(f"h{i}", v.tobytes()) for i, v in enumerate(vectors)],
    )
    old.commit()
    old.close()
    cache = EmbeddingCache(path)
    before = cache.info()
    assert before.entries == 300 and not before.compact
    report = cache.prune(older_than=365 * DAY)  # nothing that old: only the rewrite
    after = cache.info()
    assert report.entries_removed == 0 and after.entries == 300 and after.compact
    assert after.bytes < 0.6 * before.bytes
    found = cache.get_many("fp", [f"h{i}" for i in range(300)], 384)
    assert len(found) == 300 and np.array_equal(found["h7"], vectors[7])
    fresh = EmbeddingCache(tmp_path / "new.sqlite")
    fresh.put_many("fp", [("h", vectors[0])])
    assert fresh.info().compact  # new files are written compact


def test_cache_commands(tmp_path: Path) -> None:
    from click.testing import CliRunner
    from ragloom.cli import cli

    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"d{i}.md").write_text(f"# Doc {i}\n\nText number {i}.\n")
    config = tmp_path / "ragloom.yaml"
    config.write_text(
        "loaders: [{type: directory, path: docs}]\nembedder: {type: hash, dimension: 16}\n"
        "stores: [{type: memory}]\ncache: {path: cache/e.sqlite}\n"
    )
    runner = CliRunner()

    def run(*args: str):  # type: ignore[no-untyped-def]
        return runner.invoke(cli, ["-c", str(config), *args], env={"COLUMNS": "200"})

    assert "no file yet" in run("cache", "info").output
    assert run("index").exit_code == 0
    info = run("cache", "info", "--json")
    assert info.exit_code == 0, info.output
    figures = json.loads(info.output)
    assert figures["entries"] == 3 and figures["this_embedder_entries"] == 3
    assert figures["path"] == str(tmp_path / "cache" / "e.sqlite")
    assert "3 vector(s)" in run("cache", "info").output
    nothing = run("cache", "prune")
    assert nothing.exit_code == 2 and "--older-than DAYS, --max-size SIZE" in nothing.output
    assert run("cache", "prune", "--max-size", "lots").exit_code == 2
    dry = run("cache", "prune", "--older-than", "0", "--dry-run")
    assert "would drop 3 of 3" in dry.output
    assert json.loads(run("cache", "info", "--json").output)["entries"] == 3
    gone = json.loads(run("cache", "prune", "--max-size", "500B", "--json").output)
    assert gone["entries_removed"] == 3 and not gone["dry_run"]
    again = run("index", "--rebuild")  # nothing lost but the time to embed again
    assert again.exit_code == 0 and "3 embedded" in again.output
    off = tmp_path / "off.yaml"
    off.write_text(config.read_text().replace("{path: cache/e.sqlite}", "{embeddings: false}"))
    refused = runner.invoke(cli, ["-c", str(off), "cache", "info"])
    assert refused.exit_code == 2 and "turns the embedding cache off" in refused.output


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("500MB", 500 * 1024**2),
        ("2G", 2 * 1024**3),
        ("1.5GiB", int(1.5 * 1024**3)),
        ("4096", 4096),
        ("500B", 500),
        ("5b", 5),
        ("5kib", 5 * 1024),
    ],
)
def test_sizes_are_read_in_binary_units(text: str, size: int) -> None:
    from ragloom.cli_cache import parse_size

    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["5ib", "lots", "MB", "-5MB", "5 PB"])
def test_a_size_that_is_none_is_a_usage_error(text: str) -> None:
    import click
    from ragloom.cli_cache import parse_size

    with pytest.raises(click.BadParameter, match="is no size"):
        parse_size(text)


def test_a_cache_it_cannot_write_is_read_and_measured_not_pruned(tmp_path: Path) -> None:
    # as on a read-only mount (the tests run as root, which chmod does not stop)
    import sqlite3

    cache, hashes = _filled(tmp_path / "e.sqlite", 5)
    _set_used(cache, hashes, time.time() - 10 * DAY)
    cache.close()
    cache._db = sqlite3.connect(f"file:{cache.path}?mode=ro", uri=True, isolation_level=None)
    assert len(cache.get_many("fp", hashes, 16)) == 5  # the touch fails quietly
    assert _used(cache, hashes[0]) < time.time() - 9 * DAY
    assert cache.prune(older_than=DAY, dry_run=True).entries_removed == 5
    with pytest.raises(RagloomError, match="cannot be pruned .*readonly"):
        cache.prune(older_than=DAY)
    assert cache.info().entries == 5


def test_a_cache_another_process_is_creating_is_waited_for(tmp_path: Path) -> None:
    """A server and `ragloom index` starting together on a new cache file:
    SQLite's "database is locked" at `journal_mode=WAL` is waited out."""
    from .test_ledger import hold_for

    path = tmp_path / "cache" / "embeddings.sqlite"
    timer = hold_for(path, 0.3)
    cache = EmbeddingCache(path)
    cache.put_many("fp", [(cache.text_hash("a text"), np.ones(4, dtype=np.float32))])
    timer.join()
    assert set(cache.get_many("fp", [cache.text_hash("a text")], 4)) == {cache.text_hash("a text")}
    cache.close()


def test_a_ledger_restored_from_a_backup_never_gets_answers_of_other_documents(
    corpus: Path, pm
) -> None:
    """The answer key held the corpus version number: a ledger restored from
    last night's backup counts from an older one, and its next run reached a
    number the cache had answers for, of text that no file holds any more."""
    pricing = corpus / "docs" / "pricing.md"
    ledger = corpus / ".ragloom" / "ledger.sqlite"
    question = "How much does the Pro plan cost?"
    with ragloom.load(answer_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
    backup = corpus / "ledger-backup.sqlite"
    backup.write_bytes(ledger.read_bytes())  # after a run: the WAL is folded in
    pricing.write_text("# Pricing\n\nThe Pro plan costs $35.\n")
    with ragloom.load(answer_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        assert "$35" in pipeline.ask(question, principals=["alice"]).text  # cached
    ledger.write_bytes(backup.read_bytes())  # the operator restores the backup
    pricing.write_text("# Pricing\n\nThe Pro plan costs $41.\n")
    with ragloom.load(answer_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        report = pipeline.index(repair=True)
        assert report.corpus_version == 2  # the number the $35 answer was cached under
        answer = pipeline.ask(question, principals=["alice"])
    assert not answer.metadata.get("cached") and "$41" in answer.text and "$35" not in answer.text


def test_a_damaged_answer_cache_is_set_aside_and_questions_are_answered(
    corpus: Path, pm, caplog: pytest.LogCaptureFixture
) -> None:
    """A damaged answers.sqlite failed every `ask` (and HTTP answer) with
    'unexpected DatabaseError', and `--rebuild` did not mend it."""
    question = "How much does the Pro plan cost?"
    with ragloom.load(answer_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
        pipeline.ask(question, principals=["alice"])
    answers = corpus / ".ragloom" / "answers.sqlite"
    answers.write_bytes(os.urandom(9000))
    with ragloom.load(answer_config(), plugin_manager=pm, base_dir=corpus) as pipeline:
        first = pipeline.ask(question, principals=["alice"])
        again = pipeline.ask(question, principals=["alice"])
    assert "$29" in first.text and not first.metadata.get("cached")
    assert again.metadata.get("cached")  # a new file, in use again
    assert list(answers.parent.glob("answers.sqlite.damaged-*"))
    assert "answer cache" in caplog.text and "is damaged" in caplog.text


def test_a_damaged_embedding_cache_does_not_stop_a_rebuild(
    corpus: Path, pm, caplog: pytest.LogCaptureFixture
) -> None:
    """`--rebuild` emptied the ledger, then failed on a damaged embedding
    cache ('a folder this user can write'): every query was refused until the
    file was deleted by hand. Vectors are computed again instead."""
    config = basic_config(cache={"path": "cache/embeddings.sqlite"})
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        pipeline.index()
    cache = corpus / "cache" / "embeddings.sqlite"
    cache.write_bytes(os.urandom(20000))
    with ragloom.load(config, plugin_manager=pm, base_dir=corpus) as pipeline:
        report = pipeline.index(rebuild=True)
        assert report.added and report.embedded == report.chunks  # none from the cache
        assert pipeline.retrieve("refund")
        again = pipeline.index(rebuild=True)
    assert again.embedded == 0  # the new cache holds them
    assert list(cache.parent.glob("embeddings.sqlite.damaged-*"))
    assert "embedding cache" in caplog.text and "is damaged" in caplog.text


def test_a_second_reader_of_a_damaged_cache_keeps_the_new_one_another_started(
    tmp_path: Path,
) -> None:
    """Two processes on one cache file that gets damaged: the first sets it
    aside and starts a new one; the second, still reading the old file, moved
    that new, healthy file aside too."""
    path = tmp_path / "embeddings.sqlite"
    vector = np.ones(64, dtype=np.float32)
    seed = EmbeddingCache(path)
    seed.put_many("fp", [(f"h{i:05d}", vector) for i in range(3000)])
    seed.close()
    first, second = EmbeddingCache(path), EmbeddingCache(path)
    first.get_many("fp", ["h00001"], 64)
    second.get_many("fp", ["h00001"], 64)  # both connected to the file
    size = path.stat().st_size
    with open(path, "r+b") as handle:  # a torn write in its middle
        handle.seek(size // 3)
        handle.write(os.urandom(size // 3))
    hashes = [f"h{i:05d}" for i in range(3000)]
    assert first.get_many("fp", hashes, 64) == {}  # damaged: set aside
    first.put_many("fp", [("new", vector)])
    assert second.get_many("fp", hashes, 64) == {}  # damaged for it too
    assert len(list(tmp_path.glob("embeddings.sqlite.damaged-*"))) == 1
    assert set(EmbeddingCache(path).get_many("fp", ["new"], 64)) == {"new"}  # kept
