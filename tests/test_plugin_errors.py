"""Installed plugins that cannot load fail loudly, naming the plugin and the
way out: one whose import fails, two distributions publishing one plugin
name, two plugins registering one component name, a misspelt hook. From
``build_plugin_manager`` and from the ``ragloom`` command (exit 2, one line).

The entry points are stand-ins for installed distributions: modules written
to a temporary folder, listed by a patched ``entry_points``."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import ragloom.plugins
from ragloom.errors import DuplicateComponentError, PluginError, Terminated
from ragloom.plugins import build_plugin_manager
from ragloom.registry import Registry

VAULT = """
from ragloom import hookimpl
from ragloom.builtin.stores.memory import MemoryStore


class Vault(MemoryStore):
    pass


@hookimpl
def register_stores(register):
    register("vault", Vault)
"""

SOURCES = {
    "broken": "import a_module_that_is_not_installed  # noqa: F401\n",
    "vault_a": VAULT,
    "vault_b": VAULT,
    "typo": """
from ragloom import hookimpl


@hookimpl
def register_storez(register):
    pass
""",
    "wrong_argument": """
from ragloom import hookimpl


@hookimpl
def register_loaders(registry):
    pass
""",
    "unmarked": """
from ragloom.builtin.stores.memory import MemoryStore


def register_stores(register):
    register("unmarked", MemoryStore)
""",
    "fine": """
from ragloom import hookimpl


@hookimpl
def register_stores(register):
    pass
""",
    # a Ctrl-C or SIGTERM that lands in a library the plugin imports, which
    # turns it into an error of its own: pydantic's schema build keeps its text
    "interrupted": """
raise TypeError('Error building "literal" validator:\\n  KeyboardInterrupt: ')
""",
    "terminated": """
raise TypeError('Error building "literal" validator:\\n  Terminated: ')
""",
    "interrupted_cause": """
try:
    raise KeyboardInterrupt
except KeyboardInterrupt as exc:
    raise RuntimeError("schema build failed") from exc
""",
    "chatty": """
import sys

print("chatty plugin loaded")
sys.stdout.write("and more on stdout\\n")
""",
}


@dataclass(frozen=True)
class FakeDist:
    """What ``ragloom.plugins`` reads of an ``importlib.metadata.Distribution``."""

    name: str
    version: str = "1.0"

    @property
    def metadata(self) -> dict[str, str]:
        return {"name": self.name}


@dataclass(frozen=True)
class FakeEntryPoint:
    name: str
    value: str
    dist: FakeDist
    group: str = "ragloom"

    def load(self) -> object:
        return importlib.import_module(self.value)


Install = Callable[..., None]


@pytest.fixture
def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Install]:
    """``install((entry point name, module, distribution), ...)``: the only
    ragloom entry points installed, their modules importable."""
    prefix = f"ragloom_fake_{abs(hash(tmp_path)):x}"
    for module, source in SOURCES.items():
        (tmp_path / f"{prefix}_{module}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("RAGLOOM_LOAD_PLUGINS", raising=False)

    def install(*plugins: tuple[str, str, str]) -> None:
        points = [FakeEntryPoint(n, f"{prefix}_{m}", FakeDist(d)) for n, m, d in plugins]
        monkeypatch.setattr(
            ragloom.plugins, "entry_points", lambda group: points if group == "ragloom" else []
        )

    yield install
    for module in SOURCES:
        sys.modules.pop(f"{prefix}_{module}", None)


def test_a_plugin_that_fails_to_import_is_named_with_the_way_out(install: Install) -> None:
    install(("fine", "fine", "ragloom-fine"), ("broken", "broken", "ragloom-broken"))
    with pytest.raises(PluginError) as info:
        build_plugin_manager(env={})
    message = str(info.value)
    assert "plugin 'broken' from ragloom-broken failed to import" in message
    assert "a_module_that_is_not_installed" in message
    assert "RAGLOOM_DISABLE_PLUGINS=broken" in message
    assert isinstance(info.value.__cause__, ImportError)
    # the way out works, by entry-point or distribution name; the other plugin loads
    for blocked in ("broken", "ragloom-broken"):
        pm = build_plugin_manager(env={"RAGLOOM_DISABLE_PLUGINS": blocked})
        assert pm.get_plugin("fine") is not None and pm.get_plugin("broken") is None
    assert build_plugin_manager(env={"RAGLOOM_LOAD_PLUGINS": "fine"}).get_plugin("fine")


@pytest.mark.parametrize(
    ("module", "raised"),
    [
        ("interrupted", KeyboardInterrupt),
        ("terminated", Terminated),
        ("interrupted_cause", KeyboardInterrupt),
    ],
)
def test_an_interrupted_import_is_the_interruption_not_a_broken_plugin(
    install: Install, module: str, raised: type[BaseException]
) -> None:
    """Ctrl-C or SIGTERM while a plugin imported, caught by a library that
    raised an error of its own: the command said the plugin was broken (exit
    2, "reinstall it"), not that it was interrupted."""
    install(("fine", "fine", "ragloom-fine"), ("caught", module, "ragloom-caught"))
    with pytest.raises(raised) as info:
        build_plugin_manager(env={})
    assert type(info.value) is raised


def test_what_a_plugin_prints_while_it_imports_goes_to_stderr(
    install: Install, capsys: pytest.CaptureFixture[str]
) -> None:
    """stdout is `--json` output, or `ragloom mcp`'s protocol."""
    install(("chatty", "chatty", "ragloom-chatty"))
    assert build_plugin_manager(env={}).get_plugin("chatty") is not None
    out, err = capsys.readouterr()
    assert out == "" and "chatty plugin loaded" in err and "and more on stdout" in err


def test_two_distributions_publishing_one_plugin_name(install: Install) -> None:
    install(("vault", "vault_a", "ragloom-vault"), ("vault", "vault_b", "ragloom-vault-fork"))
    with pytest.raises(PluginError) as info:
        build_plugin_manager(env={})
    message = str(info.value)
    assert "two installed distributions publish a ragloom plugin named 'vault'" in message
    assert "ragloom-vault-fork" in message and "uninstall one" in message


def test_two_plugins_registering_one_component_name(install: Install) -> None:
    install(("vault", "vault_a", "ragloom-vault"), ("vault-fork", "vault_b", "ragloom-vault-fork"))
    pm = build_plugin_manager(env={})
    with pytest.raises(DuplicateComponentError) as info:
        Registry.from_plugin_manager(pm)
    message = str(info.value)
    assert "store 'vault' is registered twice" in message
    assert "ragloom-vault 1.0 (plugin vault)" in message
    assert "ragloom-vault-fork 1.0 (plugin vault-fork)" in message
    assert "RAGLOOM_DISABLE_PLUGINS" in message
    one = build_plugin_manager(env={"RAGLOOM_DISABLE_PLUGINS": "vault-fork"})
    assert Registry.from_plugin_manager(one).get("store", "vault").distribution == "ragloom-vault"


def test_a_misspelt_hook_fails_loading(install: Install) -> None:
    install(("typo", "typo", "ragloom-typo"))
    with pytest.raises(PluginError) as info:
        build_plugin_manager(env={})
    message = str(info.value)
    assert "register_storez" in message and "typo" in message
    assert "must be named after a ragloom hook" in message


def test_a_hook_with_another_parameter_name_is_a_plugin_error(install: Install) -> None:
    install(("wrongarg", "wrong_argument", "ragloom-wrongarg"))
    with pytest.raises(PluginError) as info:
        build_plugin_manager(env={})
    message = str(info.value)
    assert "plugin 'wrongarg' from ragloom-wrongarg" in message
    assert "registry" in message and "the hook's own parameter names" in message
    assert "RAGLOOM_DISABLE_PLUGINS=wrongarg" in message
    pm = build_plugin_manager(env={"RAGLOOM_DISABLE_PLUGINS": "wrongarg"})
    assert pm.get_plugin("wrongarg") is None


def test_a_hook_without_hookimpl_is_warned_of(
    install: Install, caplog: pytest.LogCaptureFixture
) -> None:
    install(("unmarked", "unmarked", "ragloom-unmarked"), ("fine", "fine", "ragloom-fine"))
    with caplog.at_level("WARNING", "ragloom"):
        pm = build_plugin_manager(env={})
    assert pm.get_plugin("unmarked") is not None
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        "plugin 'unmarked' defines register_stores() without @ragloom.hookimpl: it is not "
        "called; mark it with @hookimpl"
    ]


@pytest.mark.parametrize(
    ("plugins", "expected"),
    [
        ([("broken", "broken", "ragloom-broken")], "plugin 'broken' from ragloom-broken"),
        (
            [("vault", "vault_a", "ragloom-vault"), ("vault", "vault_b", "ragloom-vault-fork")],
            "a ragloom plugin named 'vault'",
        ),
        (
            [("vault", "vault_a", "ragloom-vault"), ("fork", "vault_b", "ragloom-vault-fork")],
            "store 'vault' is registered twice",
        ),
        ([("typo", "typo", "ragloom-typo")], "register_storez"),
        ([("wrongarg", "wrong_argument", "ragloom-x")], "plugin 'wrongarg' from ragloom-x"),
    ],
    ids=["import-fails", "one-plugin-name", "one-component-name", "misspelt-hook", "argument"],
)
def test_the_command_exits_2_with_one_line(
    install: Install,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    plugins: list[tuple[str, str, str]],
    expected: str,
) -> None:
    import ragloom.cli

    install(*plugins)
    monkeypatch.setattr(ragloom.plugins, "_pm", None)  # built afresh from the entry points
    monkeypatch.setattr(ragloom.plugins, "_registry", None)
    with pytest.raises(SystemExit) as info:
        ragloom.cli.main(["plugins", "--json"])
    err = capsys.readouterr().err
    assert info.value.code == 2, err
    assert err.startswith("error: ") and expected in " ".join(err.split())
    assert "Traceback" not in err
    if plugins[0][0] == "broken":  # -v: the import's traceback first, then the same line
        monkeypatch.setattr(ragloom.plugins, "_pm", None)
        with pytest.raises(SystemExit):
            ragloom.cli.main(["-v", "plugins", "--json"])
        err = capsys.readouterr().err
        assert err.startswith("Traceback") and "a_module_that_is_not_installed" in err
        assert expected in " ".join(err.split())


def test_the_help_and_the_version_work_while_a_plugin_is_broken(
    install: Install, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """They need no plugin: shown, with a warning naming the broken one and
    the way out; every other command still stops with the error."""
    import ragloom.cli

    install(("broken", "broken", "ragloom-broken"))
    for args in (["--help"], ["index", "-h"], ["--version"]):
        monkeypatch.setattr(ragloom.plugins, "_pm", None)
        try:
            ragloom.cli.main(args)  # returns, as after any command that succeeds
        except SystemExit as exc:
            assert exc.code in (0, None), args
        out, err = capsys.readouterr()
        assert err.startswith("warning: plugin 'broken' from ragloom-broken failed to import")
        assert "RAGLOOM_DISABLE_PLUGINS=broken" in err
        assert ("Usage: ragloom" in out) or ragloom.__version__ in out
    install(("wrongarg", "wrong_argument", "ragloom-wrongarg"))
    for args in (["--help"], ["--version"]):
        monkeypatch.setattr(ragloom.plugins, "_pm", None)
        try:
            ragloom.cli.main(args)
        except SystemExit as exc:
            assert exc.code in (0, None), args
        out, err = capsys.readouterr()
        assert err.startswith("warning: plugin 'wrongarg' from ragloom-wrongarg")
        assert "Traceback" not in err
        assert ("Usage: ragloom" in out) or ragloom.__version__ in out
    install(("broken", "broken", "ragloom-broken"))
    monkeypatch.setattr(ragloom.plugins, "_pm", None)
    with pytest.raises(SystemExit) as info:
        ragloom.cli.main(["search", "--help-me"])
    assert info.value.code == 2 and capsys.readouterr().err.startswith("error: plugin 'broken'")
