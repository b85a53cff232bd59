"""Real Airflow: the DagBag loads, the task graph is as declared, and a source DAG
and the sync DAG run for real (`airflow dags test`) against the sandbox and test
databases. Airflow runs in subprocesses so its global configuration never leaks
into other tests."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from pipeline.config import lane_pool, load_sources, source_lane
from pipeline.db.connect import advisory_lock
from pipeline.settings import REPO_ROOT
from tests.airflow.harness import (
    AirflowCli,
    airflow_cli,
    airflow_db,
    airflow_env,
    airflow_template,
    dagbag,
    jobharbor_env,
    run,
    run_states,
)

pytestmark = pytest.mark.airflow
__all__ = ["airflow_db", "airflow_template"]  # the fixtures, imported for this module's tests


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
        # The last phase updates the source's postings asset: the sync runs on it.
        source = dag_id.removeprefix("jobharbor_")
        assert dag["outlets"] == {"check": [f"jobharbor://postings/{source}"]}
        # Every task in its source's lane: queued there, and in the lane's own pool.
        lane = source_lane(names[source])
        assert {t["queue"] for t in dag["tasks"].values()} == {lane}
        assert {t["pool"] for t in dag["tasks"].values()} == {lane_pool(lane)}
        assert {t: {k: v for k, v in d.items() if k in ("slots", "rule", "down")} for t, d in dag["tasks"].items()} == {
            "discover": {"slots": 1, "rule": "all_success", "down": ["fetch", "watcher"]},
            "fetch": {"slots": 1, "rule": "all_done", "down": ["parse", "watcher"]},
            "parse": {"slots": 1, "rule": "all_done", "down": ["check", "watcher"]},
            "check": {"slots": 1, "rule": "all_done", "down": ["watcher"]},
            "watcher": {"slots": 1, "rule": "one_failed", "down": []},
        }  # fmt: skip
    # The lanes' pools are apart: no lane's tasks can fill another lane's slots.
    lanes = {source_lane(s) for s in names.values()}
    used = {t["pool"] for d in source_dags for t in bag["dags"][d]["tasks"].values()}
    assert used == {lane_pool(lane) for lane in lanes}
    assert len(used) == len(lanes) >= 2
    # The sync takes all three slots of the shared pool: it never overlaps another task
    # there; against the lanes' tasks the ingest gate keeps it apart (test_ingest_gate.py).
    assert bag["dags"]["jobharbor_serving_sync"]["tasks"] == {
        "sync": {
            "pool": "jobharbor", "slots": 3, "rule": "all_success", "down": [], "queue": "default"
        }
    }  # fmt: skip
    # The sync runs when any source's postings update, or on its backstop timer, and
    # updates the serving asset the freshness report runs on (or hourly without one).
    sync = bag["dags"]["jobharbor_serving_sync"]
    assert sync["assets"] == {
        "kind": "AssetAny",
        "uris": sorted(f"jobharbor://postings/{name}" for name in names),
    }
    assert sync["timer"] == "*/30 * * * *"
    assert sync["outlets"] == {"sync": ["jobharbor://serving/jobs"]}
    freshness = bag["dags"]["jobharbor_freshness"]
    assert freshness["assets"] == {"kind": "Asset", "uris": ["jobharbor://serving/jobs"]}
    assert freshness["timer"] == "0 * * * *"


def test_a_task_parsing_the_file_for_its_dag_builds_that_dag_only(tmp_path: Path) -> None:
    # Airflow sets this while a task's process parses the DAG file (get_parsing_context).
    only = {"_AIRFLOW_PARSING_CONTEXT_DAG_ID": "jobharbor_lever"}
    bag = dagbag(airflow_env(tmp_path, only))
    assert bag["errors"] == {}
    built = {d for d in bag["dags"] if d.startswith("jobharbor_") and "backfill" not in d}
    # The other source DAGs and the sync are not built; other DAG files decide for
    # themselves (the operations file builds its two small DAGs).
    assert "jobharbor_lever" in built
    assert "jobharbor_greenhouse" not in built
    assert "jobharbor_serving_sync" not in built
    assert bag["dags"]["jobharbor_lever"]["outlets"] == {"check": ["jobharbor://postings/lever"]}
    sync_only = dagbag(
        airflow_env(tmp_path, {"_AIRFLOW_PARSING_CONTEXT_DAG_ID": "jobharbor_serving_sync"})
    )
    assert "jobharbor_serving_sync" in sync_only["dags"]
    assert "jobharbor_lever" not in sync_only["dags"]
    assert len(sync_only["dags"]["jobharbor_serving_sync"]["assets"]["uris"]) > 1


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


@pytest.fixture
def cli(tmp_path: Path, databases, sandbox, airflow_db: str) -> Iterator[AirflowCli]:
    with airflow_cli(jobharbor_env(tmp_path, databases, sandbox, airflow_db)) as running:
        yield running


def discover_xcom(airflow_db: str, dag_id: str) -> dict:
    """The return value of the newest run's discover task, from Airflow's own XCom table."""
    with psycopg.connect(airflow_db.replace("postgresql+psycopg://", "postgresql://")) as conn:
        (value,) = conn.execute(
            """SELECT value FROM xcom WHERE dag_id = %s AND task_id = 'discover'
               AND key = 'return_value' ORDER BY timestamp DESC LIMIT 1""",
            (dag_id,),
        ).fetchone()
    return value if isinstance(value, dict) else json.loads(value)


def asset_events(airflow_db: str) -> list[tuple[str, str, str]]:
    """Every asset event in Airflow's metadata: (asset URI, producing DAG, task)."""
    with psycopg.connect(airflow_db.replace("postgresql+psycopg://", "postgresql://")) as conn:
        rows = conn.execute(
            """SELECT a.uri, e.source_dag_id, e.source_task_id FROM asset_event e
               JOIN asset a ON a.id = e.asset_id ORDER BY e.id"""
        ).fetchall()
    return [tuple(r) for r in rows]


def test_source_dag_and_sync_dag_run_for_real(
    cli: AirflowCli, databases, sandbox, airflow_db: str
) -> None:
    # The source DAG through the `airflow` command itself, once: the rest of the real
    # Airflow tests run the same commands in one long-lived process (harness.AirflowCli).
    ingest = run(["airflow", "dags", "test", "jobharbor_greenhouse"], cli.env)
    output = ingest.stdout + ingest.stderr
    assert ingest.returncode == 0, output[-4000:]
    assert run_states(cli, "jobharbor_greenhouse") == ["success"]
    # Each phase's progress reaches the task's output; nothing Airflow or we call is
    # deprecated.
    for phase in ("discover source greenhouse", "parse greenhouse"):
        assert re.search(rf"{phase}: \d+ done \(", output), (phase, output[-4000:])
    assert not re.search(r"DeprecationWarning|RemovedIn\w*Warning", output), output[-4000:]

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
    # Its check updated the source's postings asset (what starts the sync under Airflow).
    assert asset_events(airflow_db) == [
        ("jobharbor://postings/greenhouse", "jobharbor_greenhouse", "check")
    ]

    publish = cli("dags", "test", "jobharbor_serving_sync")
    assert publish.returncode == 0, (publish.stdout + publish.stderr)[-4000:]
    assert run_states(cli, "jobharbor_serving_sync") == ["success"]
    # A manual run is not held to the minimum interval; it updates the serving asset.
    assert asset_events(airflow_db)[-1] == (
        "jobharbor://serving/jobs",
        "jobharbor_serving_sync",
        "sync",
    )
    with databases.serving.connect() as conn:
        rows = conn.execute("SELECT source, count(*) AS n FROM serving.jobs GROUP BY 1").fetchall()
    assert [(r["source"], r["n"]) for r in rows] == [("greenhouse", expected)]

    # Run again at once: no board is due, and the discover task's result says which is
    # next and when, instead of a bare boards=0.
    again = cli("dags", "test", "jobharbor_greenhouse")
    assert again.returncode == 0, (again.stdout + again.stderr)[-4000:]
    idle = discover_xcom(airflow_db, "jobharbor_greenhouse")
    assert idle["boards"] == 0
    assert idle["message"].startswith("0 boards due; next due ")
    assert " UTC, in " in idle["message"]
    assert idle["message"].endswith(")")
    assert "(greenhouse/" in idle["message"]

    # While another run holds the source's discover lock, the task skips and says why.
    with advisory_lock(databases.db, "discover", "greenhouse"):
        held = cli("tasks", "test", "jobharbor_greenhouse", "discover")
    output = held.stdout + held.stderr
    assert (
        "skipped: another discover run of greenhouse holds jobharbor:discover:greenhouse" in output
    )


def last_polled(databases) -> dict[str, object]:
    with databases.db.connect() as conn:
        rows = conn.execute(
            "SELECT board_key, last_polled_at FROM crawl.boards WHERE source_id = 'lever'"
        ).fetchall()
    return {r["board_key"]: r["last_polled_at"] for r in rows}


def test_a_source_dag_forced_polls_boards_that_are_not_due(
    cli: AirflowCli, databases, airflow_db: str
) -> None:
    first = cli("dags", "test", "jobharbor_lever")
    assert first.returncode == 0, (first.stdout + first.stderr)[-4000:]
    polled = last_polled(databases)
    assert set(polled) == {"harbor-labs", "iron-works"}

    # Nothing is due now; `force` polls every board of the source all the same.
    forced = cli("dags", "test", "jobharbor_lever", "-c", json.dumps({"force": True}))
    assert forced.returncode == 0, (forced.stdout + forced.stderr)[-4000:]
    assert discover_xcom(airflow_db, "jobharbor_lever")["message"] == "forced: 2 boards polled"
    again = last_polled(databases)
    assert all(again[key] > polled[key] for key in polled)

    # `boards` names the only board to poll, due or not.
    named = cli("dags", "test", "jobharbor_lever", "-c", json.dumps({"boards": ["iron-works"]}))
    assert named.returncode == 0, (named.stdout + named.stderr)[-4000:]
    assert discover_xcom(airflow_db, "jobharbor_lever")["message"] == "forced: 1 board polled"
    latest = last_polled(databases)
    assert latest["iron-works"] > again["iron-works"]
    assert latest["harbor-labs"] == again["harbor-labs"]

    # A name the source does not have fails the run before anything is polled.
    unknown = cli("dags", "test", "jobharbor_lever", "-c", json.dumps({"boards": ["nope"]}))
    assert "nothing polled: lever has no board 'nope'" in unknown.stdout + unknown.stderr
    assert sorted(run_states(cli, "jobharbor_lever")) == ["failed"] + ["success"] * 3
    assert last_polled(databases) == latest
