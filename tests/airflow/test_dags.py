"""Real Airflow: the DagBag loads, the task graph is as declared, and a source DAG
and the sync DAG run for real (`airflow dags test`) against the sandbox and test
databases. Airflow runs in subprocesses so its global configuration never leaks
into other tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from pipeline.config import load_sources
from pipeline.db.connect import advisory_lock, sqlalchemy_url
from pipeline.settings import REPO_ROOT

pytestmark = pytest.mark.airflow
BIN = Path(sys.executable).parent


def airflow_env(tmp_path: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "JOBHARBOR_"))}
    env.update(
        AIRFLOW_HOME=str(tmp_path / "airflow"),
        AIRFLOW__CORE__DAGS_FOLDER=str(REPO_ROOT / "dags"),
        AIRFLOW__CORE__LOAD_EXAMPLES="False",
        AIRFLOW__LOGGING__LOGGING_LEVEL="WARNING",
        JOBHARBOR_SOURCES=str(REPO_ROOT / "sandbox" / "sources.yaml"),
        # Share the built location index instead of rebuilding it in a temp data dir.
        JOBHARBOR_CACHE_DIR=str(REPO_ROOT / ".data" / "cache"),
        PATH=f"{BIN}:{env.get('PATH', '')}",
        PYTHONPATH=str(REPO_ROOT),
    )
    env.update(extra or {})
    return env


def run(
    args: list[str], env: dict[str, str], timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, env=env, capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT
    )


DAGBAG_PROBE = """
import json
from airflow.dag_processing.dagbag import DagBag
bag = DagBag(dag_folder=__import__("os").environ["AIRFLOW__CORE__DAGS_FOLDER"])
print(json.dumps({
    "errors": {k: str(v) for k, v in bag.import_errors.items()},
    "dags": {
        dag_id: {
            "paused": dag.is_paused_upon_creation,
            "schedule": str(dag.schedule),
            "tasks": {
                t.task_id: {"pool": t.pool, "slots": t.pool_slots, "rule": getattr(t.trigger_rule, "value", str(t.trigger_rule)),
                            "down": sorted(t.downstream_task_ids)}
                for t in dag.tasks
            },
        }
        for dag_id, dag in bag.dags.items()
    },
}))
"""


def dagbag(env: dict[str, str]) -> dict:
    result = run([sys.executable, "-c", DAGBAG_PROBE], env)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_dagbag_loads_every_source_with_the_declared_graph(tmp_path: Path) -> None:
    bag = dagbag(airflow_env(tmp_path))
    assert bag["errors"] == {}
    names = load_sources(REPO_ROOT / "sandbox" / "sources.yaml", env={}).sources
    source_dags = {f"jobharbor_{name}" for name in names}
    operations = {f"jobharbor_backfill_{k}" for k in ("reparse", "check", "sync", "enrich")}
    operations |= {"jobharbor_serving_sync", "jobharbor_raw_cleanup", "jobharbor_freshness"}
    operations |= {"jobharbor_enrich"}
    assert set(bag["dags"]) == source_dags | operations
    for dag_id in sorted(source_dags):
        dag = bag["dags"][dag_id]
        assert dag["paused"] is True
        assert dag["schedule"] == "None"
        assert dag["tasks"] == {
            "discover": {
                "pool": "jobharbor",
                "slots": 1,
                "rule": "all_success",
                "down": ["fetch", "watcher"],
            },
            "fetch": {
                "pool": "jobharbor",
                "slots": 1,
                "rule": "all_done",
                "down": ["parse", "watcher"],
            },
            "parse": {
                "pool": "jobharbor",
                "slots": 1,
                "rule": "all_done",
                "down": ["check", "watcher"],
            },
            "check": {"pool": "jobharbor", "slots": 1, "rule": "all_done", "down": ["watcher"]},
            "watcher": {"pool": "jobharbor", "slots": 1, "rule": "one_failed", "down": []},
        }
    # The sync takes all three slots of the shared pool: it never overlaps ingestion.
    assert bag["dags"]["jobharbor_serving_sync"]["tasks"] == {
        "sync": {"pool": "jobharbor", "slots": 3, "rule": "all_success", "down": []}
    }


def test_shipped_sources_yaml_loads_too(tmp_path: Path) -> None:
    bag = dagbag(airflow_env(tmp_path, {"JOBHARBOR_SOURCES": str(REPO_ROOT / "sources.yaml")}))
    assert bag["errors"] == {}
    assert "jobharbor_greenhouse" in bag["dags"]


def test_a_broken_sources_yaml_is_an_import_error_naming_the_key(tmp_path: Path) -> None:
    broken = tmp_path / "sources.yaml"
    broken.write_text("sources:\n  gh:\n    platform: greenhouse\n    pacing: {rate_per_s: 0}\n")
    bag = dagbag(airflow_env(tmp_path, {"JOBHARBOR_SOURCES": str(broken)}))
    # No DAG built from sources.yaml loads (the source DAGs and the sync); DAG files that
    # do not read it (enrichment) are unaffected.
    assert not [d for d in bag["dags"] if d == "jobharbor_serving_sync" or "gh" in d], bag["dags"]
    # Every DAG file built from sources.yaml (sources, sync, backfills) fails to import,
    # and each import error names the file, line, key and problem.
    messages = list(bag["errors"].values())
    assert messages
    for message in messages:
        assert (
            f"{broken}:4: sources.gh.pacing.rate_per_s: Input should be greater than 0" in message
        )


def run_states(env: dict[str, str], dag_id: str) -> list[str]:
    listed = run(["airflow", "dags", "list-runs", dag_id, "-o", "json"], env)
    assert listed.returncode == 0, listed.stderr[-2000:]
    payload = next(line for line in reversed(listed.stdout.splitlines()) if line.startswith("["))
    return [r["state"] for r in json.loads(payload)]


@pytest.fixture
def airflow_db(pg_server) -> str:
    name = f"jh_airflow_{uuid.uuid4().hex[:8]}"
    url = pg_server.create(name)
    yield sqlalchemy_url(url)
    pg_server.drop(name)


def test_source_dag_and_sync_dag_run_for_real(
    tmp_path: Path, databases, sandbox, airflow_db: str
) -> None:
    env = airflow_env(
        tmp_path,
        {
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": airflow_db,
            "JOBHARBOR_DATABASE_URL": databases.db.url,
            "JOBHARBOR_SERVING_DATABASE_URL": databases.serving.url,
            "JOBHARBOR_RAW_STORE_URL": (tmp_path / "raw").as_uri(),
            "JOBHARBOR_DATA_DIR": str(tmp_path / "data"),
            "JOBHARBOR_SANDBOX_URL": sandbox.url,
            "JOBHARBOR_ALLOW_PRIVATE_NETWORKS": "true",
        },
    )
    for args in (
        ["airflow", "db", "migrate"],
        ["airflow", "pools", "set", "jobharbor", "3", "test pool"],
    ):
        result = run(args, env)
        assert result.returncode == 0, result.stderr[-3000:]

    ingest = run(["airflow", "dags", "test", "jobharbor_greenhouse"], env)
    assert ingest.returncode == 0, (ingest.stdout + ingest.stderr)[-4000:]
    assert run_states(env, "jobharbor_greenhouse") == ["success"]

    expected = sum(
        len(sandbox.state.board("greenhouse", t).jobs)
        for t in ("harbor-labs", "northwind", "acme-robotics", "quiet-bank", "cedar-health")
    )
    with databases.db.connect() as conn:
        runs = conn.execute("SELECT phase, status FROM crawl.runs ORDER BY id").fetchall()
        current = conn.execute(
            "SELECT count(*) AS n FROM core.parse_results WHERE is_current"
        ).fetchone()["n"]
    assert [(r["phase"], r["status"]) for r in runs] == [
        ("discover", "succeeded"),
        ("fetch", "succeeded"),
        ("parse", "succeeded"),
        ("check", "succeeded"),
    ]
    assert current == expected

    publish = run(["airflow", "dags", "test", "jobharbor_serving_sync"], env)
    assert publish.returncode == 0, (publish.stdout + publish.stderr)[-4000:]
    assert run_states(env, "jobharbor_serving_sync") == ["success"]
    with databases.serving.connect() as conn:
        rows = conn.execute("SELECT source, count(*) AS n FROM serving.jobs GROUP BY 1").fetchall()
    assert [(r["source"], r["n"]) for r in rows] == [("greenhouse", expected)]

    # While another run holds the source's discover lock, the task skips and says why.
    with advisory_lock(databases.db, "discover", "greenhouse"):
        held = run(["airflow", "tasks", "test", "jobharbor_greenhouse", "discover"], env)
    output = held.stdout + held.stderr
    assert (
        "skipped: another discover run of greenhouse holds jobharbor:discover:greenhouse" in output
    )
