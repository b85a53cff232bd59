"""A Workday board on a data center's shared host (wdN.myworkdaysite.com), end to end
over the sandbox through the real pipeline: discover reads the CXS listing under the
shared host, fetch reads the details it needs there, parse links each posting to the
host's /recruiting/{tenant}/{site} pages, every URL kept is served, and the direct
check closes a withdrawn posting on Workday's own closed flag while a live one stays.
Expected values come from the sandbox's world."""

from __future__ import annotations

import time
from typing import Any

import httpx

from pipeline.app import App
from pipeline.phases.check import check_postings
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from sandbox.formats.workday import req_id
from sandbox.server import RunningSandbox
from sandbox.world import Job, build_board, job_locations
from tests.apps import MakeApp, sandbox_ats_source

TENANT, SITE = "anchorbay", "Careers"
TOKEN = f"wd3.myworkdaysite.com/recruiting/{TENANT}/{SITE}"


def shared_host_app(make_app: MakeApp, sandbox: RunningSandbox) -> App:
    return make_app(sandbox_ats_source("shared", "workday", sandbox.url, [TOKEN]))


def world(sandbox: RunningSandbox) -> list[Job]:
    """The board's jobs: the sandbox keeps a shared-host board under its tenant."""
    return list(build_board(sandbox.state.seed, "workday", TENANT, 0).jobs)


def crawl(app: App) -> None:
    for report in (
        discover(app, "shared", force=True),
        fetch_details(app, "shared"),
        parse_source(app, "shared"),
    ):
        assert report.status == "succeeded", report


def postings(app: App) -> list[dict[str, Any]]:
    with app.db.connect() as conn:
        return list(
            conn.execute(
                """SELECT p.id, p.external_id, p.status, p.detail_state, p.detail_url,
                          r.url, r.apply_url, r.title, r.offices, b.url AS board_url, b.lane
                   FROM core.postings AS p JOIN crawl.boards AS b ON b.id = p.board_id
                   JOIN core.parse_results AS r ON r.posting_id = p.id AND r.is_current
                   WHERE p.source_id = 'shared' ORDER BY p.id"""
            ).fetchall()
        )


def test_a_shared_host_board_is_listed_detailed_and_linked_on_its_host(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app = shared_host_app(make_app, sandbox)
    crawl(app)
    rows = postings(app)
    truth = world(sandbox)
    assert sorted(r["title"] for r in rows) == sorted(job.title for job in truth)

    host = f"{sandbox.url}/workday/wd3.myworkdaysite.com"
    assert {r["board_url"] for r in rows} == {f"{host}/wday/cxs/{TENANT}/{SITE}/jobs"}
    assert {r["lane"] for r in rows} == {"workday:wd3"}
    for row in rows:
        assert row["url"].startswith(f"{host}/recruiting/{TENANT}/{SITE}/job/"), row["url"]
        assert row["url"].endswith("_" + row["external_id"])  # no repost suffix here

    # Details are fetched where the listing says "N Locations", and name every office.
    several = {req_id(job): job for job in truth if len(job_locations(job)) > 1}
    assert several, "the world has a posting in several places"
    detailed = [r for r in rows if r["detail_state"] == "fetched"]
    assert sorted(r["external_id"] for r in detailed) == sorted(several)
    for row in detailed:
        assert row["detail_url"].startswith(f"{host}/wday/cxs/{TENANT}/{SITE}/job/")
        offices = [o["text"] for o in row["offices"]]
        assert offices == list(job_locations(several[row["external_id"]]))

    with httpx.Client(timeout=10) as client:
        urls = sorted({u for r in rows for u in (r["url"], r["apply_url"]) if u})
        assert {url: client.get(url).status_code for url in urls} == dict.fromkeys(urls, 200)


def test_a_withdrawn_shared_host_posting_closes_on_workdays_flag_and_a_live_one_stays(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app = shared_host_app(make_app, sandbox)
    crawl(app)
    gone, live = world(sandbox)[:2]
    sandbox.state.remove("workday", TENANT, gone.job_id)
    by_id = {r["external_id"]: r for r in postings(app)}
    asked = [by_id[req_id(gone)]["id"], by_id[req_id(live)]["id"]]
    with app.db.connect() as conn:  # as two complete scans without them leave postings
        conn.execute(
            "UPDATE core.postings SET status = 'missing', missing_count = 2 WHERE id = ANY(%s)",
            (asked,),
        )

    since = time.monotonic()
    stats = check_postings(app, "shared").stats
    assert stats["outcomes"] == {"closed": 1, "live": 1}, stats
    assert stats["reasons"] == {"platform_closed_flag": 1, "posting_page_live": 1}
    # Both were asked on the shared host's CXS detail API, not on a hosted page.
    asked_paths = [e.path for e in sandbox.state.requests(token=TENANT, since=since)]
    prefix = f"/workday/wd3.myworkdaysite.com/wday/cxs/{TENANT}/{SITE}/job/"
    assert len(asked_paths) == 2, asked_paths
    assert all(p.startswith(prefix) for p in asked_paths), asked_paths
    statuses = {r["external_id"]: r["status"] for r in postings(app)}
    assert (statuses[req_id(gone)], statuses[req_id(live)]) == ("expired", "missing")


def test_a_posting_stored_under_its_repost_suffixed_id_stays_one_posting(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    """Parser 2 stored a reposted requisition's row under its page's id ("JR1-1"); the
    row names its requisition ("JR1") and parser 3 takes that: the next crawl renames
    the stored posting rather than adding the job again beside it."""
    tenant = "repostbay"  # the sandbox's "repost" tenants suffix every page path
    token = f"wd3.myworkdaysite.com/recruiting/{tenant}/{SITE}"
    app = make_app(sandbox_ats_source("shared", "workday", sandbox.url, [token]))
    crawl(app)
    jobs = build_board(sandbox.state.seed, "workday", tenant, 0).jobs
    job = next(j for j in jobs if j.job_id % 2 == 0)  # its row names its requisition id
    first = {r["external_id"]: r for r in postings(app)}
    with app.db.connect() as conn:  # as parser 2 left it: two complete scans without "JR1"
        conn.execute(
            """UPDATE core.postings SET external_id = %s, status = 'missing', missing_count = 2
               WHERE id = %s""",
            (f"{req_id(job)}-1", first[req_id(job)]["id"]),
        )
        conn.execute("UPDATE crawl.boards SET listing_hash = NULL WHERE source_id = 'shared'")

    crawl(app)
    rows = {r["external_id"]: r for r in postings(app)}
    assert len(rows) == len(jobs)
    renamed = rows[req_id(job)]
    assert (renamed["id"], renamed["status"]) == (first[req_id(job)]["id"], "active")
    assert renamed["url"].endswith(f"_{req_id(job)}-1")  # the page keeps its path
