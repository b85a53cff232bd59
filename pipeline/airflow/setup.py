"""`jobharbor airflow setup`: what Airflow needs from the platform before any DAG runs,
idempotently — both schemas migrated (`jobharbor db up`) and the pools: the shared
`jobharbor` pool (3 slots) and one pool per lane. `make up` and compose's airflow-init
run it; rerunning is safe."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pipeline.config import configured_sources_file, lane_pool, lanes_in_use, load_sources
from pipeline.errors import FatalError

POOL = "jobharbor"
POOL_SLOTS = 3
# Every task whose pool_slots is POOL_SLOTS (so it never overlaps another task of the
# shared pool; against the lanes' tasks it takes the ingest gate exclusively,
# pipeline.airflow.ingest_gate), named as dag_id.task_id where the pool is read (Admin >
# Pools); a test derives the list from the DAGs and checks each one is named here.
WHOLE_POOL_TASKS = (
    "jobharbor_serving_sync.sync",
    "jobharbor_raw_cleanup.cleanup",
    "jobharbor_backfill_sync.apply",
)
POOL_DESCRIPTION = (
    f"jobharbor: the tasks on Airflow's default queue; these take all {POOL_SLOTS} slots: "
    + ", ".join(WHOLE_POOL_TASKS)
)
# Each lane may run as many tasks at once as the one shared pool allowed all of them.
LANE_POOL_SLOTS = 3


def configured_lanes() -> tuple[str, ...]:
    return lanes_in_use(s for _, s in load_sources(configured_sources_file()).enabled())


def pools(lanes: tuple[str, ...] | None = None) -> dict[str, dict[str, object]]:
    """Every pool the DAGs use (the configured sources' lanes unless given), as
    `airflow pools import` reads them."""
    found: dict[str, dict[str, object]] = {
        POOL: {"slots": POOL_SLOTS, "description": POOL_DESCRIPTION}
    }
    for queue in configured_lanes() if lanes is None else lanes:
        found[lane_pool(queue)] = {
            "slots": LANE_POOL_SLOTS,
            "description": f"jobharbor: the source DAGs of the {queue} lane (queue {queue})",
        }
    return found


def airflow_binary() -> str:
    beside = Path(sys.executable).parent / "airflow"
    return str(beside) if beside.exists() else (shutil.which("airflow") or "airflow")


def ensure_pool() -> None:
    """Create every pool or reset it to its size (`pools import` upserts each), in one
    Airflow command."""
    with tempfile.NamedTemporaryFile("w", suffix=".json") as listed:
        json.dump(pools(), listed)
        listed.flush()
        result = subprocess.run(
            [airflow_binary(), "pools", "import", listed.name], capture_output=True, text=True
        )
    if result.returncode != 0:
        names = ", ".join(pools())
        raise FatalError(f"could not create the pools {names}: {result.stderr.strip()[-2000:]}")
