"""A third-party plugin, installed from a throwaway package with an entry
point, is discovered and usable from a config; the load restrictions work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from .conftest import basic_config

RAGLOOM = str(Path(sys.executable).parent / "ragloom")

PLUGIN = '''
from ragloom import Answer, ComponentConfig, Generator, hookimpl


class Shout(Generator):
    """Answers with the best passage, shouted."""

    class Config(ComponentConfig):
        suffix: str = "!"

    def generate(self, question, hits, history=()):
        return Answer(question, hits[0].chunk.text.upper() + self.config.suffix)


@hookimpl
def register_generators(register):
    register("shout", Shout)
'''


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plugin")
    package = root / "src" / "ragloom_shout"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "plugin.py").write_text(PLUGIN)
    (root / "pyproject.toml").write_text(
        textwrap.dedent("""
        [build-system]
        requires = ["setuptools>=64"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "ragloom-shout"
        version = "0.3.1"

        [project.entry-points.ragloom]
        shout = "ragloom_shout.plugin"
    """)
    )
    target = root / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(root),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return target


def run(site: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONPATH": str(site), **env}
    return subprocess.run(
        [RAGLOOM, *args], cwd=cwd, env=full_env, capture_output=True, text=True, timeout=120
    )


def test_installed_plugin_is_listed(site: Path, tmp_path: Path) -> None:
    result = run(site, tmp_path, "plugins", "--json")
    plugins = {p["plugin"]: p for p in json.loads(result.stdout)}
    assert plugins["shout"]["distribution"] == "ragloom-shout"
    assert plugins["shout"]["version"] == "0.3.1"
    assert plugins["shout"]["registers"] == {"generator": ["shout"]}


def test_installed_plugin_is_usable_from_config(site: Path, corpus: Path) -> None:
    config = basic_config(generator={"type": "shout", "suffix": "!!!"})
    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(config))
    assert run(site, corpus, "index").returncode == 0
    result = run(site, corpus, "ask", "Pro plan cost", "--json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)["answer"]
    assert answer.endswith("!!!") and "$29" in answer and answer == answer.upper()


def test_load_restrictions(site: Path, corpus: Path) -> None:
    (corpus / "ragloom.yaml").write_text(yaml.safe_dump(basic_config(generator={"type": "shout"})))
    blocked = run(site, corpus, "config", "check", RAGLOOM_DISABLE_PLUGINS="ragloom-shout")
    assert blocked.returncode == 2 and "unknown generator type 'shout'" in blocked.stderr
    only_none = run(site, corpus, "config", "check", RAGLOOM_LOAD_PLUGINS="")
    assert only_none.returncode == 2
    only_it = run(site, corpus, "config", "check", RAGLOOM_LOAD_PLUGINS="shout")
    assert only_it.returncode == 0, only_it.stderr
