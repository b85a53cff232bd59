"""`join_claim` returns a plain absolute link as written instead of calling urljoin:
the two must agree on every link and base, the broken ones included."""

from __future__ import annotations

import random
from urllib.parse import urljoin

import pytest

from parsers.urls import _PLAIN_ABSOLUTE, join_claim

BASES = [
    "https://careers-acme.icims.com/jobs/search?ss=1&in_iframe=1&pr=0",
    "http://jobs.example.test/a/b",
    "ftp://files.example.test/x",
    "",
    "http://[::1",
    "https://x]/",
    "HTTPS://Example.TEST/b;c?d#e",
]


def _urljoin_or_none(base: str, link: str) -> str | None:
    try:
        return urljoin(base, link)
    except ValueError:
        return None


@pytest.mark.parametrize(
    "link",
    [
        "https://careers-acme.icims.com/jobs/123/role/job?in_iframe=1",
        "https://host:8080",
        "https://host?q=1",
        "https://host/p?",
        "https://host/p;x",
        "https://host/p#top",
        "https://host/a b",
        "https://host/\u00e9",
        "https://[::1]/x",
        "https://user@host/x",
        "HTTPS://host/x",
        "https://host/a\tb",
        "/jobs/1/role/job",
        "//other.test/x",
    ],
)
def test_join_claim_agrees_with_urljoin(link: str) -> None:
    for base in BASES:
        assert join_claim(base, link) == _urljoin_or_none(base, link)


def test_join_claim_agrees_with_urljoin_on_random_links() -> None:
    rng = random.Random(7)
    rough = 'aZ09.-:/?;#@[]%& =\t\n\x00\x7f\u00e9"$<~!'
    smooth = "aZ09.-:/?=&"
    prefixes = ["https://", "http://", "HTTP://", "https:/", ""]
    plain = 0
    for _ in range(20_000):
        alphabet = rng.choice((rough, smooth))
        link = rng.choice(prefixes) + "".join(
            rng.choice(alphabet) for _ in range(rng.randint(0, 14))
        )
        plain += bool(_PLAIN_ABSOLUTE.fullmatch(link))
        for base in BASES:
            assert join_claim(base, link) == _urljoin_or_none(base, link), (base, link)
    assert plain > 500  # the fast path itself was exercised
