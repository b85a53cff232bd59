"""The web app in headless Chromium (system Chromium through Playwright): what a person
does, by mouse and by keyboard. Screenshots of each page go to the test's tmp folder
(pass --basetemp=DIR to keep them)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pipeline.settings import Settings

CHROMIUM = Settings().browser_executable
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        shutil.which(CHROMIUM) is None,
        reason=f"{CHROMIUM} not installed (Debian: apt-get install -y chromium)",
    ),
]


PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}


@contextmanager
def browser_page(
    base_url: str,
    viewport: dict[str, int] | None = None,
    *,
    javascript: bool = True,
    locale: str | None = None,
) -> Iterator:
    """One page of the system Chromium, headless, on the web app (Playwright's default
    1280x720 unless a viewport is given; `locale` is the browser's language, which it
    sends as Accept-Language)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        options: dict = {"viewport": viewport} if viewport else {}
        if locale:
            options["locale"] = locale
        context = browser.new_context(base_url=base_url, java_script_enabled=javascript, **options)
        try:
            yield context.new_page()
        finally:
            context.close()
            browser.close()


@pytest.fixture
def page(web, tmp_path: Path) -> Iterator:
    with browser_page(web.url, javascript=False) as found:
        yield found


def shot(page, tmp_path: Path, name: str) -> None:
    page.screenshot(path=tmp_path / "screenshots" / f"{name}.png", full_page=True)


def result_titles(page) -> list[str]:
    return page.locator("ol.results h2 a").all_inner_texts()


def test_search_filter_paginate_and_open_a_job(page, seeded, tmp_path) -> None:
    page.goto("/")
    page.get_by_label("Search", exact=True).fill("engineer")
    page.get_by_label("Search", exact=True).press("Enter")
    assert re.search(r"\d+ jobs match", page.get_by_role("status").inner_text())
    shot(page, tmp_path, "1-search")
    page.get_by_label(re.compile(r"^Viet Nam \(VN\)")).check()
    page.get_by_role("button", name="Apply filters").click()
    assert "country=VN" in page.url
    status = page.get_by_role("status").inner_text()
    expected = sum(
        1 for r in seeded if "VN" in r["countries"] and re.search(r"Engineer", r["title"])
    )
    assert status.startswith(f"{expected} job")
    shot(page, tmp_path, "2-filtered")
    page.goto("/?limit=5")
    first = result_titles(page)
    page.get_by_role("link", name="Next page").click()
    second = result_titles(page)
    assert len(first) == len(second) == 5
    assert "cursor=" in page.url
    shot(page, tmp_path, "3-page-two")
    title = second[0]
    page.get_by_role("link", name=title).first.click()
    assert page.get_by_role("heading", level=1).inner_text() == title
    assert page.get_by_text("Posted ", exact=False).count() >= 1
    shot(page, tmp_path, "4-job")


def test_a_closed_job_says_when_it_closed(page, seeded, tmp_path) -> None:
    response = page.goto("/jobs/999")
    assert response.status == 410
    assert "closed on" in page.locator("main").inner_text()
    shot(page, tmp_path, "closed-job")


def test_a_stats_bar_opens_the_matching_job_list(page, seeded, tmp_path) -> None:
    page.goto("/stats")
    chart = page.locator("#chart-work_mode")
    bar_count = chart.locator("li", has_text="Remote").locator(".bar-count").inner_text()
    shot(page, tmp_path, "stats")
    chart.get_by_role("link", name="Remote").click()
    assert "work_mode=remote" in page.url
    count = int(bar_count.split(" of ")[0].replace(",", ""))
    assert page.get_by_role("status").inner_text().startswith(f"{count} job")
    shot(page, tmp_path, "stats-click-through")


def test_a_vietnamese_query_without_diacritics(page, seeded, tmp_path) -> None:
    page.goto("/")
    page.get_by_label("Search", exact=True).fill("ke toan")
    page.get_by_role("button", name="Search").click()
    titles = set(result_titles(page))
    assert titles == {"Kế toán trưởng", "Nhân viên kế toán tổng hợp"}
    shot(page, tmp_path, "vietnamese")


def test_the_keyboard_path_through_the_facets(page, seeded, tmp_path) -> None:
    page.goto("/")
    page.get_by_label("Search", exact=True).focus()
    for _ in range(40):  # Tab forward until the first facet checkbox has focus
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.name + '=' + document.activeElement.value")
        if focused.startswith("country="):
            break
    else:
        raise AssertionError("the facets cannot be reached with Tab")
    page.keyboard.press("Space")
    chosen = focused.split("=", 1)[1]
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.textContent") == "Apply filters":
            break
    else:
        raise AssertionError("the Apply button cannot be reached with Tab")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(f"country={chosen}"))
    assert page.locator(f"input[name=country][value='{chosen}']").is_checked()
    shot(page, tmp_path, "keyboard")
    # Every input has a label, every facet a legend.
    unlabeled = page.evaluate(
        """[...document.querySelectorAll('input, select')]
             .filter(e => !e.labels || e.labels.length === 0).map(e => e.name)"""
    )
    assert unlabeled == []
    assert page.locator("fieldset").count() == page.locator("fieldset > legend").count() > 8
