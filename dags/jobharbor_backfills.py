"""jobharbor backfills: manual DAGs that preview a selection of data, then apply it.

Every backfill is plan -> route -> (approval -> decision | no_approval) -> apply:
- plan previews read-only and writes a manifest (its path and content are in the log),
  and records the manifest's path and fingerprint in the database for this run;
- with `dry_run: true` (the default) the run ends there, and so does a run whose
  preview selected nothing (its summary says why; approval and apply are skipped);
- with `dry_run: false` apply applies exactly that manifest (or the one given as
  `manifest`, from an earlier preview) and refuses if the selection changed, or if
  the manifest it is given is not the one plan recorded (path and fingerprint);
- with `approve: true` the approval screen (Required Actions) shows the selection,
  counts by kind of change, up to 10 sample diffs, the fingerprint and a link to the
  plan log; Approve or Reject needs a reason. Nobody deciding within
  `approval_timeout_hours` (default 24) rejects. The task waits in `awaiting_input`
  and holds no pool slot. The decision (who, when, why) goes to the database, the task
  log and the run note. A rejected run skips apply and `decision` fails with
  "rejected by ...: reason", so the run is failed, never green.
Params are validated by Airflow before the run: `limit` is required and capped, and a
value over a cap is refused (the trigger form keeps it and the trigger fails), never
clamped.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.operators.hitl import ApprovalOperator, HITLOperator
from airflow.sdk import DAG, Param, task
from airflow.sdk.definitions.param import ParamsDict

from pipeline.airflow.alerts import on_task_failure
from pipeline.config import BACKFILL_MAX_LIMIT as MAX_LIMIT
from pipeline.config import BACKFILL_MAX_REQUESTS as MAX_REQUESTS
from pipeline.config import configured_sources_file, load_sources, param_bounds

MAX_APPROVAL_HOURS = 24 * 14
POOL = "jobharbor"
POOL_SLOTS = 3
SOURCES_FILE = configured_sources_file()
SOURCES = sorted(name for name, _ in load_sources(SOURCES_FILE).enabled())
COMMON = {
    "schedule": None,
    "start_date": datetime(2026, 1, 1),
    "catchup": False,
    "is_paused_upon_creation": True,
    "max_active_runs": 1,
    # No deadline: a run may wait for a human's approval for up to two weeks by design.
    "default_args": {
        "owner": "jobharbor",
        "pool": POOL,
        "retries": 0,
        "on_failure_callback": on_task_failure,
    },
    "doc_md": __doc__,
    "tags": ["jobharbor", "backfill"],
}
IDS = {
    "type": "array",
    "items": {"type": "integer", "minimum": 1},
    "maxItems": MAX_LIMIT,
    "description": f"only these posting ids (at most {MAX_LIMIT:,}; empty: no id filter)",
}
DATE = {"type": ["null", "string"], "format": "date"}


def _max_requests() -> Param:
    return Param(
        1000,
        type="integer",
        **param_bounds(1, MAX_REQUESTS),
        description=f"at most this many requests, 1..{MAX_REQUESTS:,} (more is refused)",
    )


def _mode() -> dict[str, Param]:
    return {
        "limit": Param(
            type="integer",
            **param_bounds(1, MAX_LIMIT),
            description=f"required: at most this many items, 1..{MAX_LIMIT:,} (more is refused)",
        ),
        "dry_run": Param(True, type="boolean", description="preview only (write a manifest)"),
        "approve": Param(False, type="boolean", description="wait for a human before apply"),
        "manifest": Param(
            None, type=["null", "string"], description="apply this previewed manifest (a path)"
        ),
        "approval_timeout_hours": Param(
            24,
            type="integer",
            **param_bounds(1, MAX_APPROVAL_HOURS),
            description=f"with approve: no decision within this many hours (1..{MAX_APPROVAL_HOURS}) rejects",
        ),
    }


PARAMS: dict[str, dict[str, Param]] = {
    "reparse": {
        "source": Param(type="string", enum=SOURCES or [""], description="the source"),
        "posting_ids": Param([], **IDS),
        "fetched_from": Param(None, **DATE, description="content fetched on or after"),
        "fetched_to": Param(None, **DATE, description="content fetched on or before"),
        "parser": Param(
            None,
            type=["null", "string"],
            pattern=r"^[A-Za-z0-9_:.-]+(@[A-Za-z0-9.+_-]+)?$",
            description="only postings whose current result is this name@version",
        ),
        **_mode(),
    },
    "check": {
        "source": Param(type="string", enum=SOURCES or [""], description="the source"),
        "status": Param(
            "missing",
            type="string",
            enum=["missing", "active"],
            description="missing: no longer listed; active: listed for more than active_days",
        ),
        "active_days": Param(
            90,
            type="integer",
            **param_bounds(1),
            description="status active: first seen more than this many days ago (at least 1)",
        ),
        "posting_ids": Param([], **IDS),
        "max_requests": _max_requests(),
        **_mode(),
    },
    "sync": {
        "allow_mass_removal": Param(
            False,
            type="boolean",
            description="apply a reconcile that removes most (or all) published rows",
        ),
        **_mode(),
    },
    "enrich": {
        "date": Param(None, **DATE, description="postings first seen on this day"),
        "source": Param(
            None,
            type=["null", "string"],
            enum=[None, *SOURCES],
            description="only this source (null: every source)",
        ),
        "posting_ids": Param([], **IDS),
        "max_requests": _max_requests(),
        **_mode(),
    },
}
DESCRIPTIONS = {
    "reparse": "re-parse stored raw objects of a selection (never fetches)",
    "check": "direct checks of missing or long-active postings",
    "sync": "a full serving reconcile",
    "enrich": "re-enrich a selection (date, source, posting ids)",
}


def _reason(required: bool) -> Param:
    # The screen asks for a non-empty reason. Airflow validates a task's params when the
    # task starts, before anyone answered, so the declared param accepts "none yet";
    # execute() shows the required one (empty: its default must be a value, None, for
    # the request to serialize), and record_response refuses an empty reason.
    if required:
        return Param(None, type="string", minLength=1, maxLength=500, description=REASON)
    return Param(None, type=["null", "string"], maxLength=500, description=REASON)


REASON = "why you approve or reject (required; it goes to the run note)"


class BackfillApproval(ApprovalOperator):
    """Approve / Reject on a screen built from what plan recorded for this run; the
    decision is recorded, a rejection skips apply (and `decision` fails the run)."""

    def __init__(self, *, kind: str, **kwargs: Any) -> None:
        # Airflow passes the DAG's params in; HITLOperator keeps only the task's own.
        kwargs["params"] = {"reason": _reason(False)}
        super().__init__(defaults=[ApprovalOperator.REJECT], **kwargs)
        self.kind = kind

    def execute(self, context: Any) -> Any:
        from pipeline.airflow.backfill import approval_screen

        ti = context["ti"]
        self.body = approval_screen(self.kind, ti.dag_id, ti.run_id)
        self.params = ParamsDict({"reason": _reason(True)})
        self.response_timeout = timedelta(hours=int(context["params"]["approval_timeout_hours"]))
        return super().execute(context)

    def execute_complete(self, context: Any, event: dict[str, Any]) -> Any:
        from pipeline.airflow.backfill import record_response

        if event.get("timedout"):
            hours = context["params"]["approval_timeout_hours"]
            event = {**event, "params_input": {"reason": f"no decision within {hours} h"}}
        response = HITLOperator.execute_complete(self, context, event)
        user = response["responded_by_user"]
        ti = context["ti"]
        record_response(
            ti.dag_id,
            ti.run_id,
            approved=response["chosen_options"] == [self.APPROVE],
            by=f"{user['name']} (id {user['id']})" if user else "nobody (timed out)",
            at=response["responded_at"],
            reason=str((response["params_input"] or {}).get("reason") or ""),
        )
        if response["chosen_options"] != [self.APPROVE]:
            self.skip(ti=ti, tasks=[self.dag.get_task("apply")])  # decision still runs
        return response


def backfill_dag(kind: str) -> DAG:
    apply_slots = POOL_SLOTS if kind == "sync" else 1
    with DAG(
        dag_id=f"jobharbor_backfill_{kind}",
        description=DESCRIPTIONS[kind],
        params=PARAMS[kind],
        **COMMON,
    ) as dag:

        @task(task_id="plan")
        def plan(params: dict | None = None, dag_run: Any = None) -> dict:
            from pipeline.airflow.backfill import run_plan

            return run_plan(kind, dict(params or {}), dag_run.dag_id, dag_run.run_id)

        @task.branch(task_id="route")
        def route(planned: dict, params: dict | None = None) -> list[str]:
            from pipeline.airflow.backfill import gates_after_plan

            # [] for a preview or a plan with nothing to apply: nothing downstream runs.
            return gates_after_plan(dict(params or {}), planned)

        approval = BackfillApproval(
            task_id="approval", kind=kind, subject=f"Apply the {kind} backfill?"
        )
        no_approval = EmptyOperator(task_id="no_approval")

        @task(task_id="decision")
        def decision(dag_run: Any = None) -> dict:
            from pipeline.airflow.backfill import run_decision

            return run_decision(dag_run.dag_id, dag_run.run_id)

        @task(task_id="apply", trigger_rule="none_failed_min_one_success", pool_slots=apply_slots)
        def apply(ti: Any = None, params: dict | None = None) -> dict:
            from pipeline.airflow.backfill import run_apply

            # Pulled, not passed: plan must not be an upstream of apply, or a preview
            # (both gates skipped) would still satisfy none_failed_min_one_success.
            # The XCom only names the manifest: apply checks it against plan's record.
            planned = ti.xcom_pull(task_ids="plan")
            return run_apply(kind, planned["manifest"], dict(params or {}), ti.dag_id, ti.run_id)

        route(plan()) >> [approval, no_approval] >> apply()
        approval >> decision()
    return dag


for _kind in PARAMS:
    globals()[f"jobharbor_backfill_{_kind}"] = backfill_dag(_kind)
