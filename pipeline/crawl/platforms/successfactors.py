"""SAP SuccessFactors Recruiting: a board is read from the career site's XML feed, or from
its Career Site Builder site's RSS feed when the XML feed is unavailable.

A board token names the legacy career site `{host}/{company}`
(`career2.successfactors.eu/SwissRe` for https://career2.successfactors.eu/career
?company=SwissRe), the company's Career Site Builder site `{site host}`
(`jobs.example.com`), or both, `{host}/{company}@{site host}`: the formats are
asked in that order (`listing_formats`), and a board whose XML feed answers 404 or
with a page that is not the feed (a tenant that switched the feed off) is read from
the site's RSS feed in the same run (pipeline.phases.fallback).

Both feeds are single-shot (no paging); change detection is the server's validators
when it sends any, else the listing's hash. The direct check is the posting's own
page (the legacy `career_ns=job_listing&career_job_req_id=...`, or the site's
`/job/...` page), whose closed banner or 404 says it is gone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from pipeline.crawl.platforms.base import ListingFormat
from pipeline.crawl.platforms.simple import HostPerBoard

_HOST = r"[A-Za-z0-9.-]+\.[A-Za-z]{2,}"
_TOKEN = re.compile(
    rf"^(?:(?P<host>{_HOST})/(?P<company>[A-Za-z0-9_.-]+))?(?:@?(?P<site>{_HOST}))?$"
)
# SAP's own career hosts serve the legacy site per company id, never a company's CSB site.
_DATA_CENTER = re.compile(r"^career\d*\.(?:successfactors|sapsf)\.", re.I)
XML_FEED = ListingFormat(
    "xml_feed",
    "career-site XML feed (job_listing_summary, resultType=XML)",
    "the documented public listing: the whole board with descriptions in one GET",
)
RSS_FEED = ListingFormat(
    "rss_feed",
    "Career Site Builder RSS feed (/googlefeed.xml)",
    "the site's own feed (Google Base fields): read when the XML feed is unavailable",
)


@dataclass(frozen=True)
class SfBoard:
    """What a SuccessFactors board token names: the legacy site, the CSB site, or both."""

    host: str | None
    company: str | None
    site: str | None


def parse_board(token: str) -> SfBoard:
    match = _TOKEN.match(token)
    if match is None or not (match["host"] or match["site"]) or token.startswith("@"):
        raise ValueError(
            f"SuccessFactors board token {token!r} must look like career2.successfactors.eu/"
            "SwissRe, jobs.example.com, or career2.successfactors.eu/SwissRe@jobs.example.com"
        )
    if match["host"] and match["site"] and "@" not in token:
        raise ValueError(f"SuccessFactors board token {token!r}: separate the site with @")
    if match["site"] and _DATA_CENTER.match(match["site"]):
        raise ValueError(
            f"SuccessFactors board token {token!r} names SAP's career host, not a company's "
            "site: add the company id (career2.successfactors.eu/SwissRe)"
        )
    host = match["host"].lower() if match["host"] else None
    site = match["site"].lower() if match["site"] else None
    return SfBoard(host, match["company"], site)


def parse_token(token: str) -> tuple[str, str]:
    """The legacy site's (host, company) a token names (ValueError if it names none)."""
    board = parse_board(token)
    if board.host is None or board.company is None:
        raise ValueError(f"SuccessFactors board token {token!r} names no legacy career site")
    return board.host, board.company


def _origin(api_base: str | None, host: str) -> str:
    return f"{api_base}/{host}" if api_base else f"https://{host}"


class SuccessFactors(HostPerBoard):
    name = "successfactors"
    format_name = XML_FEED.label
    robots = "obey"  # the feeds are served by the career sites themselves, not an API host

    def listing_formats(self) -> tuple[ListingFormat, ...]:
        return (XML_FEED, RSS_FEED)

    def format_url(self, name: str, api_base: str | None, token: str) -> str | None:
        board = parse_board(token)
        if name == XML_FEED.name and board.host and board.company:
            return (
                f"{_origin(api_base, board.host)}/career?company={quote(board.company, safe='')}"
                "&career_ns=job_listing_summary&resultType=XML"
            )
        if name == RSS_FEED.name and board.site:
            return f"{_origin(api_base, board.site)}/googlefeed.xml"
        return None

    def listing_url(self, api_base: str | None, token: str) -> str:
        return self.first_format(api_base, token)[1]

    def listing_format(self, url: str) -> str:
        return RSS_FEED.label if url.endswith("/googlefeed.xml") else XML_FEED.label
