"""A real failed run under Airflow (`airflow dags test`): the freshness DAG on a stale
source fails with one short line, its detail folded in log groups, and the failure
reaches a real SMTP server and a real webhook on loopback, with no secret and no
deprecation warning in the log."""

from __future__ import annotations

import json
import re
from pathlib import Path

import psycopg
import pytest

from pipeline.app import App
from pipeline.phases.discover import discover
from pipeline.phases.parse import parse_source
from tests.airflow.harness import airflow_cli, airflow_db, airflow_template, jobharbor_env
from tests.airflow.sinks import smtp_sink, webhook_sink

pytestmark = pytest.mark.airflow
__all__ = ["airflow_db", "airflow_template"]  # the fixtures, imported for this module's tests

HEADLINE = "freshness: 1 source stale over 6 h (lever 26 h)"


def _stale_lever(app: App) -> None:
    assert discover(app, "lever", force=True).status == "succeeded"
    assert parse_source(app, "lever").status == "succeeded"
    with app.db.connect() as conn:  # fetched a day ago and never published since
        conn.execute("UPDATE crawl.raw_objects SET fetched_at = now() - interval '26 hours'")
        conn.commit()


def test_a_stale_source_fails_in_one_line_and_alerts_by_mail_and_webhook(
    tmp_path: Path, app: App, databases, sandbox, airflow_db: str
) -> None:
    _stale_lever(app)
    with (
        smtp_sink(password="s3cret-pass") as (smtp_port, inbox),
        webhook_sink() as (hook_port, hooks),
    ):
        env = jobharbor_env(
            tmp_path,
            databases,
            sandbox,
            airflow_db,
            AIRFLOW__LOGGING__LOGGING_LEVEL="INFO",
            JOBHARBOR_ALERT_EMAIL_TO="ops@example.org",
            JOBHARBOR_ALERT_SMTP_URL=f"smtp://alerts:s3cret-pass@127.0.0.1:{smtp_port}",
            JOBHARBOR_ALERT_WEBHOOK_URL=f"http://127.0.0.1:{hook_port}/hooks/tok3n-secret",
        )
        with airflow_cli(env) as cli:
            result = cli("dags", "test", "jobharbor_freshness")
    output = result.stdout + result.stderr

    with psycopg.connect(airflow_db.replace("postgresql+psycopg://", "postgresql://")) as conn:
        (state,) = conn.execute(
            "SELECT state FROM task_instance WHERE dag_id = 'jobharbor_freshness'"
        ).fetchone()
    assert state == "failed", output[-4000:]

    subject = f"jobharbor_freshness.freshness failed: {HEADLINE}"
    (message,) = inbox.messages
    assert message["Subject"] == subject
    assert inbox.recipients == [["ops@example.org"]]
    assert re.search(r"lever: oldest_unpublished_s = 9\d{4}s > 21600s", message.get_content())
    ((path, posted),) = hooks.posts
    assert path == "/hooks/tok3n-secret"
    assert posted["text"] == subject

    # The log: the reason as one short line, the report folded in groups, no secrets.
    assert HEADLINE in output
    assert "stale: lever: " not in output  # the old one-line dump of every problem
    for title in ("status by source", "lag by source", "over the threshold (1)"):
        assert f"::group::{title}" in output, output[-4000:]
    assert output.count("::endgroup::") >= 3
    assert "alert sent by: email, webhook" in output
    assert "s3cret-pass" not in output
    assert "tok3n-secret" not in output
    assert not re.search(r"DeprecationWarning|RemovedIn\w*Warning", output), [
        line for line in output.splitlines() if "Warning" in line
    ]


def test_every_task_alerts_on_failure_and_the_long_running_dags_have_a_deadline(
    tmp_path: Path,
) -> None:
    from tests.airflow.harness import airflow_env, run

    probe = """
import json, os
from airflow.dag_processing.dagbag import DagBag
bag = DagBag(dag_folder=os.environ["AIRFLOW__CORE__DAGS_FOLDER"])
print(json.dumps({
    dag_id: {
        "deadline": [str(d.interval) for d in (dag.deadline or [])],
        "callbacks": {t.task_id: [f"{c.__module__}.{c.__name__}" for c in (
            t.on_failure_callback if isinstance(t.on_failure_callback, list)
            else [t.on_failure_callback] if t.on_failure_callback else [])]
            for t in dag.tasks},
    }
    for dag_id, dag in bag.dags.items()
}))
"""
    import sys

    env = airflow_env(tmp_path, {"JOBHARBOR_ALERT_DEADLINE_MINUTES": "90"})
    result = run([sys.executable, "-c", probe], env)
    assert result.returncode == 0, result.stderr[-3000:]
    dags = json.loads(result.stdout.strip().splitlines()[-1])
    alert = ["pipeline.airflow.alerts.on_task_failure"]
    for dag_id, dag in dags.items():
        for task_id, callbacks in dag["callbacks"].items():
            # The watcher only keeps a run red after a phase failed and alerted.
            expected = [] if task_id == "watcher" else alert
            assert callbacks == expected, f"{dag_id}.{task_id}"
        if dag_id.startswith("jobharbor_backfill_"):
            assert dag["deadline"] == [], dag_id  # approval may wait for days
        else:
            assert dag["deadline"] == ["1:30:00"], dag_id
