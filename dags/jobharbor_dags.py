"""jobharbor DAGs: one per enabled source in sources.yaml, plus serving sync.

Import does no I/O beyond reading sources.yaml; every task calls a pipeline
entry point (pipeline.airflow.tasks) that builds its own connections. A broken
sources.yaml shows up as an import error naming the file, line and key.

Each source DAG: discover -> fetch -> parse -> check. Later phases run even when an
earlier one fails (they can still process work already available), and a
watcher task fails the run if any phase failed. Every task takes a slot of the
pool of its source's lane (`jobharbor_ats`, `jobharbor_workday`, `jobharbor_browser`:
a slow lane fills its own pool, never another's). The sync takes all 3 slots of the
shared `jobharbor` pool (as do the sync backfill's apply and the raw cleanup) and holds
the ingest gate exclusively, which every source task holds shared
(pipeline.airflow.ingest_gate), so it never overlaps ingestion. Per-source Postgres
advisory locks keep two runs of one source apart.

Data-aware: a source DAG's `check` updates the asset `jobharbor://postings/<source>`;
the sync runs when any of them updates (and on a 30-minute backstop timer), skipping at
once when the last applied sync is more recent than JOBHARBOR_SYNC_MIN_INTERVAL_S
(pipeline/airflow/sync_gate.py); its `sync` updates `jobharbor://serving/jobs`.

A source DAG's Params reach discover only: `force` polls every active board of the
source now, `boards` only the named ones (keys or ids), each now; both still go through
the host budgets, cooldowns and robots.txt (pipeline.phases.forced).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from airflow.sdk import (
    DAG,
    Asset,
    AssetAny,
    AssetOrTimeSchedule,
    CronTriggerTimetable,
    Param,
    get_parsing_context,
    task,
)

from pipeline.airflow.alerts import dag_deadline, on_task_failure
from pipeline.config import configured_sources_file, lane_pool, load_sources, source_lane

POOL = "jobharbor"
POOL_SLOTS = 3
SOURCES_FILE = configured_sources_file()
START = datetime(2026, 1, 1)
DEFAULT_ARGS = {
    "owner": "jobharbor",
    "pool": POOL,
    "retries": 1,
    "retry_delay": timedelta(minutes=2),
    "on_failure_callback": on_task_failure,  # one alert per failed task (see alerts.py)
}
# Every DAG starts paused and runs on manual trigger, one run at a time.
COMMON = {
    "schedule": None,
    "start_date": START,
    "catchup": False,
    "is_paused_upon_creation": True,
    "max_active_runs": 1,
    "default_args": DEFAULT_ARGS,
    "doc_md": __doc__,
    "deadline": dag_deadline(),
}
# The Assets chaining the DAGs (the UI's Assets page shows the lineage). `jobharbor` is a
# URI scheme of our own: Airflow reserves `airflow` and keeps an unknown scheme as
# written. jobharbor_operations.py names the serving asset again for the freshness DAG
# (a DAG file imports no other); the DagBag test checks the two agree.
SERVING_JOBS = Asset("jobharbor://serving/jobs")


def postings(source: str) -> Asset:
    """The source's postings as its DAG's last phase (check) leaves them."""
    return Asset(f"jobharbor://postings/{source}")


# The sync also runs on this timer: a sync skipped as too soon leaves changes unpublished
# until the next one, and a quiet afternoon may bring no other asset update.
SYNC_BACKSTOP = CronTriggerTimetable("*/30 * * * *", timezone="UTC")


def source_params() -> dict[str, Param]:
    """A source DAG's Params: defaults are a normal run (only the boards that are due)."""
    return {
        "force": Param(
            False,
            type="boolean",
            description="poll every active board of this source now, due or not; host budgets,"
            " cooldowns and robots.txt still apply (a board whose host must wait is deferred,"
            " and the discover summary says until when); retired boards are never polled",
        ),
        "boards": Param(
            [],
            type="array",
            items={"type": "string"},
            description="only these boards of this source (board keys or ids), each polled"
            " now, due or not; empty: every board when forcing, else the due ones. A name"
            " the source does not have fails the run before anything is polled; a retired"
            " or disabled board is refused",
        ),
    }


def source_dag(
    name: str,
    platform: str,
    display_name: str,
    schedule: str | None = None,
    queue: str = "default",
) -> DAG:
    # sources.yaml may give a source a schedule (validated there); it still starts paused.
    # `queue` is the source's lane: read by the CeleryExecutor only (make up EXECUTOR=celery);
    # its pool, by every executor.
    with DAG(
        dag_id=f"jobharbor_{name}",
        description=f"discover -> fetch -> parse -> check for {display_name}",
        tags=["jobharbor", "ingest", platform],
        params=source_params(),
        **{
            **COMMON,
            "schedule": schedule,
            "default_args": {**DEFAULT_ARGS, "queue": queue, "pool": lane_pool(queue)},
        },
    ) as dag:

        @task(task_id="discover")
        def discover(params: dict | None = None) -> dict:
            from pipeline.airflow.tasks import run_discover

            params = params or {}
            return run_discover(
                name, force=bool(params.get("force")), boards=params.get("boards") or []
            )

        @task(task_id="fetch", trigger_rule="all_done")
        def fetch() -> dict:
            from pipeline.airflow.tasks import run_fetch

            return run_fetch(name)

        @task(task_id="parse", trigger_rule="all_done")
        def parse() -> dict:
            from pipeline.airflow.tasks import run_parse

            return run_parse(name)

        @task(task_id="check", trigger_rule="all_done", outlets=[postings(name)])
        def check() -> dict:
            from pipeline.airflow.tasks import run_check

            return run_check(name)

        # The failed phase has alerted already: the watcher only keeps the run red.
        @task(task_id="watcher", trigger_rule="one_failed", retries=0, on_failure_callback=None)
        def watcher() -> None:
            from pipeline.airflow.tasks import fail_run

            fail_run(f"a phase of {name} failed; see its task log")

        phases = [discover(), fetch(), parse(), check()]
        phases[0] >> phases[1] >> phases[2] >> phases[3]
        phases >> watcher()
    return dag


def sync_dag(sources: list[str]) -> DAG:
    updates = [postings(name) for name in sources]
    schedule = (
        AssetOrTimeSchedule(timetable=SYNC_BACKSTOP, assets=AssetAny(*updates))
        if updates
        else SYNC_BACKSTOP
    )
    with DAG(
        dag_id="jobharbor_serving_sync",
        description="publish open postings to the serving schema (one transactional diff)",
        tags=["jobharbor", "serving"],
        params={
            "dry_run": Param(False, type="boolean", description="report the diff, change nothing"),
            "allow_mass_removal": Param(
                False,
                type="boolean",
                description="apply a diff that removes most (or all) published rows",
            ),
            "full": Param(
                False,
                type="boolean",
                description="reconcile every published row, not only those changed since the last sync",
            ),
        },
        **{**COMMON, "schedule": schedule},
    ) as dag:

        @task(task_id="sync", pool_slots=POOL_SLOTS, outlets=[SERVING_JOBS])
        def sync(params: dict | None = None, dag_run: Any = None) -> dict:
            from pipeline.airflow.tasks import run_sync

            params = params or {}
            return run_sync(
                dry_run=bool(params.get("dry_run")),
                allow_mass_removal=bool(params.get("allow_mass_removal")),
                full=bool(params.get("full")),
                # Runs Airflow starts (an asset update, the timer) keep the minimum interval.
                run_type=getattr(dag_run, "run_type", None),
            )

        sync()
    return dag


# A task's own process parses this file for its DAG only (Airflow sets the parsing
# context): building every other DAG there cost a source task 1.5 s under load, for nothing.
_ONLY = get_parsing_context().dag_id
_ENABLED = list(load_sources(SOURCES_FILE).enabled())
for _name, _source in _ENABLED:
    if _ONLY in (None, f"jobharbor_{_name}"):
        globals()[f"jobharbor_{_name}"] = source_dag(
            _name,
            _source.platform,
            _source.display_name or _name,
            _source.schedule,
            source_lane(_source),
        )
if _ONLY in (None, "jobharbor_serving_sync"):
    jobharbor_serving_sync = sync_dag([_name for _name, _ in _ENABLED])
