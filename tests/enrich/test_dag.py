"""The manual `jobharbor_enrich` DAG: it loads with its limits and pool slot, and runs
for real (`airflow dags test`) against the sandbox's Gemini endpoint."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.db.connect import sqlalchemy_url
from tests.airflow.test_dags import airflow_env, dagbag, run, run_states
from tests.enrich.conftest import seed_postings

pytestmark = pytest.mark.airflow


@pytest.fixture
def airflow_metadata(pg_server) -> Iterator[str]:
    name = f"jh_airflow_{uuid.uuid4().hex[:8]}"
    url = pg_server.create(name)
    yield sqlalchemy_url(url)
    pg_server.drop(name)


def test_enrich_dag_is_manual_with_one_pool_slot(tmp_path: Path) -> None:
    bag = dagbag(airflow_env(tmp_path))
    assert bag["errors"] == {}
    dag = bag["dags"]["jobharbor_enrich"]
    assert dag["paused"] is True
    assert dag["schedule"] == "None"
    assert dag["tasks"] == {
        "enrich": {"pool": "jobharbor", "slots": 1, "rule": "all_success", "down": []}
    }


def test_enrich_dag_runs_for_real(
    tmp_path: Path, databases, sandbox, gemini, airflow_metadata: str
) -> None:
    ids = seed_postings(databases.db, ["3+ years of experience with Python. Fully remote."] * 2)
    env = airflow_env(
        tmp_path,
        {
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": airflow_metadata,
            "JOBHARBOR_DATABASE_URL": databases.db.url,
            "JOBHARBOR_SERVING_DATABASE_URL": databases.serving.url,
            "JOBHARBOR_DATA_DIR": str(tmp_path / "data"),
            "JOBHARBOR_LLM_BASE_URL": sandbox.url,
            "GEMINI_API_KEY": "sandbox-test-key",
        },
    )
    for args in (["airflow", "db", "migrate"], ["airflow", "pools", "set", "jobharbor", "3", "t"]):
        result = run(args, env)
        assert result.returncode == 0, result.stderr[-3000:]
    done = run(["airflow", "dags", "test", "jobharbor_enrich"], env)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    assert run_states(env, "jobharbor_enrich") == ["success"]
    assert "sandbox-test-key" not in done.stdout + done.stderr
    with databases.db.connect() as conn:
        n = conn.execute("SELECT count(*) AS n FROM enrich.results WHERE is_current").fetchone()[
            "n"
        ]
    assert n == len(ids)
    assert len(gemini.log()) == 2
