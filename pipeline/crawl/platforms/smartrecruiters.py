"""SmartRecruiters: offset paging over `/v1/companies/{company}/postings` (the parser
computes the next offset from `offset`, `limit` and `totalFound`), and a detail
request per posting for its job ad."""

from __future__ import annotations

from urllib.parse import quote

from pipeline.crawl.platforms.simple import DetailFromPosting, PathPlatform

PAGE_SIZE = 100  # the API's maximum


class SmartRecruiters(PathPlatform, DetailFromPosting):
    name = "smartrecruiters"
    default_api_base = "https://api.smartrecruiters.com"
    conditional = False  # page 1 unchanged says nothing about page 7
    max_pages = 200  # 20,000 postings; more than that is reported as truncated

    def listing_url(self, api_base: str, token: str) -> str:
        return (
            f"{api_base}/v1/companies/{quote(token, safe='')}/postings?limit={PAGE_SIZE}&offset=0"
        )
