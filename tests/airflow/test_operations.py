"""The operator's stack in real Airflow: every task fits the `jobharbor` pool, the
backfill DAGs have their declared graph and capped params (every Param described, a
value over a cap refused by Airflow, never clamped by the form), the platform creates the pool
itself (idempotently), and a failed phase fails the run: a discover on a database that
is not at the code's schema fails at once (no retry) saying what to run, the later
phases still succeed, and the watcher leaves the run failed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import psycopg
import pytest

from pipeline.airflow.setup import LANE_POOL_SLOTS, POOL, POOL_DESCRIPTION, POOL_SLOTS, pools
from pipeline.backfill.manifest import MAX_LIMIT
from pipeline.config import LANE_QUEUES, lane_pool
from pipeline.db import migrate
from tests.airflow.harness import (
    AirflowCli,
    airflow_db,
    airflow_env,
    airflow_template,
    dagbag,
    jobharbor_env,
    last_json_line,
    run,
    run_states,
)

pytestmark = [pytest.mark.airflow, pytest.mark.timeout(900)]
__all__ = ["airflow_db", "airflow_template"]

# Every Param of every DAG (its schema, description and default), and what Airflow's
# own validation (the one the REST API and the trigger form's submit go through) makes
# of each tried `limit` of the backfill DAGs: "accepted" or its error.
PARAMS_PROBE = """
import copy, json, os, sys
from airflow.dag_processing.dagbag import DagBag
bag = DagBag(dag_folder=os.environ["AIRFLOW__CORE__DAGS_FOLDER"])
tried = json.loads(sys.argv[1])

def resolved(param, value):
    try:
        copy.deepcopy(param).resolve(value)
        return "accepted"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"

print(json.dumps({
    "params": {d: {k: p.schema | {"default": p.value if p.has_value else "<required>",
                                   "description": p.description}
                   for k, p in dag.params.items()}
               for d, dag in bag.dags.items()},
    "limit": {d: {str(v): resolved(dag.params.get_param("limit"), v) for v in tried}
              for d, dag in bag.dags.items() if d.startswith("jobharbor_backfill_")},
}, default=str))
"""
TRIED_LIMITS = [0, 1, MAX_LIMIT, MAX_LIMIT + 1, 100_000]


def probe_params(tmp_path: Path) -> dict:
    result = run(
        [sys.executable, "-c", PARAMS_PROBE, json.dumps(TRIED_LIMITS)], airflow_env(tmp_path)
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_every_task_fits_the_pool_and_backfills_have_their_graph(tmp_path: Path) -> None:
    bag = dagbag(airflow_env(tmp_path))
    assert bag["errors"] == {}
    for dag_id, dag in bag["dags"].items():
        assert dag["paused"] is True, dag_id
        for task_id, task in dag["tasks"].items():
            # The source DAGs' tasks take their lane's pool; every other task the shared one.
            lane_task = task["queue"] != "default"
            assert task["pool"] == (lane_pool(task["queue"]) if lane_task else POOL), (
                dag_id,
                task_id,
            )
            assert task["pool"] in pools(), (dag_id, task_id)  # one that setup creates
            assert 1 <= task["slots"] <= pools()[task["pool"]]["slots"], (dag_id, task_id)
    for kind in ("reparse", "check", "sync", "enrich"):
        tasks = bag["dags"][f"jobharbor_backfill_{kind}"]["tasks"]
        assert {t: v["down"] for t, v in tasks.items()} == {
            "plan": ["route"], "route": ["approval", "no_approval"],
            "approval": ["apply", "decision"], "no_approval": ["apply"], "apply": [],
            "decision": [],
        }  # fmt: skip
        assert tasks["apply"]["rule"] == "none_failed_min_one_success"
        assert tasks["apply"]["slots"] == (3 if kind == "sync" else 1)
    assert bag["dags"]["jobharbor_raw_cleanup"]["tasks"]["cleanup"]["slots"] == POOL_SLOTS

    params = probe_params(tmp_path)["params"]
    for dag_id, schema in params.items():
        if not dag_id.startswith("jobharbor_backfill_"):
            continue
        assert schema["limit"]["default"] == "<required>", dag_id
        assert schema["limit"]["allOf"] == [{"minimum": 1, "maximum": MAX_LIMIT}], dag_id
        assert schema["dry_run"]["default"] is True, dag_id
        assert schema["approve"]["default"] is False, dag_id
        assert schema["approval_timeout_hours"]["default"] == 24, dag_id
    assert params["jobharbor_backfill_check"]["max_requests"]["allOf"][0]["maximum"] == 5000


def test_the_pool_description_names_every_task_that_takes_the_whole_pool(tmp_path: Path) -> None:
    bag = dagbag(airflow_env(tmp_path))
    whole_pool = sorted(
        f"{dag_id}.{task_id}"
        for dag_id, dag in bag["dags"].items()
        for task_id, task in dag["tasks"].items()
        if task["slots"] == POOL_SLOTS
    )
    assert whole_pool == [
        "jobharbor_backfill_sync.apply", "jobharbor_raw_cleanup.cleanup",
        "jobharbor_serving_sync.sync",
    ]  # fmt: skip
    for name in whole_pool:
        assert name in POOL_DESCRIPTION, f"the pool's description leaves out {name}"


def test_every_param_of_every_dag_has_a_description_stating_its_cap(tmp_path: Path) -> None:
    params = probe_params(tmp_path)["params"]
    assert "jobharbor_backfill_reparse" in params
    assert "jobharbor_enrich" in params
    for dag_id, schemas in params.items():
        for name, schema in schemas.items():
            assert (schema["description"] or "").strip(), f"{dag_id}.{name} has no description"
            for bounds in schema.get("allOf", []):
                if "maximum" in bounds:  # a cap is stated where the operator reads it
                    assert f"{bounds['maximum']:,}" in schema["description"], (dag_id, name)


def test_limit_over_the_cap_is_refused_by_airflow_and_the_form_cannot_clamp_it(
    tmp_path: Path,
) -> None:
    probed = probe_params(tmp_path)
    assert len(probed["limit"]) == 4  # reparse, check, sync, enrich
    for dag_id, outcomes in probed["limit"].items():
        assert outcomes["1"] == outcomes[str(MAX_LIMIT)] == "accepted", dag_id
        for refused in (MAX_LIMIT + 1, 100_000):
            assert outcomes[str(refused)].startswith("ParamValidationError"), dag_id
            assert f"{refused} is greater than the maximum of {MAX_LIMIT}" in outcomes[str(refused)]
        assert "0 is less than the minimum of 1" in outcomes["0"], dag_id
    # The trigger form clamps a number field into a top-level minimum/maximum when it
    # loses focus: no Param of any DAG may have one (their bounds are under allOf).
    for dag_id, schemas in probed["params"].items():
        for name, schema in schemas.items():
            assert not {"minimum", "maximum"} & set(schema), f"{dag_id}.{name} would clamp"


def test_setup_makes_the_pool_and_a_failed_discover_leaves_the_run_failed(
    tmp_path: Path, databases, sandbox, airflow_db: str
) -> None:
    env = jobharbor_env(tmp_path, databases, sandbox, airflow_db)
    for _ in range(2):  # idempotent
        setup = run([sys.executable, "-m", "pipeline", "airflow", "setup"], env)
        assert setup.returncode == 0, setup.stderr[-3000:]
    with AirflowCli(env) as cli:
        listed = cli("pools", "list", "-o", "json")
        made = {p["pool"]: p for p in json.loads(last_json_line(listed.stdout))}
        assert made[POOL]["slots"] == str(POOL_SLOTS)
        assert made[POOL]["description"] == POOL_DESCRIPTION
        for lane in LANE_QUEUES:  # each lane its own pool
            assert made[lane_pool(lane)]["slots"] == str(LANE_POOL_SLOTS)
        # The schema falls behind the code (a deploy without `jobharbor db up`).
        with databases.db.connect() as conn:
            conn.execute("UPDATE alembic_version SET version_num = '0002'")
            conn.commit()
        result = cli("dags", "test", "jobharbor_lever")
        output = result.stdout + result.stderr
        head = migrate.head_revision()
        assert f"is at revision 0002; this code needs {head}: run `jobharbor db up`" in output
        assert run_states(cli, "jobharbor_lever") == ["failed"]
        # Straight from Airflow's metadata: state and attempts of every task of the run.
        with psycopg.connect(airflow_db.replace("postgresql+psycopg://", "postgresql://")) as conn:
            rows = conn.execute(
                "SELECT task_id, state, try_number FROM task_instance WHERE dag_id = 'jobharbor_lever'"
            ).fetchall()
        states = {task_id: (state, tries) for task_id, state, tries in rows}
        assert states == {
            "discover": ("failed", 1),  # fatal: failed at once, no retry
            "fetch": ("success", 1),
            "parse": ("success", 1),
            "check": ("success", 1),
            "watcher": ("failed", 1),
        }
