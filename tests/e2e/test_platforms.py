"""Every platform end to end through the real pipeline against the sandbox: discover
(paging, totals), fetch (details where the listing is not enough), parse (the
detail merged with its listing row), then the rows in core.postings and
core.parse_results. Expected values come from the sandbox's world, not from the
pipeline itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from parsers.registry import REGISTRY
from parsers.types import DocumentKind, PageSignal, Quality, RawDocument
from pipeline.app import App
from pipeline.crawl.http.fetcher import FetchRequest
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from sandbox.server import RunningSandbox
from sandbox.world import Job, build_board, job_locations

# source -> (the world's platform key for its boards, whether each posting needs its own page)
SOURCES: dict[str, tuple[str, str]] = {
    "greenhouse": ("greenhouse", "never"),
    "lever": ("lever", "never"),
    "ashby": ("ashby", "never"),
    "smartrecruiters": ("smartrecruiters", "always"),
    "workable": ("workable", "never"),
    "workable_v3": ("workable", "always"),  # POST pages of 10 by token; v2 detail per row
    "workday": ("workday", "some"),
    "recruitee": ("recruitee", "never"),
    "teamtailor": ("teamtailor", "always"),
    "personio": ("personio", "never"),
    "bamboohr": ("bamboohr", "always"),
    "itviec": ("site:itviec", "always"),
    "topcv": ("site:topcv", "always"),
}


def world_jobs(app: App, sandbox: RunningSandbox, name: str) -> dict[str, list[Job]]:
    """The sandbox's jobs per board of a source (the truth the pipeline must find)."""
    platform, _ = SOURCES[name]
    source = app.sources.get(name)
    tokens = (
        [b.token for b in source.boards]
        if hasattr(source, "boards")
        else [s.key for s in source.scopes]
    )
    jobs = {}
    for token in tokens:
        key = token.split("/")[0] if platform == "workday" else token
        board = build_board(sandbox.state.seed, platform, key, 0, platform.startswith("site:"))
        jobs[token] = list(board.jobs)
    return jobs


def run_all(app: App, name: str) -> tuple[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]]:
    found = discover(app, name, force=True)
    fetched = fetch_details(app, name)
    parsed = parse_source(app, name)
    for report in (found, fetched, parsed):
        assert report.status == "succeeded", report
    return found.stats, fetched.stats, parsed.stats


def current_results(app: App, name: str) -> list[dict[str, Any]]:
    with app.db.connect() as conn:
        return list(
            conn.execute(
                """SELECT p.external_id, p.detail_state, p.detail_url, pr.*
                   FROM core.postings AS p
                   JOIN core.parse_results AS pr ON pr.posting_id = p.id AND pr.is_current
                   WHERE p.source_id = %s ORDER BY p.external_id""",
                (name,),
            ).fetchall()
        )


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_platform_end_to_end(app: App, sandbox: RunningSandbox, name: str) -> None:
    truth = world_jobs(app, sandbox, name)
    expected_titles = sorted(job.title for jobs in truth.values() for job in jobs)

    found, fetched, parsed = run_all(app, name)

    assert found["outcomes"] == {"changed": len(truth)}
    assert found["postings_new"] == len(expected_titles)
    with app.db.connect() as conn:
        scans = conn.execute(
            "SELECT complete, truncated FROM crawl.scans AS s JOIN crawl.boards AS b ON b.id = s.board_id WHERE b.source_id = %s",
            (name,),
        ).fetchall()
    assert all(s["complete"] and not s["truncated"] for s in scans)

    rows = current_results(app, name)
    assert sorted(r["title"] for r in rows) == expected_titles
    assert parsed["postings"] == len(expected_titles)
    needs_detail = SOURCES[name][1]
    detail_rows = [r for r in rows if r["detail_state"] == "fetched"]
    if needs_detail == "always":
        assert len(detail_rows) == len(rows) == fetched["postings"]
    elif needs_detail == "never":
        assert detail_rows == []
        assert fetched["postings"] == 0
    for row in rows:
        assert row["url"].startswith(("http://", "https://")), row["url"]
        assert row["remote"] in ("yes", "hybrid", "unknown")
        assert row["posted_precision"] in ("exact", "day", "unknown")
        if row["quality"] == Quality.PARTIAL.value:
            # Only Workday rows without a fetched detail lack a description, by design.
            assert name == "workday"
            assert row["detail_state"] == "not_needed"
            assert [i["code"] for i in row["issues"]] == ["missing_description"]
        else:
            assert row["quality"] == Quality.ACCEPTED.value, row["issues"]
            assert row["description_text"], row["title"]


def test_workday_details_only_for_counted_locations_or_wanted_titles(
    app: App, sandbox: RunningSandbox
) -> None:
    truth = [job for jobs in world_jobs(app, sandbox, "workday").values() for job in jobs]
    run_all(app, "workday")
    rows = {r["title"] + str(r["external_id"]): r for r in current_results(app, "workday")}
    wanted = [
        j
        for j in truth
        if len(job_locations(j)) > 1 or "Intern" in j.title or "New Grad" in j.title
    ]
    fetched = [r for r in rows.values() if r["detail_state"] == "fetched"]
    assert len(fetched) == len(wanted)
    for job in truth:
        row = rows[f"{job.title}JR{job.job_id % 10**11}"]
        if len(job_locations(job)) > 1:
            # "N Locations" in the listing; the detail names every office.
            assert [o["text"] for o in row["offices"]] == list(job_locations(job))
            assert row["posted_precision"] == "day"  # the detail's startDate


def test_lever_and_ashby_fields(app: App, sandbox: RunningSandbox) -> None:
    run_all(app, "ashby")
    ashby = current_results(app, "ashby")
    with_pay = [r for r in ashby if r["salary_min"] is not None]
    # Each posting pays in its country's currency, as the world states it.
    paid = {
        (job.title, job.salary[0], job.currency)
        for jobs in world_jobs(app, sandbox, "ashby").values()
        for job in jobs
        if job.salary
    }
    assert len({currency for _, _, currency in paid}) > 1, "the world pays in more than one"
    assert {(r["title"], int(r["salary_min"]), r["salary_currency"]) for r in with_pay} == paid
    assert all(r["salary_period"] == "year" for r in with_pay)
    run_all(app, "lever")
    lever = current_results(app, "lever")
    assert {r["remote"] for r in lever} >= {"yes", "hybrid"}
    assert all(r["posted_precision"] == "exact" for r in lever)


def test_workable_repeats_and_vietnamese_sites(app: App) -> None:
    run_all(app, "workable")
    multi = [r for r in current_results(app, "workable") if len(r["offices"]) > 1]
    assert multi  # a job listed once per country became one posting with every office
    run_all(app, "topcv")
    topcv = current_results(app, "topcv")
    assert all(o["country"] == "Vietnam" for r in topcv for o in r["offices"])
    run_all(app, "vieclam")
    counted = [
        r for r in current_results(app, "vieclam") if "nơi khác" in (r["location_text"] or "")
    ]
    assert counted  # "Hà Nội & 2 nơi khác": one named province, two more counted
    assert all([o["region"] for o in r["offices"]] == ["Hà Nội"] for r in counted)
    assert all(r["location"]["more_offices"] == 2 for r in counted)


def _missing_once(app: App, name: str) -> int:
    with app.db.connect() as conn:
        row = conn.execute(
            "SELECT count(*) AS n FROM core.postings WHERE source_id = %s AND missing_count = 1",
            (name,),
        ).fetchone()
    return int(row["n"])


def test_a_changed_board_adds_changes_and_counts_absence(app: App, sandbox: RunningSandbox) -> None:
    run_all(app, "greenhouse")
    sandbox.state.advance("greenhouse", "harbor-labs")
    found, _, parsed = run_all(app, "greenhouse")
    assert (found["postings_new"], found["postings_changed"]) == (1, 1)
    assert parsed["postings"] == 2  # only the new and the changed posting are parsed again
    assert _missing_once(app, "greenhouse") == 1  # absence is counted, never taken as closure


def test_detail_platforms_fetch_only_new_rows(app: App, sandbox: RunningSandbox) -> None:
    """BambooHR's list rows carry no description: an edit shows only on the detail,
    so an advanced board costs one detail request (the new posting), not a refetch."""
    run_all(app, "bamboohr")
    sandbox.state.advance("bamboohr", "quiet-works")
    found, fetched, _ = run_all(app, "bamboohr")
    assert (found["postings_new"], found["postings_changed"]) == (1, 0)
    assert fetched["postings"] == 1
    assert _missing_once(app, "bamboohr") == 1


def test_smartrecruiters_pages_by_offset(app: App, sandbox: RunningSandbox) -> None:
    """With pages of 5 the listing takes several requests and is still complete."""
    from pipeline.crawl.platforms import smartrecruiters

    original = smartrecruiters.PAGE_SIZE
    smartrecruiters.PAGE_SIZE = 5
    try:
        from pipeline.crawl.catalog import sync_catalog

        with app.db.connect() as conn, conn.transaction():
            conn.execute("DELETE FROM crawl.boards WHERE source_id = 'smartrecruiters'")
        sync_catalog(app)
        found, _, _ = run_all(app, "smartrecruiters")
    finally:
        smartrecruiters.PAGE_SIZE = original
    total = sum(len(jobs) for jobs in world_jobs(app, sandbox, "smartrecruiters").values())
    assert found["pages"] == sum(
        -(-len(j) // 5) for j in world_jobs(app, sandbox, "smartrecruiters").values()
    )
    assert found["postings_new"] == total


def test_workable_v3_pages_by_token(app: App, sandbox: RunningSandbox) -> None:
    """The v3 search answers 10 rows a page; the token in each answer asks for the next."""
    from sandbox.formats.workable import V3_PAGE

    truth = world_jobs(app, sandbox, "workable_v3")
    assert any(len(jobs) > V3_PAGE for jobs in truth.values())  # paging is exercised
    found, fetched, _ = run_all(app, "workable_v3")
    assert found["pages"] == sum(-(-len(jobs) // V3_PAGE) for jobs in truth.values())
    assert found["postings_new"] == fetched["postings"] == sum(len(j) for j in truth.values())
    rows = current_results(app, "workable_v3")
    assert {r["remote"] for r in rows} >= {"yes", "hybrid"}
    assert all("/j/" in r["url"] for r in rows)


@pytest.mark.parametrize(
    ("platform", "live_path", "gone_path"),
    [
        (
            "greenhouse",
            "/greenhouse/boards/harbor-labs/jobs/{id}",
            "/greenhouse/boards/harbor-labs/jobs/1",
        ),
        (
            "lever",
            "/lever/jobs/harbor-labs/{id}",
            "/lever/jobs/harbor-labs/00000000-0000-4000-a000-000000000000",
        ),
    ],
)
def test_hosted_pages_tell_live_from_closed(
    app: App, sandbox: RunningSandbox, platform: str, live_path: str, gone_path: str
) -> None:
    """What the lifecycle checker relies on: a hosted page parses to its posting while
    live, and says closed / not found once it is gone (through the real fetcher,
    following Greenhouse's redirect to the board's ?error=true page)."""
    listing = discover(app, platform, force=True)
    assert listing.status == "succeeded"
    with app.db.connect() as conn:
        row = conn.execute(
            """SELECT p.external_id FROM core.postings AS p JOIN crawl.boards AS b ON b.id = p.board_id
               WHERE p.source_id = %s AND b.board_key = 'harbor-labs' ORDER BY p.id LIMIT 1""",
            (platform,),
        ).fetchone()
    parser = REGISTRY.get(platform)
    with app.fetcher() as fetcher:
        live = fetcher.fetch(FetchRequest(sandbox.url + live_path.format(id=row["external_id"])))
        gone = fetcher.fetch(FetchRequest(sandbox.url + gone_path))
    live_outcome = parser.parse(
        RawDocument(live.body, live.final_url, DocumentKind.DETAIL, status=live.status)
    )
    gone_outcome = parser.parse(
        RawDocument(gone.body, gone.final_url, DocumentKind.DETAIL, status=gone.status)
    )
    assert live_outcome.postings[0].external_id == row["external_id"]
    assert live_outcome.signal is PageSignal.NORMAL
    assert gone_outcome.gone
    assert gone_outcome.signal is (
        PageSignal.CLOSED if platform == "greenhouse" else PageSignal.NOT_FOUND
    )
