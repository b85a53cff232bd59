"""`jobharbor status` and the lifecycle columns operators and the web app read."""

from __future__ import annotations

import json

from pipeline.cli import main
from pipeline.commands.status import gather_status, render_status
from pipeline.phases.check import check_postings
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from pipeline.phases.sync import sync_serving


def test_status_reports_boards_postings_scans_and_last_runs(app, capsys, monkeypatch) -> None:
    for name in app.source_names():
        discover(app, name, force=True)
        fetch_details(app, name)
        parse_source(app, name)
    check_postings(app, "greenhouse")
    report = gather_status(app.db)
    gh = report["sources"]["greenhouse"]
    assert gh["boards"] == {"active": 5}
    assert set(gh["postings"]) == {"active"}
    assert gh["scans_24h"] == {"changed": 5}
    assert all(gh["last_success"][phase] for phase in ("discover", "fetch", "parse", "check"))
    assert report["sources"]["vieclam"]["last_success"]["check"] is None
    assert report["sync"]["last_success"] is None
    text = render_status(report)
    assert "greenhouse\n  boards       active 5" in text
    assert "last check    never" in text
    # Each board's estimated change rate and current interval (one read: the prior).
    schedule = gh["schedule"]
    assert len(schedule) == 5
    assert {b["interval_s"] for b in schedule} == {3600}
    assert all(b["changes_per_day"] == 0.405 and b["evidence_polls"] == 0 for b in schedule)
    assert f"    {schedule[0]['board']:<28}     0.41/day  every 1.0h" in text

    monkeypatch.setenv("JOBHARBOR_DATABASE_URL", app.db.url)
    assert main(["status", "--source", "vieclam", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert list(printed["sources"]) == ["vieclam"]


def test_serving_shows_how_often_a_role_was_posted(app) -> None:
    discover(app, "greenhouse", force=True)
    parse_source(app, "greenhouse")
    with app.db.connect() as conn:
        # A role posted once (the sandbox world reposts some jobs itself).
        target = conn.execute(
            """SELECT min(id) AS id, repost_key FROM core.postings WHERE repost_key IS NOT NULL
               GROUP BY repost_key HAVING count(*) = 1 ORDER BY 1 LIMIT 1"""
        ).fetchone()
        # Two more openings of the same role, on other dates (as if reposted later).
        conn.execute(
            """UPDATE core.postings SET repost_key = %s, opening_key = 'other-' || id
               WHERE id IN (SELECT id FROM core.postings WHERE id <> %s ORDER BY id LIMIT 2)""",
            (target["repost_key"], target["id"]),
        )
    sync_serving(app)
    with app.serving_db.connect() as conn:
        row = conn.execute(
            "SELECT openings_12m FROM serving.jobs WHERE id = %s", (target["id"],)
        ).fetchone()
    assert row["openings_12m"] == 3
