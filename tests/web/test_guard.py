"""What every response carries and what a browser meets when something is wrong: the
security headers, HEAD on every GET route, compressed text, robots.txt, and 404, 422
and 429 as pages of the site (the search form kept and filled, the bad field marked)
while the API keeps its JSON."""

from __future__ import annotations

import gzip
import re

import httpx
import pytest

from tests.serving.conftest import start_web
from web.guard import CONTENT_SECURITY_POLICY

PAGES = ("/", "/?q=engineer", "/stats", "/jobs/1001", "/api/jobs", "/api/stats", "/healthz")


def get(base: str, path: str, **kwargs) -> httpx.Response:
    return httpx.get(base + path, timeout=10, **kwargs)


@pytest.mark.parametrize("path", PAGES)
def test_every_response_carries_the_security_headers(web, seeded, path: str) -> None:
    headers = get(web.url, path).headers
    assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in headers["content-security-policy"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "strict-origin-when-cross-origin"


def test_no_page_carries_an_inline_script_or_style(web, seeded) -> None:
    for path in ("/", "/?q=engineer&country=VN", "/stats", "/jobs/1001", "/jobs/999"):
        body = get(web.url, path).text
        # A script element either loads a file or holds data (JSON-LD), never code.
        inline = re.findall(r"<script(?![^>]*\bsrc=)(?![^>]*application/ld\+json)", body)
        assert inline == [], path
        assert " style=" not in body, path
        assert "<style" not in body, path


@pytest.mark.parametrize("path", ["/", "/?q=engineer", "/stats", "/jobs/1001", "/api/jobs"])
def test_head_answers_as_get_without_a_body(web, seeded, path: str) -> None:
    got = get(web.url, path)
    head = httpx.head(web.url + path, timeout=10)
    assert head.status_code == got.status_code == 200
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers.get("content-encoding") == got.headers.get("content-encoding")
    assert head.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


def test_text_is_compressed_for_a_client_that_accepts_it(web, seeded) -> None:
    raw = httpx.get(web.url + "/", headers={"Accept-Encoding": "gzip"}, timeout=10)
    assert raw.headers["content-encoding"] == "gzip"
    plain = httpx.get(web.url + "/", headers={"Accept-Encoding": "identity"}, timeout=10)
    assert "content-encoding" not in plain.headers
    squeezed = len(gzip.compress(plain.content))
    assert squeezed < len(plain.content) / 3  # what the landing page gains


def test_robots_txt_lets_crawlers_read_the_pages_but_not_the_api(web) -> None:
    response = get(web.url, "/robots.txt")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    lines = response.text.splitlines()
    assert "User-agent: *" in lines
    assert "Disallow: /api/" in lines


def test_an_unknown_page_is_a_page_of_the_site_and_the_api_stays_json(web) -> None:
    page = get(web.url, "/no/such/page")
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert "Page not found" in page.text
    assert 'role="search"' in page.text
    api = get(web.url, "/api/no-such-route")
    assert api.status_code == 404
    assert api.json() == {"detail": "Not Found"}


def test_a_job_id_that_is_no_number_is_a_422_page_for_a_browser_and_json_for_the_api(
    web,
) -> None:
    page = get(web.url, "/jobs/abc")
    assert page.status_code == 422
    assert page.headers["content-type"].startswith("text/html")
    assert "job_id" in page.text
    api = get(web.url, "/api/jobs/abc")
    assert api.status_code == 422
    assert api.json()["detail"][0]["loc"] == ["path", "job_id"]


def test_a_refused_search_keeps_its_form_filled_and_marks_the_bad_field(web, seeded) -> None:
    sent = {"q": "engineer", "salary_min": "50000", "country": "VN"}
    page = get(web.url, "/", params=sent)
    assert page.status_code == 422
    body = page.text
    assert 'role="search"' in body
    assert re.search(r'id="fix-q" name="q" value="engineer"', body)
    assert re.search(
        r'id="fix-salary_min" name="salary_min" value="50000"\s+aria-invalid="true"', body
    )
    assert 'id="fix-salary_currency" name="salary_currency" value=""' in body
    assert '<input type="hidden" name="country" value="VN">' in body
    assert "needs salary_currency" in body
    # Sent again with the currency filled in, it is the search that was meant.
    fixed = get(web.url, "/", params={**sent, "salary_currency": "EUR"}, follow_redirects=True)
    assert fixed.status_code == 200


def test_a_query_too_long_is_refused_on_a_page_that_keeps_it(web, seeded) -> None:
    long = "engineer " * 40
    page = get(web.url, "/", params={"q": long})
    assert page.status_code == 422
    assert "at most 200 characters" in page.text
    assert 'aria-invalid="true"' in page.text


def test_too_many_requests_is_a_page_for_a_browser_and_json_for_the_api(seeded, web_url) -> None:
    running = start_web(web_url, web_rate_limit_per_minute=1)
    try:
        assert get(running.url, "/").status_code == 200
        page = get(running.url, "/stats")
        assert page.status_code == 429
        assert page.headers["content-type"].startswith("text/html")
        assert "Too many requests" in page.text
        assert int(page.headers["retry-after"]) >= 1
        assert page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        api = get(running.url, "/api/jobs")
        assert api.status_code == 429
        assert api.headers["content-type"].startswith("application/json")
        assert api.json()["retry_after_s"] == int(api.headers["retry-after"]) >= 1
    finally:
        running.stop()


def test_the_favicon_is_served_for_browsers_that_ask_without_a_link(web) -> None:
    response = get(web.url, "/favicon.ico")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert response.text.startswith("<svg")
