"""``ragloom.secrets``: credentials found at their exact offsets in real-looking
documents, redacted without touching the rest, and no finding in prose."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from ragloom.secrets import Secret, find_secrets, redact

ROOT = Path(__file__).resolve().parent.parent
SCIFACT = ROOT.parent / "shared" / "data" / "scifact" / "corpus.jsonl"  # as in test_bm25

# realistic-looking but made-up values (not AWS's documented example key)
AWS_KEY_ID = "AKIAZ7VQ3L5XK2M4P6RT"
AWS_SECRET = "q8Lm3Tq9xZ7VQ3L5XK2M4P6RTab12cd34efGh56I"
GITHUB_TOKEN = "ghp_Xq8Lm3Tq9xZ7VQ3L5XK2M4P6RTab12cd34ef"
PEM_KEY = """\
-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEAx1pX0rUvXyZQ3wM2bL9n8h7kT5vJ6cN4dF2gH1jK0lM9oP8q
R7sT6uV5wX4yZ3aB2cD1eF0gH9iJ8kL7mN6oP5qR4sT3uV2wX1yZ0aB9cD8eF7gH
6iJ5kL4mN3oP2qR1sT0uV9wX8yZ7aB6cD5eF4gH3iJ2kL1mN0oP9qR8sT7uV6wX
5yZ4aB3cD2eF1gH0iJ9kL8mN7oP6qR5sT4uV3wX2yZ1aB0cD9eF8gH7iJ6kL5mN
-----END RSA PRIVATE KEY-----"""

DEPLOY_MD = f"""\
# Deploying the billing service

The CI user has its own key pair. Configure the CLI with:

```ini
[default]
aws_access_key_id = {AWS_KEY_ID}
aws_secret_access_key = {AWS_SECRET}
region = eu-west-1
```

Then run `make deploy`.
"""


def spans(text: str) -> list[tuple[str, str, int]]:
    return [(s.kind, text[s.start : s.end], s.line) for s in find_secrets(text)]


API_KEY = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
HF_TOKEN = "hf_q8Lm3Tq9xZ7VQ3L5XK2M4P6RTab12cd34e"
DESK_KEY = "hd_live_7Qm2Xv9LpR4tK8sW3nYb6Zc1"
UUID_KEY = "3f6c2a1e-9b4d-4e8a-a7c5-0d2b6e9f1a34"
RANDOM = DESK_KEY.removeprefix("hd_live_")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # a credential's name in words, as consoles, wikis and READMEs write it
        (f"Access key ID: {AWS_KEY_ID}\nSecret access key: {AWS_SECRET}\n",
         [("AWS Access Key", AWS_KEY_ID, 1), ("AWS Access Key", AWS_SECRET, 2)]),
        (f"AWS Secret Access Key: {AWS_SECRET}", [("AWS Access Key", AWS_SECRET, 1)]),
        (f"Staging API key: {API_KEY}", [("Secret Keyword", API_KEY, 1)]),
        (f"Your API key is {API_KEY}.", [("Secret Keyword", API_KEY, 1)]),
        (f"Signing key: {API_KEY}", [("Secret Keyword", API_KEY, 1)]),
        (f"DB_PWD={API_KEY}", [("Secret Keyword", API_KEY, 1)]),
        # a service's prefix, then the random part: snake case, yet no name
        # (a trial found it indexed and shown, as env line, prose and table cell)
        ("LARKSPUR_API_KEY=lk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
         [("Secret Keyword", "lk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", 1)]),
        ("LARKSPUR_API_KEY=LK_LIVE_4F9A8B7C6D5E4F3A2B1C0D9E8F7A6B5C",
         [("Secret Keyword", "LK_LIVE_4F9A8B7C6D5E4F3A2B1C0D9E8F7A6B5C", 1)]),
        ("Your API key is lk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c.",
         [("Secret Keyword", "lk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", 1)]),
        # in backticks, as Markdown writes a value (a recheck found it shown)
        ("api_key: `lk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c`",
         [("Secret Keyword", "lk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", 1)]),
        ("pwd: Kelp4ever!99", [("Password", "Kelp4ever!99", 1)]),
        # redis and others give a password with no user
        ("redis://:S3cretPassw0rd@redis.internal:6379",
         [("Basic Auth Credentials", "S3cretPassw0rd", 1)]),
        # HTTP headers: Basic is user:password in base64
        ("Authorization: Basic YWRtaW46aHVudGVyMjIyMjI=",
         [("Authorization Header", "YWRtaW46aHVudGVyMjIyMjI=", 1)]),
        (f"curl -H 'Authorization: Bearer {API_KEY}' https://api.example/v1",
         [("Authorization Header", API_KEY, 1)]),
        # the value on the line after its name
        ("Password:\nHunter2Hunter2!\n", [("Password", "Hunter2Hunter2!", 2)]),
        (f"Secret access key:\n  {AWS_SECRET}\n", [("AWS Access Key", AWS_SECRET, 2)]),
        # zero-width characters pasted into a key, fullwidth letters: found whole
        (f"key: {AWS_KEY_ID[:4]}\u200b{AWS_KEY_ID[4:]}",
         [("AWS Access Key", f"{AWS_KEY_ID[:4]}\u200b{AWS_KEY_ID[4:]}", 1)]),
        (f"token {GITHUB_TOKEN[:10]}\u2060\u200d{GITHUB_TOKEN[10:]} here",
         [("GitHub Token", f"{GITHUB_TOKEN[:10]}\u2060\u200d{GITHUB_TOKEN[10:]}", 1)]),
        ("id: " + "".join(chr(ord(c) + 0xFEE0) for c in AWS_KEY_ID),
         [("AWS Access Key", "".join(chr(ord(c) + 0xFEE0) for c in AWS_KEY_ID), 1)]),
        (f"HF_TOKEN={HF_TOKEN}", [("Hugging Face Token", HF_TOKEN, 1)]),
        (f"login with {HF_TOKEN}", [("Hugging Face Token", HF_TOKEN, 1)]),
        # a name and its value in two cells of a table row (a spreadsheet of
        # credentials, read as a Markdown table)
        (f"| aws_secret_access_key | {AWS_SECRET} |", [("AWS Access Key", AWS_SECRET, 1)]),
        (f"| Staging | api_token | {API_KEY} |", [("Secret Keyword", API_KEY, 1)]),
        ("| Password | Kelp4ever!99 |", [("Password", "Kelp4ever!99", 1)]),
        # the name as an environment writes it, with its service's name first
        ("| LARKSPUR_API_KEY | lk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c |",
         [("Secret Keyword", "lk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", 1)]),
        ("| DB_PASSWORD | Kelp4ever!99 |", [("Password", "Kelp4ever!99", 1)]),
        (f"| Authorization | Bearer {API_KEY} |", [("Authorization Header", API_KEY, 1)]),
        # a key given to an HTTP header's name or an environment variable's
        # that says "key" and no more (trial 27, F3: a curl line's header was
        # indexed and quoted)
        (f'curl -H "X-Desk-Key: {DESK_KEY}" https://desk.example/api/v2/tickets',
         [("Secret Keyword", DESK_KEY, 1)]),
        (f"X-API-Key: {DESK_KEY}", [("Secret Keyword", DESK_KEY, 1)]),
        (f"x-api-key: {DESK_KEY}", [("Secret Keyword", DESK_KEY, 1)]),
        (f"curl --header 'X-Goog-Api-Key: {DESK_KEY}' https://x.example",
         [("Secret Keyword", DESK_KEY, 1)]),
        (f"Api-Key: {DESK_KEY}", [("Secret Keyword", DESK_KEY, 1)]),
        (f"X-Api-Token: {DESK_KEY}\nX-Auth-Token: {API_KEY}\nX-Access-Token: {DESK_KEY}",
         [("Secret Keyword", DESK_KEY, 1), ("Secret Keyword", API_KEY, 2),
          ("Secret Keyword", DESK_KEY, 3)]),
        (f'headers = {{"X-API-Key": "{DESK_KEY}"}}', [("Secret Keyword", DESK_KEY, 1)]),
        (f"fetch(url, {{ headers: {{ 'X-Desk-Key': '{DESK_KEY}' }} }})",
         [("Secret Keyword", DESK_KEY, 1)]),
        (f'headers["X-Desk-Key"] = "{DESK_KEY}"', [("Secret Keyword", DESK_KEY, 1)]),
        # mixed case, letters and digits; or a service's secret prefix
        (f"X-API-Key: sk_live_{RANDOM}", [("Stripe Access Key", f"sk_live_{RANDOM}", 1)]),
        (f"X-Api-Key: ak_prod_{RANDOM}", [("Secret Keyword", f"ak_prod_{RANDOM}", 1)]),
        (f"X-Desk-Key: {RANDOM}", [("Secret Keyword", RANDOM, 1)]),
        (f"DESK_KEY=sk_{RANDOM.lower()}", [("Secret Keyword", f"sk_{RANDOM.lower()}", 1)]),
        (f"DESK_KEY={DESK_KEY}", [("Secret Keyword", DESK_KEY, 1)]),
        (f"DESK_KEY={DESK_KEY.lower()}", [("Secret Keyword", DESK_KEY.lower(), 1)]),
        (f'export DESK_KEY="{DESK_KEY}"', [("Secret Keyword", DESK_KEY, 1)]),
        (f"# .env\nDEBUG=false\nDESK_API_KEY={DESK_KEY}\nDESK_TOKEN={API_KEY}\n",
         [("Secret Keyword", DESK_KEY, 3), ("Secret Keyword", API_KEY, 4)]),
        (f"  environment:\n    DESK_KEY: {DESK_KEY}", [("Secret Keyword", DESK_KEY, 2)]),
        (f'os.environ["DESK_KEY"] = "{DESK_KEY}"', [("Secret Keyword", DESK_KEY, 1)]),
        (f"| X-Desk-Key | {DESK_KEY} |", [("Secret Keyword", DESK_KEY, 1)]),
    ],
)  # fmt: skip
def test_credentials_in_words_and_disguised_are_found(
    text: str, found: list[tuple[str, str, int]]
) -> None:
    """What an operator's trial found indexed and served under ``redact``
    (trial 20, F1): names written in words, a password without a user, an
    Authorization header, a value on its own line, keys with invisible or
    fullwidth characters."""
    assert spans(text) == found
    cleaned = redact(text, find_secrets(text))
    for _, value, _ in found:
        assert value not in cleaned and value.replace("\u200b", "") not in cleaned


@pytest.mark.parametrize(
    "text",
    [
        "Authorization: Bearer YOUR_ACCESS_TOKEN_HERE",
        "Authorization: Bearer <token>; Authorization: Basic dXNlcm5hbWVvbmx5",
        "Password:\nMust be at least 12 characters long.\n",
        "Secret access key:\nsee the vault\n",
        "API key: see the dashboard. The API key is rotated every 90 days.",
        "Run pwd to print the working directory; pwd: /home/alice2024",
        "redis://:@localhost:6379 and https://example.com:8443/path@v2",
        "Use the \u200bzero-width\u200b joiner in Ｆｕｌｌｗｉｄｔｈ text.",
        "The token budget: 4096 tokens per request, secret sauce: none.",
        "| Password | Policy |\n| Secret | Santa |\n| Token | value |\n| Auth | on |",
        "| Token budget | 4096 |\n| Sort key | created_at |\n| Primary key | user_id_12345 |",
        # a pipe is a table's cell border only in a table row (a review found
        # shell pipes and commit tables flagged, and their pages left out)
        'Hash it: `echo -n "$password" | sha256sum`',
        "```sh\necho $password | openssl-enc-aes256 -a\ncat secret | kubectl-apply-2024 -f -\n```",
        "| Component | Commit |\n| --- | --- |\n"
        "| auth-service | 9fceb02d0ae598e95dc970b74767f19372d61af8 |",
        "| Service | Build |\n| --- | --- |\n| secrets-manager | build-2024-11-03-rc1 |",
        # header and environment names that say "key" with a placeholder, a
        # variable, nothing, a plain word or number; keys that are no
        # credential (idempotency, cache, public, GPG); a keyboard's key
        "X-API-Key: <your key>\nX-API-Key: <token>\nX-API-Key: YOUR_API_KEY\nX-API-Key: ...",
        "X-Desk-Key: hd_live_xxxxxxxxxxxxxxxxxxxx or hd_live_...; X-Api-Key: changeme",
        "curl -H \"X-API-Key: $API_KEY\" https://x.example; curl -H 'Api-Key: ${TOKEN}' url",
        "Send your key in the X-API-Key header. Header: X-API-Key:\nX-Desk-Key:",
        "SORT_KEY=name\nPRIMARY_KEY=id\nMAX_KEYS=100\nPARTITION_KEY=tenant_id\nKEY=value",
        "DESK_KEY=YOUR_DESK_KEY_HERE\nDESK_KEY=${DESK_KEY}\nexport DESK_KEY=$(vault read desk)",
        "DESK_KEY=settings.DESK_KEY_2024_ABCD\nRAY_NODE_ID_KEY = 'node_id_0001_shard_2024'",
        f"Idempotency-Key: {UUID_KEY}\nX-Idempotency-Key: {UUID_KEY}",
        "X-Cache-Key: 9f8e7d6c5b4a39281706f5e4d3c2b1a0\nCACHE_KEY=v2_9f8e7d6c5b4a3928",
        "ENV GPG_KEY=E3FF2839C048B25C084DEBE9B26995E310250568\n"
        "STRIPE_PUBLISHABLE_KEY=pk_live_51H8abcDEFghiJKLmnoPQRstu",
        "To save, press the Key: Enter. The Key: F12 opens the console; Sort key: created_at.",
    ],
)
def test_names_in_words_without_a_credential_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == []


# A value given to a key's name that is no credential, or no credential's
# value: the review's false positives of the X-...-Key / *_KEY rule (with the
# default ``secrets: skip`` each left its document out of the index), then
# ids, digests and public keys under a name that could be a credential's
NO_CREDENTIAL_KEYS = [
    "ALGOLIA_SEARCH_KEY=3d9875e51fbd20c7754e65422f7a4a1f",
    "export GPG_SIGNING_KEY=4AEE18F83AFDEB23",
    "X-Request-Key: 550e8400-e29b-41d4-a716-446655440000",
    "X-Correlation-Key: 7c9e6679-7425-40de-944b-e07c0c6ca5e1",
    "X-Dedup-Key: 8f14e45fceea167a5a36dedd4bea2543",
    "COMMIT_KEY=9fceb02d0ae598e95dc970b74767f19372d61af8",
    "SSH_HOST_KEY=SHA256nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",
    "PARTITION_KEY=tenant_8f14e45fceea167a5a36dedd4bea2543",
    "LICENSE_KEY=ABCD-1234-EFGH-5678",
    "The table's SORT_KEY=created_at and PK_KEY=a1b2c3d4e5f6a7b8c9d0",
    "X-Content-Key: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "RECAPTCHA_SITE_KEY=6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI",
    "SIGNING_KEY_FINGERPRINT: 3AA5C34371567BD2\nGPG key: export GPG_KEY=3AA5C34371567BD2",
    "S3_OBJECT_KEY=uploads/2024/img_8f14e45fceea167a5a36.png",
    "HTTP/1.1 200 OK\nX-Correlation-Key: 7c9e6679-7425-40de-944b-e07c0c6ca5e1",
    "| X-Correlation-Key | 7c9e6679-7425-40de-944b-e07c0c6ca5e1 |",
    # a name that says so, whatever the value
    f"X-Algolia-Search-Only-Key: {RANDOM}\nSTRIPE_PUBLIC_KEY={DESK_KEY}",
    f"X-GPG-Signing-Key: {RANDOM}\nX-Idempotence-Key: {RANDOM}\nMY_PUB_KEY={DESK_KEY}",
] + [
    line
    for value in (
        # hex of any length, with or without dashes: a key id, a commit, a digest, a UUID
        "4AEE18F83AFDEB23",
        "3d9875e51fbd20c7754e65422f7a4a1f",
        "9fceb02d0ae598e95dc970b74767f19372d61af8",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        UUID_KEY,
        UUID_KEY.upper(),
        # fingerprints: colon-separated, SHA256:, MD5:
        "43:51:43:a1:b5:fc:8b:b7:0a:3a:a9:b1:0f:66:73:a8",
        "SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",
        "MD5:43:51:43:a1:b5:fc:8b:b7:0a:3a:a9:b1:0f:66:73:a8",
        # groups joined by dashes (a licence key, a placeholder)
        "ABCD-1234-EFGH-5678",
        "XXXX-XXXX-XXXX-XXXX",
        "Ab3d-12x4-EfGh-5678-9kLm",
        # base64 padding, an SSH public key, publishable and public keys
        "================",
        "AAAAAAAAAAAAAAAAAAAAAA==",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",
        "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",
        "pk_live_51H8abcDEFghiJKLmnoPQRstu",
        "pk_test_51H8abcDEFghiJKLmnoPQRstu",
        "pub_7Qm2Xv9LpR4tK8sW3nYb6Zc1",
        # a vendor's prefix before no random part; a name
        "hd_live_xxxxxxxxxxxxxxxxxxxx",
        "tenant_8f14e45fceea167a5a36dedd4bea2543",
    )
    for line in (f"X-Desk-Key: {value}", f"DESK_KEY={value}", f"X-API-Key: {value}")
]


@pytest.mark.parametrize("text", NO_CREDENTIAL_KEYS)
def test_keys_that_are_no_credential_are_not_secrets(text: str) -> None:
    """What "key" means besides a credential (an id, a digest, a fingerprint,
    a partition's or a search-only key) is no secret, under a header's or an
    environment's name that says "key" (review of trial 27: docs that quote
    ``X-Correlation-Key: <uuid>`` or ``export GPG_SIGNING_KEY=<key id>``
    were left out of the index)."""
    assert find_secrets(text) == []


def test_random_text_and_base64_blobs_have_no_findings() -> None:
    """Names of credentials in words and short names (``pwd``) must not be
    found inside random text: a first version of the spelled-out names took
    the "pwd" inside random 9-letter tokens for a password's name, and left 3
    of 300 generated documents out of the index. Random tokens, MIME-wrapped
    base64 and a data URI, seeded, as documents hold them."""
    import base64
    import random

    rng = random.Random(20)
    for _ in range(300):
        blob = base64.b64encode(rng.randbytes(3000)).decode()
        tokens = blob.replace("+", "").replace("/", "")
        words = " ".join(tokens[i : i + 9] for i in range(0, len(tokens), 9))
        mime = "\n".join(blob[i : i + 76] for i in range(0, len(blob), 76))
        text = (
            f"# Doc\n\nMarker: the unique fact.\n\n{words}\n\n{mime}\n\n"
            f'<img src="data:image/png;base64,{blob[:600]}">\n'
        )
        assert find_secrets(text) == [], [text[f.start - 30 : f.end] for f in find_secrets(text)]


def test_aws_keys_in_markdown_are_found_at_their_exact_offsets() -> None:
    assert spans(DEPLOY_MD) == [
        ("AWS Access Key", AWS_KEY_ID, 7),
        ("AWS Access Key", AWS_SECRET, 8),  # unquoted: detect-secrets alone misses it
    ]
    clean = redact(DEPLOY_MD, find_secrets(DEPLOY_MD))
    assert AWS_KEY_ID not in clean and AWS_SECRET not in clean
    assert "aws_access_key_id = [REDACTED: AWS Access Key]\n" in clean
    assert "aws_secret_access_key = [REDACTED: AWS Access Key]\nregion = eu-west-1" in clean
    assert clean.startswith("# Deploying the billing service") and clean.endswith("deploy`.\n")


def test_a_pem_key_in_a_text_file_is_redacted_from_begin_to_end() -> None:
    text = f"Staging access\n\nKey for the bastion host:\n\n{PEM_KEY}\n\nRotate it monthly.\n"
    [secret] = find_secrets(text)
    assert secret.kind == "Private Key" and secret.line == 5
    assert text[secret.start : secret.end] == PEM_KEY  # the whole block, not just the header
    assert redact(text, [secret]) == (
        "Staging access\n\nKey for the bastion host:\n\n[REDACTED: Private Key]\n\n"
        "Rotate it monthly.\n"
    )


def test_a_truncated_pem_key_is_redacted_through_its_base64_lines() -> None:
    body = PEM_KEY.splitlines()[:4]
    text = "Pasted by mistake:\n" + "\n".join(body) + "\nQyNTUxOQAAACDh\n\nThat was all.\n"
    [secret] = find_secrets(text)
    assert text[secret.start : secret.end] == "\n".join(body) + "\nQyNTUxOQAAACDh"
    assert redact(text, [secret]).endswith("[REDACTED: Private Key]\n\nThat was all.\n")


def test_a_github_token_in_code() -> None:
    code = f'import os\n\nTOKEN = os.environ.get("GH_TOKEN", "{GITHUB_TOKEN}")\n'
    assert spans(code) == [("GitHub Token", GITHUB_TOKEN, 3)]
    assert redact(code, find_secrets(code)).endswith(
        'os.environ.get("GH_TOKEN", "[REDACTED: GitHub Token]")\n'
    )


def test_a_password_in_a_url_keeps_the_rest_of_the_url() -> None:
    text = "DATABASE_URL=postgres://billing:s3cr3tPassw0rd@db.internal:5432/prod\n"
    assert spans(text) == [("Basic Auth Credentials", "s3cr3tPassw0rd", 1)]
    assert redact(text, find_secrets(text)) == (
        "DATABASE_URL=postgres://billing:[REDACTED: Basic Auth Credentials]@db.internal:5432/prod\n"
    )


def test_a_jwt_is_redacted_with_its_signature() -> None:
    token = (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gR"
        "G9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    )
    text = f"curl -H 'Authorization: Bearer {token}' https://api.internal/v1/me\n"
    assert spans(text) == [("JSON Web Token", token, 1)]


def test_several_kinds_in_one_document_in_order_with_lines() -> None:
    text = (
        "Stripe: sk_live_4eC39HqLyjWDarjtT1zdp7dc\n"
        "Slack: https://hooks.slack.com/services/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\n"
        f"Google: AIzaSyD{'x7Q' * 10}ab\n"
    )
    assert [(kind, line) for kind, _, line in spans(text)] == [
        ("Stripe Access Key", 1),
        ("Slack Token", 2),
        ("Google API Key", 3),
    ]


def test_a_ragloom_server_key_is_a_secret() -> None:
    from ragloom.server.keys import generate_key

    key = generate_key()
    text = f"The bot calls the API with\n\n    Authorization: Bearer {key}\n"
    assert [(kind, line) for kind, _, line in spans(text)] == [("ragloom API Key", 3)]
    assert key not in redact(text, find_secrets(text))


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        (
            "The admin API key is sk-proj-abcdEFGH1234ijklMNOP5678qrstUVWX9012yzab; rotate it.",
            "sk-proj-abcdEFGH1234ijklMNOP5678qrstUVWX9012yzab",
            "OpenAI-style API Key",
        ),
        (
            "The DeepSeek key is sk-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c.",
            "sk-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
            "OpenAI-style API Key",
        ),
        (
            "export STORAGE_API_KEY=9f8e7d6c5b4a39281706f5e4d3c2b1a0\n",
            "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
            "Secret Keyword",
        ),
        (
            '{"client_secret": "Zk3JH9s8Qw2LmN5vB7xC1dR4tY6uI0oP"}',
            "Zk3JH9s8Qw2LmN5vB7xC1dR4tY6uI0oP",
            "Secret Keyword",
        ),
        (  # longer than detect-secrets' 24 characters: all of it
            "The live key is sk_live_51H8abcDEFghiJKLmnoPQRstuVWxyz0123456789abcdefGHIJ here.",
            "sk_live_51H8abcDEFghiJKLmnoPQRstuVWxyz0123456789abcdefGHIJ",
            "Stripe Access Key",
        ),
        (
            "STRIPE=sk_test_4eC39HqLyjWDarjtT1zdp7dcXYZ.",
            "sk_test_4eC39HqLyjWDarjtT1zdp7dcXYZ",
            "Stripe Access Key",
        ),
        (  # an AWS secret with few digits, given to its name
            "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9hx2EXAMPLE\n",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9hx2EXAMPLE",
            "Secret Keyword",
        ),
        (  # RFC 3986 allows ! in a URL's password; detect-secrets' pattern does not
            "database URL: postgresql://monitor:S3cretPgPass!@db-prd-01:5432/metrics",
            "S3cretPgPass!",
            "Basic Auth Credentials",
        ),
        (
            "grafana admin password: Tr0ub4dor&3-halvard.",
            "Tr0ub4dor&3-halvard",
            "Password",
        ),
        ("The diving wiki password Kelp4ever! is on the board.", "Kelp4ever!", "Password"),
        ("For the guest Wi-Fi the password is Fjord2026.", "Fjord2026", "Password"),
        ('DB_PASSWORD="x7#kLp92"', "x7#kLp92", "Password"),
        ("The password is: Kelp4ever2", "Kelp4ever2", "Password"),
        ("password: `Kelp4ever2`", "Kelp4ever2", "Password"),
        ("'password' => 'Kelp4ever2'", "Kelp4ever2", "Password"),
        # words between the name and "is", and other languages' names (new user #1)
        (
            "The VPN shared secret for contractors is: correct-horse-battery-staple-77",
            "correct-horse-battery-staple-77",
            "Password",
        ),
        ("the password for the diving wiki is: Kelp4ever!", "Kelp4ever!", "Password"),
        ("Das WLAN-Passwort lautet: Sommer2024!", "Sommer2024!", "Password"),
        ("Kennwort: Geheim#2024x", "Geheim#2024x", "Password"),
        ("La contraseña es: Lobo#2025mar", "Lobo#2025mar", "Password"),
        # five words before the "is", and the Nordic names with their own
        # verbs (trial 26, F6: a handbook served both)
        (
            "The VPN password for the shared test account is Fjord!Hammer-2026 and it is "
            "rotated yearly.",
            "Fjord!Hammer-2026",
            "Password",
        ),
        (
            "Lösenordet till gästnätet är Sommar2026! och byts varje år.",
            "Sommar2026!",
            "Password",
        ),
        ("LÖSENORD: Sommar2026!", "Sommar2026!", "Password"),
        ("Passordet til gjestenettet er Fjell#2026.", "Fjell#2026", "Password"),
        ("Adgangskoden til gæstenetværket er Strand2026!", "Strand2026!", "Password"),
        ("Kodeordet er Strand2026!", "Strand2026!", "Password"),
        ("Vierasverkon salasana on Kesä2026! ja se vaihdetaan.", "Kesä2026!", "Password"),
        # passwords that end in a word, or look like a standard's name
        ("The password for the shared mailbox is Hunter42-red.", "Hunter42-red", "Password"),
        ("password = 'Blue42-free'", "Blue42-free", "Password"),
        ("The admin password is Acme2024-secure.", "Acme2024-secure", "Password"),
        ("The db password is Rsa12345.", "Rsa12345", "Password"),
        (
            f"token {GITHUB_TOKEN}EXTRA99 in the log",
            f"{GITHUB_TOKEN}EXTRA99",
            "GitHub Token",
        ),
    ],
)
def test_keys_without_a_known_marker_are_found_and_redacted_whole(
    text: str, secret: str, kind: str
) -> None:
    """A new-style OpenAI key, the same shape from other services, a key
    given to a credential's name, and keys longer than their pattern: not
    indexed by the default `secrets: skip`, and, redacted, nothing of them
    stays (a part was left visible before)."""
    assert [(k, found) for k, found, _ in spans(text)] == [(kind, secret)]
    clean = redact(text, find_secrets(text))
    assert secret[-8:] not in clean and f"[REDACTED: {kind}]" in clean


@pytest.mark.parametrize(
    "text",
    [
        "The Team plan costs $12 per user.",
        "pip install scikit-learn sk-learn; the sk-means task was run 20240101 times",
        "Set OPENAI_API_KEY=your-openai-api-key, then SECRET_KEY = settings.SECRET_KEY_ENV1",
        "token = get_token(user_id_12345678); api_key: MY_SECRET_NAME_2024_ABCD",
        "token: token_store_v2_0001_shard_20241103, api_key: RELEASE_2024_11_03_BUILD_1234",
        # names holding a digest or a time (a review found each flagged, its page left out)
        "auth: fix_login_loop_9fceb02d0ae598e95dc970b74767f19372d61af8",
        "token: build_20240115093045abcdef_release",
        "secret_file: backups_2024_01_15_dump0001of0004parts",
        "auth_image: ragloom_web_sha256_e3b0c44298fc1c149afbf4c8996fb924",
        "passwd_md5: file_md5_d41d8cd98f00b204e9800998ecf8427e",
        "The author: Jane Smith-Jones; sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b8",
        "pip install ragloom-sentence-transformers ragloom-a-very-long-hyphenated-plugin-name",
        # a folder a test or a user made: digits, but no capitals, and not 43 long
        "source = /tmp/ragloom-pgvector-48213-quickstart-x1y2z3ab/docs/pricing-faq.md",
        "/srv/ragloom-checkout-2026-12-04-nightly-build-with-a-long-name/docs",
        "Connect with postgres://user:password@localhost:5432/app, or "
        "mongodb+srv://<username>:<password>@cluster0.example.net/db.",
        "Your key file starts with `-----BEGIN OPENSSH PRIVATE KEY-----`; never share it.",
        "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----\n",
        "The forward primer 5'-ACCAGTCGATTGCAAGTCCA-3' amplified the AKIA1 locus.",
        "Set AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY} in the CI settings.",
        "password: see the vault; api_key = os.environ['API_KEY']",
        "Passwords must be at least 12 characters long; reset your password at "
        "https://example.com/reset2 today.",
        "password = self.password2 and PASSWORD=settings.DB_PASSWORD",
        "password: ********, password: ${DB_PASSWORD}, Password: Required (min. 8 chars)",
        "the password hashing uses bcrypt2b; passwords are hashed with sha256.",
        # code and config a review found flagged (each would drop a whole file)
        "        self.embed_tokens = Gemma3nTextScaledWordEmbedding(",
        "tokenizer: sentence-transformers/all-MiniLM-L6-v2",
        "    client.login(username=user.email, password=new_password1)",
        "password_hash = hash_password_sha256(password)",
        "password_file: /run/secrets/postgres-16",
        "PASSWORD=DB_PASSWORD_2",
        "The password for the account is managed by IT.",
        "The client secret is stored in the vault; the shared secret is rotated every 90 days.",
        "Das Passwort muss mindestens 12 Zeichen haben. The password policy is: 12 chars min.",
        "Passwords for contractors are issued by the helpdesk on day 1.",
        # a verb of one language after another's name takes no word for a
        # password ("on" is Finnish's "is"), nor does the window pass a comma
        "The password on PROD-DB01 servers is rotated; the password er PROD-DB02.",
        "Set the password for your account, which is Required2026 since May.",
        "Lösenordet måste vara minst 12 tecken och byts var 90:e dag.",
        "Passordet er hemmelig. Salasana on vaihdettava 90 päivän välein.",
        # what a password is like, a product or a standard, after a long
        # subject; and the Nordic compounds that name something else (a
        # password manager, policy, length) (review of trial 26, M5)
        "The password for each of our customer accounts is AES-256-encrypted at rest.",
        "The password for the shared mailbox of support is 1Password-managed.",
        "The password for every account created after March is 16-characters-long.",
        "The password vault for the whole support team is 1Password.",
        "Lösenordshanteraren vi använder är 1Password.",
        "Lösenordspolicyn för alla konton är ISO-27001.",
        "Passordbehandleren vår er 1Password.",
        "Adgangskodeadministratoren er 1Password.",
        "Lösenordshanteraren vi använder är Bitwarden2026!",
        "Passordkravet er Fjell#2026x, og lösenordsbytet är Sommar2026!",
        "Salasanahallinta on Bitwarden2026!",
    ],
)
def test_prose_placeholders_and_lookalikes_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == []


def test_the_quickstart_docs_have_no_findings() -> None:
    docs = sorted((ROOT / "examples" / "quickstart" / "docs").glob("*.md"))
    assert docs
    for path in docs:
        assert find_secrets(path.read_text("utf-8")) == [], path.name


@pytest.mark.skipif(not SCIFACT.exists(), reason=f"needs the SciFact corpus at {SCIFACT}")
def test_scifact_abstracts_have_no_findings() -> None:
    with SCIFACT.open(encoding="utf-8") as lines:
        for line in lines:
            doc = json.loads(line)
            assert find_secrets(doc["title"] + "\n\n" + doc["text"]) == [], doc["_id"]


def test_redact_merges_overlaps_and_rejects_spans_from_another_text() -> None:
    text = "a SECRETVALUE b"
    overlapping = [Secret("X", 2, 8, 1), Secret("Y", 5, 13, 1)]
    assert redact(text, overlapping) == "a [REDACTED: X] b"
    assert redact(text, []) == text
    with pytest.raises(ValueError, match="outside the text"):
        redact("short", [Secret("X", 2, 40, 1)])


def test_importing_ragloom_does_not_import_detect_secrets() -> None:
    code = "import ragloom, sys; print('detect_secrets' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("pattern", "starts"),
    [
        ("AKIA", ("AKIA",)),
        ("A(?:KIA|SIA|3T)", ("AKIA", "ASIA", "A3T")),
        ("gh[pous]_", ("ghp_", "gho_", "ghu_", "ghs_")),
        (r"SG\.", ("SG.",)),
        (r"-us\d", ("-us",)),  # up to a class
        ("ECRET_?ACCESS", ("ECRET",)),  # not the optional "_", nor what follows it
        ("ab+c", ("ab",)),
        ("x{2}y", ()),
        ("[a-z]key", ()),  # a range is not spelled out
        ("(?<![A-Za-z0-9])pwd", ()),
        ("token|auth", ()),  # top-level alternatives: every text is a candidate
        ("(?:a|b.)c", ()),
        ("Lösenord", ("Lösenord",)),  # letters past ASCII are fixed too
    ],
)
def test_the_fixed_starts_of_an_anchor(pattern: str, starts: tuple[str, ...]) -> None:
    from ragloom.secrets import _fixed_starts

    assert _fixed_starts(pattern) == starts


def test_the_prefilter_finds_what_searching_every_anchor_finds(monkeypatch) -> None:
    """Only the anchors whose fixed start the automaton finds are searched:
    the findings are exactly those of searching every anchor, over texts
    full of credentials (ragloom's tests) and free of them (its docs)."""
    from ragloom import secrets

    texts = [DEPLOY_MD] + [
        path.read_text(encoding="utf-8", errors="replace")
        for pattern in ("tests/*.py", "plugins/*/tests/*.py", "docs/**/*.md", "core/ragloom/*.py")
        for path in sorted(ROOT.glob(pattern))
    ]
    texts += [line for text in texts for line in text.splitlines() if len(line) > 20]
    prefiltered = [find_secrets(text) for text in texts]
    assert sum(map(len, prefiltered)) > 100  # (the tests hold many)

    def every_anchor(text: str) -> list:
        return list(enumerate(d.anchors for d in secrets._detectors()))

    monkeypatch.setattr(secrets, "_candidates", every_anchor)
    assert [find_secrets(text) for text in texts] == prefiltered


def test_a_lone_surrogate_does_not_stop_the_scan() -> None:
    text = f"key \ud83d {AWS_KEY_ID} here"
    assert [(s.kind, text[s.start : s.end]) for s in find_secrets(text)] == [
        ("AWS Access Key", AWS_KEY_ID)
    ]


def test_a_records_secret_is_said_by_its_record_and_its_line_in_the_file() -> None:
    """A ticket of a .jsonl holding a token was said to hold it on "line 3"
    (of the record's text), and a user who opened line 3 of the file found
    another ticket."""
    from ragloom.corpus import _screen_secrets
    from ragloom.types import Document

    ticket = Document(
        id="tickets.jsonl#HD-1004",
        text=f"VPN broken\n\nUser pasted config.\nToken: {GITHUB_TOKEN}\n",
        metadata={"source": "docs/tickets.jsonl", "record_id": "HD-1004", "line": 4},
    )
    notes: list[tuple[str, str]] = []
    assert _screen_secrets(ticket, "skip", lambda s, m: notes.append((s, m))) is None
    [(source, note)] = notes
    assert source == "docs/tickets.jsonl"
    assert "record HD-1004, line 4 of the file" in note and "line 3" not in note
    page = Document(id="p.md", text=f"# Deploy\n\nToken: {GITHUB_TOKEN}\n", metadata={})
    notes.clear()
    _screen_secrets(page, "skip", lambda s, m: notes.append((s, m)))
    assert "(GitHub Token; line 3)" in notes[0][1]
