"""The job page and the stats page laid out on a phone (390×844) and a desktop
(1366×900) in headless Chromium: facts whose labels and values cannot drift apart, and
charts that fit a phone with bars people can see."""

from __future__ import annotations

from pathlib import Path

from tests.web.test_browser import (  # noqa: F401  (the browser marks)
    DESKTOP,
    PHONE,
    browser_page,
    pytestmark,
    shot,
)


def fact_boxes(page) -> list[tuple[dict, dict]]:
    """(label box, value box) for every row of the job's facts."""
    pairs = []
    for row in page.locator("dl.facts > dt").all():
        value = row.locator("xpath=following-sibling::dd[1]")
        pairs.append((row.bounding_box(), value.bounding_box()))
    return pairs


def test_the_job_page_facts_share_rows_on_a_desktop_and_stack_on_a_phone(
    web, seeded, tmp_path: Path
) -> None:
    with browser_page(web.url, DESKTOP, javascript=False) as page:
        page.goto("/jobs/1001")
        pairs = fact_boxes(page)
        assert len(pairs) >= 8
        for label, value in pairs:
            assert abs(label["y"] - value["y"]) < 2, (label, value)  # one row
            assert label["x"] + label["width"] <= value["x"], (label, value)  # beside it
        lefts = {round(value["x"]) for _, value in pairs}
        assert len(lefts) == 1, f"values start at several places: {lefts}"
        shot(page, tmp_path, "desktop-job")
    with browser_page(web.url, PHONE, javascript=False) as page:
        page.goto("/jobs/1001")
        for label, value in fact_boxes(page):
            assert value["y"] >= label["y"] + label["height"] - 1, (label, value)  # below
            assert abs(label["x"] - value["x"]) < 2, (label, value)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        shot(page, tmp_path, "phone-job")


def test_the_stats_page_fits_a_phone_with_visible_bars(web, seeded, tmp_path: Path) -> None:
    with browser_page(web.url, PHONE, javascript=False) as page:
        page.goto("/stats")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        chart = page.locator("#chart-country")
        widths = [bar.bounding_box()["width"] for bar in chart.locator(".bar").all()]
        assert max(widths) >= 100, widths  # the largest share reads at a glance
        heights = {bar.bounding_box()["height"] for bar in chart.locator(".bar").all()}
        assert min(heights) >= 10, heights
        shot(page, tmp_path, "phone-stats")


def test_no_page_asks_another_origin_or_breaks_its_own_policy(web, seeded) -> None:
    asked: list[str] = []
    refused: list[str] = []
    with browser_page(web.url, PHONE, javascript=True) as page:
        page.on("request", lambda request: asked.append(request.url))
        page.on("console", lambda message: refused.append(message.text))
        for path in ("/", "/?q=engineer&country=VN", "/jobs/1001", "/jobs/999", "/stats", "/x"):
            page.goto(path)
        page.goto("/")
        page.get_by_label("Search", exact=True).fill("da")  # typeahead asks /api/suggest
        page.wait_for_selector("[role=option]")
    outside = [url for url in asked if not url.startswith(web.url)]
    assert outside == []
    assert any("/api/suggest" in url for url in asked)  # the check saw script requests
    assert [text for text in refused if "Content Security Policy" in text] == []


def test_the_api_docs_render_offline_from_the_apps_own_assets(web, tmp_path: Path) -> None:
    asked: list[str] = []
    console: list[str] = []
    with browser_page(web.url, DESKTOP, javascript=True) as page:
        page.on("request", lambda request: asked.append(request.url))
        page.on("console", lambda message: console.append(message.text))
        page.goto("/docs")
        page.wait_for_selector(".swagger-ui .opblock-summary-path")
        paths = page.locator(".opblock-summary-path").all_text_contents()
        assert "/api/jobs" in [" ".join(p.split()) for p in paths]
        assert "jobharbor" in page.locator(".swagger-ui .info .title").inner_text()
        shot(page, tmp_path, "desktop-docs")
    assert [url for url in asked if not url.startswith(web.url)] == []
    assert [text for text in console if "Content Security Policy" in text] == []


def test_the_job_page_lists_similar_open_jobs_that_share_its_title_words(
    web, seeded, tmp_path: Path
) -> None:
    job = next(r for r in seeded if r["id"] == 1001)
    words = {w.lower() for w in job["title"].split() if len(w) >= 3}
    for viewport, name in ((DESKTOP, "desktop-similar"), (PHONE, "phone-similar")):
        with browser_page(web.url, viewport, javascript=False) as page:
            page.goto("/jobs/1001")
            section = page.get_by_role("region", name="Similar jobs")
            links = section.get_by_role("link").all()
            assert 1 <= len(links) <= 6
            for link in links:
                assert link.get_attribute("href") != "/jobs/1001"  # never the job itself
                assert words & {w.lower() for w in link.inner_text().split()}, link.inner_text()
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            section.scroll_into_view_if_needed()
            shot(page, tmp_path, name)
            first, target = links[0].inner_text(), links[0].get_attribute("href")
            links[0].click()
            page.wait_for_url(f"**{target}")
            assert page.get_by_role("heading", level=1).inner_text() == first
