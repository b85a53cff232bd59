"""Greenhouse board API: one GET returns the whole board with content and meta.total."""

from __future__ import annotations

from urllib.parse import quote

from pipeline.crawl.platforms.base import Platform
from pipeline.crawl.platforms.checks import greenhouse_check_url
from pipeline.db.rows import DueCheck


class Greenhouse(Platform):
    name = "greenhouse"
    format_name = "Job Board API v1 (boards-api, content=true)"
    default_api_base = "https://boards-api.greenhouse.io"

    def listing_url(self, api_base: str, token: str) -> str:
        return f"{api_base}/v1/boards/{quote(token, safe='')}/jobs?content=true"

    def check_url(self, posting: DueCheck) -> str | None:
        return greenhouse_check_url(posting)
