"""Company pages: /companies/{slug} lists a company's open jobs with the search page's
filters, its sources and a stats panel, /api/companies/{slug} the same as JSON; a
posting's company links there; an unknown slug is a 404."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import httpx
import pytest

from serving_sync.companies import slug
from tests.web.test_browser import (  # noqa: F401  (the browser marks)
    DESKTOP,
    PHONE,
    browser_page,
    pytestmark,
    shot,
)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Acme", "acme"),
        ("Quiet Systems, Inc.", "quiet-systems-inc"),
        ("Công ty Cổ phần FPT", "cong-ty-co-phan-fpt"),
        ("  A&B  (Europe) ", "a-b-europe"),
    ],
)
def test_a_slug_is_the_name_folded_into_words(name: str, expected: str) -> None:
    assert slug(name) == expected


def test_the_api_answers_a_companys_jobs_sources_and_counts(web, seeded) -> None:
    rows = [r for r in seeded if r["company"] == "Acme"]
    body = httpx.get(web.url + "/api/companies/acme", timeout=10).json()
    assert body["company"] == "Acme"
    assert body["jobs"] == len(rows)
    sources = {s["value"]: s["count"] for s in body["stats"]["source"]}
    assert sources == dict(Counter(r["source"] for r in rows))
    modes = {s["value"]: s["count"] for s in body["stats"]["work_mode"]}
    assert sum(modes.values()) == len(rows)
    assert {i["company"] for i in body["items"]} == {"Acme"}
    assert len(body["items"]) == min(20, len(rows))


def test_the_list_filters_apply_on_a_company_page_too(web, seeded) -> None:
    expected = sum(1 for r in seeded if r["company"] == "Acme" and "VN" in r["countries"])
    body = httpx.get(web.url + "/api/companies/acme", params={"country": "VN"}, timeout=10)
    assert body.json()["jobs"] == expected
    page = httpx.get(web.url + "/companies/acme", params={"country": "VN"}, timeout=10).text
    assert re.search(rf'id="result-count">{expected} open jobs?', page)


def test_an_unknown_company_is_a_404_page_and_a_404_body(web, seeded) -> None:
    page = httpx.get(web.url + "/companies/no-such-company", timeout=10)
    assert page.status_code == 404
    assert "Company not found" in page.text
    api = httpx.get(web.url + "/api/companies/no-such-company", timeout=10)
    assert api.status_code == 404
    assert api.json() == {"detail": "no such company"}
    assert httpx.get(web.url + "/companies/Acme", timeout=10).status_code == 404  # slugs only


def test_a_result_links_its_company_page_which_lists_its_jobs(web, seeded, tmp_path: Path) -> None:
    total = sum(1 for r in seeded if r["company"] == "Globex")
    for viewport, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        with browser_page(web.url, viewport, javascript=False) as page:
            page.goto("/?company=Globex")
            page.locator("ol.results a.company").first.click()
            assert page.url.endswith("/companies/globex")
            assert page.get_by_role("heading", level=1).inner_text() == "Globex"
            assert page.locator("#result-count").inner_text().startswith(f"{total} open job")
            metas = page.locator("ol.results .meta a.company").all_inner_texts()
            assert metas
            assert set(metas) == {"Globex"}
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= viewport["width"]
            shot(page, tmp_path, f"{name}-company")


def test_a_company_page_names_its_own_short_address_as_canonical(web, seeded) -> None:
    """Empty and default parameters drop out; a filter that changes the list stays."""
    page = httpx.get(
        web.url + "/companies/acme", params={"country": "VN", "q": "", "sort": "newest"}, timeout=10
    )
    found = re.findall(r'<link rel="canonical" href="([^"]+)">', page.text)
    assert found == [web.url + "/companies/acme?country=VN"]
