"""Every page a visitor can reach, checked by axe-core in headless Chromium on a phone
(390 px) and a desktop (1366 px), in English and in Vietnamese (a browser asking for
Vietnamese): no violation at all, whatever its impact. Screenshots of each go to the
test's tmp folder (pass --basetemp=DIR to keep them), and with JOBHARBOR_SCREENSHOTS=DIR
there too (`make screenshots`: docs/screenshots/web; of the Vietnamese pages, those
named in KEEP_VI)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.web.test_browser import (  # noqa: F401  (the browser marks)
    DESKTOP,
    PHONE,
    browser_page,
    pytestmark,
)

VIEWPORTS = {"phone": PHONE, "desktop": DESKTOP}
# The browser's language: None is Playwright's default (English).
LANGUAGES = {"en": None, "vi": "vi-VN"}
# The Vietnamese pages kept with the English set (the names of PAGES).
KEEP_VI = ("search", "search-filtered", "job")
# `make screenshots` keeps the current set in docs/screenshots/web as well.
KEEP = (
    [Path(os.environ["JOBHARBOR_SCREENSHOTS"])] if os.environ.get("JOBHARBOR_SCREENSHOTS") else []
)
PAGES = {
    "search": ("/", 200),
    "search-filtered": ("/?q=engineer&country=VN&remote=hybrid", 200),
    "search-empty": ("/?q=zzzzqqqq", 200),
    "search-corrected": ("/?q=engneer+together", 200),
    "search-grouped": ("/?country=VN&group=company", 200),
    "search-filters-open": ("/?country=VN#filters", 200),
    "job": ("/jobs/1001", 200),
    "job-marked": ("/jobs/1001?q=build+together", 200),
    "closed-job": ("/jobs/999", 410),
    "missing-job": ("/jobs/424242", 404),
    "stats": ("/stats", 200),
    "company": ("/companies/acme", 200),
    "refused-search": ("/?q=engineer&salary_min=5&country=VN", 422),
    "missing-page": ("/no/such/page", 404),
}


def violations(page) -> list[str]:
    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in found
    ]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_every_page_is_axe_clean_on_a_phone_and_a_desktop(
    web, seeded, tmp_path: Path, viewport: str, language: str
) -> None:
    prefix = viewport if language == "en" else f"{viewport}-{language}"
    with browser_page(web.url, VIEWPORTS[viewport], locale=LANGUAGES[language]) as page:
        found = {}
        for name, (path, status) in PAGES.items():
            response = page.goto(path)
            assert response.status == status, name
            assert page.locator("html").get_attribute("lang") == language, name
            kept = KEEP if language == "en" or name in KEEP_VI else []
            for folder in (tmp_path, *kept):
                page.screenshot(path=folder / f"{prefix}-{name}.png", full_page=True)
            found[name] = violations(page)
    assert found == {name: [] for name in PAGES}, found


def test_the_axe_check_finds_a_violation_planted_in_a_page(web, seeded) -> None:
    """The check can fail: an image without alt text and an unlabelled input are found."""
    with browser_page(web.url, VIEWPORTS["phone"]) as page:
        page.goto("/")
        page.evaluate(
            "document.querySelector('main').insertAdjacentHTML('beforeend',"
            ' \'<img src="x.png"><input type="text">\')'
        )
        found = " ".join(violations(page))
    assert "image-alt" in found
    assert "label" in found
