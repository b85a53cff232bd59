"""The serving sync's minimum interval: an Airflow run that starts too soon after the
last applied sync (an asset update from a source DAG, or the backstop timer) skips at
once, saying when the next one may run. Airflow 3.3 has no debounce of asset-triggered
runs of its own, so the sync task decides. A manual trigger always runs.

Nothing is lost by a skip: the sync is a diff of everything changed since the last one,
so the next sync (another source's update, or the timer) publishes what this one would
have."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipeline.db.connect import Database

# The database's clock with it: the one the finish time was written with.
LAST_APPLIED_SYNC = """
SELECT max(finished_at) AS last, now() AS now FROM crawl.runs
WHERE phase = 'sync' AND status = 'succeeded'
  AND NOT coalesce((stats->>'dry_run')::boolean, false)
"""


# The run types Airflow starts on its own (the asset condition, the backstop timer);
# str enums, equal to their values. Any other (manual, triggered by another DAG) runs.
GATED_RUN_TYPES = frozenset({"asset_triggered", "scheduled"})


def is_gated(run_type: object) -> bool:
    return run_type in GATED_RUN_TYPES


@dataclass(frozen=True)
class SyncGate:
    due: bool
    summary: str


def sync_gate(last_synced_at: datetime | None, now: datetime, min_interval_s: float) -> SyncGate:
    """Whether a sync may run now, given when the last applied one finished."""
    if last_synced_at is None:
        return SyncGate(True, "no applied sync yet")
    ago = (now - last_synced_at).total_seconds()
    if ago >= min_interval_s:
        return SyncGate(True, f"last applied sync {ago:.0f} s ago")
    allowed = (last_synced_at + timedelta(seconds=min_interval_s)).astimezone(UTC)
    return SyncGate(
        False,
        f"synced {max(ago, 0):.0f} s ago; next allowed at {allowed:%Y-%m-%d %H:%M:%S} UTC"
        f" (JOBHARBOR_SYNC_MIN_INTERVAL_S={min_interval_s:g})",
    )


def sync_times(db: Database) -> tuple[datetime | None, datetime]:
    """When the last sync that changed the serving schema (not a dry run) finished, and
    the database's time now."""
    with db.connect() as conn:
        row = conn.execute(LAST_APPLIED_SYNC).fetchone()
    assert row is not None  # an aggregate always answers one row
    return row["last"], row["now"]
