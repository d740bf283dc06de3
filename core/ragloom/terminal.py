"""Text made safe to print on a terminal (:func:`sanitize`): for the CLI's
output; and text made safe to hand to any client without garbling it
(:func:`clean`): what answers say and quote, whatever a document holds."""

from __future__ import annotations

import re

__all__ = ["clean", "sanitize", "without_sequences"]

# What a terminal acts on rather than shows: 7-bit escape sequences (CSI
# ``ESC [``, OSC ``ESC ]`` up to BEL or ST, DCS/SOS/PM/APC up to ST, and the
# two-character ones), and single control characters, C1 included (an 8-bit
# CSI or OSC shown as ``\x9b`` starts nothing). A string sequence without its
# terminator ends at the line's end.
_SEQUENCE = re.compile(
    r"\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"  # CSI: colours, cursor moves, erasing
    r"|\x1b[\]PX^_][^\x07\x1b\n]*(?:\x07|\x1b\\)?"  # OSC (titles, links), DCS...: up to BEL/ST
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?"  # the other ESC sequences, or a lone ESC
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\udc80-\udcff]")
"""Shown as escapes: control characters, bidi overrides, and the bytes of a
file name that are not UTF-8 (Python's ``surrogateescape``: ``\\xff``, not the
raw byte)."""
_CONTROL_KEEPING_BIDI = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202d\u202e\udc80-\udcff]")
""":data:`_CONTROL` but the embeddings and isolates of right-to-left text
(U+202A-U+202C, U+2066-U+2069), which only the overrides (U+202D, U+202E)
can turn into a disguise: they alone reverse letters."""


def sanitize(text: str) -> str:
    """``text`` safe to print on a terminal: for file names, document texts,
    answers and messages, whatever their source.

    Escape sequences are removed whole (``ESC [31m``, an OSC 8 hyperlink's
    ``ESC ]8;;URL ESC \\`` around its text, which stays; a window title
    ``ESC ]0;...BEL``; DCS strings), so a document cannot recolour the
    terminal, move the cursor, erase lines, retitle the window or plant
    links. Other control characters (C0 but newline and tab; DEL; C1, the
    8-bit forms of CSI and OSC among them) and the bidi overrides that make
    text read other than it is stored (U+202A-U+202E, U+2066-U+2069) become
    visible escapes (``\\x07``, ``\\x9b``, ``\\u202e``), so a file name stays
    recognisable; so do the bytes of a file name that are not UTF-8
    (``\\xff``). ``\\r\\n`` becomes ``\\n``; other Unicode is kept. Output
    for programs (``--json``) needs none of this: ``json.dumps`` escapes
    control characters itself.
    """
    return _made_safe(text, _CONTROL)


def clean(text: str) -> str:
    """``text`` as :func:`sanitize` makes it, but with the bidi embeddings
    and isolates kept (U+202A-U+202C, U+2066-U+2069): for what answers say
    and quote, which go to clients as JSON (a chat window, an MCP client) as
    well as to terminals. Hebrew and Arabic text from word processors and web
    pages holds them, and shown as ``\\u202b`` they garble it; the overrides
    that reverse letters (``invoice\\u202efdp.exe``) are still shown as
    escapes. The CLI sanitizes what it prints again. ``sanitize(clean(t))``
    is ``sanitize(t)``."""
    return _made_safe(text, _CONTROL_KEEPING_BIDI)


def without_sequences(text: str) -> str:
    """``text`` with its escape sequences removed whole, parameters and all
    (``ESC [31m`` leaves no ``31m``), and nothing else changed: for what is
    made of a text's words (a heading's anchor)."""
    return _SEQUENCE.sub("", text) if "\x1b" in text else text


def _made_safe(text: str, control: re.Pattern[str]) -> str:
    """``text`` without escape sequences, ``\\r\\n`` as ``\\n``, and what
    ``control`` matches shown as escapes."""
    if text.isascii() and text.isprintable():
        return text
    text = _SEQUENCE.sub("", text.replace("\r\n", "\n"))
    return control.sub(_visible, text)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, as surrogateescape holds it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
