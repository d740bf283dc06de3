"""E-mail (``.eml``, RFC 5322, as mail clients save a message): the message
as a mail client shows it.

Parsed with the standard library's :mod:`email` package (its ``compat32``
policy, which leaves headers as written: its modern header parser takes
time and memory that grow with the square of a header's length, and a
1 MB subject took 24 GB). The text is the subject as a ``#`` heading, the
``From``, ``To``, ``Cc`` and ``Date`` lines, the body, the messages it
forwards, and the names of its attachments:

- the body is the message's text parts that are not attachments (a part
  with a file name never is, whatever its disposition says), in order: of
  each set of alternatives the plain text, else the HTML, read as the
  ``html`` loader reads a page (hidden elements and scripts left out);
- each part is decoded by the charset it declares; a part without one is
  decoded as a text file is (UTF-8, else a guess, which the run reports),
  and one whose declared charset does not decode it is guessed likewise
  and reported;
- a forwarded message (``message/rfc822``: "forward as attachment", the
  original a bounce returns) follows as a ``##`` section of its own, its
  headers and body read the same way (up to :data:`MAX_DEPTH` deep);
- a calendar invitation's event (``text/calendar``) as its summary, time,
  place and description;
- attachments are named (``Attachments: invoice.pdf, terms.docx``), not
  read: save them beside the message to index them.

A header is read up to :data:`MAX_HEADER` characters (the rest is left out,
and said). Metadata: ``title`` (the subject), ``from``, ``to``, ``date`` (ISO
8601, when the ``Date`` header can be read) and ``message_id``. A file that
does not start with header lines, a binary one, and one with no subject and
no text are reported and skipped; a message the parser found damaged (cut
short) is read and reported.
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import email.utils
import re
from collections.abc import Callable, Iterator
from email.errors import HeaderParseError
from email.header import decode_header, make_header
from email.message import Message
from typing import Any

from ....terminal import clean
from .._files import BINARY_SNIFF_BYTES, Parsed, decode_text
from .html import parse_html

__all__ = ["MAX_DEPTH", "MAX_HEADER", "parse_eml"]

MAX_HEADER = 4096
"""The most characters of one header that are read."""

MAX_DEPTH = 5
"""How deep forwarded messages inside forwarded messages are read."""

_NAMED = 50
"""The most attachments named."""

_RAW_BYTES = re.compile("[\udc80-\udcff]")
"""A byte that was not ASCII in a header, as the parser keeps it."""

_SHOWN = ("From", "To", "Cc", "Date")
"""The headers a mail client shows above a message, in its order."""

_HEADER_LINE = re.compile(rb"^(?:From |[!-9;-~]+:)")
"""A message's first line: a header field (``Subject: ...``) or an mbox
``From `` line."""


def parse_eml(data: bytes, *, report: Callable[[str], None], **_: Any) -> Parsed | None:
    """The text of a saved e-mail with its metadata; see the module docs."""
    head = data[:BINARY_SNIFF_BYTES]
    if b"\x00" in head:
        report("binary file (NUL byte in the first 8 KB), not an e-mail message; skipped")
        return None
    if not _HEADER_LINE.match(data.lstrip(b"\r\n")):
        report("not an e-mail message (it does not start with header lines); skipped")
        return None
    message = email.message_from_bytes(data, policy=email.policy.compat32)
    reader = _Reader(report)
    blocks = reader.message(message, level=1)
    subject = reader.header(message, "Subject")
    if not reader.content and not subject:
        report("e-mail message with no subject and no text; skipped")
        return None
    if reader.cut:
        report(f"header(s) longer than {MAX_HEADER:,} characters read in part")
    if any("Boundary" in type(d).__name__ for part in message.walk() for d in part.defects):
        report(
            "the message is damaged or cut short (a MIME part never ends); read as far as it goes"
        )
    fields: dict[str, Any] = {
        "title": subject or None,
        "from": reader.header(message, "From") or None,
        "to": reader.header(message, "To") or None,
        "date": _date(reader.header(message, "Date")),
        "message_id": reader.header(message, "Message-ID") or None,
    }
    text = "\n\n".join(block for block in blocks if block.strip()) + "\n"
    return text, {k: v for k, v in fields.items() if v is not None}


class _Reader:
    def __init__(self, report: Callable[[str], None]) -> None:
        self.report = report
        self.cut = False
        self.content = False  # a body, an event, a forwarded message or an attachment
        self.reported_charsets: set[str] = set()

    def header(self, message: Message, name: str) -> str:
        """A header's value on one line, its encoded words decoded and escape
        sequences dropped, up to :data:`MAX_HEADER` characters."""
        lowered = name.lower()
        # as stored: get() would make 8-bit bytes in a header U+FFFD
        raw = next((v for k, v in message.raw_items() if k.lower() == lowered), None)
        if raw is None:
            return ""
        value = str(raw)
        if len(value) > MAX_HEADER:
            value, self.cut = value[:MAX_HEADER], True
        if _RAW_BYTES.search(value):  # 8-bit bytes where only ASCII belongs: decode them
            data = value.encode("ascii", "surrogateescape")
            # UTF-8, a guess, or (too short to guess) Windows-1252, as mail clients read it
            value = decode_text(data, "auto", report=lambda _m: None) or data.decode(
                "cp1252", errors="replace"
            )
        with contextlib.suppress(LookupError, UnicodeError, ValueError, HeaderParseError):
            value = str(make_header(decode_header(value)))  # else as written
        return " ".join(clean(value).split())

    def message(self, message: Message, level: int, depth: int = 0) -> list[str]:
        """A message's blocks: its subject as a heading of ``level``, its
        header lines, its body, what it forwards, its attachments' names."""
        subject = self.header(message, "Subject")
        blocks = [f"{'#' * level} {subject}" if subject else ""]
        lines = [f"{name}: {value}" for name in _SHOWN if (value := self.header(message, name))]
        if lines:
            blocks.append("\n".join(lines))
        attachments: list[str] = []
        forwarded: list[Message] = []
        for kind, part in self._parts(message):
            if kind == "text":
                blocks.append(self._text(part))
            elif kind == "calendar":
                blocks.append(self._calendar(part))
            elif kind == "forwarded":
                forwarded.append(part)
            else:
                attachments.append(kind)
            self.content = self.content or bool(kind != "text" or blocks[-1].strip())
        for inner in forwarded:
            payload = inner.get_payload()
            original = payload[0] if isinstance(payload, list) and payload else None
            if isinstance(original, Message) and depth < MAX_DEPTH:
                inner_blocks = self.message(original, min(level + 1, 6), depth + 1)
                if not inner_blocks[0]:
                    inner_blocks[0] = f"{'#' * min(level + 1, 6)} Forwarded message"
                blocks.extend(inner_blocks)
        if attachments:
            more = len(attachments) - _NAMED
            named = ", ".join(attachments[:_NAMED]) + (f" and {more:,} more" if more > 0 else "")
            blocks.append(f"Attachments: {named}")
        return blocks

    def _parts(self, part: Message, depth: int = 0) -> Iterator[tuple[str, Message]]:
        """A message's parts in order, as ``text`` (the body), ``calendar``,
        ``forwarded`` or an attachment's name; of alternatives, the plain
        text, else the HTML, else the first."""
        kind = part.get_content_type()
        name = _filename(part)
        if depth > 50:
            return
        if kind == "message/rfc822" and depth > 0:
            yield "forwarded", part
        elif kind == "message/delivery-status":  # a bounce's machine-readable report
            return
        elif part.is_multipart():
            children = [p for p in part.get_payload() if isinstance(p, Message)]
            if kind == "multipart/alternative" and children:
                chosen = next(
                    (c for want in ("text/plain", "text/html") for c in children
                     if c.get_content_type() == want and not _filename(c)),
                    None,
                )  # fmt: skip
                if chosen is None:
                    chosen = next((c for c in children if c.is_multipart()), children[0])
                yield from self._parts(chosen, depth + 1)
                for child in children:  # an invitation beside its text
                    if child.get_content_type() == "text/calendar" and child is not chosen:
                        yield "calendar", child
                return
            for child in children:
                yield from self._parts(child, depth + 1)
        elif name:
            yield " ".join(clean(name).split()), part
        elif kind in ("text/plain", "text/html") and part.get_content_disposition() != "attachment":
            yield "text", part
        elif kind == "text/calendar":
            yield "calendar", part

    def _text(self, part: Message) -> str:
        text = self._decoded(part)
        if part.get_content_type() == "text/html":
            parsed = parse_html(text, report=lambda _message: None, max_links=0, heading_ids=False)
            return parsed[0].strip() if parsed is not None else ""
        return clean(text.replace("\r\n", "\n").replace("\r", "\n")).strip()

    def _decoded(self, part: Message) -> str:
        """A text part's content, decoded by its declared charset; without
        one, or when it does not decode the bytes, decoded as a text file is
        (UTF-8, else a guess), and said."""
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            return str(payload or "")
        charset = part.get_content_charset()
        if charset:
            try:
                return payload.decode(charset)
            except (LookupError, UnicodeDecodeError):
                if charset not in self.reported_charsets:
                    self.reported_charsets.add(charset)
                    self.report(
                        f"its text declares the charset {charset!r}, which does not decode "
                        "it; its encoding was guessed"
                    )
        decoded = decode_text(payload, "auto", report=self.report)
        return decoded if decoded is not None else payload.decode("utf-8", errors="replace")

    def _calendar(self, part: Message) -> str:
        """An invitation's events: summary, start, end, place, description."""
        text = self._decoded(part)
        unfolded = re.sub(r"\r?\n[ \t]", "", text)
        lines: list[str] = []
        for line in unfolded.splitlines():
            name, _, value = line.partition(":")
            field = name.split(";", 1)[0].upper()
            label = _EVENT_FIELDS.get(field)
            if label and value.strip():
                value = value.replace("\\n", " ").replace("\\,", ",").replace("\\;", ";")
                value = _ICAL_TIME.sub(_iso_time, value.strip())
                lines.append(f"{label}: {' '.join(clean(value).split())}")
            elif field == "BEGIN" and value.strip().upper() == "VEVENT" and lines:
                lines.append("")
        return "\n".join(lines).strip()


_ICAL_TIME = re.compile(r"^(\d{4})(\d\d)(\d\d)(?:T(\d\d)(\d\d)(\d\d)?(Z)?)?$")


def _iso_time(match: re.Match[str]) -> str:
    """``20250321T090000Z`` as ``2025-03-21 09:00 UTC``."""
    year, month, day, hour, minute, _second, utc = match.groups()
    when = f"{year}-{month}-{day}"
    if hour is not None:
        when += f" {hour}:{minute}" + (" UTC" if utc else "")
    return when


_EVENT_FIELDS = {
    "SUMMARY": "Event",
    "DTSTART": "Starts",
    "DTEND": "Ends",
    "LOCATION": "Location",
    "DESCRIPTION": "Description",
}


def _filename(part: Message) -> str:
    try:
        name = part.get_filename()
    except (LookupError, UnicodeError, ValueError):
        return "attachment"
    if name:
        try:
            return str(make_header(decode_header(name)))
        except (LookupError, UnicodeError, ValueError, HeaderParseError):
            return name
    return ""


def _date(raw: str) -> str | None:
    if not raw:
        return None
    try:
        return email.utils.parsedate_to_datetime(raw).isoformat()
    except (TypeError, ValueError, IndexError):
        return None
