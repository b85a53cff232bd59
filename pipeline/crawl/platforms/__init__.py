"""The platform registry: one adapter per platform name used in sources.yaml."""

from __future__ import annotations

from pipeline.config import HtmlSiteSource, SourceConfig
from pipeline.crawl.platforms.base import BoardSpec, HtmlSite, Platform, host_of, scope_page_url
from pipeline.crawl.platforms.breezy import Breezy
from pipeline.crawl.platforms.greenhouse import Greenhouse
from pipeline.crawl.platforms.icims import Icims
from pipeline.crawl.platforms.jazzhr import JazzHR
from pipeline.crawl.platforms.jobvite import Jobvite
from pipeline.crawl.platforms.oracle import Oracle
from pipeline.crawl.platforms.pinpoint import Pinpoint
from pipeline.crawl.platforms.rippling import Rippling
from pipeline.crawl.platforms.simple import (
    Ashby,
    BambooHR,
    Lever,
    Personio,
    Recruitee,
    Teamtailor,
)
from pipeline.crawl.platforms.smartrecruiters import SmartRecruiters
from pipeline.crawl.platforms.successfactors import SuccessFactors
from pipeline.crawl.platforms.workable import Workable
from pipeline.crawl.platforms.workday import Workday

PLATFORMS: dict[str, Platform] = {
    adapter.name: adapter
    for adapter in (
        Greenhouse(),
        Lever(),
        Ashby(),
        SmartRecruiters(),
        Workable(),
        Workday(),
        Recruitee(),
        Teamtailor(),
        Personio(),
        BambooHR(),
        HtmlSite(),
        # issue 14: the platforms next
        Pinpoint(),
        Breezy(),
        Rippling(),
        Oracle(),
        SuccessFactors(),
        JazzHR(),
        Jobvite(),
        Icims(),
    )
}


def platform_of(source: SourceConfig) -> Platform:
    if isinstance(source, HtmlSiteSource):
        return HtmlSite(max_pages=source.pagination.max_pages)
    try:
        return PLATFORMS[source.platform]
    except KeyError:
        raise NotImplementedError(f"platform {source.platform!r} has no crawler yet") from None


def board_specs(source: SourceConfig) -> list[BoardSpec]:
    return platform_of(source).board_specs(source)


__all__ = [
    "PLATFORMS",
    "BoardSpec",
    "Platform",
    "board_specs",
    "host_of",
    "platform_of",
    "scope_page_url",
]
