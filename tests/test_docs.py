"""Meta-tests for the documentation, in the style of datasette's ``tests/test_docs.py``.

They fail when a hook has no docs page or no test, when a docs example does
not compile or does not implement its hook, when a page is missing from the
mkdocs nav, when a built-in component option or a CLI command or option is
not documented, and when the worked examples stop working.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import subprocess
import sys
import textwrap
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pluggy
import pytest
import yaml
from ragloom import hookspecs

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
HOOK_DOCS = DOCS / "hooks"
TESTS = ROOT / "tests"
MKDOCS_YML = ROOT / "mkdocs.yml"

FENCE = re.compile(
    r"^```(?P<lang>[\w+-]*)[^\n]*\n(?P<code>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL
)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def hookspec_names() -> list[str]:
    """Every hook in ``ragloom.hookspecs``: functions carrying pluggy's spec marker."""
    return sorted(
        name
        for name, obj in vars(hookspecs).items()
        if inspect.isfunction(obj) and hasattr(obj, "ragloom_spec")
    )


HOOKS = hookspec_names()


def signature_line(name: str) -> str:
    """``def <name>(<params>) -> <return>:`` as written in hookspecs.py.

    With ``from __future__ import annotations`` every annotation is a string,
    so ``str(signature)`` quotes them (``(register: 'Register[Store]') -> 'None'``);
    the quotes around annotations are removed.
    """
    signature = str(inspect.signature(getattr(hookspecs, name)))
    unquoted = re.sub(r"(: |-> )(['\"])(.*?)\2(?=[,)]|$)", r"\1\3", signature)
    return f"def {name}{unquoted}:"


def code_blocks(text: str, lang: str) -> list[str]:
    """The contents of the top-level fenced blocks of ``lang`` in a Markdown text."""
    return [m.group("code") for m in FENCE.finditer(text) if m.group("lang") == lang]


def section(text: str, heading: str) -> str:
    """The text under the Markdown heading line ``heading`` (e.g. "### `file` loader"),
    up to the next heading of the same or a higher level; "" if there is none."""
    level = len(heading) - len(heading.lstrip("#"))
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == heading:
            body = []
            in_fence = False
            for other in lines[i + 1 :]:
                if other.startswith("```"):
                    in_fence = not in_fence
                if not in_fence and re.match(rf"^#{{1,{level}}} ", other):
                    break
                body.append(other)
            return "\n".join(body)
    return ""


def hook_example(name: str) -> str:
    """The example plugin module of a hook page: the first python block under ``## Example``."""
    body = section((HOOK_DOCS / f"{name}.md").read_text("utf-8"), "## Example")
    blocks = code_blocks(body, "python")
    assert blocks, f"docs/hooks/{name}.md has no ```python block under '## Example'"
    return blocks[0]


def exec_module(code: str, module_name: str, filename: str) -> types.ModuleType:
    """Execute ``code`` as a fresh module (registered in sys.modules while it runs,
    so that dataclasses and pydantic can resolve its annotations)."""
    module = types.ModuleType(module_name)
    module.__file__ = filename
    sys.modules[module_name] = module
    try:
        exec(compile(code, filename, "exec"), module.__dict__)
    finally:
        sys.modules.pop(module_name, None)
    return module


def python_blocks() -> Iterator[tuple[str, int, str]]:
    for page in sorted(DOCS.rglob("*.md")):
        for index, code in enumerate(code_blocks(page.read_text("utf-8"), "python")):
            yield page.relative_to(DOCS).as_posix(), index, code


def clean_env() -> dict[str, str]:
    """The environment without plugin restrictions, for subprocesses."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGLOOM_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


@pytest.fixture(scope="module")
def builtin_registry() -> Any:
    """The registry of the built-in components only (no installed plugins)."""
    from ragloom.plugins import build_plugin_manager
    from ragloom.registry import Registry

    return Registry.from_plugin_manager(build_plugin_manager(load_entry_points=False, env={}))


def test_hooks_are_found() -> None:
    assert {"register_stores", "run_stage", "on_event"} <= set(HOOKS), HOOKS


# ---------------------------------------------------------------------------
# (a) every hook has a page with its exact signature
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_is_documented(hook: str) -> None:
    page = HOOK_DOCS / f"{hook}.md"
    assert page.exists(), f"hook {hook} has no page: write docs/hooks/{hook}.md"
    text = page.read_text("utf-8")
    line = signature_line(hook)
    assert line in text, f"docs/hooks/{hook}.md must show the signature `{line}`"
    for parameter in inspect.signature(getattr(hookspecs, hook)).parameters:
        assert f"`{parameter}`" in text, f"docs/hooks/{hook}.md does not describe `{parameter}`"


def test_signature_line_format() -> None:
    assert signature_line("register_stores") == (
        "def register_stores(register: Register[Store]) -> None:"
    )


def test_no_page_for_a_hook_that_does_not_exist() -> None:
    pages = {page.stem for page in HOOK_DOCS.glob("*.md")}
    assert pages <= set(HOOKS), f"pages for unknown hooks: {sorted(pages - set(HOOKS))}"


# ---------------------------------------------------------------------------
# (b) every hook has a test named test_hook_<name> that implements the hook
#     and registers that implementation (an empty test does not count)
# ---------------------------------------------------------------------------


def hook_tests() -> dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function named ``test_hook_*`` under tests/, by name."""
    found: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for path in TESTS.rglob("*.py"):
        tree = ast.parse(path.read_text("utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                node.name.startswith("test_hook_")
            ):
                found.setdefault(node.name, []).append(node)
    return found


def is_hookimpl(decorator: ast.expr) -> bool:
    """``@hookimpl``, ``@ragloom.hookimpl``, ``@hookimpl(...)``."""
    if isinstance(decorator, ast.Call):
        decorator = decorator.func
    return (isinstance(decorator, ast.Name) and decorator.id == "hookimpl") or (
        isinstance(decorator, ast.Attribute) and decorator.attr == "hookimpl"
    )


def implements_and_uses(test: ast.FunctionDef | ast.AsyncFunctionDef, hook: str) -> bool:
    """``test`` defines a class with a ``@hookimpl`` method named ``hook`` and
    makes an instance of that class (to register it), or calls ``*.hook.<hook>(...)``."""
    called = {
        node.func.id
        for node in ast.walk(test)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    for node in ast.walk(test):
        if isinstance(node, ast.ClassDef) and node.name in called:
            for item in node.body:
                if (
                    isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and item.name == hook
                    and any(is_hookimpl(d) for d in item.decorator_list)
                ):
                    return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == hook
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "hook"
        ):
            return True
    return False


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_has_a_test(hook: str) -> None:
    tests = hook_tests().get(f"test_hook_{hook}")
    assert tests, f"no test named test_hook_{hook} under tests/ (write it in tests/test_hooks.py)"
    assert all(implements_and_uses(test, hook) for test in tests), (
        f"test_hook_{hook} must exercise the hook: define a class with a @hookimpl "
        f"method `{hook}` and register an instance of it (or call pm.hook.{hook}(...))"
    )


def test_an_empty_or_unregistered_hook_test_does_not_count() -> None:
    def parse(source: str) -> ast.FunctionDef:
        node = ast.parse(textwrap.dedent(source)).body[0]
        assert isinstance(node, ast.FunctionDef)
        return node

    good = """
        def test_hook_on_event(pm):
            class Observer:
                @hookimpl
                def on_event(self, event):
                    pass
            pm.register(Observer())
    """
    assert implements_and_uses(parse(good), "on_event")
    assert implements_and_uses(
        parse("def test_hook_on_event(pm):\n    pm.hook.on_event(event=1)\n"), "on_event"
    )
    assert not implements_and_uses(parse("def test_hook_on_event(pm):\n    pass\n"), "on_event")
    assert not implements_and_uses(
        parse(good.replace("pm.register(Observer())", "pass")), "on_event"
    )
    assert not implements_and_uses(parse(good.replace("@hookimpl", "@staticmethod")), "on_event")
    assert not implements_and_uses(parse(good), "run_stage")


# ---------------------------------------------------------------------------
# (c) examples compile, and each hook page's example implements its hook
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("page", "index", "code"), list(python_blocks()))
def test_python_block_compiles(page: str, index: int, code: str) -> None:
    compile(code, f"docs/{page} (python block {index + 1})", "exec")


def test_hook_pages_and_plugin_guide_have_python_blocks() -> None:
    pages = [*sorted(HOOK_DOCS.glob("*.md")), DOCS / "writing-a-plugin.md"]
    for page in pages:
        assert code_blocks(page.read_text("utf-8"), "python"), f"{page} has no python example"


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_example_implements_the_hook(hook: str) -> None:
    page = f"docs/hooks/{hook}.md"
    module = exec_module(hook_example(hook), f"ragloom_docs_example_{hook}", page)
    impls = [
        obj
        for name, obj in vars(module).items()
        if inspect.isfunction(obj) and hasattr(obj, "ragloom_impl") and name == hook
    ]
    assert impls, f"the example in docs/hooks/{hook}.md defines no @hookimpl function {hook}"

    # pluggy validates the implementation against the spec (argument names).
    pm = pluggy.PluginManager("ragloom")
    pm.add_hookspecs(hookspecs)
    pm.register(module, name=module.__name__)
    pm.check_pending()
    from ragloom.registry import HOOK_KINDS, Registry

    if hook in HOOK_KINDS:
        registry = Registry.from_plugin_manager(pm)
        kinds = {entry.kind for entry in registry}
        assert kinds == {HOOK_KINDS[hook]}, f"the {hook} example registered {kinds or 'nothing'}"


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_example_runs(hook: str, tmp_path: Path) -> None:
    """Each example module runs as a script: its __main__ block uses it in a pipeline."""
    script = tmp_path / f"{hook}_example.py"
    script.write_text(hook_example(hook), "utf-8")
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"docs/hooks/{hook}.md example failed:\n{result.stderr}"


def test_writing_a_plugin_example_package_passes_its_tests(tmp_path: Path) -> None:
    """The worked example of writing-a-plugin.md, file by file, passes its own tests."""
    text = (DOCS / "writing-a-plugin.md").read_text("utf-8")
    package = tmp_path / "ragloom-digest"
    written = []
    for match in re.finditer(r"^### `(?P<path>[\w./-]+\.(?:py|toml))`$", text, re.MULTILINE):
        body = section(text, match.group(0))
        lang = "toml" if match.group("path").endswith(".toml") else "python"
        blocks = code_blocks(body, lang)
        assert blocks, f"no {lang} block under {match.group(0)!r}"
        target = package / match.group("path")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(blocks[0], "utf-8")
        written.append(match.group("path"))
    test_blocks = code_blocks(section(text, "## Testing a plugin"), "python")
    assert test_blocks, "writing-a-plugin.md has no test example under '## Testing a plugin'"
    (package / "tests").mkdir()
    (package / "tests" / "test_plugin_example.py").write_text(test_blocks[0], "utf-8")
    assert "pyproject.toml" in written and any(p.endswith("plugin.py") for p in written), written

    env = clean_env()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(package), env.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=package,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


# ---------------------------------------------------------------------------
# (d) every page is in the nav (and every nav entry exists)
# ---------------------------------------------------------------------------


class _AnyTagLoader(yaml.SafeLoader):
    """Reads mkdocs.yml even if it uses tags such as !!python/name: or !ENV."""


_AnyTagLoader.add_multi_constructor("", lambda loader, suffix, node: None)


def nav_pages() -> list[str]:
    config = yaml.load(MKDOCS_YML.read_text("utf-8"), Loader=_AnyTagLoader)

    def walk(item: Any) -> Iterator[str]:
        if isinstance(item, str):
            yield item
        elif isinstance(item, list):
            for sub in item:
                yield from walk(sub)
        elif isinstance(item, dict):
            for sub in item.values():
                yield from walk(sub)

    return [p for p in walk(config.get("nav", [])) if not re.match(r"^[a-z]+://", p)]


def test_mkdocs_config() -> None:
    config = yaml.load(MKDOCS_YML.read_text("utf-8"), Loader=_AnyTagLoader)
    assert config["site_name"] == "ragloom"
    assert config.get("docs_dir", "docs") == "docs"


def test_every_page_is_in_the_nav() -> None:
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    nav = set(nav_pages())
    assert not pages - nav, f"pages missing from mkdocs.yml's nav: {sorted(pages - nav)}"
    assert not nav - pages, f"nav entries without a page: {sorted(nav - pages)}"


# ---------------------------------------------------------------------------
# (e) every built-in component option is in the config reference
# ---------------------------------------------------------------------------


def component_heading(kind: str, name: str) -> str:
    return f"### `{name}` {kind.replace('_', ' ')}"


def option_rows(text: str) -> dict[str, str]:
    """Table rows of a section that document an option: ``| `name` | ... |``."""
    return {
        m.group(1): m.group(0)
        for m in re.finditer(r"^\| `([A-Za-z_][A-Za-z0-9_]*)` \|.*$", text, re.MULTILINE)
    }


def _default_text(default: Any) -> str | None:
    """How a scalar default is written in the docs table, or None to skip the check."""
    if isinstance(default, bool):
        return "`true`" if default else "`false`"
    if isinstance(default, (int, float, str)):
        return f"`{default}`"
    return None


def test_every_builtin_option_is_documented(builtin_registry: Any) -> None:
    text = (DOCS / "config.md").read_text("utf-8")
    problems = []
    for entry in builtin_registry:
        heading = component_heading(entry.kind, entry.name)
        body = section(text, heading)
        if not body:
            problems.append(f"docs/config.md has no section '{heading}'")
            continue
        rows = option_rows(body)
        fields = entry.cls.Config.model_fields
        for field_name, info in fields.items():
            row = rows.get(field_name)
            if row is None:
                problems.append(f"{heading}: option `{field_name}` has no table row")
                continue
            if info.is_required():
                if "required" not in row:
                    problems.append(f"{heading}: `{field_name}` is required; say so")
                continue
            expected = _default_text(info.get_default(call_default_factory=True))
            if expected is not None and expected not in row:
                problems.append(f"{heading}: `{field_name}` defaults to {expected}")
        for extra in sorted(set(rows) - set(fields)):
            problems.append(f"{heading}: documents `{extra}`, which is not an option")
    assert not problems, "\n".join(problems)


def test_every_builtin_option_is_mentioned_by_name(builtin_registry: Any) -> None:
    text = (DOCS / "config.md").read_text("utf-8")
    missing = [
        f"{entry.kind} {entry.name}: {field}"
        for entry in builtin_registry
        for field in entry.cls.Config.model_fields
        if f"`{field}`" not in text
    ]
    assert not missing, f"options not mentioned in docs/config.md: {missing}"


def test_every_top_level_key_is_documented(builtin_registry: Any) -> None:
    from ragloom.config import STORE_KEYS, RetrievalSettings
    from ragloom.schema import config_json_schema

    text = (DOCS / "config.md").read_text("utf-8")
    top = section(text, "## Top-level keys")
    for key in config_json_schema(builtin_registry)["properties"]:
        assert f"| `{key}` |" in top, f"top-level key `{key}` has no row in '## Top-level keys'"
    retrieval = section(text, "### `retrieval`")
    for key, info in RetrievalSettings.model_fields.items():
        assert f"| `{key}` |" in retrieval, f"retrieval.{key} is not documented"
        if info.default is not None:
            # as a config writes it: YAML's `true`, not Python's True
            shown = str(info.default).lower() if isinstance(info.default, bool) else info.default
            assert f"`{shown}`" in retrieval, f"retrieval.{key} defaults to {shown}"
    stores = section(text, "#### `stores`")
    for key in STORE_KEYS:
        assert f"| `{key}` |" in stores, f"the store key `{key}` is not documented"


def test_config_examples_are_the_same_config(builtin_registry: Any, tmp_path: Path) -> None:
    """The YAML and TOML examples marked ``<!-- same-config -->`` validate to equal configs."""
    from ragloom.config import load_config

    text = (DOCS / "config.md").read_text("utf-8")
    marked = re.findall(r"<!-- same-config -->\s*\n```(yaml|toml)\n(.*?)^```", text, re.M | re.S)
    assert sorted(lang for lang, _ in marked) == ["toml", "yaml"], marked
    dicts = []
    for lang, code in marked:
        path = tmp_path / f"ragloom.{lang}"
        path.write_text(code, "utf-8")
        dicts.append(load_config(path, builtin_registry, env={}).to_dict())
    assert dicts[0] == dicts[1]


@pytest.mark.parametrize("lang", ["yaml", "toml"])
def test_yaml_and_toml_blocks_parse(lang: str) -> None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    for page in sorted(DOCS.rglob("*.md")):
        for code in code_blocks(page.read_text("utf-8"), lang):
            if lang == "yaml":
                yaml.safe_load(code)
            else:
                tomllib.loads(code)


# ---------------------------------------------------------------------------
# (f) every CLI command and option is in the CLI page
# ---------------------------------------------------------------------------


def cli_commands() -> Iterator[tuple[str, click.Command]]:
    """``(path, command)`` for every leaf command, e.g. ``("config check", ...)``."""
    from ragloom.cli import cli

    def walk(group: click.Group, prefix: str) -> Iterator[tuple[str, click.Command]]:
        for name, command in sorted(group.commands.items()):
            path = f"{prefix} {name}".strip()
            if isinstance(command, click.Group):
                yield from walk(command, path)
            else:
                yield path, command

    yield from walk(cli, "")


def test_cli_has_commands() -> None:
    paths = [path for path, _ in cli_commands()]
    assert {"index", "ask", "config check", "config schema"} <= set(paths), paths


@pytest.mark.parametrize(("path", "command"), list(cli_commands()))
def test_cli_command_is_documented(path: str, command: click.Command) -> None:
    text = (DOCS / "cli.md").read_text("utf-8")
    heading = f"## `ragloom {path}`"
    body = section(text, heading)
    assert body, f"docs/cli.md has no section '{heading}'"
    for param in command.params:
        if isinstance(param, click.Option):
            if param.hidden:
                continue
            for opt in [*param.opts, *param.secondary_opts]:
                assert f"`{opt}" in body, f"ragloom {path}: option {opt} is not documented"
        elif isinstance(param, click.Argument):
            metavar = param.human_readable_name.upper()
            assert metavar in body, f"ragloom {path}: argument {metavar} is not documented"


def test_cli_global_options_are_documented() -> None:
    from ragloom.cli import cli

    body = section((DOCS / "cli.md").read_text("utf-8"), "## Global options")
    assert body, "docs/cli.md has no '## Global options' section"
    ctx = click.Context(cli)
    for param in cli.get_params(ctx):
        for opt in [*param.opts, *param.secondary_opts]:
            assert f"`{opt}" in body, f"global option {opt} is not documented"


def test_cli_exit_codes_are_documented() -> None:
    body = section((DOCS / "cli.md").read_text("utf-8"), "## Exit codes")
    for code in ("0", "1", "2"):
        row = re.search(rf"^\| {code} \|", body, re.MULTILINE)
        assert row, f"exit code {code} is not documented"
