"""Source code: the file's text as it is, with its language and a title.

The whole file is one document (the ``code`` chunker splits it by function
and class); ``metadata["language"]`` comes from the extension
(:data:`LANGUAGES`), a well-known file name (``Dockerfile``) or, for a file
with neither, its shebang line (``#!/usr/bin/env python3``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..._languages import code_language
from .._files import Parsed

__all__ = ["code_language", "parse_code"]

_DOCSTRING = re.compile(
    r"""\A(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*[rRuU]?(?P<q>\"\"\"|\'\'\'|"|')(?P<body>.*?)(?P=q)""",
    re.DOTALL,
)


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
