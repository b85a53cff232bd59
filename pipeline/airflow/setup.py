"""`jobharbor airflow setup`: what Airflow needs from the platform before any DAG runs,
idempotently — both schemas migrated (`jobharbor db up`) and the shared `jobharbor`
pool with its 3 slots. `make up` and compose's airflow-init run it; rerunning is safe."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from pipeline.errors import FatalError

POOL = "jobharbor"
POOL_SLOTS = 3
# Every task whose pool_slots is POOL_SLOTS (so it never overlaps ingestion), named
# as dag_id.task_id where the pool is read (Admin > Pools); a test derives the list from
# the DAGs and checks each one is named here.
WHOLE_POOL_TASKS = (
    "jobharbor_serving_sync.sync",
    "jobharbor_raw_cleanup.cleanup",
    "jobharbor_backfill_sync.apply",
)
POOL_DESCRIPTION = (
    f"jobharbor: shared by every DAG; these take all {POOL_SLOTS} slots: "
    + ", ".join(WHOLE_POOL_TASKS)
)


def airflow_binary() -> str:
    beside = Path(sys.executable).parent / "airflow"
    return str(beside) if beside.exists() else (shutil.which("airflow") or "airflow")


def ensure_pool() -> None:
    """Create the pool or reset it to its size (`pools set` is an upsert)."""
    result = subprocess.run(
        [airflow_binary(), "pools", "set", POOL, str(POOL_SLOTS), POOL_DESCRIPTION],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise FatalError(f"could not create the {POOL} pool: {result.stderr.strip()[-2000:]}")
