"""SmartRecruiters: offset paging over `/v1/companies/{company}/postings` (the parser
computes the next offset from `offset`, `limit` and `totalFound`), and a detail
request per posting for its job ad.

Posting pages live on a separate public host (`jobs.smartrecruiters.com`) that the
listing does not name: the parser builds them on the real default, and the source's
`public_base` (sources.yaml) moves them wherever the source says (the sandbox)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from urllib.parse import quote

from parsers.smartrecruiters import PUBLIC_BASE
from parsers.types import Posting
from pipeline.config import SourceConfig
from pipeline.crawl.platforms import checks
from pipeline.crawl.platforms.simple import DetailFromPosting, PathPlatform
from pipeline.db.rows import DueCheck

PAGE_SIZE = 100  # the API's maximum


class SmartRecruiters(PathPlatform, DetailFromPosting):
    name = "smartrecruiters"
    format_name = "Posting API v1 (companies/{id}/postings, paged)"
    default_api_base = "https://api.smartrecruiters.com"
    default_public_base = PUBLIC_BASE
    conditional = False  # page 1 unchanged says nothing about page 7
    max_pages = 200  # 20,000 postings; more than that is reported as truncated

    def listing_url(self, api_base: str, token: str) -> str:
        return (
            f"{api_base}/v1/companies/{quote(token, safe='')}/postings?limit={PAGE_SIZE}&offset=0"
        )

    def check_url(self, posting: DueCheck) -> str | None:
        return checks.smartrecruiters_check_url(posting)

    def closed_flag(self, response: Any) -> str | None:
        return checks.smartrecruiters_closed_flag(response.status, response.body)

    def public_posting(self, source: SourceConfig, board_key: str, posting: Posting) -> Posting:
        base = getattr(source, "public_base", None)
        if not base or base == self.default_public_base:
            return posting
        return replace(
            posting,
            url=rebase(posting.url, self.default_public_base, base) or posting.url,
            apply_url=rebase(posting.apply_url, self.default_public_base, base),
        )


def rebase(url: str | None, default: str, base: str) -> str | None:
    """A URL the parser built on the default public host, moved to `base`; URLs the
    platform itself returned (a detail's `postingUrl`) are left as they are."""
    if url and url.startswith(default + "/"):
        return base + url[len(default) :]
    return url
