"""The retrieval playground (``/`` of ``ragloom serve``): its routes over
HTTP, then the page driven in headless Chromium (Debian's ``chromium`` and
``chromedriver`` through selenium, installed by ``make test``).

Screenshots of the browser tests go to ``.cache/artifacts/playground/``
(git-ignored; ``RAGLOOM_ARTIFACTS`` moves them).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import ragloom
from ragloom.cli_support import parse_filter_json
from ragloom.errors import FilterError
from ragloom.filters import parse
from ragloom.plugins import build_plugin_manager
from ragloom.server import Caller, KeyRing, ServerSettings

from .conftest import basic_config
from .test_serve import auth, live_server

KEY_A = "ragloom-group-a-0123456789abcdef"
KEY_B = "ragloom-group-b-0123456789abcdef"
KEY_AB = "ragloom-group-ab-0123456789abcdef"
KEYS = KeyRing.of(
    {
        KEY_A: Caller("a", ("group:a",)),
        KEY_B: Caller("b", ("group:b",)),
        KEY_AB: Caller("ab", ("group:a", "group:b")),
    }
)

SECRET_A = "Alpha budget codeword is HELIOTROPE and the alpha launch is in March."
SECRET_B = "Beta budget codeword is MARIGOLD and the beta launch is in June. ZEBRAFISH."
QUESTIONS = ["What is the budget codeword?", "When is the launch?", "MARIGOLD beta June"]

# The test set the server allows (--eval-file): its text names group B's files
# and words of B's answer, but never B's passages' own sentinels (ZEBRAFISH,
# MARIGOLD), so those may show only if B's passages leak.
EVAL = """\
cases:
  - question: What is the alpha budget codeword?
    must_retrieve: [docs/a/plan.md]
    top_k: 4
  - question: What is the beta budget codeword?
    must_retrieve: [docs/b/plan.md, docs/b/notes.md]
    top_k: 4
  - question: What is the alpha budget codeword?
    answer: {must_contain: [HELIOTROPE]}
  - question: What is the beta budget codeword?
    answer: {must_contain: [June]}
  - question: Which plan is it?
    principals: [group:b]
    must_retrieve: [docs/b/plan.md]
"""
HIDDEN = "cases:\n  - question: Which file is hidden?\n    must_retrieve: [docs/a/plan.md]\n"

ARTIFACTS = Path(
    os.environ.get("RAGLOOM_ARTIFACTS", Path(__file__).parent.parent / ".cache" / "artifacts")
).joinpath("playground")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root: Path = tmp_path_factory.mktemp("playground")
    for group, secret in (("a", SECRET_A), ("b", SECRET_B)):
        folder = root / "docs" / group
        folder.mkdir(parents=True)
        (folder / "plan.md").write_text(f"# Plan\n\n{secret}\n", "utf-8")
        (folder / "notes.md").write_text(f"# Notes\n\nThe budget and launch: {secret}\n", "utf-8")
    config = basic_config(
        access={
            "unlabeled": "deny",
            "rules": [
                {"path": "docs/a/**", "principals": ["group:a"]},
                {"path": "docs/b/**", "principals": ["group:b"]},
            ],
        },
        retrieval={"k": 4},
    )
    pm = build_plugin_manager(load_entry_points=False, env={})
    pipeline = ragloom.load(config, plugin_manager=pm, base_dir=root)
    pipeline.index()
    (root / "evals").mkdir()
    (root / "evals" / "smoke.yaml").write_text(EVAL, "utf-8")
    (root / "hidden.yaml").write_text(HIDDEN, "utf-8")  # on disk, not allowed
    settings = ServerSettings(eval_files=(root / "evals" / "smoke.yaml",))
    with live_server(pipeline, keys=KEYS, settings=settings) as url:
        yield url


def cli_message(text: str) -> str:
    """What ``ragloom search --filter TEXT`` says about ``text``."""
    with pytest.raises(FilterError) as caught:
        parse(parse_filter_json(text))
    return str(caught.value)


# -- over HTTP ----------------------------------------------------------------


def test_page_and_assets_ship_in_the_package(server: str) -> None:
    page = httpx.get(f"{server}/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for asset in ("/static/playground.js", "/static/playground.css"):
        assert asset in page.text
        assert httpx.get(server + asset).status_code == 200
    assert "http://" not in page.text and "https://" not in page.text  # no CDN


def test_api_docs_load_nothing_from_another_host(server: str) -> None:
    """``/docs`` (Swagger UI) takes its script and style from the server, so
    that it works where no CDN is reachable."""
    page = httpx.get(f"{server}/docs")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert "/docs/assets/swagger-ui-bundle.js" in assets and "/docs/assets/swagger-ui.css" in assets
    for asset in assets:
        assert asset.startswith("/docs/"), asset
        answer = httpx.get(server + asset)
        assert answer.status_code == 200 and len(answer.content) > 100, asset
    assert "http://" not in page.text and "https://" not in page.text
    assert httpx.get(f"{server}/docs/oauth2-redirect").status_code == 200


def test_api_docs_behind_a_proxy_prefix(tmp_path: Path) -> None:
    """Served under a prefix (``root_path``, with or without its last slash),
    the page points at the schema and its files under that prefix."""
    from ragloom.server import create_app
    from starlette.testclient import TestClient

    (tmp_path / "docs").mkdir()
    pm = build_plugin_manager(load_entry_points=False, env={})
    pipeline = ragloom.load(basic_config(), plugin_manager=pm, base_dir=tmp_path)
    for prefix in ("/rag", "/rag/"):
        with TestClient(create_app(pipeline, keys=KEYS), root_path=prefix) as client:
            page = client.get("/docs").text
        assets = re.findall(r'(?:src|href)="([^"]+)"', page)
        assert "/rag/docs/assets/swagger-ui-bundle.js" in assets, assets
        assert "url: '/rag/openapi.json'" in page and "//" not in "".join(assets)


def test_me_needs_a_key_and_names_its_principals(server: str) -> None:
    assert httpx.get(f"{server}/v1/playground/me").status_code == 401
    me = httpx.get(f"{server}/v1/playground/me", headers=auth(KEY_AB)).json()
    assert me == {"name": "ab", "principals": ["group:a", "group:b"], "admin": False}


@pytest.mark.parametrize(
    "text", ["{bad", '{"year": {"$bogus": 1}}', "[1]", '{"$and": 3}', '{"year": {"$in": 5}}']
)
def test_filter_check_says_what_the_cli_says(server: str, text: str) -> None:
    response = httpx.post(
        f"{server}/v1/playground/filter", json={"text": text}, headers=auth(KEY_A)
    )
    assert response.status_code == 200
    assert response.json() == {"ok": False, "error": cli_message(text)}


def test_filter_check_accepts_a_good_filter(server: str) -> None:
    body = {"text": ' {"year": {"$gte": 2024}} '}
    response = httpx.post(f"{server}/v1/playground/filter", json=body, headers=auth(KEY_A))
    assert response.json() == {"ok": True, "filter": {"year": {"$gte": 2024}}}
    assert httpx.post(f"{server}/v1/playground/filter", json=body).status_code == 401


def test_search_as_narrows_to_one_of_the_keys_principals(server: str) -> None:
    def sources(key: str, principal: str | None) -> set[str]:
        query = f"?as={principal}" if principal else ""
        response = httpx.post(
            f"{server}/v1/playground/search{query}",
            json={"query": "budget codeword launch", "k": 10},
            headers=auth(key),
        )
        assert response.status_code == 200, response.text
        return {h["source"] for h in response.json()["hits"]}

    assert sources(KEY_AB, None) == {f"docs/{g}/{n}.md" for g in "ab" for n in ("plan", "notes")}
    assert sources(KEY_AB, "group:a") == {"docs/a/plan.md", "docs/a/notes.md"}
    assert sources(KEY_AB, "group:b") == {"docs/b/plan.md", "docs/b/notes.md"}
    assert sources(KEY_A, "group:a") == {"docs/a/plan.md", "docs/a/notes.md"}


@pytest.mark.parametrize("path", ["/v1/playground/search", "/v1/playground/ask"])
def test_search_as_a_principal_the_key_lacks_is_refused(server: str, path: str) -> None:
    body = {"query": "budget"} if path.endswith("search") else {"question": "budget?"}
    response = httpx.post(f"{server}{path}?as=group:b", json=body, headers=auth(KEY_A))
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden"
    assert "ZEBRAFISH" not in response.text and "MARIGOLD" not in response.text


def run_eval(server: str, key: str, file: str = "smoke.yaml", principal: str = "") -> Any:
    query = f"?as={principal}" if principal else ""
    return httpx.post(
        f"{server}/v1/playground/eval{query}", json={"file": file}, headers=auth(key), timeout=60
    )


def test_eval_runs_with_the_keys_principals(server: str) -> None:
    def outcomes(key: str, principal: str = "") -> list[tuple[bool, float | None, str | None]]:
        response = run_eval(server, key, principal=principal)
        assert response.status_code == 200, response.text
        return [(c["passed"], c["ndcg"], c["error"]) for c in response.json()["cases"]]

    refused = "the case runs as 'group:b', which this key may not act as"
    assert outcomes(KEY_A) == [
        (True, 1.0, None),
        (False, 0.0, None),  # B's files are not A's to find
        (True, None, None),
        (False, None, None),  # nor B's answer
        (False, None, refused),  # a case's own principals never widen the key's
    ]
    assert outcomes(KEY_B) == [
        (False, 0.0, None),
        (True, 1.0, None),
        (False, None, None),
        (True, None, None),
        (True, 1.0, None),
    ]
    assert outcomes(KEY_AB, "group:a") == outcomes(KEY_A)
    assert run_eval(server, KEY_A, principal="group:b").status_code == 403


def test_eval_for_a_never_reveals_b(server: str) -> None:
    mine, theirs = run_eval(server, KEY_A), run_eval(server, KEY_B)
    assert "MARIGOLD" in theirs.text  # B's own answer quotes its passage: this could leak
    assert "ZEBRAFISH" not in mine.text and "MARIGOLD" not in mine.text
    for case in mine.json()["cases"]:
        assert not any(hit.startswith("docs/b/") for hit in case["hits"]), case
    assert any(h.startswith("docs/b/") for c in theirs.json()["cases"] for h in c["hits"])


@pytest.mark.parametrize(
    "name", ["hidden.yaml", "../hidden.yaml", "../../hidden.yaml", "evals/smoke.yaml", "smoke"]
)
def test_a_file_the_server_does_not_allow_cannot_be_run(server: str, name: str) -> None:
    response = run_eval(server, KEY_AB, file=name)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert "Which file is hidden" not in response.text
    files = httpx.get(f"{server}/v1/playground/evals", headers=auth(KEY_A)).json()["files"]
    assert [f["name"] for f in files] == ["smoke.yaml"]


# -- in headless Chromium -----------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    assert binary and driver_path, "install Debian's chromium and chromium-driver (make test)"
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.add_argument("--window-size=1280,900")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def page(browser: Any, server: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    """The playground, fresh (no key kept from another test); afterwards a
    screenshot, and the console must hold no error and no warning."""
    browser.set_window_size(1280, 900)
    browser.get(f"{server}/")
    browser.execute_script("sessionStorage.clear()")
    browser.get(f"{server}/")
    browser.get_log("browser")  # start the log at this test
    yield browser
    finish(browser, request.node.name)


def finish(driver: Any, test_name: str) -> None:
    """Save a screenshot; the console must hold no error and no warning."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", test_name).strip("-")
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))
    logged = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert logged == [], logged


def wait(driver: Any, condition: Any, seconds: float = 30) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds).until(condition)


def use_key(driver: Any, key: str) -> None:
    from selenium.webdriver.common.by import By

    field = driver.find_element(By.ID, "key")
    field.clear()
    field.send_keys(key)
    driver.find_element(By.ID, "connect").click()
    wait(driver, lambda d: d.find_element(By.ID, "whoami").text.startswith("as "))


def ask(driver: Any, question: str, filter_text: str = "", button: str = "ask") -> None:
    """Fill the form, press ``button`` and wait until the page is done."""
    from selenium.webdriver.common.by import By

    done = driver.execute_script("return document.body.dataset.done || '0'")
    for field, text in (("question", question), ("filter", filter_text)):
        element = driver.find_element(By.ID, field)
        element.clear()
        if text:
            element.send_keys(text)
    driver.find_element(By.ID, button).click()
    wait(driver, lambda d: d.execute_script("return document.body.dataset.done || '0'") != done)


def test_citation_opens_the_cited_passage(page: Any, server: str) -> None:
    from selenium.webdriver.common.by import By

    use_key(page, KEY_A)
    ask(page, "What is the alpha budget codeword?")
    answer = page.find_element(By.ID, "answer").text
    assert "HELIOTROPE" in answer
    buttons = page.find_elements(By.CSS_SELECTOR, "#answer button.cite")
    assert buttons, answer
    number = int(buttons[0].text.strip("[]"))
    expected = httpx.post(
        f"{server}/v1/ask",
        json={"question": "What is the alpha budget codeword?"},
        headers=auth(KEY_A),
    ).json()
    cited = next(c for c in expected["citations"] if c["number"] == number)
    assert page.find_element(By.ID, "passage").is_displayed() is False
    buttons[0].click()
    passage = page.find_element(By.ID, "passage")
    assert passage.is_displayed()
    assert passage.get_attribute("data-chunk") == cited["chunk_id"]
    assert page.find_element(By.ID, "passage-label").text == cited["label"]
    assert page.find_element(By.ID, "passage-source").text == cited["source"]
    assert "HELIOTROPE" in page.find_element(By.ID, "passage-text").text
    marks = {m.text.lower() for m in passage.find_elements(By.TAG_NAME, "mark")}
    assert {"alpha", "budget", "codeword"} <= marks
    assert page.switch_to.active_element == passage  # focus moves to the passage


def test_explain_row_shows_both_stores_ranks(page: Any, server: str) -> None:
    from selenium.webdriver.common.by import By

    use_key(page, KEY_A)
    ask(page, "alpha budget codeword", button="search")
    heads = [th.text for th in page.find_elements(By.CSS_SELECTOR, "#explain thead th")]
    assert "memory rank" in heads and "bm25 rank" in heads and "Fused score" in heads
    expected = httpx.post(
        f"{server}/v1/search",
        json={"query": "alpha budget codeword", "explain": True},
        headers=auth(KEY_A),
    ).json()
    rows = page.find_elements(By.CSS_SELECTOR, "#explain tbody tr")
    assert len(rows) == len(expected["hits"]) > 0
    for row, hit in zip(rows, expected["hits"]):
        cells = dict(zip(heads, (td.text for td in row.find_elements(By.TAG_NAME, "td"))))
        assert row.get_attribute("data-chunk") == hit["id"]
        for store in ("memory", "bm25"):
            found = hit["explain"]["stores"].get(store)
            assert cells[f"{store} rank"] == (str(found["rank"]) if found else "–")
        assert cells["Fused rank"] == str(hit["explain"]["fused_rank"])
    first = dict(zip(heads, (td.text for td in rows[0].find_elements(By.TAG_NAME, "td"))))
    assert first["memory rank"].isdigit() and first["bm25 rank"].isdigit()
    access = json.loads(page.find_element(By.ID, "access-filter").text)
    assert access == expected["access_filter"] and "group:a" in json.dumps(access)


def test_key_for_a_never_shows_b_through_the_page(page: Any) -> None:
    from selenium.webdriver.common.by import By

    use_key(page, KEY_A)
    options = [o.get_attribute("value") for o in page.find_elements(By.CSS_SELECTOR, "#as option")]
    assert options == ["", "group:a"]
    # (a filter on the access field is refused: test_serve_access)
    sneaky = [
        "",
        '{"$not": {"source": "docs/a/plan.md"}}',
        '{"source": {"$in": ["docs/b/plan.md"]}}',
    ]
    for question in QUESTIONS:
        for filter_text in sneaky:
            ask(page, question, filter_text)
            text = page.find_element(By.TAG_NAME, "main").text
            echo = page.find_element(By.ID, "applied-filter").text  # the request, echoed
            shown = text.replace(question, "").replace(echo, "")
            assert "ZEBRAFISH" not in shown and "docs/b/" not in shown, shown
            assert "MARIGOLD" not in page.find_element(By.ID, "answer-section").text
    # the page can't be talked into another principal either
    page.execute_script(
        "document.getElementById('as').append(new Option('group:b', 'group:b'));"
        "document.getElementById('as').value = 'group:b';"
    )
    ask(page, "MARIGOLD beta June", button="search")
    error = page.find_element(By.ID, "filter-error")
    assert error.is_displayed() and "may not act as 'group:b'" in error.text
    page.get_log("browser")  # the refused request (403) is logged by Chromium, as it should be
    assert "ZEBRAFISH" not in page.find_element(By.TAG_NAME, "main").text


def test_search_as_one_principal_in_the_page(page: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    use_key(page, KEY_AB)
    Select(page.find_element(By.ID, "as")).select_by_value("group:b")
    ask(page, "budget codeword launch", button="search")
    sources = {
        row.find_elements(By.TAG_NAME, "td")[2].text
        for row in page.find_elements(By.CSS_SELECTOR, "#explain tbody tr")
    }
    assert sources and all(s.startswith("docs/b/") for s in sources), sources


@pytest.mark.parametrize("text", ["{bad", '{"year": {"$bogus": 1}}'])
def test_malformed_filter_shows_the_error_inline(page: Any, text: str) -> None:
    from selenium.webdriver.common.by import By

    use_key(page, KEY_A)
    ask(page, "budget", text)
    error = page.find_element(By.ID, "filter-error")
    assert error.is_displayed()
    assert error.text == cli_message(text)
    assert error.get_attribute("role") == "alert"
    assert page.find_element(By.ID, "filter").get_attribute("aria-invalid") == "true"
    assert page.switch_to.active_element == page.find_element(By.ID, "filter")
    assert not page.find_element(By.ID, "explain-section").is_displayed()  # nothing was sent
    ask(page, "budget", '{"source": {"$exists": true}}')
    assert not error.is_displayed()


def test_keyboard_only(page: Any) -> None:
    """Key, question, answer and a citation, with nothing but the keyboard."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    def active() -> Any:
        return page.switch_to.active_element

    def tab_to(element_id: str, most: int = 20) -> None:
        for _ in range(most):
            if active().get_attribute("id") == element_id:
                return
            active().send_keys(Keys.TAB)
        raise AssertionError(f"Tab never reached #{element_id}")

    page.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    tab_to("key")
    active().send_keys(KEY_A, Keys.ENTER)
    wait(page, lambda d: d.find_element(By.ID, "whoami").text.startswith("as "))
    tab_to("question")
    done = page.execute_script("return document.body.dataset.done || '0'")
    active().send_keys("What is the alpha budget codeword?", Keys.CONTROL, Keys.ENTER)
    wait(page, lambda d: d.execute_script("return document.body.dataset.done || '0'") != done)
    tab_to("search")
    for _ in range(5):  # into the answer
        active().send_keys(Keys.TAB)
        if "cite" in (active().get_attribute("class") or ""):
            break
    assert "cite" in (active().get_attribute("class") or ""), active().get_attribute("outerHTML")
    active().send_keys(Keys.ENTER)
    passage = page.find_element(By.ID, "passage")
    assert passage.is_displayed() and active() == passage
    assert "HELIOTROPE" in passage.text
    active().send_keys(Keys.ESCAPE)
    assert not passage.is_displayed()
    assert active().get_attribute("id") == "question"


def test_readable_on_a_narrow_screen(page: Any) -> None:
    from selenium.webdriver.common.by import By

    page.set_window_size(380, 800)
    use_key(page, KEY_A)
    ask(page, "What is the alpha budget codeword?")
    page.find_element(By.CSS_SELECTOR, "#answer button.cite").click()
    widths = page.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
        " parseFloat(getComputedStyle(document.body).fontSize)]"
    )
    assert widths[0] <= widths[1], widths  # no sideways scrolling of the page
    assert widths[2] >= 16
    for element_id in ("question", "filter", "ask", "passage-text"):
        box = page.find_element(By.ID, element_id).rect
        assert box["x"] >= 0 and box["x"] + box["width"] <= widths[1], (element_id, box)


def open_eval(driver: Any) -> None:
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, "tab-eval").click()
    wait(driver, lambda d: d.find_element(By.ID, "eval-run").is_enabled())


def press_run(driver: Any) -> None:
    from selenium.webdriver.common.by import By

    done = driver.execute_script("return document.body.dataset.done || '0'")
    driver.find_element(By.ID, "eval-run").click()
    wait(driver, lambda d: d.execute_script("return document.body.dataset.done || '0'") != done)


def test_eval_view_shows_pass_fail_and_the_chart(page: Any, server: str) -> None:
    from selenium.webdriver.common.by import By

    use_key(page, KEY_B)
    assert not page.find_element(By.ID, "view-eval").is_displayed()
    open_eval(page)
    assert not page.find_element(By.ID, "view-ask").is_displayed()
    options = page.find_elements(By.CSS_SELECTOR, "#eval-file option")
    assert [(o.get_attribute("value"), o.text) for o in options] == [
        ("smoke.yaml", "smoke.yaml (5 cases)")
    ]
    press_run(page)
    expected = run_eval(server, KEY_B).json()
    rows = page.find_elements(By.CSS_SELECTOR, "#eval-table tbody tr")
    assert len(rows) == len(expected["cases"]) == 5
    for row, case in zip(rows, expected["cases"]):
        cells = [td.text for td in row.find_elements(By.TAG_NAME, "td")]
        assert cells[1] == case["question"]
        assert cells[2] == ("PASS" if case["passed"] else "FAIL")
        assert cells[5] == ("–" if case["ndcg"] is None else f"{case['ndcg']:.4f}")
        assert row.get_attribute("data-passed") == str(case["passed"]).lower()
    assert [r.find_elements(By.TAG_NAME, "td")[2].text for r in rows] == [
        "FAIL", "PASS", "FAIL", "PASS", "PASS"
    ]  # fmt: skip
    assert "missing: docs/a/plan.md" in rows[0].text
    summary = page.find_element(By.ID, "eval-summary").text
    assert "2 of 5 case(s) failed" in summary and "retrieval 2/3" in summary
    bars = page.find_elements(By.CSS_SELECTOR, "#eval-chart rect.bar")
    drawn = {(b.get_attribute("data-case"), b.get_attribute("data-metric")): b for b in bars}
    scored = [c for c in expected["cases"] if c["ndcg"] is not None]
    assert len(drawn) == len(bars) == 2 * len(scored) == 6
    for case in scored:
        for metric in ("ndcg", "recall"):
            bar = drawn[(str(case["number"]), metric)]
            assert float(bar.get_attribute("data-value")) == pytest.approx(case[metric], abs=1e-4)
    full = float(drawn[("2", "ndcg")].get_attribute("width"))
    empty = float(drawn[("1", "ndcg")].get_attribute("width"))
    assert full > 100 * empty  # nDCG 1.0 is drawn full, 0.0 as a sliver
    assert page.find_element(By.ID, "eval-chart").is_displayed()


def test_eval_view_for_a_never_shows_b(page: Any) -> None:
    from selenium.webdriver.common.by import By

    use_key(page, KEY_A)
    open_eval(page)
    principals = page.find_elements(By.CSS_SELECTOR, "#eval-as option")
    assert [o.get_attribute("value") for o in principals] == ["", "group:a"]
    press_run(page)
    view = page.find_element(By.ID, "view-eval").text
    assert "ZEBRAFISH" not in view and "MARIGOLD" not in view
    rows = page.find_elements(By.CSS_SELECTOR, "#eval-table tbody tr")
    hits = [r.find_elements(By.TAG_NAME, "td")[8].text for r in rows]
    assert hits[0] and not any("docs/b/" in h for h in hits), hits
    assert "may not act as" in rows[4].text
    assert "not run" in page.find_element(By.ID, "eval-chart").text
    page.execute_script(
        "document.getElementById('eval-as').append(new Option('group:b', 'group:b'));"
        "document.getElementById('eval-as').value = 'group:b';"
    )
    press_run(page)
    error = page.find_element(By.ID, "eval-error")
    assert error.is_displayed() and "may not act as 'group:b'" in error.text
    assert not page.find_element(By.ID, "eval-section").is_displayed()  # no stale results
    page.get_log("browser")  # the refused request (403) is logged by Chromium, as it should be
    assert "ZEBRAFISH" not in page.find_element(By.TAG_NAME, "main").text


def test_eval_view_by_keyboard_on_a_narrow_screen(page: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page.set_window_size(380, 800)

    def active() -> Any:
        return page.switch_to.active_element

    use_key(page, KEY_AB)
    page.find_element(By.ID, "connect").send_keys(Keys.TAB)
    assert active().get_attribute("id") == "tab-ask"
    active().send_keys(Keys.ARROW_RIGHT)
    assert active().get_attribute("id") == "tab-eval"
    assert active().get_attribute("aria-selected") == "true"
    assert page.find_element(By.ID, "view-eval").is_displayed()
    active().send_keys(Keys.TAB)
    assert active().get_attribute("id") == "eval-file"
    active().send_keys(Keys.TAB)
    assert active().get_attribute("id") == "eval-as"
    active().send_keys(Keys.TAB)
    assert active().get_attribute("id") == "eval-run"
    done = page.execute_script("return document.body.dataset.done || '0'")
    active().send_keys(Keys.ENTER)
    wait(page, lambda d: d.execute_script("return document.body.dataset.done || '0'") != done)
    assert len(page.find_elements(By.CSS_SELECTOR, "#eval-table tbody tr")) == 5
    widths = page.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert widths[0] <= widths[1], widths  # the table scrolls in its own box, not the page
    for element_id in ("eval-file", "eval-run", "eval-chart", "eval-summary"):
        box = page.find_element(By.ID, element_id).rect
        assert box["x"] >= 0 and box["x"] + box["width"] <= widths[1], (element_id, box)
    active().send_keys(Keys.SHIFT, Keys.TAB)  # back to the tabs, and to Ask with the arrows
    while active().get_attribute("role") != "tab":
        active().send_keys(Keys.SHIFT, Keys.TAB)
    active().send_keys(Keys.ARROW_LEFT)
    assert active().get_attribute("id") == "tab-ask"
    assert page.find_element(By.ID, "view-ask").is_displayed()
    active().send_keys(Keys.END)  # and back, for the screenshot
    assert page.find_element(By.ID, "eval-chart").is_displayed()


def test_eval_view_says_when_the_server_allows_no_file(
    browser: Any, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    from selenium.webdriver.common.by import By

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nSome text.\n", "utf-8")
    pm = build_plugin_manager(load_entry_points=False, env={})
    pipeline = ragloom.load(basic_config(), plugin_manager=pm, base_dir=tmp_path)
    pipeline.index()
    with live_server(pipeline, keys=KEYS) as url:  # no eval_files
        browser.set_window_size(1280, 900)
        browser.get(f"{url}/")
        browser.execute_script("sessionStorage.clear()")
        browser.get(f"{url}/")
        browser.get_log("browser")
        use_key(browser, KEY_A)
        browser.find_element(By.ID, "tab-eval").click()
        none = browser.find_element(By.ID, "eval-none")
        assert none.is_displayed() and "ragloom serve --eval-file FILE" in none.text
        assert not browser.find_element(By.ID, "eval-run").is_enabled()
        assert browser.find_elements(By.CSS_SELECTOR, "#eval-file option") == []
        finish(browser, request.node.name)


def test_api_docs_render_every_route_offline(
    browser: Any, server: str, request: pytest.FixtureRequest
) -> None:
    """Swagger UI, from the server's own files, renders the schema (this
    machine reaches no CDN): every documented path is on the page."""
    from selenium.webdriver.common.by import By

    browser.set_window_size(1280, 900)
    browser.get(f"{server}/docs")
    browser.get_log("browser")
    paths = set(httpx.get(f"{server}/openapi.json").json()["paths"])

    def shown(driver: Any) -> set[str]:
        return {
            e.get_attribute("data-path")
            for e in driver.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")
        }

    wait(browser, lambda d: shown(d) >= paths)
    assert "/v1/search" in paths and "/v1/ask" in paths
    title = browser.find_element(By.CSS_SELECTOR, ".info .title").text
    assert title.startswith("ragloom")
    finish(browser, request.node.name)
