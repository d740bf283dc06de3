from __future__ import annotations

from pathlib import Path

import pytest
from ragloom.config import load_config, validate_config
from ragloom.errors import ConfigError, ConfigValidationError
from ragloom.registry import Registry

from .conftest import basic_config

BAD_YAML = """\
loaders:
  - type: directory
    path: docs
chunker:
  type: recursive
  size: 300
embedder:
  type: hash
  dimensoin: 128
stores:
  - type: memroy
  - type: bm25
    path: ${RAGLOOM_TEST_MISSING_VAR}
generator:
  type: extractive
"""


def issues_of(exc: ConfigValidationError) -> dict[str, object]:
    return {i.path: i for i in exc.issues}


def test_every_error_at_once_with_paths_lines_and_hints(tmp_path: Path, registry: Registry) -> None:
    path = tmp_path / "ragloom.yaml"
    path.write_text(BAD_YAML)
    with pytest.raises(ConfigValidationError) as info:
        load_config(path, registry, env={})
    issues = issues_of(info.value)
    assert set(issues) == {"embedder.dimensoin", "stores[0].type", "stores[1].path"}
    assert issues["embedder.dimensoin"].line == 9
    assert "did you mean 'dimension'" in str(issues["embedder.dimensoin"])
    assert issues["stores[0].type"].line == 11
    assert "did you mean 'memory'" in str(issues["stores[0].type"])
    assert issues["stores[1].path"].line == 13
    assert "RAGLOOM_TEST_MISSING_VAR" in str(issues["stores[1].path"])
    assert str(path) in str(info.value)


def test_toml_has_the_same_schema_and_lines(tmp_path: Path, registry: Registry) -> None:
    path = tmp_path / "ragloom.toml"
    path.write_text(
        '[[loaders]]\ntype = "directory"\npath = "docs"\n\n'
        '[embedder]\ntype = "hash"\ndimension = 64\n\n'
        '[[stores]]\ntype = "memory"\n\n[[stores]]\ntype = "bm25"\nvariant = "plu"\n'
    )
    with pytest.raises(ConfigValidationError) as info:
        load_config(path, registry, env={})
    (issue,) = info.value.issues
    assert issue.path == "stores[1].variant" and issue.line == 14
    path.write_text(path.read_text().replace('"plu"', '"plus"'))
    config = load_config(path, registry, env={})
    assert [s.name for s in config.stores] == ["memory", "bm25"]
    assert config.embedder.config.dimension == 64
    assert config.base_dir == tmp_path.resolve()


def test_env_vars_defaults_and_escapes(registry: Registry) -> None:
    data = basic_config(
        index_dir="${IDX:-fallback}",
        stores=[{"type": "bm25", "name": "${NAME}"}, {"type": "memory", "name": "$${lit}"}],
    )
    config = validate_config(data, registry, env={"NAME": "kw"})
    assert config.index_dir == "fallback"
    assert [s.name for s in config.stores] == ["kw", "${lit}"]
    # placeholders are written back, never the values
    assert config.to_dict()["stores"][0]["name"] == "${NAME}"
    assert config.to_dict()["index_dir"] == "${IDX:-fallback}"
    # and escapes: the dict loads back to the same literal, not the variable
    assert config.to_dict()["stores"][1]["name"] == "$${lit}"
    again = validate_config(config.to_dict(), registry, env={"NAME": "kw", "lit": "no"})
    assert [s.name for s in again.stores] == ["kw", "${lit}"]
    # set but empty takes the default too, as a shell's :- does (not index_dir "")
    assert validate_config(data, registry, env={"NAME": "kw", "IDX": ""}).index_dir == "fallback"
    assert validate_config(data, registry, env={"NAME": "kw", "IDX": "x"}).index_dir == "x"


def test_unknown_top_level_key_and_missing_store(registry: Registry) -> None:
    with pytest.raises(ConfigValidationError) as info:
        validate_config({"loader": [], "stores": []}, registry, env={})
    issues = issues_of(info.value)
    assert "did you mean 'loaders'" in str(issues["loader"])
    assert "at least one store" in str(issues["stores"])


@pytest.mark.parametrize(
    ("extra", "where", "guess"),
    [
        ({"retrieval": {"kk": 3}}, "retrieval.kk", "did you mean 'k'?"),
        ({"indexing": {"secret": "skip"}}, "indexing.secret", "did you mean 'secrets'?"),
        ({"retrieval": {"feedback": {"doc": 3}}}, "retrieval.feedback.doc", "'docs'"),
        (
            {"access": {"rules": [{"pth": "x/**", "principals": ["a"]}]}},
            "access.rules[0].pth",
            "did you mean 'path'?",
        ),
    ],
)
def test_an_unknown_key_in_a_settings_section_gets_the_nearest_one(
    registry: Registry, extra: dict, where: str, guess: str
) -> None:
    """Top-level keys and component options had a "did you mean"; the
    settings sections said only "Extra inputs are not permitted"."""
    with pytest.raises(ConfigValidationError) as info:
        validate_config(basic_config(**extra), registry, env={})
    said = str(info.value)
    assert f"{where}: unknown key" in said and guess in said


def test_dense_store_needs_embedder_and_names_unique(registry: Registry) -> None:
    data = basic_config(stores=[{"type": "memory"}, {"type": "bm25", "name": "memory"}])
    del data["embedder"]
    with pytest.raises(ConfigValidationError) as info:
        validate_config(data, registry, env={})
    text = str(info.value)
    assert "no embedder is configured" in text and "used twice" in text


def test_bad_option_value_and_missing_required(registry: Registry) -> None:
    data = basic_config(
        loaders=[{"type": "directory"}], chunker={"type": "recursive", "size": "big"}
    )
    with pytest.raises(ConfigValidationError) as info:
        validate_config(data, registry, env={})
    issues = issues_of(info.value)
    assert "missing required option 'path'" in str(issues["loaders[0].path"])
    assert "chunker.size" in issues


def test_to_config_round_trips(registry: Registry) -> None:
    data = basic_config(
        stores=[{"type": "memory", "weight": 2.0}, {"type": "bm25", "name": "kw", "k": 7}]
    )
    config = validate_config(data, registry, env={})
    dumped = config.to_dict()
    again = validate_config(dumped, registry, env={})
    assert again.to_dict() == dumped
    assert again.stores[1].name == "kw" and again.stores[1].k == 7
    assert again.stores[0].weight == 2.0


def test_missing_file_and_invalid_yaml(tmp_path: Path, registry: Registry) -> None:
    with pytest.raises(ConfigError, match="ragloom init"):
        load_config(tmp_path / "nope.yaml", registry)
    bad = tmp_path / "bad.yaml"
    bad.write_text("stores:\n  - type: bm25\n   oops: [\n")
    with pytest.raises(ConfigValidationError, match="invalid YAML") as info:
        load_config(bad, registry)
    assert info.value.issues[0].line is not None
    assert "indentation" in (info.value.issues[0].hint or "")  # `oops` is one space short


def test_a_key_indented_unlike_those_beside_it_is_said_to_be(
    tmp_path: Path, registry: Registry
) -> None:
    """A trial's mis-indented key got PyYAML's words alone ("expected <block
    end>, but found '<block mapping start>'"), which name no fix."""
    bad = tmp_path / "bad.yaml"
    for text, line in (
        ("loaders:\n  - type: directory\n    path: docs\n   include: ['*.md']\n", 4),
        ("loaders:\n  - type: directory\n    path: docs\n     include: ['*.md']\n", 4),
        ("generator:\n  type: openai\n  system_prompt: Note: be brief\n", 3),
    ):
        bad.write_text(text)
        with pytest.raises(ConfigValidationError, match="invalid YAML") as info:
            load_config(bad, registry)
        (issue,) = info.value.issues
        assert issue.line == line and "check this line's indentation" in (issue.hint or "")
    assert "must be quoted" in (issue.hint or "")  # the last: a value holding ": "


def test_a_tab_or_an_unclosed_quote_or_bracket_is_said_with_its_fix(
    tmp_path: Path, registry: Registry
) -> None:
    """A trial's tab and unclosed quote got PyYAML's words alone ("found
    character '\\t' that cannot start any token", "found unexpected end of
    stream" at the file's last line)."""
    bad = tmp_path / "bad.yaml"
    for text, line, hint in (
        ("generator:\n\ttype: extractive\n", 2, "replace the tab on this line with spaces"),
        (
            'loaders:\n  - type: directory\n    include: ["**/*.md]\nchunker: {type: markdown}\n',
            3,
            "the quote opened on this line is never closed",
        ),
        ("stores: [{type: bm25}\nchunker: {type: markdown}\n", 1, "close it with ]"),
    ):
        bad.write_text(text)
        with pytest.raises(ConfigValidationError, match="invalid YAML") as info:
            load_config(bad, registry)
        (issue,) = info.value.issues
        assert issue.line == line and hint in (issue.hint or ""), (text, issue)


def test_a_bare_variable_in_a_flow_mapping_says_to_quote_it(
    tmp_path: Path, registry: Registry
) -> None:
    """Every example writes components as `{type: ..., path: ...}`, and an unset
    variable's hint says `${VAR:-default}`: written there bare, YAML reads its
    `{` as a mapping, and the error said only "expected ',' or '}'"."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "stores: [{type: bm25}]\nloaders: [{type: directory, path: ${DOCS_DIR:-docs}}]\n"
    )
    with pytest.raises(ConfigValidationError, match="invalid YAML") as info:
        load_config(bad, registry)
    (issue,) = info.value.issues
    assert issue.line == 2 and issue.hint == (
        "a ${...} inside {...} or [...] must be quoted: "
        'loaders: [{type: directory, path: "${DOCS_DIR:-docs}"}]'
    )
    bad.write_text(issue.hint.partition(": ")[2] + "\nstores: [{type: bm25}]\n")
    load_config(bad, registry, env={"DOCS_DIR": "docs"})  # as the hint writes it, it reads


def test_config_never_imports_code(registry: Registry) -> None:
    data = basic_config(generator={"type": "os.system"})
    with pytest.raises(ConfigValidationError, match="unknown generator type 'os.system'"):
        validate_config(data, registry, env={})


def test_a_value_of_the_wrong_type_is_told_how_to_write_it(registry: Registry) -> None:
    data = basic_config(
        loaders={"type": "directory", "path": "docs"},  # a mapping where a list goes
        chunker={"type": "recursive", "size": "big"},
        retrieval={"k": "five"},
    )
    with pytest.raises(ConfigValidationError) as info:
        validate_config(data, registry, env={})
    hints = {i.path: i.hint for i in info.value.issues}
    assert (
        hints["chunker.size"]
        == hints["retrieval.k"]
        == "write a whole number, without quotes or units"
    )
    assert "one `- item` per line" in hints["loaders"]


NESTED_YAML = """\
loaders: [{type: directory, path: docs}]
chunker:
  type: route
  routes:
    - {match: {extension: .md}, chunker: {type: markdown, sise: 3}}
    - {match: {extension: .py}, chunker: {type: code, sise: 9}}
    - match: {}
      chunker: {type: code}
embedder: {type: hash}
stores: [{type: memory}]
retreival: {k: 3}
"""


def test_each_nested_problem_is_an_issue_on_its_own_line(
    tmp_path: Path, registry: Registry
) -> None:
    # every wrong route of a route chunker (and every wrong layer of a layers
    # one) is counted and placed by itself, not joined into one issue at the
    # chunker's line; a misspelt top-level key beside them is its own issue
    path = tmp_path / "ragloom.yaml"
    path.write_text(NESTED_YAML)
    with pytest.raises(ConfigValidationError) as info:
        load_config(path, registry, env={})
    issues = sorted(info.value.issues, key=lambda i: i.line or 0)
    assert [(i.path, i.line) for i in issues] == [
        ("chunker", 5),
        ("chunker", 6),
        ("chunker", 7),
        ("retreival", 11),
    ]
    assert "routes[0] (markdown): sise: unknown option" in issues[0].message
    assert "routes[1] (code): sise: unknown option" in issues[1].message
    assert "routes[2].match: name a field" in issues[2].message
    assert "did you mean 'retrieval'" in str(issues[3])
    assert str(info.value).startswith(f"4 error(s) in {path}")

    path.write_text(
        "loaders: [{type: directory, path: docs}]\nchunker:\n  type: layers\n  layers:\n"
        "    passages: {type: recursive, sise: 1000}\n"
        "    sentences: {type: sentense}\n"
        "embedder: {type: hash}\nstores: [{type: memory}]\n"
    )
    with pytest.raises(ConfigValidationError) as info:
        load_config(path, registry, env={})
    assert [(i.path, i.line) for i in info.value.issues] == [
        ("chunker.layers", 5),
        ("chunker.layers", 6),
    ]
    assert "did you mean 'sentence'" in info.value.issues[1].message


def test_two_stores_of_one_type_cannot_share_a_folder(registry: Registry) -> None:
    """`config check` said ok, and both wrote the same `shared/memory.npz`."""
    data = basic_config(
        stores=[
            {"type": "bm25", "path": "shared"},  # its own file there
            {"type": "memory", "name": "a", "path": "shared"},
            {"type": "memory", "name": "b", "path": "shared/"},
        ]
    )
    with pytest.raises(ConfigValidationError) as info:
        validate_config(data, registry, env={})
    (issue,) = info.value.issues
    assert issue.path == "stores[2].path" and "as store 'a' (stores[1]) does" in str(issue)


def test_a_number_a_variable_left_empty_blames_the_variable(
    tmp_path: Path, registry: Registry
) -> None:
    """``k: "${K:-}"`` was "write a whole number, without quotes or units":
    the quotes are what YAML needs around a ${...}; the value is empty."""
    path = tmp_path / "ragloom.yaml"
    path.write_text(
        "loaders: [{type: directory, path: docs}]\n"
        "embedder: {type: hash, dimension: '${DIM}'}\n"
        "stores:\n"
        '  - {type: memory, k: "${K:-}"}\n'
    )
    with pytest.raises(ConfigValidationError) as info:
        load_config(path, registry, env={"DIM": ""})
    issues = issues_of(info.value)
    for where, name in (("stores[0].k", "K"), ("embedder.dimension", "DIM")):
        said = str(issues[where])
        assert f"{name} is empty" in said and "leave the key out" in said
        assert "quotes" not in said
    # a value that is no number is still told how to write one
    with pytest.raises(ConfigValidationError) as info:
        load_config(path, registry, env={"DIM": "64", "K": "five"})
    assert "without quotes or units" in str(issues_of(info.value)["stores[0].k"])
