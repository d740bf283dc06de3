"""Credentials in document texts: find them, and redact them.

    from ragloom.secrets import find_secrets, redact

    found = find_secrets(text)          # [Secret(kind='AWS Access Key', start=.., end=.., line=3)]
    clean = redact(text, found)         # each secret -> "[REDACTED: AWS Access Key]"

The detectors are the regex-based plugins of Yelp's ``detect-secrets``
(AWS, GitHub, GitLab, Slack, Stripe, OpenAI, PyPI, npm, SendGrid, Azure
storage, Mailchimp, Square, passwords in URLs), plus a few patterns it lacks:
whole PEM and PuTTY private-key blocks (from ``BEGIN`` to ``END``, not only
the header line), ``aws_secret_access_key = ...`` without quotes, GitHub
fine-grained tokens, Google and Anthropic API keys, npm ``npm_`` tokens,
JSON Web Tokens with their signature, ``sk-`` keys without OpenAI's old
marker (its project keys, and the services that copied the shape), Stripe
test keys, passwords in URLs with characters detect-secrets' pattern leaves
out (``!``), a value that looks drawn at random given to a name that says
it is a credential (``STORAGE_API_KEY=9f8e...``, ``"client_secret": "..."``,
``API key: 9f8e...``) or to a key's name as an HTTP header or an environment
gives it (``X-API-Key:``, ``X-Desk-Key:``, ``DESK_KEY=``), an HTTP
``Authorization`` header's credentials, Hugging Face tokens, and a password
given to its name or in words (``password: Tr0ub4dor&3``, ``the password is
Kelp4ever!``, ``Lösenordet till gästnätet är Sommar2026!``: English, German,
Spanish, French, Swedish, Norwegian, Danish and Finnish names), also on the
line after its name. Zero-width
characters inside a key and fullwidth letters do not hide it.
A match runs to the end of its token: a key longer than its pattern (most
Stripe and GitHub keys) is found, and redacted, whole.

Left out on purpose, because they flag ordinary prose and code: the two
high-entropy plugins, ``KeywordDetector`` (``password: see below``; the
keyword detector here asks for a value of 16 or more characters mixing
letters and digits), the public-IP detector, and the prefix-free Twilio,
Artifactory, IBM, Cloudant, SoftLayer, Discord and Telegram patterns.

Why the plugins' patterns rather than ``detect_secrets.core.scan.scan_line``:
``scan_line`` returns secret values without offsets, runs inside
``transient_settings`` (which rewrites detect-secrets' process-wide settings,
so two threads scanning at once would trip over each other) and clears its
filter caches on every line. Matching the same patterns directly gives exact
character offsets, needs no global state, and costs little: each detector's
anchors (patterns with fixed starts such as ``AKIA``, ``ghp_``, ``://``) pick
the few lines worth a full scan, and an Aho-Corasick automaton of those fixed
starts (ahocorasick-rs) picks, in one pass over a document, the anchors worth
searching it for. A document without a candidate costs that one pass and
nothing else: SciFact's 5,183 abstracts (7.8 MB, a few hundred of which name
a token or a secret in prose) take 0.3 s, against 1.9 s with the 163
anchors searched one after another. One combined regex of all anchors was
slower still: ``re`` tries every alternative at every position.

``detect_secrets`` is imported on the first call, not with ``ragloom``.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = ["Secret", "find_secrets", "redact"]


@dataclass(frozen=True)
class Secret:
    """One credential found in a text.

    :param kind: what it is, e.g. ``"AWS Access Key"`` or ``"Private Key"``
        (detect-secrets' ``secret_type`` names where it has the detector).
    :param start: offset of its first character in the text.
    :param end: offset just after its last character (``text[start:end]`` is the secret).
    :param line: the 1-based line ``start`` lies on.
    """

    kind: str
    start: int
    end: int
    line: int


def find_secrets(text: str) -> list[Secret]:
    """The credentials in ``text``, in order, without overlaps.

    Each span covers the secret itself and nothing around it (for a password
    in a URL, the password; for a private key, the whole block from
    ``-----BEGIN`` to ``-----END ...-----``), so :func:`redact` keeps the rest
    of the text. Overlapping findings are merged into one span, named by the
    one that starts first.
    """
    if _DISGUISED.search(text) is None:
        return merge_spans(text, _spans(text))
    # zero-width characters inside a key (pasted from a wiki), fullwidth
    # letters (ＡＫＩＡ...): scanned as read, each span mapped back
    seen, where = _as_read(text)
    return merge_spans(text, [(where[s], where[e - 1] + 1, kind) for s, e, kind in _spans(seen)])


def _spans(text: str) -> list[tuple[int, int, str]]:
    """Every detector's findings in ``text``, and in its table rows a
    credential's name and its value in the next cell: (start, end, kind),
    unmerged."""
    spans = _found(text)
    if "|" in text:
        spans.extend(_table_spans(text))
    return spans


_TABLE_ROW = re.compile(r"^[ \t]*\|[^\n]*\|[ \t]*$", re.MULTILINE)
_CELL = re.compile(r"(?<=\|)([^|\n]*)(?=\|)")
_CREDENTIAL_NAME = re.compile(
    r"(?i)(?:[a-z0-9]+[ _-]){0,3}(?:"  # the service's or environment's name first (LARKSPUR_)
    r"(?:aws[ _-]?)?(?:secret[ _-]?access[ _-]?key|access[ _-]?key(?:[ _-]?id)?)"
    r"|(?:api|access|auth|bearer|refresh|session|personal[ _-]access)?[ _-]?(?:key|token)"
    r"|api[ _-]?secret|client[ _-]?secret|secret(?:[ _-]?key)?|(?:shared[ _-])?secret"
    r"|passw(?:or)?d|pwd|passphrase|passcode|private[ _-]?key|signing[ _-]?key"
    r"|authorization|credentials?)"
)
"""A table cell that is nothing but a credential's name (``Password``,
``aws_secret_access_key``, ``API token``, ``LARKSPUR_API_KEY``): the next
cell is its value."""


def _table_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """A credential's value in the cell after its name's, in a Markdown table
    row (a credentials spreadsheet): read as ``name: value`` would be. Only
    whole cells count (a shell pipe is no table)."""
    for row in _TABLE_ROW.finditer(text):
        cells = list(_CELL.finditer(text, row.start(), row.end()))
        for name, value in itertools.pairwise(cells):
            label = name.group(1).strip().replace("\\", "")
            content = value.group(1).strip()
            if not content or not _CREDENTIAL_NAME.fullmatch(label):
                continue
            if " " in content and label.lower() != "authorization":  # "Bearer <token>" only
                continue
            line = f"{label}: {content}"
            at = value.start(1) + value.group(1).index(content) - (len(label) + 2)
            for start, end, kind in _found(line):
                if start >= len(label) + 2:
                    yield start + at, end + at, kind


def _found(text: str) -> list[tuple[int, int, str]]:
    """Every detector's findings in ``text``: (start, end, kind), unmerged."""
    spans: list[tuple[int, int, str]] = []
    if "PRIVATE KEY" in text or "PuTTY-User-Key-File" in text:
        spans.extend(_key_blocks(text))
    detectors = _detectors()
    for number, searched in _candidates(text):
        detector = detectors[number]
        lines: dict[int, int] = {}  # where each candidate line begins -> where it ends
        for anchor in searched:
            pos = 0
            while (hit := anchor.search(text, pos)) is not None:
                begin = text.rfind("\n", 0, hit.start()) + 1
                end = text.find("\n", hit.end())
                end = len(text) if end < 0 else end
                if end < len(text) and _NAME_ALONE.match(text, hit.end(), end):
                    # "password:" alone on its line: the value is on the next
                    following = text.find("\n", end + 1)
                    end = len(text) if following < 0 else following
                lines[begin] = max(end, lines.get(begin, end))
                pos = end + 1
        for begin, end in lines.items():
            line = text[begin:end]
            for s, e in detector.spans(line):
                if detector.whole_token:  # a longer key than the pattern's length: all of it
                    e = _TOKEN_TAIL.match(line, e).end()  # type: ignore[union-attr]
                spans.append((begin + s, begin + e, detector.kind))
    return spans


_NAME_ALONE = re.compile(r"""[A-Za-z0-9_ -]{0,40}["'`]?[ \t]*[:=][ \t]*\r?$""")
"""What follows a credential's name to its line's end when the value is on
the next line: the rest of the name, then a colon (``Secret access key:``)."""

_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
_DISGUISED = re.compile(f"[{_INVISIBLE}\uff01-\uff5e]")
"""Characters that hide a key from the patterns: zero-width ones and the soft
hyphen (invisible inside it), fullwidth forms (``ＡＫＩＡ``, read as ``AKIA``)."""


def _as_read(text: str) -> tuple[str, list[int]]:
    """``text`` without its invisible characters and with fullwidth forms as
    their ASCII letters, and where each of its characters was in ``text``."""
    out: list[str] = []
    where: list[int] = []
    for i, char in enumerate(text):
        code = ord(char)
        if 0xFF01 <= code <= 0xFF5E:
            out.append(chr(code - 0xFEE0))
        elif char in _INVISIBLE:
            continue
        else:
            out.append(char)
        where.append(i)
    return "".join(out), where


def redact(text: str, secrets: Sequence[Secret], *, digest: bool = False) -> str:
    """``text`` with each secret's span replaced by ``[REDACTED: <kind>]``.

    ``secrets`` are spans into this very ``text`` (what :func:`find_secrets`
    returned for it); overlapping spans are redacted once, as one span.
    ``digest``: each mark also holds 8 hex digits of the SHA-256 of what it
    hides (``[REDACTED: AWS Access Key 0660e846]``), for a text that must stay
    told apart from another and the same from run to run (an id).
    """
    out: list[str] = []
    done = 0
    for secret in sorted(secrets, key=lambda s: (s.start, -s.end)):
        if not 0 <= secret.start <= secret.end <= len(text):
            raise ValueError(
                f"secret span {secret.start}:{secret.end} lies outside the text "
                f"({len(text)} characters); pass the spans find_secrets() returned for this text"
            )
        if secret.start < done:  # overlaps the span just redacted: widen that one
            done = max(done, secret.end)
            continue
        out.append(text[done : secret.start])
        hidden = text[secret.start : secret.end].encode("utf-8")
        tag = f" {hashlib.sha256(hidden).hexdigest()[:8]}" if digest else ""
        out.append(f"[REDACTED: {secret.kind}{tag}]")
        done = secret.end
    out.append(text[done:])
    return "".join(out)


# -- detectors -----------------------------------------------------------------


@dataclass(frozen=True)
class _Detector:
    """Patterns for one kind of secret, tried on a line only when one of its
    ``anchors`` occurs in it. Every match of the patterns contains an anchor,
    and each anchor starts with a fixed string, which ``re`` finds about as fast
    as ``str.find``: a document with none of them costs one quick pass per
    anchor and nothing else.

    ``groups``: the pattern's non-empty groups are the secret (as in
    detect-secrets' ``findall``), else the whole match, less ``label`` (a
    fixed text the match starts with, such as ``AccountKey=``). ``valid``, if
    given, must accept the secret too.
    """

    kind: str
    anchors: tuple[re.Pattern[str], ...]
    patterns: tuple[re.Pattern[str], ...]
    groups: bool = False
    label: str = ""
    valid: Callable[[str], bool] | None = None
    whole_token: bool = True
    """A match ends where the token does: a Stripe key is longer than the
    24 characters of its pattern, and redacting a part would show the rest."""

    needs: re.Pattern[str] | None = None
    """What a line must hold for the patterns to match it: found fast, where
    a pattern that starts with a case-insensitive alternation is tried at
    every character of a long line."""

    def spans(self, line: str) -> Iterator[tuple[int, int]]:
        if self.needs is not None and self.needs.search(line) is None:
            return
        for pattern in self.patterns:
            for match in pattern.finditer(line):
                if self.groups and match.re.groups:
                    found = [match.span(i) for i in range(1, match.re.groups + 1)]
                    found = [(s, e) for s, e in found if e > s]
                else:
                    s, e = match.span()
                    found = [(s + len(self.label) if match[0].startswith(self.label) else s, e)]
                for s, e in dict.fromkeys(found):
                    secret = line[s:e]
                    if _plausible(secret) and (self.valid is None or self.valid(secret)):
                        yield s, e


# Each detect-secrets plugin used, by module and class, with its anchors.
# Case-insensitive patterns get the casings people write (aws, AWS, Aws).
_PLUGINS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("aws", "AWSKeyDetector", ("A(?:KIA|SIA|BIA|CCA|3T)", "aws", "AWS", "Aws")),
    ("github_token", "GitHubTokenDetector", ("gh[pousr]_",)),
    (
        "gitlab_token",
        "GitLabTokenDetector",
        ("gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-", "GR1348941"),
    ),
    ("slack", "SlackDetector", ("xox", "XOX", "Xox", r"hooks\.slack\.com")),
    ("stripe", "StripeDetector", ("k_live_",)),
    ("openai", "OpenAIDetector", ("T3BlbkFJ",)),
    ("basic_auth", "BasicAuthDetector", ("://",)),
    ("npm", "NpmDetector", ("_authToken=",)),
    ("pypi_token", "PypiTokenDetector", ("pypi-Ag",)),
    ("sendgrid", "SendGridDetector", (r"SG\.",)),
    ("azure_storage_key", "AzureStorageKeyDetector", ("AccountKey=",)),
    ("mailchimp", "MailchimpDetector", (r"-us\d",)),
    ("square_oauth", "SquareOAuthDetector", ("sq0csp-",)),
)
_BOUNDED = {
    # detect-secrets' key-id pattern has no boundaries, so it matches inside DNA
    # sequences ("...ACCAGTCGATTGCAAGTCCA..."): a key id is a whole word of 20
    "AWSKeyDetector": re.compile(
        r"(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])"
    ),
}
"""Tighter versions of a plugin's first pattern."""
_GROUPS = frozenset({"AWSKeyDetector", "BasicAuthDetector", "NpmDetector"})
"""Plugins whose pattern groups hold the secret (the others' groups only alternate prefixes)."""

_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_-]*")

# the names of credentials in several casings: ``re`` finds a fixed anchor
# fast, and each casing people write is one (case-insensitive ones are slow)
_PASSWORD_WORDS = (
    "password", "passwd", "pwd", "passphrase", "passcode", "passwort", "kennwort", "contraseña",
    "contrasena", "mot de passe", "shared secret", "shared_secret", "shared-secret",
    "client secret", "client_secret", "client-secret",
)  # fmt: skip
"""Names a password is given to, in the words of a few languages: the
``Password`` pattern's prefilter (each also in upper case and capitalised)."""

_NORDIC_PASSWORD_WORDS = ("lösenord", "passord", "adgangskode", "kodeord")
"""Swedish, Norwegian and Danish names of a password (with their endings:
``lösenordet``, ``adgangskoden``); Finnish ``salasana`` has its own verb."""

_PASSWORD_WINDOW = 6
"""How many words may stand between a password's name and the verb before
it (``The VPN password for the shared test account is ...``: five). No
punctuation may stand there, so a sentence's end stops the window."""

_OTHER_THINGS = (
    "file|path|hash|length|len|field|policy|reset|prompt|hint|rule|regex|min|max|env|var"
    "|command|cmd|manager|store|salt"
)
"""What a name followed by one of these words (glued, or after ``_`` or
``-``) names instead of a password: ``password_file``, ``password-policy``."""

_NORDIC_OTHER_THINGS = (
    "polic|hanter|behandl|administrat|längd|lengd|regel|regl|krav|byt|fil|hash|manager"
)
"""The same for the Nordic names, whose compounds are one word with endings
(``lösenordshanteraren``, "the password manager"; ``lösenordspolicyn``;
``passordbehandleren``; ``adgangskodeadministratoren``; ``lösenordsbyte``)."""

_FINNISH_OTHER_THINGS = "hallinta|käytän|pituu|vaatimu|vaihto|manageri"
"""The same for Finnish (``salasanahallinta``, ``salasanakäytäntö``)."""


def _spelled(words: Sequence[str]) -> tuple[str, ...]:
    """``words`` as they are written: as they are, in capitals, capitalised,
    each word capitalised (the anchors of a case-insensitive name)."""
    return tuple(
        spelled
        for word in words
        for spelled in (word, word.upper(), word.capitalize(), word.title())
    )


def _password_pattern(names: str, verbs: str, glued: str = "") -> str:
    """A password given to one of ``names`` (alternatives, matched in any
    case): after a colon or ``=``, after up to :data:`_PASSWORD_WINDOW`
    words and one of ``verbs`` (their language's "is"), or right after the
    name; any characters but spaces and quotes, so long as they hold a
    letter and a digit or a symbol (see _password_value); not the end of a
    sentence. Not when the name is the start of the name of something else:
    :data:`_OTHER_THINGS`, or one of ``glued`` (alternatives) anywhere in the
    rest of its word."""
    glued = rf"""|[\w-]*?(?i:{glued})""" if glued else ""
    return (
        rf"""(?i:{names})"""
        # not the name of something else: a password's file, hash, length...
        rf"""(?![A-Za-z0-9_-]*?(?i:{_OTHER_THINGS})s?\b{glued})"""
        r"""[A-Za-z0-9_-]*["'`]?(?:\s*(?:[:=]|=>)\s*"""
        rf"""|(?:\s+[\w-]{{1,20}}){{0,{_PASSWORD_WINDOW}}}?\s+(?i:{verbs})\s*:?\s+|\s+)["'`]?"""
        r"""([^\s"'<>`{}()\[\],;]*[^\s"'<>`{}()\[\],;.:])(?!\()"""
    )


_KEYWORD_ANCHORS: tuple[str, ...] = tuple(
    spelled
    for word in (
        "api_key",
        "apikey",
        "api-key",
        "api key",
        "secret",
        "token",
        "password",
        "passwd",
        "pwd",
        "access_key",
        "accesskey",
        "access key",
        "private_key",
        "private key",
        "signing key",
        "auth",
    )  # fmt: skip
    for spelled in dict.fromkeys((word, word.upper(), word.capitalize(), word.title()))
) + ("ApiKey", "apiKey", "AccessKey", "accessKey", "API key", "API Key")

_NOT_CREDENTIAL_KEYS = (
    "idempotency|idempotence|cache|public|publishable|pub|gpg|pgp|gnupg|fingerprint"
    "|host|site|search|sort|partition|primary|foreign|hash|range|row|shard|routing|lookup"
    "|index|composite|unique|dedup|dedupe|deduplication|correlation|request|trace|message"
    "|object|commit|content|license|licence|product|serial"
)
"""Words that say a key is no credential, anywhere in its name (a whole
word of it): ``X-Idempotency-Key``, ``X-Correlation-Key``, ``X-Cache-Key``,
``STRIPE_PUBLISHABLE_KEY``, ``ALGOLIA_SEARCH_KEY`` (a search-only key,
public by design), ``GPG_SIGNING_KEY`` and ``SSH_HOST_KEY`` (a key's id or
fingerprint), ``PARTITION_KEY``, ``COMMIT_KEY``, ``LICENSE_KEY``."""

_KEY_NAME = (
    # a header's: X-, up to three words, Key (X-API-Key, X-Desk-Key); Api-Key
    rf"(?i:(?:x-(?!(?:[a-z0-9]+-)*(?:{_NOT_CREDENTIAL_KEYS})-)(?:[a-z0-9]+-){{0,3}}|api-)key)"
    # an environment's: a name in capitals that ends in _KEY (DESK_KEY)
    rf"|(?!(?:[A-Z0-9]+_)*(?:{_NOT_CREDENTIAL_KEYS.upper()})_)[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_KEY"
)
"""A credential's name that says "key" and no more, as an HTTP header or an
environment variable names it (``key`` alone names too much: ``Sort key``,
"press the Key: Enter")."""

_KEY_GIVEN = (
    rf"""(?<![A-Za-z0-9_-])(?:{_KEY_NAME})["'`]?\]?\s*[:=]\s*["'`]?"""
    r"([A-Za-z0-9_+/=-]{16,})(?![A-Za-z0-9_+/=-]|\.[A-Za-z0-9_])"
)
"""A value given to a key's name (:data:`_KEY_NAME`): a secret only when
:func:`_key_value` takes it."""

_PWD = r"(?<![A-Za-z0-9])pwd(?![A-Za-z0-9])"
"""``pwd`` as a word of its own: inside random tokens (base64) it is no name."""

# What detect-secrets misses or gets only in part: (kind, anchors, pattern).
_OWN: tuple[tuple[str, tuple[str, ...], str], ...] = (
    # unquoted, as in ~/.aws/credentials or an .env file (the plugin wants quotes)
    # and as the AWS console and its CSV name it ("Secret access key: ...")
    (
        "AWS Access Key",
        ("ecret_?access", "ECRET_?ACCESS", "ecretAccess", "ecret access", "ecret Access"),
        r"""(?i:(?:aws[ _]?)?secret[ _]?access[ _]?key)["']?(?:\s*[:=]\s*|\s+(?i:is)\s+)"""
        r"""["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])""",
    ),
    ("GitHub Token", ("github_pat_",), r"github_pat_[A-Za-z0-9_]{82}(?![A-Za-z0-9_])"),
    ("Google API Key", ("AIza",), r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
    ("Anthropic API Key", ("sk-ant-",), r"sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,}"),
    ("NPM tokens", ("npm_",), r"(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    # OpenAI's project and service-account keys (no ``T3BlbkFJ`` in them, which
    # detect-secrets' pattern needs), and the ``sk-`` keys of the many services
    # that copied the shape (DeepSeek, OpenRouter...): 20 or more characters
    # with letters and digits after the prefix ("sk-learn" is no key)
    (
        "OpenAI-style API Key",
        ("sk-",),
        r"(?<![A-Za-z0-9_-])(sk-(?:[a-z]+-)?(?=[A-Za-z0-9_-]{0,200}[0-9])"
        r"(?=[A-Za-z0-9_-]{0,200}[A-Za-z])[A-Za-z0-9_-]{20,})",
    ),
    ("Stripe Access Key", ("k_test_",), r"(?<![A-Za-z0-9_])((?:sk|rk)_test_[0-9a-zA-Z]{24,})"),
    # a value given to a name that says it is a credential (``STORAGE_API_KEY=``,
    # ``"client_secret": "..."``, ``token: ...``), when the value looks drawn at
    # random (see _random_value): prose ("password: see the vault") and code
    # (``api_key = os.environ['API_KEY']``) do not
    # (also spelled in words, "API key: ...", "Your API key is ...", "Signing
    # key: ...": a name of two words that says it is a credential)
    (
        "Secret Keyword",
        _KEYWORD_ANCHORS,
        rf"""(?i:api[ _]?key|secret|token|passw(?:or)?d|{_PWD}|access[ _]?key|private[ _]?key"""
        r"""|signing[ _]key|auth)"""
        r"""[A-Za-z0-9_-]*["'`]?(?:\s*[:=]\s*|\s+(?i:is)\s+)["'`]?"""
        r"([A-Za-z0-9_+/=-]{16,})(?![A-Za-z0-9_+/=-]|\.[A-Za-z0-9_])",  # not a dotted name
    ),
    # a key given to the name an HTTP header or an environment gives it,
    # where the name says "key" and no more: ``X-API-Key:``, a service's own
    # header (``X-Desk-Key:``, ``X-Goog-Api-Key:``), ``Api-Key:``, in a curl
    # ``-H "..."`` or a dict (``{"X-API-Key": "..."}``), and ``DESK_KEY=``
    # (an env file, ``export``); not a key that is no credential (a cache's,
    # an idempotency or correlation key, a public, search-only or GPG key: see
    # _NOT_CREDENTIAL_KEYS), nor ``SORT_KEY=name``, a placeholder, an id, a
    # digest or a fingerprint (see _key_value)
    (
        "Secret Keyword",
        ("-Key", "-key", "-KEY", "_KEY"),
        _KEY_GIVEN,
    ),
    # an HTTP Authorization header's credentials: Basic user:password in
    # base64, a Bearer token (``Authorization: Bearer 7f3a...``)
    (
        "Authorization Header",
        ("uthorization", "UTHORIZATION"),
        r"""(?i:authorization)["']?\s*[:=]\s*["']?(?i:basic|bearer|token|digest)\s+"""
        r"([A-Za-z0-9._~+/=-]{16,})(?![A-Za-z0-9._~+/=-])",
    ),
    # Hugging Face access tokens
    ("Hugging Face Token", ("hf_",), r"(?<![A-Za-z0-9_])(hf_[A-Za-z0-9]{34,})(?![A-Za-z0-9])"),
    # a password in a URL whose password holds characters detect-secrets'
    # pattern leaves out (RFC 3986 allows ``!$&'()*+,;=`` there): ``S3cret!``
    (
        "Basic Auth Credentials",
        ("://",),
        r"://[^\s:/?#\[\]@<>{}\"']*:([^\s/?#\[\]@<>{}\"']+)@",
    ),
    # a password given in words or to a name (``grafana admin password:
    # Tr0ub4dor&3-halvard``, ``the password is Kelp4ever!``, ``PASSWD=...``,
    # ``the VPN shared secret for contractors is: ...``, ``Das Passwort
    # lautet: ...``): see _password_pattern
    (
        "Password",
        _spelled(_PASSWORD_WORDS),
        _password_pattern(
            rf"""passw(?:or)?d|{_PWD}|passwort|kennwort|passphrase|passcode|contrase[ñn]a"""
            r"""|mot de passe|(?:shared|client)[ _-]secret""",
            "is|ist|lautet|es|est",
        ),
    ),
    # the same in Swedish, Norwegian and Danish (``Lösenordet till gästnätet
    # är Sommar2026!``, ``Passordet er ...``, ``Adgangskoden er ...``) and in
    # Finnish (``Salasana on ...``), each with its own verb: "on" or "er"
    # after an English name would take the next word for the password
    (
        "Password",
        _spelled(_NORDIC_PASSWORD_WORDS),
        _password_pattern("lösenord|passord|adgangskode|kodeord", "är|er", _NORDIC_OTHER_THINGS),
    ),
    (
        "Password",
        _spelled(("salasana",)),
        _password_pattern("salasana", "on", _FINNISH_OTHER_THINGS),
    ),
    # ragloom's own server keys (``ragloom serve --generate-key``: 43 URL-safe
    # characters, upper and lower case and digits among them), not a name
    # ("ragloom-sentence-transformers", a folder "ragloom-pgvector-4242-quickstart-x1y2")
    (
        "ragloom API Key",
        ("ragloom-",),
        r"(?<![A-Za-z0-9_-])ragloom-((?=[A-Za-z0-9_-]{0,42}[A-Z])(?=[A-Za-z0-9_-]{0,42}[a-z])"
        r"(?=[A-Za-z0-9_-]{0,42}[0-9])[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])",
    ),
)

# detect-secrets' JWT pattern ends in a lazy ``*?``, so its match stops before
# the signature; this one takes the whole token (header and payload are JSON objects)
_JWT = r"eyJ[A-Za-z0-9_=-]+\.eyJ[A-Za-z0-9_=-]+\.[A-Za-z0-9_=-]*"

# a private key: the whole armoured block, or a PuTTY key file up to its MAC
# (bounded: the biggest keys are some 12 KB, and a header quoted in prose must
# not swallow the text up to a far-away END)
_KEY_BLOCK = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.{0,16384}?-----END \1-----"
    r"|PuTTY-User-Key-File-\d+:.{0,16384}?Private-MAC: *[0-9a-fA-F]+",
    re.DOTALL,
)
_KEY_MATERIAL = re.compile(r"[A-Za-z0-9+/]{16,}")
# a private-key header, also with no END (a truncated paste), and what follows
# it: RFC 1421 / PuTTY fields (then maybe a blank line), then base64 lines, the
# last of which may be short
_KEY_HEADER = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_KEY_FIELD = re.compile(
    r"[ \t]*(?:Proc-Type|DEK-Info|Encryption|Comment|Public-Lines|Private-Lines|"
    r"Key-Derivation|Argon2-[A-Za-z]+): [^\n]*\n(?:[ \t]*\r?\n)?"
)
_KEY_LINE = re.compile(r"[ \t]*[A-Za-z0-9+/=]{16,}[ \t]*\r?(?:\n|$)")
_KEY_LAST_LINE = re.compile(r"[ \t]*[A-Za-z0-9+/=]+[ \t]*\r?(?:\n|$)")
_FULL_KEY_LINE = 60  # base64 lines of a PEM body are 64 characters (70 in OpenSSH keys)

_PLACEHOLDER_PASSWORDS = frozenset(
    {
        "bar",
        "baz",
        "changeme",
        "change-me",
        "dummy",
        "example",
        "foo",
        "mypassword",
        "pass",
        "passwd",
        "password",
        "placeholder",
        "pwd",
        "redacted",
        "secret",
        "test",
        "token",
        "apikey",
        "api_key",
        "api-key",
        "key",
        "your-password",
        "your_password",
        "yourpassword",
    }
)


@cache
def _detectors() -> tuple[_Detector, ...]:
    """The detectors, built once (this is where detect-secrets is imported)."""
    from importlib import import_module

    from detect_secrets.plugins.jwt import JwtTokenDetector

    def anchors(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p) for p in patterns)

    detectors = []
    for module, name, anchored in _PLUGINS:
        plugin = getattr(import_module(f"detect_secrets.plugins.{module}"), name)
        detectors.append(
            _Detector(
                kind=plugin.secret_type,
                anchors=anchors(anchored),
                patterns=(_BOUNDED.get(name, plugin.denylist[0]), *plugin.denylist[1:]),
                groups=name in _GROUPS,
                label="AccountKey=" if name == "AzureStorageKeyDetector" else "",
                valid=_VALID.get(name),
            )
        )
    for kind, anchored, pattern in _OWN:
        detectors.append(
            _Detector(
                kind,
                anchors(anchored),
                (re.compile(pattern),),
                groups=True,
                valid=_key_value if pattern == _KEY_GIVEN else _OWN_VALID.get(kind),
                needs=_OWN_NEEDS.get(kind),
            )
        )
    detectors.append(
        _Detector(
            JwtTokenDetector.secret_type,
            anchors(("eyJ",)),
            (re.compile(_JWT),),
            valid=JwtTokenDetector.is_formally_valid,
        )
    )
    return tuple(detectors)


_ESCAPED = frozenset(".-/_=:")
"""Characters a pattern escapes (``SG\\.``) that stand for themselves."""
_LITERAL = re.compile(r"[A-Za-z0-9_=:/ -]+")
_MOST_STARTS = 32


def _fixed_starts(pattern: str) -> tuple[str, ...]:
    """Texts one of which every match of ``pattern`` starts with: its fixed
    characters, a class of letters (``[pousr]``) or a group of fixed texts
    (``(?:KIA|SIA)``) spelled out, up to the first part that is none of
    these or may be absent. ``()`` when there is none, or the pattern
    alternates at its top level: every text is a candidate."""
    depth = 0
    escaped = False
    for c in pattern:
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "|" and depth == 0:
            return ()
    starts = [""]
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if pattern[i + 1 : i + 2] not in _ESCAPED:
                break  # a class (\\d, \\w) or an assertion (\\b)
            pieces, end = [pattern[i + 1]], i + 2
        elif c == "[":
            end = pattern.find("]", i) + 1
            inside = pattern[i + 1 : end - 1]
            if not end or not inside.isalnum():  # a range, a negation: not spelled out
                break
            pieces = list(inside)
        elif pattern.startswith("(?:", i):
            end = pattern.find(")", i) + 1
            pieces = pattern[i + 3 : end - 1].split("|")
            if not end or not all(_LITERAL.fullmatch(piece) for piece in pieces):
                break
        elif c in ".^$*+?{}[]|()":
            break
        else:
            pieces, end = [c], i + 1
        following = pattern[end : end + 1]
        if (following and following in "?*{") or len(starts) * len(pieces) > _MOST_STARTS:
            break  # (this part may be absent)
        starts = [start + piece for start in starts for piece in pieces]
        if following == "+":
            break
        i = end
    return tuple(dict.fromkeys(starts)) if starts != [""] else ()


@cache
def _prefilter() -> tuple[
    Any, tuple[tuple[tuple[int, int], ...], ...], tuple[tuple[int, int], ...]
]:
    """An Aho-Corasick automaton of the anchors' fixed starts
    (:func:`_fixed_starts`; ahocorasick-rs), which anchors (detector,
    anchor) each start belongs to, by its number, and the anchors without
    one. One pass of the automaton over a text finds which anchors may
    match, where searching each anchor (163 then, 187 now) took a pass of
    its own (three quarters of a `--reread`)."""
    from ahocorasick_rs import AhoCorasick, Implementation

    of: dict[str, list[tuple[int, int]]] = {}
    always: list[tuple[int, int]] = []
    for number, detector in enumerate(_detectors()):
        for which, anchor in enumerate(detector.anchors):
            starts = () if anchor.flags & re.IGNORECASE else _fixed_starts(anchor.pattern)
            for start in starts:
                of.setdefault(start, []).append((number, which))
            if not starts:
                always.append((number, which))
    # a DFA: more memory than the default (a few hundred KB for these), and
    # five times as fast on SciFact's abstracts
    automaton = AhoCorasick(list(of), implementation=Implementation.DFA)
    return automaton, tuple(tuple(found) for found in of.values()), tuple(always)


def _candidates(text: str) -> list[tuple[int, list[re.Pattern[str]]]]:
    """The anchors worth searching ``text`` for, by detector, each in its
    detector's order (the order of the findings is the same as searching
    every anchor)."""
    automaton, of, always = _prefilter()
    chosen = set(always)
    try:
        matches = automaton.find_matches_as_indexes(text, overlapping=True)
    except UnicodeEncodeError:  # a lone surrogate: the automaton takes what UTF-8 encodes
        readable = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        matches = automaton.find_matches_as_indexes(readable, overlapping=True)
    for start in {found for found, _, _ in matches}:
        chosen.update(of[start])
    detectors = _detectors()
    by_detector: dict[int, list[re.Pattern[str]]] = {}
    for number, which in sorted(chosen):
        by_detector.setdefault(number, []).append(detectors[number].anchors[which])
    return list(by_detector.items())


def _plausible(secret: str) -> bool:
    """detect-secrets' heuristic filters: not ``{template}``, ``<template>``,
    ``${VAR}``, ``$VAR`` or a run like ``ABCDEF`` / ``123456``."""
    return not any(check(secret) for check in _heuristics())


@cache
def _heuristics() -> tuple[Callable[[str], bool], ...]:
    from detect_secrets.filters.heuristic import (
        is_prefixed_with_dollar_sign,
        is_sequential_string,
        is_templated_secret,
    )

    return (is_templated_secret, is_prefixed_with_dollar_sign, is_sequential_string)


def _not_dna(secret: str) -> bool:
    """Not a nucleotide sequence (a 20-base primer such as ``ACCAGTCGATTGCAAGTCCA``
    has the shape of an AWS key id; a real id is never all A, C, G, T)."""
    return not set(secret) <= _NUCLEOTIDES


def _real_password(password: str) -> bool:
    """A password in a URL that is not a documentation placeholder
    (``user:password@``, ``:****@``, ``:xxx@``, ``:%s@``)."""
    lowered = password.lower()
    return not (
        lowered in _PLACEHOLDER_PASSWORDS or len(set(lowered)) == 1 or password.startswith("%")
    )


_NUCLEOTIDES = frozenset("ACGTUN")


def _random_value(value: str) -> bool:
    """A value drawn at random, as keys are: four or more letters and four or
    more digits among eight or more different characters; not a name in
    capitals or in snake case (``MY_SECRET_NAME_2024``, ``token_store_v2_0001``)
    unless a part of it is random (``lk_live_4f9a8b7c6d5e4f3a2b1c0d9e``)."""
    digits = sum(c.isdigit() for c in value)
    letters = sum(c.isalpha() for c in value)
    mixed = not value.isupper() and not value.islower()
    if (
        len(value) >= 30
        and digits
        and len(set(value)) >= 12
        and mixed
        and _BASE64.fullmatch(value)
        and ("/" in value or "+" in value)
    ):
        # base64, as an AWS secret (40 characters, some with few digits): not a
        # class name (Gemma3nTextScaledWordEmbedding) nor a model id (org/model-v2)
        return True
    if digits < 4 or letters < 4 or len(set(value)) < 8:
        return False
    if value.count("_") > 1 and (value.upper() == value or value.lower() == value):
        # a name in snake case or capitals, unless it is a service's key: two
        # short words, then the random part (``lk_live_4f9a8b7c6d5e...``,
        # ``LK_LIVE_4F9A...``); not a branch, build or file named with a
        # digest or a time (``fix_login_loop_9fceb02d...``, ``file_md5_d41d...``)
        *prefix, last = value.split("_")
        return (
            len(prefix) == 2
            and all(part.isalpha() and len(part) <= 8 for part in prefix)
            and _random_part(last)
        )
    return True


def _random_part(part: str) -> bool:
    """A part of a snake-case value that no name has: 16 or more characters
    with four or more letters and four or more digits among eight or more
    different ones (a hex digest's, a key's)."""
    return (
        len(part) >= 16
        and sum(c.isdigit() for c in part) >= 4
        and sum(c.isalpha() for c in part) >= 4
        and len(set(part)) >= 8
    )


_VENDOR_SECRET = re.compile(r"(?:[A-Za-z]{1,10}_(?:live|test|prod|secret)_|sk[_-])(.+)", re.I)
"""A service's secret key's prefix: a short name, then ``live``, ``test``,
``prod`` or ``secret`` (``hd_live_...``, ``lk_test_...``), or ``sk_``,
``sk-``; the random part follows."""
_NOT_A_KEY = re.compile(
    r"[0-9a-fA-F-]+"  # hex, with or without dashes: an id, a digest, a UUID, a GPG key id
    r"|(?i:sha(?:1|224|256|384|512)|md5)[:_-]?.*"  # a fingerprint (SHA256:nThbg6kX...)
    r"|AAAA.*"  # an SSH public key's base64 (AAAAC3NzaC1lZDI1NTE5...)
    r"|(?i:pk|pub|public|publishable)[_-].*"  # a publishable key (pk_live_...)
    r"|[A-Za-z0-9]{1,8}(?:-[A-Za-z0-9]{1,8})+"  # groups, as a licence key (ABCD-1234-EFGH-5678)
)
"""What a value given to a key's name may be without being a credential."""


def _key_value(value: str) -> bool:
    """A value given to a key's name (``X-Desk-Key:``, ``DESK_KEY=``) is a
    credential: drawn at random (see :func:`_random_value`) with small and
    capital letters and digits (``7Qm2Xv9LpR4tK8sW3nYb6Zc1``), or a service's
    secret key's prefix before a random part (``hd_live_7qm2xv9lpr...``,
    ``sk_...``). Not what "key" means elsewhere, which is often drawn at random
    too: hex of any length (a GPG key id, a commit, a digest, a UUID), a
    fingerprint (``SHA256...``), an SSH public key (``AAAA...``), a
    publishable key (``pk_live_...``), groups joined by dashes (a licence
    key's ``ABCD-1234-EFGH-5678``), base64 padding."""
    if _NOT_A_KEY.fullmatch(value):
        return False
    vendor = _VENDOR_SECRET.fullmatch(value)
    if vendor is not None and _random_part(vendor.group(1)):
        return True
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return mixed and _random_value(value)


_SYMBOLS = frozenset("!@#$%^&*+=?~|")
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_SNAKE_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
"""A name in code (``new_password1``, ``DB_PASSWORD_2``), not a password."""


_DESCRIBED = re.compile(
    r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*-(?:encrypted|managed|protected|hashed|salted|generated"
    r"|rotated|based|compliant|long|stored|enforced|required|signed|backed|controlled)"
)
"""A compound that describes a password rather than being one: it ends in
one of a few words that say how passwords are kept (``AES-256-encrypted``,
``1Password-managed``, ``16-characters-long``, ``90-day-based``); not any
word (``Hunter42-red``, ``Blue42-free``, ``Acme2024-secure`` are passwords)."""
_NAMED = re.compile(
    r"(?i:1password)|(?:ISO|IEC|NIST|RFC|FIPS|AES|SHA|RSA|PCI)(?:[-/ ][A-Z]*[-/ ]?\d+)+"
    r"[A-Za-z]?(?::\d{4})?"
)
"""A product or a standard (``1Password``, ``ISO-27001``, ``NIST-800-63B``,
``AES-256``), not a password."""


def _password_value(value: str) -> bool:
    """What follows a password's name is one: eight or more characters with
    a letter, and a digit or a symbol; not a placeholder, a template, a URL,
    a path, or code (``self.password``, ``settings.DB_PASSWORD``,
    ``new_password1``), nor a description, a product or a standard
    (``AES-256-encrypted``, ``1Password``, ``ISO-27001``)."""
    if len(value) < 8 or "://" in value or _DOTTED_NAME.fullmatch(value):
        return False
    if value[0] in "/~.$%" or _SNAKE_NAME.fullmatch(value):
        return False
    if _DESCRIBED.fullmatch(value) or _NAMED.fullmatch(value):
        return False
    if not any(c.isalpha() for c in value):
        return False
    if not any(c.isdigit() or c in _SYMBOLS for c in value):
        return False
    return _real_password(value)


_BASE64 = re.compile(r"[A-Za-z0-9/+]+=*")


def _header_value(value: str) -> bool:
    """An Authorization header's credentials: a token drawn at random, or
    HTTP Basic's ``user:password`` in base64 (not ``YOUR_TOKEN_HERE``)."""
    if _random_value(value):
        return True
    import base64
    import binascii

    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    user, colon, password = decoded.partition(b":")
    return bool(colon and password) and _real_password(password.decode("latin-1"))


_OWN_NEEDS: dict[str, re.Pattern[str]] = {
    # a name, then ":" or "=" or "is" between spaces, then the value
    "Secret Keyword": re.compile(r"[:=]|\s(?i:is)\s"),
}
"""What a line must hold for one of ``_OWN``'s patterns to match it
(``_Detector.needs``)."""

_OWN_VALID: dict[str, Callable[[str], bool]] = {
    "Authorization Header": _header_value,
    "Secret Keyword": _random_value,
    "Basic Auth Credentials": _real_password,
    "Password": _password_value,
}
"""Further checks on what one of ``_OWN``'s patterns matches."""

_VALID: dict[str, Callable[[str], bool]] = {
    "AWSKeyDetector": _not_dna,
    "BasicAuthDetector": _real_password,
}
"""Further checks on what a plugin's patterns match."""


def _key_blocks(text: str) -> Iterator[tuple[int, int, str]]:
    """Private keys, each from its ``BEGIN`` line to its ``END`` line; a header
    without an ``END`` runs on over the key's lines that follow it. Only keys
    with key material count: a header quoted in prose, or a block around
    ``...``, is no secret."""
    for match in _KEY_BLOCK.finditer(text):
        if _KEY_MATERIAL.search(text, match.start(), match.end()):
            yield match.start(), match.end(), "Private Key"
    from detect_secrets.plugins.private_key import PrivateKeyDetector

    for pattern in (_KEY_HEADER, *PrivateKeyDetector.denylist):
        for match in pattern.finditer(text):
            begin = text.rfind("\n", 0, match.start()) + 1
            dashes = text.find("-----", begin, match.start())
            start = dashes if dashes >= 0 else match.start()
            end = text.find("\n", match.end())
            if end < 0:
                continue
            body_end = _key_body_end(text, end + 1)
            if body_end > end:
                yield start, body_end, "Private Key"


def _key_body_end(text: str, end: int) -> int:
    """Where the lines of a key that start at ``end`` stop: fields (``Proc-Type:``,
    PuTTY's ``Public-Lines:``...) and base64 lines, the last of which may be
    short (trailing whitespace left out)."""
    full = False
    while end < len(text):
        line = _KEY_FIELD.match(text, end) or _KEY_LINE.match(text, end)
        if line is None:
            break
        full = len(line.group().strip()) >= _FULL_KEY_LINE
        end = line.end()
    if full and (last := _KEY_LAST_LINE.match(text, end)) is not None:
        end = last.end()
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return end


_GENERIC = frozenset({"Secret Keyword", "Authorization Header", "Password"})
"""Kinds found by a name before a value, not by the value's own shape."""


def merge_spans(text: str, spans: list[tuple[int, int, str]]) -> list[Secret]:
    """``spans`` (start, end, kind) sorted, overlaps merged, as :class:`Secret`
    with line numbers (``ragloom.personal`` merges its findings the same way)."""
    merged: list[tuple[int, int, str]] = []
    # where two findings start together, the specific kind names the span
    for start, end, kind in sorted(spans, key=lambda s: (s[0], -s[1], s[2] in _GENERIC)):
        if merged and start < merged[-1][1]:
            first, last, named = merged[-1]
            if named in _GENERIC and kind not in _GENERIC:
                named = kind  # a value's own shape says more than the name before it
            merged[-1] = (first, max(last, end), named)
        else:
            merged.append((start, end, kind))
    secrets: list[Secret] = []
    line, counted = 1, 0
    for start, end, kind in merged:
        line += text.count("\n", counted, start)
        counted = start
        secrets.append(Secret(kind, start, end, line))
    return secrets
