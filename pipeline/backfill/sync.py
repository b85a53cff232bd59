"""Sync backfill: a full serving reconcile, previewed first.

The preview reads the authoritative snapshot and the published fingerprints on READ
ONLY connections and counts what the reconcile would insert, update and remove. Its
manifest carries one item: the hash of the whole snapshot (ids and fingerprints), so an
apply refuses when anything publishable changed since the preview.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pipeline.app import App
from pipeline.backfill.manifest import Item, Manifest, load_manifest, refuse_changes, write_manifest
from pipeline.backfill.readonly import read_only
from pipeline.phases.common import PhaseReport
from pipeline.phases.sync import sync_serving
from serving_sync import reconcile as rec

SNAPSHOT_ITEM = 0


def _snapshot(app: App) -> tuple[dict[int, str], str]:
    with read_only(app.db) as conn:
        rows = [
            rec.serving_row(r) for r in conn.execute(rec._SNAPSHOT, (list(rec.PUBLISHED_STATUSES),))
        ]
    fingerprints = {int(r["id"]): r["fingerprint"] for r in rows}
    blob = "\n".join(f"{i}:{f}" for i, f in sorted(fingerprints.items()))
    return fingerprints, hashlib.sha256(blob.encode()).hexdigest()


def _published(app: App) -> dict[int, str]:
    try:
        with read_only(app.serving_db) as conn:
            rows = conn.execute("SELECT id, fingerprint FROM serving.jobs").fetchall()
    except Exception as exc:  # not migrated yet: everything would be inserted
        if "does not exist" not in str(exc):
            raise
        return {}
    return {int(r["id"]): r["fingerprint"] for r in rows}


def plan_sync(app: App, directory: Path, *, limit: int) -> tuple[Manifest, Path]:
    staged, snapshot_hash = _snapshot(app)
    published = _published(app)
    common = staged.keys() & published.keys()
    updated = sum(1 for i in common if staged[i] != published[i])
    counts = {
        "source_rows": len(staged),
        "inserted": len(staged.keys() - published.keys()),
        "updated": updated,
        "unchanged": len(common) - updated,
        "removed": len(published.keys() - staged.keys()),
    }
    notes = []
    if counts["inserted"] + counts["updated"] + counts["removed"] > limit:
        notes.append(f"the reconcile changes more than limit={limit} rows: apply will refuse")
    manifest = Manifest(
        kind="sync",
        params={"limit": limit},
        items=(Item(SNAPSHOT_ITEM, snapshot_hash),),
        counts=counts,
        notes=tuple(notes),
    )
    return manifest, write_manifest(manifest, directory)


def apply_sync(app: App, manifest_path: Path, *, allow_mass_removal: bool = False) -> PhaseReport:
    manifest = load_manifest(manifest_path, "sync")
    if manifest.notes:
        from pipeline.backfill.manifest import BackfillRefused

        raise BackfillRefused("; ".join(manifest.notes))
    _, snapshot_hash = _snapshot(app)
    refuse_changes(manifest, {SNAPSHOT_ITEM: snapshot_hash}, set())
    return sync_serving(app, allow_mass_removal=allow_mass_removal, full=True)
