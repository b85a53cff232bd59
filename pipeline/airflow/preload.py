"""What `make up`'s scheduler imports before it forks the LocalExecutor's workers, which
fork every task process: modules imported here are already in each task's memory
(copy-on-write), so a task no longer spends its first seconds importing them.

Measured under `make up` on the shared 2-core machine (docs/operations.md#what-a-task-costs):
of a source task's 4 to 6 s with nothing to do, about 3 s were imports (Airflow's task
runner, then jobharbor's settings, sources, parsers and phases, twice over: for the DAG
file and for the task's callable) against 0.2 to 0.6 s of the phase's own work.

The price: the scheduler holds the jobharbor code it imported at start, so a change to
pipeline/ or parsers/ reaches tasks after `make down` and `make up` again (DAG files and
sources.yaml are still read afresh by every task). `JOBHARBOR_AIRFLOW_PRELOAD=0 make up`
starts the scheduler without it. Only the scheduler preloads (scripts/airflow-up.sh sets
the variable for it alone): the DAG processor, API server and triggerer import as before.
"""

from __future__ import annotations

import importlib

# The task side of Airflow (the supervisor imports the runner: the worker's own first task
# would otherwise import it in each new worker), then what every source task imports.
MODULES = (
    "airflow.sdk.execution_time.supervisor",
    "airflow.sdk.execution_time.task_runner",
    "pipeline.airflow.tasks",
)


def preload() -> tuple[str, ...]:
    """Import MODULES; the names imported."""
    for name in MODULES:
        importlib.import_module(name)
    return MODULES
