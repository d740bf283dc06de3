"""API keys: who a request is, from the key it presents.

A keys file (YAML or TOML) maps each key to a *caller*: a name for the logs,
the principals that feed the pipeline's access filter, and whether it may
index::

    keys:
      - name: support-bot
        sha256: 5f0c...e1          # sha256 of the key: the file never holds the key
        principals: [group:support]
      - name: ops
        key: ${RAGLOOM_OPS_KEY}     # or the key itself, from the environment
        principals: [group:ops]
        admin: true                 # may call POST /v1/index

Only SHA-256 digests are kept in memory; a presented key is hashed and
compared with every stored digest in constant time (``hmac.compare_digest``),
so neither the time taken nor the logs say anything about the keys. Keys are
high-entropy random strings (:func:`generate_key`), so a plain SHA-256 is the
right tool: a slow password hash would only slow every request down.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigIssue, ConfigValidationError

__all__ = ["Caller", "KeyRing", "generate_key", "hash_key", "load_keys", "parse_key_header"]

KEY_PREFIX = "ragloom-"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_NAME = re.compile(r"^[A-Za-z0-9_.:@-]{1,64}$")
MIN_KEY_LENGTH = 16


@dataclass(frozen=True)
class Caller:
    """Who a request is: ``name`` (for logs, never the key), the
    ``principals`` its queries run as, and whether it is an ``admin``
    (may index). ``principals`` None means "no access control": only the
    server's ``--no-auth`` caller on a pipeline without ``access:`` has it."""

    name: str
    principals: tuple[str, ...] | None = ()
    admin: bool = False

    @property
    def principal_list(self) -> list[str] | None:
        return None if self.principals is None else list(self.principals)


def hash_key(key: str) -> str:
    """The hex SHA-256 of ``key`` (UTF-8): what a keys file's ``sha256:`` holds."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def generate_key() -> str:
    """A new random key, ``ragloom-`` and 43 URL-safe characters (256 bits),
    with capitals, small letters and digits among them (drawn again, about
    once in a thousand, until so): what ``ragloom.secrets`` finds in a
    document, where a name such as a folder's has no such mix."""
    while True:
        token = secrets.token_urlsafe(32)
        kinds = (str.isupper, str.islower, str.isdigit)
        if all(any(kind(c) for c in token) for kind in kinds):
            return KEY_PREFIX + token


@dataclass(frozen=True)
class KeyRing:
    """The callers a server knows, by the digest of their key."""

    entries: tuple[tuple[bytes, Caller], ...] = field(default=(), repr=False)

    @classmethod
    def of(cls, callers: Mapping[str, Caller]) -> KeyRing:
        """From plain keys (for tests and embedding): ``{key: Caller}``."""
        return cls(tuple((bytes.fromhex(hash_key(k)), c) for k, c in callers.items()))

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def callers(self) -> list[Caller]:
        return [caller for _, caller in self.entries]

    def authenticate(self, key: str | None) -> Caller | None:
        """The caller whose key this is, or None. Every stored digest is
        compared, in constant time, whatever matches."""
        if not key:
            return None
        digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).digest()
        found: Caller | None = None
        for stored, caller in self.entries:
            if hmac.compare_digest(stored, digest) and found is None:
                found = caller
        return found


def load_keys(path: str | Path, env: Mapping[str, str] | None = None) -> KeyRing:
    """Read a keys file; every problem in it is reported at once
    (``ConfigValidationError``, each issue with its path and line)."""
    from ..configfile import interpolate, line_of, read_config_file

    path = Path(path)
    env = os.environ if env is None else env
    data, lines = read_config_file(path)
    issues: list[ConfigIssue] = []

    unset: set[tuple[Any, ...]] = set()  # values whose ${VAR} is not set

    def add(where: tuple[Any, ...], message: str, hint: str | None = None) -> None:
        if where in unset:
            return  # what is wrong with an empty value is that its variable is not set
        text = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in where)
        issues.append(ConfigIssue(text.replace(".[", "["), message, line_of(lines, where), hint))

    def add_unset(where: tuple[Any, ...], message: str, hint: str | None = None) -> None:
        add(where, message, hint)
        unset.add(tuple(where))

    data = interpolate(data, env, (), add_unset, {})
    unknown = sorted(set(data) - {"keys"})
    for key in unknown:
        add((key,), f"unknown top-level key {key!r}", "a keys file has one key: `keys:`")
    entries = data.get("keys")
    if not isinstance(entries, list) or not entries:
        add(
            ("keys",),
            "no keys",
            "list at least one: keys: [{name: ..., sha256: ..., principals: [...]}]",
        )
        entries = []
    ring: list[tuple[bytes, Caller]] = []
    names: set[str] = set()
    digests: set[bytes] = set()
    for i, entry in enumerate(entries):
        where: tuple[Any, ...] = ("keys", i)
        if not isinstance(entry, dict):
            add(where, "each key is a mapping with name, sha256 or key, principals, admin")
            continue
        caller, digest = _entry(entry, where, add)
        if caller is None or digest is None:
            continue
        if caller.name in names:
            add((*where, "name"), f"the name {caller.name!r} is used twice", "names must be unique")
        if digest in digests:
            add(where, "the same key is listed twice", "each key maps to one caller")
        names.add(caller.name)
        digests.add(digest)
        ring.append((digest, caller))
    if issues:
        raise ConfigValidationError(issues, source=str(path))
    return KeyRing(tuple(ring))


def _entry(
    entry: dict[str, Any], where: tuple[Any, ...], add: Any
) -> tuple[Caller | None, bytes | None]:
    known = {"name", "sha256", "key", "principals", "admin"}
    for extra in sorted(set(entry) - known):
        add((*where, extra), f"unknown option {extra!r}", f"use {', '.join(sorted(known))}")
    name = entry.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        add((*where, "name"), "a name is required: 1-64 letters, digits or _.:@-", None)
        name = None
    digest: bytes | None = None
    has_hash, has_key = "sha256" in entry, "key" in entry
    if has_hash == has_key:
        add(
            where,
            "give exactly one of `sha256:` (recommended) or `key:`",
            'sha256 of a key: printf %s "$KEY" | sha256sum',
        )
    elif has_hash:
        value = entry["sha256"]
        text = value.strip().lower() if isinstance(value, str) else ""
        text = text.removeprefix("sha256:")
        if not _HEX64.match(text):
            add(
                (*where, "sha256"),
                "not a SHA-256 digest (64 hex digits)",
                'printf %s "$KEY" | sha256sum',
            )
        else:
            digest = bytes.fromhex(text)
    else:
        value = entry["key"]
        if not isinstance(value, str) or len(value) < MIN_KEY_LENGTH:
            add(
                (*where, "key"),
                f"a key must be a string of at least {MIN_KEY_LENGTH} characters",
                "make one with `ragloom serve --generate-key`",
            )
        elif not value.isascii() or not value.isprintable() or value != value.strip():
            # HTTP headers carry it as bytes, which clients encode differently
            # past ASCII: it would match for some clients and not for others
            add(
                (*where, "key"),
                "a key must be printable ASCII, with no spaces around it",
                "make one with `ragloom serve --generate-key`",
            )
        else:
            digest = bytes.fromhex(hash_key(value))
    principals = entry.get("principals", [])
    if isinstance(principals, str):
        principals = [principals]
    if not isinstance(principals, list) or not all(isinstance(p, str) and p for p in principals):
        add((*where, "principals"), "principals is a list of user and group ids", None)
        principals = []
    admin = entry.get("admin", False)
    if not isinstance(admin, bool):
        add((*where, "admin"), "admin is true or false", None)
        admin = False
    if name is None or digest is None:
        return None, None
    return Caller(name=name, principals=tuple(principals), admin=admin), digest


def parse_key_header(authorization: str | None, api_key: str | None) -> str | None:
    """The key a request presents: ``Authorization: Bearer KEY`` (what OpenAI
    SDKs send) or ``X-API-Key: KEY``."""
    if authorization:
        scheme, _, value = authorization.strip().partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
        return None
    if api_key:
        return api_key.strip() or None
    return None
