"""jobharbor operations: raw cleanup (dry-run by default) and freshness.

`jobharbor_raw_cleanup` deletes raw objects nothing needs any more (see
pipeline/backfill/cleanup.py for what is protected); it takes all 3 slots of the
`jobharbor` pool, like the sync, so it never overlaps ingestion.
`jobharbor_freshness` fails when a source's lag passes its threshold. It runs after
each applied sync (on the asset `jobharbor://serving/jobs`) and hourly besides: a
stalled pipeline updates no asset, and that is exactly what it must report.
"""

from __future__ import annotations

from datetime import datetime

from airflow.sdk import DAG, Asset, AssetOrTimeSchedule, CronTriggerTimetable, Param, task

from pipeline.airflow.alerts import dag_deadline, on_task_failure

# What jobharbor_serving_sync's `sync` updates (named in jobharbor_dags.py too).
SERVING_JOBS = Asset("jobharbor://serving/jobs")
POOL = "jobharbor"
POOL_SLOTS = 3
COMMON = {
    "schedule": None,
    "start_date": datetime(2026, 1, 1),
    "catchup": False,
    "is_paused_upon_creation": True,
    "max_active_runs": 1,
    "default_args": {
        "owner": "jobharbor",
        "pool": POOL,
        "retries": 0,
        "on_failure_callback": on_task_failure,
    },
    "doc_md": __doc__,
    "deadline": dag_deadline(),
}


def raw_cleanup_dag() -> DAG:
    with DAG(
        dag_id="jobharbor_raw_cleanup",
        description="delete raw objects nothing needs any more (dry run by default)",
        tags=["jobharbor", "operations"],
        params={
            "dry_run": Param(True, type="boolean", description="report what would be freed"),
            "source": Param(None, type=["null", "string"], description="only this source"),
        },
        **COMMON,
    ) as dag:

        @task(task_id="cleanup", pool_slots=POOL_SLOTS)
        def cleanup(params: dict | None = None) -> dict:
            from pipeline.airflow.tasks import run_raw_cleanup

            params = params or {}
            return run_raw_cleanup(
                apply=not params.get("dry_run", True), source=params.get("source")
            )

        cleanup()
    return dag


def freshness_dag() -> DAG:
    with DAG(
        dag_id="jobharbor_freshness",
        description="per source: last successful phases, lag raw object -> searchable row (p95)",
        tags=["jobharbor", "operations"],
        params={
            "max_lag_s": Param(
                None,
                type=["null", "number"],
                exclusiveMinimum=0,
                description="threshold in seconds (default: JOBHARBOR_FRESHNESS_MAX_LAG_S, 6h)",
            )
        },
        **{
            **COMMON,
            "schedule": AssetOrTimeSchedule(
                timetable=CronTriggerTimetable("0 * * * *", timezone="UTC"), assets=SERVING_JOBS
            ),
        },
    ) as dag:

        @task(task_id="freshness")
        def freshness(params: dict | None = None) -> dict:
            from pipeline.airflow.tasks import run_freshness

            return run_freshness((params or {}).get("max_lag_s"))

        freshness()
    return dag


jobharbor_raw_cleanup = raw_cleanup_dag()
jobharbor_freshness = freshness_dag()
