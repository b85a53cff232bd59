"""What the Airflow tasks call. DAG files stay logic-free; this module builds the
real objects inside the task (heavy imports happen here, never at DAG parse time).

Secrets come from the environment (JOBHARBOR_*) or, when defined, from Airflow
connections `jobharbor_db` and `jobharbor_serving_db`; they are never logged.
"""

from __future__ import annotations

import logging
from typing import Any

from pipeline.app import App
from pipeline.phases.common import PhaseReport
from pipeline.settings import load_settings

log = logging.getLogger("jobharbor.airflow")
POOL = "jobharbor"
POOL_SLOTS = 3


def _connection_uri(conn_id: str) -> str | None:
    """The connection's URI, or None when it is not defined (the environment decides).
    Any other failure (a secrets backend down) propagates: silently falling back could
    point a task at another database."""
    from airflow.exceptions import AirflowNotFoundException
    from airflow.sdk import BaseHook

    try:
        return BaseHook.get_connection(conn_id).get_uri()
    except AirflowNotFoundException:
        return None


def _app() -> App:
    overrides: dict[str, Any] = {}
    for conn_id, field in (
        ("jobharbor_db", "database_url"),
        ("jobharbor_serving_db", "serving_database_url"),
    ):
        uri = _connection_uri(conn_id)
        if uri:
            overrides[field] = uri.replace("postgres://", "postgresql://", 1)
    return App.create(settings=load_settings(**overrides))


def _finish(report: PhaseReport) -> dict[str, Any]:
    log.info(report.summary())
    if report.status == "skipped":
        from airflow.exceptions import AirflowSkipException

        raise AirflowSkipException(report.message or "skipped")
    return {"status": report.status, "run_id": report.run_id, **dict(report.stats)}


def run_discover(source: str) -> dict[str, Any]:
    from pipeline.crawl.catalog import sync_catalog
    from pipeline.db.setup import setup_databases
    from pipeline.phases.discover import discover

    app = _app()
    setup_databases(app.db, app.serving_db)
    sync_catalog(app)
    return _finish(discover(app, source))


def run_fetch(source: str) -> dict[str, Any]:
    from pipeline.phases.fetch import fetch_details

    return _finish(fetch_details(_app(), source))


def run_parse(source: str) -> dict[str, Any]:
    from pipeline.phases.parse import parse_source

    return _finish(parse_source(_app(), source))


def run_check(source: str) -> dict[str, Any]:
    from pipeline.phases.check import check_postings

    return _finish(check_postings(_app(), source))


def run_sync(
    dry_run: bool = False, allow_mass_removal: bool = False, full: bool = False
) -> dict[str, Any]:
    from pipeline.db.setup import setup_databases
    from pipeline.phases.sync import sync_serving

    app = _app()
    setup_databases(app.db, app.serving_db)
    return _finish(
        sync_serving(app, dry_run=dry_run, allow_mass_removal=allow_mass_removal, full=full)
    )


def fail_run(reason: str) -> None:
    """The watcher: a later phase succeeding must not make a failed run look healthy."""
    raise RuntimeError(reason)
