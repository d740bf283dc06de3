"""Loading on the cluster (``load: cluster``, the default): the loaders run in
Ray tasks, not in the process that holds the ledger, and the index is the
in-process one, secrets screening, access labels and a missing source
included; ``load: driver`` loads in that process."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import ragloom
import ray.cloudpickle
from ragloom import hookimpl
from ragloom.builtin.loaders.directory import DirectoryLoader
from ray_helpers import config, entries, make_corpus, ray_executor, snapshot

AWS_KEY_ID = "AKIAZ7VQ3L5XK2M4P6RT"


class PidDirectory(DirectoryLoader):
    """The directory loader, noting the process each ``load()`` ran in."""

    class Config(DirectoryLoader.Config):
        pids: str = ""

    def load(self):
        with open(self.config.pids, "a") as handle:
            handle.write(f"{os.getpid()}\n")
        yield from super().load()


class Plugin:
    @hookimpl
    def register_loaders(self, register):
        register("pid-directory", PidDirectory)


def loaders(root: Path, pids: Path) -> list[dict]:
    return [
        {"type": "pid-directory", "path": "docs", "pids": str(pids)},
        {"type": "directory", "path": "more"},  # missing on the second run
    ]


def test_loaders_run_on_the_cluster_and_give_the_in_process_index(
    tmp_path: Path, pm, ray_address: str
) -> None:
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    pm.register(Plugin())
    docs = make_corpus(tmp_path, 16)
    (docs / "doc-005.md").write_text(f"# Keys\n\nThe deploy key is {AWS_KEY_ID} for now.\n")
    more = tmp_path / "more"
    more.mkdir()
    (more / "extra.md").write_text("# Extra\n\nA document of the second loader.\n")
    pids = tmp_path / "pids.txt"
    settings = {
        "loaders": loaders(tmp_path, pids),
        "indexing": {"secrets": "redact"},
        "access": {"rules": [{"path": "docs/doc-00[1-3].md", "principals": ["ops"]}]},
    }

    def index(name: str, executor: dict | None):
        cfg = config(name, executor, **settings)
        with ragloom.load(cfg, plugin_manager=pm, base_dir=tmp_path) as pipeline:
            report = pipeline.index()
            state = snapshot(pipeline)
        return report, state

    on_cluster = ray_executor(ray_address)
    local_report, local_state = index(".local", None)
    assert pids.read_text().split() == [str(os.getpid())]
    pids.unlink()
    report, state = index(".ray", on_cluster)
    assert pids.read_text().split() != [str(os.getpid())]  # loaded in a Ray worker
    assert state[0] == local_state[0] and state[2] == local_state[2]
    assert len(state[0]) == 17 and sorted(report.added) == sorted(local_report.added)
    assert any("redacted" in message for _, message in report.problems)
    assert all(AWS_KEY_ID not in text for text in state[2].values())
    # labels applied on the workers: the ledger's state hashes above include them
    assert state[0]["docs/doc-001.md"][1] != state[0]["docs/doc-004.md"][1]

    # the second loader's root is gone: its document is kept, the run reports it
    (more / "extra.md").unlink()
    more.rmdir()
    report, state = index(".ray", on_cluster)
    local_report, local_state = index(".local", None)
    assert state[0] == local_state[0] and len(state[0]) == 17
    assert report.errors and not report.ok and report.errors == local_report.errors
    assert report.unchanged == 16 and not report.deleted

    # `load: driver` loads in this process
    pids.unlink()
    report, state = index(".ray-driver", {**on_cluster, "load": "driver"})
    assert pids.read_text().split() == [str(os.getpid())]
    assert state[0] == {k: v for k, v in local_state[0].items() if k != "more/extra.md"}


class BuggyDirectory(DirectoryLoader):
    """The directory loader with a bug, as ``bug`` says: ``text_none`` gives
    one document without text, ``raise`` fails after the first document."""

    class Config(DirectoryLoader.Config):
        bug: str = ""

    def load(self):
        from dataclasses import replace

        for number, doc in enumerate(super().load()):
            if self.config.bug == "raise" and number == 1:
                raise KeyError("answer")
            if self.config.bug == "text_none" and doc.id == "docs/doc-003.md":
                doc = replace(doc, text=None)
            yield doc


class BuggyPlugin:
    @hookimpl
    def register_loaders(self, register):
        register("buggy-directory", BuggyDirectory)


def test_a_buggy_loader_on_the_cluster_loses_nothing_as_in_one_process(
    tmp_path: Path, pm, ray_address: str
) -> None:
    """A document that is no document is skipped and its indexed version
    kept, and a loader that raises fails alone, keeping what it indexed: on
    the cluster as in one process (the review found the cluster deleted the
    one, and failed the whole run for the other)."""
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    pm.register(BuggyPlugin())
    make_corpus(tmp_path, 6)
    on_cluster = ray_executor(ray_address)

    def index(name: str, executor: dict | None, bug: str):
        loaders = [{"type": "buggy-directory", "path": "docs", "bug": bug}]
        cfg = config(name, executor, loaders=loaders)
        with ragloom.load(cfg, plugin_manager=pm, base_dir=tmp_path) as pipeline:
            return pipeline.index(), entries(pipeline)

    for name, executor in ((".ray", on_cluster), (".local", None)):
        report, before = index(name, executor, "")
        assert len(report.added) == 6
        report, after = index(name, executor, "text_none")
        assert "docs/doc-003.md" in report.kept and not report.deleted, (name, report)
        assert after == before
        report, after = index(name, executor, "raise")
        assert report.errors and not report.deleted, (name, report)
        assert "KeyError('answer')" in report.errors[0][1]
        assert set(after) == set(before)
