"""The check verdict table, pure: a response in, a verdict out."""

from __future__ import annotations

import pytest

from parsers.signals import closed_phrase
from parsers.types import ParseOutcome, Posting, Quality
from pipeline.lifecycle.check_rules import CheckedResponse, judge

URL = "https://jobs.example.com/acme/jobs/123"


def response(
    status: int | None, body: str = "", final: str = URL, redirects: tuple[str, ...] = ()
) -> CheckedResponse:
    return CheckedResponse(
        URL, final, status, body.encode(), redirects, None if status else "ConnectTimeout"
    )


def live(title: str = "Data Analyst", external_id: str = "123") -> ParseOutcome:
    return ParseOutcome(Quality.ACCEPTED, (Posting(external_id=external_id, url=URL, title=title),))


@pytest.mark.parametrize(
    ("resp", "parsed", "outcome", "reason"),
    [
        (response(None), None, "ambiguous", "no_response"),
        (response(404), None, "not_found", "http_404"),
        (response(410), None, "not_found", "http_410"),
        (response(403), None, "ambiguous", "http_403"),
        (response(401), None, "ambiguous", "http_401"),
        (response(429), None, "ambiguous", "http_429"),
        (response(500), None, "ambiguous", "http_500"),
        (
            response(200, "<h1>Board</h1>", "https://jobs.example.com/acme", (URL,)),
            None,
            "expired",
            "redirected_to_board",
        ),
        (
            response(200, "<h1>Board</h1>", "https://jobs.example.com/acme?error=true", (URL,)),
            None,
            "expired",
            "redirected_to_board",
        ),
        (
            response(200, "<form>Sign in</form>", "https://jobs.example.com/login?next=x", (URL,)),
            None,
            "ambiguous",
            "not_the_posting",
        ),
        (
            response(200, "<h1>Board</h1>", "https://other.example.net/acme", (URL,)),
            None,
            "ambiguous",
            "redirected_elsewhere",
        ),
        (
            response(200, "<title>Just a moment...</title><div id=cf-browser-verification></div>"),
            None,
            "ambiguous",
            "blocked",
        ),
        (
            response(200, "<p>We are no longer accepting applications for this role.</p>"),
            live(),
            "expired",
            "page_says_closed",
        ),
        (
            response(200, "<div>Tin tuyển dụng đã hết hạn</div>"),
            None,
            "expired",
            "page_says_closed",
        ),
        (
            response(200, "<div>Diese Stelle ist nicht mehr verfügbar</div>"),
            None,
            "expired",
            "page_says_closed",
        ),
        (
            response(200, "<h1>Data Analyst</h1><p>Apply now</p>"),
            live(),
            "live",
            "posting_page_live",
        ),
        (
            response(200, "<h1>Search jobs</h1>"),
            live("Other job", "999"),
            "ambiguous",
            "not_the_posting",
        ),
    ],
)
def test_verdicts(resp, parsed, outcome, reason) -> None:
    verdict = judge(resp, external_id="123", title="Data Analyst", parsed=parsed)
    assert (verdict.outcome, verdict.reason) == (outcome, reason)
    assert verdict.conclusive == (outcome in ("expired", "not_found"))


def test_platform_closed_flag_is_conclusive() -> None:
    workday = response(403, '{"errorCode": "S22"}')
    flag = lambda r: "S22" if b'"S22"' in r.body else None  # noqa: E731
    verdict = judge(workday, external_id="123", title="x", closed_flag=flag)
    assert (verdict.outcome, verdict.reason, verdict.evidence["flag"]) == (
        "expired",
        "platform_closed_flag",
        "S22",
    )
    assert (
        judge(response(403, "{}"), external_id="123", title="x", closed_flag=flag).outcome
        == "ambiguous"
    )


def test_closed_phrases_count_only_in_visible_text() -> None:
    bundle = b'<script>window.i18n = {"closed": "No longer accepting applications"}</script><h1>Data Analyst</h1>'
    assert closed_phrase(bundle) is None
    assert (
        closed_phrase(b"<p>This position has been filled.</p>") == "this position has been filled"
    )
    assert closed_phrase(
        b"<p>Tin tuy\xe1\xbb\x83n d\xe1\xbb\xa5ng \xc4\x91\xc3\xa3 h\xe1\xba\xbft h\xe1\xba\xa1n</p>"
    )


# ---- the posting's own words are not the page's verdict (a wrongly closed live job is
# the worst error), and another site's answer says nothing about this posting.

LIVE_AD = (
    "<html><head><script type='application/ld+json'>"
    '{"@context": "https://schema.org", "@type": "JobPosting", "title": "Data Analyst",'
    ' "identifier": {"value": "123"}, "description": "<p>Applications are reviewed on a rolling basis'
    " until the position is filled.</p><p>We are no longer accepting applications from agencies.</p>"
    '<p>This role is closed to agency submissions.</p><p>Công ty sẽ ngừng nhận hồ sơ khi tuyển đủ.</p>"}'
    "</script></head><body><h1>Data Analyst</h1><div class='description'>"
    "<p>Applications are reviewed on a rolling basis until the position is filled.</p>"
    "<p>We are no longer accepting applications from agencies.</p>"
    "<p>This role is closed to agency submissions.</p>"
    "<p>Công ty sẽ ngừng nhận hồ sơ khi tuyển đủ.</p></div></body></html>"
)


def _jsonld_detail(body: str, url: str = URL) -> ParseOutcome:
    from parsers import REGISTRY
    from parsers.types import DocumentKind, RawDocument

    return REGISTRY.get("jsonld").parse(RawDocument(body.encode(), url, DocumentKind.DETAIL))


def test_a_live_ad_whose_description_talks_about_closing_is_live() -> None:
    parsed = _jsonld_detail(LIVE_AD)
    assert parsed.quality is not Quality.REJECTED
    verdict = judge(response(200, LIVE_AD), external_id="123", title="Data Analyst", parsed=parsed)
    assert (verdict.outcome, verdict.reason) == ("live", "posting_page_live")


def test_a_closed_banner_outside_the_description_still_closes() -> None:
    body = LIVE_AD.replace(
        "<h1>Data Analyst</h1>",
        "<div class='banner'>This job is no longer accepting applications.</div><h1>Data Analyst</h1>",
    )
    verdict = judge(
        response(200, body), external_id="123", title="Data Analyst", parsed=_jsonld_detail(body)
    )
    assert (verdict.outcome, verdict.reason) == ("expired", "page_says_closed")


def test_error_pages_of_another_site_are_ambiguous() -> None:
    login = response(
        200, "<form>Sign in</form>", "https://sso.idp-example.com/login?error=true", (URL,)
    )
    assert (
        judge(login, external_id="123", title="x", parsed=_jsonld_detail("<p>x</p>")).outcome
        == "ambiguous"
    )
    moved = response(404, "gone", "https://www.acme.io/careers/123", (URL,))
    assert judge(moved, external_id="123", title="x").reason == "redirected_elsewhere"
    # ...while a redirect within the same site (another subdomain) is the site's own answer.
    same_site = response(
        200, "<h1>Jobs</h1>", "https://careers.example.com/acme?error=true", (URL,)
    )
    assert judge(same_site, external_id="123", title="x").outcome == "expired"
