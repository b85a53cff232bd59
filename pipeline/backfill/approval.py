"""A backfill run's approval: what its plan recorded, what a human decided, and the
screen they decided on.

Plan records the manifest's path and fingerprint in `crawl.backfill_approvals` (keyed
by the Airflow dag_id and run_id); the approval records the decision there; apply
reads the fingerprint from there, never from an XCom (which the Airflow UI and API can
edit), and refuses a manifest whose path or fingerprint differs from what was planned
and approved.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pipeline.backfill.manifest import BackfillRefused, Manifest, load_manifest
from pipeline.db.connect import Database

SHOWN_DIFFS = 10
CELL_CHARS = 120
APPROVED = "approved"
REJECTED = "rejected"


@dataclass(frozen=True)
class PlannedRun:
    dag_id: str
    run_id: str
    kind: str
    manifest_path: str
    fingerprint: str
    planned_at: datetime
    decision: str | None = None
    decided_by: str | None = None
    decided_at: datetime | None = None
    reason: str | None = None

    def verdict(self) -> str:
        """One line: who decided what, when and why (or that nobody has yet)."""
        if self.decision is None:
            return "no decision yet"
        when = self.decided_at.isoformat(timespec="seconds") if self.decided_at else "?"
        return f"{self.decision} by {self.decided_by} at {when}: {self.reason}"


def record_plan(
    db: Database, dag_id: str, run_id: str, kind: str, path: Path, fingerprint: str
) -> None:
    """What this run's plan previewed; a plan run again (a cleared task) replaces it and
    forgets any decision, which was about the earlier manifest."""
    with db.connect() as conn:
        conn.execute(
            """INSERT INTO crawl.backfill_approvals (dag_id, run_id, kind, manifest_path, fingerprint)
               VALUES (%s, %s, %s, %s, %s)
               ON CONFLICT (dag_id, run_id) DO UPDATE SET
                   kind = excluded.kind, manifest_path = excluded.manifest_path,
                   fingerprint = excluded.fingerprint, planned_at = now(),
                   decision = NULL, decided_by = NULL, decided_at = NULL, reason = NULL""",
            (dag_id, run_id, kind, str(path), fingerprint),
        )
        conn.commit()


def record_decision(
    db: Database, dag_id: str, run_id: str, *, approved: bool, by: str, at: datetime, reason: str
) -> PlannedRun:
    decision = APPROVED if approved else REJECTED
    with db.connect() as conn:
        row = conn.execute(
            """UPDATE crawl.backfill_approvals
               SET decision = %s, decided_by = %s, decided_at = %s, reason = %s
               WHERE dag_id = %s AND run_id = %s RETURNING *""",
            (decision, by, at, reason, dag_id, run_id),
        ).fetchone()
        conn.commit()
    if row is None:
        raise BackfillRefused(f"no plan recorded for {dag_id} run {run_id}: nothing to decide on")
    return PlannedRun(**row)


def planned_run(db: Database, dag_id: str, run_id: str) -> PlannedRun | None:
    with db.connect() as conn:
        row = conn.execute(
            "SELECT * FROM crawl.backfill_approvals WHERE dag_id = %s AND run_id = %s",
            (dag_id, run_id),
        ).fetchone()
    return PlannedRun(**row) if row else None


def verified_manifest(
    planned: PlannedRun | None, path: Path, kind: str, *, needs_approval: bool
) -> Manifest:
    """The manifest at `path` if it is exactly what this run planned (and, when the run
    asked for one, what a human approved); BackfillRefused otherwise."""
    if planned is None:
        raise BackfillRefused(f"no plan recorded for this run: refusing to apply {path}")
    if needs_approval and planned.decision != APPROVED:
        raise BackfillRefused(f"this run was not approved ({planned.verdict()}): nothing applied")
    if Path(path) != Path(planned.manifest_path):
        raise BackfillRefused(
            f"apply was given manifest {path}, but this run's plan recorded "
            f"{planned.manifest_path} (fingerprint {planned.fingerprint[:12]}): nothing applied"
        )
    manifest = load_manifest(Path(path), kind)
    if manifest.fingerprint != planned.fingerprint:
        raise BackfillRefused(
            f"manifest {path} has fingerprint {manifest.fingerprint[:12]}, not the "
            f"{planned.fingerprint[:12]} this run planned and approved: nothing applied"
        )
    return manifest


def _would_fail(entry: Mapping[str, Any]) -> bool:
    quality = (entry.get("changes") or {}).get("quality")
    return bool(quality) and quality[1] == "rejected"


def change_counts(manifest: Manifest) -> dict[str, Any]:
    """Counts by kind of change, as the approval screen shows them."""
    counts = manifest.counts
    if manifest.kind == "reparse":
        sample = manifest.sample
        failing = sum(1 for s in sample if _would_fail(s))
        changing = sum(1 for s in sample if s.get("changes") and not _would_fail(s))
        return {
            "postings to re-parse": counts.get("postings", len(manifest.items)),
            "raw object unavailable (skipped)": counts.get("raw_unavailable", 0),
            f"would change (of {len(sample)} re-parsed in the preview)": changing,
            f"unchanged (of {len(sample)})": len(sample) - changing - failing,
            f"would fail (of {len(sample)})": failing,
        }
    if manifest.kind == "check":
        status = manifest.params.get("status", "?")
        return {f"postings to check (status {status})": counts.get("postings", 0)}
    if manifest.kind == "sync":
        return {
            "rows to insert": counts.get("inserted", 0),
            "rows to compare and update if changed": counts.get("compared", 0),
            "rows to remove": counts.get("removed", 0),
        }
    return {"postings to enrich": counts.get("postings", 0)}


def _cell(value: Any) -> str:
    text = "∅" if value is None else str(value)
    text = text.replace("\n", " ").replace("|", "\\|")
    return text if len(text) <= CELL_CHARS else text[: CELL_CHARS - 1] + "…"


def _diff(entry: Mapping[str, Any]) -> list[str]:
    """One sample item: its field-by-field diff (re-parse) or its row (the other kinds)."""
    head = f"**posting {entry.get('posting_id')}**"
    if "external_id" in entry:
        head += f" ({_cell(entry['external_id'])})"
    if "changes" in entry:
        changes = entry["changes"] or {}
        if not changes:
            return [f"{head}: unchanged", ""]
        rows = [f"| {f} | {_cell(old)} | {_cell(new)} |" for f, (old, new) in changes.items()]
        return [f"{head}", "", "| field | now | after |", "|---|---|---|", *rows, ""]
    fields = ", ".join(f"{k}: {_cell(v)}" for k, v in entry.items() if k != "posting_id")
    return [f"- {head}: {fields}"]


def approval_body(manifest: Manifest, path: Path, plan_log_url: str | None) -> str:
    """The approval screen (Markdown): the selection, counts by kind of change, up to
    10 sample diffs, the fingerprint and a link to the plan task's log."""
    selection = ", ".join(
        f"{k}={_cell(v)}" for k, v in manifest.params.items() if v not in (None, [], "")
    )
    lines = [
        f"### {manifest.kind} backfill: {len(manifest.items)} items",
        "",
        f"**Selection:** {selection or '(none)'}",
        "",
        "| kind of change | count |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in change_counts(manifest).items()),
        "",
    ]
    lines += [f"> note: {_cell(n)}" for n in manifest.notes]
    shown = manifest.sample[:SHOWN_DIFFS]
    if shown:
        lines += [f"#### Sample ({len(shown)} of {len(manifest.items)})", ""]
        for entry in shown:
            lines += _diff(entry)
        lines.append("")
    lines += [
        f"**Manifest:** `{path}`",
        "",
        f"**Fingerprint:** `{manifest.fingerprint}` (apply refuses any other)",
        "",
        f"[The plan task's log]({plan_log_url})"
        if plan_log_url
        else "The plan task's log: (no UI address configured)",
        "",
        "Approve or Reject with a reason (required); no decision before the timeout rejects.",
    ]
    return "\n".join(lines)
