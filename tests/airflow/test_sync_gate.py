"""The serving sync's minimum interval: a run Airflow started (an asset update from a
source DAG, the backstop timer) skips when the last applied sync finished too recently,
saying when the next may run; an operator's trigger always runs; dry runs do not count."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from airflow.sdk.exceptions import AirflowSkipException

from pipeline.airflow.sync_gate import is_gated, sync_gate, sync_times
from pipeline.airflow.tasks import skip_sync_too_soon
from pipeline.app import App

NOW = datetime(2026, 12, 6, 3, 0, 0, tzinfo=UTC)


def test_no_applied_sync_yet_is_due() -> None:
    gate = sync_gate(None, NOW, 300)
    assert gate.due
    assert gate.summary == "no applied sync yet"


def test_a_sync_within_the_interval_is_refused_naming_when_the_next_may_run() -> None:
    gate = sync_gate(NOW - timedelta(seconds=120), NOW, 300)
    assert not gate.due
    assert gate.summary == (
        "synced 120 s ago; next allowed at 2026-12-06 03:03:00 UTC"
        " (JOBHARBOR_SYNC_MIN_INTERVAL_S=300)"
    )


def test_the_interval_reached_exactly_or_passed_is_due() -> None:
    assert sync_gate(NOW - timedelta(seconds=300), NOW, 300).due
    later = sync_gate(NOW - timedelta(seconds=301), NOW, 300)
    assert later.due
    assert later.summary == "last applied sync 301 s ago"


def test_an_interval_of_zero_never_refuses() -> None:
    assert sync_gate(NOW, NOW, 0).due


def test_a_last_sync_stamped_ahead_of_the_clock_waits_the_interval_from_it() -> None:
    gate = sync_gate(NOW + timedelta(seconds=30), NOW, 60)
    assert not gate.due
    assert gate.summary.startswith("synced 0 s ago; next allowed at 2026-12-06 03:01:30 UTC")


def test_the_next_allowed_time_is_shown_in_utc_whatever_the_stamps_zone() -> None:
    saigon = datetime(2026, 12, 6, 10, 0, 0, tzinfo=UTC).astimezone(ZoneInfo("Asia/Ho_Chi_Minh"))
    gate = sync_gate(saigon, saigon + timedelta(seconds=10), 60)
    assert "next allowed at 2026-12-06 10:01:00 UTC" in gate.summary


@pytest.mark.parametrize(
    ("run_type", "gated"),
    [
        ("asset_triggered", True),
        ("scheduled", True),
        ("manual", False),
        ("operator_triggered", False),
        ("backfill", False),
        (None, False),
    ],
)
def test_only_runs_airflow_starts_on_its_own_are_gated(run_type: str | None, gated: bool) -> None:
    assert is_gated(run_type) is gated


def record_sync(app: App, finished_ago_s: float, *, dry_run: bool = False) -> None:
    with app.db.connect() as conn, conn.transaction():
        conn.execute(
            """INSERT INTO crawl.runs (phase, worker, status, stats, started_at, finished_at)
               VALUES ('sync', 'test', 'succeeded', jsonb_build_object('dry_run', %(dry)s),
                       now() - make_interval(secs => %(ago)s + 1),
                       now() - make_interval(secs => %(ago)s))""",
            {"ago": finished_ago_s, "dry": dry_run},
        )


def test_the_last_applied_sync_ignores_dry_runs(app: App) -> None:
    assert sync_times(app.db)[0] is None
    record_sync(app, 600)
    record_sync(app, 10, dry_run=True)
    last, now = sync_times(app.db)
    assert last is not None
    assert 599 <= (now - last).total_seconds() <= 601


def test_a_gated_sync_too_soon_skips_and_says_when_the_next_may_run(app: App) -> None:
    skip_sync_too_soon(app)  # no sync yet: goes ahead
    record_sync(app, 30)
    with pytest.raises(AirflowSkipException) as skipped:
        skip_sync_too_soon(app)
    message = str(skipped.value)
    assert message.startswith("skipped: synced 30 s ago; next allowed at ")
    assert message.endswith(" UTC (JOBHARBOR_SYNC_MIN_INTERVAL_S=300)")
    relaxed = App(
        app.settings.model_copy(update={"sync_min_interval_s": 20.0}),
        app.sources,
        app.registry,
        app.urls,
    )
    skip_sync_too_soon(relaxed)  # 30 s ago passes a 20 s interval
