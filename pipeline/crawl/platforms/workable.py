"""Workable: the widget API (one GET per account, the default), or the v3 careers-page
API when the widget answers 404 or something that is not the widget's listing
(pipeline.phases.fallback); a source whose `api_base` ends in `/api/v3`
(`https://apply.workable.com/api/v3`) reads v3 only.

v3 is a POST search answered in pages of 10 with a `nextPage` token, which the next
request sends back in the same body; its rows carry no description, so each new
or changed posting's v2 detail is fetched (the parser names it as `detail_url`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from parsers.types import ParseOutcome, Posting
from pipeline.config import SourceConfig
from pipeline.crawl.http.fetcher import FetchRequest
from pipeline.crawl.platforms import checks
from pipeline.crawl.platforms.base import ListingFormat
from pipeline.crawl.platforms.simple import PathPlatform
from pipeline.db.rows import BoardRow, DueCheck

V3_MAX_PAGES = 500  # 5,000 postings: past it the listing is reported as truncated
_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}
WIDGET_V1 = ListingFormat(
    "widget_v1",
    "widget API v1 (details=true)",
    "the whole account with descriptions in one GET",
)
CAREERS_V3 = ListingFormat(
    "careers_v3",
    "careers-page API v3 (POST jobs, paged)",
    "the careers page's own API: a request per 10 rows plus one per new or changed posting",
)


def is_v3(url: str) -> bool:
    return "/api/v3/accounts/" in url


def search_body(token: str | None = None) -> bytes:
    query: dict[str, Any] = {"query": "", "location": [], "department": [], "worktype": []}
    if token:
        query["token"] = token
    return json.dumps(query).encode()


class Workable(PathPlatform):
    name = "workable"
    format_name = "widget API v1 (details=true)"
    default_api_base = "https://apply.workable.com"
    path = "/api/v1/widget/accounts/{token}?details=true"

    def check_url(self, posting: DueCheck) -> str | None:
        return checks.workable_check_url(posting)

    def listing_formats(self) -> tuple[ListingFormat, ...]:
        return (WIDGET_V1, CAREERS_V3)

    def format_url(self, name: str, api_base: str | None, token: str) -> str | None:
        base = str(api_base).rstrip("/")
        pinned_v3 = base.endswith("/api/v3")
        if name == WIDGET_V1.name and not pinned_v3:
            return super().listing_url(base, token)
        if name == CAREERS_V3.name:
            root = base if pinned_v3 else f"{base}/api/v3"
            return f"{root}/accounts/{quote(token, safe='')}/jobs"
        return None

    def listing_url(self, api_base: str, token: str) -> str:
        return self.first_format(api_base, token)[1]

    def listing_format(self, url: str) -> str:
        return CAREERS_V3.label if is_v3(url) else WIDGET_V1.label

    def max_pages_for(self, board: BoardRow) -> int:
        return V3_MAX_PAGES if is_v3(str(board.url)) else self.max_pages

    def first_request(self, board: BoardRow, headers: Mapping[str, str]) -> FetchRequest:
        if not is_v3(str(board.url)):
            return super().first_request(board, headers)
        # A POST search has no validators to send.
        return FetchRequest(
            board.url, headers=_HEADERS, tag=board, method="POST", body=search_body()
        )

    def next_request(
        self,
        board: BoardRow,
        previous: FetchRequest,
        outcome: ParseOutcome,
        pages_read: int,
    ) -> FetchRequest | None:
        token = outcome.paging.get("next_token")
        if not is_v3(str(board.url)) or not token or pages_read >= self.max_pages_for(board):
            return None
        return FetchRequest(
            board.url, headers=_HEADERS, tag=board, method="POST", body=search_body(token)
        )

    def truncated(
        self, board: BoardRow, last: FetchRequest, outcome: ParseOutcome, pages_read: int
    ) -> bool:
        return bool(outcome.paging.get("next_token")) and pages_read >= self.max_pages_for(board)

    def detail_url(self, source: SourceConfig, posting: Posting) -> str | None:
        # Widget rows have their description (details=true); v3 rows name their detail.
        return posting.detail_url or None
