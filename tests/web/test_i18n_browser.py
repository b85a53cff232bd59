"""The pages in Vietnamese in headless Chromium, with and without JavaScript: a filter
applied keeps the language the URL named (tests/web/test_i18n.py has the rest)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.web.test_browser import (  # noqa: F401  (the browser marks)
    DESKTOP,
    PHONE,
    browser_page,
    pytestmark,
    shot,
)


@pytest.mark.parametrize("javascript", [False, True], ids=["no-js", "js"])
def test_a_filter_applied_in_vietnamese_keeps_the_language(
    web, seeded, tmp_path: Path, javascript: bool
) -> None:
    with browser_page(web.url, DESKTOP, javascript=javascript) as page:
        page.goto("/?lang=vi")
        assert page.locator("html").get_attribute("lang") == "vi"
        page.get_by_label(re.compile(r"^Việt Nam \(VN\)")).check()
        if not javascript:
            page.get_by_role("button", name="Áp dụng bộ lọc").click()
        page.wait_for_url(re.compile(r"country=VN"))
        assert parse_qs(urlsplit(page.url).query)["lang"] == ["vi"]
        assert page.get_by_role("heading", level=1).inner_text() == "Tìm việc làm"
        assert "việc làm phù hợp" in page.locator("#result-count").inner_text()
        chip = page.get_by_role("link", name=re.compile(r"Bỏ bộ lọc Quốc gia: Việt Nam"))
        assert chip.count() == 1
        shot(page, tmp_path, f"filtered-vi-{'js' if javascript else 'no-js'}")


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_longer_vietnamese_words_fit_the_page(web, seeded, viewport) -> None:
    """No page grows sideways in Vietnamese, whose labels run longer than English."""
    with browser_page(web.url, viewport, javascript=False, locale="vi-VN") as page:
        for path in ("/", "/?country=VN#filters", "/jobs/1001", "/stats", "/companies/acme"):
            page.goto(path)
            assert page.locator("html").get_attribute("lang") == "vi", path
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= viewport["width"], (path, width)
