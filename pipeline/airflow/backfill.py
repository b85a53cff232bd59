"""What the backfill DAGs' tasks call (dags/jobharbor_backfills.py stays logic-free).

plan: a preview into a manifest (or, for an apply run given `manifest`, that manifest
checked and passed on), recorded with its fingerprint in `crawl.backfill_approvals`;
approval: the screen built from that record, and the decision recorded there (and in
the run note when the API allows it); decision: fails a rejected run; apply: exactly
the manifest recorded (and approved), whatever the plan's XCom says. Fatal errors (a
refused apply, a rejection) fail without retry.
"""

from __future__ import annotations

import json
import logging
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pipeline.airflow.failures import fatal_without_retry
from pipeline.airflow.ingest_gate import ingest_gate
from pipeline.airflow.params import refuse_out_of_range
from pipeline.airflow.run_note import ui_base_url, write_run_note
from pipeline.airflow.tasks import task_app
from pipeline.backfill.approval import (
    PlannedRun,
    approval_body,
    planned_run,
    record_decision,
    record_plan,
    verified_manifest,
)
from pipeline.backfill.check import CheckSelection, apply_check, plan_check
from pipeline.backfill.enrich import EnrichSelection, apply_enrich, plan_enrich
from pipeline.backfill.manifest import (
    MAX_LIMIT,
    MAX_REQUESTS,
    BackfillRefused,
    Manifest,
    load_manifest,
)
from pipeline.backfill.reparse import ReparseSelection, apply_reparse, plan_reparse
from pipeline.backfill.sync import apply_sync, plan_sync

log = logging.getLogger("jobharbor.backfill")
# The bounds the backfill DAGs' Params declare (dags/jobharbor_backfills.py).
PARAM_BOUNDS = {
    "limit": (1, MAX_LIMIT),
    "max_requests": (1, MAX_REQUESTS),
    "active_days": (1, None),
}


def _day(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def _ids(params: dict[str, Any]) -> tuple[int, ...]:
    return tuple(int(i) for i in params.get("posting_ids") or ())


def _plan(app: Any, kind: str, params: dict[str, Any], directory: Path) -> tuple[Manifest, Path]:
    if kind == "reparse":
        selection = ReparseSelection(
            source=params["source"],
            limit=int(params["limit"]),
            posting_ids=_ids(params),
            fetched_from=_day(params.get("fetched_from")),
            fetched_to=_day(params.get("fetched_to")),
            parser=params.get("parser") or None,
        )
        return plan_reparse(app, selection, directory)
    if kind == "check":
        check = CheckSelection(
            source=params["source"],
            status=params["status"],
            limit=int(params["limit"]),
            max_requests=int(params["max_requests"]),
            active_days=int(params.get("active_days") or 90),
            posting_ids=_ids(params),
        )
        return plan_check(app, check, directory)
    if kind == "sync":
        return plan_sync(app, directory, limit=int(params["limit"]))

    enrich = EnrichSelection(
        limit=int(params["limit"]),
        max_requests=int(params.get("max_requests") or 1000),
        source=params.get("source") or None,
        day=_day(params.get("date")),
        posting_ids=_ids(params),
    )
    return plan_enrich(app, enrich, directory)


@fatal_without_retry
def run_plan(kind: str, params: dict[str, Any], dag_id: str, run_id: str) -> dict[str, Any]:
    refuse_out_of_range(params, PARAM_BOUNDS)
    app = task_app()
    given = params.get("manifest")
    if given and not params.get("dry_run", True):
        manifest, path = load_manifest(Path(given), kind), Path(given)
        log.info("applying the previewed manifest %s", path)
    else:
        manifest, path = _plan(app, kind, params, app.settings.data_dir / "backfills")
    nothing = manifest.nothing_to_apply()
    summary = manifest.summary() + (f"; nothing to apply: {nothing}" if nothing else "")
    log.info("%s", summary)
    for note in manifest.notes:
        log.warning("note: %s", note)
    log.info("manifest %s:\n%s", path, json.dumps(_shown(manifest), indent=1, default=str))
    if not params.get("dry_run", True):  # a preview writes nothing to the database
        record_plan(app.db, dag_id, run_id, kind, path, manifest.fingerprint)
    return {
        "manifest": str(path),
        "fingerprint": manifest.fingerprint,
        "summary": summary,
        "items": len(manifest.items),
        "nothing_to_apply": nothing,
    }


def gates_after_plan(params: dict[str, Any], planned: dict[str, Any]) -> list[str]:
    """The gate between plan and apply that the run takes; none (so approval and apply
    are skipped) for a preview, and for a plan with nothing to apply: asking a human
    to approve an apply that would change nothing only hides that it found nothing."""
    if params.get("dry_run", True):
        return []
    if planned.get("nothing_to_apply"):
        log.warning(
            "nothing to apply (%s): approval and apply skipped", planned["nothing_to_apply"]
        )
        return []
    return ["approval" if params.get("approve") else "no_approval"]


def _shown(manifest: Manifest) -> dict[str, Any]:
    """The manifest as logged: everything but the full id list (the file has it)."""
    data = manifest.to_dict()
    items = data.pop("items")
    data["items_first"] = items[:20]
    return data


@fatal_without_retry
def run_apply(
    kind: str, manifest_path: str, params: dict[str, Any], dag_id: str, run_id: str
) -> dict[str, Any]:
    app = task_app()
    path = Path(manifest_path)
    planned = planned_run(app.db, dag_id, run_id)
    needs_approval = bool(params.get("approve"))
    manifest = verified_manifest(planned, path, kind, needs_approval=needs_approval)
    log.info(
        "applying %s, fingerprint %s (%s)",
        path,
        manifest.fingerprint,
        planned.verdict() if planned and needs_approval else "no approval asked",
    )
    if kind == "reparse":
        report = apply_reparse(app, path)
    elif kind == "check":
        return apply_check(app, path)
    elif kind == "sync":  # a whole-pool task: apart from the lanes' tasks too
        with ingest_gate(app.db, exclusive=True):
            report = apply_sync(
                app, path, allow_mass_removal=bool(params.get("allow_mass_removal"))
            )
    else:
        report = apply_enrich(app, path)
    log.info(report.summary())
    if report.status == "skipped":
        from airflow.exceptions import AirflowSkipException

        raise AirflowSkipException(report.message or "skipped")
    return {"status": report.status, "run_id": report.run_id, **dict(report.stats)}


def plan_log_url(dag_id: str, run_id: str) -> str | None:
    base = ui_base_url()
    if not base:
        return None
    return f"{base}/dags/{quote(dag_id, safe='')}/runs/{quote(run_id, safe='')}/tasks/plan"


@fatal_without_retry
def approval_screen(kind: str, dag_id: str, run_id: str) -> str:
    """The approval's body, from what plan recorded for this run (not from an XCom)."""
    app = task_app()
    planned = planned_run(app.db, dag_id, run_id)
    if planned is None:
        raise BackfillRefused(f"no plan recorded for {dag_id} run {run_id}: nothing to approve")
    manifest = verified_manifest(planned, Path(planned.manifest_path), kind, needs_approval=False)
    return approval_body(manifest, Path(planned.manifest_path), plan_log_url(dag_id, run_id))


@fatal_without_retry
def record_response(
    dag_id: str,
    run_id: str,
    *,
    approved: bool,
    by: str,
    at: datetime,
    reason: str,
) -> dict[str, Any]:
    """The decision, recorded where apply reads it, logged, and written to the run note
    when the API lets this task (see pipeline.airflow.run_note)."""
    if not reason.strip():
        raise BackfillRefused("a decision needs a reason: none was given, nothing applied")
    app = task_app()
    decided = record_decision(
        app.db, dag_id, run_id, approved=approved, by=by, at=at, reason=reason.strip()
    )
    line = decided.verdict()
    log.info("decision: %s", line)
    not_written = write_run_note(dag_id, run_id, f"Backfill {line}")
    if not_written:
        log.warning(
            "run note not written (%s); the decision is in crawl.backfill_approvals", not_written
        )
    return _decision(decided, note_written=not not_written)


def _decision(planned: PlannedRun, *, note_written: bool) -> dict[str, Any]:
    return {
        "decision": planned.decision,
        "decided_by": planned.decided_by,
        "decided_at": planned.decided_at.isoformat() if planned.decided_at else None,
        "reason": planned.reason,
        "fingerprint": planned.fingerprint,
        "run_note": note_written,
    }


@fatal_without_retry
def run_decision(dag_id: str, run_id: str) -> dict[str, Any]:
    """Fails a rejected run (so it does not end green) with who rejected it and why."""
    planned = planned_run(task_app().db, dag_id, run_id)
    if planned is None or planned.decision is None:
        raise BackfillRefused(f"no decision recorded for {dag_id} run {run_id}")
    if planned.decision != "approved":
        raise BackfillRefused(f"{planned.verdict()}; apply skipped")
    log.info("%s", planned.verdict())
    return _decision(planned, note_written=False)
