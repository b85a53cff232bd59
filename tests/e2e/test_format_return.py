"""A board read in a fallback listing format asks its best format again about once a
week, over real HTTP against the sandbox (pipeline.phases.fallback, `return_probe`):
SuccessFactors' XML feed gone -> read from the Career Site Builder RSS feed -> the XML
feed answers again -> the board returns to it. The return is recorded like a fallback
(the board's format, the scan's issue, the fetch log, the run's stats) and is a new
baseline; a probe that finds no listing costs the board neither its read nor a posting;
no probe is sent before it is due."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pipeline.app import App
from sandbox.formats.successfactors import req_id
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
    set_robots,
)
from tests.e2e.test_format_fallback import (
    SF_LEGACY,
    SF_SITE,
    SF_TOKEN,
    postings,
    sf_app,
    xml_source,
)


def clear_fault(sandbox: RunningSandbox, token: str) -> None:
    httpx.post(
        f"{sandbox.url}/_sandbox/fault", params={"platform": "successfactors", "token": token}
    ).raise_for_status()


def probe_due(app: App) -> None:
    """The board's format was chosen longer ago than a week and the widest offset."""
    with app.db.connect() as conn:
        conn.execute("UPDATE crawl.boards SET format_chosen_at = now() - interval '9 days'")
        conn.commit()


def fallen_back(make_app: MakeApp, sandbox: RunningSandbox) -> App:
    """An app whose SuccessFactors board fell back from the XML feed to the RSS feed."""
    app = sf_app(make_app, sandbox)
    set_fault(sandbox, "successfactors", SF_LEGACY, status=404, on="listing")
    discovered(app, "sf")
    assert board(app, SF_TOKEN)["format"] == "rss_feed"
    return app


def world_ids(sandbox: RunningSandbox, token: str, revision: int = 0) -> set[str]:
    jobs = build_board(sandbox.state.seed, "successfactors", token, revision, False).jobs
    return {req_id(job) for job in jobs}


def asked_since(app: App, before: int) -> list[tuple[str, int, str]]:
    """The listing requests after the first `before` in the fetch log: (which feed,
    status, the outcome logged)."""
    rows = query(app, "SELECT url, http_status, outcome FROM crawl.fetch_attempts ORDER BY id")[
        before:
    ]
    return [
        ("xml" if "resultType=XML" in r["url"] else "rss", r["http_status"], r["outcome"])
        for r in rows
        if "robots.txt" not in r["url"]
    ]


def polled(app: App, *, probe_due_now: bool) -> tuple[dict[str, Any], list[tuple[str, int, str]]]:
    """A forced run of the source (with the board's return probe due, or as it is): its
    stats and the listing requests it sent."""
    make_due(app)
    if probe_due_now:
        probe_due(app)
    before = len(query(app, "SELECT id FROM crawl.fetch_attempts"))
    stats = discovered(app, "sf")
    return stats, asked_since(app, before)


def test_a_board_in_its_fallback_returns_to_the_better_format_once_it_answers_again(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app = fallen_back(make_app, sandbox)
    from_rss = set(postings(app))
    clear_fault(sandbox, SF_LEGACY)

    stats, asked = polled(app, probe_due_now=True)

    row = board(app, SF_TOKEN)
    assert row["format"] == "xml_feed"
    assert "resultType=XML" in row["url"]
    assert row["host"] == row["url"].split("/")[2]
    assert (stats["format_returns"], stats["format_switches"]) == (1, 0)
    assert asked == [("xml", 200, "changed")], "the probe is the read"
    scan = scans(app, SF_TOKEN)[-1]
    assert (scan["outcome"], scan["complete"]) == ("changed", True)
    (back,) = [i for i in scan["issues"] if i["code"] == "format_return"]
    assert back["message"].startswith("xml_feed answered with a listing again")
    assert "not rss_feed" in back["message"]
    now = postings(app)
    assert world_ids(sandbox, SF_LEGACY) <= set(now), "the XML feed was read"
    # The XML feed lists another board of the world than the RSS feed: the strictest case
    # for the new baseline, which proves no absence.
    assert all(now[i]["missing_count"] == 0 for i in from_rss)
    assert all(now[i]["status"] == "active" for i in now)


@pytest.mark.parametrize(
    ("status", "logged_as", "why"),
    [
        (404, "format_unavailable", "HTTP 404 on the listing"),
        (500, "format_probe_failed", "failed"),
    ],
)
def test_a_board_stays_in_its_fallback_and_reads_it_when_the_better_format_still_fails(
    make_app: MakeApp, sandbox: RunningSandbox, status: int, logged_as: str, why: str
) -> None:
    app = fallen_back(make_app, sandbox)
    set_fault(sandbox, "successfactors", SF_LEGACY, status=status, on="listing")
    advance(sandbox, "successfactors", SF_SITE)  # the RSS feed changed meanwhile

    stats, asked = polled(app, probe_due_now=True)

    row = board(app, SF_TOKEN)
    assert row["format"] == "rss_feed"
    assert (stats["format_returns"], stats["format_switches"]) == (0, 0)
    assert asked[0] == ("xml", status, logged_as)
    assert asked[-1] == ("rss", 200, "changed")
    scan = scans(app, SF_TOKEN)[-1]
    assert (scan["outcome"], scan["complete"]) == ("changed", True)
    (stayed,) = [i for i in scan["issues"] if i["code"] == "format_return_failed"]
    assert stayed["message"].startswith(f"xml_feed still not read ({why}")
    assert stayed["message"].endswith("read as rss_feed")
    now = postings(app)
    assert world_ids(sandbox, SF_SITE, revision=1) <= set(now), "the RSS feed was read"
    assert {p["status"] for p in now.values()} == {"active"}, "the probe closed nothing"
    assert {p["missing_count"] for p in now.values()} <= {0, 1}

    _, asked = polled(app, probe_due_now=False)
    assert [a[0] for a in asked] == ["rss"], "the next probe is a week away"


def test_no_probe_is_sent_before_it_is_due(make_app: MakeApp, sandbox: RunningSandbox) -> None:
    app = fallen_back(make_app, sandbox)
    clear_fault(sandbox, SF_LEGACY)  # the XML feed is back, but the switch was just now

    stats, asked = polled(app, probe_due_now=False)

    assert [a[0] for a in asked] == ["rss"]
    assert stats["format_returns"] == 0
    assert board(app, SF_TOKEN)["format"] == "rss_feed"


def test_a_board_read_in_its_best_format_never_probes(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app = sf_app(make_app, sandbox)
    discovered(app, "sf")

    _, asked = polled(app, probe_due_now=True)

    assert [a[0] for a in asked] == ["xml"]


def test_a_probe_robots_txt_forbids_is_not_sent_and_the_board_reads_its_own_format(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    source = xml_source("sf", "successfactors", sandbox.url, SF_TOKEN) + "    robots: obey\n"
    app = make_app(source)
    set_fault(sandbox, "successfactors", SF_LEGACY, status=404, on="listing")
    discovered(app, "sf")
    assert board(app, SF_TOKEN)["format"] == "rss_feed"
    clear_fault(sandbox, SF_LEGACY)
    set_robots(sandbox, f"User-agent: *\nDisallow: /successfactors/{SF_LEGACY}/\n")
    query(app, "UPDATE crawl.robots SET expires_at = now() - interval '1 second' RETURNING 1")

    stats, asked = polled(app, probe_due_now=True)

    assert [a[0] for a in asked] == ["rss"], "no XML request was sent"
    assert (board(app, SF_TOKEN)["format"], stats["format_returns"]) == ("rss_feed", 0)
    scan = scans(app, SF_TOKEN)[-1]
    assert scan["complete"]
    (stayed,) = [i for i in scan["issues"] if i["code"] == "format_return_failed"]
    assert stayed["message"].startswith("xml_feed still not read (robots.txt:")
