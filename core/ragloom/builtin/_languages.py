"""Source-code languages by file extension, well-known file name and shebang:
one table, shared by the ``code`` loader (``metadata["language"]``), the
``directory`` loader (which extensions it reads by default) and the ``code``
chunker."""

from __future__ import annotations

import re
from pathlib import PurePath

__all__ = ["FILE_NAMES", "INTERPRETERS", "LANGUAGES", "code_language"]

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

_SHEBANG = re.compile(r"^#!\s*(\S+)(?:\s+(?:-\S+\s+)*(\S+))?")


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
