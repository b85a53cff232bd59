"""Check backfill: direct checks of a selection of one source's postings — those
`missing`, or those `active` for longer than N days (a listing that never drops a
closed posting keeps it active forever; a direct check finds out).

One request per posting is the estimate; the selection is capped by both `limit` and
`max_requests`. Apply checks in batches through the check phase (same fetcher, pacing,
robots and closing rules), journaling each finished batch.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from pipeline.app import App
from pipeline.backfill.manifest import (
    MAX_REQUESTS,
    SAMPLE_SIZE,
    Item,
    Journal,
    Manifest,
    load_manifest,
    refuse_changes,
    write_manifest,
)
from pipeline.backfill.readonly import read_only
from pipeline.phases.check import check_postings
from pipeline.phases.common import PhaseReport
from pipeline.progress import Progress

BATCH = 100
STATUSES = ("missing", "active")

# The state hash changes when the posting is seen again, changes status or is checked.
_HASH = "md5(status || ':' || coalesce(last_seen_scan_id::text, '') || ':' || coalesce(last_checked_at::text, ''))"
_SELECT = f"""
SELECT id, external_id, url, title, status, first_seen_at, last_seen_at, {_HASH} AS state_hash
FROM core.postings
WHERE source_id = %(source)s AND status = %(status)s
  AND (cardinality(%(ids)s::bigint[]) = 0 OR id = ANY(%(ids)s::bigint[]))
  AND (%(status)s <> 'active' OR first_seen_at < now() - make_interval(days => %(days)s))
ORDER BY last_checked_at NULLS FIRST, id
LIMIT %(limit)s
"""


@dataclass(frozen=True)
class CheckSelection:
    source: str
    status: str  # missing | active
    limit: int
    max_requests: int = MAX_REQUESTS
    active_days: int = 90  # `active` only: first seen more than this many days ago
    posting_ids: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, not {self.status!r}")


def plan_check(app: App, selection: CheckSelection, directory: Path) -> tuple[Manifest, Path]:
    app.sources.get(selection.source)  # an unknown source is a clear error
    cap = min(selection.limit, selection.max_requests)
    with read_only(app.db) as conn:
        rows = conn.execute(
            _SELECT,
            {
                "source": selection.source,
                "status": selection.status,
                "ids": list(selection.posting_ids),
                "days": selection.active_days,
                "limit": cap + 1,
            },
        ).fetchall()
    truncated = len(rows) > cap
    rows = rows[:cap]
    manifest = Manifest(
        kind="check",
        params={
            "source": selection.source,
            "status": selection.status,
            "limit": selection.limit,
            "max_requests": selection.max_requests,
            "active_days": selection.active_days,
            "posting_ids": list(selection.posting_ids),
        },
        items=tuple(Item(r["id"], r["state_hash"]) for r in rows),
        counts={"postings": len(rows), "limit_reached": truncated},
        estimated_requests=len(rows),
        sample=tuple(
            {k: str(r[k]) if k.endswith("_at") else r[k] for k in r if k != "state_hash"}
            for r in rows[:SAMPLE_SIZE]
        ),
    )
    return manifest, write_manifest(manifest, directory)


def apply_check(app: App, manifest_path: Path, *, stream: TextIO | None = None) -> dict[str, Any]:
    manifest = load_manifest(manifest_path, "check")
    source = str(manifest.params["source"])
    journal = Journal(manifest_path)
    done = journal.done()
    with app.db.connect() as conn:
        rows = conn.execute(
            f"""SELECT id, {_HASH} AS state_hash, last_checked_at > %s AS checked_since
                FROM core.postings WHERE id = ANY(%s)""",
            (manifest.created_at, [i.id for i in manifest.items]),
        ).fetchall()
    # Checked since the preview: by a killed run of this apply (between its batch and
    # its journal line) or by the check phase. Either way it needs no second request.
    done |= {r["id"] for r in rows if r["checked_since"]}
    refuse_changes(manifest, {r["id"]: r["state_hash"] for r in rows}, done)
    todo = [i.id for i in manifest.items if i.id not in done]
    progress = Progress(f"check {source}", len(todo), stream=stream)
    outcomes: Counter[str] = Counter()
    for start in range(0, len(todo), BATCH):
        batch = todo[start : start + BATCH]
        report = check_postings(
            app,
            source,
            ids=batch,
            statuses=(str(manifest.params["status"]),),
            recheck_after_s=0,
            progress_lines=False,  # this apply's own line counts the whole selection
        )
        if report.status != "succeeded":
            return _result(report, outcomes, len(done), manifest_path)
        outcomes.update(report.stats.get("outcomes", {}))
        journal.record(batch)
        progress.advance(len(batch))
    return {"status": "succeeded", "already_done": len(done), "checked": len(todo),
            "outcomes": dict(outcomes), "manifest": str(manifest_path)}  # fmt: skip


def _result(
    report: PhaseReport, outcomes: Mapping[str, int], done: int, path: Path
) -> dict[str, Any]:
    """A batch skipped (another check of the source holds the lock) or failed: stop; a rerun
    with the same manifest continues from the journal."""
    return {"status": report.status, "message": report.message, "already_done": done,
            "outcomes": dict(outcomes), "manifest": str(path)}  # fmt: skip
