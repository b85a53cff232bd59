"""Typeahead as a client and a visitor meet it: GET /api/suggest over a real socket as
the web role, and the search box as an ARIA 1.2 combobox in headless Chromium, by
keyboard, with the names a screen reader reads, axe-clean while open, and the plain
form untouched without JavaScript."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.serving.conftest import SEED_ROWS
from tests.web.test_accessibility import VIEWPORTS, violations
from tests.web.test_browser import browser_page, pytestmark  # noqa: F401  (the browser marks)

DATA_ENGINEERS = sum(r["title"] == "Data Engineer" for r in SEED_ROWS)


def _suggest(web, **params) -> httpx.Response:
    return httpx.get(web.url + "/api/suggest", params=params, timeout=10)


def test_the_api_suggests_kinds_counts_and_the_link_that_selects_each(web, seeded) -> None:
    body = _suggest(web, q="data eng").json()
    assert body["q"] == "data eng"
    first = body["suggestions"][0]
    assert first == {
        "kind": "title",
        "label": "Data Engineer",
        "count": DATA_ENGINEERS,
        "param": "q",
        "value": '"Data Engineer"',
        "url": "/?q=%22Data+Engineer%22",
    }
    places = _suggest(web, q="Ha No").json()["suggestions"]
    assert {(s["kind"], s["param"], s["label"]) for s in places} == {
        ("place", "city", "Hà Nội"),
        ("place", "region", "Hà Nội"),
    }
    # Each link lists as many jobs as the suggestion says.
    page = httpx.get(web.url + first["url"], timeout=10).text
    assert f"{DATA_ENGINEERS} jobs match" in page


def test_the_api_suggests_nothing_below_two_characters_and_names_bad_input(web) -> None:
    assert _suggest(web, q="d").json()["suggestions"] == []
    assert _suggest(web).json()["suggestions"] == []
    for params, name in (({"q": "x" * 61}, "q"), ({"q": "da", "kind": "title"}, "kind")):
        response = _suggest(web, **params)
        assert response.status_code == 422
        assert any(name in error["loc"] for error in response.json()["detail"])


def _options(page) -> list[str]:
    return page.locator('#q-suggestions [role="option"] .suggestion-label').all_inner_texts()


def test_the_search_box_is_a_keyboard_combobox(web, seeded, tmp_path: Path) -> None:
    with browser_page(web.url, javascript=True) as page:
        page.goto("/")
        box = page.get_by_role("combobox", name="Search")
        assert box.get_attribute("aria-expanded") == "false"
        box.press_sequentially("data en", delay=20)
        listbox = page.get_by_role("listbox", name="Suggestions")
        listbox.wait_for(state="visible")
        assert box.get_attribute("aria-expanded") == "true"
        # The list may first show a shorter prefix's answer ("data e"): wait for the last.
        status = page.locator("#q-suggestions-status")
        page.wait_for_function(
            "el => el.textContent.startsWith('1 suggestion')", arg=status.element_handle()
        )
        assert _options(page)[0] == "Data Engineer"
        # What a screen reader announces: how many, and each option's name.
        assert status.inner_text().startswith("1 suggestion")
        option = page.get_by_role("option", name="Data Engineer")
        assert option.count() == 1
        page.screenshot(path=tmp_path / "combobox-open.png")
        box.press("ArrowDown")
        assert box.get_attribute("aria-activedescendant") == "q-suggestion-0"
        assert option.get_attribute("aria-selected") == "true"
        box.press("Escape")
        assert box.get_attribute("aria-expanded") == "false"
        assert box.get_attribute("aria-activedescendant") is None
        box.press("ArrowDown")  # opens it again
        listbox.wait_for(state="visible")
        box.press("ArrowDown")
        box.press("Enter")
        page.wait_for_url("**/?q=*")
        assert parse_qs(urlsplit(page.url).query)["q"] == ['"Data Engineer"']
        assert page.locator("#result-count").inner_text() == f"{DATA_ENGINEERS} jobs match"


def test_enter_without_a_chosen_suggestion_searches_for_what_was_typed(web, seeded) -> None:
    with browser_page(web.url, javascript=True) as page:
        page.goto("/")
        box = page.get_by_role("combobox", name="Search")
        box.press_sequentially("engineer", delay=20)
        page.get_by_role("listbox", name="Suggestions").wait_for(state="visible")
        box.press("Enter")
        page.wait_for_url("**/?q=engineer*")
        assert parse_qs(urlsplit(page.url).query)["q"] == ["engineer"]


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_open_combobox_is_axe_clean(web, seeded, tmp_path: Path, viewport: str) -> None:
    with browser_page(web.url, VIEWPORTS[viewport]) as page:
        page.goto("/")
        page.get_by_role("combobox", name="Search").press_sequentially("se", delay=20)
        page.get_by_role("listbox", name="Suggestions").wait_for(state="visible")
        page.screenshot(path=tmp_path / f"{viewport}-combobox.png")
        assert violations(page) == []


def test_without_javascript_the_box_is_a_plain_search_field(web, seeded) -> None:
    with browser_page(web.url, javascript=False) as page:
        page.goto("/")
        assert page.get_by_role("combobox", name="Search").count() == 0  # the sort list is one
        page.get_by_role("searchbox", name="Search").fill("designer")
        page.get_by_role("button", name="Search").click()
        page.wait_for_url("**/?q=designer*")
        assert "Product Designer" in page.locator("ol.results").inner_text()
