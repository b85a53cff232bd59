"""Backfills: select a slice of data, preview it read-only into a manifest, then apply
exactly that manifest (refused when the selection changed since the preview).

One module per kind (reparse, check, sync, enrich); the CLI (`jobharbor backfill ...`)
and the Airflow DAGs (`jobharbor_backfill_*`) call the same `plan_*` / `apply_*`.
"""

from pipeline.backfill.manifest import (
    MAX_LIMIT,
    MAX_REQUESTS,
    BackfillRefused,
    Manifest,
    load_manifest,
)

__all__ = ["MAX_LIMIT", "MAX_REQUESTS", "BackfillRefused", "Manifest", "load_manifest"]
