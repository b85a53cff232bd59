"""Sync backfill: a full serving reconcile, previewed first.

The preview reads the authoritative snapshot and the published fingerprints on READ
ONLY connections and counts what the reconcile would insert, update and remove. Its
manifest carries one item: the hash of the whole snapshot (ids and fingerprints), so an
apply refuses when anything publishable changed since the preview.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pipeline.app import App
from pipeline.backfill.manifest import (
    BackfillRefused,
    Item,
    Manifest,
    load_manifest,
    refuse_changes,
    write_manifest,
)
from pipeline.backfill.readonly import read_only
from pipeline.phases.common import PhaseReport
from pipeline.phases.sync import sync_serving
from serving_sync.source import SourceRead

SNAPSHOT_ITEM = 0


def _digest(row: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(row, sort_keys=True, default=str).encode()).hexdigest()


def _snapshot(app: App) -> tuple[dict[int, str], str]:
    """Every row a full reconcile would publish (the sync's own full content query, read
    in one read-only transaction), each with a digest of its published content."""
    with read_only(app.db) as conn, conn.transaction():
        read = SourceRead(
            conn,
            snapshot="",
            identity="",
            base=None,  # a full read, as the reconcile does it
            retention_days=app.settings.serving_closed_retention_days,
            batch=2000,
        )
        digests = {int(r["id"]): _digest(dict(r)) for r in read.content()}
    blob = "\n".join(f"{i}:{d}" for i, d in sorted(digests.items()))
    return digests, hashlib.sha256(blob.encode()).hexdigest()


def _published(app: App) -> set[int]:
    try:
        with read_only(app.serving_db) as conn:
            rows = conn.execute("SELECT id FROM serving.jobs").fetchall()
    except Exception as exc:  # not migrated yet: everything would be inserted
        if "does not exist" not in str(exc):
            raise
        return set()
    return {int(r["id"]) for r in rows}


def plan_sync(app: App, directory: Path, *, limit: int) -> tuple[Manifest, Path]:
    staged, snapshot_hash = _snapshot(app)
    published = _published(app)
    # Rows on both sides are compared field by field by the reconcile itself (its
    # fingerprints live in the serving database); the preview counts them as `compared`.
    counts = {
        "source_rows": len(staged),
        "inserted": len(staged.keys() - published),
        "compared": len(staged.keys() & published),
        "removed": len(published - staged.keys()),
    }
    notes = []
    if counts["inserted"] + counts["removed"] > limit:
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
        raise BackfillRefused("; ".join(manifest.notes))
    _, snapshot_hash = _snapshot(app)
    refuse_changes(manifest, {SNAPSHOT_ITEM: snapshot_hash}, set())
    return sync_serving(app, allow_mass_removal=allow_mass_removal, full=True)
