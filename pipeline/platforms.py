"""What the pipeline knows about each platform: where its listings live, which lane
its boards poll in, and whether postings need a detail request.

Per-platform facts live here in one table so adding a platform is one entry
(plus its parser), not edits scattered through the phases.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from pipeline.config import AtsSource, Board, HtmlSiteSource, Scope, SourceConfig


@dataclass(frozen=True)
class BoardSpec:
    """One listing endpoint as the queue stores it."""

    key: str
    url: str  # the first page's URL
    lane: str
    host: str


@dataclass(frozen=True)
class Platform:
    name: str
    default_api_base: str | None
    listing_url: Callable[[str, str], str] | None  # (api_base, token) -> URL
    needs_detail: bool  # postings need their own page fetched to be complete
    robots: str  # default robots policy: "obey" for websites, "ignore" for APIs


def _greenhouse(api_base: str, token: str) -> str:
    return f"{api_base}/v1/boards/{quote(token, safe='')}/jobs?content=true"


PLATFORMS: dict[str, Platform] = {
    "greenhouse": Platform(
        "greenhouse", "https://boards-api.greenhouse.io", _greenhouse, False, "ignore"
    ),
    "html_site": Platform("html_site", None, None, True, "obey"),
}


def platform_of(source: SourceConfig) -> Platform:
    try:
        return PLATFORMS[source.platform]
    except KeyError:
        raise NotImplementedError(f"platform {source.platform!r} has no crawler yet") from None


def host_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.netloc.lower()


def lane_for(source: SourceConfig, url: str) -> str:
    """Lanes keep a slow vendor from slowing others: one per platform (and, for
    sites, one per site, since each site is its own vendor)."""
    if isinstance(source, HtmlSiteSource):
        return f"site:{host_of(url)}"
    return source.platform


def board_specs(source: SourceConfig) -> list[BoardSpec]:
    if isinstance(source, HtmlSiteSource):
        return [_scope_spec(source, scope) for scope in source.scopes]
    assert isinstance(source, AtsSource)
    return [_ats_spec(source, board) for board in source.boards if board.enabled]


def _ats_spec(source: AtsSource, board: Board) -> BoardSpec:
    platform = platform_of(source)
    api_base = source.api_base or platform.default_api_base
    assert api_base
    assert platform.listing_url
    url = platform.listing_url(api_base, board.token)
    return BoardSpec(key=board.token, url=url, lane=lane_for(source, url), host=host_of(url))


def scope_page_url(source: HtmlSiteSource, scope_path: str, page: int) -> str:
    return source.base_url + scope_path.replace("{page}", str(page))


def _scope_spec(source: HtmlSiteSource, scope: Scope) -> BoardSpec:
    url = scope_page_url(source, scope.path, source.pagination.first_page)
    return BoardSpec(key=scope.key, url=url, lane=lane_for(source, url), host=host_of(url))
