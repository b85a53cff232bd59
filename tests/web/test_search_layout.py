"""The search page as a first-time visitor meets it, in headless Chromium on a phone
(390×844) and a desktop (1366×900), with and without JavaScript: results first, the
filters behind "Filters (n)" on a phone, filters that apply when ticked, chips that
remove one filter, the page's place in the list, short addresses, long facets folded
under "Show all". Screenshots go to the test's tmp folder (--basetemp=DIR keeps them)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from playwright.sync_api import expect

from serving_sync import search
from tests.serving.conftest import start_web
from tests.web.test_browser import (  # noqa: F401  (the browser marks)
    DESKTOP,
    PHONE,
    browser_page,
    pytestmark,
    shot,
)


def status_count(page) -> int:
    text = page.locator("#result-count").inner_text()
    found = re.match(r"([\d,]+) jobs? match", text)
    assert found, text
    return int(found.group(1).replace(",", ""))


def result_ids(page) -> list[str]:
    """The job pages the list links, in order (a result's title links its page)."""
    return page.locator("ol.results > li h2 a").evaluate_all("els => els.map(e => e.pathname)")


def params(url: str) -> list[tuple[str, str]]:
    return sorted(parse_qsl(urlsplit(url).query))


def in_vietnam(seeded) -> int:
    return sum(1 for r in seeded if "VN" in r["countries"])


# ---------------------------------------------------------------- addresses


def test_a_form_sent_with_every_field_redirects_to_its_short_address(web, seeded) -> None:
    sent = (
        "/?q=engineer&sort=newest&posted_within_days=&salary_min=&salary_currency="
        "&skill_match=any&skill_scope=required&country=VN&utm_source=mail"
    )
    response = httpx.get(web.url + sent, follow_redirects=False, timeout=10)
    assert response.status_code == 303
    assert sorted(params(response.headers["location"])) == [("country", "VN"), ("q", "engineer")]
    landed = httpx.get(web.url + response.headers["location"], follow_redirects=False, timeout=10)
    assert landed.status_code == 200
    assert f'<link rel="canonical" href="{web.url}/?q=engineer&amp;country=VN">' in landed.text


@pytest.mark.parametrize(
    "address",
    [
        "/",
        "/?q=engineer",
        "/?country=VN&country=DE&work_mode=hybrid",
        "/?q=data&sort=relevance&limit=5",
        "/?has_salary=false&posted_within_days=7&include_undated=true",
        "/?salary_min=50000&salary_currency=EUR",
    ],
)
def test_a_short_address_answers_without_a_redirect(web, seeded, address: str) -> None:
    response = httpx.get(web.url + address, follow_redirects=False, timeout=10)
    assert response.status_code == 200, response.headers.get("location")


def test_the_fragment_carries_filters_results_title_and_the_address_to_push(web, seeded) -> None:
    response = httpx.get(
        web.url + "/?q=&country=VN&sort=newest",
        headers={"HX-Request": "true"},
        follow_redirects=False,
        timeout=10,
    )
    assert response.status_code == 200
    assert response.headers["hx-push-url"] == "/?country=VN"
    assert "HX-Request" in response.headers["vary"].split(", ")
    assert "<html" not in response.text
    assert '<div id="filters">' in response.text
    assert '<div id="results">' in response.text
    assert f"<title>{in_vietnam(seeded)} jobs matching your filters · jobharbor</title>" in (
        response.text
    )


def test_the_page_title_names_the_query_and_its_count(web, seeded) -> None:
    page = httpx.get(web.url + "/?q=engineer", timeout=10).text
    count = int(re.search(r'id="result-count">\s*([\d,]+) jobs? match', page).group(1))
    assert f"<title>engineer — {count} jobs · jobharbor</title>" in page


# ---------------------------------------------------------------- a phone


@pytest.mark.parametrize("javascript", [False, True], ids=["no-js", "js"])
def test_on_a_phone_the_results_come_first_and_the_filters_open_from_a_button(
    web, seeded, tmp_path: Path, javascript: bool
) -> None:
    with browser_page(web.url, PHONE, javascript=javascript) as page:
        page.goto("/")
        first = page.locator("ol.results > li").first.bounding_box()
        assert first is not None
        assert first["y"] + 40 < PHONE["height"], first
        count = page.locator("#result-count").bounding_box()
        assert count is not None
        assert count["y"] < first["y"]
        assert not page.locator("#filters").is_visible()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the page scrolls sideways: {width} px"
        shot(page, tmp_path, f"phone-{javascript}-results-first")
        page.get_by_role("link", name="Filters").click()
        assert page.locator("#filters").is_visible()
        box = page.locator("#facet-country input[type=checkbox]").first.bounding_box()
        assert box is not None
        assert min(box["width"], box["height"]) >= 24, box
        shot(page, tmp_path, f"phone-{javascript}-filters-open")
        page.get_by_label(re.compile(r"^Viet Nam \(VN\)")).check()
        if not javascript:
            page.get_by_role("button", name="Apply filters").click()
        page.wait_for_url(re.compile(r"country=VN"))
        if javascript:  # the panel stays open while filters apply; this closes it
            page.get_by_role("link", name=re.compile(r"^Show \d+ jobs?$")).click()
        assert not page.locator("#filters").is_visible()
        assert status_count(page) == in_vietnam(seeded)
        assert page.get_by_role("link", name="Filters (1)").is_visible()
        shot(page, tmp_path, f"phone-{javascript}-filtered")


# ---------------------------------------------------------------- filters at once


def test_ticking_a_facet_updates_the_list_and_the_address_without_apply(
    web, seeded, tmp_path: Path
) -> None:
    with browser_page(web.url, DESKTOP, javascript=True) as page:
        page.goto("/")
        everything = status_count(page)
        page.evaluate("window.sameDocument = true")  # gone if the page loads again
        page.get_by_label(re.compile(r"^Viet Nam \(VN\)")).check()
        page.wait_for_url(re.compile(r"/\?country=VN$"))
        # expect() polls without eval, which the page's CSP (script-src 'self') refuses.
        expect(page.locator("#result-count")).to_have_text(re.compile(rf"^{in_vietnam(seeded)} "))
        assert page.evaluate("window.sameDocument") is True
        assert page.get_by_label(re.compile(r"^Viet Nam \(VN\)")).is_checked()
        assert page.evaluate("document.activeElement.value") == "VN"  # focus kept
        assert page.title().startswith(f"{in_vietnam(seeded)} jobs")
        shot(page, tmp_path, "desktop-ticked")
        page.go_back()
        page.wait_for_url(re.compile(r"/$"))
        expect(page.locator("#result-count")).to_have_text(re.compile(rf"^{everything} "))
        assert not page.get_by_label(re.compile(r"^Viet Nam \(VN\)")).is_checked()


def test_a_minimum_salary_waits_for_its_currency_before_applying(web, seeded) -> None:
    with browser_page(web.url, DESKTOP, javascript=True) as page:
        page.goto("/")
        page.get_by_label("Salary at least").fill("1000")
        page.get_by_label("Currency").focus()  # the minimum's change fires, alone
        page.get_by_label("Currency").fill("EUR")
        page.get_by_label("Currency").press("Tab")
        page.wait_for_url(re.compile(r"salary_currency=EUR"))
        assert params(page.url) == [("salary_currency", "EUR"), ("salary_min", "1000")]
        assert page.get_by_role("heading", name="Invalid request").count() == 0


# ---------------------------------------------------------------- chips and position


def test_each_active_filter_is_a_chip_that_removes_only_itself(web, seeded) -> None:
    with browser_page(web.url, DESKTOP, javascript=False) as page:
        page.goto("/?q=engineer&country=VN&work_mode=hybrid")
        chips = page.get_by_role("list", name="Active filters")
        assert [" ".join(t.split()) for t in chips.get_by_role("link").all_text_contents()] == [
            "Remove filter Country: Viet Nam (VN) ×",
            "Remove filter Work mode: Hybrid ×",
            "Clear all",
        ]
        chips.get_by_role("link", name=re.compile("Country")).click()
        assert params(page.url) == [("q", "engineer"), ("work_mode", "hybrid")]
        page.get_by_role("list", name="Active filters").get_by_role(
            "link", name="Clear all"
        ).click()
        assert params(page.url) == [("q", "engineer")]
        assert page.get_by_role("list", name="Active filters").count() == 0


def test_each_page_says_where_it_stands_in_the_list(web, seeded) -> None:
    with browser_page(web.url, DESKTOP, javascript=False) as page:
        page.goto("/?limit=5")
        total = status_count(page)
        assert page.locator(".toolbar .position").inner_text() == f"Showing 1–5 of {total}"
        page.get_by_role("link", name="Next page").click()
        assert page.locator(".toolbar .position").inner_text() == f"Showing 6–10 of {total}"
        page.get_by_role("link", name="Next page").click()
        assert page.locator(".pages .position").inner_text() == f"11–15 of {total}"
        page.get_by_role("link", name="Previous page").click()
        assert page.locator(".toolbar .position").inner_text() == f"Showing 6–10 of {total}"
        page.get_by_role("link", name="Previous page").click()
        assert page.locator(".toolbar .position").inner_text() == f"Showing 1–5 of {total}"
        assert page.url.rstrip("/").endswith("/?limit=5")
        assert page.get_by_role("link", name="Previous page").count() == 0


def test_previous_walks_back_the_pages_the_visitor_came_by(web, seeded) -> None:
    """Each page's Previous lists exactly what the page before it listed, as far back as
    a cursor remembers (BACK_PAGES); further back only the first page is offered."""
    with browser_page(web.url, DESKTOP, javascript=False) as page:
        page.goto("/?limit=2")
        forward = []
        for _ in range(search.BACK_PAGES + 3):
            forward.append(result_ids(page))
            page.get_by_role("link", name="Next page").click()
        for expected in reversed(forward[-search.BACK_PAGES :]):
            page.get_by_role("link", name="Previous page").click()
            assert result_ids(page) == expected
        # The pages before those are further back than the cursor remembers.
        assert page.get_by_role("link", name="Previous page").count() == 0
        page.get_by_role("link", name="First page").click()
        assert result_ids(page) == forward[0]


# ---------------------------------------------------------------- long facets


def test_a_long_facet_folds_its_tail_under_show_all_and_finds_in_it(
    web_url, seeded, tmp_path: Path
) -> None:
    running = start_web(web_url, web_facet_top=2)
    try:
        with browser_page(running.url, DESKTOP, javascript=False) as page:
            page.goto("/")
            group = page.locator("#facet-company")
            names = [
                re.sub(r" \([\d,]+\)$", "", " ".join(t.split()))
                for t in group.locator(".option label").all_text_contents()
            ]
            assert len(names) > 2, "the seed needs more than two companies"
            summary = group.locator("details > summary")
            assert summary.inner_text() == f"Show all {len(names)}"
            assert group.locator(".option").nth(2).is_visible() is False
            summary.click()
            assert group.locator(".option").nth(2).is_visible()
        with browser_page(running.url, DESKTOP, javascript=True) as page:
            page.goto("/")
            group = page.locator("#facet-company")
            group.locator("details > summary").click()
            wanted = names[-1]
            group.get_by_label("Find company").fill(wanted.lower())
            visible = [o.inner_text() for o in group.locator(".option").all() if o.is_visible()]
            assert visible
            assert all(wanted in text for text in visible), visible
            assert len(visible) < len(names)
            shot(page, tmp_path, "facet-find")
    finally:
        running.stop()


# ---------------------------------------------------------------- fields that fit


_PAST_THE_COLUMN = """() => {
  const column = document.querySelector('#filters').getBoundingClientRect();
  return Array.from(document.querySelectorAll('#filters *'))
    .filter(e => e.getBoundingClientRect().right > column.right + 1)
    .map(e => e.tagName + (e.id ? '#' + e.id : ''));
}"""


@pytest.mark.parametrize("locale", [None, "vi-VN"])
def test_every_filter_field_stays_inside_the_filters_column(web, seeded, locale) -> None:
    # The Vietnamese options ("bất kỳ kỹ năng nào trong số này") are the longest: a
    # fieldset grows to its widest field unless told otherwise.
    with browser_page(web.url, DESKTOP, locale=locale) as page:
        page.goto("/?q=engineer")
        assert page.evaluate(_PAST_THE_COLUMN) == []
    with browser_page(web.url, PHONE, locale=locale) as page:
        page.goto("/?q=engineer#filters")
        width = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
        assert width[0] <= width[1]
        assert page.evaluate(_PAST_THE_COLUMN) == []


def test_on_a_phone_fields_read_at_16_px_and_buttons_are_44_px_high(web, seeded) -> None:
    with browser_page(web.url, PHONE) as page:
        page.goto("/?q=engineer")
        sizes = page.locator("#search-form input:not([type=hidden]), #search-form select")
        for size in sizes.evaluate_all("els => els.map(e => getComputedStyle(e).fontSize)"):
            assert float(size.removesuffix("px")) >= 16
        button = page.locator(".query button[type=submit]").bounding_box()
        assert button is not None
        assert button["height"] >= 44
        # Each label keeps its field on its line when the row wraps.
        for name in ("sort", "group"):
            assert middle(page, f"label[for={name}]") == pytest.approx(
                middle(page, f"#{name}"), abs=8
            )


def middle(page, selector: str) -> float:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["y"] + box["height"] / 2
