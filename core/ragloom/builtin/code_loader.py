"""The ``code`` loader: a source file, whole, with its language.

    loaders:
      - type: code
        path: src/billing/client.py

The whole file is one document (the ``code`` chunker splits it by function
and class); ``metadata["language"]`` comes from the extension
(:data:`LANGUAGES`), a well-known file name (``Dockerfile``) or, for a file
with neither, its shebang line (``#!/usr/bin/env python3``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any, ClassVar

from .file_loader import FileLoader, Parsed

__all__ = ["FILE_NAMES", "INTERPRETERS", "LANGUAGES", "CodeLoader", "code_language", "parse_code"]

LANGUAGES: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".rb": "ruby",
    ".php": "php",
    ".cs": "csharp",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".sc": "scala",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".sql": "sql",
    ".lua": "lua",
    ".r": "r",
    ".pl": "perl",
    ".pm": "perl",
    ".ex": "elixir",
    ".exs": "elixir",
    ".erl": "erlang",
    ".hs": "haskell",
    ".ml": "ocaml",
    ".mli": "ocaml",
    ".dart": "dart",
    ".zig": "zig",
    ".jl": "julia",
    ".clj": "clojure",
    ".groovy": "groovy",
    ".ps1": "powershell",
    ".vue": "vue",
    ".svelte": "svelte",
}
"""Source-file extensions (lowercase, with the dot) and their language names.
The names are tree-sitter's grammar names where one exists."""

FILE_NAMES: dict[str, str] = {
    "Dockerfile": "dockerfile",
    "Containerfile": "dockerfile",
    "Makefile": "make",
    "GNUmakefile": "make",
    "Rakefile": "ruby",
    "Gemfile": "ruby",
    "Jenkinsfile": "groovy",
}
"""Well-known source files without an extension."""

INTERPRETERS: dict[str, str] = {
    "python": "python",
    "bash": "bash",
    "sh": "bash",
    "zsh": "bash",
    "dash": "bash",
    "ksh": "bash",
    "node": "javascript",
    "nodejs": "javascript",
    "deno": "typescript",
    "ruby": "ruby",
    "perl": "perl",
    "php": "php",
    "lua": "lua",
    "rscript": "r",
    "pwsh": "powershell",
}
"""Shebang interpreters (without version digits) and their language names."""

_DOCSTRING = re.compile(
    r"""\A(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*[rRuU]?(?P<q>\"\"\"|\'\'\'|"|')(?P<body>.*?)(?P=q)""",
    re.DOTALL,
)
_SHEBANG = re.compile(r"^#!\s*(\S+)(?:\s+(?:-\S+\s+)*(\S+))?")


class CodeLoader(FileLoader):
    """Loads one source file as one document; see the module docs.

    Metadata, besides the common file fields: ``language`` (``python``,
    ``typescript``...; ``text`` when none is known) and ``title``: for
    Python, the first line of the module docstring; else the file name.
    """

    format: ClassVar[str | None] = "code"


def code_language(path: PurePath, text: str = "") -> str | None:
    """The language of a source file, from its extension, its name, or the
    shebang on the first line of ``text``; None when none of them tells."""
    language = LANGUAGES.get(path.suffix.lower()) or FILE_NAMES.get(path.name)
    if language is not None:
        return language
    match = _SHEBANG.match(text[:200]) if text.startswith("#!") else None
    if match is None:
        return None
    program = match.group(1).rsplit("/", 1)[-1]
    if program == "env" and match.group(2):
        program = match.group(2).rsplit("/", 1)[-1]
    name = re.sub(r"[\d.]+$", "", program).lower()
    return INTERPRETERS.get(name, name or None)


def parse_code(
    text: str, *, path: Path, report: Callable[[str], None] | None = None, **_: Any
) -> Parsed:
    """The file's text as it is, with ``language`` and ``title``."""
    language = code_language(path, text) or "text"
    title = _python_title(text) if language == "python" else None
    return text, {"title": title or path.name, "language": language}


def _python_title(text: str) -> str | None:
    """The first line of a Python module's docstring, if it has one (read
    without parsing the whole module: the docstring is the first statement)."""
    match = _DOCSTRING.match(text)
    if match is None:
        return None
    for line in match.group("body").split("\n"):
        if line.strip():
            return line.strip()
    return None
