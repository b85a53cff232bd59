"""Rippling: `GET {api_base}/api/v2/board/{board}/jobs?page=N&pageSize=M` (api_base
`https://ats.rippling.com`), pages counted from 0 up to `totalPages`; each new or
changed row's detail (`.../jobs/{id}`) for its description and date.

Change detection: page 1 unchanged says nothing about page 7, so no validators are
sent, and every page is read: most boards are one page of 100, and a count probe
(`totalItems`) would miss a posting that closed while another opened. What changed
is found by the rows' hashes. The direct check asks the detail API, not the hosted
page (a JavaScript shell): 404 once the posting is gone.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

from pipeline.crawl.http.fetcher import FetchRequest
from pipeline.crawl.platforms.simple import DetailFromPosting, PathPlatform
from pipeline.db.rows import DueCheck

PAGE_SIZE = 100
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_HOSTED = re.compile(r"^(?P<origin>https?://.+?)/(?P<board>[^/]+)/jobs/(?P<id>[^/?#]+)/?$")


def detail_api(url: str) -> str | None:
    """The hosted page `{origin}/{board}/jobs/{id}` -> its detail API URL, or None when
    the page's address has another form (a locale prefix): a detail URL built wrongly
    would answer 404 for a live posting, so such postings get the plain page check,
    which can only be ambiguous."""
    match = _HOSTED.match(url)
    if match is None or not _UUID.match(match["id"]):
        return None
    if (
        urlsplit(url).hostname == "ats.rippling.com"
        and match["origin"] != "https://ats.rippling.com"
    ):
        return None
    return f"{match['origin']}/api/v2/board/{match['board']}/jobs/{match['id']}"


class Rippling(PathPlatform, DetailFromPosting):
    name = "rippling"
    format_name = "board API v2 (api/v2/board/{board}/jobs, paged)"
    default_api_base = "https://ats.rippling.com"
    conditional = False
    max_pages = 200  # 20,000 postings; more is reported as truncated

    def listing_url(self, api_base: str, token: str) -> str:
        return f"{api_base}/api/v2/board/{quote(token, safe='')}/jobs?page=0&pageSize={PAGE_SIZE}"

    def check_request(self, posting: DueCheck) -> FetchRequest:
        api = detail_api(str(posting.url))
        if api is None:
            return super().check_request(posting)
        return FetchRequest(api, headers={"Accept": "application/json"}, tag=posting)
