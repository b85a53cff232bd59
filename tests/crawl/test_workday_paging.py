"""Workday paging: POST pages of 20, the first page's total, and the 2,000 ceiling
split by a location facet. The big tenant runs end to end against the sandbox; the
cursor's decisions are also checked directly, page by page."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from parsers.types import ParseOutcome, Quality
from pipeline.app import App
from pipeline.crawl.catalog import sync_catalog
from pipeline.crawl.platforms.workday import PAGE_SIZE, TOTAL_CAP, Workday
from pipeline.db.rows import BoardRow
from sandbox.formats.workday import BIG_PARTS
from sandbox.server import RunningSandbox
from sandbox.world import build_board, country_of
from tests.conftest import make_settings

if TYPE_CHECKING:
    from tests.conftest import TestDatabases

BOARD = BoardRow(
    1,
    "workday",
    "acme.wd5/Careers",
    "https://acme.wd5.myworkdayjobs.com/wday/cxs/acme/Careers/jobs",
)


def page(count: int, reported: int | None, facets: list[dict] | None = None) -> ParseOutcome:
    return ParseOutcome(
        quality=Quality.ACCEPTED,
        paging={"count": count, "reported_total": reported, "facets": facets or []},
    )


def walk(outcomes: list[ParseOutcome]) -> list[dict]:
    """The request bodies the adapter sends for a sequence of answers."""
    adapter = Workday()
    request = adapter.first_request(BOARD, {})
    bodies = [json.loads(request.body)]
    for pages, outcome in enumerate(outcomes, start=1):
        request = adapter.next_request(BOARD, request, outcome, pages)
        if request is None:
            break
        assert request.method == "POST"
        assert request.headers["Content-Type"] == "application/json"
        bodies.append(json.loads(request.body))
    return bodies


def test_pages_of_twenty_until_the_first_pages_total() -> None:
    bodies = walk([page(20, 45), page(20, 0), page(5, 0)])
    assert [b["offset"] for b in bodies] == [0, 20, 40]
    assert all(b["limit"] == PAGE_SIZE and b["appliedFacets"] == {} for b in bodies)


def test_an_empty_page_ends_the_listing_early() -> None:
    assert [b["offset"] for b in walk([page(20, 100), page(0, 0)])] == [0, 20]


def test_the_ceiling_is_split_by_location_facet() -> None:
    facets = [
        {"parameter": "jobFamilyGroup", "values": [{"id": "eng", "count": 2400}]},
        {
            "parameter": "locationHierarchy1",
            "values": [
                {"id": "us", "count": 1500},
                {"id": "de", "count": 30},
                {"id": "none", "count": 0},
            ],
        },
    ]
    bodies = walk(
        [
            page(20, TOTAL_CAP, facets),
            *[page(20, 1500)] + [page(20, 0)] * 74,
            page(20, 30),
            page(10, 0),
        ]
    )
    assert bodies[1] == {
        "appliedFacets": {"locationHierarchy1": ["us"]},
        "limit": 20,
        "offset": 0,
        "searchText": "",
    }
    us = [b for b in bodies if b["appliedFacets"] == {"locationHierarchy1": ["us"]}]
    assert [b["offset"] for b in us] == list(range(0, 1500, 20))
    assert [
        b["offset"] for b in bodies if b["appliedFacets"] == {"locationHierarchy1": ["de"]}
    ] == [0, 20]
    assert not any(b["appliedFacets"] == {"locationHierarchy1": ["none"]} for b in bodies)


def test_without_a_partition_the_listing_is_read_to_the_ceiling_and_truncated() -> None:
    adapter = Workday()
    request = adapter.first_request(BOARD, {})
    outcome = page(
        20, TOTAL_CAP, [{"parameter": "jobFamilyGroup", "values": [{"id": "x", "count": 2500}]}]
    )
    offsets = [0]
    pages = 1
    while (following := adapter.next_request(BOARD, request, outcome, pages)) is not None:
        request, pages = following, pages + 1
        offsets.append(json.loads(request.body)["offset"])
        outcome = page(20, 0)
    assert offsets[-1] == TOTAL_CAP - PAGE_SIZE
    assert adapter.truncated(BOARD, request, outcome, pages)  # may add, never retire
    assert adapter.listing_total(None, ParseOutcome(Quality.ACCEPTED, total=None), 1) is None


def test_details_only_for_counted_locations_or_a_wanted_title(tmp_path: Path) -> None:
    from parsers.types import Posting
    from pipeline.config import WorkdaySource

    adapter = Workday()
    plain = WorkdaySource(platform="workday", boards=["a.wd1/S"])
    wanted = WorkdaySource(platform="workday", boards=["a.wd1/S"], title_filter=r"\bintern\b")
    row = Posting(external_id="JR1", url="u", title="Software Intern", detail_url="d")
    assert adapter.detail_url(plain, row) is None
    assert adapter.detail_url(wanted, row) == "d"
    counted = Posting(external_id="JR2", url="u", title="Engineer", more_offices=3, detail_url="d2")
    assert adapter.detail_url(plain, counted) == "d2"


@pytest.mark.timeout(600)
def test_a_tenant_over_the_ceiling_is_read_whole(
    databases: TestDatabases, sandbox: RunningSandbox, tmp_path: Path
) -> None:
    sources = tmp_path / "sources.yaml"
    sources.write_text(
        "version: 1\nsources:\n  workday:\n    platform: workday\n"
        f"    api_base: {sandbox.url}/workday\n    boards: [bigco.wd3/Global]\n"
        # Loopback: lift Workday's default budget (2 requests/s) for a 100-page read.
        "    pacing: {rate_per_s: 500, burst: 100}\n",
        encoding="utf-8",
    )
    app = App.create(settings=make_settings(databases, tmp_path, sources_file=sources))
    sync_catalog(app)
    jobs = [
        job
        for part in range(BIG_PARTS)
        for job in build_board(sandbox.state.seed, "workday", f"bigco.wd3#{part}", 0).jobs
    ]
    assert len(jobs) > TOTAL_CAP
    from pipeline.phases.discover import discover

    report = discover(app, "workday", force=True)
    assert report.stats["postings_new"] == len(jobs)
    by_country = Counter(country_of(j.location) for j in jobs)
    assert report.stats["pages"] == 1 + sum(-(-n // PAGE_SIZE) for n in by_country.values())
    with app.db.connect() as conn:
        scan = conn.execute(
            "SELECT complete, truncated, total_reported FROM crawl.scans"
        ).fetchone()
    assert (scan["complete"], scan["truncated"], scan["total_reported"]) == (True, False, None)
