"""Oracle Recruiting Cloud: the Candidate Experience REST API of an HCM pod.

A board token is `{host}/{siteNumber}`: `eeho.fa.us2.oraclecloud.com/CX_1` for
https://eeho.fa.us2.oraclecloud.com/hcmUI/CandidateExperience/en/sites/CX_1 (a bare
`eeho.fa.us2` gets `.oraclecloud.com`; an employer's own domain is kept as written).

Paging: offset/limit inside the `finder` parameter, to `items[0].TotalJobsCount`.
Change detection: no validators (a search), and every page is read: a count probe
would miss a posting that closed while another opened; rows are hashed. Details:
every new or changed row's `recruitingCEJobRequisitionDetails` (the listing has only
a teaser). The direct check asks that detail API too (the public page is a
JavaScript shell): `items: []` is Oracle's own "not posted on this site".
"""

from __future__ import annotations

import json
import re
from typing import Any

from parsers.oracle import detail_url
from pipeline.crawl.http.fetcher import FetchRequest
from pipeline.crawl.platforms.simple import DetailFromPosting, HostPerBoard
from pipeline.db.rows import DueCheck

PAGE_SIZE = 200
_TOKEN = re.compile(r"^(?P<host>[A-Za-z0-9.-]+)/(?P<site>[A-Za-z0-9_-]+)$")
_PUBLIC = re.compile(
    r"^(?P<origin>https?://.+?)/hcmUI/CandidateExperience/[^/]+/sites/(?P<site>[^/]+)/job/(?P<id>[^/?#]+)"
)
_HEADERS = {"Accept": "application/json"}


def parse_token(token: str) -> tuple[str, str]:
    """(host, siteNumber) from `host/siteNumber`; ValueError otherwise."""
    match = _TOKEN.match(token)
    if match is None:
        raise ValueError(f"Oracle board token {token!r} must look like pod.fa.us2/CX_1")
    host = match["host"].lower()
    if not re.search(r"\.[a-z]{2,}$", host) or re.search(r"\.fa\.[a-z0-9]+$", host):
        host += ".oraclecloud.com"  # eeho.fa.us2 is a pod name
    return host, match["site"]


def listing_url(origin: str, site: str, offset: int = 0) -> str:
    finder = (
        f"findReqs;siteNumber={site},limit={PAGE_SIZE},offset={offset},sortBy=POSTING_DATES_DESC"
    )
    return (
        f"{origin}/hcmRestApi/resources/latest/recruitingCEJobRequisitions?onlyData=true"
        f"&expand=requisitionList.secondaryLocations&finder={finder}"
    )


class Oracle(HostPerBoard, DetailFromPosting):
    name = "oracle"
    format_name = "HCM REST recruitingCEJobRequisitions (findReqs, paged)"
    conditional = False
    max_pages = 200  # 40,000 requisitions; more is reported as truncated

    def listing_url(self, api_base: str | None, token: str) -> str:
        host, site = parse_token(token)
        origin = f"{api_base}/{host}" if api_base else f"https://{host}"
        return listing_url(origin, site)

    def check_request(self, posting: DueCheck) -> FetchRequest:
        match = _PUBLIC.match(str(posting.url))
        if match is None:
            return super().check_request(posting)
        api = detail_url(match["origin"], match["site"], match["id"])
        return FetchRequest(api, headers=_HEADERS, tag=posting)

    def closed_flag(self, response: Any) -> str | None:
        """Oracle's own answer for a requisition no longer posted: 200 with `items: []`."""
        if response.status != 200 or "recruitingCEJobRequisitionDetails" not in str(
            response.requested_url
        ):
            return None
        try:
            data = json.loads(response.body)
        except ValueError:
            return None
        return (
            "no_posted_requisition" if isinstance(data, dict) and data.get("items") == [] else None
        )
