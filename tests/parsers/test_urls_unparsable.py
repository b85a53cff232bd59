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
