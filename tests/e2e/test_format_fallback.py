"""A board whose listing format is unavailable is read in its next format in the same
run, over real HTTP against the sandbox (pipeline.phases.fallback): SuccessFactors'
XML feed -> the Career Site Builder RSS feed, Jobvite's XML feed -> the career-site
search page. The switch is recorded (the board's format, the scan's issues, the fetch
log, the run's stats); transient failures never switch; the switch's first read is a
new baseline, so no posting's absence counts from it."""

from __future__ import annotations

from typing import Any

from pipeline.app import App
from pipeline.crawl.catalog import sync_catalog
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from sandbox.formats.jobvite import job_code
from sandbox.formats.successfactors import req_id
from sandbox.formats.workable import shortcode
from sandbox.server import RunningSandbox
from sandbox.world import build_board
from tests.apps import (
    MakeApp,
    advance,
    board,
    discovered,
    make_due,
    query,
    scans,
    set_fault,
)

SF_LEGACY = "career4.successfactors.com"
SF_SITE = "jobs.northwind.example"
SF_TOKEN = f"{SF_LEGACY}/Northwind@{SF_SITE}"
JOBVITE_TOKEN = "qZA9VfwF@harborjobs"


def xml_source(name: str, platform: str, url: str, token: str, types: str = "xml") -> str:
    return f"""
  {name}:
    platform: {platform}
    api_base: {url}/{platform}
    pacing: {{rate_per_s: 200, burst: 200}}
    validation: {{content_types: [{types}]}}
    boards: ["{token}"]
"""


def sf_app(make_app: MakeApp, sandbox: RunningSandbox) -> App:
    return make_app(xml_source("sf", "successfactors", sandbox.url, SF_TOKEN))


def world_ids(sandbox: RunningSandbox, platform: str, token: str) -> set[str]:
    jobs = build_board(sandbox.state.seed, platform, token, 0, False).jobs
    ident = req_id if platform == "successfactors" else job_code
    return {ident(job) for job in jobs}


def postings(app: App) -> dict[str, dict[str, Any]]:
    rows = query(app, "SELECT external_id, status, missing_count FROM core.postings")
    return {r["external_id"]: r for r in rows}


def attempts(app: App) -> list[dict[str, Any]]:
    return query(
        app, "SELECT url, http_status AS status, outcome FROM crawl.fetch_attempts ORDER BY id"
    )


def test_a_board_whose_xml_feed_is_gone_is_read_from_its_rss_feed_in_the_same_run(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app = sf_app(make_app, sandbox)
    assert board(app, SF_TOKEN)["format"] == "xml_feed"
    set_fault(sandbox, "successfactors", SF_LEGACY, status=404, on="listing")

    stats = discovered(app, "sf")

    row = board(app, SF_TOKEN)
    assert row["format"] == "rss_feed"
    assert row["url"].endswith(f"/successfactors/{SF_SITE}/googlefeed.xml")
    assert row["host"] == row["url"].split("/")[2]
    assert stats["format_switches"] == 1
    assert stats["boards"] == 1
    (scan,) = scans(app, SF_TOKEN)
    assert scan["outcome"] == "changed"
    assert scan["complete"]
    fell = [i for i in scan["issues"] if i["code"] == "format_fallback"]
    assert len(fell) == 1
    assert "xml_feed unavailable (HTTP 404" in fell[0]["message"]
    assert "read as rss_feed" in fell[0]["message"]
    log = [(a["status"], a["outcome"]) for a in attempts(app) if "robots.txt" not in a["url"]]
    assert log == [(404, "format_unavailable"), (200, "changed")]
    assert set(postings(app)) == world_ids(sandbox, "successfactors", SF_SITE)


def test_the_next_run_asks_the_format_that_worked_and_a_catalog_sync_keeps_it(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app = sf_app(make_app, sandbox)
    set_fault(sandbox, "successfactors", SF_LEGACY, status=404, on="listing")
    discovered(app, "sf")
    sync_catalog(app)  # sources.yaml still names the XML feed first
    assert board(app, SF_TOKEN)["format"] == "rss_feed"
    before = len(attempts(app))

    make_due(app)
    stats = discovered(app, "sf")

    asked = [a["url"] for a in attempts(app)[before:] if "robots.txt" not in a["url"]]
    assert len(asked) == 1
    assert asked[0].endswith("/googlefeed.xml")
    assert stats["format_switches"] == 0


def test_a_disabled_feed_answering_another_document_falls_back_too(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app = sf_app(make_app, sandbox)
    disabled = "<?xml version='1.0'?><error><message>Feed disabled</message></error>"
    xml = "text/xml; charset=utf-8"
    set_fault(sandbox, "successfactors", SF_LEGACY, status=200, body=disabled, content_type=xml)

    discovered(app, "sf")

    assert board(app, SF_TOKEN)["format"] == "rss_feed"
    (scan,) = scans(app, SF_TOKEN)
    assert any("not this format: unexpected_shape" in i["message"] for i in scan["issues"])


def test_transient_failures_never_switch_the_format(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app = sf_app(make_app, sandbox)
    for status in (500, 503, 429):
        set_fault(sandbox, "successfactors", SF_LEGACY, status=status, on="listing")
        make_due(app)
        stats = discovered(app, "sf")
        assert stats["format_switches"] == 0
        assert board(app, SF_TOKEN)["format"] == "xml_feed"
    assert not [a for a in attempts(app) if "googlefeed" in a["url"]], "no RSS request was sent"


def test_a_board_stays_on_its_format_when_the_fallback_has_no_listing_either(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app = sf_app(make_app, sandbox)
    set_fault(sandbox, "successfactors", SF_LEGACY, status=404, on="listing")
    set_fault(sandbox, "successfactors", SF_SITE, status=404, on="listing")

    stats = discovered(app, "sf")

    row = board(app, SF_TOKEN)
    assert (row["format"], stats["format_switches"]) == ("xml_feed", 0)
    assert "resultType=XML" in row["url"]
    (scan,) = scans(app, SF_TOKEN)
    assert (scan["outcome"], scan["http_status"]) == ("failed", 404)
    assert [i["code"] for i in scan["issues"]][:1] == ["format_unavailable"]


def test_no_absence_counts_from_the_switchs_first_read_only_from_later_complete_ones(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    """The sandbox's CSB site is another board of the world than the legacy one, so every
    posting the XML feed listed is absent from the RSS feed: the strictest case."""
    app = sf_app(make_app, sandbox)
    discovered(app, "sf")
    from_xml = set(postings(app))
    assert from_xml
    set_fault(sandbox, "successfactors", SF_LEGACY, status=404, on="listing")

    make_due(app)
    discovered(app, "sf")  # the switch: a new baseline

    after_switch = postings(app)
    assert all(after_switch[i]["missing_count"] == 0 for i in from_xml)
    assert all(after_switch[i]["status"] == "active" for i in from_xml)

    make_due(app)
    discovered(app, "sf")  # the same RSS body again: it confirms the baseline, moves nothing
    assert all(postings(app)[i]["missing_count"] == 0 for i in from_xml)

    advance(sandbox, "successfactors", SF_SITE)
    make_due(app)
    discovered(app, "sf")  # the next complete read that differs counts each absence once

    later = postings(app)
    assert {later[i]["missing_count"] for i in from_xml} == {1}
    assert {later[i]["status"] for i in from_xml} == {"active"}, "one absence closes nothing"


def test_a_jobvite_board_whose_feed_is_gone_is_read_from_its_career_site_pages(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app = make_app(xml_source("jv", "jobvite", sandbox.url, JOBVITE_TOKEN, "xml, html"))
    set_fault(sandbox, "jobvite", "qZA9VfwF", status=404, on="listing")

    stats = discovered(app, "jv")
    fetched = fetch_details(app, "jv")
    parsed = parse_source(app, "jv")
    assert fetched.status == parsed.status == "succeeded"

    row = board(app, JOBVITE_TOKEN)
    assert row["format"] == "career_site"
    assert stats["format_switches"] == 1
    wanted = world_ids(sandbox, "jobvite", "harborjobs")
    assert set(postings(app)) == wanted
    (scan,) = scans(app, JOBVITE_TOKEN)
    assert scan["complete"]
    assert scan["pages"] == -(-len(wanted) // 10)
    described = query(
        app,
        """SELECT count(*) AS n FROM core.parse_results AS r
           WHERE r.is_current AND r.description_text IS NOT NULL""",
    )
    assert described[0]["n"] == len(wanted), "each row's job page gave its description"


def test_a_workable_account_whose_widget_is_gone_is_read_from_the_v3_api(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    source = xml_source("wk", "workable", sandbox.url, "acme-widgetless", "application/json")
    app = make_app(source)
    assert board(app, "acme-widgetless")["format"] == "widget_v1"
    set_fault(sandbox, "workable", "acme-widgetless", status=404, path="/api/v1/")

    stats = discovered(app, "wk")

    row = board(app, "acme-widgetless")
    assert (row["format"], stats["format_switches"]) == ("careers_v3", 1)
    assert row["url"].endswith("/workable/api/v3/accounts/acme-widgetless/jobs")
    (scan,) = scans(app, "acme-widgetless")
    assert scan["complete"]
    jobs = build_board(sandbox.state.seed, "workable", "acme-widgetless", 0, False).jobs
    assert set(postings(app)) == {shortcode(job) for job in jobs}
