"""The plugin template in contrib/ is the code docs/testing.md shows."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "docs" / "testing.md").read_text("utf-8")


def block_after(heading: str) -> str:
    start = DOCS.index("```python\n", DOCS.index(heading)) + len("```python\n")
    return DOCS[start : DOCS.index("\n```", start)] + "\n"


@pytest.mark.parametrize(
    ("heading", "path"),
    [
        ("### `ragloom_tinystore/__init__.py`", "src/ragloom_tinystore/__init__.py"),
        ("### `ragloom_tinystore/store.py`", "src/ragloom_tinystore/store.py"),
        ("### `tests/test_tinystore_contract.py`", "tests/test_tinystore_contract.py"),
    ],
)
def test_docs_show_the_template(heading: str, path: str) -> None:
    assert block_after(heading) == (ROOT / "contrib" / "template" / path).read_text("utf-8")
