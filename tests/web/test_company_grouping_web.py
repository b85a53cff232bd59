"""group=company on the API and the search page: items carry `more_at_company` with a
link to the company's page under the same filters, the grouping is a form field that
works without JavaScript and stays out of a canonical address at its default, an
unknown value is a 422 naming `group`, and the page reads on a phone and a desktop."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.web.test_browser import (
    DESKTOP,
    PHONE,
    browser_page,
    shot,
)
from tests.web.test_browser import pytestmark as browser_marks


def get(web, path: str, **params) -> httpx.Response:
    return httpx.get(web.url + path, params=params, timeout=10)


def _items(web, **params) -> list[dict]:
    items, cursor = [], None
    while True:
        asked = {**params, **({"cursor": cursor} if cursor else {})}
        body = get(web, "/api/jobs", **asked).json()
        items += body["items"]
        cursor = body["next_cursor"]
        if cursor is None:
            return items


def test_api_lists_at_most_three_a_company_and_links_the_rest_with_their_count(web, seeded) -> None:
    filters = {"country": "VN", "q": "engineer OR analyst OR designer OR intern OR manager"}
    grouped = _items(web, **filters, group="company", limit=4)
    assert len({i["id"] for i in grouped}) == len(grouped)
    assert max(Counter(i["company"] for i in grouped if i["company"]).values()) == 3
    every = Counter(i["company"] for i in _items(web, **filters, limit=50))
    mores = [i["more_at_company"] for i in grouped if i["more_at_company"]]
    assert mores
    for more in mores:
        assert more["count"] == every[more["company"]] - 3
        link = urlsplit(more["url"])
        assert link.path == f"/companies/{more['slug']}"
        assert parse_qs(link.query) == {k: [v] for k, v in filters.items()}
        # The company's page lists every one the count counts, and the 3 shown.
        company = httpx.get(web.url + "/api" + more["url"], timeout=10).json()
        assert company["jobs"] == more["count"] + 3


def test_api_accepts_the_default_grouping_by_name(web, seeded) -> None:
    named = get(web, "/api/jobs", group="none", limit=50).json()
    plain = get(web, "/api/jobs", limit=50).json()
    assert [i["id"] for i in named["items"]] == [i["id"] for i in plain["items"]]
    assert all("more_at_company" not in item for item in plain["items"])


@pytest.mark.parametrize("path", ["/api/jobs", "/"])
def test_an_unknown_grouping_is_a_422_naming_group(web, path) -> None:
    response = get(web, path, group="title")
    assert response.status_code == 422
    if path == "/api/jobs":
        assert any("group" in error["loc"] for error in response.json()["detail"])
    else:
        assert "group" in response.text


def test_the_openapi_document_states_the_groupings(web) -> None:
    spec = get(web, "/openapi.json").json()
    [group] = [p for p in spec["paths"]["/api/jobs"]["get"]["parameters"] if p["name"] == "group"]
    assert group["schema"]["enum"] == ["none", "company"]
    assert group["schema"]["default"] == "none"
    assert "more_at_company" in group["description"]


def test_a_form_sent_without_javascript_redirects_to_the_short_address(web) -> None:
    sent = get(web, "/", q="", sort="newest", group="company")
    assert (sent.status_code, sent.headers["location"]) == (303, "/?group=company")
    default = get(web, "/", group="none", country="VN")
    assert (default.status_code, default.headers["location"]) == (303, "/?country=VN")


def test_the_page_shows_n_more_at_a_company_linking_its_page(web, seeded) -> None:
    page = get(web, "/", country="VN", group="company")
    assert page.status_code == 200
    acme = sum(1 for r in seeded if "VN" in r["countries"] and r["company"] == "Acme")
    assert f'<a href="/companies/acme?country=VN">{acme - 3} more at Acme</a>' in page.text
    assert '<option value="company" selected>Up to 3 per company</option>' in page.text
    assert "up to 3 shown per company" in page.text
    # Paging keeps the grouping; the count is the list's jobs, not "of N" listed.
    small = get(web, "/", country="VN", group="company", limit=2).text
    assert re.search(r'href="/\?country=VN&amp;group=company&amp;limit=2&amp;cursor=', small)
    assert not re.search(r"Showing 1–2 of", small)


@browser_marks[0]  # browser
@browser_marks[1]  # skipped without Chromium
@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("javascript", [False, True])
@pytest.mark.parametrize("viewport", ["phone", "desktop"])
def test_switching_to_grouped_by_company_in_a_browser(
    web, tmp_path: Path, viewport: str, javascript: bool
) -> None:
    (tmp_path / "screenshots").mkdir()
    size = PHONE if viewport == "phone" else DESKTOP
    with browser_page(web.url, size, javascript=javascript) as page:
        page.goto("/?country=VN")
        page.get_by_label("Show").select_option("company")
        if not javascript:
            page.get_by_role("button", name="Search").click()
        more = page.get_by_role("link", name=re.compile(r"^\d+ more at Acme$"))
        more.wait_for()
        assert "group=company" in page.url
        box = more.bounding_box()
        assert box is not None
        assert box["height"] >= 24
        assert 0 <= box["x"] <= box["x"] + box["width"] <= size["width"]
        shot(page, tmp_path, f"grouped-{viewport}-{'js' if javascript else 'nojs'}")
        more.click()
        page.wait_for_url(re.compile(r"/companies/acme\?country=VN$"))
