"""sync: publish open postings to the serving schema (see serving_sync.reconcile)."""

from __future__ import annotations

from pipeline.app import App
from pipeline.phases.common import PhaseReport, run_phase
from serving_sync.reconcile import reconcile


def sync_serving(
    app: App, *, dry_run: bool = False, wait_s: float = 0.0, allow_mass_removal: bool = False
) -> PhaseReport:
    def work(run_id: int) -> dict[str, object]:
        report = reconcile(
            app.db, app.serving_db, dry_run=dry_run, allow_mass_removal=allow_mass_removal
        )
        return report.as_dict()

    # The lock spans every source: a sync never overlaps another sync.
    return run_phase(app.db, "sync", None, work, wait_s=wait_s)
