"""Pinpoint, Breezy, Rippling, Oracle, SuccessFactors, JazzHR, Jobvite and iCIMS, end to
end over the sandbox through the real
pipeline: discover (paging, totals), fetch (details where the listing is not
enough), parse; every URL the engine keeps for a posting is served; and the direct
check closes a withdrawn posting on the platform's own per-posting evidence while a
live one stays as it was. Expected values come from the sandbox's world."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from parsers.types import Quality
from pipeline.app import App
from pipeline.phases.check import check_postings
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from sandbox.server import RunningSandbox
from sandbox.world import Job, build_board

# source -> (the world's platform key, whether each posting needs its own record fetched,
#            the close reason the direct check gives a withdrawn posting)
SOURCES: dict[str, tuple[str, str, str]] = {
    "pinpoint": ("pinpoint", "never", "http_404"),
    "breezy": ("breezy", "never", "http_404"),
    "rippling": ("rippling", "always", "http_404"),
    "oracle": ("oracle", "always", "platform_closed_flag"),
    "successfactors": ("successfactors", "never", "page_says_closed"),
    "jazzhr": ("jazzhr", "never", "redirected_to_board"),
    "jobvite": ("jobvite", "never", "http_404"),
    "icims": ("icims", "always", "page_says_closed"),
}
# Platforms whose rows state remote / hybrid work in a field of their own.
WORK_MODE_STATED = {"pinpoint", "breezy", "rippling", "oracle"}


def world_jobs(app: App, sandbox: RunningSandbox, name: str) -> dict[str, list[Job]]:
    platform = SOURCES[name][0]
    tokens = [b.token for b in app.sources.get(name).boards]
    return {
        t: list(build_board(sandbox.state.seed, platform, world_key(t), 0).jobs) for t in tokens
    }


def world_key(token: str) -> str:
    """The sandbox keys a board by its host where a token also names a site (Oracle)."""
    return token.split("/")[0]


def run_all(app: App, name: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    reports = (discover(app, name, force=True), fetch_details(app, name), parse_source(app, name))
    for report in reports:
        assert report.status == "succeeded", report
    return tuple(dict(r.stats) for r in reports)  # type: ignore[return-value]


def current_results(app: App, name: str) -> list[dict[str, Any]]:
    with app.db.connect() as conn:
        return list(
            conn.execute(
                """SELECT p.id AS posting_id, p.external_id, p.detail_state, p.status,
                          p.missing_count, pr.*
                   FROM core.postings AS p
                   JOIN core.parse_results AS pr ON pr.posting_id = p.id AND pr.is_current
                   WHERE p.source_id = %s ORDER BY p.external_id""",
                (name,),
            ).fetchall()
        )


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_new_platform_end_to_end(app: App, sandbox: RunningSandbox, name: str) -> None:
    truth = world_jobs(app, sandbox, name)
    expected = sorted(job.title for jobs in truth.values() for job in jobs)

    found, fetched, parsed = run_all(app, name)
    assert parsed["postings"] == len(expected)

    assert found["outcomes"] == {"changed": len(truth)}
    assert found["postings_new"] == len(expected)
    rows = current_results(app, name)
    assert sorted(r["title"] for r in rows) == expected
    assert len({r["external_id"] for r in rows}) == len(rows)  # ids unique
    needs_detail = SOURCES[name][1]
    fetched_rows = [r for r in rows if r["detail_state"] == "fetched"]
    if needs_detail == "always":
        assert len(fetched_rows) == len(rows) == fetched["postings"]
    else:
        assert fetched_rows == []
        assert fetched["postings"] == 0
    for row in rows:
        assert row["quality"] == Quality.ACCEPTED.value, row["issues"]
        assert row["description_text"], row["title"]
        assert row["remote"] in ("yes", "hybrid", "unknown")
    if name in WORK_MODE_STATED:
        assert {r["remote"] for r in rows} & {"yes", "hybrid"}  # the platform's field is read


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_url_kept_for_a_posting_is_served(
    app: App, sandbox: RunningSandbox, name: str
) -> None:
    run_all(app, name)
    rows = current_results(app, name)
    urls = {u for r in rows for u in (r["url"], r["apply_url"]) if u}
    with httpx.Client(timeout=10) as client:
        statuses = {url: client.get(url).status_code for url in sorted(urls)}
    assert all(url.startswith(sandbox.url) for url in urls)
    assert set(statuses.values()) == {200}, statuses


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_the_direct_check_closes_a_withdrawn_posting_and_keeps_a_live_one(
    app: App, sandbox: RunningSandbox, name: str
) -> None:
    platform = SOURCES[name][0]
    token = app.sources.get(name).boards[0].token
    run_all(app, name)
    sandbox.state.advance(platform, world_key(token))  # the employer withdraws one posting
    discover(app, name, force=True)
    rows = current_results(app, name)
    (gone,) = [r for r in rows if r["missing_count"] == 1]
    live = next(r for r in rows if r["missing_count"] == 0)
    with app.db.connect() as conn:
        # As if two complete scans had missed both: only the check may decide.
        conn.execute(
            "UPDATE core.postings SET status = 'missing', missing_count = 2 WHERE id = ANY(%s)",
            ([gone["posting_id"], live["posting_id"]],),
        )
    stats = check_postings(app, name).stats
    assert stats["checked"] == 2
    with app.db.connect() as conn:
        after = {
            r["id"]: r
            for r in conn.execute(
                "SELECT id, status, close_reason, check_outcome FROM core.postings WHERE id = ANY(%s)",
                ([gone["posting_id"], live["posting_id"]],),
            )
        }
    closed, kept = after[gone["posting_id"]], after[live["posting_id"]]
    assert closed["status"] in ("expired", "not_found"), closed
    assert closed["close_reason"] == SOURCES[name][2]
    assert (kept["status"], kept["check_outcome"]) == ("missing", "live")


def _resync(app: App, name: str) -> None:
    from pipeline.crawl.catalog import sync_catalog

    with app.db.connect() as conn, conn.transaction():
        conn.execute("DELETE FROM crawl.boards WHERE source_id = %s", (name,))
    sync_catalog(app)


def test_rippling_pages_from_zero_to_total_pages(
    app: App, sandbox: RunningSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With pages of 5 a board takes several requests (page=0, 1, ...) and is complete."""
    from pipeline.crawl.platforms import rippling

    monkeypatch.setattr(rippling, "PAGE_SIZE", 5)
    _resync(app, "rippling")
    truth = world_jobs(app, sandbox, "rippling")
    assert any(len(jobs) > 5 for jobs in truth.values())  # paging is exercised
    found, fetched, _ = run_all(app, "rippling")
    assert found["pages"] == sum(-(-len(jobs) // 5) for jobs in truth.values())
    assert found["postings_new"] == fetched["postings"] == sum(len(j) for j in truth.values())
    with app.db.connect() as conn:
        scans = conn.execute(
            """SELECT s.complete, s.truncated FROM crawl.scans AS s
               JOIN crawl.boards AS b ON b.id = s.board_id WHERE b.source_id = 'rippling'"""
        ).fetchall()
    assert scans
    assert all(s["complete"] and not s["truncated"] for s in scans)


def test_oracle_pages_by_offset_inside_the_finder(
    app: App, sandbox: RunningSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a limit of 3 the search is read at offsets 0, 3, 6, ... to TotalJobsCount."""
    from pipeline.crawl.platforms import oracle

    monkeypatch.setattr(oracle, "PAGE_SIZE", 3)
    _resync(app, "oracle")
    truth = world_jobs(app, sandbox, "oracle")
    found, fetched, _ = run_all(app, "oracle")
    assert found["pages"] == sum(-(-len(jobs) // 3) for jobs in truth.values())
    assert found["postings_new"] == fetched["postings"] == sum(len(j) for j in truth.values())
    offsets = {
        e.path.split("offset=")[1].split(",")[0]
        for e in sandbox.state.requests(platform="oracle")
        if "recruitingCEJobRequisitions?" in e.path
    }
    assert {"0", "3", "6"} <= offsets


def test_icims_reads_every_search_page_from_pr_zero(app: App, sandbox: RunningSandbox) -> None:
    """Portal pages of 10 rows: "Page N of M" links pr=1, 2, ... and the board is complete."""
    from sandbox.formats.icims import PAGE_SIZE

    truth = world_jobs(app, sandbox, "icims")
    assert any(len(jobs) > PAGE_SIZE for jobs in truth.values())  # paging is exercised
    found, fetched, _ = run_all(app, "icims")
    assert found["pages"] == sum(-(-len(jobs) // PAGE_SIZE) for jobs in truth.values())
    assert found["postings_new"] == fetched["postings"] == sum(len(j) for j in truth.values())
    rows = current_results(app, "icims")
    assert all(r["posted_precision"] == "day" for r in rows)
