"""The lock decisions (docs/operations.md#locks), with real advisory locks: phases of one
source may overlap each other; the same phase never overlaps itself; a re-parse backfill
is a parse and a check backfill is a check for these rules; raw cleanup leaves alone a
source whose parse is running."""

from __future__ import annotations

import io
from pathlib import Path

from pipeline.app import App
from pipeline.backfill.check import CheckSelection, apply_check, plan_check
from pipeline.backfill.cleanup import plan_cleanup
from pipeline.backfill.reparse import ReparseSelection, apply_reparse, plan_reparse
from pipeline.crawl.runs import finish_run, start_run
from pipeline.db.connect import advisory_lock
from pipeline.phases.check import check_postings
from pipeline.phases.parse import parse_source
from tests.backfill.conftest import bump_lever


def test_a_cli_parse_runs_while_airflow_discovers_the_same_source(parsed_lever: App) -> None:
    with advisory_lock(parsed_lever.db, "discover", "lever"):  # an Airflow discover of lever
        assert parse_source(parsed_lever, "lever").status == "succeeded"
        assert check_postings(parsed_lever, "lever").status == "succeeded"


def test_the_same_phase_of_one_source_never_overlaps(parsed_lever: App) -> None:
    with advisory_lock(parsed_lever.db, "parse", "lever"):
        report = parse_source(parsed_lever, "lever")
    assert report.status == "skipped"
    assert "another parse run of lever holds jobharbor:parse:lever" in report.message


def test_backfills_take_the_lock_of_the_phase_they_run(parsed_lever: App, tmp_path: Path) -> None:
    app = parsed_lever
    bump_lever(app)
    _, reparse = plan_reparse(app, ReparseSelection("lever", limit=100), tmp_path)
    with app.db.connect() as conn:
        conn.execute(
            "UPDATE core.postings SET status = 'missing' WHERE id = (SELECT min(id) FROM core.postings)"
        )
        conn.commit()
    _, check = plan_check(app, CheckSelection("lever", "missing", limit=10), tmp_path)
    with advisory_lock(app.db, "parse", "lever"):
        assert apply_reparse(app, reparse, stream=io.StringIO()).status == "skipped"
    with advisory_lock(app.db, "check", "lever"):
        assert apply_check(app, check, stream=io.StringIO())["status"] == "skipped"
    # Free again: both apply, and a rerun of the check finds its work done.
    assert apply_reparse(app, reparse, stream=io.StringIO()).status == "succeeded"
    assert apply_check(app, check, stream=io.StringIO())["checked"] == 1


def test_cleanup_leaves_a_source_alone_while_its_parse_runs(parsed_lever: App) -> None:
    app = parsed_lever
    with app.db.connect() as conn:
        conn.execute("UPDATE crawl.raw_objects SET fetched_at = now() - interval '90 days'")
        conn.execute("UPDATE core.postings SET status = 'expired'")
        # An older listing nothing needs: eligible unless a parse of lever is running.
        conn.execute("UPDATE crawl.scans SET raw_sha256 = NULL")
        conn.commit()
    assert plan_cleanup(app).by_source.get("lever", {}).get("objects", 0) > 0
    run_id = start_run(app.db, "parse", "lever")
    try:
        with advisory_lock(app.db, "parse", "lever"):  # what a running parse holds
            assert "lever" not in plan_cleanup(app).by_source
        # The same row once its process is gone (killed: the row stays `running`, the
        # lock went with its connection): it protects nothing any more.
        assert plan_cleanup(app).by_source.get("lever", {}).get("objects", 0) > 0
    finally:
        finish_run(app.db, run_id, "succeeded", {})
