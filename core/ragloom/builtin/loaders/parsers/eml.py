"""E-mail (``.eml``, RFC 5322, as mail clients save a message): the message
as a mail client shows it.

Parsed with the standard library's :mod:`email` package. The text is the
subject as a ``#`` heading, the ``From``, ``To``, ``Cc`` and ``Date``
lines, the body, and the names of the attachments:

- the body is the message's plain-text part, else its HTML part read as
  the ``html`` loader reads a page (hidden elements and scripts left out);
  each part is decoded by the charset it declares (an unknown or wrong
  one read as UTF-8 with the bad bytes replaced, and said in the report);
- attachments are named (``Attachments: invoice.pdf, terms.docx``), not
  read: save them beside the message to index them.

Metadata: ``title`` (the subject), ``from``, ``to``, ``date`` (ISO 8601,
when the ``Date`` header can be read) and ``message_id``. A file with no
body text and no subject is reported and skipped.
"""

from __future__ import annotations

import email.policy
import email.utils
from collections.abc import Callable
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any

from .._files import Parsed
from .html import parse_html

__all__ = ["parse_eml"]

_SHOWN = ("From", "To", "Cc", "Date")
"""The headers a mail client shows above a message, in its order."""


def parse_eml(data: bytes, *, report: Callable[[str], None], **_: Any) -> Parsed | None:
    """The text of a saved e-mail with its metadata; see the module docs."""
    try:
        message = BytesParser(policy=email.policy.default).parsebytes(data)
        assert isinstance(message, EmailMessage)
        subject = _header(message, "Subject")
        lines = [f"{name}: {value}" for name in _SHOWN if (value := _header(message, name))]
        body = _body(message, report)
        attachments = [
            " ".join(name.split())
            for part in message.iter_attachments()
            if (name := part.get_filename() or "")
        ]
    except Exception as exc:  # the email package raises many kinds on broken messages
        detail = str(exc).splitlines()[0] if str(exc).strip() else type(exc).__name__
        report(f"not a readable e-mail message ({detail}); skipped")
        return None
    if not body.strip() and not subject:
        report("e-mail message with no subject and no text; skipped")
        return None
    blocks = [f"# {subject}"] if subject else []
    if lines:
        blocks.append("\n".join(lines))
    if body.strip():
        blocks.append(body.strip())
    if attachments:
        blocks.append(f"Attachments: {', '.join(attachments)}")
    fields: dict[str, Any] = {
        "title": subject or None,
        "from": _header(message, "From") or None,
        "to": _header(message, "To") or None,
        "date": _date(message),
        "message_id": _header(message, "Message-ID") or None,
    }
    return "\n\n".join(blocks) + "\n", {k: v for k, v in fields.items() if v is not None}


def _header(message: EmailMessage, name: str) -> str:
    """A header's value on one line (encoded words decoded), or ``""``."""
    try:
        value = message.get(name)
    except Exception:  # a header the email package cannot decode: read it raw
        value = message.get_all(name, [""])[0] if hasattr(message, "get_all") else ""
    return " ".join(str(value or "").split())


def _date(message: EmailMessage) -> str | None:
    raw = _header(message, "Date")
    if not raw:
        return None
    try:
        return email.utils.parsedate_to_datetime(raw).isoformat()
    except (TypeError, ValueError, IndexError):
        return None


def _body(message: EmailMessage, report: Callable[[str], None]) -> str:
    """The text of the message's plain-text part, else of its HTML part."""
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    text = _decoded(part, report)
    if part.get_content_subtype() == "html":
        parsed = parse_html(text, report=lambda _message: None, max_links=0)
        return parsed[0] if parsed is not None else ""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _decoded(part: EmailMessage, report: Callable[[str], None]) -> str:
    """A text part's content, decoded by its declared charset; an unknown or
    wrong charset read as UTF-8, the bad bytes replaced, and said."""
    try:
        return str(part.get_content())
    except (LookupError, UnicodeError):
        charset = part.get_content_charset() or "?"
        report(
            f"its text declares the charset {charset!r}, which does not decode it; read as UTF-8"
        )
        payload = part.get_payload(decode=True)
        return payload.decode("utf-8", errors="replace") if isinstance(payload, bytes) else ""
