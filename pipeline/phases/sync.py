"""sync: publish open postings to the serving schema (see serving_sync.reconcile)."""

from __future__ import annotations

from pipeline.app import App
from pipeline.phases.common import PhaseReport, run_phase
from serving_sync import facet_bits
from serving_sync.reconcile import reconcile


def sync_serving(
    app: App,
    *,
    dry_run: bool = False,
    wait_s: float = 0.0,
    allow_mass_removal: bool = False,
    full: bool = False,
) -> PhaseReport:
    """One sync: incremental unless `full`, the base is in doubt, or the periodic full
    reconcile (`serving_full_sync_hours`) is due."""
    settings = app.settings

    def work(run_id: int) -> dict[str, object]:
        report = reconcile(
            app.db,
            app.serving_db,
            dry_run=dry_run,
            allow_mass_removal=allow_mass_removal,
            full=full,
            full_every_hours=settings.serving_full_sync_hours,
            retention_days=settings.serving_closed_retention_days,
            freshness_max_lag_s=settings.freshness_max_lag_s,
        )
        stats = report.as_dict()
        if not dry_run:
            # After the sync's commit, in a transaction of its own: readers count the
            # slower way until this is done (serving_sync.facet_bits).
            built = facet_bits.refresh(app.serving_db)
            stats["facet_bits_built"] = built.built
            stats["facet_bits_s"] = round(built.elapsed_s, 2)
        return stats

    # The lock spans every source: a sync never overlaps another sync.
    return run_phase(app.db, "sync", None, work, wait_s=wait_s)
