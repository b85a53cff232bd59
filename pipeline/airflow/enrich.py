"""What the `jobharbor_enrich` DAG's task calls (heavy imports happen here, in the task).

The Gemini key comes from GEMINI_API_KEY / GOOGLE_API_KEY or, when defined, the
Airflow connection `jobharbor_gemini` (its password); it is never logged.
"""

from __future__ import annotations

from typing import Any

from pipeline.airflow.params import refuse_out_of_range
from pipeline.airflow.tasks import finish_task, task_app
from pipeline.enrich.settings import load_enrich_settings
from pipeline.phases.enrich import enrich


def _gemini_key() -> str | None:
    from airflow.exceptions import AirflowNotFoundException
    from airflow.sdk import BaseHook

    try:
        connection = BaseHook.get_connection("jobharbor_gemini")
    except AirflowNotFoundException:
        return None
    return connection.password or None


# The bounds the `jobharbor_enrich` DAG's Params declare (dags/jobharbor_enrich.py).
PARAM_BOUNDS = {"limit": (1, None), "max_requests": (0, None)}


def run_enrich(limit: int, max_requests: int, source: str | None = None) -> dict[str, Any]:
    refuse_out_of_range({"limit": limit, "max_requests": max_requests}, PARAM_BOUNDS)
    key = _gemini_key()
    settings = load_enrich_settings(**({"api_key": key} if key else {}))
    report = enrich(
        task_app(), source or None, limit=limit, max_requests=max_requests, settings=settings
    )
    return finish_task(report)
