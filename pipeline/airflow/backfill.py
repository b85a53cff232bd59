"""What the backfill DAGs' tasks call (dags/jobharbor_backfills.py stays logic-free).

plan: a preview into a manifest (or, for an apply run given `manifest`, that manifest
checked and passed on); apply: exactly that manifest. Fatal errors (a refused apply)
fail without retry.
"""

from __future__ import annotations

import json
import logging
from datetime import date
from pathlib import Path
from typing import Any

from pipeline.airflow.failures import fatal_without_retry
from pipeline.airflow.params import refuse_out_of_range
from pipeline.airflow.tasks import task_app
from pipeline.backfill.check import CheckSelection, apply_check, plan_check
from pipeline.backfill.enrich import EnrichSelection, apply_enrich, plan_enrich
from pipeline.backfill.manifest import MAX_LIMIT, MAX_REQUESTS, Manifest, load_manifest
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
def run_plan(kind: str, params: dict[str, Any]) -> dict[str, Any]:
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
    return {
        "manifest": str(path),
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
def run_apply(kind: str, manifest_path: str, params: dict[str, Any]) -> dict[str, Any]:
    app = task_app()
    path = Path(manifest_path)
    if kind == "reparse":
        report = apply_reparse(app, path)
    elif kind == "check":
        return apply_check(app, path)
    elif kind == "sync":
        report = apply_sync(app, path, allow_mass_removal=bool(params.get("allow_mass_removal")))
    else:
        report = apply_enrich(app, path)
    log.info(report.summary())
    if report.status == "skipped":
        from airflow.exceptions import AirflowSkipException

        raise AirflowSkipException(report.message or "skipped")
    return {"status": report.status, "run_id": report.run_id, **dict(report.stats)}
