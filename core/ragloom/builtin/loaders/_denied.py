"""What the ``directory`` loader never reads, whatever ``include`` says:
files that may hold secrets, the folders of version control, packages and
credentials, and (through a followed symlink) the system's own folders."""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Sequence
from pathlib import Path

__all__ = ["DENIED_DIRECTORIES", "DENIED_FILES", "SYSTEM_FOLDERS", "denied"]

DENIED_FILES = (
    # environment files and keys
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*.p12",
    "*.pfx",
    "*.pkcs12",
    "*.p8",
    "*.ppk",
    "*.keystore",
    "*.jks",
    "*.ovpn",
    # tool credentials
    ".netrc",
    "_netrc",
    ".npmrc",
    ".yarnrc.yml",
    ".pypirc",
    ".git-credentials",
    ".pgpass",
    ".my.cnf",
    ".htpasswd",
    ".dockercfg",
    ".vault-token",
    ".boto",
    ".s3cfg",
    "kubeconfig",
    "*.kubeconfig",
    "credentials*.json",
    "client_secret*.json",
    "application_default_credentials.json",
    "credentials.tfrc.json",
    "secrets.yml",
    "secrets.yaml",
    # Terraform state and variables (state holds every secret a plan touched)
    "*.tfstate",
    "*.tfstate.*",
    "*.tfvars",
    "*.tfvars.json",
    # by path: a file of this name inside a folder of that name
    ".docker/config.json",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    "gh/hosts.yml",
    ".azure/accessTokens.json",
    ".azure/msal_token_cache.*",
    "gcloud/credentials.db",
    "gcloud/access_tokens.db",
)
"""File names (matched case-insensitively) that may hold secrets: never loaded,
whatever ``include`` says. A pattern with a ``/`` matches the last segments of
a path (``.docker/config.json`` is ``config.json`` inside a ``.docker``
folder, at any depth)."""

DENIED_DIRECTORIES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        ".ragloom",
        # folders that hold credentials and little else
        ".aws",
        ".ssh",
        ".gnupg",
        ".kube",
    }
)
"""Directory names whose contents are never loaded, whatever ``include`` says."""

SYSTEM_FOLDERS = tuple(
    Path(p)
    for p in (
        "/etc",
        "/proc",
        "/sys",
        "/dev",
        "/boot",
        "/run/secrets",
        "/var/run/secrets",
        "/private/etc",
    )
)
"""Where a followed symlink that leads out of the loader's root is never
read (``docs/notes.txt -> /etc/shadow``): the system's own files, which a
server run as root could read and serve."""


@functools.cache
def _denied_patterns() -> tuple[re.Pattern[str], tuple[tuple[re.Pattern[str], ...], ...]]:
    """:data:`DENIED_FILES` compiled (on first use, not at import): one regex for
    the names, and one regex per segment for each pattern with a ``/``."""
    names = re.compile(
        "|".join(fnmatch.translate(p) for p in DENIED_FILES if "/" not in p), re.IGNORECASE
    )
    paths = tuple(
        tuple(re.compile(fnmatch.translate(segment), re.IGNORECASE) for segment in p.split("/"))
        for p in DENIED_FILES
        if "/" in p
    )
    return names, paths


def denied(parts: Sequence[str], *, is_dir: bool) -> str | None:
    """Why a path is never loaded, judged by its segments (``parts``, relative
    to the loader's root, or what a symlink's target adds): a folder among
    them is in :data:`DENIED_DIRECTORIES`, or (for a file) its name or last
    segments match :data:`DENIED_FILES`. None when neither."""
    folders = parts if is_dir else parts[:-1]
    for name in folders:
        if name in DENIED_DIRECTORIES:
            return f"inside {name}/ (always skipped)"
    if not is_dir and parts:
        names, paths = _denied_patterns()
        if names.match(parts[-1]):
            return "may hold secrets (always skipped)"
        for segments in paths:
            tail = parts[-len(segments) :]
            if len(tail) == len(segments) and all(r.match(n) for r, n in zip(segments, tail)):
                return "may hold secrets (always skipped)"
    return None
