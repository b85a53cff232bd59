"""Each HTML page is scanned for a bot wall once: the page checks after the first scan
take its answer, and still a challenge page is blocked on every detail parser, and a
closed or missing posting's page still says so."""

from __future__ import annotations

import pytest

from parsers.registry import REGISTRY, Parser
from parsers.signals import closed_phrase, page_signal, visible_text
from parsers.types import DocumentKind, PageSignal
from tests.parsers.conftest import doc
from tests.parsers.test_bad_input import SITE  # a configured site: h1 is its title

CHALLENGE = (
    b"<html><head><title>Just a moment...</title></head><body>"
    b"<script src='/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1'></script>"
    b"<h1 class='job-title'>Engineer</h1>"
    b'<script type=\'application/ld+json\'>{"@type": "JobPosting", "title": "Engineer"}'
    b"</script></body></html>"
)
DETAIL_PARSERS: dict[str, tuple[Parser, str]] = {
    "jsonld": (REGISTRY.get("jsonld"), "https://jobs.example.com/viec-lam/42"),
    "lever hosted page": (
        REGISTRY.get("lever"),
        "https://jobs.lever.co/acme/0f3a4b5c-1d2e-4f60-8a9b-0c1d2e3f4a5b",
    ),
    "configured site": (SITE, "https://jobs.example.com/viec-lam/42"),
}


@pytest.mark.parametrize("name", list(DETAIL_PARSERS))
def test_a_challenge_page_is_blocked_on_every_detail_parser(name: str) -> None:
    parser, url = DETAIL_PARSERS[name]
    outcome = parser.parse(doc(CHALLENGE, url, kind=DocumentKind.DETAIL))
    assert outcome.signal is PageSignal.BLOCKED
    assert not outcome.postings


def test_page_signal_scans_for_a_wall_unless_told_the_page_passed() -> None:
    assert page_signal(CHALLENGE) is PageSignal.BLOCKED
    assert page_signal(CHALLENGE, unblocked=True) is PageSignal.NORMAL


@pytest.mark.parametrize(
    ("body", "status", "signal"),
    [
        ("<p>Sorry, this job is no longer available.</p>", 200, PageSignal.CLOSED),
        ("<p>Tin tuyển dụng này đã hết hạn</p>", 200, PageSignal.CLOSED),
        ("<title>Page not found</title><p>x</p>", 200, PageSignal.NOT_FOUND),
        ("<p>Engineer</p>", 404, PageSignal.NOT_FOUND),
        ("<p>Apply until we find the one.</p>", 200, PageSignal.NORMAL),
    ],
)
def test_one_decoded_page_serves_both_word_checks(
    body: str, status: int, signal: PageSignal
) -> None:
    assert page_signal(body.encode(), "https://x.example/1", status, unblocked=True) is signal


def test_closed_phrase_and_visible_text_read_the_page_as_page_signal_does() -> None:
    body = b"<style>.x{}</style><p>THIS JOB HAS EXPIRED &amp; more</p>"
    assert visible_text(body).split() == ["this", "job", "has", "expired", "&", "more"]
    assert closed_phrase(body) == "this job has expired"


@pytest.mark.parametrize(
    "body",
    [
        "<title>Page Not Found</title>",
        "<title>404</title>",
        "<title>KHÔNG TÌM THẤY TRANG</title>",
        "<p>Trang bạn tìm kiếm KHÔNG TỒN TẠI</p>",
        "<p>The page you\u2019re looking for doesn\u2019t exist</p>",
        # The Kelvin sign lowercases to an ASCII k: only str.lower() reads "looking".
        "<p>The page you're loo\u212aing for doesn't exist</p>",
        "<title>Acme has found a better job for you</title>",
    ],
)
def test_a_not_found_page_is_found_whatever_its_case(body: str) -> None:
    assert page_signal(body.encode(), "https://x.example/1", 200, unblocked=True) is (
        PageSignal.NOT_FOUND
    )


def test_a_page_without_any_hint_is_normal() -> None:
    body = "<title>Kỹ sư phần mềm</title><p>Hà Nội — apply now</p>".encode()
    assert page_signal(body, "https://x.example/1", 200, unblocked=True) is PageSignal.NORMAL
