"""The OpenAPI schema fuzzed with schemathesis against the live server, bounded
(a fixed number of examples per operation, derandomized, no shrinking
deadline): no request, valid or not, may get a 5xx, and every response
must be one the schema documents."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ragloom
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from ragloom.plugins import build_plugin_manager
from ragloom.server import Caller, create_app
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    status_code_conformance,
)

from .conftest import DOCS, basic_config
from .test_serve import ADMIN, auth, live_server

EXAMPLES = 25

# The schema comes from the app object (building an app opens nothing); the
# requests go over HTTP to a live server of the same app, started below.
schema = schemathesis.openapi.from_dict(
    create_app(ragloom.load(basic_config(), base_dir=Path(".")), anonymous=Caller("x")).openapi()
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("fuzz")
    (root / "docs").mkdir()
    for name, text in DOCS.items():
        (root / "docs" / name).write_text(text, "utf-8")
    pm = build_plugin_manager(load_entry_points=False, env={})
    pipeline = ragloom.load(basic_config(), plugin_manager=pm, base_dir=root)
    pipeline.index()
    with live_server(pipeline) as url:
        yield url


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_api_fuzz(case: Any, server: str) -> None:
    case.call_and_validate(
        base_url=server,
        headers=auth(ADMIN),
        timeout=30,
        checks=[not_a_server_error, status_code_conformance, content_type_conformance],
    )
