"""Requests for postings' own pages (detail fetches, direct checks): paced like every
other request to the host, sent by the source's transport, and robots.txt-checked
where the source obeys it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from pipeline.config import SourceConfig
from pipeline.crawl.http.fetcher import FetchRequest
from pipeline.crawl.http.transports import Transports
from pipeline.crawl.pacing import DEFAULT_BUDGET, slowed
from pipeline.crawl.platforms import Platform


def paced(source: SourceConfig, platform: Platform, request: FetchRequest) -> FetchRequest:
    """The request spending the host's shared budget, through the source's transport."""
    return replace(
        request,
        budget=platform.budget_for(source),
        host_key=platform.pacing_key(request.url),
        transport=source.transport,
    )


@dataclass
class RobotsSorted:
    allowed: list[FetchRequest] = field(default_factory=list)
    disallowed: list[tuple[FetchRequest, str]] = field(default_factory=list)
    deferred: int = 0  # robots.txt not fetched yet (its host's budget): try next run


def sort_by_robots(
    requests: list[FetchRequest], source: SourceConfig, platform: Platform, transports: Transports
) -> RobotsSorted:
    """Which requests robots.txt lets us send (slowed by its Crawl-delay)."""
    out = RobotsSorted()
    obey = (source.robots or platform.robots) == "obey"
    for request in requests:
        if not obey:
            out.allowed.append(request)
            continue
        # An unpaced request spends the cautious default, as the fetcher would send it.
        budget = request.budget or DEFAULT_BUDGET
        verdict = transports.robots.check(request.url, budget, request.host_key)
        if verdict.deferred_s is not None:
            out.deferred += 1
        elif not verdict.allowed:
            out.disallowed.append((request, verdict.reason or "disallowed by robots.txt"))
        else:
            out.allowed.append(replace(request, budget=slowed(budget, verdict.crawl_delay_s)))
    return out
