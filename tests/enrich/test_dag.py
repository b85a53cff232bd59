"""The manual `jobharbor_enrich` DAG: it loads with its limits and pool slot, and runs
for real (`airflow dags test`) against the sandbox's Gemini endpoint."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.airflow.harness import (
    airflow_cli,
    airflow_db,
    airflow_env,
    airflow_template,
    dagbag,
    jobharbor_env,
    run_states,
)
from tests.enrich.conftest import seed_postings

pytestmark = pytest.mark.airflow
__all__ = ["airflow_db", "airflow_template"]  # the fixtures, imported for this module's tests


def test_enrich_dag_is_manual_with_one_pool_slot(tmp_path: Path) -> None:
    bag = dagbag(airflow_env(tmp_path))
    assert bag["errors"] == {}
    dag = bag["dags"]["jobharbor_enrich"]
    assert dag["paused"] is True
    assert dag["schedule"] == "None"
    assert dag["tasks"] == {
        "enrich": {
            "pool": "jobharbor",
            "slots": 1,
            "rule": "all_success",
            "down": [],
            "queue": "default",
        }
    }


def test_enrich_dag_runs_for_real(
    tmp_path: Path, databases, sandbox, gemini, airflow_db: str
) -> None:
    ids = seed_postings(databases.db, ["3+ years of experience with Python. Fully remote."] * 2)
    env = jobharbor_env(
        tmp_path,
        databases,
        sandbox,
        airflow_db,
        JOBHARBOR_LLM_BASE_URL=sandbox.url,
        GEMINI_API_KEY="sandbox-test-key",
    )
    with airflow_cli(env) as cli:
        done = cli("dags", "test", "jobharbor_enrich")
        assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
        assert run_states(cli, "jobharbor_enrich") == ["success"]
    assert "sandbox-test-key" not in done.stdout + done.stderr
    with databases.db.connect() as conn:
        n = conn.execute("SELECT count(*) AS n FROM enrich.results WHERE is_current").fetchone()[
            "n"
        ]
    assert n == len(ids)
    assert len(gemini.log()) == 2
