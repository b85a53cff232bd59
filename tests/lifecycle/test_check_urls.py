"""What each platform's direct check asks, and which platform answers close (pure:
pipeline/crawl/platforms/checks.py and the adapters that use it). BoardRow URLs are the ones
the adapters build on the real default hosts, so these are the real questions."""

from __future__ import annotations

from typing import Any

import pytest

from parsers.types import Posting
from pipeline.config import SmartRecruitersSource
from pipeline.crawl.platforms import PLATFORMS
from pipeline.db.rows import DueCheck
from pipeline.lifecycle.check_rules import AMBIGUOUS, EXPIRED, CheckedResponse, judge

REAL_BOARD_URLS = {
    "greenhouse": ("https://boards-api.greenhouse.io", "acme"),
    "lever": ("https://api.lever.co", "acme"),
    "smartrecruiters": ("https://api.smartrecruiters.com", "Acme"),
    "workable": ("https://apply.workable.com", "acme"),
}


def row(platform: str, external_id: str, *, url: str = "https://example.invalid/page") -> DueCheck:
    adapter = PLATFORMS[platform]
    if platform in REAL_BOARD_URLS:
        base, token = REAL_BOARD_URLS[platform]
        board_url = adapter.listing_url(base, token)
    elif adapter.default_api_base:
        board_url = adapter.listing_url(adapter.default_api_base, "acme")
    elif platform == "html_site":
        board_url = "https://jobs.example/it/jobs?page=1"
    else:
        board_url = adapter.listing_url(None, "acme")  # type: ignore[arg-type]
    return due_check(external_id, url, board_url)


def due_check(external_id: str, url: str, board_url: str) -> DueCheck:
    return DueCheck(1, external_id, 1, url, "Engineer", "missing", "acme", board_url)


@pytest.mark.parametrize(
    ("platform", "external_id", "expected"),
    [
        ("greenhouse", "4012", "https://boards-api.greenhouse.io/v1/boards/acme/jobs/4012"),
        (
            "lever",
            "5f3c-uuid",
            "https://api.lever.co/v0/postings/acme/5f3c-uuid",
        ),
        (
            "smartrecruiters",
            "7437",
            "https://api.smartrecruiters.com/v1/companies/Acme/postings/7437",
        ),
        (
            "workable",
            "A1B2C3D4E5",
            "https://apply.workable.com/api/v2/accounts/acme/jobs/A1B2C3D4E5",
        ),
        ("bamboohr", "41", "https://acme.bamboohr.com/careers/41/detail"),
    ],
)
def test_the_check_asks_the_platforms_per_posting_record(
    platform: str, external_id: str, expected: str
) -> None:
    request = PLATFORMS[platform].check_request(row(platform, external_id))
    assert request.url == expected


def test_recruitee_asks_the_offer_by_the_slug_in_its_careers_url() -> None:
    with_slug = row("recruitee", "991", url="https://acme.recruitee.com/o/data-analyst-3")
    assert (
        PLATFORMS["recruitee"].check_request(with_slug).url
        == "https://acme.recruitee.com/api/offers/data-analyst-3"
    )
    without = row("recruitee", "991", url="https://acme.recruitee.com/")
    assert PLATFORMS["recruitee"].check_request(without).url.endswith("/api/offers/991")


@pytest.mark.parametrize("platform", ["ashby", "teamtailor", "personio", "html_site"])
def test_platforms_without_a_per_posting_record_ask_the_postings_page(platform: str) -> None:
    page = "https://jobs.example/acme/123"
    assert PLATFORMS[platform].check_request(row(platform, "123", url=page)).url == page


def test_a_board_url_of_another_shape_falls_back_to_the_page_never_a_guessed_host() -> None:
    odd = due_check("X1", "https://careers.acme.example/j/X1", "x")
    assert PLATFORMS["workable"].check_request(odd).url == odd.url
    assert PLATFORMS["bamboohr"].check_request(odd).url == odd.url


def _response(status: int, body: bytes, url: str = "https://jobs.ashbyhq.com/acme/u1") -> Any:
    return CheckedResponse(url, url, status, body)


def test_ashby_soft_404_is_its_own_closed_answer() -> None:
    soft = b"<html><body><p>The job you have requested was not found.</p></body></html>"
    flag = PLATFORMS["ashby"].closed_flag
    assert flag(_response(200, soft)) == "job_not_found"
    verdict = judge(_response(200, soft), external_id="u1", title="Data Analyst", closed_flag=flag)
    assert (verdict.outcome, verdict.reason) == (EXPIRED, "platform_closed_flag")


def test_ashby_page_with_a_job_posting_is_never_flagged_whatever_its_text() -> None:
    live = (
        b'<html><head><script type=\'application/ld+json\'>{"@type": "JobPosting"}</script>'
        b"</head><body>The job you have requested was not found</body></html>"
    )
    assert PLATFORMS["ashby"].closed_flag(_response(200, live)) is None
    assert PLATFORMS["ashby"].closed_flag(_response(503, b"not found")) is None


def test_smartrecruiters_inactive_detail_is_closed_an_active_one_is_not() -> None:
    flag = PLATFORMS["smartrecruiters"].closed_flag
    assert flag(_response(200, b'{"id": "1", "active": false}')) == "active_false"
    assert flag(_response(200, b'{"id": "1", "active": true}')) is None
    assert flag(_response(200, b'{"id": "1"}')) is None
    assert flag(_response(200, b"<html>maintenance</html>")) is None


def test_an_app_shell_answering_200_for_any_id_is_ambiguous() -> None:
    """Workable's and BambooHR's pages are client-side apps: 200 whatever the id. The
    check never asks them; if it did, the answer would prove nothing."""
    shell = b"<!doctype html><html><body><div id='app'></div></body></html>"
    verdict = judge(
        CheckedResponse("https://apply.workable.com/acme/j/X1/", "x", 200, shell),
        external_id="X1",
        title="Data Analyst",
    )
    assert verdict.outcome == AMBIGUOUS


def _sr_posting(url: str) -> Posting:
    return Posting(external_id="7", url=url, title="Data Analyst", apply_url=url)


def test_smartrecruiters_pages_built_by_the_parser_move_to_the_configured_public_host() -> None:
    adapter = PLATFORMS["smartrecruiters"]
    source = SmartRecruitersSource(
        platform="smartrecruiters", public_base="http://127.0.0.1:9/sr/jobs", boards=["Acme"]
    )
    moved = adapter.public_posting(source, "Acme", _sr_posting(f"{checks_default()}/Acme/7"))
    assert (moved.url, moved.apply_url) == ("http://127.0.0.1:9/sr/jobs/Acme/7",) * 2
    # A URL the platform itself returned is its own: left as it is.
    own = _sr_posting("https://careers.acme.example/jobs/7")
    assert adapter.public_posting(source, "Acme", own) == own


def test_smartrecruiters_without_public_base_keeps_the_real_default() -> None:
    adapter = PLATFORMS["smartrecruiters"]
    source = SmartRecruitersSource(platform="smartrecruiters", boards=["Acme"])
    posting = _sr_posting(f"{checks_default()}/Acme/7")
    assert adapter.public_posting(source, "Acme", posting) == posting


def checks_default() -> str:
    return PLATFORMS["smartrecruiters"].default_public_base  # type: ignore[attr-defined,no-any-return]
