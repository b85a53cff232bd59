"""Workday CXS: POST paging of 20, a 2,000-result ceiling split by facet, one lane
per data center, and details only where the listing hides something.

A board token is `{tenant}.{dc}/{site}`, e.g. `nvidia.wd5/NVIDIAExternalCareerSite`
for https://nvidia.wd5.myworkdayjobs.com/NVIDIAExternalCareerSite, or the board's
address `wd3.myworkdaysite.com/recruiting/{tenant}/{site}` for a site on the data
center's shared host: the same CXS API under
https://wd3.myworkdaysite.com/wday/cxs/{tenant}/{site} (pipeline/workday_sites.py).

Paging: the first page's `total` is the count (later pages say 0). When it is the
2,000 ceiling, the search is split by a location facet whose values each stay
under the ceiling (every posting has a location, so the slices cover the board);
if no such facet exists the listing is read up to the ceiling and reported as
truncated: it can add postings but never retire any.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from parsers.types import ParseOutcome, Posting
from parsers.workday import superseded_id
from pipeline.config import SourceConfig
from pipeline.crawl.http.fetcher import FetchRequest
from pipeline.crawl.platforms.simple import HostPerBoard
from pipeline.db.rows import BoardRow, DueCheck
from pipeline.workday_sites import TOKEN_FORMS, WorkdaySite, workday_site

PAGE_SIZE = 20  # Workday refuses more
TOTAL_CAP = 2000
MAX_PAGES = 1000  # 20,000 postings: a safety stop, reported as truncated
# Facets that partition a board (every posting has one value), most specific last.
LOCATION_FACETS = ("locationHierarchy1", "locationCountry", "locations", "locationHierarchy2")
_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}


# A posting's page on a shared host, {origin}/[locale/]recruiting/{tenant}/{site}/job/...;
# the origin is the host itself, or a base whose last segment names it (the sandbox).
_SHARED_PAGE = re.compile(
    r"^(?P<origin>https?://(?:[^/?#]+/)*?wd\d+\.myworkdaysite\.com)"
    r"(?:/[A-Za-z]{2}(?:-[A-Za-z]{2})?)?"
    r"/recruiting/(?P<tenant>[^/]+)/(?P<site>[^/]+)(?P<path>/job/.+)$"
)


def parse_token(token: str) -> WorkdaySite:
    """The career site a board token names; ValueError when it names none."""
    site = workday_site(token)
    if site is None:
        raise ValueError(f"Workday board token {token!r} must look like {TOKEN_FORMS}")
    return site


def search_body(offset: int, facets: Mapping[str, list[str]] | None = None) -> bytes:
    return json.dumps(
        {
            "appliedFacets": dict(facets or {}),
            "limit": PAGE_SIZE,
            "offset": offset,
            "searchText": "",
        }
    ).encode()


@dataclass(frozen=True)
class Cursor:
    """Where the paging is: the current slice (a facet value, or none) and offset."""

    url: str
    slices: tuple[tuple[str, str], ...] = ()  # (facet parameter, value id); () = unfaceted
    slice_index: int = -1  # -1: the unfaceted search
    offset: int = 0
    slice_total: int | None = None
    truncated: bool = False

    def request(self) -> FetchRequest:
        facets = {}
        if self.slice_index >= 0:
            parameter, value = self.slices[self.slice_index]
            facets = {parameter: [value]}
        return FetchRequest(
            self.url,
            headers=_HEADERS,
            tag=self,
            method="POST",
            body=search_body(self.offset, facets),
        )


def plan_slices(facets: list[Mapping[str, Any]]) -> tuple[tuple[str, str], ...] | None:
    """Values of a location facet that each stay under the ceiling, or None."""
    by_name = {f.get("parameter"): f for f in facets}
    for name in LOCATION_FACETS:
        facet = by_name.get(name)
        if not facet:
            continue
        values = [v for v in facet.get("values") or () if isinstance(v.get("count"), int)]
        if values and all(v["count"] < TOTAL_CAP for v in values):
            return tuple((name, str(v["id"])) for v in values if v["count"] > 0)
    return None


class Workday(HostPerBoard):
    name = "workday"
    format_name = "CXS jobs search (POST /wday/cxs/.../jobs, paged)"
    conditional = False  # POST searches: no validators to send
    # ...but the first page states the total: when it equals the last full pass (read
    # within a day), the board is taken as unchanged after one page.
    count_probe = True
    max_pages = MAX_PAGES

    # ---- direct checks

    def check_request(self, posting: DueCheck) -> FetchRequest:
        """Ask the CXS detail API, not the hosted page: it says when a posting is closed."""
        url = str(posting.url)
        shared = _SHARED_PAGE.match(url)
        if shared:
            api = f"{shared['origin']}/wday/cxs/{shared['tenant']}/{shared['site']}{shared['path']}"
            return FetchRequest(api, headers={"Accept": "application/json"}, tag=posting)
        match = re.match(r"^(?P<origin>.*?)/(?P<site>[^/]+)(?P<path>/job/.+)$", url)
        tenant = re.search(r"([^/.]+)\.wd\d+", url)
        if not match or not tenant:
            return super().check_request(posting)
        api = f"{match['origin']}/wday/cxs/{tenant.group(1)}/{match['site']}{match['path']}"
        return FetchRequest(api, headers={"Accept": "application/json"}, tag=posting)

    def closed_flag(self, response: Any) -> str | None:
        """Workday's own "this posting is closed": 403 with errorCode S22 on the detail API."""
        if response.status != 403:
            return None
        try:
            data = json.loads(response.body)
        except ValueError:
            return None
        code = data.get("errorCode") if isinstance(data, dict) else None
        return "S22" if code == "S22" else None

    def pacing_key(self, url: str) -> str:
        """Workday rate-limits per data center, not per company: wd5 is one budget, its
        tenants' hosts and its shared host (wd5.myworkdaysite.com) alike."""
        match = re.search(r"[./](wd\d+)\.(?:myworkdayjobs|myworkdaysite)\.com", url)
        return f"{match.group(1)}.myworkdayjobs.com" if match else super().pacing_key(url)

    def listing_url(self, api_base: str | None, token: str) -> str:
        return parse_token(token).listing_url(api_base or None)

    def lane(self, source: SourceConfig, url: str) -> str:
        """One lane per data center (wd1, wd5, ...): they are separate vendors' hosts."""
        match = re.search(r"[./](wd\d+)(?:\.|/)", url)
        return f"workday:{match.group(1)}" if match else "workday"

    # ---- paging

    def first_request(self, board: BoardRow, headers: Mapping[str, str]) -> FetchRequest:
        request = Cursor(board.url).request()
        return replace(request, tag=board)  # discover finds its board on the first request

    def next_request(
        self,
        board: BoardRow,
        previous: FetchRequest,
        outcome: ParseOutcome,
        pages_read: int,
    ) -> FetchRequest | None:
        cursor = previous.tag if isinstance(previous.tag, Cursor) else Cursor(board.url)
        following = self._advance(cursor, outcome, pages_read)
        return following.request() if following is not None else None

    def _advance(self, cursor: Cursor, outcome: ParseOutcome, pages_read: int) -> Cursor | None:
        paging = outcome.paging
        count = int(paging.get("count") or 0)
        reported = paging.get("reported_total")
        if cursor.offset == 0:
            cursor = replace(cursor, slice_total=reported if isinstance(reported, int) else None)
        capped = cursor.offset == 0 and isinstance(reported, int) and reported >= TOTAL_CAP
        if capped and cursor.slice_index == -1:
            slices = plan_slices(list(paging.get("facets") or ()))
            if slices:
                return Cursor(cursor.url, slices, 0)
            cursor = replace(cursor, truncated=True)  # no partition: read what the cap allows
        elif capped:
            cursor = replace(cursor, truncated=True)  # one slice is itself over the ceiling
        next_offset = cursor.offset + PAGE_SIZE
        limit = min(cursor.slice_total or 0, TOTAL_CAP)
        if pages_read >= self.max_pages:
            return None
        if count > 0 and next_offset < limit:
            return replace(cursor, offset=next_offset)
        if 0 <= cursor.slice_index < len(cursor.slices) - 1:
            return replace(cursor, slice_index=cursor.slice_index + 1, offset=0, slice_total=None)
        return None

    def truncated(
        self, board: BoardRow, last: FetchRequest, outcome: ParseOutcome, pages_read: int
    ) -> bool:
        cursor = last.tag if isinstance(last.tag, Cursor) else None
        capped = outcome.paging.get("reported_total")
        if cursor is None:  # the first page was the last one
            return isinstance(capped, int) and capped >= TOTAL_CAP
        return cursor.truncated or pages_read >= self.max_pages

    def listing_total(
        self, total: int | None, outcome: ParseOutcome, pages_read: int
    ) -> int | None:
        # Only the first page counts the board; slices and later pages count other things.
        return outcome.total if pages_read == 1 else total

    # ---- identity

    def former_external_id(self, posting: Posting) -> str | None:
        """The repost-suffixed page id ("R12345-1") parser 2 gave a row whose own
        requisition id ("R12345") parser 3 takes as its id."""
        return superseded_id(posting.payload)

    # ---- details

    def detail_url(self, source: SourceConfig, posting: Posting) -> str | None:
        """Only where the listing hides locations ("3 Locations") or the title is wanted."""
        if posting.more_offices:
            return posting.detail_url
        title_filter = getattr(source, "title_filter", None)
        if title_filter and re.search(title_filter, posting.title, re.I):
            return posting.detail_url
        return None
