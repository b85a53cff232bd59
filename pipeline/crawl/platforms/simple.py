"""ATS platforms whose whole board is one GET: a URL template per platform.

Subdomain-hosted platforms (Recruitee, BambooHR, Personio, Teamtailor) name the
board in the host; with an `api_base` (the sandbox) the token becomes the first
path segment instead: `{api_base}/{token}/...`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from parsers.types import Posting
from pipeline.config import AtsSource, SourceConfig
from pipeline.crawl.platforms import checks
from pipeline.crawl.platforms.base import Platform
from pipeline.db.rows import DueCheck


class PathPlatform(Platform):
    """`{api_base}{path}` with the token quoted into the path."""

    path = ""

    def listing_url(self, api_base: str, token: str) -> str:
        return api_base + self.path.format(token=quote(token, safe=""))


class HostPerBoard(Platform):
    """Platforms whose board lives on its own host: no api_base is needed, and
    `listing_url` receives None unless one is configured (the sandbox)."""

    def api_base_for(self, source: SourceConfig) -> str | None:
        assert isinstance(source, AtsSource)
        return source.api_base


class SubdomainPlatform(HostPerBoard):
    """`https://{token}.{domain}{path}`; `{api_base}/{token}{path}` when api_base is set."""

    host_template = ""
    path = ""

    def listing_url(self, api_base: str | None, token: str) -> str:
        if api_base:
            return f"{api_base}/{quote(token, safe='.')}{self.path}"
        host = token if "." in token else self.host_template.format(token=token)
        return f"https://{host}{self.path}"


class DetailFromPosting(Platform):
    """Listing rows carry no description: fetch the detail record the parser named."""

    def detail_url(self, source: SourceConfig, posting: Posting) -> str | None:
        return posting.detail_url or None


class Lever(PathPlatform):
    name = "lever"
    format_name = "Postings API v0 (mode=json)"
    default_api_base = "https://api.lever.co"  # EU boards: api_base https://api.eu.lever.co
    path = "/v0/postings/{token}?mode=json"

    def check_url(self, posting: DueCheck) -> str | None:
        return checks.lever_check_url(posting)


class Ashby(PathPlatform):
    name = "ashby"
    format_name = "Posting API job board (includeCompensation=true)"
    default_api_base = "https://api.ashbyhq.com"
    path = "/posting-api/job-board/{token}?includeCompensation=true"

    # The posting API has no per-posting record: the check asks the hosted page,
    # whose soft-404 ("The job you have requested was not found") is Ashby's own answer.
    def closed_flag(self, response: Any) -> str | None:
        return checks.ashby_closed_flag(response.status, response.body)


class Recruitee(SubdomainPlatform):
    name = "recruitee"
    format_name = "careers-site API (/api/offers/)"
    host_template = "{token}.recruitee.com"
    path = "/api/offers/"

    def check_url(self, posting: DueCheck) -> str | None:
        return checks.recruitee_check_url(posting)


class Personio(SubdomainPlatform):
    name = "personio"
    format_name = "XML feed (/xml?language=en)"
    host_template = "{token}.jobs.personio.de"
    path = "/xml?language=en"


class Teamtailor(SubdomainPlatform):
    name = "teamtailor"
    format_name = "JSON Feed (/jobs.json)"
    host_template = "{token}.teamtailor.com"
    path = "/jobs.json"

    def detail_url(self, source: SourceConfig, posting: Posting) -> str | None:
        # The feed may omit descriptions; the hosted page then has them (JSON-LD).
        return None if posting.description_text else posting.url or None


class BambooHR(SubdomainPlatform, DetailFromPosting):
    name = "bamboohr"
    format_name = "careers list JSON (/careers/list)"
    host_template = "{token}.bamboohr.com"
    path = "/careers/list"

    def check_url(self, posting: DueCheck) -> str | None:
        return checks.bamboohr_check_url(posting)
