"""Markdown: front matter out (into metadata), headings in one form,
admonitions as prose.

The text keeps its headings as ATX lines (``## Install``) so the chunkers can
cut by section (they parse headings from the text with ``section_finder``);
Setext headings (a line underlined with ``===`` or ``---``) are rewritten as
ATX, so every chunker sees one form. Front matter (a YAML block between
``---`` lines, or TOML between ``+++`` lines, at the very top) is removed
from the text and becomes metadata. MkDocs / Python-Markdown admonitions
(``!!! note "Title"``), collapsible blocks (``??? info``) and content tabs
(``=== "pip"``) become their title and their body, dedented
(:func:`normalise_admonitions`). Nothing else in the text changes.
"""

from __future__ import annotations

import datetime
import logging
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any

from .._files import RESERVED_METADATA, Parsed

__all__ = ["markdown_title", "normalise_admonitions", "normalise_setext", "parse_markdown"]

log = logging.getLogger(__name__)

_CLOSING_HASHES = re.compile(r"(?:^|\s+)#+$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_BLOCK_START = re.compile(
    r"^ {0,3}(?:#{1,6}(?:[ \t]|$)|>|[-+*][ \t]|\d{1,9}[.)][ \t]|```|~~~|<|\|)"
)
_ADMONITION = re.compile(
    r"^ {0,3}(?:"
    r"(?:!!!|\?\?\?\+?)[ \t]*(?P<kinds>[\w-]+(?:[ \t]+[\w-]+)*)(?:[ \t]+\"(?P<title>.*)\")?"
    r"|===[!+]{0,2}[ \t]+\"(?P<tab>.*)\""
    r")[ \t]*$"
)
"""An admonition (``!!! type "title"``; ``???`` and ``???+`` for collapsible
ones, pymdownx.details) or a content tab (``=== "title"``, pymdownx.tabbed)."""
_FRONT_MATTER_LIMIT = 64 * 1024
_FRONT_MATTER_VALUES = 200
_PROTECTED = RESERVED_METADATA | {"title", "extension"}
"""Front-matter keys that would clash with the loader's own: ``title`` is taken
as the title; the others are kept as ``front_matter.<key>``."""


def parse_markdown(text: str, *, report: Callable[[str], None], **_: Any) -> Parsed | None:
    """Front matter out (into metadata), Setext headings normalised, title found."""
    body, front = _split_front_matter(text, report)
    body = normalise_setext(normalise_admonitions(body))
    if not body.strip():
        report("no text besides front matter; skipped")
        return None
    metadata = _flatten(front, report) if front else {}
    front_title = metadata.pop("title", None)
    title = str(front_title).strip() if front_title not in (None, "") else None
    metadata["title"] = title or markdown_title(body)
    return body, metadata


def markdown_title(text: str) -> str | None:
    """The first level-one ATX heading (``# Title``), skipping front matter and fences."""
    lines = text.split("\n")
    start = 0
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                start = i + 1
                break
    fence: str | None = None
    for line in lines[start:]:
        stripped = line.lstrip(" ")
        if len(line) - len(stripped) > 3:
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            continue
        if stripped.startswith(("# ", "#\t")):
            title = _CLOSING_HASHES.sub("", stripped[2:].strip()).strip()
            if title:
                return title
    return None


def normalise_admonitions(text: str) -> str:
    """``text`` with each MkDocs admonition and content tab read as prose.

    Its marker line becomes its title alone, in bold, a paragraph of its own
    (a heading in all but syntax, as the answerer reads a bold line; no line
    at all when it has no title: the type, ``note``, says nothing), and its
    body, the lines indented by four under it, is dedented by four, so a
    fence in a tab stays a fence and a sentence is not taken for indented
    code. Left as they were, the marker was quoted as the first words of
    the body's first sentence (``!!! note "Current release" The current
    release is ...``). Nested blocks are read the same way; code fences and
    indented code (the marker must start within three spaces) are left as
    they are. A marker with neither a title nor a body under it, or with
    words but no title (``!!! Do not run this``), is left alone: it may be
    prose, and would vanish.
    """
    if "!!!" not in text and "???" not in text and "===" not in text:
        return text
    return "\n".join(_unwrap(text.split("\n")))


def _unwrap(lines: list[str]) -> list[str]:
    out: list[str] = []
    fences = _Fences()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if fences.code(line):
            out.append(line)
            continue
        marker = _ADMONITION.match(line)
        if marker is None:
            out.append(line)
            continue
        end = i
        while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) >= 4):
            end += 1
        while end > i and not lines[end - 1].strip():
            end -= 1  # blank lines after the body are the text's, not the body's
        tab, title = marker.group("tab", "title")
        if end == i and (tab is not None or title is None):
            out.append(line)  # nothing under it: maybe prose ("!!! Do not run this")
            continue
        if tab is None and title is None and len(marker.group("kinds").split()) > 1:
            out.append(line)  # words, not a type: the line would vanish
            continue
        title = (title if tab is None else tab) or ""
        if out and out[-1].strip():
            out.append("")
        if title.strip():
            out.append(f"**{title.strip()}**")  # a heading in all but syntax, as a bold line is
            if end > i and lines[i].strip():
                out.append("")
        out.extend(_unwrap([_dedent(body) for body in lines[i:end]]))
        i = end
    return out


class _Fences:
    """Whether each line, in order, belongs to a fenced code block (``` or
    ~~~, opening and closing lines included): those are left as written."""

    def __init__(self) -> None:
        self.fence: str | None = None

    def code(self, line: str) -> bool:
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if self.fence is not None:
            closing = stripped.rstrip()
            if indent <= 3 and closing.startswith(self.fence) and not closing.strip(self.fence[0]):
                self.fence = None
            return True
        if indent <= 3 and stripped.startswith(("```", "~~~")):
            self.fence = stripped[: len(stripped) - len(stripped.lstrip(stripped[0]))]
            return True
        return False


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.lstrip())


def _dedent(line: str) -> str:
    """``line`` less one level of indentation (four spaces or a tab)."""
    if line.startswith("    "):
        return line[4:]
    if line.startswith("\t"):
        return line[1:]
    spaces = len(line) - len(line.lstrip(" "))
    return line[min(spaces, 4) :].lstrip("\t") if line.strip() else ""


def normalise_setext(text: str) -> str:
    """``text`` with each Setext heading (a paragraph underlined by ``===`` or
    ``---``) rewritten as one ATX line (``# Title`` / ``## Title``); code
    fences, indented code and everything else are left as they are. A ``---``
    after a blank line, a list item or a heading stays a thematic break."""
    lines = text.split("\n")
    out: list[str] = []
    paragraph = 0  # how many of the last lines in ``out`` form a paragraph
    fences = _Fences()
    for line in lines:
        if fences.code(line):
            out.append(line)
            paragraph = 0
            continue
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if paragraph and _SETEXT.match(line):
            level = "#" if stripped.startswith("=") else "##"
            content = " ".join(x.strip() for x in out[-paragraph:])
            del out[-paragraph:]
            out.append(f"{level} {content}")
            paragraph = 0
            continue
        if not line.strip() or (indent <= 3 and _BLOCK_START.match(line)):
            paragraph = 0
        elif paragraph:
            paragraph += 1
        elif indent <= 3:
            paragraph = 1
        out.append(line)
    return "\n".join(out)


def _split_front_matter(text: str, report: Callable[[str], None]) -> tuple[str, dict[str, Any]]:
    """``(body, front matter)``: a ``---`` (YAML) or ``+++`` (TOML) block on the
    first line, closed by the same marker (or ``...`` for YAML), is removed."""
    first, _, rest = text.partition("\n")
    marker = first.rstrip()
    if marker not in ("---", "+++"):
        return text, {}
    closers = ("---", "...") if marker == "---" else ("+++",)
    offset = len(first) + 1
    for line in rest.split("\n"):
        if line.rstrip() in closers:
            raw = text[len(first) + 1 : offset]
            body = text[offset + len(line) + 1 :].lstrip("\n")
            return body, _parse_front_matter(raw, marker, report)
        offset += len(line) + 1
        if offset > _FRONT_MATTER_LIMIT:
            break
    return text, {}  # no closing marker: a thematic break, not front matter


def _parse_front_matter(raw: str, marker: str, report: Callable[[str], None]) -> dict[str, Any]:
    try:
        if marker == "+++":
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # pragma: no cover - Python 3.10
                import tomli as tomllib
            data: Any = tomllib.loads(raw)
        else:
            import yaml

            data = yaml.safe_load(raw)
    except Exception as exc:  # yaml.YAMLError, TOMLDecodeError
        kind = "TOML" if marker == "+++" else "YAML"
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        report(f"front matter is not valid {kind} ({detail}); loaded without its metadata")
        return {}
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        report(
            f"front matter is a {type(data).__name__}, not a mapping of keys to values; "
            "loaded without its metadata"
        )
        return {}
    return dict(data)


def _flatten(front: Mapping[str, Any], report: Callable[[str], None]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    dropped: list[str] = []
    budget = [_FRONT_MATTER_VALUES]  # YAML aliases can make a small block a huge tree

    def visit(prefix: str, value: Any) -> None:
        budget[0] -= 1
        if budget[0] < 0:
            return
        if isinstance(value, Mapping):
            for key, item in value.items():
                visit(f"{prefix}.{key}", item)
            return
        if isinstance(value, list):
            items = [_scalar(x) for x in value]
            if any(x is _NOT_SCALAR for x in items):
                dropped.append(prefix)
                return
            flat[prefix] = items
            return
        item = _scalar(value)
        if item is _NOT_SCALAR:
            dropped.append(prefix)
            return
        flat[prefix] = item

    for key, value in front.items():
        name = str(key)
        if name in _PROTECTED and name != "title":
            name = f"front_matter.{name}"
        visit(name, value)
    if budget[0] < 0:
        report(
            f"front matter has more than {_FRONT_MATTER_VALUES} values; the rest are left "
            "out (metadata is copied into every chunk: keep it small)"
        )
    elif dropped:
        report(
            f"front matter key(s) {', '.join(dropped)} left out: metadata values must be "
            "strings, numbers, booleans, dates or lists of those"
        )
    return flat


_NOT_SCALAR = object()


def _scalar(value: Any) -> Any:
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date
        return value.isoformat()
    return _NOT_SCALAR
