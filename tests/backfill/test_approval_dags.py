"""The approval screen for real (`airflow dags test`, answered the way the REST API and
the scheduler's timeout sweep answer): the screen shows the selection, counts, sample
diffs, the fingerprint and the plan log; apply refuses a manifest other than the one
planned and approved, whatever plan's XCom says; a rejection or a timeout skips apply
and fails the run, and the decision says who, when and why."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from pipeline.app import App
from pipeline.backfill.approval import planned_run
from pipeline.backfill.manifest import load_manifest
from pipeline.settings import REPO_ROOT
from tests.airflow.harness import AirflowCli, run, run_states
from tests.backfill.conftest import lever_versions
from tests.backfill.test_backfill_dags import (
    airflow_db,
    airflow_template,
    cli,
    manifests,
    task_logs,
    task_states,
)

pytestmark = [pytest.mark.airflow, pytest.mark.timeout(1500)]
__all__ = ["airflow_db", "airflow_template", "cli"]  # fixtures, imported for these tests

DAG = "jobharbor_backfill_reparse"
APPLY = {"source": "lever", "limit": 500, "dry_run": False, "approve": True}
WAIT_S = 300
UI = "http://127.0.0.1:9"
RESPONDER = Path(__file__).with_name("hitl_responder.py")


def responder(cli: AirflowCli, *args: str) -> dict:
    result = run([sys.executable, str(RESPONDER), *args], cli.env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def wait_for_approval(cli: AirflowCli, running: subprocess.Popen[str]) -> dict:
    """The approval request once the run waits for it; the run's output if it never does."""
    deadline = time.monotonic() + WAIT_S
    while running.poll() is None and time.monotonic() < deadline:
        if request := responder(cli, "wait", DAG):
            return request
    running.kill()
    raise AssertionError("the run never waited for approval:\n" + finish(cli, running)[-6000:])


def start_run(cli: AirflowCli, conf: dict) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["airflow", "dags", "test", DAG, "-c", json.dumps(conf)],
        # The UI address the screen links to; nothing listens there (the run note, written
        # through the API, is not: the decision is in the database and the log).
        env={**cli.env, "AIRFLOW__API__BASE_URL": UI},
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finish(cli: AirflowCli, running: subprocess.Popen[str]) -> str:
    output, _ = running.communicate(timeout=600)
    return output + "\n" + task_logs(cli)


def older_results(app: App) -> int:
    """Results "from an older parser", with other titles: lever@1 has work to show."""
    with app.db.connect() as conn:
        conn.execute(
            """UPDATE core.parse_results SET parser_version = '0', title = 'old ' || title
               WHERE posting_id IN (SELECT id FROM core.postings WHERE source_id = 'lever')"""
        )
        conn.commit()
    return lever_versions(app)["0"]


def test_apply_refuses_a_manifest_other_than_the_approved_one_and_applies_the_approved_one(
    cli: AirflowCli, parsed_lever: App
) -> None:
    app = parsed_lever
    postings = older_results(app)
    other = cli("dags", "test", DAG, "-c", json.dumps({"source": "lever", "limit": 1}))
    assert other.returncode == 0, other.stderr[-3000:]
    (another_valid,) = manifests(cli)  # a real preview, of another selection

    # 1. The plan's XCom is edited to name another valid manifest: apply refuses.
    running = start_run(cli, APPLY)
    screen = wait_for_approval(cli, running)
    responder(cli, "xcom", DAG, str(another_valid))
    responder(cli, "respond", DAG, "Approve", "titles fixed by lever@1", "ana")
    output = finish(cli, running)
    assert task_states(cli, DAG)["apply"] == "failed"
    assert f"apply was given manifest {another_valid}, but this run's plan recorded" in output
    assert lever_versions(app) == {"0": postings}

    body = screen["body"]
    planned = planned_run(app.db, DAG, screen["run_id"])
    assert planned is not None
    assert planned.verdict().startswith("approved by ana (id id-ana) at ")
    assert "**Selection:** source=lever, limit=500" in body
    assert f"| postings to re-parse | {postings} |" in body
    assert "| would change (of " in body
    assert body.count("| field | now | after |") == min(postings, 10)
    assert "| title | old " in body
    assert f"**Fingerprint:** `{planned.fingerprint}`" in body
    assert f"]({UI}/dags/{DAG}/runs/manual__" in body
    assert "/tasks/plan)" in body
    assert screen["options"] == ["Approve", "Reject"]
    assert screen["defaults"] == ["Reject"]  # what a timeout chooses
    assert screen["params"]["reason"]["schema"]["minLength"] == 1
    assert screen["timeout"] is not None  # 24 h from the wait, by default

    # 2. The manifest file is rewritten (fewer items, its own fingerprint made to match)
    # after the screen showed it: apply refuses the fingerprint it was not approved for.
    running = start_run(cli, APPLY)
    screen = wait_for_approval(cli, running)
    path = Path(planned_run(app.db, DAG, screen["run_id"]).manifest_path)  # type: ignore[union-attr]
    edited = load_manifest(path)
    edited = replace(edited, items=edited.items[:1])
    path.write_text(json.dumps(edited.to_dict(), default=str))
    responder(cli, "respond", DAG, "Approve", "looks right", "ana")
    output = finish(cli, running)
    assert task_states(cli, DAG)["apply"] == "failed"
    assert f"manifest {path} has fingerprint {edited.fingerprint[:12]}, not the " in output
    assert lever_versions(app) == {"0": postings}

    # 3. Nothing edited: the approved manifest is applied, and the decision recorded.
    running = start_run(cli, APPLY)
    screen = wait_for_approval(cli, running)
    responder(cli, "respond", DAG, "Approve", "titles fixed by lever@1", "ana")
    output = finish(cli, running)
    assert task_states(cli, DAG) == {
        "plan": "success", "route": "success", "approval": "success", "decision": "success",
        "no_approval": "skipped", "apply": "success",
    }  # fmt: skip
    assert run_states(cli, DAG)[0] == "success"
    assert lever_versions(app) == {"1": postings}
    assert "decision: approved by ana (id id-ana) at " in output


def test_a_rejection_or_a_timeout_skips_apply_and_fails_the_run_saying_who_and_why(
    cli: AirflowCli, parsed_lever: App
) -> None:
    app = parsed_lever
    postings = older_results(app)
    not_green = {
        "plan": "success", "route": "success", "approval": "success", "decision": "failed",
        "no_approval": "skipped", "apply": "skipped",
    }  # fmt: skip

    running = start_run(cli, APPLY)
    screen = wait_for_approval(cli, running)
    responder(cli, "respond", DAG, "Reject", "wait for the new parser release", "bo")
    output = finish(cli, running)
    assert task_states(cli, DAG) == not_green
    assert run_states(cli, DAG)[0] == "failed"
    assert "rejected by bo (id id-bo) at " in output
    assert ": wait for the new parser release; apply skipped" in output
    planned = planned_run(app.db, DAG, screen["run_id"])
    assert planned is not None
    assert planned.decision == "rejected"
    assert planned.reason == "wait for the new parser release"

    # Nobody answers before the deadline: the scheduler's sweep chooses the default.
    conf = APPLY | {"approval_timeout_hours": 2}
    running = start_run(cli, conf)
    screen = wait_for_approval(cli, running)
    responder(cli, "timeout", DAG)
    output = finish(cli, running)
    assert task_states(cli, DAG) == not_green
    assert "rejected by nobody (timed out) at " in output
    assert ": no decision within 2 h; apply skipped" in output
    assert lever_versions(app) == {"0": postings}


def test_a_decision_without_a_reason_is_refused_and_applies_nothing(
    cli: AirflowCli, parsed_lever: App
) -> None:
    app = parsed_lever
    postings = older_results(app)
    running = start_run(cli, APPLY)
    wait_for_approval(cli, running)
    responder(cli, "respond", DAG, "Approve", "  ", "ana")  # the REST API does not check it
    output = finish(cli, running)
    states = task_states(cli, DAG)
    assert states["approval"] == "failed"
    assert states["apply"] != "success"
    assert "a decision needs a reason" in output
    assert lever_versions(app) == {"0": postings}
