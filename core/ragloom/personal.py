"""Personal data in document texts: email addresses and phone numbers, found
so that ``indexing.personal_data: redact`` can hide them before chunking.

    from ragloom.personal import find_personal_data
    from ragloom.secrets import redact

    found = find_personal_data(text)    # [Secret(kind='email', ..), Secret(kind='phone', ..)]
    clean = redact(text, found)         # "[REDACTED: email]", "[REDACTED: phone]"

The spans are :class:`ragloom.secrets.Secret` objects (a kind, where it
starts and ends, its line), so :func:`ragloom.secrets.redact` redacts them.

What is found:

- an email address (``jane.doe@example.com``), but not a role address, which
  names a desk and no person (``support@``, ``info@``, ``noreply@``...: see
  :data:`ROLE_ADDRESSES`; a desk under any other name, ``berthing@``, cannot
  be told from a person and is redacted), nor an image at a resolution
  (``logo@2x.png``), a package at a version (``react@18.2.0``), a host
  without a domain (``user@localhost``) or a URL's user and password
  (``postgres://app:S3cret@db.example.com``: the secrets screening's);
- a phone number written in the international form, ``+`` and the country
  code, ten to fifteen digits (eleven when nothing separates them:
  ``+1 (415) 555-0134``, ``+44 20 7946 0958``, ``+14155550134``);
- a North American number with its area code, punctuated as such numbers are
  (``(415) 555-0134``, ``415-555-0134``, ``415.555.0134``), whose area code
  and exchange begin with 2 to 9, and not right after an order's, a SKU's, a
  part's, a model's, an invoice's, a ticket's or a serial number's word (in
  the singular: ``SKU 415-555-0134``, ``Order #415-555-0134``; "Orders:
  212-555-0147" is a phone line), nor inside a code
  (``TT-415-555-0134``);
- any other national form after a word that says it is a phone number
  (``Phone: 030 1234567``, ``Tel. 01 23 45 67 89``, ``call me on 07700
  900123``, ``| Mobile | 070-123 45 67 |``; English, German, French, Spanish,
  Italian, Nordic and Finnish words).

A phone number is one whoever answers it: a company's own support line
is redacted as a customer's is (nothing in the number tells them apart).

What is not: names, postal addresses, birth dates, account or order numbers,
and anything else that needs a reader of the text (a named-entity model) to
tell; a phone number in a national form with no word before it that says so
(``030 1234567`` alone, or ``415 555 0134`` with spaces only); versions,
dates, prices, order and part numbers, IP addresses, ISBNs and figures in
tables, which are left alone on purpose (none has the shapes above: an
international number has ten or more digits, so ``+12 345 678`` is a figure).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .secrets import Secret, merge_spans

__all__ = ["ROLE_ADDRESSES", "find_personal_data"]

ROLE_ADDRESSES = frozenset(
    {
        "abuse", "accounts", "admin", "billing", "booking", "bookings", "careers", "contact",
        "customerservice", "enquiries", "enquiry", "events", "feedback", "git", "hello",
        "help", "helpdesk", "hr", "info", "inquiries", "jobs", "mailer-daemon", "marketing",
        "no-reply", "noreply", "do-not-reply", "donotreply", "office", "orders", "postmaster",
        "press", "privacy", "reception", "reservations", "returns", "sales", "security",
        "service", "support", "team", "webmaster",
    }
)  # fmt: skip
"""Email addresses whose local part is one of these name a desk, not a
person (``support@tallowandtin.example``): a support KB quotes them, and
they are kept."""

_LOCAL_PART = re.compile(r"[A-Za-z0-9._%+-]{0,63}[A-Za-z0-9]")
"""An email address's part before the ``@``, read backwards from it: each
``@`` is where a search starts, not every letter of the text."""
_DOMAIN = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+([A-Za-z]{2,24})(?![\w-])")
_FILE_ENDINGS = frozenset(
    {"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "pdf", "css", "js", "html", "htm"}
)
"""What ends an image's or a file's name rather than a domain (``icon@2x.png``)."""

_INTERNATIONAL = re.compile(
    r"\+[1-9]\d{0,2}(?:[ .-]?(?:\(\d{1,4}\)|\d{1,6})){1,6}(?!\w|[.,]\d|[ .-]\d)"
)
_NORTH_AMERICAN = re.compile(
    r"(?:1[ .-])?(?:\(\d{3}\) ?\d{3}[ .-]|\d{3}([.-])\d{3}\1)\d{4}(?![\w-]|[.,]\d|[ .-]\d)"
)
_CODE_LABEL = re.compile(
    r"(?i:\b(?:order|sku|part|item|ref|reference|invoice|ticket|model|serial|product|article"
    r"|catalog|catalogue|tracking|confirmation|batch|lot)\b\.?"
    r"(?:[ \t]*(?:[:#=]|no\b\.?|nr\b\.?|number|num\b|id\b|code\b))*[ \t]*)\Z"
)
"""What says that the number right after it is a code, not a phone number:
an order, SKU, part, model, invoice, ticket or serial number's word, in the
singular (``SKU 415-555-0134``, ``Part number 555-123-4567``, ``Order
#123-456-7890``); not a plural that names who answers the line ("Orders:
212-555-0147"), nor a bare ``#`` ("Emergency contact # 212-555-0147")."""
_CUE = re.compile(
    r"\b(?:phone|telephone|tel|mobile|mob|cell|cellphone|fax|call|sms|whatsapp"
    r"|telefon|telefonnummer|handy|mobil|mobiltelefon|t[ée]l[ée]phone|t[ée]l|portable"
    r"|tel[ée]fono|m[óo]vil|cellulare|telefono|tlf|puhelin|matkapuhelin)\b\.?"
    # a few words between: "Phone number:", "call us at", "Tel. no."
    r"(?:[ \t]*(?:[:|=#]|us|me|him|her|them|at|on|to|is|no\.?|nr\.?|number|num|our|my|your"
    r"|the|a))*[ \t]*"
)
"""A word that says a phone number follows, and the few words that may
stand between them, in small letters: matched against the text in small
letters (three times as fast as ignoring case), or with
:data:`_CUE_ANY_CASE` where lowering changes the text's length."""
_CUE_ANY_CASE = re.compile(_CUE.pattern, re.IGNORECASE)
_NUMBER = re.compile(r"\+?\(?\d[\d ()./-]{4,22}\d(?![\w-]|[.,]\d)")
_DATE = re.compile(
    r"(?<!\d)(?:\d{4}[./-](\d{1,2})[./-](\d{1,2})|(\d{1,2})[./-](\d{1,2})[./-]\d{2,4})(?!\d)"
)
"""A date: year, month and day, or day and month (either way) and year."""
_NOT_A_PHONE = re.compile(
    r"\+?\d+[.,]\d+"  # a decimal (+1.4142135623731)
    r"|\d{1,3}(?:\.\d{1,3}){3}"  # an IP address
    r"|[1-9]\d?(?:[ .]\d{3})+"  # a figure grouped in thousands (1 234 567)
)
"""What a number in a phone's shape may be instead: no phone number holds
a date, nor is a decimal or an IP address, nor begins with a group of one
or two digits other than a trunk ``0`` followed by groups of three."""


def find_personal_data(text: str) -> list[Secret]:
    """The email addresses and phone numbers in ``text``, in order, without
    overlaps, each as a span of kind ``"email"`` or ``"phone"`` (see the
    module's docstring for what counts)."""
    spans = list(_emails(text))
    for match in _INTERNATIONAL.finditer(text):
        number = match.group()
        if _alone(text, match.start(), "+") and _phone(number, 10) and not _other_number(number):
            spans.append((match.start(), match.end(), "phone"))
    for match in _NORTH_AMERICAN.finditer(text):
        if (
            _alone(text, match.start(), ".+-/#")
            and _north_american(match.group())
            and _CODE_LABEL.search(text, max(0, match.start() - 40), match.start()) is None
        ):
            spans.append((match.start(), match.end(), "phone"))
    lowered = text.lower()
    same = len(lowered) == len(text)
    for cue in _CUE.finditer(lowered) if same else _CUE_ANY_CASE.finditer(text):
        number = _NUMBER.match(text, cue.end())
        if number is None:
            continue
        start, found = number.start(), number.group().rstrip(" (./-")
        if found.startswith("(") and ")" not in found:  # "Phone (0117 496 0310)"
            start, found = start + 1, found[1:]
        if _phone(found, 7) and not _other_number(found):
            spans.append((start, start + len(found), "phone"))
    return merge_spans(text, spans)


def _emails(text: str) -> Iterator[tuple[int, int, str]]:
    """The email addresses in ``text`` that are not a role's (see
    :func:`find_personal_data`): (start, end, ``"email"``)."""
    at = text.find("@")
    while at >= 0:
        local = _LOCAL_PART.match(text[max(0, at - 64) : at][::-1])
        domain = _DOMAIN.match(text, at + 1)
        if local is not None and domain is not None:
            start = at - local.end()
            # not a URL's user (https://user@host, redis://:S3cret@host)
            url = text[start - 1 : start] in (":", "/") and text[:start][-7:] != "mailto:"
            name = text[start:at].lower()
            ending = domain.group(1).lower()
            if not url and name not in ROLE_ADDRESSES and ending not in _FILE_ENDINGS:
                yield start, domain.end(), "email"
        at = text.find("@", at + 1)


def _alone(text: str, start: int, glued: str) -> bool:
    """Nothing that continues it stands right before ``start``: a letter, a
    digit, ``_``, or one of ``glued``."""
    if start == 0:
        return True
    before = text[start - 1]
    return not (before.isalnum() or before == "_" or before in glued)


def _north_american(number: str) -> bool:
    """``number`` (in :data:`_NORTH_AMERICAN`'s shape) has a North American
    area code and exchange: each begins with 2 to 9 (``100-200-3000`` and
    ``123-456-7890`` are codes)."""
    digits = [c for c in number if c.isdigit()]
    if len(digits) == 11:  # 1 415 555 0134
        digits = digits[1:]
    return digits[0] not in "01" and digits[3] not in "01"


def _phone(number: str, fewest: int) -> bool:
    """``number`` holds as many digits as a phone number: ``fewest`` to 15
    (E.164's longest); eleven or more when nothing separates them (a signed
    ``+2147483647`` in a table of figures is none)."""
    digits = sum(c.isdigit() for c in number)
    if not fewest <= digits <= 15:
        return False
    return digits >= 11 or not number.lstrip("+").isdigit()


def _other_number(number: str) -> bool:
    """``number`` is a date, a decimal, an IP address or a figure grouped in
    thousands, not a phone number (see :data:`_NOT_A_PHONE`)."""
    for date in _DATE.finditer(number):
        month, day = sorted(int(part) for part in date.groups() if part)
        if 1 <= month <= 12 and 1 <= day <= 31:
            return True
    return _NOT_A_PHONE.fullmatch(number) is not None
