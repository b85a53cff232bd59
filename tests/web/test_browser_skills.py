"""In headless Chromium: a person narrows the search to a skill and opens a job whose
requirements show their excerpts (the enrichment's rows of test_search_enrichment)."""

from __future__ import annotations

import re

import pytest

from tests.serving.test_search_enrichment import ID, rows, web  # noqa: F401  (fixtures)
from tests.web.test_accessibility import VIEWPORTS, violations
from tests.web.test_browser import browser_page, page, pytestmark, shot  # noqa: F401  (fixtures)


def test_filter_by_a_skill_then_read_the_excerpts(page, tmp_path) -> None:  # noqa: F811
    page.goto("/")
    page.get_by_label(re.compile(r"^Python \(2\)")).check()
    page.get_by_role("button", name="Apply filters").click()
    assert "skill=python" in page.url
    assert page.get_by_role("status").inner_text().startswith("2 jobs")
    shot(page, tmp_path, "skills-1-python")
    page.get_by_label("Match").select_option("all")
    page.get_by_label(re.compile(r"^SQL|^Sql")).first.check()
    page.get_by_role("button", name="Apply filters").click()
    assert page.get_by_role("status").inner_text().startswith("1 job")
    page.locator("ol.results h2 a").first.click()
    assert page.url.endswith(f"/jobs/{ID[1]}")
    assert page.locator("#requirements q.excerpt mark").first.inner_text() == "3+ years"
    assert page.locator("#requirements q.excerpt").first.inner_text() == (
        "You need 3+ years of experience."
    )
    assert "3+ years" in page.locator(".description mark").all_inner_texts()
    shot(page, tmp_path, "skills-2-job")


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_job_page_with_marked_evidence_is_axe_clean(web, rows, tmp_path, viewport) -> None:  # noqa: F811
    with browser_page(web.url, VIEWPORTS[viewport]) as sized:
        sized.goto(f"/jobs/{ID[1]}")
        assert sized.locator(".description mark").count() >= 3
        sized.screenshot(path=tmp_path / f"{viewport}-job-evidence.png", full_page=True)
        assert violations(sized) == []
