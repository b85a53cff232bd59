"""Typo correction as a visitor and an API client meet it, over a real socket as the web
role: the API names the corrected query, the page says "Showing results for ... —
search instead for ..." with both links working, and counts what it shows."""

from __future__ import annotations

import html
import re

import httpx

_LINKS = re.compile(r'<p class="spelling" id="spelling">(.*?)</p>', re.S)
_HREF = re.compile(r'<a href="([^"]+)">(?:<strong>)?([^<]+)')


def _get(web, path: str, **params) -> httpx.Response:
    return httpx.get(web.url + path, params=params, timeout=10)


def test_the_api_returns_the_corrected_query_and_its_results(web, seeded) -> None:
    typed = _get(web, "/api/jobs", q="Engneer", limit=50).json()
    meant = _get(web, "/api/jobs", q="engineer", limit=50).json()
    assert typed["corrected_query"] == "engineer"
    assert meant["corrected_query"] is None
    assert [i["id"] for i in typed["items"]] == [i["id"] for i in meant["items"]] != []
    verbatim = _get(web, "/api/jobs", q="Engneer", verbatim="true").json()
    assert verbatim == {
        "items": [],
        "next_cursor": None,
        "has_previous": False,
        "previous_cursor": None,
        "corrected_query": None,
    }


def test_the_page_offers_the_correction_and_the_typed_query(web, seeded) -> None:
    page = _get(web, "/", q="engneer")
    assert page.status_code == 200
    banner = _LINKS.search(page.text)
    assert banner is not None, "no spelling banner"
    text = re.sub(r"<[^>]+>", "", banner.group(1))
    assert " ".join(text.split()) == "Showing results for engineer — search instead for engneer"
    (corrected_href, corrected), (typed_href, typed) = _HREF.findall(banner.group(1))
    assert (corrected, typed) == ("engineer", "engneer")
    # The count is the corrected query's, as the list is.
    count = _count(page.text)
    assert count == _count(_get(web, "/", q="engineer").text) > 0
    # Each link leads where it says, and neither offers a correction again.
    followed = httpx.get(web.url + html.unescape(corrected_href), timeout=10)
    assert _LINKS.search(followed.text) is None
    assert _count(followed.text) == count
    instead = httpx.get(web.url + html.unescape(typed_href), timeout=10)
    assert "verbatim=true" in html.unescape(typed_href)
    assert _LINKS.search(instead.text) is None
    assert "No jobs match these filters." in instead.text


def test_the_results_fragment_carries_the_banner_too(web, seeded) -> None:
    fragment = httpx.get(web.url + "/?q=develper", headers={"HX-Request": "true"}, timeout=10)
    assert "<html" not in fragment.text
    assert "Showing results for" in fragment.text
    assert "developer" in fragment.text


def _count(page: str) -> int:
    found = re.search(r'id="result-count">\s*([\d,]+) jobs? match', page)
    assert found is not None, "no result count on the page"
    return int(found.group(1).replace(",", ""))
