"""Regression (found by the fuzzer after the merge): a page claiming a URL that urlsplit
cannot parse (a broken IPv6 literal) made the page parser raise. Such a claim names no
posting: the fetched URL stands."""

from __future__ import annotations

import pytest

from parsers.urls import is_site_root, posting_url, trusted_claim


@pytest.mark.parametrize("claim", ["http://[::1", "http://[fe80::1%zz/jobs/1", "https://x]/"])
def test_an_unparsable_claimed_url_is_ignored_and_the_fetched_url_stands(claim: str) -> None:
    fetched = "https://jobs.example.test/acme/jobs/42"
    assert posting_url(fetched, claim) == fetched
    assert trusted_claim(fetched, claim) is None
    assert is_site_root(claim)


# Regressions found by the long fuzz run of `make chaos`.

BROKEN = "http://[::1/jobs/1"


def test_a_canonical_link_with_a_broken_ipv6_literal_claims_no_address() -> None:
    from parsers.jsonld import canonical_url

    body = f'<link rel="canonical" href="{BROKEN}">'.encode()
    assert canonical_url(body, "https://jobs.example.test/acme/jobs/42") is None
    assert canonical_url(b'<link rel="canonical" href="/jobs/7">', "http://[::1") is None


def test_a_jsonld_page_fetched_from_an_unparsable_url_is_parsed_not_raised() -> None:
    from parsers import REGISTRY, DocumentKind, RawDocument

    body = (
        b'<html><head><link rel="canonical" href="/jobs/7"><script type="application/ld+json">'
        b'{"@type": "JobPosting", "title": "Nurse", "identifier": "7"}</script></head></html>'
    )
    outcome = REGISTRY.get("jsonld").parse(
        RawDocument(body=body, url="http://[::1", kind=DocumentKind.DETAIL, status=200)
    )
    assert [p.title for p in outcome.postings] == ["Nurse"]


def test_html_text_with_control_characters_is_read_with_spaces_for_them() -> None:
    from parsers.text import html_to_text

    assert html_to_text("<p>a</p>\x01b") == "a\nb"
    assert html_to_text("<p>a\x0bb</p><p>c</p>tail\x1f") == "a b\nc\ntail"
    assert html_to_text("<div>x<p>a</p>\x00b</div>") == html_to_text("<div>x<p>a</p> b</div>")
