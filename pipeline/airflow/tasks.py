"""What the Airflow tasks call. DAG files stay logic-free; this module builds the
real objects inside the task (heavy imports happen here, never at DAG parse time).

Every task is a fresh process that imports this module: it loads what a source DAG's
phases need and no more; the sync, the raw cleanup and the freshness report import their
own modules when they run, so a source task does not pay for them (docs/operations.md).

Secrets come from the environment (JOBHARBOR_*) or, when defined, from Airflow
connections `jobharbor_db` and `jobharbor_serving_db`; they are never logged.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from pipeline.airflow.alerts import log_group, task_failure
from pipeline.airflow.connections import airflow_connection
from pipeline.airflow.failures import fatal_without_retry
from pipeline.airflow.ingest_gate import ingest_gate
from pipeline.airflow.sync_gate import is_gated, sync_gate, sync_times
from pipeline.app import App
from pipeline.crawl.catalog import sync_catalog
from pipeline.db.ready import require_migrated
from pipeline.phases.check import check_postings
from pipeline.phases.common import PhaseReport
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from pipeline.settings import load_settings

log = logging.getLogger("jobharbor.airflow")
POOL = "jobharbor"
POOL_SLOTS = 3


def _connection_uri(conn_id: str) -> str | None:
    """The connection's URI, or None when it is not defined (the environment decides)."""
    connection = airflow_connection(conn_id)
    return connection.get_uri() if connection is not None else None


def task_app() -> App:
    overrides: dict[str, Any] = {}
    for conn_id, field in (
        ("jobharbor_db", "database_url"),
        ("jobharbor_serving_db", "serving_database_url"),
    ):
        uri = _connection_uri(conn_id)
        if uri:
            overrides[field] = uri.replace("postgres://", "postgresql://", 1)
    return App.create(settings=load_settings(**overrides))


def finish_task(report: PhaseReport) -> dict[str, Any]:
    log.info(report.summary())
    if report.status == "skipped":
        from airflow.exceptions import AirflowSkipException

        raise AirflowSkipException(report.message or "skipped")
    # The message says why a run did nothing (e.g. no board due): it belongs in the XCom.
    said = {"message": report.message} if report.message else {}
    return {"status": report.status, "run_id": report.run_id, **said, **dict(report.stats)}


@fatal_without_retry
def run_discover(source: str, force: bool = False, boards: Sequence[str] = ()) -> dict[str, Any]:
    """One source's discover; `force` and `boards` are the DAG's Params (see discover)."""
    app = task_app()
    require_migrated(app.db)  # migrations run once, at setup (`jobharbor db up`)
    with ingest_gate(app.db, exclusive=False):
        sync_catalog(app)  # first: a board just added to sources.yaml can be named at once
        return finish_task(discover(app, source, force=force, boards=named_boards(boards)))


def named_boards(boards: Sequence[str]) -> tuple[str, ...]:
    """The trigger form's list as board names: blank lines are not boards."""
    return tuple(name for name in (str(b).strip() for b in boards) if name)


@fatal_without_retry
def run_fetch(source: str) -> dict[str, Any]:
    app = task_app()
    with ingest_gate(app.db, exclusive=False):
        return finish_task(fetch_details(app, source))


@fatal_without_retry
def run_parse(source: str) -> dict[str, Any]:
    app = task_app()
    with ingest_gate(app.db, exclusive=False):
        return finish_task(parse_source(app, source))


@fatal_without_retry
def run_check(source: str) -> dict[str, Any]:
    app = task_app()
    with ingest_gate(app.db, exclusive=False):
        return finish_task(check_postings(app, source))


@fatal_without_retry
def run_sync(
    dry_run: bool = False,
    allow_mass_removal: bool = False,
    full: bool = False,
    run_type: object = None,
) -> dict[str, Any]:
    """A run Airflow started (`run_type` asset_triggered or scheduled) skips when the last
    applied sync is more recent than JOBHARBOR_SYNC_MIN_INTERVAL_S, before the reconcile
    is loaded; an operator's trigger is never held back."""
    app = task_app()
    require_migrated(app.db)
    if is_gated(run_type):
        skip_sync_too_soon(app)
    # Here, not at the top: the serving reconcile is no source task's business.
    from pipeline.phases.sync import sync_serving

    with ingest_gate(app.db, exclusive=True):
        return finish_task(
            sync_serving(app, dry_run=dry_run, allow_mass_removal=allow_mass_removal, full=full)
        )


def skip_sync_too_soon(app: App) -> None:
    gate = sync_gate(*sync_times(app.db), app.settings.sync_min_interval_s)
    log.info("sync minimum interval: %s", gate.summary)
    if not gate.due:
        from airflow.sdk.exceptions import AirflowSkipException

        raise AirflowSkipException(f"skipped: {gate.summary}")


def fail_run(reason: str) -> None:
    """The watcher: a later phase succeeding must not make a failed run look healthy."""
    from airflow.exceptions import AirflowFailException

    raise AirflowFailException(reason)


@fatal_without_retry
def run_raw_cleanup(apply: bool = False, source: str | None = None) -> dict[str, Any]:
    # Here, not at the top: the cleanup planner is no source task's business.
    from pipeline.backfill.cleanup import plan_cleanup, run_cleanup

    app = task_app()
    require_migrated(app.db)
    if not apply:
        preview = plan_cleanup(app, source=source)
        log.info(preview.summary())
        return preview.as_dict()
    with ingest_gate(app.db, exclusive=True):
        report = run_cleanup(app, source=source)
    log.info("freed by source: %s", report.stats.get("by_source"))
    return finish_task(report)


def run_freshness(max_lag_s: float | None = None) -> dict[str, Any]:
    """Fails (no retry) when a source's lag passes the threshold: red in the UI, with a
    one-line reason naming the stalest sources; the full report is in log groups."""
    # Here, not at the top: the operator reports are no source task's business.
    from pipeline.commands.freshness import (
        check_freshness,
        freshness_headline,
        lag_report,
        render_lags,
    )
    from pipeline.commands.status import gather_status, render_status  # (as above)

    app = task_app()
    status = gather_status(app.db)
    lags = lag_report(app.db, app.serving_db)
    threshold = max_lag_s or app.settings.freshness_max_lag_s
    problems = check_freshness(lags, threshold)
    log_group(log, "status by source", render_status(status).splitlines())
    log_group(log, "lag by source", render_lags(lags).splitlines())
    headline = freshness_headline(lags, threshold)
    if headline:
        log_group(log, f"over the threshold ({len(problems)})", problems)
        raise task_failure(headline, problems)
    return {"sources": lags, "threshold_s": threshold}
