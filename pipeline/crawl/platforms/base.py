"""Platform adapters: where a platform's listings live, how they page, and which
postings need their own page fetched.

The phases stay platform-agnostic: they ask the adapter for the first request,
the next page's request, and a posting's detail URL. A platform whose API is one
GET per board needs only a listing URL template; paging quirks (offset paging,
POST bodies, capped totals) are code in the platform's own adapter module.

Crawl-engine hooks (all optional, with defaults that fit a JSON API):
- `pacing`: the default per-host budget (sources.yaml `pacing` overrides it);
- `pacing_key(url)`: whose budget a request spends (the host; Workday: the data
  center, since its rate limit counts per data center, not per company);
- `conditional`: send If-None-Match / If-Modified-Since on the first page;
- `count_probe`: no validators, but the first page states the total: stop after
  it when the total equals the last full pass (a full pass is forced daily);
- `volatile`: what to strip before hashing bodies and listing rows.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from parsers.types import ParseOutcome, Posting
from pipeline.config import AtsSource, HtmlSiteSource, SourceConfig
from pipeline.crawl.http.fetcher import FetchRequest
from pipeline.crawl.pacing import Budget
from pipeline.crawl.volatile import DEFAULT_RULES, VolatileRules
from pipeline.db.rows import BoardRow, DueCheck


@dataclass(frozen=True)
class BoardSpec:
    """One listing endpoint as the queue stores it (crawl.boards)."""

    key: str
    url: str  # the first page's URL
    lane: str
    host: str
    company: str | None = None  # the board's `company:` in sources.yaml
    format: str | None = None  # crawl.boards.format: None where a platform has one format


@dataclass(frozen=True)
class ListingFormat:
    """One of a platform's public listing formats (docs/parsers.md, "Formats per
    platform"). `name` is what crawl.boards.format records; `label` is what `boards
    import` prints; `why` says why it ranks where it does. Every format of a platform
    is read by the platform's one parser, which tells its formats apart by their bodies."""

    name: str
    label: str
    why: str = ""


# Answers that say "this board has no listing in this format": the listing endpoint's
# 404 or 410, or a parser's rejection of a body as another format (an XML reader given
# an HTML page or another root, a JSON reader given HTML, a listing reader given a page
# with no listing). A block, an empty body or a parser error say nothing about the format.
GONE_STATUSES = frozenset({404, 410})
NOT_THIS_FORMAT = frozenset({"unexpected_shape", "invalid_xml", "html_not_json", "no_posting"})

# The name of a platform's only listing format, when it has one (crawl.boards.format
# stays NULL for such boards: there is nothing to choose).
ONLY_FORMAT = "listing"


def host_of(url: str) -> str:
    return urlsplit(url).netloc.lower()


class Platform:
    """Defaults fit a JSON API that returns a whole board in one GET."""

    name: str = ""
    default_api_base: str | None = None
    # Which of the platform's public formats the listing URL asks for (docs/parsers.md,
    # "Formats per platform"): `boards import` reports it for every board it accepts.
    format_name: str = ""
    robots: str = "ignore"  # APIs are not governed by robots.txt; websites override with "obey"
    conditional: bool = True  # send If-None-Match / If-Modified-Since on the first page
    max_pages: int = 1
    # About two requests a second with a small burst: what ATS APIs tolerate from one
    # client without complaint (measure a vendor and override in its adapter).
    pacing: Budget = Budget(2.0, 4)
    count_probe: bool = False
    volatile: VolatileRules = DEFAULT_RULES

    # ---- pacing

    def pacing_key(self, url: str) -> str:
        """Whose rate budget a request to `url` spends: its host by default."""
        return host_of(url)

    def budget_for(self, source: SourceConfig) -> Budget:
        if source.pacing is not None:
            return Budget(source.pacing.rate_per_s, source.pacing.burst)
        return self.pacing

    # ---- boards

    def listing_url(self, api_base: str, token: str) -> str:
        raise NotImplementedError(f"{self.name}: no listing URL template")

    def listing_format(self, url: str) -> str:
        """The format a listing URL of this platform asks for (one per platform unless
        the source's `api_base` selects another, as Workable's v3 does)."""
        return self.format_name

    # ---- listing formats (best first) and the fallback between them

    def listing_formats(self) -> tuple[ListingFormat, ...]:
        """The platform's readable listing formats, best first. One by default: such a
        platform never falls back (pipeline.phases.fallback)."""
        return (ListingFormat(ONLY_FORMAT, self.format_name),)

    def format_url(self, name: str, api_base: str | None, token: str) -> str | None:
        """The listing URL of format `name` for a board, or None when the board's token
        does not lead to that format (a Jobvite feed id names no career site)."""
        if name == ONLY_FORMAT:
            return self.listing_url(api_base, token)  # type: ignore[arg-type]
        return None

    def api_base_for(self, source: SourceConfig) -> str | None:
        """The base listing URLs are built on: the source's, else the platform's."""
        assert isinstance(source, AtsSource)
        api_base = source.api_base or self.default_api_base
        if not api_base:
            raise NotImplementedError(f"{self.name}: api_base is required")
        return api_base

    def board_formats(self, api_base: str | None, token: str) -> list[tuple[ListingFormat, str]]:
        """The formats a board's token leads to, best first, each with its listing URL."""
        found = []
        for fmt in self.listing_formats():
            url = self.format_url(fmt.name, api_base, token)
            if url is not None:
                found.append((fmt, url))
        return found

    def format_label(self, name: str | None, url: str) -> str:
        """What `boards import` and the run summary call a board's format."""
        named = {f.name: f.label for f in self.listing_formats()}
        return named.get(name or "", "") or self.listing_format(url)

    def lane(self, source: SourceConfig, url: str) -> str:
        """Lanes keep a slow vendor from slowing the others: one per platform by default."""
        return self.name

    def board_specs(self, source: SourceConfig) -> list[BoardSpec]:
        """Each enabled board at the best format its token leads to (the catalog moves
        a board to the format it was last read in: pipeline.crawl.catalog)."""
        assert isinstance(source, AtsSource)
        api_base = self.api_base_for(source)
        specs = []
        for board in source.boards:
            if board.enabled:
                fmt, url = self.first_format(api_base, board.token)
                lane, host = self.lane(source, url), host_of(url)
                specs.append(BoardSpec(board.token, url, lane, host, board.company, fmt))
        return specs

    def first_format(self, api_base: str | None, token: str) -> tuple[str | None, str]:
        """(the format name to record, the listing URL) of the best format a token leads
        to; the name is None for a platform with only one format."""
        found = self.board_formats(api_base, token)
        if not found:
            raise ValueError(f"{self.name}: board token {token!r} leads to no listing format")
        fmt, url = found[0]
        return (None if fmt.name == ONLY_FORMAT else fmt.name), url

    # ---- paging

    def first_request(self, board: BoardRow, headers: Mapping[str, str]) -> FetchRequest:
        return FetchRequest(board.url, headers=dict(headers), tag=board)

    def next_request(
        self,
        board: BoardRow,
        previous: FetchRequest,
        outcome: ParseOutcome,
        pages_read: int,
    ) -> FetchRequest | None:
        """The request for the page after `previous`, or None when the listing is done."""
        if outcome.next_page_url and pages_read < self.max_pages_for(board):
            return FetchRequest(outcome.next_page_url, tag=board)
        return None

    def max_pages_for(self, board: BoardRow) -> int:
        return self.max_pages

    def scope_hash(self, board: BoardRow) -> str:
        """What a complete scan of this board covers. When it changes (another URL,
        page cap, facets), the next complete scan is a new baseline, not evidence
        that postings outside the new scope closed."""
        scope = {"url": board.url, "max_pages": self.max_pages_for(board), "platform": self.name}
        return hashlib.sha256(json.dumps(scope, sort_keys=True).encode()).hexdigest()

    def truncated(
        self, board: BoardRow, last: FetchRequest, outcome: ParseOutcome, pages_read: int
    ) -> bool:
        """Whether the listing stopped with pages unread (it may add, never retire).
        By default only the page cap leaves a next page unread."""
        return bool(outcome.next_page_url) and pages_read >= self.max_pages_for(board)

    def listing_total(
        self, total: int | None, outcome: ParseOutcome, pages_read: int
    ) -> int | None:
        """The listing's own count so far: by default the first page that states one."""
        return outcome.total if total is None else total

    # ---- details

    def detail_url(self, source: SourceConfig, posting: Posting) -> str | None:
        """Where the posting's own page is, when the listing is not enough; None otherwise."""
        return None

    # ---- identity

    def former_external_id(self, posting: Posting) -> str | None:
        """The id an earlier version of the platform's parser gave this listed posting,
        when the current version gives it another; None by default. A stored posting
        under that id takes the new one (pipeline.lifecycle.rules.id_renames)."""
        return None

    # ---- direct checks (closing needs the posting itself to say it is gone)

    def check_request(self, posting: DueCheck) -> FetchRequest:
        """The request that asks the posting itself whether it still exists: the
        platform's per-posting record (`check_url`) where it has one, else its page."""
        return FetchRequest(self.check_url(posting) or posting.url, tag=posting)

    def check_url(self, posting: DueCheck) -> str | None:
        """The platform's per-posting endpoint, derived from the board's configured
        URL (pipeline/crawl/platforms/checks.py); None: ask the posting's own page."""
        return None

    def public_posting(self, source: SourceConfig, board_key: str, posting: Posting) -> Posting:
        """The posting with its public URLs on the source's configured public host
        (platforms whose listing API does not name the public page build it)."""
        return posting

    def closed_flag(self, response: Any) -> str | None:
        """The platform's own "this posting is closed" signal in a check response, if any
        (e.g. Workday's 403 with errorCode S22). None means no such signal."""
        return None


class HtmlSite(Platform):
    name = "html_site"
    format_name = "configured HTML site pages (selectors in sources.yaml)"
    robots = "obey"
    conditional = False  # a 304 for page 1 says nothing about page 7

    def __init__(self, max_pages: int = 50) -> None:
        self.max_pages = max_pages

    def lane(self, source: SourceConfig, url: str) -> str:
        return f"site:{host_of(url)}"  # each site is its own vendor

    def board_specs(self, source: SourceConfig) -> list[BoardSpec]:
        assert isinstance(source, HtmlSiteSource)
        specs = []
        for scope in source.scopes:
            url = scope_page_url(source, scope.path, source.pagination.first_page)
            specs.append(BoardSpec(scope.key, url, self.lane(source, url), host_of(url)))
        return specs

    def max_pages_for(self, board: BoardRow) -> int:
        return self.max_pages

    def detail_url(self, source: SourceConfig, posting: Posting) -> str | None:
        return posting.url


def scope_page_url(source: HtmlSiteSource, scope_path: str, page: int) -> str:
    return source.base_url + scope_path.replace("{page}", str(page))
