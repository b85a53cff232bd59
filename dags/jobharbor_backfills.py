"""jobharbor backfills: manual DAGs that preview a selection of data, then apply it.

Every backfill is plan -> route -> (approval | no_approval) -> apply:
- plan previews read-only and writes a manifest (its path and content are in the log);
- with `dry_run: true` (the default) the run ends there, and so does a run whose
  preview selected nothing (its summary says why; approval and apply are skipped);
- with `dry_run: false` apply applies exactly that manifest (or the one given as
  `manifest`, from an earlier preview) and refuses if the selection changed;
- with `approve: true` an ApprovalOperator waits for a human between plan and apply
  (a deferred task: it holds no pool slot while it waits).
Params are validated by Airflow before the run: `limit` is required and capped, and a
value over a cap is refused (the trigger form keeps it and the trigger fails), never
clamped.
"""

from __future__ import annotations

from datetime import datetime

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.operators.hitl import ApprovalOperator
from airflow.sdk import DAG, Param, task

from pipeline.config import BACKFILL_MAX_LIMIT as MAX_LIMIT
from pipeline.config import BACKFILL_MAX_REQUESTS as MAX_REQUESTS
from pipeline.config import configured_sources_file, load_sources, param_bounds

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
    "default_args": {"owner": "jobharbor", "pool": POOL, "retries": 0},
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


def backfill_dag(kind: str) -> DAG:
    apply_slots = POOL_SLOTS if kind == "sync" else 1
    with DAG(
        dag_id=f"jobharbor_backfill_{kind}",
        description=DESCRIPTIONS[kind],
        params=PARAMS[kind],
        **COMMON,
    ) as dag:

        @task(task_id="plan")
        def plan(params: dict | None = None) -> dict:
            from pipeline.airflow.backfill import run_plan

            return run_plan(kind, dict(params or {}))

        @task.branch(task_id="route")
        def route(planned: dict, params: dict | None = None) -> list[str]:
            from pipeline.airflow.backfill import gates_after_plan

            # [] for a preview or a plan with nothing to apply: nothing downstream runs.
            return gates_after_plan(dict(params or {}), planned)

        approval = ApprovalOperator(
            task_id="approval",
            subject=f"Apply the {kind} backfill?",
            body="{{ ti.xcom_pull(task_ids='plan')['summary'] }}\n\n"
            "manifest: {{ ti.xcom_pull(task_ids='plan')['manifest'] }}",
        )
        no_approval = EmptyOperator(task_id="no_approval")

        @task(task_id="apply", trigger_rule="none_failed_min_one_success", pool_slots=apply_slots)
        def apply(ti=None, params: dict | None = None) -> dict:
            from pipeline.airflow.backfill import run_apply

            # Pulled, not passed: plan must not be an upstream of apply, or a preview
            # (both gates skipped) would still satisfy none_failed_min_one_success.
            planned = ti.xcom_pull(task_ids="plan")
            return run_apply(kind, planned["manifest"], dict(params or {}))

        route(plan()) >> [approval, no_approval] >> apply()
    return dag


for _kind in PARAMS:
    globals()[f"jobharbor_backfill_{_kind}"] = backfill_dag(_kind)
