"""The plugin module registers `tinystore`, usable from a config."""

from pathlib import Path

import ragloom
from ragloom.plugins import build_plugin_manager
from ragloom_tinystore import TinyStore, plugin


def test_registers_tinystore_and_answers_from_a_config(tmp_path: Path) -> None:
    pm = build_plugin_manager(load_entry_points=False, env={})
    pm.register(plugin, name="tinystore")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Trial\n\nEvery workspace gets a 14-day trial.\n")
    (tmp_path / "docs" / "b.md").write_text("# Export\n\nNotes export as Markdown or PDF.\n")
    config = {
        "loaders": [{"type": "directory", "path": "docs"}],
        "embedder": {"type": "hash"},
        "stores": [{"type": "tinystore"}],
        "cache": {"embeddings": False},
    }
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        assert isinstance(pipeline.stores[0][1], TinyStore)
        assert len(pipeline.index().added) == 2
        assert pipeline.retrieve("14-day trial", k=1)[0].chunk.source == "docs/a.md"
