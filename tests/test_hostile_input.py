"""Hostile and broken inputs: secret files and links to them, escape sequences
in file names and texts, nonsense on the command line, filters nested to blow
the stack, config files that are not UTF-8 text, short legacy-encoded files.

The command-line tests run the installed ``ragloom`` script, as a user does.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from ragloom.builtin.loaders._files import decode_text
from ragloom.builtin.loaders.directory import DirectoryLoader
from ragloom.builtin.stores._columns import Columns
from ragloom.cli_support import sanitize
from ragloom.components import Context
from ragloom.configfile import read_config_file
from ragloom.errors import ConfigError, ConfigValidationError, FilterError
from ragloom.filters import MAX_DEPTH, And, Condition, Not, evaluate, parse
from ragloom.terminal import clean

from .conftest import basic_config

RAGLOOM = str(Path(sys.executable).parent / "ragloom")

# what a terminal acts on: C0 but newline and tab, DEL, C1, and the bidi overrides
UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(
        [RAGLOOM, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


class Reports(list):
    def __call__(self, source: str, message: str) -> None:
        self.append((source, message))


def write(root: Path, relative: str, content: str | bytes = "text\n") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def symlink(link: Path, target: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    try:
        link.symlink_to(target, target_is_directory=target.is_dir())
    except (OSError, NotImplementedError) as exc:  # Windows without developer mode
        pytest.skip(f"cannot create symlinks here: {exc}")


def load_ids(context: Context, path: str = ".", **options: object) -> list[str]:
    loader = DirectoryLoader(path=path, **options)
    loader.open(context)
    return [doc.id for doc in loader.load()]


@pytest.fixture
def context(tmp_path: Path) -> Context:
    return Context(base_dir=tmp_path, report=Reports(), index_dir=tmp_path / ".ragloom")


# -- secret files -----------------------------------------------------------------

SECRET_FILES = [
    ".aws/credentials",
    ".aws/config",
    "home/.aws/sso/cache/token.json",
    ".git-credentials",
    ".pgpass",
    ".htpasswd",
    ".docker/config.json",
    "deploy/.docker/config.json",
    "infra/terraform.tfstate",
    "infra/terraform.tfstate.backup",
    "infra/prod.tfvars",
    ".kube/config",
    ".ssh/config",
    ".ssh/authorized_keys",
    "android/release.keystore",
    "server/truststore.JKS",
    ".vault-token",
    ".boto",
    ".s3cfg",
    ".my.cnf",
    "kubeconfig",
    "rails/config/secrets.yml",
    "home/.cargo/credentials.toml",
    "home/.config/gh/hosts.yml",
    "client_secret_1234.apps.json",
    "keys/putty.ppk",
]

ORDINARY_FILES = [
    "docs/credentials.md",  # a page about credentials
    "docs/secrets-management.md",
    "docs/terraform.md",
    "docker/config.json",  # not in a .docker folder
    "config.json",
    "notes/aws.md",
    "notes/ssh.txt",
]


def test_secret_files_are_never_loaded_ordinary_ones_are(tmp_path: Path, context: Context):
    for name in SECRET_FILES + ORDINARY_FILES:
        write(tmp_path, name, "hunter2\n")
    assert load_ids(context, include=["**"]) == sorted(ORDINARY_FILES)
    assert context.report == []  # skipped silently, as before


def test_a_symlinked_git_folder_is_not_followed_into(tmp_path: Path, context: Context):
    write(tmp_path, "repo/.git/notes.md", "internal notes\n")
    write(tmp_path, "repo/.git/config", '[remote "origin"]\n  url = https://x:tok@host/r\n')
    write(tmp_path, "root/a.md", "# A\n")
    symlink(tmp_path / "root" / "repo", tmp_path / "repo" / ".git")
    assert load_ids(context, "root", include=["**"], follow_symlinks=True) == ["root/a.md"]


def test_links_to_files_in_denied_folders_or_to_denied_files_are_skipped(
    tmp_path: Path, context: Context
):
    write(tmp_path, "home/.ssh/notes.md", "ssh notes\n")
    write(tmp_path, "home/.docker/config.json", '{"auths": {"x": {"auth": "dTpw"}}}\n')
    write(tmp_path, "home/.aws/credentials", "[default]\n")
    write(tmp_path, "home/project/.git/HEAD.md", "ref: refs/heads/main\n")
    write(tmp_path, "home/shared/ok.md", "# Shared\n")
    write(tmp_path, "root/a.md", "# A\n")
    root = tmp_path / "root"
    symlink(root / "leak.md", tmp_path / "home" / ".ssh" / "notes.md")
    symlink(root / "registry.json", tmp_path / "home" / ".docker" / "config.json")
    symlink(root / "aws.txt", tmp_path / "home" / ".aws" / "credentials")
    symlink(root / "head.md", tmp_path / "home" / "project" / ".git" / "HEAD.md")
    symlink(root / "index", tmp_path / ".ragloom")
    symlink(root / "ok.md", tmp_path / "home" / "shared" / "ok.md")
    write(tmp_path, ".ragloom/chunks.md", "indexed\n")
    got = load_ids(context, "root", include=["**"], follow_symlinks=True)
    assert got == ["root/a.md", "root/ok.md"]


def test_links_out_of_the_root_into_system_folders_are_never_followed(
    tmp_path: Path, context: Context
):
    """``docs/shadow.txt -> /etc/shadow``: a server run as root read and
    served it."""
    write(tmp_path, "root/a.md", "# A\n")
    root = tmp_path / "root"
    for name, target in (
        ("passwd.txt", "/etc/passwd"),
        ("hosts.txt", "/etc/hosts"),
        ("environ.txt", "/proc/self/environ"),
        ("etc", "/etc"),
    ):
        symlink(root / name, Path(target))
    got = load_ids(context, "root", include=["**"], follow_symlinks=True)
    assert got == ["root/a.md"]


def test_a_source_reached_through_a_link_to_a_denied_folder_is_skipped(
    tmp_path: Path, context: Context
):
    write(tmp_path, "repo/.git/notes.md", "internal notes\n")
    write(tmp_path, "docs/a.md", "# A\n")
    symlink(tmp_path / "docs" / "repo", tmp_path / "repo" / ".git")
    loader = DirectoryLoader(path="docs", follow_symlinks=True)
    loader.open(context)
    only = loader.with_sources(["docs/repo/notes.md", "docs/a.md"])
    assert only is not None
    assert [doc.id for doc in only.load()] == ["docs/a.md"]


# -- escape sequences reach no terminal ------------------------------------------------

HOSTILE_NAME = "price\x1b[2Jlist.md"  # ESC [2J: clear the screen
HOSTILE_TEXT = (
    "# Pricing\n\nThe \x1b]8;;https://evil.example/\x1b\\Pro plan\x1b]8;;\x1b\\ costs "
    "\x1b[31m$29\x1b[0m per user per month.\x1b]0;owned\x07 Bills are \u202eexe.fdp\u202c "
    "monthly.\x07\n"
)


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A project whose one document has an escape sequence in its name and
    OSC 8 / CSI / OSC 0 sequences, a bell and a bidi override in its text."""
    write(tmp_path, f"docs/{HOSTILE_NAME}", HOSTILE_TEXT)
    write(tmp_path, "docs/empty\x1b[5mblink.md", "")  # reported as a problem
    (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    return tmp_path


def assert_terminal_safe(result: subprocess.CompletedProcess) -> None:
    for stream, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        bad = UNSAFE.search(text)
        assert bad is None, f"{stream} has {bad.group()!r}: {text!r}"


def test_human_output_carries_no_escape_sequences(hostile: Path) -> None:
    dry = run("index", "--dry-run", cwd=hostile)
    assert dry.returncode == 0, dry.stderr
    assert "+ docs/price" in dry.stdout and "note docs/empty" in dry.stdout
    assert_terminal_safe(dry)
    indexed = run("index", cwd=hostile)
    assert indexed.returncode == 0 and "+1 added" in indexed.stdout
    assert_terminal_safe(indexed)
    found = run("search", "How much is the Pro plan?", cwd=hostile)
    assert found.returncode == 0 and "Pro plan" in found.stdout
    assert_terminal_safe(found)
    answer = run("ask", "How much is the Pro plan?", cwd=hostile)
    assert answer.returncode == 0 and "$29 per user per month" in answer.stdout
    assert "\\u202e" in answer.stdout  # the override is shown, not obeyed
    assert_terminal_safe(answer)
    verbose = run("-v", "search", "Pro plan", cwd=hostile)  # debug logs name files too
    assert_terminal_safe(verbose)


def test_errors_and_eval_output_carry_no_escape_sequences(hostile: Path) -> None:
    assert run("index", cwd=hostile).returncode == 0
    hostile_filter = json.dumps({"\x1b[31mred": {"$near": 1}})  # ESC in a field name
    bad_filter = run("search", "x", "--filter", hostile_filter, cwd=hostile)
    assert bad_filter.returncode == 2 and "unknown field operator" in bad_filter.stderr
    assert_terminal_safe(bad_filter)
    cases = hostile / "eval\x1b[1m.yaml"
    cases.write_text(
        yaml.safe_dump(
            {"cases": [{"question": "Pro plan \x1b[31mprice\x07?", "must_retrieve": ["x\x1b[0m"]}]}
        )
    )
    evaluated = run("eval", str(cases), cwd=hostile)  # names no indexed document
    assert evaluated.returncode == 2 and "names no indexed" in " ".join(evaluated.stderr.split())
    assert_terminal_safe(evaluated)
    cases.write_text(
        yaml.safe_dump(
            {
                "cases": [
                    {
                        "question": "Pro plan \x1b[31mprice\x07?",
                        "must_retrieve": ["docs/price\\x1b[2Jlist.md"],  # its id
                        "must_not_retrieve": ["docs/price\\x1b[2Jlist.md"],
                    }
                ]
            }
        )
    )
    evaluated = run("eval", str(cases), cwd=hostile)
    assert evaluated.returncode == 1 and "FAIL" in evaluated.stdout
    assert_terminal_safe(evaluated)
    broken = run("config", "check", "nope\x1b[2J.yaml", cwd=hostile)
    assert broken.returncode == 2
    assert_terminal_safe(broken)


def test_json_output_keeps_the_exact_text(hostile: Path) -> None:
    # a file name's control characters are escaped in its id, as a newline must
    # be (it could fake a line of a report): the id is the same on every run
    named = "docs/price\\x1b[2Jlist.md"
    dry = json.loads(run("index", "--dry-run", "--json", cwd=hostile).stdout)
    assert dry["added"] == [named]
    assert run("index", cwd=hostile).returncode == 0
    [hit] = json.loads(run("search", "Pro plan", "-k", "1", "--json", cwd=hostile).stdout)
    assert hit["source"] == named
    assert "\x1b]8;;https://evil.example/\x1b\\Pro plan" in hit["text"]
    assert "\u202eexe.fdp\u202c" in hit["text"]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain text, Café 日本語 ✓", "plain text, Café 日本語 ✓"),
        ("a \x1b[1;31mred\x1b[0m b", "a red b"),
        ("\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\", "click"),
        ("title\x1b]0;owned\x07 done", "title done"),
        ("dcs \x1bPq#0;2;0;0;0\x1b\\ after", "dcs  after"),
        ("\x1bc reset, then a lone \x1b", " reset, then a lone "),
        ("8-bit \x9b31m csi", "8-bit \\x9b31m csi"),
        ("bell\x07 cr\r back", "bell\\x07 cr\\x0d back"),
        ("line\r\nnext\ttab", "line\nnext\ttab"),
        ("invoice\u202efdp.exe\u2066x\u2069", "invoice\\u202efdp.exe\\u2066x\\u2069"),
        ("unterminated \x1b]0;title\nnext line", "unterminated \nnext line"),
        # a file name's bytes that are not UTF-8 (os.fsdecode keeps them as surrogates)
        ("bad\udcff\udc80.md", "bad\\xff\\x80.md"),
    ],
)
def test_sanitize(text: str, shown: str) -> None:
    assert sanitize(text) == shown
    assert UNSAFE.search(sanitize(text)) is None
    assert sanitize(clean(text)) == shown  # what answers hold prints the same


RTL = (
    "# Offices\n\nThe Tel Aviv office is at \u202b\u05e8\u05d7\u05d5\u05d1 "
    "\u05d4\u05e8\u05e6\u05dc 12\u202c, and the invoices are named "
    "\u2067\u05d7\u05e9\u05d1\u05d5\u05e0\u05d9\u05ea\u2069 or invoice\u202efdp.exe.\n"
)


def test_answers_keep_right_to_left_text_and_show_overrides(tmp_path: Path) -> None:
    """Hebrew and Arabic text from word processors holds bidi embeddings and
    isolates (U+202A-U+202C, U+2066-U+2069): answers and their quotes keep
    them as characters, in JSON as from Python (they were shown as the six
    characters ``\\u202b``, garbling every such answer: trial 20, F6); the
    override that reverses letters stays an escape; a terminal gets escapes."""
    write(tmp_path, "docs/offices.md", RTL)
    (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    assert run("index", cwd=tmp_path).returncode == 0
    asked = run(
        "ask", "Where is the Tel Aviv office, and how are invoices named?", "--json", cwd=tmp_path
    )
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)
    for said in (answer["answer"], answer["citations"][0]["quote"]):
        assert "\u202b\u05e8\u05d7\u05d5\u05d1" in said and "12\u202c" in said, said
        assert "\u2067\u05d7" in said and "\\u202b" not in said, said
        assert "invoice\\u202efdp.exe" in said and "\u202e" not in said, said
    shown = run("ask", "Where is the Tel Aviv office, and how are invoices named?", cwd=tmp_path)
    assert "\\u202b" in shown.stdout and "\\u202e" in shown.stdout
    assert_terminal_safe(shown)


# -- command-line validation ------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, "docs/pricing.md", "# Pricing\n\nThe Pro plan costs $29 per user.\n")
    write(tmp_path, "docs/security.md", "# Security\n\nData is encrypted at rest.\n")
    (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    assert run("index", cwd=tmp_path).returncode == 0
    return tmp_path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("search", "-k", "0", "pricing"), "Invalid value for '-k': 0 is not in the range 1<=x"),
        (("search", "-k", "-1", "pricing"), "Invalid value for '-k': -1 is not in the range"),
        (("ask", "-k", "0", "pricing?"), "Invalid value for '-k': 0 is not in the range 1<=x"),
        (("ask", "-k", "20000", "pricing?"), "Invalid value for '-k': 20000 is not in the range"),
        (("search", "-k", "10001", "pricing"), "Invalid value for '-k': 10001 is not in the range"),
        (("search", ""), "QUERY is empty"),
        (("search", "  \t "), "QUERY is empty"),
        (("ask", " "), "QUESTION is empty"),
    ],
)
def test_bad_k_and_empty_queries_are_one_line_usage_errors(
    project: Path, args: tuple[str, ...], message: str
) -> None:
    result = run(*args, cwd=project)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {message}")
    assert result.stderr.count("\n") == 1, result.stderr  # one line
    assert f"(see `ragloom {args[0]} --help`)" in result.stderr


def test_sources_given_through_a_symlinked_folder_are_the_loaders_paths(tmp_path: Path):
    write(tmp_path, "shared/docs/a.md", "# A\n\nAlpha.\n")
    write(tmp_path, "shared/docs/b.md", "# B\n\nBeta.\n")
    project = tmp_path / "project"
    symlink(project / "docs", tmp_path / "shared" / "docs")
    (project / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    result = run("index", "docs/a.md", "--json", cwd=project)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["added"] == ["docs/a.md"]


# -- filters nested to blow the stack -------------------------------------------------


def nested(op: str, depth: int) -> dict:
    spec: dict = {"tier": "pro"}
    for _ in range(depth):
        spec = {op: spec} if op == "$not" else {op: [spec]}
    return spec


@pytest.mark.parametrize("op", ["$not", "$and", "$or"])
def test_filters_nested_past_the_limit_are_filter_errors(op: str) -> None:
    assert parse(nested(op, MAX_DEPTH)) is not None
    with pytest.raises(FilterError, match=f"more than {MAX_DEPTH} levels") as info:
        parse(nested(op, MAX_DEPTH + 1))
    assert str(info.value).startswith(op)  # the path of the offending operator
    with pytest.raises(FilterError, match=f"more than {MAX_DEPTH} levels"):
        parse(nested(op, 3000))


def test_the_deepest_filter_evaluates_in_python_and_in_the_memory_store() -> None:
    spec = {"$and": [{"$not": {"$or": [{"tier": "free"}]}}], "year": 2024}
    for _ in range(MAX_DEPTH // 3 - 1):
        spec = {"$and": [{"$not": {"$or": [spec]}}], "year": 2024}
    where = parse(spec)
    rows = [{"tier": "pro", "year": 2024}, {"tier": "free", "year": 2024}]
    expected = [evaluate(where, row) for row in rows]
    assert list(Columns(rows).mask(where)) == expected


def test_a_filter_tree_built_too_deep_in_code_is_refused() -> None:
    tree: Condition | Not | And = Condition("tier", "$eq", "pro")
    for _ in range(2 * MAX_DEPTH + 1):
        tree = Not(tree)
    assert parse(tree) is tree
    with pytest.raises(FilterError, match="nests And/Or/Not more than"):
        parse(Not(tree))


def test_a_deeply_nested_filter_on_the_command_line_is_a_usage_error(project: Path):
    for depth in (MAX_DEPTH + 1, 3000):
        deep = '{"$not": ' * depth + '{"tier": "pro"}' + "}" * depth
        result = run("search", "pricing", "--filter", deep, cwd=project)
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
        assert f"{MAX_DEPTH} levels" in result.stderr


# -- config files that are not UTF-8 text ---------------------------------------------


def test_a_latin1_config_is_a_config_error_with_offset_and_fix(tmp_path: Path) -> None:
    path = write(tmp_path, "ragloom.yaml", "loaders:\n  - type: directory\n    path: caf\xe9\n")
    path.write_bytes(path.read_text("utf-8").encode("latin-1"))
    with pytest.raises(ConfigError) as info:
        read_config_file(path)
    message = str(info.value)
    assert str(path) in message and "byte 0xe9 at offset 42 (line 3)" in message
    assert "save the file as UTF-8" in message
    result = run("config", "check", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("ragloom.yaml", b"", "is empty"),
        ("ragloom.yaml", b"# nothing here yet\n\n", "is empty"),
        ("ragloom.toml", b"", "is empty"),
        ("ragloom.yaml", b"- type: directory\n- type: bm25\n", "the top level is a list"),
        ("ragloom.yaml", b"just words\n", "single str value.*; check the file"),
        ("ragloom.yaml", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "is a binary file"),
        ("ragloom.yaml", "loaders: []\n".encode("utf-16"), "is UTF-16 text"),
        ("ragloom.yaml", b"x: " + b"[" * 5000 + b"]" * 5000 + b"\n", "nests lists or mappings"),
    ],
)
def test_unreadable_configs_are_one_line_config_errors(
    tmp_path: Path, name: str, content: bytes, says: str
) -> None:
    path = write(tmp_path, name, content)
    with pytest.raises(ConfigError, match=says) as info:
        read_config_file(path)
    assert not isinstance(info.value, ConfigValidationError)  # one line, not a list
    assert str(path) in str(info.value)
    result = run("config", "check", name, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1


def test_a_key_given_twice_is_a_config_error_naming_both_lines(tmp_path: Path) -> None:
    """YAML keeps the last of two equal keys: the setting written first would
    be ignored without a word."""
    path = write(
        tmp_path,
        "ragloom.yaml",
        b"embedder: {type: hash}\nstores:\n  - {type: bm25, k1: 1.2, k1: 1.5}\n"
        b"embedder: {type: sentence-transformers}\n",
    )
    with pytest.raises(ConfigValidationError) as info:
        read_config_file(path)
    said = {(i.path, i.line): i.message for i in info.value.issues}
    assert said.keys() == {("embedder", 4), ("stores[0].k1", 3)}
    assert "lines 1 and 4" in said[("embedder", 4)] and "keep one" in said[("embedder", 4)]
    assert "both on line 3" in said[("stores[0].k1", 3)]
    merged = write(tmp_path, "m.yaml", b"base: &b {type: hash}\nembedder:\n  <<: *b\n  x: 1\n")
    assert read_config_file(merged)[0]["embedder"] == {"type": "hash", "x": 1}  # a merge key


def test_a_utf8_config_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = write(tmp_path, "ragloom.toml", b'\xef\xbb\xbf[chunker]\ntype = "recursive"\n')
    data, lines = read_config_file(path)
    assert data == {"chunker": {"type": "recursive"}} and lines[("chunker", "type")] == 2


# -- short legacy-encoded files ------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Café crème brûlée, naïve façade.\n",
        "Größe und Länge: die Straße ist schön.\n",
        "“Smart quotes” – and € signs… don’t panic.\n",
    ],
)
def test_a_short_latin1_or_cp1252_text_decodes_as_cp1252_and_says_so(text: str) -> None:
    reports: list[str] = []
    assert decode_text(text.encode("cp1252"), "auto", report=reports.append) == text
    assert reports == [
        "decoded as cp1252 (guessed: not UTF-8, and too short for a reliable guess); "
        "set `encoding:` on the loader if its accented letters look wrong"
    ]


def test_the_five_bytes_cp1252_leaves_undefined_decode_as_latin1() -> None:
    reports: list[str] = []
    data = b"Caf\xe9 \x81 and \x9d, read as latin-1 here.\n"
    assert decode_text(data, "auto", report=reports.append) == data.decode("latin-1")
    assert reports and reports[0].startswith("decoded as cp1252 (guessed")


def test_a_guess_from_a_few_stray_bytes_is_said() -> None:
    """Mostly ASCII with a few bytes that are UTF-8 in no way: a code page
    guessed from so few is said, with the first of them, not taken silently."""
    reports: list[str] = []
    data = b"# Broken\n\nvalid text \xff\xfe\xc3(" + b" more text.\n" * 50
    assert decode_text(data, "auto", report=reports.append) is not None
    assert len(reports) == 1 and "guessed from 3 byte(s) outside ASCII" in reports[0]
    assert "byte 0xff at offset 21" in reports[0]
    # a text in another script, guessed from many, is read as before, silently
    russian = ("Привет, как дела? Это текст на русском языке. " * 20).encode("cp1251")
    assert decode_text(russian, "auto", report=reports.append).startswith("Привет")
    assert len(reports) == 1


@pytest.mark.parametrize(
    ("text", "codec"),
    [
        ("日本語のテキストです。これは短い文章です。", "shift_jis"),
        ("這是一個簡短的中文句子，用於測試。", "big5"),
        ("Привет, как дела? Это документ.", "cp1251"),
        ("Καλημέρα κόσμε, τι κάνεις;", "cp1253"),
    ],
)
def test_short_texts_in_other_scripts_are_not_read_as_cp1252(text: str, codec: str) -> None:
    reports: list[str] = []
    decoded = decode_text(text.encode(codec), "auto", report=reports.append)
    assert decoded in (None, text)  # never cp1252 mojibake
    assert not any("cp1252" in r for r in reports)


def test_the_command_lines_k_bound_is_the_pipelines() -> None:
    from ragloom import cli, pipeline

    assert cli.MAX_K == pipeline.MAX_K


def test_file_names_not_utf8_or_with_control_characters_are_indexed(tmp_path: Path) -> None:
    """A name whose bytes are not UTF-8 stopped every index run (the ledger
    takes only UTF-8: `unexpected UnicodeEncodeError`, and nothing else was
    indexed); a newline in a name could fake a line of the report. Their ids
    hold them as escapes, the same on every run."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text("# Tea\n\nA normal document about tea.\n")
    with open(os.path.join(os.fsencode(docs), b"caf\xff.md"), "wb") as handle:
        handle.write(b"# Cafe\n\nThe cafe opens at nine.\n")
    (docs / "line\nerror: fake.md").write_text("# Fake\n\nA newline in its name, zorblat.\n")
    (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    first = run("index", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "+3 added" in first.stdout
    found = json.loads(run("search", "cafe nine", "--json", "-k", "1", cwd=tmp_path).stdout)
    assert found[0]["document_id"] == "docs/caf\\xff.md"
    found = json.loads(run("search", "zorblat", "--json", "-k", "1", cwd=tmp_path).stdout)
    assert found[0]["document_id"] == "docs/line\\x0aerror: fake.md"
    assert "=3 unchanged" in run("index", cwd=tmp_path).stdout  # the same ids again
    (docs / "line\nerror: fake.md").unlink()
    assert "-1 deleted" in run("index", cwd=tmp_path).stdout


def test_non_ascii_names_keep_their_ids_under_any_locale(tmp_path: Path) -> None:
    """Under a locale that is not UTF-8, Python decodes "café.md" otherwise,
    and every such document was deleted and added again each time the
    locale changed (cron's LANG=C against a login shell's)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "café.md").write_text("# Café\n\nThe café opens at nine.\n")
    (docs / "東京.md").write_text("# Tokyo\n\nThe office in Tokyo opens at ten.\n")
    (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    assert "+2 added" in run("index", cwd=tmp_path).stdout
    c_locale = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0",
                "PYTHONCOERCECLOCALE": "0"}  # fmt: skip
    again = subprocess.run(
        [RAGLOOM, "index", "--dry-run", "--json"], cwd=tmp_path, capture_output=True,
        text=True, env=c_locale, timeout=120,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert (report["added"], report["changed"], report["deleted"]) == ([], [], [])
    assert report["unchanged"] == 2


def test_a_name_written_as_an_escape_keeps_its_own_id(tmp_path: Path) -> None:
    """`new<LF>line.md` and a file literally named `new\\x0aline.md` got one
    id: one of them was left out, depending on the walk's order."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "new\nline.md").write_text("# One\n\nThe lions sleep here.\n")
    (docs / "new\\x0aline.md").write_text("# Two\n\nThe otters swim here.\n")
    (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    first = run("index", cwd=tmp_path)
    assert first.returncode == 0 and "+2 added" in first.stdout, first.stdout + first.stderr
    lions = json.loads(run("search", "lions", "--json", "-k", "1", cwd=tmp_path).stdout)
    otters = json.loads(run("search", "otters", "--json", "-k", "1", cwd=tmp_path).stdout)
    assert lions[0]["document_id"] == "docs/new\\x0aline.md"
    assert otters[0]["document_id"] == "docs/new\\x5cx0aline.md"
    assert "=2 unchanged" in run("index", cwd=tmp_path).stdout


def test_a_run_of_one_file_deletes_it_whatever_its_name(tmp_path: Path) -> None:
    """`ragloom index FILE` for a deleted file whose id holds an escape (a
    literal `\\x41` in its name) compared the id as a path: it stayed indexed."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "price\\x41.md").write_text("# Price\n\nThe price is 10 euros.\n")
    (docs / "other.md").write_text("# Other\n\nAnother note.\n")
    (tmp_path / "ragloom.yaml").write_text(yaml.safe_dump(basic_config()))
    assert "+2 added" in run("index", cwd=tmp_path).stdout
    (docs / "price\\x41.md").unlink()
    scoped = run("index", "docs/price\\x41.md", cwd=tmp_path)
    assert scoped.returncode == 0 and "-1 deleted" in scoped.stdout, scoped.stdout + scoped.stderr
    assert "=1 unchanged" in run("index", cwd=tmp_path).stdout
