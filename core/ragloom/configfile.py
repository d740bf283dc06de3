"""Reading config files: YAML or TOML into a dict, with the line of every
path, and ``${VAR}`` / ``${VAR:-default}`` interpolation from the environment
(``$${`` is a literal ``${``)."""

from __future__ import annotations

import codecs
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import ConfigError, ConfigIssue, ConfigValidationError

__all__ = [
    "CONFIG_NAMES",
    "Path_",
    "find_config",
    "fmt_path",
    "interpolate",
    "line_of",
    "read_config_file",
]

CONFIG_NAMES = ("ragloom.yaml", "ragloom.yml", "ragloom.toml")
Path_ = tuple[str | int, ...]


# ---------------------------------------------------------------------------
# Reading files, with line numbers
# ---------------------------------------------------------------------------


def find_config(start: Path | None = None) -> Path | None:
    """``ragloom.yaml``/``.yml``/``.toml`` in ``start`` (default: the working directory)."""
    base = start or Path.cwd()
    for name in CONFIG_NAMES:
        if (base / name).is_file():
            return base / name
    return None


_CONFIG_SHAPE = (
    "a config is a mapping of `key: value` lines (such as `loaders:` and `stores:`)",
    "run `ragloom init` for a commented config to start from",
)


def read_config_file(
    path: Path, shape: tuple[str, str] = _CONFIG_SHAPE
) -> tuple[dict[str, Any], dict[Path_, int]]:
    """Parse a YAML or TOML file into a dict and a map of path -> line.

    ``shape`` is what the errors say of a file whose top level is no mapping,
    and how to start an empty one: a config's by default (a test set's for
    ``ragloom eval``).

    Raises ``ConfigError`` (one line, naming the file and what to do) for a
    file that cannot be read, is binary, is not UTF-8 (a UTF-8 byte-order mark
    is fine), is empty, nests too deeply, or whose top level is not a mapping;
    ``ConfigValidationError`` for invalid YAML or TOML syntax, with its line.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from exc
    text = _decode(data, path)
    try:
        if path.suffix.lower() == ".toml":
            parsed, lines = _read_toml(text, str(path))
        else:
            parsed, lines = _read_yaml(text, str(path), shape[0])
    except RecursionError:
        raise ConfigError(
            f"{path} nests lists or mappings too deeply to read (over Python's recursion "
            "limit); a config needs a few levels, so check the file is the one you meant"
        ) from None
    if not parsed:
        raise ConfigError(
            f"{path} is empty (no settings, only blanks or comments); write the settings "
            f"into it, or {shape[1]}"
        )
    return parsed, lines


def _decode(data: bytes, path: Path) -> str:
    """The text of a config file: UTF-8 (with or without a byte-order mark), else a
    ``ConfigError`` saying what the bytes are and how to fix the file."""
    for bom, name in (
        (codecs.BOM_UTF32_LE, "UTF-32"),
        (codecs.BOM_UTF32_BE, "UTF-32"),
        (codecs.BOM_UTF16_LE, "UTF-16"),
        (codecs.BOM_UTF16_BE, "UTF-16"),
    ):
        if data.startswith(bom):
            raise ConfigError(
                f"{path} is {name} text, not UTF-8; save it as UTF-8 (in PowerShell, "
                "`Set-Content -Encoding utf8`; in an editor, 'Save with encoding: UTF-8')"
            )
    nul = data.find(b"\x00")
    if nul >= 0:
        raise ConfigError(
            f"{path} is a binary file (a NUL byte at offset {nul}), not YAML or TOML text; "
            "check the path (--config FILE names the config file)"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"{path} is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start} "
            f"(line {line}) is invalid UTF-8; save the file as UTF-8 (it looks like "
            "another encoding, such as latin-1 or cp1252)"
        ) from None


def _read_toml(text: str, source: str) -> tuple[dict[str, Any], dict[Path_, int]]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigValidationError(
            [ConfigIssue("", f"invalid TOML: {exc}")], source=source
        ) from exc
    return data, _toml_lines(text)


_UNQUOTED_VARIABLE = re.compile(r"([:,\[{]\s*)(\$\{[^}\s]*\}[^,}\]\s]*)")
"""A ``${VAR}`` left bare after a key or in a flow collection."""


def _read_yaml(
    text: str, source: str, shape: str = _CONFIG_SHAPE[0]
) -> tuple[dict[str, Any], dict[Path_, int]]:
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        hint = None
        lines = text.splitlines()
        if mark is not None and mark.line < len(lines):
            said = lines[mark.line]
            if _UNQUOTED_VARIABLE.search(said) and re.search(r"[\[{]", said):
                # `{type: directory, path: ${DOCS:-docs}}`: YAML reads its "{" as a mapping
                hint = (
                    "a ${...} inside {...} or [...] must be quoted: "
                    + _UNQUOTED_VARIABLE.sub(
                        lambda m: f'{m.group(1)}"{m.group(2)}"', said, 1
                    ).strip()
                )
        problem = str(getattr(exc, "problem", None) or "")
        context = str(getattr(exc, "context", None) or "")
        opened = getattr(exc, "context_mark", None)
        indentation = (
            "keys of one mapping start in the same column, and a key's options are "
            "indented under it (spaces, not tabs)"
        )
        if hint is None and "'\\t'" in problem:
            hint = "YAML indents with spaces only: replace the tab on this line with spaces"
        elif (
            hint is None
            and opened is not None
            and (
                "quoted scalar" in context
                or "flow sequence" in context
                or "flow mapping" in context
            )
        ):
            # `include: ["**/*.md]`: the error is where the file ends, or the next key
            what = {"quoted scalar": "quote", "flow sequence": "[", "flow mapping": "{"}
            opener = next(v for k, v in what.items() if k in context)
            closer = {"quote": "the quote", "[": "it with ]", "{": "it with }"}[opener]
            line = opened.line + 1  # (said at the line it was opened on: the one to mend)
            hint = f"the {opener} opened on this line is never closed: close {closer}"
        elif hint is None and "block end" in problem:  # a key indented unlike those beside it
            hint = f"check this line's indentation: {indentation}"
        elif hint is None and "mapping values are not allowed" in problem:
            # `path: docs` then ` include: [...]` one space deeper; or `prompt: Note: ...`
            hint = (
                "a value holding ': ' must be quoted (\"Note: ...\"); else check this "
                f"line's indentation: {indentation}"
            )
        raise ConfigValidationError(
            [ConfigIssue("", f"invalid YAML: {getattr(exc, 'problem', None) or exc}", line, hint)],
            source=source,
        ) from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        listed = isinstance(data, list)
        kind = "a list" if listed else f"a single {type(data).__name__} value"
        raise ConfigError(
            f"{source}: the top level is {kind}, but {shape}; "
            + ("remove the leading `- ` or check " if listed else "check ")
            + "the file is the one you meant"
        )
    lines: dict[Path_, int] = {}
    twice: list[ConfigIssue] = []
    _yaml_walk(node, (), lines, twice)
    if twice:  # YAML keeps the last silently: the setting written first would be ignored
        raise ConfigValidationError(twice, source=source)
    return data, lines


def _yaml_walk(node: Any, path: Path_, lines: dict[Path_, int], twice: list[ConfigIssue]) -> None:
    """Each key's and item's line into ``lines``; a key given twice in one
    mapping into ``twice``."""
    import yaml

    if isinstance(node, yaml.MappingNode):
        first: dict[Any, int] = {}
        for key_node, value_node in node.value:
            here = (*path, key_node.value)
            line = key_node.start_mark.line + 1
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                if key_node.value in first:
                    twice.append(
                        ConfigIssue(
                            fmt_path(here),
                            "given twice ("
                            + (
                                f"lines {first[key_node.value]} and {line}"
                                if first[key_node.value] != line
                                else f"both on line {line}"
                            )
                            + "); YAML would keep the last and ignore the first: keep one of them",
                            line,
                        )
                    )
                first.setdefault(key_node.value, line)
            lines[here] = line
            _yaml_walk(value_node, here, lines, twice)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            here = (*path, i)
            lines[here] = item.start_mark.line + 1
            _yaml_walk(item, here, lines, twice)


_TOML_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(#.*)?$")
_TOML_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*=")


def _toml_lines(text: str) -> dict[Path_, int]:
    """Best-effort path -> line for TOML (tables, arrays of tables, keys)."""
    lines: dict[Path_, int] = {}
    table: Path_ = ()
    counters: dict[Path_, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        header = _TOML_HEADER.match(line)
        if header:
            parts: Path_ = tuple(p.strip().strip("\"'") for p in header.group(2).split("."))
            if header.group(1) == "[[":
                index = counters.get(parts, -1) + 1
                counters[parts] = index
                table = (*parts, index)
            else:
                table = parts
            lines.setdefault(table, number)
            continue
        key = _TOML_KEY.match(line)
        if key:
            lines.setdefault((*table, key.group(1)), number)
    return lines


# ---------------------------------------------------------------------------
# Environment variables
# ---------------------------------------------------------------------------

_ENV = re.compile(r"\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def interpolate(
    data: Any, env: Mapping[str, str], path: Path_, add: Any, seen: dict[Path_, Any]
) -> Any:
    """``data`` with ``${VAR}`` replaced; records in ``seen`` each path that had one."""
    if isinstance(data, dict):
        return {k: interpolate(v, env, (*path, k), add, seen) for k, v in data.items()}
    if isinstance(data, list):
        return [interpolate(v, env, (*path, i), add, seen) for i, v in enumerate(data)]
    if not isinstance(data, str) or "${" not in data:
        return data

    def substitute(match: re.Match[str]) -> str:
        escaped, name, default = match.groups()
        seen[path] = data  # written back as written: placeholders, and escapes
        if escaped:
            return match.group(0)[1:]
        if default is not None and not env.get(name):  # unset or empty, as a shell's :-
            return default
        if name in env:
            return env[name]
        add(
            path,
            f"environment variable {name} is not set",
            f"export {name}=..., or write ${{{name}:-default}} in the config",
        )
        return ""

    return _ENV.sub(substitute, data)


def empty_placeholder(raw: Any, value: Any) -> tuple[str, str] | None:
    """When ``raw``, a value written with ``${VAR}`` placeholders, came out
    empty (``value``, blank), what to say instead of the type's complaint
    ("without quotes or units" blamed the quotes a ``${...}`` needs): the
    variables that gave nothing, and what to do. None otherwise."""
    if not isinstance(raw, str) or not isinstance(value, str) or value.strip():
        return None
    names = [m.group(2) for m in _ENV.finditer(raw) if not m.group(1)]
    if not names:
        return None
    them = " and ".join(dict.fromkeys(names))
    verb = "are" if len(set(names)) > 1 else "is"
    return (
        f"{them} {verb} empty: {raw.strip()} gives an empty value here (the variable is "
        "unset or set to nothing, with no default or an empty one)",
        f"set {names[0]} to a value, write a default (${{{names[0]}:-...}}), or leave the key out",
    )


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


def fmt_path(path: Path_) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def line_of(lines: Mapping[Path_, int], path: Path_) -> int | None:
    for end in range(len(path), 0, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None
