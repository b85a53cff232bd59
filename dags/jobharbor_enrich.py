"""jobharbor_enrich: one enrichment pass over eligible new or changed content (manual).

Requirements and skills from an LLM, every value checked against the posting's own
words (pipeline.enrich). Explicit limits on postings and API requests per run; the
provider's RPM/TPM/RPD budgets are shared in PostgreSQL with every other worker. The
task takes one slot of the shared `jobharbor` pool, so ingestion and sync run without
it and the sync (all slots) never overlaps it. Import does no I/O.
"""

from __future__ import annotations

from datetime import datetime

from airflow.sdk import DAG, Param, task

from pipeline.airflow.alerts import dag_deadline, on_task_failure
from pipeline.config import param_bounds

POOL = "jobharbor"

with DAG(
    dag_id="jobharbor_enrich",
    description="LLM enrichment with verbatim-evidence checks (manual, limited)",
    tags=["jobharbor", "enrich"],
    schedule=None,
    start_date=datetime(2026, 1, 1),
    catchup=False,
    is_paused_upon_creation=True,
    max_active_runs=1,
    default_args={
        "owner": "jobharbor",
        "pool": POOL,
        "retries": 0,
        "on_failure_callback": on_task_failure,
    },
    deadline=dag_deadline(),
    params={
        "limit": Param(
            200,
            type="integer",
            **param_bounds(1),
            description="at most this many postings (at least 1; max_requests bounds the cost)",
        ),
        "max_requests": Param(
            100,
            type="integer",
            **param_bounds(0),
            description="at most this many API requests (at least 0)",
        ),
        "source": Param("", type="string", description="only this source (empty: all)"),
    },
    doc_md=__doc__,
) as jobharbor_enrich:

    @task(task_id="enrich", pool_slots=1)
    def enrich(params: dict | None = None) -> dict:
        from pipeline.airflow.enrich import run_enrich

        params = params or {}
        return run_enrich(
            limit=int(params.get("limit", 200)),
            max_requests=int(params.get("max_requests", 100)),
            source=str(params.get("source") or "") or None,
        )

    enrich()
