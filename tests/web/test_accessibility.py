"""Every page a visitor can reach, checked by axe-core in headless Chromium on a phone
(390 px) and a desktop (1366 px): no violation at all, whatever its impact. Screenshots
of each go to the test's tmp folder (pass --basetemp=DIR to keep them)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.web.test_browser import CHROMIUM, pytestmark  # noqa: F401  (the browser marks)

VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1366, "height": 900}}
PAGES = {
    "search": ("/", 200),
    "search-filtered": ("/?q=engineer&country=VN&remote=hybrid", 200),
    "search-empty": ("/?q=zzzzqqqq", 200),
    "search-corrected": ("/?q=engneer+together", 200),
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


@contextmanager
def sized_page(base_url: str, viewport: dict[str, int]) -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        context = browser.new_context(base_url=base_url, viewport=viewport)
        try:
            yield context.new_page()
        finally:
            context.close()
            browser.close()


def violations(page) -> list[str]:
    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in found
    ]


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_every_page_is_axe_clean_on_a_phone_and_a_desktop(
    web, seeded, tmp_path: Path, viewport: str
) -> None:
    with sized_page(web.url, VIEWPORTS[viewport]) as page:
        found = {}
        for name, (path, status) in PAGES.items():
            response = page.goto(path)
            assert response.status == status, name
            page.screenshot(path=tmp_path / f"{viewport}-{name}.png", full_page=True)
            found[name] = violations(page)
    assert found == {name: [] for name in PAGES}, found


def test_the_axe_check_finds_a_violation_planted_in_a_page(web, seeded) -> None:
    """The check can fail: an image without alt text and an unlabelled input are found."""
    with sized_page(web.url, VIEWPORTS["phone"]) as page:
        page.goto("/")
        page.evaluate(
            "document.querySelector('main').insertAdjacentHTML('beforeend',"
            ' \'<img src="x.png"><input type="text">\')'
        )
        found = " ".join(violations(page))
    assert "image-alt" in found
    assert "label" in found
