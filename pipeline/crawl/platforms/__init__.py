"""The platform registry: one adapter per platform name of `pipeline.platform_names`."""

from __future__ import annotations

from collections.abc import Iterable

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
from pipeline.platform_names import PLATFORMS as PLATFORM_NAMES


def registry_of(adapters: Iterable[Platform]) -> dict[str, Platform]:
    """The adapters by name. A duplicate, a platform without an adapter or an adapter
    without a platform name fails at import (as a duplicate parser does), so the list
    of names and the adapters cannot drift apart."""
    registry: dict[str, Platform] = {}
    for adapter in adapters:
        if adapter.name in registry:
            raise RuntimeError(f"platform adapter {adapter.name!r} is registered twice")
        registry[adapter.name] = adapter
    missing = [name for name in PLATFORM_NAMES if name not in registry]
    unknown = [name for name in registry if name not in PLATFORM_NAMES]
    if missing or unknown:
        raise RuntimeError(
            f"platform adapters and pipeline.platform_names disagree: no adapter for "
            f"{missing or 'none'}; not a platform name: {unknown or 'none'}"
        )
    return registry


PLATFORMS: dict[str, Platform] = registry_of(
    (
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
        Pinpoint(),
        Breezy(),
        Rippling(),
        Oracle(),
        SuccessFactors(),
        JazzHR(),
        Jobvite(),
        Icims(),
    )
)


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
    "registry_of",
    "scope_page_url",
]
