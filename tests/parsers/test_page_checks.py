"""Each HTML page is scanned for a bot wall once: the page checks after the first scan
take its answer, and still a challenge page is blocked on every detail parser, and a
closed or missing posting's page still says so."""

from __future__ import annotations

import random
import re

import pytest

from parsers.jsonld import _SCRIPT, _WRAPPERS, _unwrapped
from parsers.registry import REGISTRY, Parser
from parsers.signals import (
    _BLOCK_HINTS,
    _BLOCK_MARKERS,
    _CASE_TRAPS,
    _CLOSED_PHRASES,
    _INVISIBLE,
    _NOT_FOUND_HINTS,
    _NOT_FOUND_PHRASES,
    _may_say_not_found,
    closed_phrase,
    looks_blocked,
    page_signal,
    search_lowered,
    visible_text,
)
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


# The lazy form the script and style pattern had: the possessive one must take out
# exactly the same blocks.
_LAZY_INVISIBLE = re.compile(r"<(script|style|template|noscript)\b.*?</\1\s*>", re.I | re.S)
_BLOCK_PIECES = [
    "<script>", "<SCRIPT type='x'>", "<style>", "<template>", "<noscript>", "<scripts>",
    "</script>", "</Script >", "</script\n>", "</style>", "</template>", "</noscript>",
    "</scripts>", "</script", "<", ">", "</", "a", "Hà Nội", "\n", " ", "<p>", "</p>",
]  # fmt: skip


def test_script_and_style_blocks_go_exactly_as_the_lazy_pattern_took_them() -> None:
    rng = random.Random(5)
    for _ in range(4000):
        page = "".join(rng.choice(_BLOCK_PIECES) for _ in range(rng.randint(0, 14)))
        assert _INVISIBLE.sub(" ", page) == _LAZY_INVISIBLE.sub(" ", page), repr(page)


# Not-found hints in every case, split by other text, and the near misses the byte
# probe must turn away or let through ("ng t" in English, accents of other widths).
_HINT_PIECES = [
    "không tìm thấy", "KHÔNG TÌM THẤY", "Không Tồn Tại", "không tồn tại", "KHÔNG TỒN TẠI",
    "khong tim thay", "kho\u0302ng", "including the", "ng t", "kh", "NOT FOUND", "Not",
    " found", "404", "Looking For", "loo\u212aing for", "\u0130", "anything here",
    "better job", "Hà Nội", "ĐÃ", "<p>", " ", "x", "\U0001f642", "\xff",
]  # fmt: skip


def test_the_byte_probe_never_misses_a_hint_the_lowercased_page_holds() -> None:
    rng = random.Random(9)
    found = 0
    for _ in range(6000):
        page = "".join(rng.choice(_HINT_PIECES) for _ in range(rng.randint(0, 6)))
        raw = page.encode("utf-8", "surrogatepass")
        decoded = raw.decode("utf-8", "replace")
        holds = any(hint in decoded.lower() for hint in _NOT_FOUND_HINTS)
        found += holds
        if holds:
            assert _may_say_not_found(raw, decoded), repr(page)
    assert found > 1000  # the mixtures do hold hints


def test_english_text_with_the_vietnamese_hints_ascii_run_is_turned_away() -> None:
    raw = b"<p>Working across teams, including the board's minutes and notes.</p>"
    assert not _may_say_not_found(raw, raw.decode())


# Lowercased page text with the phrases, their letters' case-blind look-alikes and the
# letters case-blind matching equates (dotless i, long s, the Kelvin sign lowercased).
_PHRASE_PIECES = [
    "this job has expired", "the position is closed.", "thıs job has expired", "ſorry",
    "the job you are looking for is no longer open", "tin tuyển dụng này đã hết hạn",
    "diese stelle ist bereits besetzt", "cette offre n’est plus disponible", "<title>",
    "</title>", "404", "page not found", "page you're looking for doesn't", "trang không tồn tại",
    "couldn't find anything here", "không tìm thấy", "ı", "ſ", "k", " ", "x", "<p>", "\n",
]  # fmt: skip


@pytest.mark.parametrize("pattern", [_CLOSED_PHRASES, _NOT_FOUND_PHRASES])
def test_the_case_sensitive_twin_finds_what_case_blind_matching_finds(
    pattern: re.Pattern[str],
) -> None:
    rng = random.Random(13)
    matched = 0
    for _ in range(3000):
        text = "".join(rng.choice(_PHRASE_PIECES) for _ in range(rng.randint(0, 6))).lower()
        expected = pattern.search(text)
        found = search_lowered(pattern, text)
        matched += expected is not None
        assert (found and found.span()) == (expected and expected.span()), repr(text)
    assert matched > 300


def test_the_phrase_letters_have_no_case_blind_twins_but_the_trapped_ones() -> None:
    from re._casefix import _EXTRA_CASES  # what case-blind matching adds to lower()

    letters = {c for p in (_CLOSED_PHRASES, _NOT_FOUND_PHRASES) for c in p.pattern if c.isalpha()}
    twins = {chr(t) for c in letters for t in _EXTRA_CASES.get(ord(c), ())}
    assert twins <= set(_CASE_TRAPS)


_LAZY_SCRIPT = re.compile(rb"<script\b([^>]*)>(.*?)</script\s*>", re.I | re.S)
_SCRIPT_PIECES = [
    b"<script>", b"<SCRIPT type='application/ld+json'>", b"<scripts>", b"</script>",
    b"</Script >", b"</script\n>", b"</scripts>", b"</script", b"<", b">", b"</", b"{}",
    b"H\xc3\xa0", b"\n", b"<p>", b"</p>",
]  # fmt: skip


def test_json_ld_scripts_are_cut_where_the_lazy_pattern_cut_them() -> None:
    rng = random.Random(17)
    for _ in range(4000):
        page = b"".join(rng.choice(_SCRIPT_PIECES) for _ in range(rng.randint(0, 14)))
        ours = [m.groups() for m in _SCRIPT.finditer(page)]
        assert ours == [m.groups() for m in _LAZY_SCRIPT.finditer(page)], repr(page)


_WRAPPER_PIECES = [
    "<!--", "-->", "/*", "*/", "<![CDATA[", "]]>", "/* <![CDATA[ */", "/* ]]> */", " ", "\n",
    '{"@type": "JobPosting"}', "x", "<", "]]", "--", "/*\n<![CDATA[\n*/",
]  # fmt: skip


def test_json_ld_wrappers_go_as_the_one_pattern_took_them() -> None:
    rng = random.Random(29)
    for _ in range(4000):
        text = "".join(rng.choice(_WRAPPER_PIECES) for _ in range(rng.randint(0, 8))).strip()
        assert _unwrapped(text) == _WRAPPERS.sub("", text), repr(text)


# One wall per hint, holding that hint and no other: a hint skipped by the cheap
# test would let its wall pass for a page.
WALLS = {
    b"just a moment": b"<title>Just a moment...</title>",
    b"attention required": b"<title>Attention Required! | Cloudflare</title>",
    b"cf-browser-verification": b"<div id='cf-browser-verification'></div>",
    b"/cdn-cgi/": b"<script src='/cdn-cgi/challenge-platform/h/b'></script>",
    b"cf_chl_opt": b"<script>window._cf_chl_opt={}</script>",
    b"__cf$cv$params": b"<script>window.__cf$cv$params={}</script>",
    b"recaptcha": b"<div class='g-recaptcha'></div>",
    b"hcaptcha.com": b"<script src='https://hcaptcha.com/1/api.js'></script>",
    b"captcha-delivery.com": b"<script src='https://ct.captcha-delivery.com/c.js'></script>",
    b"access denied": b"<title>Access denied</title>",
}


def test_every_wall_hint_has_its_wall() -> None:
    assert set(WALLS) == set(_BLOCK_HINTS)


@pytest.mark.parametrize("hint", list(WALLS))
def test_each_wall_is_blocked_by_its_own_hint_alone(hint: bytes) -> None:
    page = WALLS[hint]
    assert [h for h in _BLOCK_HINTS if h in page.lower()] == [hint]
    assert looks_blocked(b"<html><body><p>Hello</p>" + page + b"</body></html>")


# The walls' markers in bodies without markup: a JSON API's answer is scanned for the
# script and captcha hints only, and must be judged as the markers judge it.
_MARKUP_FREE = [
    b'{"url":"https://geo.captcha-delivery.com/captcha/?initialCid=AHrlqAAAAAMA"}',
    b'{"script":"window._cf_chl_opt={cvId:\'3\'}"}',
    b'{"src":"/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"}',
    b'{"id":"cf-browser-verification"}',
    b'{"x":"window.__cf$cv$params={r:1}"}',
    b'{"class":"g-recaptcha","note":"class=\'g-recaptcha\'"}',
    b'{"title":"Just a moment...","note":"Access denied; Attention Required! | Cloudflare"}',
    b'{"jobPostings":[{"title":"Captcha Engineer","externalPath":"/job/x_JR1"}]}',
]


@pytest.mark.parametrize("body", _MARKUP_FREE)
def test_a_body_without_markup_is_blocked_exactly_where_a_marker_matches(body: bytes) -> None:
    assert b"<" not in body
    assert looks_blocked(body) == any(marker.search(body) for marker in _BLOCK_MARKERS)


def test_datadomes_json_wall_is_blocked() -> None:
    assert looks_blocked(_MARKUP_FREE[0])


# Title walls as pages write them: the title hints are looked for only at the start of
# a `<title>`, after any blanks, and the verdict must be the markers' own.
_TITLED = [
    (b"<html><title>\n\t  JUST A MOMENT...  </title></html>", True),
    (b"<html><TITLE>Access Denied</TITLE><body>x</body></html>", True),
    (b"<svg><title>icon</title></svg><title>Just a moment...</title>", True),
    (b"<title>" + b" " * 200 + b"\nAttention Required! | Cloudflare</title>", True),
    (b"<html><title>Jobs</title><p>Just a moment... Access denied</p></html>", False),
    (b"<html><title lang='en'>Just a moment...</title></html>", False),
    (b"<html><title>Jobs: just a moment...</title></html>", False),
]


@pytest.mark.parametrize(("page", "blocked"), _TITLED)
def test_a_title_wall_is_blocked_exactly_where_its_marker_matches(
    page: bytes, blocked: bool
) -> None:
    assert any(marker.search(page) for marker in _BLOCK_MARKERS) is blocked
    assert looks_blocked(page) is blocked
