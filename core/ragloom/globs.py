"""Glob patterns over relative POSIX paths, the same on every Python version."""

from __future__ import annotations

import re

__all__ = ["PatternUse", "check_pattern", "compile_glob"]


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


class PatternUse:
    """Which of ``patterns`` matched a path among those shown to :meth:`see`,
    and, for each that matched none, what its ``**/`` version would have
    matched: ``*.html`` matches only at the top, and a user who meant
    ``**/*.html`` is better told than left guessing.

    One combined regex is tried per path; the patterns one by one only when
    it matches, so a walk pays next to nothing for the bookkeeping.
    """

    def __init__(self, patterns: list[str]) -> None:
        self._unused = {p: compile_glob(p) for p in patterns}
        self._wider = {p: compile_glob(f"**/{p}") for p in self._unused if not p.startswith("**/")}
        self._any = _union(list(self._unused.values()))
        self._any_wider = _union(list(self._wider.values()))
        self._counts = {p: [0, 0] for p in self._wider}  # files, folders the wider one matched
        self._example: dict[str, str] = {}

    def see(self, path: str, *, folder: bool = False) -> None:
        """Count ``path`` (relative, with forward slashes) against the patterns."""
        if self._unused and self._any is not None and self._any.fullmatch(path):
            for pattern, regex in list(self._unused.items()):
                if regex.fullmatch(path):
                    del self._unused[pattern]
        if self._any_wider is not None and self._any_wider.fullmatch(path):
            for pattern, regex in self._wider.items():
                if pattern in self._unused and regex.fullmatch(path):
                    self._counts[pattern][folder] += 1
                    self._example.setdefault(pattern, path)

    def unused(
        self, kind: str, *, only_misplaced: bool = False, literals: bool = False
    ) -> list[str]:
        """One line for each pattern that matched nothing, ``kind`` (``include``,
        ``exclude``) naming the list it came from. With ``only_misplaced``, only
        for those whose ``**/`` version would have matched: an include's
        ``*.tsv`` or ``**/*.epub`` in a folder with none is no mistake, nor is
        a defensive exclude (``**/node_modules/**``); with ``literals`` too,
        for a pattern without wildcards, a path that is not there (a typo)."""
        lines = []
        for pattern in self._unused:
            files, folders = self._counts.get(pattern, (0, 0))
            literal = literals and not any(ch in pattern for ch in "*?[")
            if only_misplaced and not (files or folders or literal):
                continue
            what = " and ".join(
                f"{n} {noun}{'s' if n > 1 else ''}"
                for n, noun in ((folders, "folder"), (files, "file"))
                if n
            )
            lines.append(
                f"{kind} pattern {pattern!r} matched nothing; "
                + (
                    f"'**/{pattern}' would match {what} "
                    f"({'' if files + folders == 1 else 'such as '}{self._example[pattern]}): "
                    "patterns match paths from the top of `path`, so start one with '**/' "
                    "to match at any depth"
                    if what
                    else "patterns match paths relative to `path`; fix it or remove it"
                )
            )
        return lines


def _union(regexes: list[re.Pattern[str]]) -> re.Pattern[str] | None:
    if not regexes:
        return None
    return re.compile("|".join(f"(?:{r.pattern})" for r in regexes), re.DOTALL)
