"""Jobvite: a board is read from the company's XML feed (`app.jobvite.com/CompanyJobs/
Xml.aspx?c={companyEId}`: the whole board with descriptions in one GET), or from its
career site's search page (`jobs.jobvite.com/{slug}/search`: rows without
descriptions, each job's page fetched for them) when the feed is unavailable.

A board token names the feed's `companyEId` (`qZA9VfwF`), the career site's slug
(`@feedingamerica`), or both (`qZA9VfwF@feedingamerica`): the formats are asked in
that order, and a feed that answers 404 or with something that is not the feed falls
back to the career site in the same run (pipeline.phases.fallback). Change detection:
the feed's validators when sent, else its hash. The direct check is the posting's
career-site page (`jobs.jobvite.com/{slug}/job/{id}`), whose 404 says the job is gone.

With an `api_base` (the sandbox) the feed id or the slug is the first path segment, as
for the subdomain platforms: `{api_base}/{eid}/CompanyJobs/Xml.aspx?c={eid}` and
`{api_base}/{slug}/careers/search` (`careers` stands for the career-site host).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from parsers.types import Posting
from pipeline.config import SourceConfig
from pipeline.crawl.platforms.base import ListingFormat
from pipeline.crawl.platforms.simple import HostPerBoard
from pipeline.db.rows import BoardRow

DEFAULT_HOST = "https://app.jobvite.com"
CAREER_SITE = "https://jobs.jobvite.com"
SITE_MAX_PAGES = 20  # the search page's own paging; past it the read is truncated
_PART = r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}"
_TOKEN = re.compile(rf"^(?P<eid>{_PART})?(?:@(?P<slug>{_PART}))?$")
XML_FEED = ListingFormat(
    "xml_feed",
    "CompanyJobs XML feed (Xml.aspx?c={companyEId})",
    "the whole board with descriptions in one GET",
)
CAREER_SEARCH = ListingFormat(
    "career_site",
    "career-site search page (jobs.jobvite.com/{slug}/search)",
    "the site's own listing: no descriptions (each job's page is fetched), read when the "
    "feed is unavailable",
)


@dataclass(frozen=True)
class JobviteBoard:
    eid: str | None
    slug: str | None


def parse_board(token: str) -> JobviteBoard:
    match = _TOKEN.match(token)
    if match is None or not (match["eid"] or match["slug"]):
        raise ValueError(
            f"Jobvite board token {token!r} must be a companyEId (qZA9VfwF), a career-site "
            "slug (@feedingamerica) or both (qZA9VfwF@feedingamerica)"
        )
    return JobviteBoard(match["eid"], match["slug"])


def is_career_site(url: str) -> bool:
    return url.endswith("/search") or "/search?" in url


class Jobvite(HostPerBoard):
    name = "jobvite"
    format_name = XML_FEED.label

    def listing_formats(self) -> tuple[ListingFormat, ...]:
        return (XML_FEED, CAREER_SEARCH)

    def format_url(self, name: str, api_base: str | None, token: str) -> str | None:
        board = parse_board(token)
        if name == XML_FEED.name and board.eid:
            eid = quote(board.eid, safe="")
            origin = f"{api_base}/{eid}" if api_base else DEFAULT_HOST
            return f"{origin}/CompanyJobs/Xml.aspx?c={eid}"
        if name == CAREER_SEARCH.name and board.slug:
            slug = quote(board.slug, safe="")
            return (
                f"{api_base}/{slug}/careers/search" if api_base else f"{CAREER_SITE}/{slug}/search"
            )
        return None

    def listing_url(self, api_base: str | None, token: str) -> str:
        return self.first_format(api_base, token)[1]

    def listing_format(self, url: str) -> str:
        return CAREER_SEARCH.label if is_career_site(url) else XML_FEED.label

    def max_pages_for(self, board: BoardRow) -> int:
        return SITE_MAX_PAGES if is_career_site(board.url) else self.max_pages

    def detail_url(self, source: SourceConfig, posting: Posting) -> str | None:
        # The feed carries descriptions; a career-site row has only its page's address.
        return None if posting.description_text else posting.url or None
