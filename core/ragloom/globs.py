"""Glob patterns over relative POSIX paths, the same on every Python version."""

from __future__ import annotations

import re

__all__ = ["check_pattern", "compile_glob"]


def check_pattern(pattern: str) -> str:
    """Validate one include/exclude pattern; return it without ``./`` or a trailing ``/``."""
    if "\\" in pattern:
        raise ValueError(f"pattern {pattern!r}: use forward slashes in glob patterns")
    normal = pattern.strip()
    while normal.startswith("./"):
        normal = normal[2:]
    normal = re.sub("/+", "/", normal).rstrip("/")
    if not normal:
        raise ValueError(f"pattern {pattern!r} is empty")
    if normal.startswith("/") or ".." in normal.split("/"):
        raise ValueError(
            f"pattern {pattern!r}: patterns match paths relative to the loader's `path`, "
            "so they cannot be absolute or contain '..'"
        )
    return normal


def compile_glob(pattern: str) -> re.Pattern[str]:
    """A regex that ``fullmatch``-es the relative POSIX paths ``pattern`` matches.

    ``*`` matches any run of characters but ``/``, ``?`` one such character,
    ``[seq]``/``[!seq]`` a character class, and a segment that is exactly
    ``**`` zero or more whole segments (``**/*.md`` matches ``a.md``;
    ``docs/**`` matches ``docs`` and everything under it). Like
    ``PurePosixPath.full_match`` on Python 3.13, but the same on every version.
    """
    segments = check_pattern(pattern).split("/")
    regex = ""
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if segment == "**":
            if last:
                regex = regex[:-1] + "(?:/.*)?" if regex else ".*"
            else:
                regex += "(?:[^/]+/)*"
        else:
            regex += _segment_regex(segment) + ("" if last else "/")
    try:
        return re.compile(regex, re.DOTALL)
    except re.error as exc:  # a character range backwards: "[z-a]"
        raise ValueError(
            f"pattern {pattern!r} is not a valid glob: {exc.msg} "
            "(a range in [...] goes from the lower character to the higher, as in [a-z])"
        ) from None


def _segment_regex(segment: str) -> str:
    out: list[str] = []
    i, n = 0, len(segment)
    while i < n:
        ch = segment[i]
        i += 1
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            j = i + 1 if i < n and segment[i] in "!^" else i
            j = j + 1 if j < n and segment[j] == "]" else j
            while j < n and segment[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(ch))
                continue
            body, i = segment[i:j], j + 1
            negate = body[:1] in ("!", "^")
            body = "".join("-" if c == "-" else re.escape(c) for c in body[negate:])
            out.append(f"[^/{body}]" if negate else f"[{body}]")
        else:
            out.append(re.escape(ch))
    return "".join(out)
