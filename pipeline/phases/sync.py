"""sync: publish open postings to the serving schema (see serving_sync.reconcile)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace

import psycopg

from pipeline.app import App
from pipeline.db.rows import Json
from pipeline.phases.common import PhaseReport, run_phase
from serving_sync import facet_bits
from serving_sync.reconcile import reconcile

log = logging.getLogger("jobharbor")


def sync_serving(
    app: App,
    *,
    dry_run: bool = False,
    wait_s: float = 0.0,
    allow_mass_removal: bool = False,
    full: bool = False,
) -> PhaseReport:
    """One sync: incremental unless `full`, the base is in doubt, or the periodic full
    reconcile (`serving_full_sync_hours`) is due. Then the facet bitmaps are rebuilt when
    a build is due (serving_sync.facet_bits: none yet, or enough written since the last;
    until then the sync's own delta keeps them current)."""
    settings = app.settings

    def work(run_id: int) -> Mapping[str, Json]:
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
        return report.as_dict()

    # The lock spans every source: a sync never overlaps another sync.
    report = run_phase(app.db, "sync", None, work, wait_s=wait_s)
    if dry_run or report.status != "succeeded":
        return report
    return replace(report, stats={**report.stats, **_rebuild_facet_bits(app)})


def _rebuild_facet_bits(app: App) -> dict[str, Json]:
    """After the sync phase has released its lock (the next sync need not wait for a
    build of minutes), in a transaction of its own. A failed build loses nothing: the
    old build and the syncs' deltas answer meanwhile (the counting queries past its
    limit), and every later sync tries again."""
    try:
        built = facet_bits.refresh(app.serving_db)
    except psycopg.Error as exc:
        log.warning("facet bitmaps not rebuilt (counts are taken by the queries): %s", exc)
        return {"facet_bits_built": False, "facet_bits_error": f"{type(exc).__name__}: {exc}"}
    return {"facet_bits_built": built.built, "facet_bits_s": round(built.elapsed_s, 2)}
