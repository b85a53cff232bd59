"""Which URL names a posting: the page's own claims (JSON-LD `url`, rel=canonical,
og:url) are weighed against where the page was fetched.

Real pages lie about themselves: a job site's JSON-LD `url` is its homepage on
every posting (so every posting of the site would share one url and one id), an
Ashby page's og:url spells the board differently from the API's `jobUrl`. The
rules, shared by every parser that reads a page:

- a site root ("https://site/", "/en", "/jobs") is never a posting's URL or id;
- a URL on another host than the fetched page is never taken from the page;
- the page's URL is taken only when it is more specific than the fetched one
  (more path segments, or the fetched one is a root) or names the same path
  (a canonical without the fetched URL's tracking parameters); otherwise the
  fetched URL stands, because it is the address the crawl will check again.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import SplitResult, urljoin, urlsplit

# Path segments that only name a section or a language, never one posting.
_SECTION = re.compile(
    r"^(?:[a-z]{2}(?:[-_][a-z]{2,4})?|jobs?|careers?|vacancies|vacatures|openings|positions|"
    r"search|index(?:\.\w+)?|home|viec-lam|tuyen-dung|it-jobs)$",
    re.I,
)


def _split(url: str) -> SplitResult:
    """urlsplit, or an empty URL for one it cannot parse (a broken IPv6 literal in a
    hostile page): such a URL names no posting and no host."""
    try:
        return urlsplit(url)
    except ValueError:
        return SplitResult("", "", "", "", "")


def join_claim(base: str, claim: str) -> str | None:
    """urljoin, or None for a claim it cannot parse (a broken IPv6 literal)."""
    if _PLAIN_ABSOLUTE.fullmatch(claim) and _base_parses(base):
        return claim  # what urljoin returns for it, without splitting both URLs
    try:
        return urljoin(base, claim)
    except ValueError:
        return None


# An absolute http(s) URL that urljoin returns as written, whatever the base (a link
# on a listing page usually is one): a lowercase scheme, a host of letters, digits,
# dots and hyphens, an optional port, then printable ASCII without the `;` of path
# parameters or a `#`, and no empty query (a trailing `?`). urljoin returns a URL of
# another scheme untouched, and one of the base's scheme with a host rebuilt from its
# split parts, which for this form are the URL again; splitting strips, drops or
# rewrites nothing here (no whitespace, controls, brackets or non-ASCII).
_PLAIN_ABSOLUTE = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]+)?(?:[/?][!-\"$-:<-~]*)?(?<!\?)")


@lru_cache(maxsize=256)  # one base per page, and a crawl fetches a board's pages in turn
def _base_parses(base: str) -> bool:
    """Whether urljoin can split `base`: it does so before looking at the link."""
    try:
        urlsplit(base)
    except ValueError:
        return False
    return True


def _segments(url: str) -> list[str]:
    return [s for s in _split(url).path.split("/") if s]


def is_site_root(url: str) -> bool:
    """A homepage, a language root or a bare section: no single posting lives there.

    A query string can name a posting ("/jobs?id=42", "?gh_jid=7"), so only a
    path without a posting segment and without a query is a root.
    """
    parts = _split(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return True
    if parts.query:
        return False
    return all(_SECTION.match(segment) for segment in _segments(url))


def _host(url: str) -> str:
    host = _split(url).netloc.lower().split("@")[-1].split(":")[0]
    return host[4:] if host.startswith("www.") else host


def same_host(url: str, other: str) -> bool:
    return _host(url) == _host(other)


def _same_path(url: str, other: str) -> bool:
    return _split(url).path.rstrip("/") == _split(other).path.rstrip("/")


def posting_url(fetched: str, *claims: str | None) -> str:
    """The URL that names the posting on a page fetched from `fetched`, given what the
    page claims about itself (first usable claim wins, relative ones are joined)."""
    base_segments = len(_segments(fetched))
    fetched_is_root = is_site_root(fetched)
    for claim in claims:
        if not isinstance(claim, str) or not claim.strip():
            continue
        url = join_claim(fetched, claim.strip())
        if url is None or is_site_root(url) or not same_host(url, fetched):
            continue
        if fetched_is_root or len(_segments(url)) > base_segments or _same_path(url, fetched):
            return url
    return fetched


def trusted_claim(fetched: str, claim: str | None) -> str | None:
    """`claim` joined to `fetched` when it may name a posting (not a root, same host)."""
    if not isinstance(claim, str) or not claim.strip():
        return None
    url = join_claim(fetched, claim.strip())
    return None if url is None or is_site_root(url) or not same_host(url, fetched) else url
